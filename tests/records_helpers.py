"""Game records for the data and training tests."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

import goboard
from alphago.sgf import GameRecord

if TYPE_CHECKING:
    from alphago.data.examples import Examples


def random_record(
    seed: int, moves: int = 12, size: int = 5, passes: bool = False
) -> GameRecord:
    """A game of random legal non-pass moves, komi 0.5, scored as it stands; with
    ``passes`` it ends with two passes (played out: auxiliary targets in shards)."""
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
    while passes and not board.is_over:
        played.append((board.to_play, size * size))
        board.play(size * size)
    return GameRecord(size=size, komi=0.5, moves=played, result=board.result())


def random_examples(games: int, moves: int = 16) -> Examples:
    """The examples of ``games`` seeded random 5x5 games (seeds 0, 1, ...), played
    out."""
    from alphago.data.dataset import game_examples  # needs torch: imported here
    from alphago.data.examples import Examples

    return Examples.concat(
        [game_examples(random_record(s, moves, passes=True)) for s in range(games)]
    )


def two_shards(examples: Examples, out: Path, cut: int) -> Path:
    """``examples`` saved in ``out`` as two shards, split before row ``cut``."""
    examples.take(slice(0, cut)).save(out / "shard-00000.npz")
    examples.take(slice(cut, None)).save(out / "shard-00001.npz")
    return out
