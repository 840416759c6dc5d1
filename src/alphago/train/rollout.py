"""Training the pattern rollout policy from game records (``alphago train rollout``).

The rollout policy (``goboard.PatternPolicy``, AlphaGo 2016's P_pi) is a linear softmax
over the sparse pattern features of each candidate move. Training maximises the
likelihood of the moves played in SGF game records: for each position (replayed under
Chinese rules) whose played move is one of the policy's candidates, the C feature
extractor lists the active features of every candidate, and the loss is the
cross-entropy of the softmax over the candidates' summed weights, plus ``l2`` times half
the squared weights. Positions whose move is a pass, fills an own true eye or is
otherwise not a candidate are left out (counted as ``skipped``).

The optimiser is Adam over minibatches of positions sampled with replacement, in numpy
(the model is one weight vector; the gradient of a minibatch is a ``bincount`` over its
active features). Weights are clipped to the policy's +-MAX_WEIGHT.

The last ``val_fraction`` of the games (file order) is held out: whole games, so no
near-duplicate neighbour positions leak into validation. Every ``log_every`` steps the
mean loss and top-1 accuracy go to ``RUN/metrics.jsonl`` (kind ``train``), every
``val_every`` steps the held-out ``val_policy_loss`` and ``val_accuracy`` (kind
``validation``); ``alphago report RUN`` draws both. Every ``checkpoint_every`` steps the
run writes ``RUN/checkpoint.pt`` (weights, Adam moments, step, random state, the list of
game files), ``RUN/rollout.npz`` (the current weights, for ``PatternPolicy``) and, when
the held-out loss improved, ``RUN/best.npz``; all atomically. Run again on the same
``RUN`` to continue: the stored settings and files are used and the run ends exactly
where an uninterrupted one would.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from tqdm import tqdm

import goboard
from goboard import pattern_features as pf

from ..data.dataset import sgf_files
from ..rollout_weights import save_rollout_weights
from ..sgf import GameRecord, play_as, read_sgf, start_board
from .checkpoint import (
    checkpoint_entries,
    metrics_lines,
    open_run,
    random_states,
    restore_random_states,
    save_checkpoint,
    truncate_metrics,
)
from .metrics import MetricsLog

__all__ = [
    "RolloutData",
    "RolloutTrainConfig",
    "extract",
    "train_rollout",
]

#: Feature rows are padded with this index, whose weight stays 0.
PAD = pf.NUM_FEATURES
#: Features one candidate can have (rollout.h's GB_RF_MAX_ACTIVE).
WIDTH = 6

I64 = NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class RolloutTrainConfig:
    """The run (see the module docstring)."""

    size: int = 9
    steps: int = 2_000
    batch_size: int = 256
    lr: float = 0.01
    l2: float = 1e-4
    val_fraction: float = 0.1
    val_every: int = 200
    checkpoint_every: int = 200
    log_every: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        if not goboard.MIN_SIZE <= self.size <= goboard.MAX_SIZE:
            raise ValueError(f"size must be in {goboard.MIN_SIZE}..{goboard.MAX_SIZE}")
        for name in (
            "steps",
            "batch_size",
            "val_every",
            "checkpoint_every",
            "log_every",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, not {getattr(self, name)}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a positive number, not {self.lr}")
        if not (math.isfinite(self.l2) and self.l2 >= 0):
            raise ValueError(f"l2 must be >= 0, not {self.l2}")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in [0, 1), not {self.val_fraction}")
        if self.checkpoint_every % self.log_every:
            raise ValueError("checkpoint_every must be a multiple of log_every")


@dataclass(frozen=True, slots=True)
class RolloutData:
    """Positions as candidate rows: example e owns rows ``starts[e]:starts[e + 1]``
    of ``feats`` (int32 [rows, WIDTH], padded with PAD); ``target[e]`` is the row of
    the move played."""

    starts: I64  # [E + 1]
    feats: NDArray[np.int32]  # [rows, WIDTH]
    target: I64  # [E]

    def __len__(self) -> int:
        return int(self.target.shape[0])

    @classmethod
    def empty(cls) -> RolloutData:
        return cls(
            np.zeros(1, np.int64),
            np.zeros((0, WIDTH), np.int32),
            np.zeros(0, np.int64),
        )

    @classmethod
    def concat(cls, parts: Sequence[RolloutData]) -> RolloutData:
        if not parts:
            return cls.empty()
        starts, feats, target = [np.zeros(1, np.int64)], [], []
        offset = 0
        for part in parts:
            starts.append(part.starts[1:] + offset)
            target.append(part.target + offset)
            feats.append(part.feats)
            offset += part.feats.shape[0]
        return cls(
            np.concatenate(starts), np.concatenate(feats), np.concatenate(target)
        )

    def take(self, first: int, last: int) -> RolloutData:
        """Examples first..last-1."""
        lo, hi = int(self.starts[first]), int(self.starts[last])
        return RolloutData(
            self.starts[first : last + 1] - lo,
            self.feats[lo:hi],
            self.target[first:last] - lo,
        )


_ZERO = goboard.PatternPolicy()


def position_rows(
    board: goboard.Board, move: int
) -> tuple[NDArray[np.int32], int] | None:
    """(feature rows [K, WIDTH] of the candidates, row of ``move``), or None when
    ``move`` is not a candidate of the side to move."""
    points, index = _ZERO.features(board)
    cand, first, counts = np.unique(points, return_index=True, return_counts=True)
    where = np.searchsorted(cand, move)
    if where >= len(cand) or cand[where] != move:
        return None
    rows = np.full((len(cand), WIDTH), PAD, dtype=np.int32)
    group = np.repeat(np.arange(len(cand)), counts)
    slot = np.arange(len(points)) - np.repeat(first, counts)
    rows[group, slot] = index
    return rows, int(where)


def game_data(record: GameRecord) -> tuple[RolloutData, int]:
    """(examples, skipped positions) of one game record."""
    board = start_board(record, "chinese", first_from_moves=True)
    pass_point = record.size * record.size
    feats: list[NDArray[np.int32]] = []
    targets: list[int] = []
    skipped = offset = 0
    for colour, point in record.moves:
        if board.is_over:
            break
        if board.to_play == colour and point != pass_point:
            found = position_rows(board, point)
            if found is None:
                skipped += 1
            else:
                rows, where = found
                feats.append(rows)
                targets.append(offset + where)
                offset += rows.shape[0]
        board = play_as(board, colour, point)
    if not feats:
        return RolloutData.empty(), skipped
    sizes = np.array([f.shape[0] for f in feats], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return (
        RolloutData(starts, np.concatenate(feats), np.array(targets, np.int64)),
        skipped,
    )


def extract(
    files: Iterable[Path],
    size: int,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[RolloutData], dict[str, int]]:
    """One RolloutData per usable game of ``files`` (others are skipped with a
    warning), and counts: games, examples, skipped positions."""
    games: list[RolloutData] = []
    skipped = 0
    for i, path in enumerate(files):
        try:
            record = read_sgf(path.read_bytes())
            if record.size != size:
                raise ValueError(f"{record.size}x{record.size}, not {size}x{size}")
            data, lost = game_data(record)
        except (OSError, ValueError) as exc:
            warnings.warn(f"{path}: skipped: {exc}", stacklevel=2)
        else:
            games.append(data)
            skipped += lost
        if progress is not None:
            progress(i + 1)
    counts = {
        "games": len(games),
        "examples": sum(len(g) for g in games),
        "skipped": skipped,
    }
    return games, counts


def _batch_rows(data: RolloutData, examples: I64) -> tuple[I64, I64, I64]:
    """(rows, segment starts, target positions) of ``examples`` within one batch."""
    lo, hi = data.starts[examples], data.starts[examples + 1]
    lengths = hi - lo
    seg = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    rows = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(lo - seg, lengths)
    target = data.target[examples] - lo + seg
    return rows, seg, target


def _forward(
    w: NDArray[np.float64], data: RolloutData, examples: I64
) -> tuple[float, float, NDArray[np.float64], NDArray[np.int32], I64]:
    """(mean loss, accuracy, d loss / d logit per row, feature rows, targets)."""
    rows, seg, target = _batch_rows(data, examples)
    feats = data.feats[rows]
    logits = w[feats].sum(axis=1)
    lengths = np.diff(np.append(seg, len(rows)))
    top = np.maximum.reduceat(logits, seg)
    z = np.exp(logits - np.repeat(top, lengths))
    total = np.add.reduceat(z, seg)
    p = z / np.repeat(total, lengths)
    loss = float(np.mean(np.log(total) - (logits[target] - top)))
    # Top-1: the first candidate with the highest logit (ties do not flatter).
    positions = np.arange(len(rows))
    first_best = np.minimum.reduceat(
        np.where(logits == np.repeat(top, lengths), positions, len(rows)), seg
    )
    accuracy = float(np.mean(first_best == target))
    grad = p
    grad[target] -= 1.0
    return loss, accuracy, grad, feats, target


def evaluate(
    w: NDArray[np.float64], data: RolloutData, chunk: int = 4096
) -> dict[str, float]:
    """Held-out loss and top-1 accuracy of weights ``w`` (with the PAD entry)."""
    losses, hits, n = 0.0, 0.0, len(data)
    for start in range(0, n, chunk):
        examples = np.arange(start, min(n, start + chunk), dtype=np.int64)
        loss, acc, _, _, _ = _forward(w, data, examples)
        losses += loss * len(examples)
        hits += acc * len(examples)
    return {"val_policy_loss": losses / n, "val_accuracy": hits / n, "val_examples": n}


class _Adam:
    """Adam over the dense weight vector (the sparse gradient is cheap to densify)."""

    def __init__(self, size: int, lr: float) -> None:
        self.lr = lr
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def step(self, w: NDArray[np.float64], grad: NDArray[np.float64]) -> None:
        b1, b2, eps = 0.9, 0.999, 1e-8
        self.t += 1
        self.m *= b1
        self.m += (1 - b1) * grad
        self.v *= b2
        self.v += (1 - b2) * grad * grad
        m_hat = self.m / (1 - b1**self.t)
        v_hat = self.v / (1 - b2**self.t)
        w -= self.lr * m_hat / (np.sqrt(v_hat) + eps)


def train_step(
    w: NDArray[np.float64],
    opt: _Adam,
    data: RolloutData,
    examples: I64,
    l2: float,
) -> dict[str, float]:
    """One Adam step on ``examples``; returns the batch's loss terms and accuracy."""
    loss, accuracy, grad, feats, _ = _forward(w, data, examples)
    g: NDArray[np.float64] = np.bincount(
        feats.ravel(),
        weights=np.repeat(grad / len(examples), WIDTH),
        minlength=w.shape[0],
    ).astype(np.float64)
    g[:PAD] += l2 * w[:PAD]
    g[PAD] = 0.0
    opt.step(w, g)
    np.clip(w, -pf.MAX_WEIGHT, pf.MAX_WEIGHT, out=w)
    w[PAD] = 0.0
    l2_term = 0.5 * l2 * float(np.dot(w[:PAD], w[:PAD]))
    return {
        "loss": loss + l2_term,
        "policy_loss": loss,
        "l2": l2_term,
        "accuracy": accuracy,
    }


