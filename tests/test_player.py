"""Players: results, time budgets, stop events, streaming, tree reuse, ownership."""

from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest

import goboard
import search
from alphago.player import (
    Candidate,
    Player,
    SearchPlayer,
    UCTPlayer,
    candidates_from_result,
)


def uct(sims: int = 32, **kwargs: object) -> UCTPlayer:
    return UCTPlayer(search.UCTConfig(num_simulations=sims, **kwargs), seed=2)  # type: ignore[arg-type]


def test_players_implement_the_protocol() -> None:
    assert isinstance(uct(), Player)
    assert isinstance(SearchPlayer(search.UniformEvaluator()), Player)
    with pytest.raises(TypeError):
        SearchPlayer(search.UniformEvaluator(), search.UCTConfig())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        UCTPlayer(search.SearchConfig())  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["uct", "puct"])
def test_genmove_returns_a_legal_move_and_leaves_the_board(kind: str) -> None:
    player: Player = (
        uct(24)
        if kind == "uct"
        else SearchPlayer(
            search.UniformEvaluator(), search.SearchConfig(num_simulations=24)
        )
    )
    board = goboard.Board(5, 7.5, "chinese")
    board.play(12)
    before = board.copy()
    result = player.genmove(board)
    assert board == before and board.move_number == before.move_number
    assert board.is_legal(result.move)
    assert result.num_simulations == 24


def test_time_budget_stops_the_search() -> None:
    player = uct(20_000)  # about 2.5 s without a budget
    start = time.monotonic()
    result = player.genmove(goboard.Board(9), time_budget=0.2)
    assert time.monotonic() - start < 1.5
    assert 0 < result.num_simulations < 20_000
    assert result.elapsed < 0.2 + 0.3  # the search itself stops at its budget
    with pytest.raises(ValueError):
        player.genmove(goboard.Board(9), time_budget=-1.0)
    with pytest.raises(ValueError):
        player.genmove(goboard.Board(9), time_budget=float("nan"))


def test_stop_event_and_streaming() -> None:
    player = uct(20_000)
    stop = threading.Event()
    seen: list[search.SearchResult] = []

    def on_result(r: search.SearchResult) -> None:
        seen.append(r)
        if len(seen) >= 3:
            stop.set()

    start = time.monotonic()
    result = player.genmove(
        goboard.Board(9), stop=stop, on_result=on_result, every_seconds=0.01
    )
    assert time.monotonic() - start < 2.0
    assert len(seen) >= 3
    assert result.num_simulations < 20_000  # stopped early
    counts = [r.num_simulations for r in seen]
    assert counts == sorted(counts)
    assert result.num_simulations >= counts[-1]


def test_tree_reuse_after_our_move_and_the_reply() -> None:
    player = uct(1000)
    board = goboard.Board(5, 7.5, "chinese")
    first = player.genmove(board)
    board.play(first.move)
    assert len(first.pv) >= 2
    board.play(first.pv[1])  # the reply the search expected: its subtree has visits
    second = player.genmove(board)
    # A reused subtree brings visits on top of this search's own simulations.
    assert int(second.visits.sum()) > second.num_simulations
    fresh = uct(1000).genmove(board)
    assert int(fresh.visits.sum()) == fresh.num_simulations
    # An unrelated position starts afresh (no visits carried over).
    other = goboard.Board(5, 7.5, "chinese")
    other.play(0)
    third = player.genmove(other)
    assert int(third.visits.sum()) == third.num_simulations


def test_new_game_and_size_change() -> None:
    player = uct(16)
    board = goboard.Board(5)
    player.genmove(board)
    again = player.genmove(board)  # the same position: the tree's visits carry over
    assert int(again.visits.sum()) > again.num_simulations
    player.new_game()
    fresh = player.genmove(board)  # the same position again, but the tree is gone
    assert int(fresh.visits.sum()) == fresh.num_simulations
    result = player.genmove(goboard.Board(7))
    assert result.visits.shape == (50,)
    assert int(result.visits.sum()) == result.num_simulations


def test_game_over_is_refused() -> None:
    board = goboard.Board(5)
    board.play(25)
    board.play(25)
    with pytest.raises(ValueError):
        uct().genmove(board)


