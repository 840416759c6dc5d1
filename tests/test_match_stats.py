"""Elo difference and its normal-approximation interval on hand-computed values."""

from __future__ import annotations

import math

import pytest

from alphago.match import elo_difference, elo_estimate
from alphago.match.stats import Z95


def test_elo_difference_known_values() -> None:
    assert elo_difference(0.5) == 0.0
    # 1 / (1 + 10 ** (-D / 400)) = 0.75  <=>  D = 400 log10(3)
    assert elo_difference(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_difference(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo_difference(0.25) == pytest.approx(-190.848, abs=1e-3)
    assert elo_difference(1.0) == math.inf
    assert elo_difference(0.0) == -math.inf
    with pytest.raises(ValueError):
        elo_difference(1.5)


def test_sixty_of_hundred() -> None:
    e = elo_estimate(60, 0, 40)
    assert e.score == 0.6
    assert e.stderr == pytest.approx(math.sqrt(0.24 / 100))
    assert e.elo == pytest.approx(70.437, abs=1e-3)
    assert e.low == pytest.approx(elo_difference(0.6 - 1.959964 * e.stderr), abs=1e-3)
    assert e.high == pytest.approx(elo_difference(0.6 + 1.959964 * e.stderr), abs=1e-3)
    assert e.low == pytest.approx(2.767, abs=1e-3)
    assert e.high == pytest.approx(143.909, abs=1e-3)
    assert e.confidence == pytest.approx(0.95)
    assert e.describe() == "Elo +70.4 (95% CI +2.8 .. +143.9)"


def test_ties_count_half_and_shrink_the_variance() -> None:
    e = elo_estimate(1, 2, 1)
    assert e.score == 0.5 and e.elo == 0.0
    # per-game scores 1, .5, .5, 0: variance (1 + .25 + .25) / 4 - .25 = 0.125
    assert e.stderr == pytest.approx(math.sqrt(0.125 / 4))
    assert e.low == pytest.approx(-e.high)
    all_ties = elo_estimate(0, 5, 0)
    assert all_ties.stderr == 0.0 and all_ties.low == all_ties.high == 0.0


def test_sweeps_get_the_exact_binomial_bound() -> None:
    # 100 wins in 100 games: a sweep is at least 2.5% likely down to p = 0.025 ** 0.01.
    e = elo_estimate(100, 0, 0)
    assert e.elo == math.inf and e.high == math.inf
    assert e.low == pytest.approx(elo_difference(0.025**0.01))
    assert e.low == pytest.approx(570.0, abs=0.1)
    assert e.describe() == "Elo +inf (95% CI +570.0 .. +inf)"
    # At that p a sweep has probability 2.5% exactly: the bound is where it should be.
    p = 1.0 / (1.0 + 10.0 ** (-e.low / 400.0))
    assert p**100 == pytest.approx(0.025)
    # All lost: the mirror image. Fewer games bound less.
    lost = elo_estimate(0, 0, 100)
    assert lost.low == -math.inf and lost.high == pytest.approx(-e.low)
    assert elo_estimate(2, 0, 0).low < elo_estimate(20, 0, 0).low < e.low
    # Another confidence moves the bound the same way: p ** n = (1 - confidence) / 2.
    wide = elo_estimate(10, 0, 0, z=2.5758293035489004)  # 99%
    assert 1.0 / (1.0 + 10.0 ** (-wide.low / 400.0)) == pytest.approx(0.005**0.1)


def test_near_sweeps_keep_the_normal_interval() -> None:
    e = elo_estimate(3, 0, 1)
    assert math.isfinite(e.elo) and e.high == math.inf and math.isfinite(e.low)
    e = elo_estimate(99, 0, 1)
    assert e.low == pytest.approx(
        elo_difference(0.99 - Z95 * math.sqrt(0.99 * 0.01 / 100))
    )


def test_bad_counts() -> None:
    with pytest.raises(ValueError, match="no games"):
        elo_estimate(0, 0, 0)
    with pytest.raises(ValueError):
        elo_estimate(-1, 0, 3)
