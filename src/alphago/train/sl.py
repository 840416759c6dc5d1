"""Supervised training from game records (``alphago train sl``).

Data: shards of :mod:`alphago.data.examples` (built from SGF files by
``alphago shards``). The last ``val_fraction`` of the examples, in shard order, is held
out for validation: shards keep each game's positions together and in order, so the
held-out set is (all but one) whole games, unseen in training; a random split of
positions would leak, since neighbouring positions of a game are nearly the same.

Each step samples a batch with replacement, one random symmetry per example, and takes
one :class:`~alphago.train.learner.Learner` step. With the ownership or score loss on
(``TrainConfig.ownership_weight``, ``score_weight``), the shards' final ownership and
score are their targets, for the games that were played out (``alphago shards``
keeps them; resigned games, and shards from before they existed, are masked).

Every ``log_every`` steps the mean loss terms go to ``RUN/metrics.jsonl`` (kind
``train``); every ``val_every`` steps the validation metrics (kind ``validation``).
Every ``checkpoint_every`` steps the run saves ``RUN/checkpoint.pt`` (learner,
configs, random states), ``RUN/weights.pt`` (the current network, for ``alphago play
--weights``) and, when validation improved, ``RUN/best.pt``. Started again on the
same ``RUN``, training continues from the checkpoint with the checkpoint's
configuration and ends exactly where an uninterrupted run ends.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from ..data.examples import Examples, load_shards, sample_aux_batch, sample_batch
from ..nets.model import NetConfig, PolicyValueNet
from ..nets.weights import save_weights
from .checkpoint import (
    checkpoint_entries,
    metrics_lines,
    open_run,
    random_states,
    resume_learner,
    save_checkpoint,
)
from .learner import Learner, TrainConfig
from .metrics import MetricsLog
from .start import load_start, start_network

__all__ = [
    "SLConfig",
    "best_val",
    "load_split",
    "split_validation",
    "supervised_loop",
    "train_sl",
]


@dataclass(frozen=True, slots=True)
class SLConfig:
    """The supervised run (see the module docstring)."""

    steps: int = 20_000
    val_fraction: float = 0.05
    val_every: int = 1_000
    checkpoint_every: int = 1_000
    log_every: int = 100
    seed: int = 0
    symmetries: bool = True

    def __post_init__(self) -> None:
        if self.steps < 1:
            raise ValueError(f"steps must be >= 1, not {self.steps}")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in [0, 1), not {self.val_fraction}")
        for name in ("val_every", "checkpoint_every", "log_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        # Logged means never straddle a checkpoint, so a resumed run logs the same.
        if self.checkpoint_every % self.log_every:
            raise ValueError("checkpoint_every must be a multiple of log_every")


def split_validation(examples: Examples, fraction: float) -> tuple[Examples, Examples]:
    """(training, validation): the last ``fraction`` of the examples held out."""
    n_val = int(round(len(examples) * fraction))
    cut = len(examples) - n_val
    return examples.take(slice(0, cut)), examples.take(slice(cut, None))


def load_split(
    data_paths: Sequence[str], size: int, planes: str, val_fraction: float
) -> tuple[Examples, Examples]:
    """(training, validation) from shards, checked against the network's board size
    and input planes (ValueError naming both when they differ)."""
    examples = load_shards(data_paths)
    if examples.size != size or examples.kind != planes:
        raise ValueError(
            f"the data is {examples.size}x{examples.size} {examples.kind}; the "
            f"network wants {size}x{size} {planes}"
        )
    return split_validation(examples, val_fraction)


def best_val(ckpt_path: Path, state: dict[str, Any] | None) -> float:
    """The best validation score a supervised run's checkpoint has seen (inf if new)."""
    if state is None:
        return math.inf
    with checkpoint_entries(ckpt_path):
        return float(state["best_val"])


#: Step metrics that are the run's state after the step (fp16's skipped-step total
#: and loss scale), not a measurement of it: a line keeps the last, not the mean.
RUN_STATE = ("skipped_steps", "loss_scale")


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {
        k: float(rows[-1][k] if k in RUN_STATE else np.mean([r[k] for r in rows]))
        for k in rows[0]
    }


def supervised_loop(
    run: Path,
    config: SLConfig,
    start: int,
    best: float,
    *,
    train_step: Callable[[], tuple[int, dict[str, float]]],
    validate: Callable[[], tuple[dict[str, float], float]] | None,
    save_best: Callable[[], None],
    checkpoint: Callable[[float], None],
    desc: str,
    postfix: str,
    progress: bool = True,
    stop_after: int | None = None,
) -> None:
    """The steps of a supervised run (``train sl``, ``train policy``) from step
    ``start`` to ``config.steps``, as the module docstring describes.

    ``train_step`` takes one step and returns the step count after it and its
    metrics, whose means go to ``RUN/metrics.jsonl`` every ``log_every`` steps (the
    progress bar shows the mean of ``postfix`` and ``accuracy``). ``validate``
    (None: nothing held out) returns the held-out metrics, logged every
    ``val_every`` steps, and a score; a score below ``best`` (the best so far)
    calls ``save_best``. ``checkpoint(best)`` runs every ``checkpoint_every`` steps
    and at the end; ``stop_after`` stops after that step without a final one, as a
    crash would.
    """
    rows: list[dict[str, float]] = []
    bar = tqdm(
        total=config.steps, initial=start, desc=desc, disable=not progress, unit="step"
    )
    step = start
    with MetricsLog(run / "metrics.jsonl") as log:
        while step < config.steps:
            step, row = train_step()
            rows.append(row)
            bar.update(1)
            if step % config.log_every == 0 or step == config.steps:
                mean = _mean(rows)
                rows.clear()
                log.log("train", step, **mean)
                bar.set_postfix(
                    loss=f"{mean[postfix]:.3f}", acc=f"{mean['accuracy']:.3f}"
                )
            if validate is not None and (
                step % config.val_every == 0 or step == config.steps
            ):
                metrics, score = validate()
                log.log("validation", step, **metrics)
                if score < best:
                    best = score
                    save_best()
            if step % config.checkpoint_every == 0 or step == config.steps:
                checkpoint(best)
            if stop_after is not None and step >= stop_after:
                break
    bar.close()


