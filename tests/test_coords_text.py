"""goboard.coords conversions and goboard.text parse/render."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rulecase import ascii_board

from goboard import BLACK, WHITE
from goboard.coords import GTP_LETTERS, from_gtp, from_rowcol, to_gtp, to_rowcol
from goboard.text import parse, parse_board, render

SIZES = range(2, 20)

# -- coords ---------------------------------------------------------------------------


def test_gtp_letters_skip_i():
    assert GTP_LETTERS == "ABCDEFGHJKLMNOPQRST"
    assert "I" not in GTP_LETTERS and len(GTP_LETTERS) == 19


@pytest.mark.parametrize(
    ("vertex", "size", "point"),
    [
        ("A9", 9, 0),
        ("J9", 9, 8),  # J is the 9th column: I is skipped
        ("H9", 9, 7),
        ("A1", 9, 72),
        ("J1", 9, 80),
        ("E5", 9, 40),
        ("A19", 19, 0),
        ("T19", 19, 18),
        ("A1", 19, 342),
        ("T1", 19, 360),
        ("K10", 19, 180),
        ("J10", 19, 179),
        ("A2", 2, 0),
        ("B1", 2, 3),
        ("pass", 9, 81),
        ("pass", 19, 361),
        ("pass", 2, 4),
    ],
    ids=lambda v: str(v),
)
def test_gtp_examples(vertex, size, point):
    assert from_gtp(vertex, size) == point
    assert to_gtp(point, size) == vertex


@pytest.mark.parametrize("vertex", ["d4", "D4", "PASS", "Pass", "pAsS", "t19", "k10"])
def test_gtp_is_case_insensitive(vertex):
    assert from_gtp(vertex, 19) == from_gtp(vertex.upper(), 19)
    assert from_gtp(vertex.lower(), 19) == from_gtp(vertex.upper(), 19)


@pytest.mark.parametrize("size", SIZES)
def test_round_trips_over_every_point(size):
    n2 = size * size
    for p in range(n2):
        row, col = to_rowcol(p, size)
        assert (row, col) == divmod(p, size)
        assert from_rowcol(row, col, size) == p
        vertex = to_gtp(p, size)
        assert vertex == f"{GTP_LETTERS[col]}{size - row}"  # A1 is bottom-left
        assert from_gtp(vertex, size) == p
        assert from_gtp(vertex.lower(), size) == p
    assert to_gtp(n2, size) == "pass"
    assert from_gtp("pass", size) == n2
    assert to_gtp(n2 - size, size) == "A1"  # bottom-left corner
    assert len({to_gtp(p, size) for p in range(n2 + 1)}) == n2 + 1


@pytest.mark.parametrize(
    ("vertex", "size", "error"),
    [
        ("I5", 19, ValueError),
        ("i5", 19, ValueError),
        ("Z1", 19, ValueError),
        ("A0", 19, ValueError),
        ("A20", 19, ValueError),
        ("U1", 19, ValueError),
        ("K1", 9, ValueError),  # column 10 on a 9x9 board
        ("A10", 9, ValueError),
        ("C1", 2, ValueError),
        ("A3", 2, ValueError),
        ("", 19, ValueError),
        ("A", 19, ValueError),
        ("11", 19, ValueError),
        ("A-1", 19, ValueError),
        ("1A", 19, ValueError),
        ("passs", 19, ValueError),
        (5, 19, TypeError),
        (None, 19, TypeError),
        (b"A1", 19, TypeError),
        (("A", 1), 19, TypeError),
    ],
    ids=repr,
)
def test_bad_vertices(vertex, size, error):
    with pytest.raises(error):
        from_gtp(vertex, size)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: to_gtp(82, 9), ValueError),
        (lambda: to_gtp(-1, 9), ValueError),
        (lambda: to_gtp(True, 9), TypeError),
        (lambda: to_rowcol(81, 9), ValueError),  # pass has no row and column
        (lambda: to_rowcol(-1, 9), ValueError),
        (lambda: from_rowcol(9, 0, 9), ValueError),
        (lambda: from_rowcol(0, -1, 9), ValueError),
        (lambda: from_gtp("A1", 1), ValueError),
        (lambda: from_gtp("A1", 20), ValueError),
        (lambda: from_gtp("A1", "9"), TypeError),
        (lambda: to_gtp(0, 9.0), TypeError),
    ],
    ids=[
        "to_gtp-past-pass",
        "to_gtp-negative",
        "to_gtp-bool",
        "to_rowcol-pass",
        "to_rowcol-negative",
        "from_rowcol-row-off",
        "from_rowcol-col-negative",
        "size-1",
        "size-20",
        "size-str",
        "size-float",
    ],
)
def test_bad_points_and_sizes(call, error):
    with pytest.raises(error):
        call()


def test_play_gtp(impl):
    board = impl(9)
    board.play_gtp("d4")
    assert board.stones()[5, 3] == BLACK
    assert board.last_move == from_gtp("D4", 9)
    board.play_gtp("J9")
    assert board.stones()[0, 8] == WHITE
    board.play_gtp("PASS")
    assert board.passes == 1 and board.last_move == 81
    before = (board.stones().tobytes(), board.move_number, board.to_play)
    for bad, error in [("I5", ValueError), ("A10", ValueError), (5, TypeError)]:
        with pytest.raises(error):
            board.play_gtp(bad)
    assert (board.stones().tobytes(), board.move_number, board.to_play) == before


# -- text -----------------------------------------------------------------------------

SAMPLE = """
    . X O
    X O .
    . . .
