"""Score estimates for analysis, from playouts or an ownership head."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from numpy.typing import NDArray

import goboard
import search
from alphago.score_estimate import (
    MoveScores,
    NetMoveScores,
    move_scores,
    score_lead,
    score_spread,
)


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


def _fixed_ownership(value: float) -> Callable[[goboard.Board], NDArray[np.float64]]:
    """An ownership head that sees ``value`` on every point, and counts its calls."""

    def ownership_of(board: goboard.Board) -> NDArray[np.float64]:
        calls.append(board.copy())
        return np.full((board.size, board.size), value)

    calls: list[goboard.Board] = []
    ownership_of.calls = calls  # type: ignore[attr-defined]
    return ownership_of


def test_net_leads_are_the_summed_ownership_less_komi_from_the_movers_view() -> None:
    board = goboard.Board(5, komi=6.5)
    head = _fixed_ownership(0.5)  # Black expected to own half of every point: +12.5
    scores = NetMoveScores(board, head)
    lead, spread = scores.lead(None, 0.01)  # the winrate does not move it
    assert lead == pytest.approx(12.5 - 6.5)
    assert spread == pytest.approx(math.sqrt(25 * 0.75))
    d4 = goboard.coords.from_gtp("D4", 5)
    assert scores.lead(d4, 0.9) == (lead, spread)
    assert len(head.calls) == 2  # type: ignore[attr-defined]
    assert head.calls[1].stones()[1, 3] == goboard.BLACK  # type: ignore[attr-defined]
    scores.lead(d4, 0.2)
    assert len(head.calls) == 2  # type: ignore[attr-defined]  # cached per move
    board.play(d4)  # White to move: the same ownership is White's 6 points behind
    white = NetMoveScores(board, _fixed_ownership(0.5))
    assert white.lead(None, 0.5)[0] == pytest.approx(-(12.5 - 6.5))
    assert white.ownership(None).shape == (5, 5)


def test_net_leads_of_a_sure_board_and_of_a_finished_game() -> None:
    board = goboard.Board(5, komi=0.5)
    lead, spread = NetMoveScores(board, _fixed_ownership(-1.0)).lead(None, 0.5)
    assert lead == pytest.approx(-25.5)
    assert spread == 1.0  # no doubt left, but never below one point
    board.play_gtp("C3")
    board.play_gtp("pass")
    head = _fixed_ownership(-1.0)  # wrong, but a finished game is counted instead
    assert NetMoveScores(board, head).lead(25, 0.5) == (24.5, 1.0)
    assert head.calls == []  # type: ignore[attr-defined]


def test_move_scores_read_the_ownership_head_where_the_net_has_one() -> None:
    torch = pytest.importorskip("torch")
    from alphago.nets import NetConfig, NetEvaluator, PolicyValueNet
    from alphago.player import SearchPlayer, UCTPlayer

    torch.manual_seed(0)
    board = goboard.Board(5, komi=7.5)
    board.play_gtp("C3")  # White to move
    config = search.SearchConfig(num_simulations=4)
    for heads, kind in ((True, NetMoveScores), (False, MoveScores)):
        cfg = NetConfig(board_size=5, blocks=1, filters=8, ownership_head=heads)
        player = SearchPlayer(NetEvaluator(PolicyValueNet(cfg)), config)
        assert player.ownership_from_net is heads
        scores = move_scores(board, player)
        assert type(scores) is kind
    cfg = NetConfig(board_size=5, blocks=1, filters=8, ownership_head=True)
    evaluator = NetEvaluator(PolicyValueNet(cfg), symmetries="none")  # the same twice
    player = SearchPlayer(evaluator, config)
    b2 = goboard.coords.from_gtp("B2", 5)
    after = board.copy()
    after.play(b2)
    player_own = player.ownership(after)
    lead, _ = move_scores(board, player).lead(b2, 0.5)
    assert lead == pytest.approx(-(player_own.sum() - 7.5), abs=1e-5)
    assert type(move_scores(board, UCTPlayer(search.UCTConfig()))) is MoveScores
