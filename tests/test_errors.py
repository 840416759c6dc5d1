"""Bad arguments: constructors, moves, from_stones, rules and komi."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rulecase import assert_illegal

from goboard.errors import REASONS, IllegalMoveError
from goboard.rules import CHINESE, TROMP_TAYLOR, Rules


@pytest.mark.parametrize(
    ("size", "error"),
    [
        (1, ValueError),
        (20, ValueError),
        (0, ValueError),
        (-9, ValueError),
        ("9", TypeError),
        (9.0, TypeError),
        (None, TypeError),
        (True, TypeError),
    ],
    ids=["1", "20", "0", "negative", "str", "float", "none", "bool"],
)
def test_bad_board_size(impl, size, error):
    with pytest.raises(error):
        impl(size)


@pytest.mark.parametrize("size", [2, 19])
def test_smallest_and_largest_sizes(impl, size):
    board = impl(size)
    assert board.size == size
    assert board.legal_moves() == list(range(size * size + 1))


def test_defaults(impl):
    board = impl()
    assert board.size == 19
    assert board.komi == 7.5 and isinstance(board.komi, float)
    assert board.rules == TROMP_TAYLOR
    assert board.to_play == 1
    assert board.zobrist == 0


@pytest.mark.parametrize(
    "komi",
    [math.nan, math.inf, -math.inf, 10**400, -(10**400)],
    ids=["nan", "inf", "-inf", "huge-int", "huge-negative-int"],
)
def test_komi_must_be_finite(impl, komi):
    with pytest.raises(ValueError):
        impl(9, komi=komi)
    board = impl(9, komi=0.5)
    with pytest.raises(ValueError):
        board.komi = komi
    assert board.komi == 0.5
    with pytest.raises(ValueError):
        impl.from_stones(np.zeros((3, 3), dtype=np.int8), komi=komi)


def test_board_whose_init_never_ran_is_the_default_board():
    # Board.__new__ without __init__ used to leave NULL pointers that copy() followed.
    import goboard

    bare = goboard.Board.__new__(goboard.Board)
    assert bare.copy() == goboard.Board()
    assert bare.size == 19 and bare.komi == 7.5 and bare.rules == TROMP_TAYLOR
    bare.play(60)
    assert bare.copy().move_number == 1 and not bare.is_legal(60)
    assert goboard.perft(goboard.Board.__new__(goboard.Board), 1) == 362


def test_huge_komi_in_score_is_value_error(impl):
    board = impl(9)
    with pytest.raises(ValueError):
        board.score(komi=10**400)
    assert board.score() == -7.5


@pytest.mark.parametrize(
    "bad",
    [{"size": 20}, {"komi": math.nan}, {"komi": 10**400}, {"rules": "japanese"}],
    ids=["size", "nan-komi", "huge-komi", "rules"],
)
def test_second_init_with_bad_arguments_changes_nothing(impl, bad):
    board = impl(9, komi=0.5, rules="chinese")
    board.play(40)
    stones, zobrist = board.stones().copy(), board.zobrist
    args = {"size": 9, "komi": 6.5, "rules": "tromp-taylor", **bad}
    with pytest.raises((ValueError, TypeError)):
        board.__init__(**args)
    assert board.size == 9 and board.komi == 0.5 and board.rules == CHINESE
    assert board.move_number == 1 and board.zobrist == zobrist
    np.testing.assert_array_equal(board.stones(), stones)
    assert not board.is_legal(40)  # the superko record was kept too


@pytest.mark.parametrize("komi", ["7.5", None], ids=["str", "none"])
def test_komi_must_be_a_number(impl, komi):
    with pytest.raises((TypeError, ValueError)):
        impl(9, komi=komi)


@pytest.mark.parametrize(
    "komi", [0, 6, -3.5, 0.5], ids=["0", "int", "negative", "half"]
)
def test_komi_accepts_real_numbers(impl, komi):
    board = impl(9, komi=komi)
    assert board.komi == komi and isinstance(board.komi, float)
    assert board.score() == -komi


@pytest.mark.parametrize("name", ["japanese", "", "tromp_taylor", "superko"])
def test_unknown_rules_name(impl, name):
    with pytest.raises(ValueError):
        impl(9, rules=name)
    with pytest.raises(ValueError):
        Rules.coerce(name)


def test_rules_argument_forms(impl):
    assert impl(9, rules="CHINESE").rules == CHINESE
    assert impl(9, rules=Rules("simple", False)).rules == Rules("simple", False)
    with pytest.raises(TypeError):
        impl(9, rules=5)
    with pytest.raises(ValueError):
        Rules(ko="super")
    with pytest.raises(TypeError):
        Rules(ko="simple", suicide=1)


@pytest.mark.parametrize(
    "move",
    ["D4", 3.0, True, False, None, (3, 3), "pass"],
    ids=["str", "float", "true", "false", "none", "tuple", "pass-str"],
)
def test_play_non_int_is_type_error(impl, move):
    board = impl(9)
    with pytest.raises(TypeError):
        board.play(move)
    with pytest.raises(TypeError):
        board.is_legal(move)
    assert board.move_number == 0 and not board.stones().any()


@pytest.mark.parametrize("size", [2, 9, 19])
def test_off_board_moves(impl, size):
    board = impl(size)
    n2 = size * size
    for move in (-1, n2 + 1, -n2, 2**31, -(2**63), 10**30):
        assert board.is_legal(move) is False
        assert_illegal(board, move, "off-board")
    assert board.is_legal(n2) is True  # pass


def test_numpy_integers_are_moves(impl):
    board = impl(9)
    board.play(np.int64(40))
    board.play(board.legal_moves()[0])  # an element of legal_moves() is playable
    assert board.move_number == 2
    assert board.stones()[4, 4] == 1 and board.stones()[0, 0] == -1


@pytest.mark.parametrize(
    "stones",
    [
        [[1, -1], [-1, 0]],  # Black's corner stone has no liberty
        [[1, 1], [1, 1]],  # a full board
        [[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]],
        [[0, 1, -1], [1, -1, -1], [1, -1, -1]],  # White's string is surrounded
    ],
    ids=["corner-stone", "full-black", "full-white", "white-string"],
)
def test_from_stones_string_without_liberty(impl, stones):
    with pytest.raises(ValueError):
        impl.from_stones(stones)


@pytest.mark.parametrize(
    "stones",
    [
        np.zeros((2, 3), dtype=np.int8),
        np.zeros((1, 1), dtype=np.int8),
        np.zeros((20, 20), dtype=np.int8),
        np.zeros((3, 3, 3), dtype=np.int8),
        np.zeros(9, dtype=np.int8),
        [[0, 0], [0]],
        [[2, 0], [0, 0]],
        [[0, -2], [0, 0]],
        [[0.5, 0], [0, 0]],
        [["X", "."], [".", "."]],
    ],
    ids=[
        "2x3",
        "1x1",
        "20x20",
        "3d",
        "flat",
        "ragged",
        "value-2",
        "value--2",
        "value-half",
        "strings",
    ],
)
def test_from_stones_bad_shape_or_values(impl, stones):
    with pytest.raises(ValueError):
        impl.from_stones(stones)


@pytest.mark.parametrize("to_play", [0, 2, -2], ids=["0", "2", "-2"])
def test_from_stones_bad_to_play(impl, to_play):
    with pytest.raises((ValueError, TypeError)):
        impl.from_stones(np.zeros((3, 3), dtype=np.int8), to_play=to_play)


def test_from_stones_accepts_array_likes(impl):
    lists = [[0, 1, 0], [1, -1, 0], [0, 0, 0]]
    for stones in (lists, np.array(lists, dtype=np.int8), np.array(lists)):
        board = impl.from_stones(stones, to_play=-1)
        np.testing.assert_array_equal(board.stones(), lists)
        assert board.to_play == -1 and board.move_number == 0


def test_illegal_move_error():
    err = IllegalMoveError("ko", 12)
    assert isinstance(err, ValueError)
    assert err.reason == "ko" and err.move == 12
    assert "ko" in str(err)
    assert set(REASONS) == {
        "occupied",
        "suicide",
        "ko",
        "superko",
        "off-board",
        "game over",
    }
    with pytest.raises(ValueError):
        IllegalMoveError("bogus")
