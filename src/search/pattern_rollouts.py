"""Rollouts with AlphaGo 2016's fast pattern policy as a :class:`RolloutPolicy`.

:class:`PatternRollouts` plays each leaf out with ``goboard.PatternPolicy`` (a softmax
over local pattern features, in C, without the GIL) instead of uniform random moves,
so ``search.AlphaGo2016(..., rollout=PatternRollouts(policy))`` mixes the value net
with the outcomes of the learned rollout policy, as the 2016 paper did.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

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
    played at once on worker threads (the C rollouts release the GIL), and
    :meth:`values_later` starts them before the search evaluates the network on the
    same leaves; each part plays the random streams the whole batch would give its
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
        return self.values_later(positions)()

    def values_later(self, positions: Positions) -> Callable[[], NDArray[np.float32]]:
        """``values(positions)`` as a callable that waits for them. With ``threads``
        > 1 every part starts now on the worker threads, so the search's network
        evaluation runs meanwhile; with one thread they play when it is called."""
        if len(positions) == 0:
            return lambda: np.zeros(0, dtype=np.float32)
        seed = int(self._rng.integers(0, 2**63))
        pool, slots = positions.pool, positions.slots
        if min(self.threads, len(slots)) == 1:
            return lambda: self._values(pool, slots, self._play(pool, slots, seed, 0))
        parts = self._start(pool, slots, seed)
        return lambda: self._values(pool, slots, self._gather(parts))

    def _values(
        self, pool: goboard.Pool, slots: NDArray[np.int64], scores: NDArray[np.float64]
    ) -> NDArray[np.float32]:
        wins = np.sign(scores).mean(axis=1)
        values: NDArray[np.float32] = (wins * pool.to_play(slots)).astype(np.float32)
        return values

    def _play(
        self, pool: goboard.Pool, slots: NDArray[np.int64], seed: int, first: int
    ) -> NDArray[np.float64]:
        return self.policy.pool_playouts(pool, slots, self.playouts, seed, first)

    def _start(
        self, pool: goboard.Pool, slots: NDArray[np.int64], seed: int
    ) -> list[Future[NDArray[np.float64]]]:
        """Contiguous parts of slots, one a thread, each playing the streams the whole
        batch gives its slots (``first``), so the scores do not depend on threads."""
        if self._workers is None:
            self._workers = ThreadPoolExecutor(
                self.threads, thread_name_prefix="rollouts"
            )
        parts = min(self.threads, len(slots))
        bounds = [len(slots) * k // parts for k in range(parts + 1)]
        return [
            self._workers.submit(self._play, pool, slots[a:b], seed, a)
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ]

    @staticmethod
    def _gather(parts: list[Future[NDArray[np.float64]]]) -> NDArray[np.float64]:
        # Every part has stopped reading the pool before the search may change it,
        # even when one of them failed, and even on Ctrl-C: a notebook that goes on
        # searching after an interrupt would otherwise change the pool under a part
        # still playing (at most one batch's rollouts, about a second, to wait).
        interrupted: BaseException | None = None
        while True:
            try:
                wait(parts)
                break
            except BaseException as exc:  # KeyboardInterrupt, say: wait again
                interrupted = interrupted or exc
        if interrupted is not None:
            raise interrupted
        return np.concatenate([f.result() for f in parts])

    def evaluate(self, positions: Positions) -> Output:
        return _uniform(positions.legal_masks()), self.values(positions)
