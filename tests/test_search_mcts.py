"""The search engine: bookkeeping, legality, rules scoring, batching, reuse, limits."""

from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest
from search_helpers import FakeEvaluator, reference_puct

import goboard
from goboard.text import parse_board
from search import (
    MCTS,
    PUCT,
    UCT,
    AlphaGo2016,
    AlphaGo2016Config,
    CachedEvaluator,
    Positions,
    SearchConfig,
    SearchResult,
    UCTConfig,
    UniformEvaluator,
    run_search,
)


class ConstantEvaluator:
    """Uniform priors; every position is worth ``black_value`` to Black."""

    def __init__(self, black_value: float) -> None:
        self.black_value = black_value
        self.positions = 0

    def evaluate(self, positions: Positions) -> tuple[np.ndarray, np.ndarray]:
        self.positions += len(positions)
        priors, _ = UniformEvaluator().evaluate(positions)
        to_play = positions.pool.to_play(positions.slots)
        return priors, (self.black_value * to_play).astype(np.float32)


def _all_edges_legal(s: MCTS, game: int = 0) -> int:
    """Check every created edge against the rules at its parent (superko along the
    path included); returns the number of edges."""
    t, m = s.tree, s.tree.capacity
    edges = 0
    for node in range(int(t.num_nodes[game])):
        kids = np.flatnonzero(t.children[game, node] >= 0)
        if kids.size == 0:
            continue
        board = s.pool.board(game * m + node)
        legal = board.legal_mask()
        assert legal[kids].all(), f"illegal child move under node {node}"
        edges += kids.size
    return edges


@pytest.mark.parametrize("leaves", [1, 3, 8])
@pytest.mark.parametrize(
    "make",
    [
        lambda cfg, b: PUCT(FakeEvaluator(), b, cfg, rng=1),
        lambda cfg, b: AlphaGo2016(
            FakeEvaluator(),
            b,
            AlphaGo2016Config(
                num_simulations=cfg.num_simulations,
                leaves_per_batch=cfg.leaves_per_batch,
                expansion_threshold=3,
                mix_lambda=0.5,
            ),
            rng=1,
        ),
        lambda cfg, b: UCT(
            b,
            UCTConfig(
                num_simulations=cfg.num_simulations,
                leaves_per_batch=cfg.leaves_per_batch,
            ),
            rng=1,
        ),
    ],
    ids=["puct", "ag2016", "uct"],
)
def test_visits_sum_to_simulations_and_no_virtual_loss_left(make, leaves: int) -> None:  # type: ignore[no-untyped-def]
    board = goboard.Board(7, komi=0.5)
    cfg = SearchConfig(num_simulations=150, leaves_per_batch=leaves, virtual_loss=2)
    s = make(cfg, board)
    result = s.search()
    assert result.num_simulations == 150
    assert result.visits.sum() == 150
    assert s.tree.visits[0, 0] == 151  # plus the root's own evaluation
    assert not s.tree.virtual.any()
    s.check()
    assert _all_edges_legal(s) > 0


def test_engine_matches_reference_puct() -> None:
    # A slow reference (one Board per node, scalar loops) picks the same moves.
    for size, sims, fpu in [(5, 120, 0.25), (4, 200, 0.0), (3, 150, 0.1)]:
        board = goboard.Board(size, komi=0.5)
        ref = reference_puct(board, sims, 1.5, fpu)
        cfg = SearchConfig(num_simulations=sims, c_puct=1.5, fpu_reduction=fpu)
        s = PUCT(FakeEvaluator(), board, cfg, rng=0)
        result = s.search()
        expected = np.zeros(size * size + 1)
        q = np.full(size * size + 1, np.nan)
        for a, child in ref.children.items():
            expected[a] = child.n
            q[a] = child.w / child.n
        np.testing.assert_array_equal(result.visits, expected)
        np.testing.assert_allclose(result.q, q, rtol=1e-9)
        assert result.value == pytest.approx(-ref.w / ref.n)


