"""Random playouts in C (``goboard.playouts``, ``Board.random_playout``).

The policy is the one every fast Go board measures itself with: a uniformly random legal
move that does not fill the mover's own true eye, pass when none is left, stop after two
passes (or 3 N^2 moves). Every call gets a new seed (``bench.seeded``; one repeated
seed would be learnt by the branch predictor and time ~2.5-3x too fast), and
``playouts`` reports the stones each playout placed, so stones/s = mean stones per call
/ mean time per call, exactly.

``test_pattern_playouts`` times the same workload with AlphaGo 2016's pattern rollout
policy (``goboard.PatternPolicy``, all-zero weights: its feature and gamma bookkeeping
costs the same whatever the weights), so the two rates compare side by side.

``random_playout`` returns only a score: its stones per call is the mean stones of
``ESTIMATE_PLAYOUTS`` playouts from the same position, measured outside the timing.
"""

from __future__ import annotations

import pytest

import goboard

# Playouts per call: enough to average over playout lengths, small enough that the
# smoke run (--benchmark-disable) stays quick.
PLAYOUTS = {9: 128, 19: 32}
ESTIMATE_PLAYOUTS = 2000
SEED = 7

pytestmark = pytest.mark.benchmark(group="playout")


@pytest.mark.parametrize("size", [9, 19])
def test_playouts(bench, positions, size):
    board = positions(size).opening
    n = PLAYOUTS[size]

    def run(seed):
        return goboard.playouts(board, n, seed)

    def count(result):
        scores, stones = result
        return {"stones": int(stones.sum()), "playouts": len(scores)}

    counts = bench.seeded(run, count, SEED)
    assert counts["playouts"] == n
    assert counts["stones"] > n
    bench.rates(**counts)


@pytest.mark.parametrize("size", [9, 19])
def test_random_playout(bench, positions, size):
    board = positions(size).opening
    bench.seeded(board.random_playout, lambda score: {}, SEED)
    _, stones = goboard.playouts(board, ESTIMATE_PLAYOUTS, SEED)
    bench.rates(stones=float(stones.mean()), playouts=1)


PATTERN_POLICY = goboard.PatternPolicy()


@pytest.mark.parametrize("size", [9, 19])
def test_pattern_playouts(bench, positions, size):
    board = positions(size).opening
    n = PLAYOUTS[size] // 4

    def run(seed):
        return PATTERN_POLICY.playouts(board, n, seed)

    def count(result):
        scores, stones = result
        return {"stones": int(stones.sum()), "playouts": len(scores)}

    counts = bench.seeded(run, count, SEED)
    assert counts["playouts"] == n
    assert counts["stones"] > n
    bench.rates(**counts)
