"""Selection formulas, root noise and move choice on hand-built numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from search import choose_move, dirichlet_mix, puct_scores, ucb1_scores
from search.puct import UNVISITED_UCB, visit_distribution

INF = np.inf


def test_puct_scores_by_hand() -> None:
    # One node, four moves: visited twice, once, never, illegal.
    prior = np.array([[0.5, 0.3, 0.2, -INF]], dtype=np.float32)
    visits = np.array([[2.0, 1.0, 0.0, 0.0]])
    sums = np.array([[1.0, -0.5, 0.0, 0.0]])  # parent's view
    scores = puct_scores(
        prior, visits, sums, np.array([4.0]), np.array([0.1]), 1.5, 0.2
    )
    # c * sqrt(N_parent) = 1.5 * 2 = 3.
    # a0: Q = 1.0 / 2 = 0.5, U = 0.5 * 3 / (1 + 2) = 0.5 -> 1.0
    # a1: Q = -0.5 / 1, U = 0.3 * 3 / 2 = 0.45 -> -0.05
    # a2: Q = FPU = 0.1 - 0.2 = -0.1, U = 0.2 * 3 / 1 = 0.6 -> 0.5
    expected = [1.0, -0.05, 0.5, -INF]
    np.testing.assert_allclose(scores[0], expected, rtol=1e-6)
    assert int(np.argmax(scores[0])) == 0


def test_puct_rows_are_independent_and_fpu_is_per_parent() -> None:
    prior = np.array([[0.5, 0.5], [0.5, 0.5]], dtype=np.float32)
    visits = np.array([[0.0, 0.0], [1.0, 0.0]])
    sums = np.array([[0.0, 0.0], [0.9, 0.0]])
    scores = puct_scores(
        prior, visits, sums, np.array([1.0, 2.0]), np.array([0.3, -0.4]), 1.0, 0.25
    )
    # Row 0: Q = 0.3 - 0.25 = 0.05, U = 0.5 * 1 / 1 = 0.5.
    np.testing.assert_allclose(scores[0], [0.55, 0.55])
    # Row 1: a0 Q = 0.9, U = 0.5 * sqrt(2) / 2; a1 Q = -0.65, U = 0.5 * sqrt(2).
    r2 = math.sqrt(2)
    np.testing.assert_allclose(scores[1], [0.9 + 0.5 * r2 / 2, -0.65 + 0.5 * r2])


def test_ucb1_scores_by_hand() -> None:
    prior = np.array([[0.25, 0.25, 0.25, -INF]], dtype=np.float32)
    visits = np.array([[2.0, 1.0, 0.0, 0.0]])
    sums = np.array([[1.0, -0.5, 0.0, 0.0]])
    scores = ucb1_scores(prior, visits, sums, np.array([4.0]), 1.0)
    ln4 = math.log(4.0)
    assert scores[0, 0] == pytest.approx(0.5 + math.sqrt(ln4 / 2))
    assert scores[0, 1] == pytest.approx(-0.5 + math.sqrt(ln4))
    assert scores[0, 2] == UNVISITED_UCB
    assert scores[0, 3] == -INF


def test_ucb1_tiebreak_orders_unvisited_moves() -> None:
    prior = np.zeros((1, 3), dtype=np.float32)
    zeros = np.zeros((1, 3))
    tiebreak = np.array([[0.1, 0.9, 0.5]])
    scores = ucb1_scores(prior, zeros, zeros, np.array([1.0]), 1.0, tiebreak)
    assert int(np.argmax(scores[0])) == 1


def test_dirichlet_mix_keeps_mass_and_illegal_moves(
    rng: np.random.Generator,
) -> None:
    prior = np.array([0.5, -INF, 0.25, 0.25, -INF], dtype=np.float32)
    mixed = dirichlet_mix(prior, 0.3, 0.25, rng)
    assert np.isneginf(mixed[[1, 4]]).all()
    legal = mixed[[0, 2, 3]]
    assert legal.sum() == pytest.approx(1.0, abs=1e-6)
    assert (legal >= 0.75 * prior[[0, 2, 3]] - 1e-7).all()  # (1 - eps) P + eps n
    assert not np.array_equal(mixed, prior)
    assert np.array_equal(dirichlet_mix(prior, 0.3, 0.0, rng), prior)
    again = dirichlet_mix(prior, 0.3, 0.25, np.random.default_rng(5))
    assert np.array_equal(
        again, dirichlet_mix(prior, 0.3, 0.25, np.random.default_rng(5))
    )


def test_visit_distribution() -> None:
    visits = np.array([1, 3, 0, 4])
    np.testing.assert_allclose(
        visit_distribution(visits, 1.0), [1 / 8, 3 / 8, 0, 4 / 8]
    )
    # tau = 0.5 squares the counts.
    np.testing.assert_allclose(
        visit_distribution(visits, 0.5), np.array([1, 9, 0, 16]) / 26
    )
    np.testing.assert_array_equal(visit_distribution(visits, 0.0), [0, 0, 0, 1])
    assert not visit_distribution(np.zeros(3, dtype=np.int64)).any()


def test_choose_move_greedy_and_ties(rng: np.random.Generator) -> None:
    assert choose_move(np.array([1, 5, 2]), 0.0) == 1
    assert choose_move(np.array([5, 1, 5]), 0.0) == 0  # no rng: lowest index
    picks = {choose_move(np.array([5, 1, 5]), 0.0, rng) for _ in range(50)}
    assert picks == {0, 2}
    assert choose_move(np.zeros(4, dtype=np.int64), 1.0, rng) == -1
    with pytest.raises(ValueError, match="generator"):
        choose_move(np.array([1, 2]), 1.0)


def test_choose_move_samples_by_temperature(rng: np.random.Generator) -> None:
    visits = np.array([10, 30, 0, 60])
    draws = np.array([choose_move(visits, 1.0, rng) for _ in range(4000)])
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, [0.1, 0.3, 0.0, 0.6], atol=0.03)
    # A high temperature flattens the visited moves; unvisited ones stay at zero.
    hot = np.array([choose_move(visits, 100.0, rng) for _ in range(3000)])
    assert 2 not in hot
    assert np.bincount(hot, minlength=4)[0] > 700