def _superko_position(size: int, seed: int) -> tuple[goboard.Board, int]:
    """A position (with its game record) where an empty point is forbidden by
    positional superko alone."""
    rng = np.random.default_rng(seed)
    for _ in range(500):
        board = goboard.Board(size, komi=0.5)
        for _ in range(60):
            if board.is_over:
                break
            empty = np.flatnonzero(board.stones().reshape(-1) == 0)
            for point in empty.tolist():
                if board.is_legal(point):
                    continue
                try:
                    board.copy().play(point)
                except goboard.IllegalMoveError as err:
                    if err.reason == "superko":
                        return board, point
            board.play(int(rng.choice(board.legal_moves())))
    raise AssertionError("no superko position found")


@pytest.mark.parametrize("size", [2, 3])
def test_never_selects_illegal_moves_near_superko(size: int) -> None:
    board, forbidden = _superko_position(size, seed=size)
    assert not board.is_legal(forbidden)
    for make in (
        lambda: PUCT(
            UniformEvaluator(),
            board,
            SearchConfig(num_simulations=400, fpu_reduction=0.0, leaves_per_batch=4),
            rng=2,
        ),
        lambda: UCT(board, UCTConfig(num_simulations=400), rng=2),
    ):
        s = make()
        result = s.search()
        assert result.visits[forbidden] == 0
        assert result.move != forbidden and board.is_legal(result.move)
        assert np.isnan(result.q[forbidden])
        _all_edges_legal(s)
        s.check()


def test_terminal_positions_are_scored_by_the_rules() -> None:
    # White just passed; Black owns the board. Passing ends the game with a Black
    # win, although the evaluator claims every position is lost for Black.
    board = parse_board(
        """
        . X . X .
        X X X X X
        . X . X .
        . X . X .
        . X . X .
        """,
        to_play=goboard.WHITE,
        komi=0.5,
    )
    board.play(25)  # White passes: Black to move, a pass ends the game.
    evaluator = ConstantEvaluator(black_value=-1.0)
    s = PUCT(evaluator, board, SearchConfig(num_simulations=60), rng=0)
    result = s.search()
    assert result.move == 25
    assert result.q[25] == 1.0
    pass_node = int(s.tree.children[0, 0, 25])
    assert s.tree.state[0, pass_node] == 2  # TERMINAL
    # Terminal nodes never reach the evaluator: it saw every other node once.
    used = int(s.tree.num_nodes[0])
    assert evaluator.positions == int((s.tree.state[0, :used] != 2).sum())


def test_batched_equals_single_for_the_same_seeds() -> None:
    boards = [goboard.Board(7, komi=0.5) for _ in range(4)]
    boards[1].play(24)
    boards[2].play(10)
    boards[2].play(30)
    cfg = SearchConfig(
        num_simulations=120,
        leaves_per_batch=4,
        dirichlet_fraction=0.25,
        dirichlet_alpha=0.3,
        temperature=1.0,
    )
    seeds = [11, 12, 13, 14]
    batched = PUCT(FakeEvaluator(), boards, cfg, rng=seeds).run()
    for g, board in enumerate(boards):
        single = PUCT(FakeEvaluator(), board, cfg, rng=seeds[g]).search()
        np.testing.assert_array_equal(batched[g].visits, single.visits)
        np.testing.assert_array_equal(batched[g].q, single.q)
        assert batched[g].move == single.move and batched[g].pv == single.pv
    # A subset of games, the others untouched.
    s = PUCT(FakeEvaluator(), boards, cfg, rng=seeds)
    part = s.run(games=[2, 0])
    assert [r.visits.sum() for r in part] == [120, 120]
    assert s.tree.visits[1, 0] == 0 and s.tree.visits[3, 0] == 0
    np.testing.assert_array_equal(
        part[1].visits, PUCT(FakeEvaluator(), boards[0], cfg, rng=11).search().visits
    )


