"""Score estimates without a score head (alphago.score_estimate)."""

from __future__ import annotations

import math

import pytest

import goboard
from alphago.score_estimate import MoveScores, score_lead, score_spread


def test_spread_is_sqrt_of_empty_points_capped_by_playouts() -> None:
    assert score_spread(40.0, 81) == 9.0
    assert score_spread(3.0, 81) == 3.0
    assert score_spread(0.0, 4) == 1.0  # never below one point
    assert score_spread(math.nan, 361) == 19.0


def test_lead_follows_the_winrate() -> None:
    assert score_lead(-12.0, 40.0, 0.5, 81) == 0.0
    leads = [score_lead(-12.0, 40.0, w, 81) for w in (0.1, 0.3, 0.5, 0.7, 0.9)]
    assert leads == sorted(leads) and leads[0] == pytest.approx(-leads[-1])
    # One standard deviation of a 9-point spread at Phi(1) = 84.1%.
    assert score_lead(0.0, 40.0, 0.8413447, 81) == pytest.approx(9.0, abs=1e-3)
    # Unsettled playouts (spread 40 > sqrt(81)) never override the search.
    assert score_lead(-30.0, 40.0, 0.45, 81) == pytest.approx(-1.131, abs=1e-3)


def test_settled_playouts_give_the_counted_margin() -> None:
    assert score_lead(12.5, 0.5, 0.99, 9) == 12.5  # same leader, larger margin
    assert score_lead(-12.5, 0.5, 0.99, 9) == pytest.approx(2.326, abs=1e-3)
    assert score_lead(5.0, 1.0, math.nan, 9) == 5.0


def test_move_scores_are_from_the_movers_view() -> None:
    board = goboard.Board(5, komi=0.5)
    for v in ("C3", "B2"):
        board.play_gtp(v)
    scores = MoveScores(board)
    mean, stdev = scores(goboard.coords.from_gtp("D4", 5))
    assert math.isfinite(mean) and stdev > 0
    assert scores(goboard.coords.from_gtp("D4", 5)) == (mean, stdev)  # cached
    own = scores.ownership(None)
    assert own.shape == (5, 5) and own[2, 2] > own[3, 1]  # C3 Black's, B2 White's


def test_a_finished_game_is_counted() -> None:
    board = goboard.Board(5, komi=0.5)
    board.play_gtp("C3")
    board.play_gtp("pass")
    scores = MoveScores(board)  # Black to move after White's pass: passing ends it
    mean, stdev = scores(25)
    assert (mean, stdev) == (24.5, 0.0)  # Black owns the board, komi 0.5
    assert (scores.ownership(25) == 1.0).all()
