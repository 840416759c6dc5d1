"""Positions a network meets in play: games it plays against itself, each move drawn
from its policy. :mod:`alphago.nets.agreement` compares precisions on them and
:mod:`alphago.nets.int8` calibrates its activations' ranges on them; this module
imports no evaluator, so both can use it.
"""

from __future__ import annotations

import numpy as np

import goboard
from search import Evaluator, Positions

__all__ = ["positions_of", "self_play_positions"]


def self_play_positions(
    evaluator: Evaluator, size: int, games: int, moves: int, seed: int
) -> list[goboard.Board]:
    """Every position of ``games`` games of at most ``moves`` moves, played in
    lock-step, each move drawn from ``evaluator``'s policy: the positions the network
    meets in play."""
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
