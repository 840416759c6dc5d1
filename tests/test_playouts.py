"""Random playouts: the true-eye rule, reproducibility, scores and their bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest

import goboard
from goboard import BLACK, WHITE
from goboard.coords import from_gtp
from goboard.text import parse

# Eye cases: (board, vertex, colour, is a true eye). Middle: at most one enemy diagonal;
# edge and corner: none.
MIDDLE = """
    . . . . .
    . {a} X . .
    . X . X .
    . . X {b} .
    . . . . .
"""
EDGE = """
    . . . . .
    . . . . .
    . . . . .
    . {a} X . .
    . X . X .
"""
CORNER = """
    . . . . .
    . . . . .
    . . . . .
    X {a} . . .
    . X . . .
"""
EYES = [
    ("middle, no enemy diagonal", MIDDLE.format(a=".", b="."), "C3", BLACK, True),
    ("middle, one enemy diagonal", MIDDLE.format(a="O", b="."), "C3", BLACK, True),
    ("middle, two enemy diagonals", MIDDLE.format(a="O", b="O"), "C3", BLACK, False),
    ("edge, no enemy diagonal", EDGE.format(a="."), "C1", BLACK, True),
    ("edge, one enemy diagonal", EDGE.format(a="O"), "C1", BLACK, False),
    ("corner, empty diagonal", CORNER.format(a="."), "A1", BLACK, True),
    ("corner, enemy diagonal", CORNER.format(a="O"), "A1", BLACK, False),
    ("not surrounded", MIDDLE.format(a=".", b="."), "B2", BLACK, False),
    ("the other colour's eye", MIDDLE.format(a=".", b="."), "C3", WHITE, False),
    ("occupied point", MIDDLE.format(a=".", b="."), "C4", BLACK, False),
]


def with_colour_swap(cases: list) -> list:
    swapped = [
        (name + " (swapped)", text.translate(str.maketrans("XO", "OX")), v, -c, eye)
        for name, text, v, c, eye in cases
    ]
    return cases + swapped


@pytest.mark.parametrize(
    ("name", "text", "vertex", "colour", "eye"),
    with_colour_swap(EYES),
    ids=[case[0] for case in with_colour_swap(EYES)],
)
def test_true_eye_rule(
    name: str, text: str, vertex: str, colour: int, eye: bool
) -> None:
    stones = parse(text)
    board = goboard.Board.from_stones(stones)
    point = from_gtp(vertex, stones.shape[0])
    assert board.is_true_eye(point, colour) is eye


@pytest.mark.parametrize("size", [5, 9, 19])
def test_playouts_are_reproducible_and_split_independent(size: int) -> None:
    board = goboard.Board(size)
    scores, placed = goboard.playouts(board, 12, seed=42)
    again, placed_again = goboard.playouts(board, 12, seed=42)
    np.testing.assert_array_equal(scores, again)
    np.testing.assert_array_equal(placed, placed_again)
    first, _ = goboard.playouts(board, 5, seed=42)
    np.testing.assert_array_equal(first, scores[:5])  # playout i uses stream i
    other, _ = goboard.playouts(board, 12, seed=43)
    assert not np.array_equal(other, scores)
    assert board.random_playout(42) == scores[0]
    assert board.move_number == 0 and board.stones().sum() == 0  # board untouched


def test_playout_scores_match_ownership_and_komi() -> None:
    board = goboard.Board(9, komi=6.5)
    for seed in range(20):
        scores, placed, owners = goboard.playouts(board, 1, seed, ownership=True)
        assert scores[0] == owners.sum() - 6.5
        assert placed[0] > 0
        assert np.isin(owners, (-1, 0, 1)).all()
    scores, _, owners = goboard.playouts(board, 50, 7, ownership=True)
    assert np.abs(owners).max() <= 50
    assert owners.sum() - 50 * 6.5 == pytest.approx(scores.sum())


def test_settled_position_places_nothing() -> None:
    """Only true eyes are left: both sides pass at once and the score is exact."""
    text = """
        . X O . O
        X X O O O
        X X X O O
        X . X O .
        X X X O O
    """
    board = goboard.Board.from_stones(parse(text), komi=0.5)
    scores, placed = goboard.playouts(board, 4, seed=1)
    assert placed.tolist() == [0, 0, 0, 0]
    assert scores.tolist() == [board.score()] * 4


def test_max_moves_caps_playouts() -> None:
    board = goboard.Board(19)
    _, placed = goboard.playouts(board, 8, seed=3, max_moves=10)
    assert (placed <= 10).all() and (placed == 10).any()
    _, placed = goboard.playouts(board, 3, seed=3, max_moves=0)
    assert placed.tolist() == [0, 0, 0]


def test_playouts_fill_the_board_without_filling_eyes() -> None:
    """A full-length playout leaves only single-point eyes (no larger empty areas)."""
    board = goboard.Board(9)
    for seed in range(30):
        scores, placed, owners = goboard.playouts(board, 1, seed, ownership=True)
        # Every point ends owned by someone or is a rare dame: area nearly all counted.
        assert (owners != 0).sum() >= 75
        assert 40 <= placed[0] <= 3 * 81


def test_playout_statistics_are_plausible() -> None:
    """Random play from the empty 9x9 board is nearly even before komi."""
    scores, _ = goboard.playouts(goboard.Board(9, komi=0.0), 2000, seed=11)
    assert abs(scores.mean()) < 3.0
    assert scores.std() > 10.0


def test_playouts_from_a_finished_game_do_nothing() -> None:
    board = goboard.Board(5)
    board.play(25)
    board.play(25)
    scores, placed = goboard.playouts(board, 2, seed=0)
    assert placed.tolist() == [0, 0] and scores.tolist() == [-7.5, -7.5]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("board", 1, 0), TypeError),
        ((None, 1, 0), TypeError),
        ((goboard.Board(5), -1, 0), ValueError),
        ((goboard.Board(5), 1.0, 0), TypeError),
        ((goboard.Board(5), 1, "seed"), TypeError),
        ((goboard.Board(5), 1, 0, -5), ValueError),
    ],
)
def test_playout_bad_arguments(args: tuple, error: type) -> None:
    with pytest.raises(error):
        goboard.playouts(*args)


def test_any_int_seed_is_accepted() -> None:
    board = goboard.Board(5)
    a, _ = goboard.playouts(board, 3, seed=-1)
    b, _ = goboard.playouts(board, 3, seed=2**64 - 1)
    np.testing.assert_array_equal(a, b)  # seeds are taken modulo 2**64