def test_per_game_budgets_and_root_noise() -> None:
    boards = [goboard.Board(7, komi=0.5) for _ in range(3)]
    boards[1].play(24)
    cfg = SearchConfig(
        num_simulations=40,
        leaves_per_batch=4,
        dirichlet_fraction=0.25,
        dirichlet_alpha=0.3,
        temperature=1.0,
    )
    plain = dataclasses.replace(cfg, dirichlet_fraction=0.0)
    seeds = [11, 12, 13]
    budgets, noise = [5, 40, 17], [True, False, True]
    s = PUCT(FakeEvaluator(), boards, cfg, rng=seeds)
    results = s.run(simulations=np.array(budgets), root_noise=noise)
    assert [r.num_simulations for r in results] == budgets
    assert [int(r.visits.sum()) for r in results] == budgets
    # Each game as if searched alone with its budget (and, without noise, as with a
    # noiseless config: no noise is drawn from its stream).
    for g, board in enumerate(boards):
        alone = dataclasses.replace(
            cfg if noise[g] else plain, num_simulations=budgets[g]
        )
        single = PUCT(FakeEvaluator(), board, alone, rng=seeds[g]).search()
        np.testing.assert_array_equal(results[g].visits, single.visits)
        assert results[g].move == single.move
    # Given in full, the defaults change nothing.
    default = PUCT(FakeEvaluator(), boards, cfg, rng=seeds).run()
    given = PUCT(FakeEvaluator(), boards, cfg, rng=seeds).run(
        simulations=[40] * 3, root_noise=[True] * 3
    )
    for a, b in zip(default, given, strict=True):
        np.testing.assert_array_equal(a.visits, b.visits)
        assert a.move == b.move
    # A root searched again without noise gets its clean priors back.
    s.run([0], root_noise=[False])
    clean = PUCT(FakeEvaluator(), boards[0], plain)
    clean.search()
    np.testing.assert_array_equal(s.tree.prior[0, 0], clean.tree.prior[0, 0])
    with pytest.raises(ValueError, match="simulations has 2 entries for 3 games"):
        s.run(simulations=[4, 4])
    with pytest.raises(ValueError, match="simulations must be >= 1"):
        s.run([1, 2], simulations=[4, 0])
    with pytest.raises(TypeError, match="simulations"):
        s.run([0], simulations=[2.5])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="root_noise"):
        s.run([0], root_noise=[1])  # type: ignore[list-item]


def test_one_evaluator_call_per_step_for_all_games() -> None:
    boards = [goboard.Board(5) for _ in range(6)]
    evaluator = FakeEvaluator()
    s = PUCT(evaluator, boards, SearchConfig(num_simulations=20), rng=0)
    s.run()
    # All roots in one call, then one call per step serving every game.
    assert evaluator.calls == 1 + 20
    evaluated = sum(
        int((s.tree.state[g, : int(s.tree.num_nodes[g])] != 2).sum()) for g in range(6)
    )
    assert evaluator.positions == evaluated == 6 * 21


def test_tree_reuse_keeps_the_subtree() -> None:
    board = goboard.Board(5, komi=0.5)
    s = PUCT(FakeEvaluator(), board, SearchConfig(num_simulations=200), rng=0)
    first = s.search()
    move = first.move
    child = int(s.tree.children[0, 0, move])
    child_visits = s.tree.visits[0, child]
    grand_visits, grand_sums = s.tree.child_stats(0, child)
    s.advance(move)
    assert s.tree.visits[0, 0] == child_visits
    visits, sums = s.tree.child_stats(0, 0)
    np.testing.assert_array_equal(visits, grand_visits)
    np.testing.assert_array_equal(sums, grand_sums)
    expected = board.copy()
    expected.play(move)
    assert s.root_board() == expected
    s.check()
    second = s.search()
    assert second.num_simulations == 200
    assert second.visits.sum() == grand_visits.sum() + 200
    s.check()
    _all_edges_legal(s)


def test_advance_to_an_unexplored_move_starts_afresh() -> None:
    s = PUCT(FakeEvaluator(), goboard.Board(5), SearchConfig(num_simulations=10), rng=0)
    result = s.search()
    unexplored = int(np.flatnonzero(result.visits == 0)[0])
    s.advance(unexplored)
    assert s.tree.num_nodes[0] == 1 and s.tree.visits[0, 0] == 0
    assert s.search().visits.sum() == 10
    with pytest.raises(ValueError):
        s.advance(26)
    occupied = unexplored
    with pytest.raises(goboard.IllegalMoveError):
        s.advance(occupied)


def test_set_root_replaces_a_game() -> None:
    boards = [goboard.Board(5), goboard.Board(5)]
    s = PUCT(FakeEvaluator(), boards, SearchConfig(num_simulations=30), rng=[1, 2])
    s.run()
    fresh = goboard.Board(5)
    fresh.play(12)
    s.set_root(fresh, game=1)
    assert s.tree.num_nodes[1] == 1 and s.root_board(1) == fresh
    assert s.tree.num_nodes[0] > 1
    results = s.run(games=[1])
    assert results[0].visits[12] == 0 and results[0].visits.sum() == 30


