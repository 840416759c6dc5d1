"""Rollouts with AlphaGo 2016's fast pattern policy as a :class:`RolloutPolicy`.

:class:`PatternRollouts` plays each leaf out with ``goboard.PatternPolicy`` (a softmax
over local pattern features, in C, without the GIL) instead of uniform random moves,
so ``search.AlphaGo2016(..., rollout=PatternRollouts(policy))`` mixes the value net
with the outcomes of the learned rollout policy, as the 2016 paper did.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np
from numpy.typing import NDArray

import goboard

from .evaluator import Output, Positions, _uniform, make_rng

__all__ = ["PatternRollouts"]


class PatternRollouts:
    """Pattern-policy rollouts: value = mean outcome from the side to move.

    A rollout scores +1 if the side to move at the position wins it (by the sign of
    the final Tromp-Taylor score with the game's komi), -1 if it loses, 0 for a tie;
    the value is the mean over ``playouts`` rollouts. As an :class:`Evaluator` (for
    UCT or PUCT) its priors are uniform over the legal moves.

    With ``threads`` > 1 a batch of positions is split into that many contiguous parts
    played at once (the C rollouts release the GIL), the calling thread taking the
    first; each part plays the random streams the whole batch would give its
    positions, so the values do not depend on ``threads``. On 19x19 the rollouts take
    about two thirds of a move's time in the mixed search (README), so cores the
    network leaves idle buy speed here.

    Args:
        policy: the rollout policy and its weights.
        playouts: rollouts per position (>= 1).
        seed: an int, a Generator, or None; each call draws a fresh rollout seed
            from it, so a sequence of calls is reproducible.
        threads: threads a batch's rollouts are spread over (>= 1).
    """

    def __init__(
        self,
        policy: goboard.PatternPolicy,
        playouts: int = 1,
        seed: int | np.random.Generator | None = None,
        threads: int = 1,
    ) -> None:
        if not isinstance(policy, goboard.PatternPolicy):
            kind = type(policy).__name__
            raise TypeError(f"policy must be a goboard.PatternPolicy, not {kind}")
        for name, value in (("playouts", playouts), ("threads", threads)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, not {type(value).__name__}")
            if value < 1:
                raise ValueError(f"{name} must be >= 1, not {value}")
        self.policy = policy
        self.playouts = playouts
        self.threads = threads
        self._rng = make_rng(seed)
        self._workers: ThreadPoolExecutor | None = None  # started on first use

    def values(self, positions: Positions) -> NDArray[np.float32]:
        """float32 [B]: mean rollout outcome from each position's side to move."""
        if len(positions) == 0:
            return np.zeros(0, dtype=np.float32)
        seed = int(self._rng.integers(0, 2**63))
        scores = self._scores(positions.pool, positions.slots, seed)
        wins = np.sign(scores).mean(axis=1)
        to_play = positions.pool.to_play(positions.slots)
        values: NDArray[np.float32] = (wins * to_play).astype(np.float32)
        return values

    def _scores(
        self, pool: goboard.Pool, slots: NDArray[np.int64], seed: int
    ) -> NDArray[np.float64]:
        parts = min(self.threads, len(slots))
        play = self.policy.pool_playouts
        if parts == 1:
            return play(pool, slots, self.playouts, seed)
        if self._workers is None:
            self._workers = ThreadPoolExecutor(
                self.threads - 1, thread_name_prefix="rollouts"
            )
        bounds = [len(slots) * k // parts for k in range(parts + 1)]
        rest = [
            self._workers.submit(play, pool, slots[a:b], self.playouts, seed, a)
            for a, b in zip(bounds[1:-1], bounds[2:], strict=True)
        ]
        try:
            first = play(pool, slots[: bounds[1]], self.playouts, seed, 0)
        finally:
            # Every part has stopped reading the pool before the search may change
            # it, even when one of them failed.
            wait(rest)
        return np.concatenate([first] + [f.result() for f in rest])

    def evaluate(self, positions: Positions) -> Output:
        return _uniform(positions.legal_masks()), self.values(positions)
