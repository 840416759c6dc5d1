"""Seeded random games on the compiled board, the invariant checker after every move.

Half of the candidate moves are garbage (off-board, occupied, illegal), as in KataGo's
stress test: every refusal must leave the board bit-identical, and ``is_legal`` must
predict exactly which moves ``play`` accepts.
"""

from __future__ import annotations

import pytest
from pairs import ALL_RULES, snapshot

import goboard
from goboard.errors import IllegalMoveError


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@pytest.mark.parametrize("size", [4, 9, 19])
def test_random_games_keep_invariants(size: int, rules, rng) -> None:
    games = {4: 30, 9: 6, 19: 2}[size]
    refused = accepted = 0
    for _ in range(games):
        board = goboard.Board(size, rules=rules)
        while not board.is_over and board.move_number < 3 * size * size:
            if rng.random() < 0.5:
                move = int(rng.integers(-5, size * size + 5))
            else:
                legal = board.legal_moves()
                # Rarely pass, so games run long and fill the board.
                move = int(rng.choice(legal[:-1])) if len(legal) > 1 else size * size
            before = snapshot(board)
            predicted = board.is_legal(move)
            try:
                board.play(move)
            except IllegalMoveError:
                assert not predicted, f"is_legal({move}) was True but play refused it"
                assert snapshot(board) == before
                refused += 1
            else:
                assert predicted, f"is_legal({move}) was False but play accepted it"
                accepted += 1
            board._check_invariants()
    assert refused > 0 and accepted > 0


def test_legal_mask_matches_is_legal(rng) -> None:
    for size in (3, 9, 19):
        board = goboard.Board(size)
        for _ in range(size * size):
            mask = board.legal_mask()
            assert mask.shape == (size * size + 1,)
            assert [board.is_legal(p) for p in range(size * size + 1)] == mask.tolist()
            assert board.legal_moves() == mask.nonzero()[0].tolist()
            legal = board.legal_moves()
            board.play(int(rng.choice(legal[:-1])) if len(legal) > 1 else size * size)
            if board.is_over:
                break


def test_copy_restores_exact_position(rng) -> None:
    board = goboard.Board(9)
    for _ in range(40):
        saved = board.copy()
        before = snapshot(board)
        board.play(int(rng.choice(board.legal_moves()[:-1])))
        assert snapshot(saved) == before
        saved._check_invariants()
        board = saved if rng.random() < 0.3 else board


def test_game_over_refuses_moves_but_keeps_state() -> None:
    board = goboard.Board(5)
    board.play_gtp("C3")
    board.play(25)
    board.play(25)
    assert board.is_over and board.passes == 2
    assert not board.legal_mask().any()
    assert board.legal_moves() == []
    with pytest.raises(IllegalMoveError) as err:
        board.play(0)
    assert err.value.reason == "game over"
    with pytest.raises(IllegalMoveError):
        board.resign()
    assert board.result() == "B+17.5"
