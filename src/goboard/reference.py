"""A slow, plain pure-Python Go board: the oracle for testing the fast C board.

:class:`Board` here implements the same API as :class:`goboard.Board` but does
everything the obvious way, so that it can be trusted by reading it: stones live in
a flat Python list, strings and liberties are found by flood fill from scratch after
every move, and the superko history is a set of stone arrangements. Differential
tests play the same moves on both boards and compare everything observable.

Rule interpretations (shared with the C board):

- Single-stone suicide is always illegal (reason ``"suicide"``); ``rules.suicide``
  only governs multi-stone suicide, which removes the whole suicided string and
  counts its stones as captured by the opponent.
- When several reasons apply, the first of these is reported: ``"off-board"``,
  ``"game over"``, ``"occupied"``, ``"ko"``, ``"suicide"``, ``"superko"``.
- ``ko_point``: after a move that captured exactly one stone, where the capturing
  stone's string is that single stone and it has exactly one liberty, ``ko_point``
  is the captured stone's point; otherwise ``None``. Any other move or a pass clears
  it. A move at ``ko_point`` is reported as ``"ko"`` under every ko rule; other
  repetitions under positional or situational superko are ``"superko"``.
- The superko history holds every position reached in the game, including the
  initial one and the positions after passes. Positional superko forbids repeating
  an arrangement of stones; situational superko forbids repeating an arrangement
  with the same player to move. Passes are legal until the game is over.
- Two consecutive passes, or a resignation, end the game.
- Scoring is Tromp-Taylor area: stones plus empty regions that reach only one
  colour; ``score = black area - white area - komi``.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .constants import BLACK, EMPTY, WHITE
from .coords import check_size, from_gtp
from .errors import IllegalMoveError
from .rules import Rules, check_komi
from .text import check_stones, render


def _check_int(value: object, what: str) -> int:
    """Return ``value`` as an int; TypeError for bools and non-integers."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an int, not bool")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an int, not {type(value).__name__}") from None


def _neighbour_table(size: int) -> list[list[int]]:
    """For every point, the list of its orthogonal neighbours on the board."""
    table = []
    for p in range(size * size):
        row, col = divmod(p, size)
        nbrs = []
        if row > 0:
            nbrs.append(p - size)
        if row < size - 1:
            nbrs.append(p + size)
        if col > 0:
            nbrs.append(p - 1)
        if col < size - 1:
            nbrs.append(p + 1)
        table.append(nbrs)
    return table


def _flood(stones: list[int], start: int, nbrs: list[list[int]]) -> set[int]:
    """All points connected to ``start`` through points of the same colour."""
    colour = stones[start]
    seen = {start}
    todo = [start]
    while todo:
        p = todo.pop()
        for q in nbrs[p]:
            if stones[q] == colour and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def _liberties(stones: list[int], string: set[int], nbrs: list[list[int]]) -> set[int]:
    """Empty points adjacent to any point of ``string``."""
    return {q for p in string for q in nbrs[p] if stones[q] == EMPTY}


def _key(stones: list[int]) -> bytes:
    """A hashable snapshot of an arrangement of stones, for the superko history."""
    return np.array(stones, dtype=np.int8).tobytes()


class _Outcome(NamedTuple):
    """What a legal move would do; computed without touching the board."""

    stones: list[int]
    captured: int  # opponent stones removed by the move
    suicided: int  # own stones removed by multi-stone suicide
    ko_point: int | None


