"""The feature index space of the pattern rollout policy (``goboard.PatternPolicy``).

AlphaGo (2016) played its rollouts with a linear softmax over cheap local features of
each candidate move. Ours (layout version 1; ``rollout.h`` and ``patterns.h`` define
the codes in C) has ``NUM_FEATURES`` weights:

==========================  =================================================
index                       the move ...
==========================  =================================================
``CAPTURE`` (0)             captures at least one stone
``SAVE_ATARI`` (1)          joins an own string in atari and leaves it with
                            2 or more liberties
``SELF_ATARI`` (2)          leaves its own string with exactly 1 liberty
``NEAR_PREVIOUS`` (3)       is one of the 8 neighbours of the previous move
``PAT3 + k``                has 3x3 pattern class k (0 <= k < ``PAT3_CLASSES``)
``RESPONSE + j``            lies in the 12-point diamond around the previous
                            move and its response pattern hashes to bucket j
                            (0 <= j < ``RESPONSE_BUCKETS``)
==========================  =================================================

A 3x3 pattern is the 8 neighbours of the move seen by the side to move: orthogonal
neighbours are empty, off-board, own or opponent, the stones split by whether their
string is in atari; diagonal ones are empty, off-board, own or opponent. Patterns that
differ only by a rotation or reflection share a class (42,990 classes). A response
pattern is the colours of the 12 points around the previous move, the liberties of the
previous move's string (capped at 3) and where the candidate sits among the 12, taken
up to symmetry and hashed into 65,536 buckets.

The candidates are the empty points that are neither suicide, the ko point, nor a true
eye of the side to move; pass only when there are none.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CAPTURE",
    "LAYOUT_VERSION",
    "MAX_WEIGHT",
    "NEAR_PREVIOUS",
    "NUM_FEATURES",
    "PAT3",
    "PAT3_CLASSES",
    "RESPONSE",
    "RESPONSE_BUCKETS",
    "SAVE_ATARI",
    "SELF_ATARI",
    "check_weights",
    "feature_name",
    "renormalise_legal",
]

LAYOUT_VERSION = 1
CAPTURE = 0
SAVE_ATARI = 1
SELF_ATARI = 2
NEAR_PREVIOUS = 3
PAT3 = 4
PAT3_CLASSES = 42990
RESPONSE = PAT3 + PAT3_CLASSES
RESPONSE_BUCKETS = 1 << 16
NUM_FEATURES = RESPONSE + RESPONSE_BUCKETS
#: Largest |weight| accepted (keeps every product of exp(weight) finite).
MAX_WEIGHT = 50.0

_BINARY = ("capture", "save-atari", "self-atari", "near-previous")


def feature_name(index: int) -> str:
    """A readable name: "capture", "pat3:17", "response:40211"."""
    if not 0 <= index < NUM_FEATURES:
        raise ValueError(f"feature index {index} is not in 0..{NUM_FEATURES - 1}")
    if index < PAT3:
        return _BINARY[index]
    if index < RESPONSE:
        return f"pat3:{index - PAT3}"
    return f"response:{index - RESPONSE}"


def check_weights(weights: Any) -> NDArray[np.float32]:
    """A private read-only float32 copy of valid rollout weights.

    Raises:
        ValueError: not a 1-D float32 numpy array of ``NUM_FEATURES`` entries, or a
            NaN, an infinity or a weight beyond +-``MAX_WEIGHT``.
    """
    if not isinstance(weights, np.ndarray):
        raise ValueError(
            f"weights must be a float32 numpy array, not {type(weights).__name__}"
        )
    if weights.dtype != np.float32:
        raise ValueError(f"weights must have dtype float32, not {weights.dtype}")
    if weights.shape != (NUM_FEATURES,):
        raise ValueError(
            f"weights must have shape ({NUM_FEATURES},) (pattern layout "
            f"v{LAYOUT_VERSION}), not {weights.shape}"
        )
    if not np.isfinite(weights).all():
        raise ValueError("weights must be finite (found NaN or infinity)")
    if weights.size and float(np.abs(weights).max()) > MAX_WEIGHT:
        raise ValueError(f"weights must lie within +-{MAX_WEIGHT}")
    out = np.array(weights, dtype=np.float32, order="C", copy=True)
    out.flags.writeable = False
    return out


def renormalise_legal(
    probs: NDArray[np.float32], legal: NDArray[np.bool_]
) -> NDArray[np.float32]:
    """``probs`` restricted to ``legal`` moves and summing to 1 (pass if none left)."""
    out = np.where(legal, probs, np.float32(0)).astype(np.float32)
    out[-1] = 0.0
    total = float(out.sum(dtype=np.float64))
    if total > 0:
        out /= np.float32(total)
    else:
        out[-1] = 1.0
    return out