def test_full_tree_stops_the_search() -> None:
    cfg = SearchConfig(num_simulations=500, max_nodes=40)
    s = PUCT(FakeEvaluator(), goboard.Board(5), cfg, rng=0)
    result = s.search()
    assert s.tree.num_nodes[0] == 40
    assert result.num_simulations == result.visits.sum() < 500
    s.check()


def test_time_limit() -> None:
    cfg = SearchConfig(num_simulations=10**6, time_limit=0.05)
    s = PUCT(UniformEvaluator(), goboard.Board(9), cfg, rng=0)
    start = time.monotonic()
    result = s.search()
    assert time.monotonic() - start < 1.0
    assert 0 < result.num_simulations < 10**6
    assert result.elapsed >= 0.05


def test_stop_from_another_thread() -> None:
    cfg = SearchConfig(num_simulations=10**6)
    s = PUCT(UniformEvaluator(), goboard.Board(9), cfg, rng=0)
    out: list[SearchResult] = []
    thread = threading.Thread(target=lambda: out.append(s.search()))
    thread.start()
    time.sleep(0.1)
    s.stop()
    thread.join(timeout=5.0)
    assert not thread.is_alive()
    assert 0 < out[0].num_simulations < 10**6
    event = threading.Event()
    event.set()
    assert s.run(stop_event=event)[0].num_simulations == 0


def test_callback_streams_results() -> None:
    seen: list[tuple[int, int]] = []
    cfg = SearchConfig(num_simulations=100)
    s = PUCT(FakeEvaluator(), goboard.Board(5), cfg, rng=0)
    final = s.search(
        callback=lambda rs: seen.append(
            (rs[0].num_simulations, int(rs[0].visits.sum()))
        ),
        every=25,
    )
    assert [n for n, _ in seen] == [25, 50, 75]
    assert all(n == v for n, v in seen)
    assert final.num_simulations == 100
    ticks: list[int] = []
    s.search(callback=lambda rs: ticks.append(1), every_seconds=0.0)
    assert len(ticks) == 100  # before every step


def test_resignation_threshold() -> None:
    lost_for_white = goboard.Board(5)
    lost_for_white.play(12)  # White to move
    cfg = SearchConfig(num_simulations=40, resign_threshold=-0.8)
    result = PUCT(ConstantEvaluator(0.95), lost_for_white, cfg, rng=0).search()
    assert result.value < -0.8 and result.resign
    black = goboard.Board(5)
    assert not PUCT(ConstantEvaluator(0.95), black, cfg, rng=0).search().resign
    never = SearchConfig(num_simulations=40)
    assert (
        not PUCT(ConstantEvaluator(0.95), lost_for_white, never, rng=0).search().resign
    )


def test_dirichlet_noise_changes_the_search_reproducibly() -> None:
    board = goboard.Board(5)
    plain = SearchConfig(num_simulations=100)
    noisy = SearchConfig(
        num_simulations=100, dirichlet_fraction=0.5, dirichlet_alpha=0.3
    )
    base = PUCT(FakeEvaluator(), board, plain, rng=0).search().visits
    a = PUCT(FakeEvaluator(), board, noisy, rng=0).search().visits
    b = PUCT(FakeEvaluator(), board, noisy, rng=0).search().visits
    c = PUCT(FakeEvaluator(), board, noisy, rng=1).search().visits
    assert np.array_equal(a, b)
    assert not np.array_equal(a, base) and not np.array_equal(a, c)
    # Running again on the same root re-draws the noise from the clean priors.
    s = PUCT(FakeEvaluator(), board, noisy, rng=0)
    s.search()
    clean = s._noise_saved[0]
    assert clean is not None
    np.testing.assert_allclose(
        np.nansum(np.where(np.isfinite(clean), clean, 0)), 1.0, rtol=1e-5
    )


