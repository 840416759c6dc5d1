"""Match statistics: the Elo difference from a score fraction, with a 95% interval.

Formulas (the logistic Elo model with a normal approximation of the score, the
estimate chess match runners such as cutechess-cli print):

- Each game gives player A a score ``x_i`` in {1, 1/2, 0} (win, tie, loss); the score
  fraction is ``s = mean(x_i)`` over ``n`` games.
- Under the Elo model the expected score of a player ``D`` points stronger is
  ``1 / (1 + 10 ** (-D / 400))``; inverting it, ``D(s) = -400 * log10(1 / s - 1)``.
- The standard error of ``s`` is ``sqrt(var / n)``, with the per-game variance
  ``var = mean(x_i ** 2) - s ** 2`` (without ties, ``s * (1 - s)``). By the normal
  approximation ``s`` lies in ``s +- z * se`` with ~95% probability (``z = 1.959964``).
- ``D`` is increasing in ``s``, so the interval maps through it endpoint by endpoint:
  ``[D(s - z se), D(s + z se)]``, clipped to [0, 1] first. An endpoint at or beyond
  0 or 1 gives an infinite Elo difference: the games cannot bound it on that side.
  With a handful of games the approximation is rough; it is the usual reporting
  convention, not an exact interval.
- A sweep (every game won, or every game lost) leaves no variance, so the normal
  approximation would shrink the interval to the infinite estimate itself. Its finite
  end is then the exact binomial (Clopper-Pearson) bound: with ``n`` wins in ``n``
  games, the smallest win probability ``p`` under which a sweep still has a chance of
  at least ``alpha / 2`` (``alpha = 1 - confidence``): ``p ** n = alpha / 2``, so
  ``p = (alpha / 2) ** (1 / n)``; the other end stays infinite. Games that are all
  ties keep the degenerate interval [0, 0].

Example: 60 wins in 100 games, no ties: ``s = 0.6``, ``D = 70.4``, ``se = 0.049``,
95% interval of ``s`` = [0.504, 0.696], of ``D`` = [+2.8, +143.9]. A sweep of 100
games: ``p = 0.025 ** 0.01 = 0.9638``, interval of ``D`` = [+570.0, +inf].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["EloEstimate", "Z95", "elo_difference", "elo_estimate"]

#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


def elo_difference(score: float) -> float:
    """Elo difference for a score fraction in [0, 1] (±inf at the ends)."""
    if not 0.0 <= score <= 1.0 or math.isnan(score):
        raise ValueError(f"a score fraction is in [0, 1], not {score}")
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """Player A's results against B and the Elo difference A - B they imply."""

    games: int
    wins: int
    ties: int
    losses: int
    score: float  # fraction of the points A won, ties counting one half
    stderr: float  # standard error of ``score``
    elo: float
    low: float  # lower end of the confidence interval for ``elo``
    high: float  # upper end
    confidence: float = 0.95

    def describe(self) -> str:
        """One line such as ``Elo +70.4 (95% CI +2.8 .. +144.1)``."""
        pct = round(self.confidence * 100)
        return f"Elo {_fmt(self.elo)} ({pct}% CI {_fmt(self.low)} .. {_fmt(self.high)})"


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x + 0.0:+.1f}".replace("-0.0", "+0.0")


def elo_estimate(wins: int, ties: int, losses: int, z: float = Z95) -> EloEstimate:
    """Score fraction, Elo difference and its normal-approximation interval.

    Args:
        wins, ties, losses: Player A's game counts (non-negative, not all zero).
        z: Normal quantile of the interval (1.96 for 95%).

    Raises:
        ValueError: Negative counts or no games.
    """
    if min(wins, ties, losses) < 0:
        raise ValueError("game counts must be >= 0")
    n = wins + ties + losses
    if n == 0:
        raise ValueError("no games")
    score = (wins + 0.5 * ties) / n
    var = max(0.0, (wins + 0.25 * ties) / n - score * score)
    se = math.sqrt(var / n)
    low_s = min(1.0, max(0.0, score - z * se))
    high_s = min(1.0, max(0.0, score + z * se))
    confidence = math.erf(z / math.sqrt(2.0))
    if wins == n or losses == n:
        # A sweep: the exact bound on the side the games can bound (module docstring).
        edge = ((1.0 - confidence) / 2.0) ** (1.0 / n)
        low_s, high_s = (edge, 1.0) if wins == n else (0.0, 1.0 - edge)
    return EloEstimate(
        games=n,
        wins=wins,
        ties=ties,
        losses=losses,
        score=score,
        stderr=se,
        elo=elo_difference(score),
        low=elo_difference(low_s),
        high=elo_difference(high_s),
        confidence=confidence,
    )