def train_sl(
    run_dir: str | Path,
    data: Sequence[str | Path] | None = None,
    net_config: NetConfig | None = None,
    train_config: TrainConfig | None = None,
    config: SLConfig | None = None,
    device: str = "cpu",
    progress: bool = True,
    stop_after: int | None = None,
    *,
    precision: str | None = None,
    init_weights: str | Path | None = None,
) -> Learner:
    """Train (or continue training) the run in ``run_dir``; returns the learner.

    A new run needs ``data`` (shard files or directories) and takes the given configs
    (defaults where None). With ``init_weights`` it starts from that network instead
    of random weights (fine-tuning): the network's shape replaces ``net_config``'s
    (:func:`~alphago.train.start.start_network`). An existing run
    (``RUN/checkpoint.pt``) continues with its stored data paths and configs;
    arguments that differ are reported and ignored.
    ``stop_after`` stops after that step (as a crash would, without a final
    checkpoint): the tests use it to check resumption. ``device`` and ``precision``
    (None: bf16 on CUDA, fp32 elsewhere) are the learner's; they are not stored, so
    a run may resume on another device.
    """
    run, ckpt_path, state = open_run(run_dir, "sl", "supervised run's checkpoint")
    if state is not None:
        # With --init the network's shape came from that file, not from net_config.
        asked_net = None if init_weights is not None else net_config
        asked = {"data": data, "net": asked_net, "train": train_config, "sl": config}
        with checkpoint_entries(ckpt_path):
            data = [Path(p) for p in state["data"]]
            net_config = NetConfig.from_dict(state["net_config"])
            train_config = TrainConfig.from_dict(state["train_config"])
            config = SLConfig(**state["sl_config"])
        stored = {"data": data, "net": net_config, "train": train_config, "sl": config}
        changed = [
            name
            for name, given in asked.items()
            if given is not None and given != stored[name] and name != "data"
        ]
        if changed:
            print(
                f"train sl: resuming {run}: its stored settings are used, not the "
                f"given {', '.join(changed)} settings",
                file=sys.stderr,
            )
    if data is None:
        raise ValueError("a new run needs training data")
    train_config = train_config or TrainConfig()
    start = None
    if state is None and init_weights is not None:
        net_config, start = start_network(init_weights, net_config, train_config)
    net_config = net_config or NetConfig(board_size=9)
    config = config or SLConfig()
    data_paths = [str(Path(p).resolve()) for p in data]
    train, val = load_split(
        data_paths, net_config.board_size, net_config.input_planes, config.val_fraction
    )
    torch.manual_seed(config.seed)
    learner = Learner(PolicyValueNet(net_config), train_config, device, precision)
    if start is not None:
        load_start(learner.model, start)
    rng = resume_learner(run, state, "learner", learner.load_state_dict, config.seed)
    best = best_val(ckpt_path, state)

    def checkpoint(best: float) -> None:
        save_weights(learner.model, run / "weights.pt")
        save_checkpoint(
            ckpt_path,
            {
                "kind": "sl",
                "data": data_paths,
                "net_config": net_config.to_dict(),
                "train_config": train_config.to_dict(),
                "sl_config": asdict(config),
                "learner": learner.state_dict(),
                "random": random_states(rng),
                "best_val": best,
                "metrics_lines": metrics_lines(run / "metrics.jsonl"),
            },
        )

    def train_step() -> tuple[int, dict[str, float]]:
        if learner.aux:
            batch = sample_aux_batch(
                train, rng, train_config.batch_size, config.symmetries
            )
            row = learner.train_step(*batch)
        else:
            planes, policy, targets = sample_batch(
                train, rng, train_config.batch_size, config.symmetries
            )
            row = learner.train_step(planes, policy, targets)
        return learner.step, row

    def validate() -> tuple[dict[str, float], float]:
        metrics = learner.validate(val)
        score = (
            metrics["val_policy_loss"]
            + train_config.value_weight * metrics["val_value_mse"]
        )
        return metrics, score

    supervised_loop(
        run,
        config,
        learner.step,
        best,
        train_step=train_step,
        validate=validate if len(val) else None,
        save_best=lambda: save_weights(learner.model, run / "best.pt"),
        checkpoint=checkpoint,
        desc="train sl",
        postfix="loss",
        progress=progress,
        stop_after=stop_after,
    )
    return learner
