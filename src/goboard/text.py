"""ASCII Go boards: parse them (for tests and examples) and render them (for people).

:func:`parse` reads rows of ``X`` (Black), ``O`` (White) and ``.`` or ``+`` (empty);
whitespace inside a row and blank lines are ignored. :func:`render` draws a board
with GTP coordinates, star points and the last move in parentheses::

    >>> from goboard.text import parse, render
    >>> stones = parse('''
    ...     . X O
    ...     X O .
    ...     . . .
    ... ''')
    >>> print(render(stones, last_move=4))
       A B C
     3 . X O 3
     2 X(O). 2
     1 . . . 1
       A B C
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import numpy.typing as npt

from .constants import BLACK, EMPTY, MAX_SIZE, MIN_SIZE, WHITE
from .coords import GTP_LETTERS
from .rules import Rules

_PARSE_CHARS = {"X": BLACK, "O": WHITE, ".": EMPTY, "+": EMPTY}
_RENDER_CHARS = {BLACK: "X", WHITE: "O", EMPTY: "."}


def check_stones(stones: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Validate an N x N array-like of stones and return it as an int8 array.

    Args:
        stones: Values BLACK (1), WHITE (-1) or EMPTY (0); N in 2..19.

    Returns:
        A new int8 (N, N) array.

    Raises:
        ValueError: Not square, a size outside 2..19, or other values.
    """
    arr = np.asarray(stones)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"stones must be a square N x N array, not {arr.shape}")
    n = int(arr.shape[0])
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise ValueError(f"board size must be in {MIN_SIZE}..{MAX_SIZE}, not {n}")
    # Numbers only: bools and strings are rejected even where they would compare equal.
    if arr.dtype.kind not in "iuf" or not np.isin(arr, (BLACK, EMPTY, WHITE)).all():
        raise ValueError("stones must hold only BLACK (1), WHITE (-1) and EMPTY (0)")
    return arr.astype(np.int8)


def parse(text: str) -> npt.NDArray[np.int8]:
    """Parse an ASCII board into an int8 (N, N) array of BLACK, WHITE and EMPTY.

    Args:
        text: Rows of ``X``, ``O``, ``.`` or ``+``, top row first.

    Returns:
        The stones, row 0 being the first row of ``text``.

    Raises:
        ValueError: An unknown character, rows of different lengths, a board that is
            not square, or a size outside 2..19.
        TypeError: ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    rows: list[list[int]] = []
    for line in text.splitlines():
        chars = "".join(line.split())
        if not chars:
            continue
        bad = sorted(set(chars) - _PARSE_CHARS.keys())
        if bad:
            raise ValueError(f"unexpected characters {bad!r} in board row {line!r}")
        rows.append([_PARSE_CHARS[c] for c in chars])
    n = len(rows)
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise ValueError(f"board size must be in {MIN_SIZE}..{MAX_SIZE}, not {n}")
    for row in rows:
        if len(row) != n:
            raise ValueError(f"board is not square: {n} rows but a row of {len(row)}")
    return np.array(rows, dtype=np.int8)


def parse_board(
    text: str,
    to_play: int = BLACK,
    komi: float = 7.5,
    rules: str | Rules = "tromp-taylor",
    board_class: Any = None,
) -> Any:
    """Build a board from an ASCII diagram with ``board_class.from_stones``.

    Args:
        text: The diagram, as for :func:`parse`.
        to_play: The colour to move.
        komi: Points added to White's score.
        rules: A preset name or a :class:`Rules`.
        board_class: A class with a ``from_stones`` classmethod, such as
            ``goboard.reference.Board``; defaults to ``goboard.Board``.

    Returns:
        The new board.
    """
    if board_class is None:
        # Lazy: goboard.Board wraps the compiled core, which imports this module.
        from . import Board

        board_class = Board
    return board_class.from_stones(parse(text), to_play=to_play, komi=komi, rules=rules)


# Star points (hoshi) of the standard boards, as the rows/cols they lie on, plus the
# centre. 19x19 also has star points in the middle of each side.
_STAR_LINES = {9: ((2, 6), 4), 13: ((3, 9), 6), 19: ((3, 9, 15), 9)}


def _star_points(size: int) -> set[tuple[int, int]]:
    """Return the (row, col) star points of a board (none for unusual sizes)."""
    if size not in _STAR_LINES:
        return set()
    lines, centre = _STAR_LINES[size]
    return {(r, c) for r in lines for c in lines} | {(centre, centre)}


def render(board_or_stones: Any, last_move: int | None = None) -> str:
    """Draw a board as text with GTP coordinates on all four sides.

    Black is ``X``, White ``O``, empty points ``.`` (``+`` on star points of 9x9,
    13x13 and 19x19 boards). The last move, if any, is put in parentheses.

    Args:
        board_or_stones: An object with a ``stones()`` method (and optionally a
            ``last_move`` attribute), or an N x N array-like of stones.
        last_move: The point to mark; defaults to the board's ``last_move``. A pass
            (``N * N``) or None marks nothing.

    Returns:
        The drawing, one line per row plus a letter line above and below, without a
        trailing newline.

    Raises:
        ValueError: Bad stones or a ``last_move`` off the board.
        TypeError: A ``last_move`` that is not an integer (a float, ``inf``).
    """
    stones_method = getattr(board_or_stones, "stones", None)
    if callable(stones_method):
        stones = check_stones(stones_method())
        if last_move is None:
            last_move = getattr(board_or_stones, "last_move", None)
    else:
        stones = check_stones(board_or_stones)
    n = int(stones.shape[0])
    mark_row, mark_col = -1, -1
    if last_move is not None:
        # Integers only (numpy's too): int() would truncate 4.5 and overflow on inf.
        try:
            point = operator.index(last_move)
        except TypeError:
            kind = type(last_move).__name__
            raise TypeError(f"last_move must be an int or None, not {kind}") from None
        if isinstance(last_move, bool) or not 0 <= point <= n * n:
            raise ValueError(f"last_move {last_move!r} is off a {n}x{n} board")
        if point != n * n:
            mark_row, mark_col = divmod(point, n)

    stars = _star_points(n)
    letters = "   " + " ".join(GTP_LETTERS[:n])
    lines = [letters]
    for r in range(n):
        number = f"{n - r:2d}"
        line = number
        for c in range(n):
            char = _RENDER_CHARS[int(stones[r, c])]
            if char == "." and (r, c) in stars:
                char = "+"
            # The separator before a cell becomes "(" or ")" around the marked one.
            if r == mark_row and c == mark_col:
                line += "(" + char
            elif r == mark_row and c == mark_col + 1:
                line += ")" + char
            else:
                line += " " + char
        line += ")" if r == mark_row and mark_col == n - 1 else " "
        lines.append(line + number.strip())
    lines.append(letters)
    return "\n".join(lines)
