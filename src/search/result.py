"""What a search returns for one game."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

__all__ = ["ScoreStats", "SearchResult"]


@dataclass(frozen=True, slots=True, eq=False)
class ScoreStats:
    """Final-score estimates averaged over the search tree, as values are (KataGo's
    ``scoreMean``), for searches asked to keep them (``scores=True``).

    Every evaluation in a subtree adds its evaluator's expected margin (area minus
    komi, points) and that estimate's variance; a finished game in the tree adds the
    rules' count with no variance. All are from the root's side to move.

    Attributes:
        leads: float64 [A], each root child's mean margin; NaN where never visited.
        stdevs: float64 [A], the spread of the final margin over the child's
            subtree: the square root of the mean of each evaluation's variance plus
            its squared margin, less the squared mean; NaN where never visited.
        lead: the root's mean margin (over the root and all its subtree).
        stdev: its spread, likewise.
    """

    leads: NDArray[np.float64] = field(repr=False)
    stdevs: NDArray[np.float64] = field(repr=False)
    lead: float
    stdev: float


@dataclass(frozen=True, slots=True, eq=False)
class SearchResult:
    """The outcome of searching one position (``A`` = N*N + 1 actions, pass last).

    Attributes:
        visits: int64 [A], root child visit counts, including visits a reused subtree
            brought.
        q: float64 [A], each child's mean value from the root's side to move, in
            [-1, 1]; NaN for moves never visited (no estimate exists; use
            ``np.nan_to_num`` or ``visits > 0`` to mask).
        pi: float64 [A], the training target: the visit distribution
            ``visits / visits.sum()`` (if nothing was visited, the renormalised legal
            priors); for ``search.Gumbel``, its improved policy (below); with forced
            playouts at a noisy root, ``pruned_visits`` normalised.
        move: the chosen move (point, or N*N for pass), per the temperature.
        value: mean value of the root from its side to move, in [-1, 1].
        pv: principal variation: moves along the most visited children.
        num_simulations: simulations this search ran (not counting reused visits).
        resign: the root value and the best move's Q are both below the configured
            resignation threshold.
        elapsed: seconds the search took.
        improved_policy: float64 [A] for ``search.Gumbel``: ``softmax(logits +
            sigma(completed Q))`` over the legal moves, 0 on the others (see
            :mod:`search.gumbel`); None for the other searches.
        scores: the tree's final-score estimates (:class:`ScoreStats`) for a search
            made with ``scores=True``; None otherwise.
    """

    visits: NDArray[np.int64] = field(repr=False)
    q: NDArray[np.float64] = field(repr=False)
    pi: NDArray[np.float64] = field(repr=False)
    move: int
    value: float
    pv: list[int]
    num_simulations: int
    resign: bool = False
    elapsed: float = 0.0
    improved_policy: NDArray[np.float64] | None = field(default=None, repr=False)
    #: float64 [A]: the visits after policy target pruning when this root had
    #: forced playouts (``SearchConfig.forced_playouts``); None otherwise.
    pruned_visits: NDArray[np.float64] | None = field(default=None, repr=False)
    scores: ScoreStats | None = field(default=None, repr=False)

    @property
    def best_q(self) -> float:
        """Q of the most visited move (the root value if nothing was visited)."""
        if self.visits.sum() == 0:
            return self.value
        return float(self.q[int(np.argmax(self.visits))])
