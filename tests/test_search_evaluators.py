"""Evaluators: uniform priors, rollout values, the cache, output validation."""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import FakeEvaluator

import goboard
from goboard.text import parse_board
from search import (
    CachedEvaluator,
    Evaluator,
    Positions,
    RolloutEvaluator,
    UniformEvaluator,
)
from search.evaluator import check_output

# Black owns the whole board (komi 0.5): every playout ends in a Black win.
BLACK_WON = """
    . X . X .
    X X X X X
    . X . X .
    X X X X X
    . X . X .
"""


def _pool(*boards: goboard.Board, slots: int = 4) -> goboard.Pool:
    return goboard.Pool(list(boards), slots)


def test_uniform_evaluator_is_uniform_over_legal_moves() -> None:
    board = parse_board(BLACK_WON, komi=0.5)
    pool = _pool(board, goboard.Board(5))
    positions = Positions(pool, [0, 4])
    priors, values = UniformEvaluator().evaluate(positions)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    legal = pool.legal_masks([0, 4])
    for row, mask in zip(priors, legal, strict=True):
        assert row[~mask].sum() == 0
        np.testing.assert_allclose(row[mask], 1.0 / mask.sum())
    assert not values.any()
    assert isinstance(UniformEvaluator(), Evaluator)


def test_rollout_values_from_the_side_to_move() -> None:
    black = parse_board(BLACK_WON, to_play=goboard.BLACK, komi=0.5)
    white = parse_board(BLACK_WON, to_play=goboard.WHITE, komi=0.5)
    pool = _pool(black, white)
    evaluator = RolloutEvaluator(playouts=8, seed=1)
    priors, values = evaluator.evaluate(Positions(pool, [0, 4]))
    np.testing.assert_array_equal(values, [1.0, -1.0])
    assert priors.shape == (2, 26)


def test_rollout_values_are_means_and_reproducible() -> None:
    pool = _pool(goboard.Board(5, komi=0.5))
    positions = Positions(pool, [0])
    first = RolloutEvaluator(playouts=64, seed=3)
    a = [float(first.values(positions)[0]) for _ in range(3)]
    second = RolloutEvaluator(playouts=64, seed=3)
    b = [float(second.values(positions)[0]) for _ in range(3)]
    assert a == b
    assert len(set(a)) > 1  # each call draws new playouts
    for v in a:
        assert -1.0 <= v <= 1.0
        assert (v * 64) % 1 == 0  # a mean of 64 outcomes in {-1, 0, 1}


def test_rollout_evaluator_arguments() -> None:
    with pytest.raises(ValueError):
        RolloutEvaluator(playouts=0)
    with pytest.raises(TypeError):
        RolloutEvaluator(playouts=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        RolloutEvaluator(seed="x")  # type: ignore[arg-type]


def _tree_pool() -> tuple[goboard.Pool, list[int]]:
    """A pool with four positions; the slot list names slot 1 twice."""
    board = goboard.Board(5)
    pool = goboard.Pool([board], 8)
    pool.expand([0, 0], [12, 6], [1, 2])
    pool.expand([1], [6], [3])
    return pool, [0, 1, 2, 3, 1]


def test_cache_returns_identical_results_and_counts_hits() -> None:
    pool, slots = _tree_pool()
    inner = FakeEvaluator()
    cache = CachedEvaluator(inner, capacity=100)
    positions = Positions(pool, slots)
    p1, v1 = cache.evaluate(positions)
    p_ref, v_ref = inner.evaluate(Positions(pool, slots))  # 5 more positions
    np.testing.assert_array_equal(p1, p_ref)
    np.testing.assert_array_equal(v1, v_ref)
    # The repeated slot is evaluated once.
    assert cache.misses == 4 and cache.hits == 1 and inner.positions == 4 + 5
    p2, v2 = cache.evaluate(Positions(pool, slots))
    np.testing.assert_array_equal(p2, p1)
    np.testing.assert_array_equal(v2, v1)
    assert cache.hits == 6 and cache.misses == 4 and len(cache) == 4


def test_cache_answers_are_copies() -> None:
    pool, slots = _tree_pool()
    cache = CachedEvaluator(FakeEvaluator())
    p1, v1 = cache.evaluate(Positions(pool, slots))
    keep_p, keep_v = p1.copy(), v1.copy()
    p1[:] = -7.0
    v1[:] = 9.0
    p2, v2 = cache.evaluate(Positions(pool, slots))
    np.testing.assert_array_equal(p2, keep_p)
    np.testing.assert_array_equal(v2, keep_v)


def test_cache_is_bounded_lru() -> None:
    pool, _ = _tree_pool()
    inner = FakeEvaluator()
    cache = CachedEvaluator(inner, capacity=2)
    for slot in (0, 1, 2):
        cache.evaluate(Positions(pool, [slot]))
    assert len(cache) == 2 and cache.misses == 3
    cache.evaluate(Positions(pool, [2]))  # most recent: still there
    assert cache.hits == 1
    cache.evaluate(Positions(pool, [0]))  # evicted first: evaluated again
    assert cache.misses == 4 and inner.positions == 4
    with pytest.raises(ValueError):
        CachedEvaluator(inner, capacity=0)


class _Bad:
    def __init__(self, output: object) -> None:
        self.output = output

    def evaluate(self, positions: Positions) -> object:
        return self.output


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ([1, 2], TypeError),
        ((np.ones((1, 25)), np.zeros(1)), ValueError),  # wrong width
        ((np.ones((1, 26)), np.zeros(2)), ValueError),  # wrong batch
        ((np.ones((1, 26)), np.array([1.5])), ValueError),
        ((-np.ones((1, 26)), np.zeros(1)), ValueError),
        ((np.full((1, 26), np.nan), np.zeros(1)), ValueError),
    ],
)
def test_check_output_rejects_bad_answers(output: object, error: type) -> None:
    with pytest.raises(error):
        check_output(output, 1, 26)
    pool = _pool(goboard.Board(5))
    with pytest.raises(error):
        CachedEvaluator(_Bad(output)).evaluate(Positions(pool, [0]))  # type: ignore[arg-type]


def test_positions_share_legal_masks() -> None:
    pool, slots = _tree_pool()
    positions = Positions(pool, slots)
    legal = positions.legal_masks()
    assert positions.legal_masks() is legal
    sub = positions.subset([1, 3])
    np.testing.assert_array_equal(sub.legal_masks(), legal[[1, 3]])
    np.testing.assert_array_equal(sub.slots, [1, 3])
    np.testing.assert_array_equal(legal, pool.legal_masks(slots))
    assert len(sub) == 2 and positions.num_actions == 26
