"""Game records for the data and training tests."""

from __future__ import annotations

import numpy as np

import goboard
from alphago.sgf import GameRecord


def random_record(seed: int, moves: int = 12, size: int = 5) -> GameRecord:
    """A game of random legal non-pass moves, komi 0.5, scored as it stands."""
    rng = np.random.default_rng(seed)
    board = goboard.Board(size, 0.5, "chinese")
    played: list[tuple[int, int]] = []
    for _ in range(moves):
        legal = [m for m in board.legal_moves() if m != size * size]
        if not legal:
            break
        point = int(rng.choice(legal))
        played.append((board.to_play, point))
        board.play(point)
    return GameRecord(size=size, komi=0.5, moves=played, result=board.result())
