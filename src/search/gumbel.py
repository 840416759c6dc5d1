"""Gumbel search's formulas: pure numpy functions over rows of children.

After Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with
Gumbel" (ICLR 2022). Conventions as in :mod:`search.puct`: rows are nodes, columns
actions (``A = N*N + 1``, pass last), a prior of ``-inf`` marks an illegal move, and a
child's ``q`` is its mean value from the node's side to move, in [-1, 1].

Glossary:

- *logits*: ``log(prior)``. The evaluator hands out probabilities; their logarithm
  differs from the network's logits by a constant per node, and every use below
  (softmax, argmax of ``g + logits + ...``) is blind to such a constant.
- *completed Q*: a visited child's Q; an unvisited one gets ``v_mix``, the node's
  network value mixed with the prior-weighted Q of the visited children.
- *sigma*: the monotone transform that puts Q on the logits' scale.
- *improved policy*: ``softmax(logits + sigma(completed Q))`` over the legal moves: the
  training target and, below the root, the selection rule's target distribution.
- *sequential halving*: the root's budget split into ``ceil(log2 m)`` phases; after
  each phase the better half of the moves still in play goes on.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "completed_q",
    "halving_phases",
    "improved_policy",
    "log_prior",
    "sigma_q",
]

F64 = NDArray[np.float64]

#: Floor for a legal move's prior before the logarithm: an evaluator may give a legal
#: move exactly 0, which must stay a (very unlikely) legal move, not -inf.
_TINY = float(np.finfo(np.float32).tiny)


def log_prior(prior: NDArray[np.floating]) -> F64:
    """Logits ``[K, A]`` from priors ``[K, A]``: ``log(prior)``, ``-inf`` where the
    prior is ``-inf`` (illegal)."""
    legal = np.isfinite(prior)
    safe = np.maximum(np.where(legal, prior, 1.0).astype(np.float64), _TINY)
    return np.where(legal, np.log(safe), -np.inf)


def completed_q(
    prior: NDArray[np.floating],  # [K, A], -inf = illegal
    visits: NDArray[np.float64],  # [K, A]
    q: NDArray[np.float64],  # [K, A], node's view
    value: NDArray[np.float64],  # [K], the network's value of the node, its view
) -> F64:
    """Q of visited children; ``v_mix`` for the others, where

    ``v_mix = (value + sum_b N(b) * sum_visited pi(b) q(b) / sum_visited pi(b))
    / (1 + sum_b N(b))``

    (``pi`` the prior): the network's value counted as one visit beside the children's
    visits, their Q averaged under the prior so that the estimate does not depend on
    which moves the search happened to favour. ``v_mix`` is ``value`` when nothing was
    visited.
    """
    pi = np.where(np.isfinite(prior), prior, 0.0).astype(np.float64)
    visited = visits > 0
    total = visits.sum(axis=1)
    mass = np.where(visited, pi, 0.0).sum(axis=1)
    weighted = np.where(visited, pi * q, 0.0).sum(axis=1)
    # A zero mass with visits: visited moves the evaluator gave exactly 0; their Q
    # then carries no weight, as the formula's limit would have it.
    mean = weighted / np.where(mass > 0, mass, 1.0)
    v_mix = (value + total * mean) / (1.0 + total)
    return np.where(visited, q, v_mix[:, None])


def sigma_q(
    q: NDArray[np.float64],  # [K, A] in [-1, 1]
    visits: NDArray[np.float64],  # [K, A]
    c_visit: float,
    c_scale: float,
) -> F64:
    """``(c_visit + max_b N(b)) * c_scale * (q + 1) / 2``.

    Q is rescaled to [0, 1] by its fixed bounds, ``(q + 1) / 2``, not by the min and
    max seen in the tree (the paper's choice for MuZero's unbounded rewards): Go's
    values are bounded by construction, and a min-max rescaling would stretch the tiny
    differences between near-equal moves to the full range.
    """
    scale = (c_visit + visits.max(axis=1)) * c_scale
    return np.asarray(scale[:, None] * ((q + 1.0) * 0.5), dtype=np.float64)


def improved_policy(
    prior: NDArray[np.floating],  # [K, A], -inf = illegal
    visits: NDArray[np.float64],  # [K, A]
    q: NDArray[np.float64],  # [K, A], node's view
    value: NDArray[np.float64],  # [K]
    c_visit: float,
    c_scale: float,
) -> F64:
    """``softmax(logits + sigma(completed Q))`` over the legal moves ``[K, A]``; 0 on
    illegal ones. With nothing visited it is the prior."""
    cq = completed_q(prior, visits, q, value)
    z = log_prior(prior) + sigma_q(cq, visits, c_visit, c_scale)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)  # exp(-inf) = 0 on illegal moves
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)


def halving_phases(simulations: int, considered: int) -> list[tuple[int, int]]:
    """Sequential halving's phases for a budget of ``simulations`` over ``considered``
    moves: ``(moves in the phase, new visits per move)`` per phase.

    ``ceil(log2 m)`` phases; phase p plays ``r = ceil(m / 2**p)`` moves (the better
    half, rounded up, goes on, so the last phase has two) and gives each
    ``max(1, floor(n / (ceil(log2 m) * r)))`` visits. One move: one phase with all
    the visits. The search runs the last phase until the budget is spent, so the
    budget left over by the floors goes there, and stops early when it runs out.
    """
    if considered <= 1:
        return [(1, simulations)]
    count = (considered - 1).bit_length()  # ceil(log2 m), exactly
    phases = []
    for p in range(count):
        moves = -(-considered // 2**p)
        phases.append((moves, max(1, simulations // (count * moves))))
    return phases
