"""Board API details: copies, equality, hashing, Zobrist keys, which class is C."""

from __future__ import annotations

import numpy as np
import pytest
from rulecase import Case, cases, expected_zobrist, run_case

import goboard
from goboard.text import parse

KO_BOARD = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
"""


def test_c_board_is_the_compiled_one():
    import goboard.reference

    assert goboard.Board is not goboard.reference.Board
    assert goboard.Board.__module__.startswith("goboard._board")


def test_zobrist_keys():
    for size in (2, 9, 19):
        keys = goboard.zobrist_keys(size)
        assert keys.shape == (2, size * size) and keys.dtype == np.uint64
        assert len(np.unique(keys)) == 2 * size * size  # all distinct
        assert not (keys == 0).any()
        np.testing.assert_array_equal(keys, goboard.zobrist_keys(size))  # fixed


@cases(Case("ko", KO_BOARD, moves=("C3",)))
def test_zobrist_follows_moves_and_captures(impl, case):
    start = impl.from_stones(parse(case.board), to_play=case.to_play)
    assert start.zobrist == expected_zobrist(parse(case.board))
    board = run_case(impl, case)
    keys = goboard.zobrist_keys(5)
    colour = 0 if case.to_play == 1 else 1
    # C3 added for the mover, B3 removed for the other side.
    want = start.zobrist ^ int(keys[colour, 12]) ^ int(keys[1 - colour, 11])
    assert board.zobrist == want
    board.play(25)  # a pass changes no stone
    assert board.zobrist == want


def test_c_and_reference_zobrist_agree():
    import goboard.reference

    stones = parse(KO_BOARD)
    c = goboard.Board.from_stones(stones)
    ref = goboard.reference.Board.from_stones(stones)
    assert c.zobrist == ref.zobrist != 0


@cases(Case("ko", KO_BOARD, moves=("C3",), ko_point="B3"))
def test_copy_is_independent(impl, case):
    board = run_case(impl, case)
    twin = board.copy()
    assert twin == board and type(twin) is type(board)
    assert twin.ko_point == board.ko_point and twin.captures == board.captures
    assert twin.move_number == board.move_number and twin.rules == board.rules
    twin.play(24)  # E1
    assert board.stones()[4, 4] == 0 and board.move_number == 1
    assert twin != board
    # The copy keeps the history: the ko retake is refused in a fresh copy too.
    again = board.copy()
    with pytest.raises(ValueError, match="ko"):
        again.play(11)


@cases(Case("ko", KO_BOARD, moves=("C3",), ko_point="B3"))
def test_equality_compares_stones_to_play_and_ko(impl, case):
    board = run_case(impl, case)
    same_stones = impl.from_stones(board.stones(), to_play=board.to_play)
    assert same_stones.ko_point is None
    assert same_stones != board  # ko point differs
    other_player = impl.from_stones(board.stones(), to_play=-board.to_play)
    assert other_player != same_stones
    assert impl.from_stones(board.stones(), to_play=board.to_play) == same_stones
    assert impl(5) != impl(6)
    assert (board == "not a board") is False
    with pytest.raises(TypeError):
        hash(board)


def test_stones_are_copies(impl):
    source = parse(KO_BOARD)
    board = impl.from_stones(source)
    source[0, 0] = 1  # the board must not share the caller's array
    assert board.stones()[0, 0] == 0
    out = board.stones()
    out[:] = 0
    assert board.stones()[1, 1] == 1
    assert board.liberties(0) == 0 and board.string(0).tolist() == []