def test_ownership_black_view() -> None:
    stones = np.zeros((5, 5), dtype=np.int8)
    stones[:, 1] = goboard.BLACK
    stones[:, 3] = goboard.WHITE
    board = goboard.Board.from_stones(stones, goboard.BLACK, 7.5, "chinese")
    own = uct().ownership(board)
    assert own.shape == (5, 5) and own.dtype == np.float64
    assert np.all(np.abs(own) <= 1.0)
    assert own[:, 0].mean() > 0.5 and own[:, 4].mean() < -0.5


def test_candidates_have_per_move_variations_and_priors() -> None:
    player = SearchPlayer(
        search.UniformEvaluator(), search.SearchConfig(num_simulations=60), seed=1
    )
    board = goboard.Board(5)
    result = player.genmove(board)
    cands = player.candidates(result)
    assert cands and all(isinstance(c, Candidate) for c in cands)
    assert [c.visits for c in cands] == sorted((c.visits for c in cands), reverse=True)
    assert sum(c.visits for c in cands) == int(result.visits.sum())
    legal = len(board.legal_moves())
    for c in cands:
        assert c.pv[0] == c.move
        assert c.prior == pytest.approx(1.0 / legal)
        assert 0.0 <= c.lcb <= c.winrate <= 1.0
    assert cands[0].pv == result.pv[: len(cands[0].pv)]
    plain = candidates_from_result(result)
    assert [c.move for c in plain] == [c.move for c in cands]


def test_the_move_played_leads_the_candidates_it_ties_with() -> None:
    """GUIs show the first candidate as the engine's move: among equal visits the
    move the search chose comes first, however the points are numbered."""
    visits = np.zeros(26, dtype=np.int64)
    visits[[3, 7, 9]] = [4, 4, 6]
    result = search.SearchResult(
        visits=visits, q=np.zeros(26), pi=visits / visits.sum(), move=7, value=0.0,
        pv=[9], num_simulations=14,
    )  # fmt: skip
    assert [c.move for c in candidates_from_result(result)] == [9, 7, 3]
    result = dataclasses.replace(result, move=9)
    assert [c.move for c in candidates_from_result(result)] == [9, 3, 7]


def _result_choosing(move: int, size: int) -> search.SearchResult:
    visits = np.zeros(size * size + 1, dtype=np.int64)
    visits[move] = 10
    visits[3] = 4  # the best other move
    return search.SearchResult(
        visits=visits,
        q=np.zeros(size * size + 1),
        pi=visits / visits.sum(),
        move=move,
        value=0.0,
        pv=[move],
        num_simulations=14,
    )


def test_no_pass_while_the_game_is_open() -> None:
    from alphago.player import pass_rules

    board = goboard.Board(5)
    board.play(12)
    assert pass_rules(board, _result_choosing(25, 5)).move == 3
    board.play(25)  # the opponent passed: passing back ends the game, allowed
    assert pass_rules(board, _result_choosing(25, 5)).move == 25


def test_pass_allowed_when_only_own_eyes_remain() -> None:
    from alphago.player import pass_rules

    stones = np.ones((5, 5), dtype=np.int8)
    for point in (0, 12, 24):
        stones.flat[point] = 0  # three true eyes of black, which is to move
    board = goboard.Board.from_stones(stones, to_play=goboard.BLACK)
    assert pass_rules(board, _result_choosing(25, 5)).move == 25


class FailsOnce(search.UniformEvaluator):
    """Uniform priors, raising on its ``fail_on``-th call (counted from 1)."""

    def __init__(self, fail_on: int) -> None:
        super().__init__()
        self.calls = 0
        self.fail_on = fail_on

    def evaluate(self, positions: search.Positions) -> search.evaluator.Output:
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("the network fell over")
        return super().evaluate(positions)


def test_a_search_that_raises_leaves_the_player_ready_for_the_next() -> None:
    config = search.SearchConfig(num_simulations=40, leaves_per_batch=4)
    player = SearchPlayer(FailsOnce(fail_on=3), config)
    board = goboard.Board(5)
    with pytest.raises(RuntimeError, match="fell over"):
        player.genmove(board)  # virtual loss is on the tree when it raises
    result = player.genmove(board)  # the same position: a fresh tree, not that one
    assert int(result.visits.sum()) == result.num_simulations == 40
