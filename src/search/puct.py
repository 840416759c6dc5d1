"""Action selection and move choice: pure numpy functions over rows of children.

Conventions (shared with :mod:`search.tree`):

- Rows are nodes, columns are actions (``A = N*N + 1``, pass last); every function works
  on a batch of rows ``[K, A]`` at once (K nodes from K trees or paths).
- ``child_value_sums`` are sums of backed-up values *from the parent's side to move*
  (the player choosing among the children), so a child's mean value is its Q directly.
- A prior of ``-inf`` marks an illegal move; such a column scores ``-inf`` and is never
  selected. Parent visit counts are at least 1 wherever selection happens (a node is
  evaluated, counting one visit, before its children are chosen).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "UNVISITED_UCB",
    "choose_move",
    "dirichlet_mix",
    "forced_visits",
    "prune_forced",
    "puct_scores",
    "ucb1_scores",
    "visit_distribution",
]

F64 = NDArray[np.float64]

#: UCB1 score of an unvisited child: above any visited one (UCT tries each move once).
UNVISITED_UCB = 1.0e6


def puct_scores(
    prior: NDArray[np.floating],  # [K, A], -inf = illegal
    child_visits: NDArray[np.float64],  # [K, A]
    child_value_sums: NDArray[np.float64],  # [K, A], parent's view
    parent_visits: NDArray[np.float64],  # [K]
    parent_q: NDArray[np.float64],  # [K], parent's mean value, its own view
    c_puct: float,
    fpu_reduction: float,
) -> F64:
    """AlphaGo Zero PUCT: ``Q + c_puct * P * sqrt(N_parent) / (1 + N)``.

    ``Q`` is the child's mean value; an unvisited child gets first-play urgency,
    ``parent_q - fpu_reduction`` (the parent's own mean, because a move nobody has tried
    is best guessed to be about as good as the position it is played from, a little
    worse since the prior's favourites were tried first).

    Returns:
        float64 [K, A] scores; ``-inf`` on illegal moves.
    """
    visits = child_visits
    q = child_value_sums / np.maximum(visits, 1.0)
    q = np.where(visits > 0, q, (parent_q - fpu_reduction)[:, None])
    u = prior * (c_puct * np.sqrt(parent_visits))[:, None]
    u /= visits + 1.0
    u += q
    return u


def forced_visits(
    prior: NDArray[np.floating],  # [..., A], -inf = illegal
    total: NDArray[np.float64] | float,  # [...], the children's visits
    k: float,
) -> F64:
    """KataGo's forced playouts: ``sqrt(k * P * total)`` per child (0 where illegal)."""
    p = np.maximum(prior, 0.0)  # -inf (illegal) -> 0, no NaN from the sqrt
    return np.asarray(np.sqrt(k * p * np.asarray(total)[..., None]), dtype=np.float64)


def prune_forced(
    visits: NDArray[np.floating],  # [A]
    q: NDArray[np.floating],  # [A], parent's view; any value where unvisited
    prior: NDArray[np.floating],  # [A], -inf = illegal
    explore: float,  # c_puct * sqrt(N_parent), as the selection used it
    k: float,
) -> F64:
    """Policy target pruning (Wu 2019, section 3.1) of root visit counts ``[A]``.

    ``c*``, the most visited child (the first of a tie), keeps its visits; its
    PUCT score ``U* = Q* + P* * explore / (1 + N*)`` is the bar. Every other child
    gives back up to ``floor(forced_visits)`` visits, one at a time for as long as
    its score after giving one back, ``Q + P * explore / (1 + n)``, stays below
    ``U*``: the visits PUCT would have given it anyway stay, only the forced excess
    goes. A child left with one visit or none is dropped (0).

    Returns:
        float64 [A] pruned visit counts (whole numbers), never above ``visits``.
    """
    n = np.asarray(visits, dtype=np.float64)
    if n.sum() <= 0:
        return n.copy()
    best = int(np.argmax(n))
    p = np.where(np.isfinite(prior), prior, 0.0).astype(np.float64)
    qq = np.where(n > 0, np.asarray(q, dtype=np.float64), 0.0)
    bar = qq[best] + p[best] * explore / (1.0 + n[best])
    allowed = np.floor(forced_visits(prior, n.sum(), k))
    out = n.copy()
    # Remove one visit per round from every child still allowed to give one back;
    # at most max(allowed) rounds (about sqrt(2 * total)).
    for _ in range(int(allowed.max()) if allowed.size else 0):
        fewer = np.maximum(out - 1.0, 0.0)
        score = qq + p * explore / (1.0 + fewer)
        can = (out > 0) & (n - fewer <= allowed) & (score < bar)
        can[best] = False
        if not can.any():
            break
        out[can] = fewer[can]
    out[out <= 1.0] = 0.0
    out[best] = n[best]
    return out


def ucb1_scores(
    prior: NDArray[np.floating],  # [K, A], only -inf matters (illegal)
    child_visits: NDArray[np.float64],  # [K, A]
    child_value_sums: NDArray[np.float64],  # [K, A], parent's view
    parent_visits: NDArray[np.float64],  # [K]
    exploration: float,
    tiebreak: NDArray[np.floating] | None = None,  # [K, A] in [0, 1)
) -> F64:
    """UCB1: ``Q + exploration * sqrt(ln N_parent / N)``.

    Unvisited legal children score :data:`UNVISITED_UCB` plus ``tiebreak`` (so UCT
    tries every move once, in the tiebreak's order; without it, lowest index first).

    Returns:
        float64 [K, A] scores; ``-inf`` on illegal moves.
    """
    visits = child_visits
    denominator = np.maximum(visits, 1.0)
    log_parent = np.log(np.maximum(parent_visits, 1.0))
    score = child_value_sums / denominator
    score += exploration * np.sqrt(log_parent[:, None] / denominator)
    unvisited = UNVISITED_UCB if tiebreak is None else UNVISITED_UCB + tiebreak
    score = np.where(visits > 0, score, unvisited)
    score += np.minimum(prior, 0.0)
    return score


def dirichlet_mix(
    prior: NDArray[np.float32],  # [A], -inf = illegal
    alpha: float,
    fraction: float,
    rng: np.random.Generator,
) -> NDArray[np.float32]:
    """Root noise: ``(1 - fraction) * P + fraction * Dir(alpha)`` over the legal moves.

    Returns a new row; illegal moves stay ``-inf``.
    """
    legal = np.isfinite(prior)
    out = prior.copy()
    count = int(legal.sum())
    if count == 0 or fraction == 0.0:
        return out
    noise = rng.dirichlet(np.full(count, alpha))
    out[legal] = (1.0 - fraction) * prior[legal] + fraction * noise
    return out


def visit_distribution(visits: NDArray[np.integer], temperature: float = 1.0) -> F64:
    """``visits ** (1 / temperature)`` normalised; one-hot on the first most visited
    move when ``temperature`` is 0 (or tiny). All zeros if nothing was visited."""
    counts = np.asarray(visits, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return np.zeros_like(counts)
    if temperature <= 1e-3:
        out = np.zeros_like(counts)
        out[int(np.argmax(counts))] = 1.0
        return out
    # Softmax of log visits / tau, computed stably (log 0 = -inf gives weight 0).
    with np.errstate(divide="ignore"):
        logits = np.log(counts) / temperature
    logits -= logits.max()
    weights = np.exp(logits)
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def choose_move(
    visits: NDArray[np.integer],
    temperature: float,
    rng: np.random.Generator | None = None,
) -> int:
    """The move to play from root visit counts ``[A]``.

    ``temperature`` 0 (or below 1e-3) takes the most visited move; ties go to a uniform
    draw from ``rng``, or to the lowest index without one. A positive temperature
    samples from :func:`visit_distribution` and needs ``rng``. Returns -1 if nothing
    was visited.

    Raises:
        ValueError: a positive temperature without a generator.
    """
    counts = np.asarray(visits)
    if counts.sum() <= 0:
        return -1
    if temperature <= 1e-3:
        best = np.flatnonzero(counts == counts.max())
        if rng is None or best.size == 1:
            return int(best[0])
        return int(best[rng.integers(best.size)])
    if rng is None:
        raise ValueError("a positive temperature needs a random generator")
    probs = visit_distribution(counts, temperature)
    return int(rng.choice(probs.size, p=probs))
