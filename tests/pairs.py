"""Play the compiled Board and the reference Board side by side and compare them."""

from __future__ import annotations

import numpy as np

import goboard
from goboard import reference
from goboard.errors import IllegalMoveError

ALL_RULES = [
    goboard.Rules(ko=ko, suicide=suicide)
    for ko in ("simple", "positional", "situational")
    for suicide in (True, False)
]


def new_pair(size: int, rules: goboard.Rules, komi: float = 7.5) -> tuple:
    return goboard.Board(size, komi, rules), reference.Board(size, komi, rules)


def play_both(fast: goboard.Board, ref: reference.Board, move: int) -> str | None:
    """Play ``move`` on both; return the illegal-move reason (None if legal).

    Asserts that both agree on legality and reason, and that a refused move changed
    nothing on the compiled board.
    """
    before = snapshot(fast)
    reasons = []
    for board in (fast, ref):
        try:
            board.play(move)
            reasons.append(None)
        except IllegalMoveError as err:
            reasons.append(err.reason)
    assert reasons[0] == reasons[1], f"move {move}: C {reasons[0]}, ref {reasons[1]}"
    if reasons[0] is not None:
        assert snapshot(fast) == before, f"refused move {move} changed the board"
    return reasons[0]


def snapshot(board: goboard.Board | reference.Board) -> tuple:
    """Everything observable about a position, in a comparable form."""
    return (
        board.size,
        board.stones().tobytes(),
        board.to_play,
        board.zobrist,
        board.ko_point,
        board.captures,
        board.move_number,
        board.passes,
        board.is_over,
        board.last_move,
        board.resigned,
    )


def assert_same(fast: goboard.Board, ref: reference.Board) -> None:
    """Stones, state, legal moves, hash and score agree; invariants hold."""
    fast._check_invariants()
    assert snapshot(fast) == snapshot(ref)
    np.testing.assert_array_equal(fast.legal_mask(), ref.legal_mask())
    np.testing.assert_array_equal(fast.ownership(), ref.ownership())
    assert fast.score() == ref.score()
    assert fast.result() == ref.result()


def pick_move(legal: np.ndarray, size: int, draw: int, pass_weight: int = 30) -> int:
    """A move from ``draw``: mostly a legal non-pass point, sometimes pass or any point.

    Arbitrary points exercise the refusal paths (occupied, ko, suicide, superko).
    """
    kind = draw % 100
    if kind < 20:
        return draw // 100 % (size * size + 3) - 1  # -1 .. N*N+1, off-board included
    if kind < 20 + 100 // pass_weight or len(legal) == 1:
        return size * size
    return int(legal[draw // 100 % (len(legal) - 1)])
