"""Hand-written rules cases: an ASCII board, some moves, what must come of them.

A :class:`Case` is run by :func:`run_case` on a Board class (the ``impl`` fixture, so
on both implementations). :func:`cases` parametrises a test over a list of cases and
their colour-swapped twins (X <-> O, the side to move, captures, komi and results
swapped), so every case runs on (implementation x colour swap).

Moves and points may be written as GTP vertices ("C3", "pass"), as (row, col) tuples
(row 0 at the top as printed) or as flat ints; ``"resign"`` makes the side to move
resign.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from goboard import BLACK, WHITE, zobrist_keys
from goboard.coords import from_gtp, from_rowcol
from goboard.errors import IllegalMoveError
from goboard.rules import Rules
from goboard.text import parse, render

Move = str | tuple[int, int] | int

_UNSET: Any = object()  # "not checked", distinct from None ("must be None")
_SWAP_CHARS = str.maketrans("XO", "OX")


def point(move: Move, size: int) -> int:
    """The flat point of a move given as a GTP vertex, a (row, col) tuple or an int."""
    if isinstance(move, str):
        return from_gtp(move, size)
    if isinstance(move, tuple):
        return from_rowcol(move[0], move[1], size)
    return move


def swap_result(result: str) -> str:
    """The result string with the winner's colour swapped ("B+3.5" <-> "W+3.5")."""
    other = {"B": "W", "W": "B"}
    return other[result[0]] + result[1:] if result[:1] in other else result


@dataclass(frozen=True)
class Case:
    """One hand-written rules case; fields left at their defaults are not checked.

    ``moves`` are played in order from ``board`` with ``to_play`` to move. With
    ``error`` set, every move but the last must be legal and the last must be refused
    with that reason and leave the board bit-identical; the other expectations then
    describe the board after the refusal.
    """

    id: str
    board: str
    moves: tuple[Move, ...] = ()
    to_play: int = BLACK
    rules: str | Rules = "tromp-taylor"
    komi: float = 7.5
    error: str | None = None
    expect: str | None = None  # the stones after the moves, as an ASCII board
    captures: tuple[int, int] | None = None  # (by Black, by White)
    ko_point: Any = _UNSET  # a Move or None
    liberties: tuple[tuple[Move, int], ...] = ()  # (a point, liberties of its string)
    strings: tuple[tuple[Move, ...], ...] = ()  # exact strings: string() of each member
    legal: tuple[Move, ...] = ()  # moves the side to move may play afterwards
    illegal: tuple[tuple[Move, str], ...] = ()  # (move, reason) refused afterwards
    passes: int | None = None
    is_over: bool | None = None
    score: float | None = None
    result: str | None = None
    ownership: str | None = None  # X: Black's area, O: White's, '.': neutral
    swapped: bool = field(default=False, compare=False)

    def swap(self) -> Case:
        """The same case with the colours exchanged."""

        def board(text: str | None) -> str | None:
            return None if text is None else text.translate(_SWAP_CHARS)

        return dataclasses.replace(
            self,
            id=f"{self.id}-swapped",
            board=board(self.board),
            to_play=-self.to_play,
            komi=-self.komi,
            expect=board(self.expect),
            captures=None if self.captures is None else self.captures[::-1],
            score=None if self.score is None else -self.score,
            result=None if self.result is None else swap_result(self.result),
            ownership=board(self.ownership),
            swapped=not self.swapped,
        )


def cases(*all_cases: Case) -> pytest.MarkDecorator:
    """Parametrise ``case`` over ``all_cases`` and their colour-swapped twins."""
    ids = [c.id for c in all_cases]
    assert len(set(ids)) == len(ids), f"duplicate case ids in {ids}"
    params = []
    for c in all_cases:
        params.append(pytest.param(c, id=c.id))
        twin = c.swap()
        params.append(pytest.param(twin, id=twin.id))
    return pytest.mark.parametrize("case", params)


def snapshot(board: Any) -> dict[str, Any]:
    """Everything observable that an illegal move must not change."""
    stones = board.stones()
    return {
        "stones": (stones.shape, stones.dtype.str, stones.tobytes()),
        "zobrist": board.zobrist,
        "ko_point": board.ko_point,
        "captures": board.captures,
        "to_play": board.to_play,
        "move_number": board.move_number,
        "passes": board.passes,
        "is_over": board.is_over,
        "last_move": board.last_move,
        "resigned": board.resigned,
        "legal_mask": board.legal_mask().tobytes(),
    }


