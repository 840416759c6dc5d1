"""``alphago validate``: held-out figures of networks on the same positions.

Candidates are compared on positions none of them trained on, each network read the
same way ``train sl`` validates (eval mode, no symmetries): top-1 agreement with the
recorded move, policy cross-entropy, value MSE against the game's result, and the
ownership and score losses where both the network has the head and the shards carry
the targets. ``--holdout F`` keeps the last fraction F of the examples, the split
``train sl --val-fraction F`` holds out from the same shards, so a run's own
validation set can be scored again by other networks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["COLUMNS", "validate_networks", "table"]

#: (metric key, column title) of the table, in order.
COLUMNS = (
    ("val_accuracy", "top-1"),
    ("val_policy_loss", "policy loss"),
    ("val_value_mse", "value MSE"),
    ("val_ownership_loss", "ownership loss"),
    ("val_score_loss", "score loss"),
)


def validate_networks(
    weights: Sequence[str | Path],
    data: Sequence[str | Path],
    holdout: float = 1.0,
    device: str = "cpu",
) -> tuple[int, list[dict[str, float]]]:
    """(positions, one metrics dict per network in ``weights``) on the last
    ``holdout`` fraction of the examples in ``data``.

    Raises:
        ValueError: no shards, an empty hold-out, a fraction outside (0, 1], a
            weights file that is not a policy-value network, or a network whose board
            size or input planes differ from the data's (named in the message).
    """
    from alphago.data.examples import load_shards
    from alphago.nets.weights import load_network

    from .learner import Learner, TrainConfig
    from .sl import split_validation

    if not 0.0 < holdout <= 1.0:
        raise ValueError(f"--holdout must be in (0, 1], not {holdout}")
    examples = load_shards(data)
    _, held = split_validation(examples, holdout)
    if len(held) == 0:
        raise ValueError(f"no positions held out ({len(examples)} in the shards)")
    results = []
    for path in weights:
        model = load_network(path)
        cfg = model.config
        if (cfg.board_size, cfg.input_planes) != (held.size, held.kind):
            shape = f"{cfg.board_size}x{cfg.board_size} {cfg.input_planes}"
            raise ValueError(
                f"{path}: a {shape} network; the data is "
                f"{held.size}x{held.size} {held.kind}"
            )
        # Weights of 1 only switch the auxiliary losses on where the heads exist;
        # validation reports each loss on its own, unweighted.
        config = TrainConfig(
            ownership_weight=1.0 if cfg.ownership_head else 0.0,
            score_weight=1.0 if cfg.score_head else 0.0,
        )
        learner = Learner(model, config, device=device, precision="fp32")
        results.append(learner.validate(held))
    return len(held), results


def table(names: Sequence[str], results: Sequence[dict[str, float]]) -> str:
    """A Markdown table, a row per network; columns no network has are left out."""
    columns = [c for c in COLUMNS if any(c[0] in r for r in results)]
    lines = [
        "| network | " + " | ".join(title for _, title in columns) + " |",
        "| --- |" + " --- |" * len(columns),
    ]
    for name, row in zip(names, results, strict=True):
        cells = [_cell(key, row) for key, _ in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(key: str, row: dict[str, float]) -> str:
    if key not in row:
        return "-"
    if key == "val_accuracy":
        return f"{100 * row[key]:.1f}%"
    return f"{row[key]:.3f}"
