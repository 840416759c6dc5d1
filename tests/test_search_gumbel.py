"""Gumbel search: its formulas by hand, sequential halving's schedule on the engine,
the move it plays, lock-step games, and properties on random positions."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from search_helpers import FakeEvaluator, board_output, random_move

import goboard
from search import (
    MCTS,
    Gumbel,
    GumbelConfig,
    MoveFilter,
    Positions,
    SearchConfig,
    UniformEvaluator,
    completed_q,
    halving_phases,
    improved_policy,
    run_search,
    sigma_q,
)
from search.gumbel import log_prior

INF = np.inf
Output = tuple[NDArray[np.float32], NDArray[np.float32]]


class StoneEvaluator:
    """Fixed priors ``prior`` [A] at every node; Black's value is the sum of
    ``weight`` [N*N] over Black's stones (clipped to [-1, 1]), White's stones count
    nothing. So a root move ``a`` of Black is worth ``weight[a]`` to Black at the
    child and at every White reply below it."""

    def __init__(self, prior: NDArray[np.float64], weight: NDArray[np.float64]):
        self.prior = prior.astype(np.float32)
        self.weight = weight
        self.calls = 0

    def evaluate(self, positions: Positions) -> Output:
        self.calls += 1
        pool, slots = positions.pool, positions.slots
        planes = pool.features(slots, "agz17")
        to_play = pool.to_play(slots).astype(np.float64)
        k = len(positions)
        own = planes[:, 0].reshape(k, -1)
        opp = planes[:, 8].reshape(k, -1)
        black = np.where(to_play[:, None] > 0, own, opp)
        value = np.clip(black @ self.weight, -1.0, 1.0) * to_play
        priors = np.broadcast_to(self.prior, (k, self.prior.size)).copy()
        return priors, value.astype(np.float32)


def _noise(seed: int, actions: int) -> NDArray[np.float64]:
    """The Gumbel draw a single-game search seeded with ``seed`` makes first."""
    return np.random.default_rng(seed).gumbel(size=actions)


# -- formulas ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "m", "phases"),
    [
        (48, 16, [(16, 1), (8, 1), (4, 3), (2, 6)]),
        (100, 16, [(16, 1), (8, 3), (4, 6), (2, 12)]),
        (10, 5, [(5, 1), (3, 1), (2, 1)]),  # halves round up: 5, 3, 2
        (4, 16, [(16, 1), (8, 1), (4, 1), (2, 1)]),  # at least one visit each
        (7, 2, [(2, 3)]),
        (9, 1, [(1, 9)]),
        (200, 3, [(3, 33), (2, 50)]),
    ],
)
def test_halving_phases_by_hand(n: int, m: int, phases: list[tuple[int, int]]) -> None:
    assert halving_phases(n, m) == phases


def test_completed_q_and_v_mix_by_hand() -> None:
    prior = np.array([[0.5, 0.3, 0.2, -INF], [0.25, 0.25, 0.5, -INF]])
    visits = np.array([[2.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    q = np.array([[0.5, -0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    value = np.array([0.1, -0.3])
    cq = completed_q(prior, visits, q, value)
    # Row 0: sum N = 3; visited prior mass 0.8, sum pi q = 0.25 - 0.15 = 0.1, so the
    # prior-weighted Q is 0.125 and v_mix = (0.1 + 3 * 0.125) / 4 = 0.11875.
    np.testing.assert_allclose(cq[0, :3], [0.5, -0.5, 0.11875], rtol=1e-12)
    # Row 1: nothing visited: v_mix is the network's value.
    np.testing.assert_allclose(cq[1, :3], [-0.3, -0.3, -0.3], rtol=1e-12)


def test_sigma_by_hand() -> None:
    q = np.array([[1.0, -1.0, 0.0]])
    visits = np.array([[3.0, 0.0, 1.0]])
    # (c_visit + max N) * c_scale * (q + 1) / 2 = 53 * [1, 0, 0.5].
    np.testing.assert_allclose(sigma_q(q, visits, 50.0, 1.0)[0], [53.0, 0.0, 26.5])
    np.testing.assert_allclose(sigma_q(q, visits, 10.0, 0.5)[0], [6.5, 0.0, 3.25])


def test_improved_policy_by_hand() -> None:
    prior = np.array([[0.5, 0.5, -INF], [0.7, 0.3, -INF]], dtype=np.float32)
    visits = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    q = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    value = np.array([0.0, 0.4])
    pi = improved_policy(prior, visits, q, value, 1.0, 1.0)
    # Row 0: completed Q = [1, v_mix = (0 + 1 * 1) / 2]; sigma = (1 + 1) * [1, 0.75];
    # equal logits, so pi' = softmax([2, 1.5]).
    first = 1.0 / (1.0 + math.exp(-0.5))
    np.testing.assert_allclose(pi[0], [first, 1.0 - first, 0.0], rtol=1e-12)
    # Row 1: nothing visited: the prior.
    np.testing.assert_allclose(pi[1], [0.7, 0.3, 0.0], rtol=1e-6)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0)


def test_log_prior_keeps_zero_priors_legal() -> None:
    logits = log_prior(np.array([[0.5, 0.0, -INF]], dtype=np.float32))
    assert logits[0, 0] == pytest.approx(math.log(0.5))
    assert np.isfinite(logits[0, 1]) and logits[0, 1] < -80
    assert logits[0, 2] == -INF


# -- the engine ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "m", "by_rank"),
    [
        (1, 16, [1] + [0] * 15),
        (3, 16, [1, 1, 1] + [0] * 13),
        (16, 16, [1] * 16),
        # 16 x 1, 8 x 1, 4 x 3, then the last 12 shared by two.
        (48, 16, [11, 11, 5, 5, 2, 2, 2, 2] + [1] * 8),
        # 5 x 1, 3 x 1, then two left for two.
        (10, 5, [3, 3, 2, 1, 1]),
        (7, 2, [4, 3]),  # one phase; the odd visit to the better move
        (20, 4, [8, 8, 2, 2]),  # 4 x 2 (floor(20 / 8)), then 12 for the last two
        (6, 1, [6]),
    ],
)
@pytest.mark.parametrize("leaves", [1, 4])
def test_halving_schedule_on_the_engine(
    n: int, m: int, by_rank: list[int], leaves: int
) -> None:
    # Uniform priors and value 0 everywhere (komi 0: a pass-pass leaf is a draw), so
    # every Q is 0, sigma is the same for every move, and the halving keeps the best
    # by the Gumbel noise alone.
    board = goboard.Board(5, komi=0.0)
    seed = 100 + n + m
    cfg = GumbelConfig(num_simulations=n, considered_actions=m, leaves_per_batch=leaves)
    s = Gumbel(UniformEvaluator(), board, cfg, rng=seed)
    result = s.search()
    s.check()
    ranked = np.argsort(-_noise(seed, 26), kind="stable")
    np.testing.assert_array_equal(result.visits[ranked[:m]], by_rank)
    assert result.visits.sum() == n == result.num_simulations
    assert result.move == ranked[0]


def test_one_simulation_plays_argmax_of_noise_plus_logits() -> None:
    board = goboard.Board(7, komi=0.5)
    board.play(24)
    prior, _ = board_output(board)
    legal = board.legal_mask()
    logits = np.where(legal, np.log(prior / prior[legal].sum()), -INF)
    cfg = GumbelConfig(num_simulations=1)
    moves = []
    for seed in range(12):
        result = Gumbel(FakeEvaluator(), board, cfg, rng=seed).search()
        expected = int(np.argmax(logits + _noise(seed, 50)))
        assert result.move == expected
        assert result.visits[expected] == 1
        moves.append(result.move)
    # The noise matters: the moves are not all the prior's favourite.
    assert len(set(moves)) > 1


def test_one_simulation_keeps_its_move_when_the_visit_disappoints() -> None:
    # The prior's favourite (noise off) loses badly when visited; the moves never
    # visited look better by completed Q, but with one simulation the halving never
    # compared them: the one visited move is played.
    prior = np.full(26, 0.5 / 25)
    prior[12] = 0.5
    weight = np.zeros(25)
    weight[12] = -0.9
    cfg = GumbelConfig(num_simulations=1, gumbel_scale=0.0)
    result = Gumbel(
        StoneEvaluator(prior, weight), goboard.Board(5), cfg, rng=0
    ).search()
    assert result.move == 12 and result.q[12] == pytest.approx(-0.9)
    assert int(np.argmax(result.pi)) != 12


def _winning_setup() -> tuple[StoneEvaluator, int, int]:
    """5x5: the prior puts 0.4 on point 12, 0.1 on point 6, the rest spread; only a
    Black stone on 6 is worth anything (0.9)."""
    prior = np.full(26, 0.5 / 24)
    favourite, winner = 12, 6
    prior[favourite], prior[winner] = 0.4, 0.1
    weight = np.zeros(25)
    weight[winner] = 0.9
    return StoneEvaluator(prior, weight), favourite, winner


@pytest.mark.parametrize("leaves", [1, 8])
def test_finds_the_winning_move_the_prior_dislikes(leaves: int) -> None:
    evaluator, favourite, winner = _winning_setup()
    cfg = GumbelConfig(num_simulations=16, leaves_per_batch=leaves)
    for seed in range(5):
        result = Gumbel(evaluator, goboard.Board(5), cfg, rng=seed).search()
        assert result.move == winner
        assert int(np.argmax(result.improved_policy)) == winner  # type: ignore[arg-type]
        assert result.q[winner] == pytest.approx(0.9)
    # Without the search's Q the prior's favourite would be played.
    one = GumbelConfig(num_simulations=1, gumbel_scale=0.0)
    assert Gumbel(evaluator, goboard.Board(5), one, rng=0).search().move == favourite


class StoneRollouts:
    """A rollout policy whose outcome is StoneEvaluator's value: the stones' weights."""

    def __init__(self, weight: NDArray[np.float64]):
        self.stones = StoneEvaluator(np.ones(weight.size + 1), weight)

    def values(self, positions: Positions) -> NDArray[np.float32]:
        return self.stones.evaluate(positions)[1]


@pytest.mark.parametrize("mix", [0.5, 1.0])
def test_rollouts_mixed_into_the_leaf_values(mix: float) -> None:
    # The network sees nothing (value 0 everywhere) and prefers the favourite; the
    # rollouts see the winner's 0.9, so the mixed search plays the winner with
    # Q = mix * 0.9, and v_hat (completed Q's) is the mixed value too.
    evaluator, favourite, winner = _winning_setup()
    blind = StoneEvaluator(evaluator.prior.astype(np.float64), np.zeros(25))
    rollouts = StoneRollouts(evaluator.weight)
    cfg = GumbelConfig(num_simulations=16, mix_lambda=mix)
    for seed in range(3):
        g = Gumbel(blind, goboard.Board(5), cfg, rng=seed, rollout=rollouts)
        result = g.search()
        assert result.move == winner
        assert result.q[winner] == pytest.approx(mix * 0.9)
        child = g.tree.children[0, 0, winner]  # game 0's root is node 0
        assert g.tree.net_value[0, child] == pytest.approx(-mix * 0.9)  # White's view
    alone = Gumbel(blind, goboard.Board(5), replace(cfg, mix_lambda=0.0), rng=0)
    assert alone.search().q[winner] == 0.0


def test_halving_keeps_the_better_half_by_q() -> None:
    # Four moves, eight simulations: phase one visits each once (Q = its weight),
    # the two best by g + logits + sigma(Q) go on and share the other four.
    # The two moves the noise ranks last among the four are the good ones.
    seed = 4
    noise = _noise(seed, 26)
    considered = np.argsort(-noise, kind="stable")[:4]
    good = sorted(considered[2:].tolist())
    assert 25 not in good  # points, not pass
    weight = np.zeros(25)
    weight[considered[2:]] = [0.5, 0.6]
    evaluator = StoneEvaluator(np.full(26, 1 / 26), weight)
    q = weight[considered]
    score = noise[considered] + 51 * (q + 1) / 2  # equal logits drop out
    survivors = considered[np.argsort(-score, kind="stable")[:2]]
    assert sorted(survivors.tolist()) == good
    cfg = GumbelConfig(num_simulations=8, considered_actions=4)
    result = Gumbel(evaluator, goboard.Board(5), cfg, rng=seed).search()
    assert result.visits[survivors].tolist() == [3, 3]
    assert result.visits.sum() == 8 and (result.visits[considered] >= 1).all()
    # White's replies leave a root move's value alone: Q is the weight; the move is
    # the better of the two by g + logits + sigma(Q), with max N = 3 now.
    np.testing.assert_allclose(result.q[survivors], weight[survivors])
    final = noise[survivors] + 53 * (weight[survivors] + 1) / 2
    assert result.move == survivors[int(np.argmax(final))]


def test_improved_policy_is_the_target_and_legal() -> None:
    board = goboard.Board(5, komi=0.5)
    for m in (3, 12):
        board.play(m)
    cfg = GumbelConfig(num_simulations=30, leaves_per_batch=2)
    s = Gumbel(FakeEvaluator(), board, cfg, rng=1)
    result = s.search()
    policy = result.improved_policy
    assert policy is not None and result.pi is policy
    assert policy.sum() == pytest.approx(1.0)
    legal = board.legal_mask()
    assert (policy[~legal] == 0).all() and (policy[legal] > 0).all()
    # It is the formula on the root's statistics, with the network's root value.
    _, value = board_output(board)
    visits = result.visits.astype(np.float64)[None]
    q = np.nan_to_num(result.q)[None]
    expected = improved_policy(
        s.tree.prior[0, 0][None], visits, q, np.array([value]), 50.0, 1.0
    )[0]
    np.testing.assert_allclose(policy, expected, rtol=1e-6, atol=1e-12)
    # The other searches leave the field empty.
    puct = run_search(board, FakeEvaluator(), SearchConfig(num_simulations=8))
    assert puct.improved_policy is None


def test_selection_below_the_root_by_hand() -> None:
    # A node below the root picks argmax pi'(a) - N(a) / (1 + sum N), pi' from its
    # completed Q and its own network value (recomputed here from the board).
    cfg = GumbelConfig(num_simulations=60, considered_actions=4)
    s = Gumbel(FakeEvaluator(), goboard.Board(5, komi=0.5), cfg, rng=2)
    s.search()
    t = s.tree
    node = int(t.children[0, 0, int(np.argmax(t.edge_n[0, 0]))])
    assert t.visits[0, node] > 3
    board = s.pool.board(node)
    prior, value = board_output(board)
    legal = np.isfinite(t.prior[0, node])
    p = np.where(legal, prior / prior[legal].sum(), -INF)
    kids = t.children[0, node]
    n = np.array([t.visits[0, c] if c >= 0 else 0.0 for c in kids])
    w = np.array([t.value_sums[0, c] if c >= 0 else 0.0 for c in kids])
    q = w / np.maximum(n, 1)
    pi = improved_policy(p[None], n[None], q[None], np.array([value]), 50.0, 1.0)[0]
    expected = np.where(legal, pi - n / (1 + n.sum()), -INF)
    row = np.array([t.flat(0, node)], dtype=np.int32)
    got = s._scores(row, np.array([0], dtype=np.int32))[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def test_same_seed_same_result_and_seeds_differ() -> None:
    board = goboard.Board(7, komi=0.5)
    cfg = GumbelConfig(num_simulations=40, leaves_per_batch=4)

    def search(seed: int) -> tuple[list[int], int, list[float]]:
        r = Gumbel(FakeEvaluator(), board, cfg, rng=seed).search()
        return r.visits.tolist(), r.move, r.pi.tolist()

    assert search(5) == search(5)
    assert search(5)[0] != search(6)[0]


@pytest.mark.parametrize("leaves", [1, 4])
def test_lockstep_games_equal_single_searches(leaves: int) -> None:
    boards = [goboard.Board(7, komi=0.5) for _ in range(4)]
    boards[1].play(24)
    boards[2].play(10)
    boards[2].play(30)
    cfg = GumbelConfig(
        num_simulations=50, leaves_per_batch=leaves, considered_actions=8
    )
    seeds = [21, 22, 23, 24]
    evaluator = FakeEvaluator()
    batched = Gumbel(evaluator, boards, cfg, rng=seeds).run()
    assert evaluator.calls <= 1 + 50  # one call per step serves every game
    for g, board in enumerate(boards):
        single = Gumbel(FakeEvaluator(), board, cfg, rng=seeds[g]).search()
        np.testing.assert_array_equal(batched[g].visits, single.visits)
        np.testing.assert_array_equal(batched[g].q, single.q)
        np.testing.assert_array_equal(batched[g].pi, single.pi)
        assert batched[g].move == single.move and batched[g].pv == single.pv


def test_per_game_budgets_set_each_games_halving() -> None:
    boards = [goboard.Board(7, komi=0.5) for _ in range(3)]
    boards[2].play(24)
    cfg = GumbelConfig(num_simulations=50, leaves_per_batch=4, considered_actions=8)
    seeds, budgets = [31, 32, 33], [6, 50, 21]
    batched = Gumbel(FakeEvaluator(), boards, cfg, rng=seeds).run(simulations=budgets)
    assert [r.num_simulations for r in batched] == budgets
    for g, board in enumerate(boards):
        alone = replace(cfg, num_simulations=budgets[g])
        single = Gumbel(FakeEvaluator(), board, alone, rng=seeds[g]).search()
        np.testing.assert_array_equal(batched[g].visits, single.visits)
        np.testing.assert_array_equal(batched[g].pi, single.pi)
        assert batched[g].move == single.move


def test_virtual_loss_spreads_the_walks_of_a_step() -> None:
    evaluator = FakeEvaluator()
    cfg = GumbelConfig(
        num_simulations=64, leaves_per_batch=8, virtual_loss=2, considered_actions=4
    )
    s = Gumbel(evaluator, goboard.Board(7, komi=0.5), cfg, rng=0)
    result = s.search()
    s.check()
    assert result.visits.sum() == 64 and not s.tree.virtual.any()
    assert evaluator.positions == int(s.tree.num_nodes[0])  # no terminal here
    assert evaluator.calls <= 1 + 64 // 4  # most steps fill several leaves


def test_move_filters_and_tree_reuse() -> None:
    evaluator, favourite, winner = _winning_setup()
    cfg = GumbelConfig(num_simulations=24, considered_actions=26)
    s = Gumbel(evaluator, goboard.Board(5), cfg, rng=3)
    s.set_move_filters([MoveFilter(1, (winner,), 1)])
    result = s.search()
    assert result.visits[winner] == 0 and result.pi[winner] == 0
    assert result.move != winner
    s.set_move_filters([])
    first = s.search()
    assert first.move == winner
    child = int(s.tree.children[0, 0, winner])
    before = s.tree.child_stats(0, child)[0].sum()
    s.advance(winner)
    again = s.search()
    assert again.visits.sum() == before + 24 and again.num_simulations == 24
    s.check()


def test_config_and_argument_errors() -> None:
    cases: list[tuple[str, Any, type[Exception]]] = [
        ("considered_actions", 0, ValueError),
        ("considered_actions", 2.0, TypeError),
        ("c_visit", -1.0, ValueError),
        ("c_scale", "1", TypeError),
        ("gumbel_scale", -0.5, ValueError),
        ("temperature", 1.0, ValueError),
        ("num_simulations", 0, ValueError),
        ("mix_lambda", 1.5, ValueError),
        ("mix_lambda", -0.1, ValueError),
    ]
    for field, value, error in cases:
        with pytest.raises(error, match=field):
            GumbelConfig(**{field: value})
    board = goboard.Board(5)
    with pytest.raises(TypeError):
        Gumbel(FakeEvaluator(), board, SearchConfig())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rule"):  # the engine alone has no such rule
        MCTS(FakeEvaluator(), board, GumbelConfig(), rule="gumbel")
    with pytest.raises(ValueError, match="rollout"):  # mixing needs rollouts
        Gumbel(FakeEvaluator(), board, GumbelConfig(mix_lambda=0.5))
    s = Gumbel(FakeEvaluator(), board, GumbelConfig(num_simulations=4))
    with pytest.raises(ValueError, match="temperature"):
        s.search(temperature=1.0)
    result = run_search(board, FakeEvaluator(), GumbelConfig(num_simulations=4))
    assert result.improved_policy is not None and result.visits.sum() == 4


@settings(deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    moves=st.integers(0, 30),
    n=st.integers(1, 40),
    m=st.integers(1, 12),
    leaves=st.integers(1, 4),
)
def test_random_positions(seed: int, moves: int, n: int, m: int, leaves: int) -> None:
    rng = np.random.default_rng(seed)
    board = goboard.Board(5, komi=0.5)
    for _ in range(moves):
        if board.is_over:
            break
        board.play(random_move(board, rng))
    if board.is_over:
        return
    cfg = GumbelConfig(num_simulations=n, considered_actions=m, leaves_per_batch=leaves)
    s = Gumbel(FakeEvaluator(), board, cfg, rng=seed)
    result = s.search()
    s.check()
    assert result.visits.sum() == n == result.num_simulations
    # Only the m best by g + logits are visited at the root.
    base = log_prior(s.tree.prior[0, 0][None])[0] + _noise(seed, 26)
    considered = np.argsort(-base, kind="stable")[
        : min(m, int(np.isfinite(base).sum()))
    ]
    visited = np.flatnonzero(result.visits)
    assert set(visited.tolist()) <= set(considered.tolist())
    legal = board.legal_mask()
    assert result.pi.sum() == pytest.approx(1.0)
    assert (result.pi[~legal] == 0).all()
    assert legal[result.move] and result.visits[result.move] > 0
