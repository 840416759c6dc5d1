"""Seeded random games and an independent model of the feature planes.

The model (:func:`expected_planes`) rebuilds the planes of planes.h from a plain list
of stone arrays in Python, so the tests compare the C writer against the definitions
rather than against itself.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

import goboard
from goboard import BLACK, WHITE
from goboard.reference_planes import alphago_planes

HISTORY = 8

Stones = npt.NDArray[np.int8]


def random_game(
    size: int,
    length: int,
    rng: np.random.Generator,
    pass_rate: float = 0.1,
    start: goboard.Board | None = None,
) -> tuple[goboard.Board, list[int], list[Stones]]:
    """Play up to ``length`` random legal moves (some passes, never two in a row).

    Returns the board, the moves played and the record of positions: the start
    position first, then one stone array per move (passes included).
    """
    board = goboard.Board(size) if start is None else start
    moves: list[int] = []
    record = [board.stones()]
    while len(moves) < length and not board.is_over:
        points = board.legal_moves()[:-1]
        want_pass = board.passes == 0 and rng.random() < pass_rate
        move = size * size if want_pass or len(points) == 0 else int(rng.choice(points))
        board.play(move)
        moves.append(move)
        record.append(board.stones())
    return board, moves, record


def replay(moves: list[int], size: int, start: goboard.Board | None = None):
    """A new board (or a copy of ``start``) with ``moves`` played on it."""
    board = goboard.Board(size) if start is None else start.copy()
    for move in moves:
        board.play(move)
    return board


def expected_planes(
    record: list[Stones],
    to_play: int,
    kind: str,
    legal: npt.NDArray[np.bool_] | None = None,
) -> np.ndarray:
    """The planes of planes.h for a record of positions (oldest first), as uint8.

    Plane k (k < 8) is the mover's stones k positions ago, plane 8 + k the
    opponent's; positions before the record are empty; then black-to-move (and
    white-to-move for lz18) planes of all ones or all zeros. The alphago kinds come
    from ``goboard.reference_planes`` and need the mover's ``legal`` mask.
    """
    if kind.startswith("alphago"):
        assert legal is not None, "the alphago planes need the legal mask"
        return alphago_planes(record, to_play, legal, kind)
    size = record[-1].shape[0]
    count = {"agz17": 17, "lz18": 18}[kind]
    planes = np.zeros((count, size, size), dtype=np.uint8)
    for k in range(HISTORY):
        if k < len(record):
            stones = record[-1 - k]
            planes[k] = stones == to_play
            planes[HISTORY + k] = stones == -to_play
    planes[16] = to_play == BLACK
    if kind == "lz18":
        planes[17] = to_play == WHITE
    return planes