def _weights32(w: NDArray[np.float64]) -> NDArray[np.float32]:
    return w[:PAD].astype(np.float32)


def _advance(bar: Any, done: int) -> None:
    bar.update(done - bar.n)


def train_rollout(
    run_dir: str | Path,
    data: Sequence[str | Path] | None = None,
    config: RolloutTrainConfig | None = None,
    progress: bool = True,
    stop_after: int | None = None,
) -> tuple[NDArray[np.float32], dict[str, Any]]:
    """Train (or continue) the run in ``run_dir``; returns (weights, summary).

    A new run needs ``data`` (SGF files or directories; the file list is stored, so
    games added to a directory later do not change a resumed run). ``stop_after``
    stops after that step without a final checkpoint, as a crash would (tests).
    """
    run, ckpt_path, state = open_run(
        run_dir, "rollout", "rollout-policy run's checkpoint"
    )
    if state is not None:
        with checkpoint_entries(ckpt_path):
            stored = RolloutTrainConfig(**state["config"])
            files = [Path(p) for p in state["files"]]
        if config is not None and config != stored:
            print(
                f"train rollout: resuming {run}: its stored settings are used",
                file=sys.stderr,
            )
        config = stored
    else:
        if not data:
            raise ValueError("a new run needs game records (--data)")
        config = config or RolloutTrainConfig()
        files = [p.resolve() for p in sgf_files(data)]
        if not files:
            raise ValueError("no SGF files found in the given data")

    with tqdm(
        total=len(files), desc="features", unit="game", disable=not progress
    ) as bar:
        games, counts = extract(files, config.size, lambda done: _advance(bar, done))
    n_val = int(round(len(games) * config.val_fraction))
    train = RolloutData.concat(games[: len(games) - n_val])
    val = RolloutData.concat(games[len(games) - n_val :])
    if len(train) == 0:
        raise ValueError("the game records hold no usable positions")

    w = np.zeros(pf.NUM_FEATURES + 1)
    opt = _Adam(w.shape[0], config.lr)
    rng = np.random.default_rng(config.seed)
    step = 0
    best = math.inf
    if state is not None:
        with checkpoint_entries(ckpt_path):
            w = state["weights"].numpy().astype(np.float64)
            opt.m = state["adam_m"].numpy().astype(np.float64)
            opt.v = state["adam_v"].numpy().astype(np.float64)
            step = opt.t = int(state["step"])
            best = float(state["best_val"])
            lines = int(state["metrics_lines"])
            saved_random = state["random"]
        rng = restore_random_states(saved_random)
        truncate_metrics(run / "metrics.jsonl", lines)
    else:
        truncate_metrics(run / "metrics.jsonl", 0)

    def checkpoint() -> None:
        save_rollout_weights(_weights32(w), run / "rollout.npz")
        save_checkpoint(
            ckpt_path,
            {
                "kind": "rollout",
                "files": [str(p) for p in files],
                "config": asdict(config),
                "weights": torch.from_numpy(w.copy()),
                "adam_m": torch.from_numpy(opt.m.copy()),
                "adam_v": torch.from_numpy(opt.v.copy()),
                "step": step,
                "random": random_states(rng),
                "best_val": best,
                "metrics_lines": metrics_lines(run / "metrics.jsonl"),
            },
        )

    summary: dict[str, Any] = dict(
        counts, train_examples=len(train), val_examples=len(val)
    )
    rows: list[dict[str, float]] = []
    bar = tqdm(
        total=config.steps, initial=step, desc="train rollout", disable=not progress
    )
    with MetricsLog(run / "metrics.jsonl") as log:
        if state is None:
            log.log("data", 0, **summary)
        while step < config.steps:
            examples = rng.integers(0, len(train), config.batch_size).astype(np.int64)
            rows.append(train_step(w, opt, train, examples, config.l2))
            step += 1
            bar.update(1)
            if step % config.log_every == 0 or step == config.steps:
                mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
                rows.clear()
                log.log("train", step, lr=config.lr, **mean)
                bar.set_postfix(
                    loss=f"{mean['loss']:.3f}", acc=f"{mean['accuracy']:.3f}"
                )
            if len(val) and (step % config.val_every == 0 or step == config.steps):
                metrics = evaluate(w, val)
                log.log("validation", step, **metrics)
                summary.update(metrics)
                if metrics["val_policy_loss"] < best:
                    best = metrics["val_policy_loss"]
                    save_rollout_weights(_weights32(w), run / "best.npz")
            if step % config.checkpoint_every == 0 or step == config.steps:
                checkpoint()
            if stop_after is not None and step >= stop_after:
                break
    bar.close()
    summary["step"] = step
    return _weights32(w), summary
