"""Rollouts with AlphaGo 2016's fast pattern policy as a :class:`RolloutPolicy`.

:class:`PatternRollouts` plays each leaf out with ``goboard.PatternPolicy`` (a softmax
over local pattern features, in C, without the GIL) instead of uniform random moves,
so ``search.AlphaGo2016(..., rollout=PatternRollouts(policy))`` mixes the value net
with the outcomes of the learned rollout policy, as the 2016 paper did.
"""

from __future__ import annotations

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

    Args:
        policy: the rollout policy and its weights.
        playouts: rollouts per position (>= 1).
        seed: an int, a Generator, or None; each call draws a fresh rollout seed
            from it, so a sequence of calls is reproducible.
    """

    def __init__(
        self,
        policy: goboard.PatternPolicy,
        playouts: int = 1,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if not isinstance(policy, goboard.PatternPolicy):
            kind = type(policy).__name__
            raise TypeError(f"policy must be a goboard.PatternPolicy, not {kind}")
        if isinstance(playouts, bool) or not isinstance(playouts, int):
            raise TypeError(f"playouts must be an int, not {type(playouts).__name__}")
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, not {playouts}")
        self.policy = policy
        self.playouts = playouts
        self._rng = make_rng(seed)

    def values(self, positions: Positions) -> NDArray[np.float32]:
        """float32 [B]: mean rollout outcome from each position's side to move."""
        if len(positions) == 0:
            return np.zeros(0, dtype=np.float32)
        seed = int(self._rng.integers(0, 2**63))
        scores = self.policy.pool_playouts(
            positions.pool, positions.slots, self.playouts, seed
        )
        wins = np.sign(scores).mean(axis=1)
        to_play = positions.pool.to_play(positions.slots)
        values: NDArray[np.float32] = (wins * to_play).astype(np.float32)
        return values

    def evaluate(self, positions: Positions) -> Output:
        return _uniform(positions.legal_masks()), self.values(positions)
