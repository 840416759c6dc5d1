"""``early_stop``: a search at temperature 0 ends once its move is decided.

A search with the switch on is the same search cut short: the same walks in the same
order up to the step where the most visited root move leads every other by more than
the simulations left. So its move is the full search's, its visits are a snapshot of
the full search's, and one simulation fewer would not yet have been decided.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from search_helpers import FakeEvaluator, random_move

import goboard
import search
from search import _engine
from search.mcts import PUCT, UCT, AlphaGo2016


class Dominant:
    """Priors of 0.9 on one point (spread over the rest), values 0: PUCT's visits
    pile onto that point, so the move is decided long before the budget."""

    def __init__(self, point: int) -> None:
        self.point = point

    def evaluate(self, positions: search.Positions) -> tuple[np.ndarray, np.ndarray]:
        n = len(positions)
        a = positions.pool.size**2 + 1
        priors = np.full((n, a), 0.1 / (a - 1), dtype=np.float32)
        priors[:, self.point] = 0.9
        return priors, np.zeros(n, dtype=np.float32)


def position(seed: int, size: int = 7) -> goboard.Board:
    rng = np.random.default_rng(seed)
    board = goboard.Board(size, 7.5, "chinese")
    for _ in range(int(rng.integers(0, 14))):
        board.play(random_move(board, rng))
    return board


def searcher(kind: str, board: goboard.Board, early: bool, sims: int) -> search.MCTS:
    if kind == "uct":
        return UCT(board, search.UCTConfig(num_simulations=sims, early_stop=early), 5)
    if kind == "alphago2016":
        cfg16 = search.AlphaGo2016Config(
            num_simulations=sims, early_stop=early, leaves_per_batch=4
        )
        return AlphaGo2016(FakeEvaluator(), board, cfg16, 5)
    batch = 8 if kind == "puct-batch" else 1
    cfg = search.SearchConfig(
        num_simulations=sims, early_stop=early, leaves_per_batch=batch
    )
    return PUCT(FakeEvaluator(), board, cfg, 5)


def lead(result: search.SearchResult) -> int:
    top = np.sort(result.visits)[-2:]
    return int(top[1] - top[0])


@pytest.mark.parametrize("kind", ["puct", "puct-batch", "uct", "alphago2016"])
@pytest.mark.parametrize("seed", range(10))
def test_the_move_is_the_full_searchs(kind: str, seed: int) -> None:
    board, budget = position(seed), 300
    full = searcher(kind, board, False, budget).search()
    early = searcher(kind, board, True, budget).search()
    assert full.num_simulations == budget
    assert early.move == full.move
    # The same walks, cut short: every child has at most the full search's visits.
    assert (early.visits <= full.visits).all()
    if early.num_simulations < budget:
        assert lead(early) > budget - early.num_simulations


@pytest.mark.parametrize(("kind", "seed"), [("puct", 6), ("uct", 0)])
def test_it_stops_at_the_first_decided_simulation(kind: str, seed: int) -> None:
    # One leaf per step: the check runs after every simulation, so the search that
    # stopped after s was not decided after s - 1 (a fresh search of s - 1 walks the
    # same path, the switch off).
    board, budget = position(seed), 300
    early = searcher(kind, board, True, budget).search()
    s = early.num_simulations
    assert s < budget  # on these positions the leader pulls away
    before = searcher(kind, board, False, s - 1).search()
    assert lead(before) <= budget - (s - 1)


def test_a_one_sided_search_ends_early_and_the_switch_off_spends_it_all() -> None:
    board = goboard.Board(9, 7.5, "chinese")
    cfg = search.SearchConfig(num_simulations=800, leaves_per_batch=16)
    off = PUCT(Dominant(40), board, cfg, 1).search()
    on = PUCT(
        Dominant(40), board, dataclasses.replace(cfg, early_stop=True), 1
    ).search()
    assert off.num_simulations == 800
    assert on.move == off.move == 40
    assert on.num_simulations < 500
    assert lead(on) > 800 - on.num_simulations


def test_a_leading_pass_never_decides() -> None:
    # Players replace a pass by the most visited other move (alphago.player), so
    # the runners-up's visits matter while pass leads.
    board = goboard.Board(9, 7.5, "chinese")
    board.play(81)  # Black passes: White's pass now ends the game, won by komi
    cfg = search.SearchConfig(num_simulations=400, leaves_per_batch=8, early_stop=True)
    result = PUCT(Dominant(81), board, cfg, 1).search()
    assert result.move == 81 and result.num_simulations == 400


def test_a_sampled_move_spends_the_whole_budget() -> None:
    # Above temperature 0 every visit shapes the distribution the move is drawn from.
    board = goboard.Board(9, 7.5, "chinese")
    cfg = search.SearchConfig(num_simulations=300, early_stop=True, temperature=1.0)
    assert PUCT(Dominant(40), board, cfg, 1).search().num_simulations == 300
    greedy = dataclasses.replace(cfg, temperature=0.0)
    mcts = PUCT(Dominant(40), board, greedy, 1)
    assert mcts.search(temperature=1.0).num_simulations == 300
    assert mcts.search().num_simulations < 300


def test_several_games_stop_one_by_one() -> None:
    # In lock-step, a decided game leaves the step loop and the others go on.
    boards = [goboard.Board(9, 7.5, "chinese"), position(4, size=9)]
    cfg = search.SearchConfig(num_simulations=400, early_stop=True, leaves_per_batch=8)
    both = PUCT(Dominant(40), boards, cfg, [1, 2]).run()
    alone = [
        PUCT(Dominant(40), b, cfg, s).search()
        for b, s in zip(boards, [1, 2], strict=True)
    ]
    for r, a in zip(both, alone, strict=True):
        assert r.move == a.move and r.num_simulations == a.num_simulations
        assert (r.visits == a.visits).all()


class Clock:
    """A monotonic clock that advances one millisecond per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.001
        return self.now


def test_under_a_time_limit_the_pace_bounds_what_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A budget far beyond the time: only the pace so far can say the move is decided.
    clock = Clock()
    monkeypatch.setattr(_engine, "time", clock)
    board = goboard.Board(9, 7.5, "chinese")
    cfg = search.SearchConfig(
        num_simulations=10**6, max_nodes=20_000, time_limit=1.0, leaves_per_batch=8
    )
    off = PUCT(Dominant(40), board, cfg, 1).search()
    start = clock.now
    on = PUCT(
        Dominant(40), board, dataclasses.replace(cfg, early_stop=True), 1
    ).search()
    assert on.move == off.move == 40
    assert on.num_simulations < off.num_simulations
    assert clock.now - start < 0.9  # it ended before the deadline


def test_the_switch_is_validated() -> None:
    with pytest.raises(TypeError, match="early_stop"):
        search.SearchConfig(early_stop=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="early_stop does not apply to Gumbel"):
        search.GumbelConfig(early_stop=True)
    assert not search.SearchConfig().early_stop  # off unless asked for
