"""Starting a new training run from an existing network (``--init`` of ``train sl``
and ``train rl``): fine-tuning the shipped net on new games, or self-play from a
supervised one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..nets.model import NetConfig, PolicyValueNet
from ..nets.weights import load_weights
from .learner import TrainConfig

__all__ = ["load_start", "start_network"]


def start_network(
    init_weights: str | Path, net_config: NetConfig | None, train: TrainConfig
) -> tuple[NetConfig, PolicyValueNet]:
    """(the run's network config, the initial network) for a run started from
    ``init_weights``: its shape replaces ``net_config``, plus freshly initialised
    ownership and score heads where ``train`` weights those losses and the network
    lacks them. Global pooling in ``net_config`` that the network does not have is
    refused (ValueError): it changes the residual blocks."""
    start = load_weights(init_weights)
    pooling = () if net_config is None else net_config.global_pooling
    if pooling and pooling != start.config.global_pooling:
        raise ValueError(
            "global pooling changes the residual blocks, so it cannot be "
            "added to the initial weights' network; start without them"
        )
    config = dataclasses.replace(
        start.config,
        ownership_head=start.config.ownership_head or train.ownership_weight > 0,
        score_head=start.config.score_head or train.score_weight > 0,
    )
    return config, start


def load_start(model: PolicyValueNet, start: PolicyValueNet) -> None:
    """``start``'s weights into ``model``, which may have heads ``start`` lacks
    (they keep their fresh initialisation); every other key must match."""
    result = model.load_state_dict(start.state_dict(), strict=False)
    added = ("ownership_conv.", "score_fc.")
    stray = [k for k in result.missing_keys if not k.startswith(added)]
    if result.unexpected_keys or stray:
        raise ValueError(
            f"the initial weights do not fit the network: "
            f"{sorted(result.unexpected_keys + stray)[:3]}"
        )
