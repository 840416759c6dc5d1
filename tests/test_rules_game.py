"""Passes, the end of the game, resignation, occupied and off-board points.

Also the order in which reasons are reported when several apply: off-board, game
over, occupied, ko, suicide, superko.
"""

from __future__ import annotations

import pytest
from pairs import snapshot
from rulecase import Case, assert_illegal, cases, run_case

from goboard.errors import IllegalMoveError
from goboard.text import parse

BOARD = """
    . . . . .
    . . X . .
    . O X . .
    . . . . .
    . . . . .
"""
N2 = 25  # pass on 5x5

PASSES = [
    Case(
        "one-pass-switches-side",
        BOARD,
        moves=("pass",),
        expect=BOARD,
        passes=1,
        is_over=False,
        ko_point=None,
        captures=(0, 0),
        legal=("A1", "pass"),
    ),
    Case(
        "two-passes-end-the-game",
        BOARD,
        moves=("pass", "pass"),
        expect=BOARD,
        passes=2,
        is_over=True,
        illegal=(("A1", "game over"), ("pass", "game over"), ("C3", "game over")),
    ),
    Case("move-resets-passes", BOARD, moves=("pass", "D4"), passes=0, is_over=False),
    Case(
        "pass-move-pass-is-not-over",
        BOARD,
        moves=("pass", "D4", "pass"),
        passes=1,
        is_over=False,
        legal=("E5", "pass"),
    ),
    Case(
        "three-passes-impossible",
        BOARD,
        moves=("pass", "pass", "pass"),
        error="game over",
        passes=2,
    ),
    Case(
        "play-after-game-over", BOARD, moves=("pass", "pass", "A1"), error="game over"
    ),
    Case(
        "game-over-beats-occupied",
        BOARD,
        moves=("pass", "pass", "C3"),
        error="game over",
    ),
    Case(
        "game-over-beats-suicide",
        """
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        moves=("pass", "pass", "A5"),
        error="game over",
    ),
    Case(
        "off-board-beats-game-over",
        BOARD,
        moves=("pass", "pass", -1),
        error="off-board",
    ),
    Case(
        "off-board-past-pass-beats-game-over",
        BOARD,
        moves=("pass", "pass", N2 + 1),
        error="off-board",
    ),
]

POINTS = [
    Case("occupied-by-own-stone", BOARD, moves=("C4",), error="occupied"),
    Case("occupied-by-opponent-stone", BOARD, moves=("B3",), error="occupied"),
    Case("occupied-after-moves", BOARD, moves=("D4", "D3", "D3"), error="occupied"),
    Case("off-board-negative", BOARD, moves=(-1,), error="off-board"),
    Case("off-board-past-pass", BOARD, moves=(N2 + 1,), error="off-board"),
    Case("off-board-far", BOARD, moves=(10**6,), error="off-board"),
    Case("pass-is-size-squared", BOARD, moves=(N2,), passes=1, expect=BOARD),
    Case(
        "row-col-and-gtp-agree",
        BOARD,
        moves=((0, 0), "E1", 18),
        expect="""
        X . . . .
        . . X . .
        . O X . .
        . . . X .
        . . . . O
        """,
        illegal=(
            ((2, 2), "occupied"),
            ("E1", "occupied"),
            (0, "occupied"),
            ("D2", "occupied"),
        ),
    ),
]

RESIGN = [
    Case(
        "resign-ends-game",
        BOARD,
        moves=("resign",),
        expect=BOARD,
        is_over=True,
        result="W+R",
        illegal=(("A1", "game over"), ("pass", "game over"), (-1, "off-board")),
    ),
    Case(
        "resign-after-moves-beats-score",
        """
        X X X X X
        X X X X X
        X X X X X
        X X X X .
        . . . . .
        """,
        komi=0.5,
        moves=("A1", "pass", "resign"),
        is_over=True,
        result="W+R",
    ),
    Case(
        "resign-after-one-pass",
        BOARD,
        to_play=-1,
        moves=("pass", "resign"),
        is_over=True,
        result="W+R",
    ),
]


@cases(*PASSES)
def test_passes_and_game_over(impl, case):
    board = run_case(impl, case)
    n = board.size
    if board.is_over:
        assert board.legal_moves() == []
        assert not board.legal_mask().any()
        assert not any(board.is_legal(p) for p in range(n * n + 1))


@cases(*POINTS)
def test_occupied_and_off_board(impl, case):
    run_case(impl, case)


@cases(*RESIGN)
def test_resign(impl, case):
    board = run_case(impl, case)
    loser = case.to_play if len(case.moves) % 2 == 1 else -case.to_play
    assert board.resigned == loser
    assert board.is_over
    assert not board.legal_mask().any()


@cases(RESIGN[0])
def test_resign_when_over_is_refused(impl, case):
    board = run_case(impl, case)
    with pytest.raises(IllegalMoveError) as info:
        board.resign()
    assert info.value.reason == "game over"
    assert board.result() == case.result


@cases(PASSES[1])
def test_resign_after_two_passes_is_refused(impl, case):
    board = run_case(impl, case)
    before = board.result()
    with pytest.raises(IllegalMoveError) as info:
        board.resign()
    assert info.value.reason == "game over"
    assert board.resigned is None
    assert board.result() == before
    assert_illegal(board, 0, "game over")


@cases(PASSES[0])
def test_fresh_board_state(impl, case):
    """Before any move: no passes, no last move, nothing resigned, nothing over."""
    board = impl.from_stones(parse(case.board), to_play=case.to_play)
    assert board.move_number == 0
    assert board.passes == 0
    assert board.last_move is None
    assert board.resigned is None
    assert board.is_over is False
    assert board.ko_point is None
    assert board.captures == (0, 0)
    assert board.to_play == case.to_play


# ---- the turn handed over without a move (Board.set_to_play) ----------------------


@cases(PASSES[0])
def test_set_to_play_hands_over_the_turn_without_a_pass(impl, case):
    """After one pass, handing the turn back forgets that pass: a pass then is the
    first of two again, not the end of the game; stones and move number stay."""
    board = run_case(impl, case)
    mover = -board.to_play
    stones, moves = board.stones().copy(), board.move_number
    board.set_to_play(mover)
    assert board.to_play == mover
    assert board.passes == 0 and board.last_move is None and not board.is_over
    assert (board.stones() == stones).all() and board.move_number == moves
    board.play(board.size * board.size)
    assert board.passes == 1 and not board.is_over


@cases(PASSES[0])
def test_set_to_play_for_the_side_to_move_changes_nothing(impl, case):
    board = run_case(impl, case)
    before = snapshot(board)
    board.set_to_play(board.to_play)
    assert snapshot(board) == before  # the pass played is still counted


@cases(PASSES[1])
def test_set_to_play_refuses_a_finished_game_and_bad_colours(impl, case):
    board = run_case(impl, case)
    before = snapshot(board)
    with pytest.raises(IllegalMoveError) as info:
        board.set_to_play(-board.to_play)
    assert info.value.reason == "game over"
    for bad in (0, 2, True, "B", None):
        with pytest.raises((ValueError, TypeError)):
            board.set_to_play(bad)
    assert snapshot(board) == before
