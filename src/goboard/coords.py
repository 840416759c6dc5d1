"""Coordinate systems and conversions between them.

Glossary (N is the board's edge length):

=========  =====================================  =====================================
name       what it is                             example on 9x9
=========  =====================================  =====================================
point      flat index ``row * N + col``; the      0 is the top-left corner, 80 the
           network's action space                 bottom-right
pass       the point ``N * N``                    81
row, col   row 0 at the top as printed, col 0     (0, 0) is the top-left corner
           at the left
GTP        letter for the column (``I`` skipped),  "A9" is point 0, "J1" is point 80,
           number for the row counted from the    "pass" is 81
           bottom
=========  =====================================  =====================================

The C core uses a private mailbox layout with a border; it never leaks to Python.
"""

from __future__ import annotations

import operator

from .constants import MAX_SIZE, MIN_SIZE

GTP_LETTERS = "ABCDEFGHJKLMNOPQRST"


def check_size(size: object) -> int:
    """Return ``size`` as an int if it is a valid board size, else raise."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError(f"board size must be an int, not {type(size).__name__}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size must be in {MIN_SIZE}..{MAX_SIZE}, not {size}")
    return size


def _check_point(point: object, size: int, allow_pass: bool) -> int:
    if isinstance(point, bool):
        raise TypeError("a point must be an int, not bool")
    p = operator.index(point)  # type: ignore[arg-type]
    top = size * size + (1 if allow_pass else 0)
    if not 0 <= p < top:
        raise ValueError(f"point {p} is off a {size}x{size} board")
    return p


def to_rowcol(point: int, size: int) -> tuple[int, int]:
    """(row, col) of an on-board point; row 0 is the top row."""
    p = _check_point(point, check_size(size), allow_pass=False)
    return divmod(p, size)


def from_rowcol(row: int, col: int, size: int) -> int:
    """The point at (row, col)."""
    check_size(size)
    r, c = operator.index(row), operator.index(col)
    if not (0 <= r < size and 0 <= c < size):
        raise ValueError(f"(row {r}, col {c}) is off a {size}x{size} board")
    return r * size + c


def from_gtp(vertex: str, size: int) -> int:
    """Point of a GTP vertex such as "D4" or "pass" (case-insensitive)."""
    check_size(size)
    if not isinstance(vertex, str):
        raise TypeError(f"a GTP vertex must be a str, not {type(vertex).__name__}")
    v = vertex.strip().upper()
    if v == "PASS":
        return size * size
    if len(v) < 2 or v[0] not in GTP_LETTERS or not v[1:].isdigit():
        raise ValueError(f"not a GTP vertex: {vertex!r}")
    col = GTP_LETTERS.index(v[0])
    number = int(v[1:])
    if col >= size or not 1 <= number <= size:
        raise ValueError(f"vertex {vertex!r} is off a {size}x{size} board")
    return (size - number) * size + col


def to_gtp(point: int, size: int) -> str:
    """GTP vertex of a point ("pass" for ``size * size``)."""
    p = _check_point(point, check_size(size), allow_pass=True)
    if p == size * size:
        return "pass"
    row, col = divmod(p, size)
    return f"{GTP_LETTERS[col]}{size - row}"
