"""What a search returns for one game."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

__all__ = ["SearchResult"]


@dataclass(frozen=True, slots=True, eq=False)
class SearchResult:
    """The outcome of searching one position (``A`` = N*N + 1 actions, pass last).

    Attributes:
        visits: int64 [A], root child visit counts, including visits a reused subtree
            brought.
        q: float64 [A], each child's mean value from the root's side to move, in
            [-1, 1]; NaN for moves never visited (no estimate exists; use
            ``np.nan_to_num`` or ``visits > 0`` to mask).
        pi: float64 [A], the visit distribution ``visits / visits.sum()`` (the training
            target); if nothing was visited, the renormalised legal priors.
        move: the chosen move (point, or N*N for pass), per the temperature.
        value: mean value of the root from its side to move, in [-1, 1].
        pv: principal variation: moves along the most visited children.
        num_simulations: simulations this search ran (not counting reused visits).
        resign: the root value and the best move's Q are both below the configured
            resignation threshold.
        elapsed: seconds the search took.
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

    @property
    def best_q(self) -> float:
        """Q of the most visited move (the root value if nothing was visited)."""
        if self.visits.sum() == 0:
            return self.value
        return float(self.q[int(np.argmax(self.visits))])
