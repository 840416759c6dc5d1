"""Zobrist hashing: incremental equals from-scratch, transpositions, fixed table."""

from __future__ import annotations

import numpy as np
import pytest

import goboard
from goboard import BLACK, WHITE


def recompute(board: goboard.Board) -> int:
    """XOR of the keys of the stones, from the published table."""
    keys = goboard.zobrist_keys(board.size)
    flat = board.stones().ravel()
    h = np.uint64(0)
    for key in keys[0][flat == BLACK]:
        h ^= key
    for key in keys[1][flat == WHITE]:
        h ^= key
    return int(h)


@pytest.mark.parametrize("size", [2, 5, 9, 13, 19])
def test_table_shape_distinct_and_fixed(size: int) -> None:
    keys = goboard.zobrist_keys(size)
    assert keys.shape == (2, size * size) and keys.dtype == np.uint64
    assert len(set(keys.ravel().tolist())) == keys.size
    np.testing.assert_array_equal(keys, goboard.zobrist_keys(size))


def test_table_is_pinned() -> None:
    """The table is a compile-time constant: hashes match across builds and machines."""
    board = goboard.Board(19)
    assert board.zobrist == 0
    board.play_gtp("D4")
    board.play_gtp("Q16")
    assert board.zobrist == recompute(board) == PINNED_D4_Q16
    assert int(goboard.zobrist_keys(9)[0, 0]) == PINNED_9X9_A9_BLACK


# Pinned so that a change to the key table (which would invalidate stored caches and
# opening books) cannot pass unnoticed.
PINNED_D4_Q16 = 0x85F95552CB3C9754
PINNED_9X9_A9_BLACK = 0xC14A72DDE0BA846C


@pytest.mark.parametrize("rules", ["tromp-taylor", "chinese"])
def test_incremental_equals_recompute(rules: str, rng) -> None:
    for size in (4, 9, 19):
        board = goboard.Board(size, rules=rules)
        while not board.is_over and board.move_number < 2 * size * size:
            legal = board.legal_moves()
            board.play(int(rng.choice(legal[:-1])) if len(legal) > 1 else size * size)
            assert board.zobrist == recompute(board)


def test_transpositions_hash_equal() -> None:
    a, b = goboard.Board(9), goboard.Board(9)
    for vertex in ("C3", "G7", "E5", "D4"):
        a.play_gtp(vertex)
    for vertex in ("E5", "D4", "C3", "G7"):
        b.play_gtp(vertex)
    assert a.zobrist == b.zobrist and a == b


def test_capture_restores_pre_placement_hash() -> None:
    """Capturing a lone stone: the hash of the board without it, plus the capturer."""
    board = goboard.Board(5)
    for vertex in ("B3", "C3", "C2", "pass", "C4"):
        board.play_gtp(vertex)
    without_c3 = goboard.Board.from_stones(
        np.where(board.stones() == WHITE, 0, board.stones()), to_play=WHITE
    )
    board.play_gtp("pass")
    board.play_gtp("D3")  # captures the white stone on C3
    assert board.captures == (1, 0)
    without_c3_plus_d3 = without_c3.copy()
    without_c3_plus_d3.play_gtp("pass")
    without_c3_plus_d3.play_gtp("D3")
    assert board.zobrist == without_c3_plus_d3.zobrist == recompute(board)


def test_situation_hash_separates_turn_and_ko() -> None:
    board = goboard.Board(5)
    board.play_gtp("C3")
    other = goboard.Board.from_stones(board.stones(), to_play=BLACK)
    assert board.zobrist == other.zobrist
    assert board.situation_hash != other.situation_hash
    ko = goboard.Board.from_stones(
        np.array(
            [[0, 1, -1, 0, 0], [1, -1, 0, -1, 0], [0, 1, -1, 0, 0], [0] * 5, [0] * 5],
            dtype=np.int8,
        )
    )
    ko.play(7)  # black takes the ko at (1, 2), capturing (1, 1)
    assert ko.ko_point == 6
    no_ko = goboard.Board.from_stones(ko.stones(), to_play=WHITE)
    assert ko.zobrist == no_ko.zobrist
    assert ko.situation_hash != no_ko.situation_hash
