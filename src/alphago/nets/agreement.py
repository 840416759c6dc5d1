"""How far bf16 inference strays from fp32 on a network's own positions.

The network plays games against itself, each move drawn from its fp32 policy, and
every position on the way is evaluated in both precisions: :func:`bf16_agreement`.
``--precision auto`` picks bf16 on a device only where this was measured to stay close
(README, "Devices and precision"); ``scripts/precision_check.py`` runs it by hand and
``tests/test_nets_precision.py`` on a few games of the shipped net.
"""

from __future__ import annotations

import numpy as np

import goboard
from search import Positions

from .evaluator import NetEvaluator
from .model import PolicyValueNet

__all__ = ["bf16_agreement", "self_play_positions"]


def self_play_positions(
    evaluator: NetEvaluator, size: int, games: int, moves: int, seed: int
) -> list[goboard.Board]:
    """Every position of ``games`` games of at most ``moves`` moves, each move drawn
    from ``evaluator``'s policy: the positions the network meets in play."""
    rng = np.random.default_rng(seed)
    boards = [goboard.Board(size, 7.5, "chinese") for _ in range(games)]
    seen: list[goboard.Board] = []
    for _ in range(moves):
        live = [b for b in boards if not b.is_over]
        if not live:
            break
        seen.extend(b.copy() for b in live)
        priors, _ = evaluator.evaluate(positions_of(live))
        for board, p in zip(live, priors, strict=True):
            board.play(int(rng.choice(len(p), p=p / p.sum())))
    return seen


def positions_of(boards: list[goboard.Board]) -> Positions:
    """The boards as the roots of a fresh pool: one position each."""
    return Positions(goboard.Pool(boards, 2), np.arange(len(boards)) * 2)


def bf16_agreement(
    model: PolicyValueNet,
    size: int,
    games: int,
    moves: int,
    seed: int = 1,
    device: str = "cpu",
    batch: int = 64,
) -> dict[str, float]:
    """bf16 against fp32 on ``model``'s own positions: ``positions``, ``agreement``
    (top-1, over positions with a legal move), ``tv_mean``/``tv_max`` (policies'
    total variation) and ``value_mean``/``value_max`` (absolute value difference)."""

    def evaluator(precision: str) -> NetEvaluator:
        return NetEvaluator(
            model, device=device, symmetries="none", precision=precision
        )

    fp32, bf16 = evaluator("fp32"), evaluator("bf16")
    boards = self_play_positions(fp32, size, games, moves, seed)
    p32: list[np.ndarray] = []
    v32: list[np.ndarray] = []
    p16: list[np.ndarray] = []
    v16: list[np.ndarray] = []
    for start in range(0, len(boards), batch):
        chunk = positions_of(boards[start : start + batch])
        for ev, priors, values in ((fp32, p32, v32), (bf16, p16, v16)):
            pr, va = ev.evaluate(chunk)
            priors.append(pr)
            values.append(va)
    a32, a16 = np.concatenate(p32), np.concatenate(p16)
    value_error = np.abs(np.concatenate(v32) - np.concatenate(v16))
    legal = a32.sum(axis=1) > 0
    tv = 0.5 * np.abs(a32 - a16).sum(axis=1)
    return {
        "positions": len(boards),
        "agreement": float(np.mean((a32.argmax(1) == a16.argmax(1))[legal])),
        "tv_mean": float(tv.mean()),
        "tv_max": float(tv.max()),
        "value_mean": float(value_error.mean()),
        "value_max": float(value_error.max()),
    }
