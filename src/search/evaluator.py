"""The evaluator boundary: the only contract between the search and position evaluators.

A search hands an :class:`Evaluator` a batch of :class:`Positions` (slots of a
``goboard.Pool``, where the tree keeps its node positions) and gets back

- ``priors``: float32 ``[B, N*N + 1]``, non-negative move weights (pass last); the
  search keeps only the legal entries and renormalises them, so an evaluator need not
  mask illegal moves itself;
- ``values``: float32 ``[B]`` in [-1, 1], the expected outcome for the side to move
  (+1 win, -1 loss).

An evaluator that also judges the final score (a network with an ownership head) may
offer :class:`ScoredEvaluator`'s ``evaluate_scored``: the same two arrays, plus each
position's expected area difference (own points less the opponent's, komi left out:
the search subtracts its roots' komi) and that estimate's variance, both float32
``[B]``. A search made with ``scores=True`` calls it instead of ``evaluate`` and
averages the margins over its tree as it averages values (``SearchResult.scores``).

The evaluator chooses its own input: a network reads ``pool.features`` planes, a rollout
evaluator runs ``pool.playouts``, a uniform one needs only ``positions.legal_masks()``,
and a cache keys on ``pool.eval_keys``. Nothing here imports torch.

Implementations: :class:`UniformEvaluator`, :class:`RolloutEvaluator` and the caching
wrapper :class:`CachedEvaluator`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

import goboard

__all__ = [
    "CachedEvaluator",
    "ConcurrentRollouts",
    "Evaluator",
    "Positions",
    "RolloutEvaluator",
    "RolloutPolicy",
    "ScoredEvaluator",
    "UniformEvaluator",
    "check_output",
    "make_rng",
]

Output = tuple[NDArray[np.float32], NDArray[np.float32]]
ScoredOutput = tuple[
    NDArray[np.float32], NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]
]


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A Generator from a seed (None: fresh entropy) or the Generator itself."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        kind = type(seed).__name__
        raise TypeError(f"seed must be an int or a Generator, not {kind}")
    return np.random.default_rng(seed)


class Positions:
    """A batch of positions: ``slots`` (int64 ``[B]``) of ``pool``.

    ``legal_masks()`` is computed once per batch and shared by the search and the
    evaluator (it includes superko along the tree path and the root's history).
    """

    __slots__ = ("_legal", "pool", "slots")

    def __init__(
        self,
        pool: goboard.Pool,
        slots: NDArray[np.integer[Any]] | Sequence[int],
        legal: NDArray[np.bool_] | None = None,
    ) -> None:
        self.pool = pool
        self.slots: NDArray[np.int64] = np.ascontiguousarray(slots, dtype=np.int64)
        if self.slots.ndim != 1:
            raise ValueError("slots must be one-dimensional")
        self._legal = legal

    @classmethod
    def _unchecked(cls, pool: goboard.Pool, slots: NDArray[np.int64]) -> Positions:
        """A batch from an int64 slot array the caller has already checked."""
        self = cls.__new__(cls)
        self.pool = pool
        self.slots = slots
        self._legal = None
        return self

    def __len__(self) -> int:
        return int(self.slots.shape[0])

    @property
    def num_actions(self) -> int:
        """N*N + 1."""
        return int(self.pool.size) ** 2 + 1

    def legal_masks(self) -> NDArray[np.bool_]:
        """bool [B, N*N + 1] (cached; do not modify)."""
        if self._legal is None:
            self._legal = self.pool.legal_masks(self.slots)
        return self._legal

    def subset(self, index: NDArray[np.intp] | Sequence[int]) -> Positions:
        """The positions at ``index`` (sharing the cached legal masks)."""
        legal = None if self._legal is None else self._legal[index]
        return Positions(self.pool, self.slots[index], legal)


@runtime_checkable
class Evaluator(Protocol):
    """Evaluates positions: ``(priors [B, N*N+1], values [B])``, float32, values from
    the side to move's view in [-1, 1]."""

    def evaluate(self, positions: Positions) -> Output: ...


@runtime_checkable
class ScoredEvaluator(Evaluator, Protocol):
    """An evaluator that also estimates the final score: ``evaluate_scored`` gives
    ``(priors, values, areas, variances)``, the first two as ``evaluate``'s; ``areas``
    float32 [B] the expected final area of the side to move less the opponent's
    (komi not included), ``variances`` float32 [B] >= 0 that estimate's variance."""

    def evaluate_scored(self, positions: Positions) -> ScoredOutput: ...


@runtime_checkable
class RolloutPolicy(Protocol):
    """Plays positions out: ``values(positions)`` float32 [B], the mean outcome from the
    side to move (AlphaGo 2016's ``z``). :class:`RolloutEvaluator` is the uniform random
    one; a learned fast rollout policy can take its place."""

    def values(self, positions: Positions) -> NDArray[np.float32]: ...


@runtime_checkable
class ConcurrentRollouts(RolloutPolicy, Protocol):
    """A rollout policy that can play while the search evaluates the network:
    ``values_later(positions)`` may start the rollouts on other threads and returns a
    callable that waits for them and gives ``values(positions)``. The search calls it
    exactly once, also when the network fails, so no rollout still reads the pool when
    the search changes it."""

    def values_later(
        self, positions: Positions
    ) -> Callable[[], NDArray[np.float32]]: ...


def check_output(
    output: object, batch: int, actions: int, *, trusted: bool = False
) -> Output:
    """Validate an evaluator's answer; returns it as float32 arrays.

    ``trusted`` skips the range checks (types and shapes are always checked).

    Raises:
        TypeError: not a pair of arrays.
        ValueError: wrong shapes, NaN, or values outside [-1, 1].
    """
    if not isinstance(output, tuple) or len(output) != 2:
        raise TypeError("an evaluator must return a pair (priors, values)")
    priors, values = output
    if not (isinstance(priors, np.ndarray) and priors.dtype == np.float32):
        priors = np.asarray(priors, dtype=np.float32)
    if not (isinstance(values, np.ndarray) and values.dtype == np.float32):
        values = np.asarray(values, dtype=np.float32)
    if priors.shape != (batch, actions) or values.shape != (batch,):
        raise ValueError(
            f"evaluator returned priors {priors.shape} and values {values.shape}; "
            f"expected ({batch}, {actions}) and ({batch},)"
        )
    # min/max propagate NaN, which fails these comparisons too.
    if (
        batch
        and not trusted
        and not (priors.min() >= 0 and values.min() >= -1 and values.max() <= 1)
    ):
        raise ValueError("evaluator priors must be >= 0 and values in [-1, 1]")
    return priors, values


def _uniform(legal: NDArray[np.bool_]) -> NDArray[np.float32]:
    priors = legal.astype(np.float32)
    priors /= np.maximum(legal.sum(axis=1, keepdims=True, dtype=np.float32), 1.0)
    return priors


class UniformEvaluator:
    """Uniform priors over the legal moves and value 0 (tree overhead alone)."""

    def evaluate(self, positions: Positions) -> Output:
        priors = _uniform(positions.legal_masks())
        return priors, np.zeros(len(positions), dtype=np.float32)


class RolloutEvaluator:
    """Random C playouts: value = mean outcome from the side to move.

    Each playout scores +1 if the side to move at the position wins it (by the sign of
    the final Tromp-Taylor score), -1 if it loses, 0 for a tie; the value is the mean
    over ``playouts`` playouts. Priors are uniform over the legal moves. Playouts follow
    ``goboard.playouts``' policy (random legal moves that keep the mover's true eyes).

    Args:
        playouts: playouts per position (>= 1).
        seed: an int, a Generator, or None; each call draws a fresh playout seed from
            it, so a sequence of calls is reproducible.
    """

    def __init__(
        self, playouts: int = 1, seed: int | np.random.Generator | None = None
    ) -> None:
        if isinstance(playouts, bool) or not isinstance(playouts, int):
            raise TypeError(f"playouts must be an int, not {type(playouts).__name__}")
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, not {playouts}")
        self.playouts = playouts
        self._rng = make_rng(seed)

    def values(self, positions: Positions) -> NDArray[np.float32]:
        """float32 [B]: mean playout outcome from each position's side to move."""
        if len(positions) == 0:
            return np.zeros(0, dtype=np.float32)
        seed = int(self._rng.integers(0, 2**63))
        scores = positions.pool.playouts(positions.slots, self.playouts, seed)
        wins = np.sign(scores).mean(axis=1)
        to_play = positions.pool.to_play(positions.slots)
        values: NDArray[np.float32] = (wins * to_play).astype(np.float32)
        return values

    def evaluate(self, positions: Positions) -> Output:
        return _uniform(positions.legal_masks()), self.values(positions)


class CachedEvaluator:
    """An LRU cache in front of another evaluator (Leela Zero's NN cache).

    Keys are ``pool.eval_keys`` (stones of the last 8 positions, side to move, ko point:
    what a network sees) together with the board size. Positions repeated within one
    batch are evaluated once. Answers are copies, so callers cannot change the cache.
    Use it only in front of deterministic evaluators (a cached rollout value would be
    frozen).

    Attributes:
        hits, misses: lookups answered from the cache / passed to ``inner``.
    """

    def __init__(self, inner: Evaluator, capacity: int = 100_000) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int):
            raise TypeError(f"capacity must be an int, not {type(capacity).__name__}")
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, not {capacity}")
        self.inner = inner
        self.capacity = capacity
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[
            tuple[int, int], tuple[NDArray[np.float32], float]
        ] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry (the counters stay)."""
        self._entries.clear()

    def evaluate(self, positions: Positions) -> Output:
        size = int(positions.pool.size)
        actions = size * size + 1
        batch = len(positions)
        keys = positions.pool.eval_keys(positions.slots).tolist()
        priors = np.empty((batch, actions), dtype=np.float32)
        values = np.empty(batch, dtype=np.float32)
        entries = self._entries
        first: dict[tuple[int, int], int] = {}
        missing: list[int] = []
        repeats: list[tuple[int, tuple[int, int]]] = []
        for i, raw in enumerate(keys):
            key = (size, raw)
            entry = entries.get(key)
            if entry is not None:
                entries.move_to_end(key)
                priors[i] = entry[0]
                values[i] = entry[1]
                self.hits += 1
            elif key in first:
                repeats.append((i, key))
                self.hits += 1
            else:
                first[key] = i
                missing.append(i)
                self.misses += 1
        if missing:
            sub = positions.subset(missing)
            p, v = check_output(self.inner.evaluate(sub), len(missing), actions)
            priors[missing] = p
            values[missing] = v
            for i in missing:
                entries[(size, keys[i])] = (priors[i].copy(), float(values[i]))
            while len(entries) > self.capacity:
                entries.popitem(last=False)
        for i, key in repeats:
            j = first[key]
            priors[i] = priors[j]
            values[i] = values[j]
        return priors, values


#: Evaluator types whose answers need no range check (see ``check_output``).
TRUSTED: frozenset[type] = frozenset(
    {UniformEvaluator, RolloutEvaluator, CachedEvaluator}
)
