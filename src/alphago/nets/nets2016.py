"""The three files of an AlphaGo (2016) player, loaded and checked together.

A player needs a policy net (P_sigma or P_rho: the priors), and, depending on the
mixing weight lambda of ``search.AlphaGo2016`` (leaf value ``(1 - lambda) * v +
lambda * z``): a value net V_theta for any lambda below 1, and a pattern rollout
policy P_pi for any lambda above 0 (without one the search plays uniform random
rollouts). A part that lambda does not use is not loaded, so it costs nothing.

Shipped files (``alphago/nets/shipped``): ``alphago2016-NxN-policy.pt``,
``alphago2016-NxN-value.pt`` and ``rollout-NxN.npz``; README.md ("AlphaGo 2016")
says how they were trained. The two nets carry their own checksums and the rollout
file is a zip archive with per-member CRCs, so no pinned digest is needed here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

import goboard

from ..rollout_weights import load_rollout_policy
from .alphago2016 import (
    POLICY_KIND,
    VALUE_KIND,
    AlphaGo2016Evaluator,
    PolicyNet2016,
    ValueNet2016,
    load_net2016,
)
from .precision import resolve_device
from .shipped import SHIPPED_DIR

__all__ = ["Nets2016", "Shipped2016", "load_nets_2016", "shipped_2016"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class Shipped2016:
    """The shipped files for one board size (value and rollout may be absent)."""

    policy: Path
    value: Path | None
    rollout: Path | None


def shipped_rollout(size: int) -> Path | None:
    """The pattern rollout policy shipped for ``size`` x ``size``, or None."""
    path = SHIPPED_DIR / f"rollout-{size}x{size}.npz"
    return path if path.is_file() else None


def shipped_2016(size: int) -> Shipped2016 | None:
    """The 2016 files shipped for ``size`` x ``size``, or None without a policy."""
    policy = SHIPPED_DIR / f"alphago2016-{size}x{size}-policy.pt"
    if not policy.is_file():
        return None
    value = SHIPPED_DIR / f"alphago2016-{size}x{size}-value.pt"
    value_file = value if value.is_file() else None
    return Shipped2016(policy, value_file, shipped_rollout(size))


@dataclass(frozen=True, slots=True)
class Nets2016:
    """A checked set: nets on one board size, each part present iff lambda uses it
    (``rollout`` may be None where lambda > 0: uniform rollouts)."""

    policy: PolicyNet2016
    value: ValueNet2016 | None
    rollout: goboard.PatternPolicy | None
    device: torch.device
    names: tuple[str, ...]

    @property
    def size(self) -> int:
        return self.policy.config.board_size

    def evaluator(
        self,
        threads: int | None = None,
        seed: int | np.random.Generator | None = None,
        precision: str | None = None,
    ) -> AlphaGo2016Evaluator:
        """Priors from the policy, values from the value net (0 without one)."""
        return AlphaGo2016Evaluator(
            self.policy,
            self.value,
            device=self.device,
            threads=threads,
            seed=seed,
            precision=precision,
        )

    def describe(self) -> str:
        """One line for the engine's announcement."""
        return ", ".join(self.names)


def _shape(kind: str, path: PathLike, net: PolicyNet2016 | ValueNet2016) -> str:
    c = net.config
    return f"{kind} {Path(path).name} ({c.layers}x{c.filters} on {c.input_planes})"


def load_nets_2016(
    policy: PathLike,
    value: PathLike | None,
    rollout: PathLike | None,
    *,
    device: str | torch.device = "cpu",
    mix_lambda: float = 0.5,
    board_size: int | None = None,
) -> Nets2016:
    """Load a player's files for ``mix_lambda`` (module docstring).

    Raises:
        ValueError: lambda outside [0, 1]; lambda below 1 without a value net; a file
            of the wrong kind (a Zero net as the policy, a policy as the value net),
            board size or planes (WeightsError, a ValueError, naming what was
            expected); a rollout file that is not one.
        OSError: a file cannot be read.
    """
    if not 0.0 <= mix_lambda <= 1.0:
        raise ValueError(f"mix_lambda must be in [0, 1], not {mix_lambda}")
    where = resolve_device(device)
    p = load_net2016(policy, POLICY_KIND, board_size=board_size, map_location=where)
    assert isinstance(p, PolicyNet2016)
    size = p.config.board_size
    names = [_shape("policy", policy, p)]
    v = None
    if mix_lambda < 1.0:
        if value is None:
            raise ValueError(
                f"lambda {mix_lambda:g} mixes in a value net: give --value-net (or "
                "--mix-lambda 1 for rollouts only)"
            )
        loaded = load_net2016(value, VALUE_KIND, board_size=size, map_location=where)
        assert isinstance(loaded, ValueNet2016)
        v = loaded
        names.append(_shape("value", value, v))
    r = None
    if mix_lambda > 0.0:
        if rollout is None:
            names.append("uniform random rollouts")
        else:
            r = load_rollout_policy(rollout)
            names.append(f"rollouts {Path(rollout).name}")
    return Nets2016(p, v, r, where, tuple(names))