def assert_illegal(board: Any, move: int, reason: str) -> None:
    """``move`` is refused with ``reason`` everywhere and leaves ``board`` unchanged."""
    n2 = board.size * board.size
    before = snapshot(board)
    twin = board.copy()
    assert board.is_legal(move) is False, f"is_legal({move}) should be False ({reason})"
    if 0 <= move <= n2:
        assert not board.legal_mask()[move]
    assert move not in board.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        board.play(move)
    assert info.value.reason == reason, (
        f"move {move} refused for {info.value.reason!r}, expected {reason!r}\n"
        f"{render(board.stones())}"
    )
    assert isinstance(info.value, ValueError)
    after = snapshot(board)
    changed = [k for k in before if before[k] != after[k]]
    assert not changed, f"illegal move {move} ({reason}) changed {changed}"
    assert board == twin


def expected_zobrist(stones: np.ndarray) -> int:
    """XOR of the Zobrist keys of ``stones`` (goboard.zobrist_keys)."""
    keys = zobrist_keys(stones.shape[0])
    flat = stones.reshape(-1)
    h = 0
    for p in np.flatnonzero(flat == BLACK):
        h ^= int(keys[0, p])
    for p in np.flatnonzero(flat == WHITE):
        h ^= int(keys[1, p])
    return h


def assert_consistent(board: Any) -> None:
    """Invariants that hold on every board, whatever the position."""
    n = board.size
    stones = board.stones()
    assert stones.shape == (n, n) and stones.dtype == np.int8
    assert set(np.unique(stones).tolist()) <= {-1, 0, 1}
    assert board.zobrist == expected_zobrist(stones)
    mask = board.legal_mask()
    assert mask.shape == (n * n + 1,) and mask.dtype == np.bool_
    moves = board.legal_moves()
    assert moves == np.flatnonzero(mask).tolist()
    assert bool(mask[n * n]) is (not board.is_over)
    assert not mask[: n * n][stones.reshape(-1) != 0].any(), "occupied point legal"
    assert board == board.copy()


def _stones_message(board: Any, expected: np.ndarray) -> str:
    return f"\ngot:\n{render(board.stones())}\nexpected:\n{render(expected)}"


def run_case(impl: type, case: Case) -> Any:
    """Play ``case`` on a fresh ``impl`` board, check every expectation, return it."""
    stones = parse(case.board)
    n = stones.shape[0]
    board = impl.from_stones(
        stones, to_play=case.to_play, komi=case.komi, rules=case.rules
    )
    np.testing.assert_array_equal(board.stones(), stones)
    assert board.to_play == case.to_play

    moves = list(case.moves)
    last = moves.pop() if case.error is not None else None
    played = 0
    for move in moves:
        if move == "resign":
            board.resign()
            continue
        p = point(move, n)
        assert board.is_legal(p), (
            f"setup move {move!r} should be legal\n{render(board)}"
        )
        board.play(p)
        played += 1
        assert board.last_move == p
    if case.error is not None:
        assert last is not None, "a case with an error needs a move to refuse"
        assert_illegal(board, point(last, n), case.error)

    resigned = "resign" in case.moves
    if not resigned:
        assert board.move_number == played
        assert board.to_play == (case.to_play if played % 2 == 0 else -case.to_play)
    if case.expect is not None:
        expected = parse(case.expect)
        np.testing.assert_array_equal(
            board.stones(), expected, err_msg=_stones_message(board, expected)
        )
    if case.captures is not None:
        assert board.captures == case.captures
    if case.ko_point is not _UNSET:
        want = None if case.ko_point is None else point(case.ko_point, n)
        assert board.ko_point == want
    for where, count in case.liberties:
        assert board.liberties(point(where, n)) == count, f"liberties at {where!r}"
    for members in case.strings:
        want_string = sorted(point(m, n) for m in members)
        for m in members:
            got = board.string(point(m, n))
            assert got.tolist() == want_string, f"string at {m!r}"
    for move in case.legal:
        assert board.is_legal(point(move, n)), f"{move!r} should be legal"
    for move, reason in case.illegal:
        assert_illegal(board, point(move, n), reason)
    if case.passes is not None:
        assert board.passes == case.passes
    if case.is_over is not None:
        assert board.is_over is case.is_over
    if case.score is not None:
        assert board.score() == pytest.approx(case.score, abs=1e-9)
    if case.result is not None:
        assert board.result() == case.result
    if case.ownership is not None:
        np.testing.assert_array_equal(board.ownership(), parse(case.ownership))
        assert board.ownership().dtype == np.int8
    assert_consistent(board)
    return board


def ascii_board(stones: np.ndarray) -> str:
    """Plain ASCII rows ('X', 'O', '.') that :func:`goboard.text.parse` reads back."""
    chars = {BLACK: "X", WHITE: "O", 0: "."}
    return "\n".join(" ".join(chars[int(v)] for v in row) for row in stones)


def edit(text: str, changes: dict[Move, str]) -> str:
    """``text`` with some points changed to 'X', 'O' or '.' (for big boards)."""
    stones = parse(text)
    n = stones.shape[0]
    values = {"X": BLACK, "O": WHITE, ".": 0}
    for where, char in changes.items():
        row, col = divmod(point(where, n), n)
        stones[row, col] = values[char]
    return ascii_board(stones)