class Board:
    """A Go board, game record and rule checker (reference implementation).

    Args:
        size: Edge length, 2..19.
        komi: Points added to White's score; a finite real number.
        rules: A preset name ("tromp-taylor", "chinese") or a :class:`Rules`.
    """

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable

    def __init__(
        self, size: int = 19, komi: float = 7.5, rules: str | Rules = "tromp-taylor"
    ) -> None:
        # All checks first: a failed second __init__ leaves the board as it was.
        size, komi, rules = check_size(size), check_komi(komi), Rules.coerce(rules)
        self._size, self._komi, self._rules = size, komi, rules
        self._nbrs = _neighbour_table(self._size)
        self._reset([EMPTY] * (self._size * self._size), BLACK)

    def _reset(self, stones: list[int], to_play: int) -> None:
        self._stones = stones
        self._to_play = to_play
        self._move_number = 0
        self._passes = 0
        self._ko_point: int | None = None
        self._captures = [0, 0]  # by black, by white
        self._last_move: int | None = None
        self._resigned: int | None = None
        self._positions = {_key(stones)}
        self._situations = {(_key(stones), to_play)}

    @classmethod
    def from_stones(
        cls,
        stones: npt.ArrayLike,
        to_play: int = BLACK,
        komi: float = 7.5,
        rules: str | Rules = "tromp-taylor",
    ) -> Board:
        """A board set up with ``stones``; the game (and its history) starts there.

        Args:
            stones: N x N array-like of BLACK (1), WHITE (-1) and EMPTY (0).
            to_play: The colour to move, BLACK or WHITE.
            komi: Points added to White's score.
            rules: A preset name or a :class:`Rules`.

        Raises:
            ValueError: Bad shape or values, a string without liberties, or
                ``to_play`` not BLACK or WHITE.
        """
        arr = check_stones(stones)
        if isinstance(to_play, bool) or to_play not in (BLACK, WHITE):
            raise ValueError(f"to_play must be BLACK (1) or WHITE (-1): {to_play!r}")
        colour = BLACK if to_play == BLACK else WHITE
        board = cls(int(arr.shape[0]), komi, rules)
        flat = [int(v) for v in arr.reshape(-1)]
        nbrs = board._nbrs
        for p, v in enumerate(flat):
            if v != EMPTY and not _liberties(flat, _flood(flat, p, nbrs), nbrs):
                raise ValueError(f"the string at point {p} has no liberties")
        board._reset(flat, colour)
        return board

    # -- properties -----------------------------------------------------------------

    @property
    def size(self) -> int:
        """Edge length of the board."""
        return self._size

    @property
    def komi(self) -> float:
        """Points added to White's score."""
        return self._komi

    @komi.setter
    def komi(self, value: float) -> None:
        self._komi = check_komi(value)

    @property
    def rules(self) -> Rules:
        """The rule set."""
        return self._rules

    @property
    def to_play(self) -> int:
        """The colour to move, BLACK or WHITE."""
        return self._to_play

    @property
    def move_number(self) -> int:
        """Moves played since construction, passes included."""
        return self._move_number

    @property
    def passes(self) -> int:
        """Consecutive passes at the end of the game so far."""
        return self._passes

    @property
    def is_over(self) -> bool:
        """True after two consecutive passes or a resignation."""
        return self._passes >= 2 or self._resigned is not None

    @property
    def zobrist(self) -> int:
        """64-bit XOR of the Zobrist keys of all stones (0 for an empty board)."""
        # Lazy: the keys come from the compiled extension, which this module must
        # not need at import time.
        from ._board import zobrist_keys

        keys = zobrist_keys(self._size)
        h = 0
        for p, v in enumerate(self._stones):
            if v == BLACK:
                h ^= int(keys[0, p])
            elif v == WHITE:
                h ^= int(keys[1, p])
        return h

    @property
    def ko_point(self) -> int | None:
        """The point the player to move may not play because of simple ko."""
        return self._ko_point

    @property
    def captures(self) -> tuple[int, int]:
        """Stones captured by Black and by White."""
        return (self._captures[0], self._captures[1])

    @property
    def last_move(self) -> int | None:
        """The last move played (``size * size`` for a pass), or None."""
        return self._last_move

    @property
    def resigned(self) -> int | None:
        """The colour that resigned, or None."""
        return self._resigned

    # -- moves ----------------------------------------------------------------------

    def _simulate(self, move: int) -> _Outcome | str:
        """The outcome of ``move`` for the player to move, or the reason it is illegal.

        ``move`` must be an int; the board is not changed.
        """
        n2 = self._size * self._size
        if not 0 <= move <= n2:
            return "off-board"
        if self.is_over:
            return "game over"
        if move == n2:
            return _Outcome(list(self._stones), 0, 0, None)
        if self._stones[move] != EMPTY:
            return "occupied"
        if move == self._ko_point:
            return "ko"
        me, nbrs = self._to_play, self._nbrs
        stones = list(self._stones)
        stones[move] = me
        # Opponent strings next to the move with no liberty left are captured.
        captured: set[int] = set()
        for q in nbrs[move]:
            if stones[q] == -me and q not in captured:
                string = _flood(stones, q, nbrs)
                if not _liberties(stones, string, nbrs):
                    captured |= string
        for p in captured:
            stones[p] = EMPTY
        own = _flood(stones, move, nbrs)
        own_libs = _liberties(stones, own, nbrs)
        suicided = 0
        if not own_libs:  # only possible when nothing was captured
            if len(own) == 1 or not self._rules.suicide:
                return "suicide"
            for p in own:
                stones[p] = EMPTY
            suicided = len(own)
        ko_point = None
        if len(captured) == 1 and len(own) == 1 and len(own_libs) == 1:
            ko_point = next(iter(captured))
        key = _key(stones)
        if self._rules.ko == "positional" and key in self._positions:
            return "superko"
        if self._rules.ko == "situational" and (key, -me) in self._situations:
            return "superko"
        return _Outcome(stones, len(captured), suicided, ko_point)

    def play(self, move: int) -> None:
        """Play ``move`` (a point, or ``size * size`` to pass) for the player to move.

        Raises:
            IllegalMoveError: The move is illegal; the board is unchanged.
            TypeError: ``move`` is not an int.
        """
        move = _check_int(move, "move")
        outcome = self._simulate(move)
        if isinstance(outcome, str):
            raise IllegalMoveError(outcome, move)
        me = self._to_play
        is_pass = move == self._size * self._size
        self._stones = outcome.stones
        mine, theirs = (0, 1) if me == BLACK else (1, 0)
        self._captures[mine] += outcome.captured
        self._captures[theirs] += outcome.suicided  # suicide feeds the opponent
        self._ko_point = outcome.ko_point
        self._passes = self._passes + 1 if is_pass else 0
        self._last_move = move
        self._move_number += 1
        self._to_play = -me
        self._positions.add(_key(self._stones))
        self._situations.add((_key(self._stones), self._to_play))

    def play_gtp(self, vertex: str) -> None:
        """Play a GTP vertex such as "D4" or "pass" (see :func:`coords.from_gtp`)."""
        self.play(from_gtp(vertex, self._size))

    def is_legal(self, move: int) -> bool:
        """Whether the player to move may play ``move`` (False when off the board).

        Raises:
            TypeError: ``move`` is not an int.
        """
        return not isinstance(self._simulate(_check_int(move, "move")), str)

    def legal_moves(self) -> list[int]:
        """Sorted legal moves, pass included; empty when the game is over."""
        return [int(m) for m in np.flatnonzero(self.legal_mask())]

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Boolean mask of shape (N*N + 1,): entry ``m`` says if ``m`` is legal."""
        n2 = self._size * self._size
        return np.array([self.is_legal(m) for m in range(n2 + 1)], dtype=np.bool_)

    def resign(self) -> None:
        """The player to move resigns, which ends the game.

        Raises:
            IllegalMoveError: The game is already over (reason "game over").
        """
        if self.is_over:
            raise IllegalMoveError("game over")
        self._resigned = self._to_play

    def set_to_play(self, colour: int) -> None:
        """Make ``colour`` the side to move without a move: no pass is counted and the
        passes so far are forgotten, the ko ban and the last move go, the move number
        stays, and the new situation joins the superko record. Nothing changes if
        ``colour`` is already to move.

        Raises:
            ValueError: ``colour`` is not BLACK or WHITE.
            IllegalMoveError: The game is over (reason "game over").
        """
        if isinstance(colour, bool) or colour not in (BLACK, WHITE):
            raise ValueError(f"colour must be BLACK (1) or WHITE (-1): {colour!r}")
        if self.is_over:
            raise IllegalMoveError("game over")
        if colour == self._to_play:
            return
        self._to_play = BLACK if colour == BLACK else WHITE
        self._passes = 0
        self._ko_point = None
        self._last_move = None
        self._situations.add((_key(self._stones), self._to_play))

    def copy(self) -> Board:
        """An independent copy, history included."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._stones = list(self._stones)
        other._captures = list(self._captures)
        other._positions = set(self._positions)
        other._situations = set(self._situations)
        return other

    # -- inspection -----------------------------------------------------------------

    def _point(self, point: int) -> int:
        p = _check_int(point, "point")
        if not 0 <= p < self._size * self._size:
            raise ValueError(f"point {p} is off a {self._size}x{self._size} board")
        return p

    def stones(self) -> npt.NDArray[np.int8]:
        """A copy of the stones as an int8 (N, N) array."""
        return np.array(self._stones, dtype=np.int8).reshape(self._size, self._size)

    def liberties(self, point: int) -> int:
        """Number of liberties of the string at ``point`` (0 for an empty point)."""
        p = self._point(point)
        if self._stones[p] == EMPTY:
            return 0
        string = _flood(self._stones, p, self._nbrs)
        return len(_liberties(self._stones, string, self._nbrs))

    def string(self, point: int) -> npt.NDArray[np.intp]:
        """Sorted points of the string at ``point`` (empty for an empty point)."""
        p = self._point(point)
        if self._stones[p] == EMPTY:
            return np.zeros(0, dtype=np.intp)
        return np.array(sorted(_flood(self._stones, p, self._nbrs)), dtype=np.intp)

    def ownership(self) -> npt.NDArray[np.int8]:
        """Tromp-Taylor ownership: +1 Black area, -1 White area, 0 neutral."""
        owner = list(self._stones)
        done: set[int] = set()
        for p, v in enumerate(self._stones):
            if v != EMPTY or p in done:
                continue
            region = _flood(self._stones, p, self._nbrs)
            done |= region
            reaches = {self._stones[q] for r in region for q in self._nbrs[r]} - {EMPTY}
            colour = reaches.pop() if len(reaches) == 1 else EMPTY
            for r in region:
                owner[r] = colour
        return np.array(owner, dtype=np.int8).reshape(self._size, self._size)

    def score(self, komi: float | None = None) -> float:
        """Black's area minus White's area minus ``komi`` (default: ``self.komi``)."""
        k = self._komi if komi is None else check_komi(komi)
        owner = self.ownership()
        area = np.count_nonzero(owner == BLACK) - np.count_nonzero(owner == WHITE)
        return float(area) - k

    def result(self) -> str:
        """The result string: "B+R"/"W+R" after a resignation, else "B+7", "W+0.5", "0".

        The side that did not resign wins; otherwise the current :meth:`score` is
        used, whether or not the game is over.
        """
        if self._resigned is not None:
            return "W+R" if self._resigned == BLACK else "B+R"
        s = self.score()
        if s == 0:
            return "0"
        return f"{'B' if s > 0 else 'W'}+{abs(s):g}"

    # -- comparison and display -----------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self._size == other._size
            and self._stones == other._stones
            and self._to_play == other._to_play
            and self._ko_point == other._ko_point
        )

    def __str__(self) -> str:
        return render(self)

    def __repr__(self) -> str:
        colour = "BLACK" if self._to_play == BLACK else "WHITE"
        return (
            f"<reference.Board {self._size}x{self._size} rules={self._rules.name} "
            f"komi={self._komi:g} to_play={colour} move_number={self._move_number}>\n"
            f"{self}"
        )