"""


def test_parse_sample():
    stones = parse(SAMPLE)
    assert stones.dtype == np.int8
    np.testing.assert_array_equal(stones, [[0, 1, -1], [1, -1, 0], [0, 0, 0]])


@pytest.mark.parametrize(
    "text",
    [
        ".XO\nXO.\n...",
        "\n\n  . X O\n\n  X O .\n  . . .\n\n",
        "+XO\nXO+\n+++",
        ".  X\tO\nX O .\n. . .",
    ],
    ids=["compact", "blank-lines", "plus-is-empty", "tabs-and-spaces"],
)
def test_parse_ignores_whitespace_and_reads_plus(text):
    np.testing.assert_array_equal(parse(text), parse(SAMPLE))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (". X Z\nX O .\n. . .", ValueError),  # unknown character
        (". x o\nX O .\n. . .", ValueError),  # lower case is not a stone
        (". X O\nX O .", ValueError),  # 2 rows of 3
        (". X O\nX O\n. . .", ValueError),  # ragged
        ("X", ValueError),  # 1x1
        ("", ValueError),
        ("\n".join(["." * 20] * 20), ValueError),
        (None, TypeError),
        (b". X\n. .", TypeError),
    ],
    ids=[
        "unknown-char",
        "lower-case",
        "not-square",
        "ragged",
        "1x1",
        "empty",
        "20x20",
        "none",
        "bytes",
    ],
)
def test_parse_errors(text, error):
    with pytest.raises(error):
        parse(text)


@given(
    st.integers(2, 19).flatmap(
        lambda n: st.lists(
            st.lists(st.sampled_from([-1, 0, 1]), min_size=n, max_size=n),
            min_size=n,
            max_size=n,
        )
    )
)
def test_parse_reads_back_any_ascii_board(rows):
    stones = np.array(rows, dtype=np.int8)
    np.testing.assert_array_equal(parse(ascii_board(stones)), stones)


def _render_cells(text: str, size: int) -> list[str]:
    """The stone characters of each row line of a rendering, top row first."""
    rows = []
    for line in text.splitlines():
        match = re.match(r"^\s*(\d+)\s", line)
        if match:
            rows.append((int(match.group(1)), re.findall(r"[XO.+]", line)))
    assert [number for number, _ in rows] == list(range(size, 0, -1))
    return ["".join(cells) for _, cells in rows]


@pytest.mark.parametrize("size", [2, 5, 9, 19])
def test_render_shows_coordinates_and_stones(size):
    stones = np.zeros((size, size), dtype=np.int8)
    stones[0, 0] = BLACK  # top-left: A<size>
    stones[size - 1, size - 1] = WHITE  # bottom-right
    stones[size - 1, 0] = WHITE  # A1
    text = render(stones)
    letters = " ".join(GTP_LETTERS[:size])
    assert letters in text
    if size == 19:
        assert "H J K" in text and "I" not in text
    cells = _render_cells(text, size)
    assert cells[0][0] == "X" and cells[-1][0] == "O" and cells[-1][-1] == "O"
    assert [c.replace("+", ".") for c in cells] == [
        "".join(".XO"[v] for v in row) for row in stones
    ]


def test_render_marks_the_last_move():
    stones = parse(SAMPLE)
    n = stones.shape[0]
    assert "(" in render(stones, last_move=0)
    assert "(" in render(stones, last_move=np.int64(n * n - 1))
    assert "(" not in render(stones, last_move=n * n)  # a pass marks nothing


@pytest.mark.parametrize(
    ("last_move", "error"),
    [
        (float("inf"), TypeError),
        (float("-inf"), TypeError),
        (float("nan"), TypeError),
        (1.5, TypeError),
        ("3", TypeError),
        (10**400, ValueError),
        (-1, ValueError),
        (True, ValueError),
    ],
)
def test_render_refuses_bad_last_moves(last_move, error):
    # int(inf) raised OverflowError, and 1.5 marked point 1.
    with pytest.raises(error, match="last_move"):
        render(parse(SAMPLE), last_move=last_move)


def test_render_board_and_stones_agree(impl):
    board = impl.from_stones(parse(SAMPLE))
    assert render(board) == render(board.stones())
    assert "A B C" in render(board)


def test_parse_board_builds_the_c_board():
    import goboard

    board = parse_board(SAMPLE, to_play=WHITE, komi=0.5, rules="chinese")
    assert isinstance(board, goboard.Board)
    np.testing.assert_array_equal(board.stones(), parse(SAMPLE))
    assert board.to_play == WHITE
    assert board.komi == 0.5
    assert board.rules == goboard.CHINESE
    with pytest.raises(ValueError):
        parse_board("X O\nO X")  # strings without liberties