def test_cached_evaluator_gives_the_same_search() -> None:
    board = goboard.Board(5)
    cfg = SearchConfig(num_simulations=150)
    plain = PUCT(FakeEvaluator(), board, cfg, rng=0).search()
    cache = CachedEvaluator(FakeEvaluator())
    cached = PUCT(cache, board, cfg, rng=0).search()
    np.testing.assert_array_equal(plain.visits, cached.visits)
    assert cache.hits == 0 and cache.misses == 151
    again = PUCT(cache, board, cfg, rng=0).search()
    np.testing.assert_array_equal(again.visits, plain.visits)
    assert cache.hits == 151


def test_run_search_and_argument_errors() -> None:
    board = goboard.Board(5)
    assert run_search(board, config=SearchConfig(num_simulations=8)).visits.sum() == 8
    assert run_search(board, config=UCTConfig(num_simulations=8)).visits.sum() == 8
    cfg = AlphaGo2016Config(num_simulations=8)
    assert run_search(board, FakeEvaluator(), cfg).visits.sum() == 8
    with pytest.raises(TypeError):
        PUCT(FakeEvaluator(), board, UCTConfig())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PUCT(FakeEvaluator(), [], SearchConfig())
    with pytest.raises(ValueError):
        PUCT(FakeEvaluator(), [board, board], SearchConfig(), rng=[1])
    s = PUCT(FakeEvaluator(), [board, board], SearchConfig(num_simulations=4))
    with pytest.raises(ValueError):
        s.run(games=[0, 0])
    with pytest.raises(ValueError):
        s.run(games=[2])
    with pytest.raises(ValueError):
        s.search()  # two games
    over = goboard.Board(5)
    over.play(25)
    over.play(25)
    with pytest.raises(ValueError, match="over"):
        PUCT(FakeEvaluator(), over, SearchConfig()).search()


def test_one_seed_for_many_games_gives_distinct_reproducible_streams() -> None:
    boards = [goboard.Board(5) for _ in range(3)]
    cfg = SearchConfig(num_simulations=60, dirichlet_fraction=0.5, dirichlet_alpha=0.3)

    def visits(rng: int | np.random.Generator) -> list[list[int]]:
        return [
            r.visits.tolist() for r in PUCT(FakeEvaluator(), boards, cfg, rng).run()
        ]

    first = visits(5)
    assert first == visits(5)
    assert first[0] != first[1] != first[2]  # each game its own noise
    assert visits(np.random.default_rng(5)) == visits(np.random.default_rng(5))
    with pytest.raises(TypeError):
        PUCT(FakeEvaluator(), boards, cfg, rng="5")  # type: ignore[arg-type]


class FailsOnCall(FakeEvaluator):
    """The fake evaluator, raising on its ``fail_on``-th call (counted from 1)."""

    def __init__(self, fail_on: int) -> None:
        super().__init__()
        self.fail_on = fail_on

    def evaluate(self, positions: Positions) -> tuple[np.ndarray, np.ndarray]:
        if self.calls + 1 == self.fail_on:
            self.calls += 1
            raise RuntimeError("the network fell over")
        return super().evaluate(positions)


def test_a_step_that_raises_leaves_its_trees_refused_until_set_root() -> None:
    # Leaf batches: the failing step has added virtual loss along its walks and
    # marked its leaves pending, and nothing takes them back.
    cfg = SearchConfig(num_simulations=48, leaves_per_batch=4, dirichlet_fraction=0.0)
    boards = [goboard.Board(5), goboard.Board(5)]
    boards[1].play(12)
    ev = FailsOnCall(fail_on=4)  # the roots' call, two steps, then the failure
    mcts = PUCT(ev, boards, cfg, rng=0)
    with pytest.raises(RuntimeError, match="fell over"):
        mcts.run([1])
    mcts.check(0)  # a game that was not searched keeps a sound tree
    with pytest.raises(AssertionError, match="virtual loss"):
        mcts.check(1)  # what the refusals below protect against
    refused = "game 1's tree was left half-updated"
    for again in (mcts.run, lambda: mcts.run([1]), lambda: mcts.advance(7, 1)):
        with pytest.raises(RuntimeError, match=refused):
            again()
    assert mcts.run([0])[0].num_simulations == 48  # the other game searches on
    mcts.set_root(boards[1], 1)
    result = mcts.run([1])[0]
    mcts.check(1)
    assert result.num_simulations == 48
    assert int(result.visits.sum()) == 48  # no leaf is stuck as pending
