"""Weights files of the pattern rollout policy (``goboard.PatternPolicy``).

A file is an ``.npz`` archive (numpy only, no pickles) of three arrays: ``kind`` (the
string :data:`KIND`, so a file of another kind is refused by name rather than misread),
``layout`` (the feature layout version, ``goboard.pattern_features.LAYOUT_VERSION``)
and ``weights`` (float32, ``NUM_FEATURES``). It is written atomically.
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np

import goboard
from goboard import pattern_features as pf

from .atomic import atomic_write_bytes

__all__ = [
    "KIND",
    "load_rollout_policy",
    "load_rollout_weights",
    "save_rollout_weights",
]

KIND = "alphago.rollout-patterns"
#: A weights file is ~450 kB; anything far larger is not one.
_MAX_BYTES = 64 << 20


def save_rollout_weights(
    weights: np.ndarray | goboard.PatternPolicy, path: str | os.PathLike[str]
) -> None:
    """Write ``weights`` (an array or a policy's) to ``path`` atomically.

    Raises:
        ValueError: invalid weights (see ``pattern_features.check_weights``).
        OSError: the file cannot be written.
    """
    if isinstance(weights, goboard.PatternPolicy):
        weights = weights.weights
    w = pf.check_weights(weights)
    buffer = io.BytesIO()
    np.savez(
        buffer,
        kind=np.array(KIND),
        layout=np.array(pf.LAYOUT_VERSION, dtype=np.int64),
        weights=w,
    )
    atomic_write_bytes(path, buffer.getbuffer())


def load_rollout_weights(path: str | os.PathLike[str]) -> np.ndarray:
    """The float32 weights stored at ``path``.

    Raises:
        ValueError: not a rollout weights file, another layout, or bad weights.
        OSError: the file cannot be read.
    """
    with open(path, "rb") as f:
        data = f.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        raise ValueError(f"{path}: too large for a rollout weights file")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            kind = str(archive["kind"])
            layout = int(archive["layout"])
            weights = np.array(archive["weights"])
    except (KeyError, ValueError, OSError, zipfile.BadZipFile, EOFError):
        raise ValueError(
            f"{path}: not a rollout weights file (the .npz that alphago train "
            "rollout writes)"
        ) from None
    if kind != KIND:
        raise ValueError(f"{path}: a {kind!r} file, not {KIND!r}")
    if layout != pf.LAYOUT_VERSION:
        raise ValueError(
            f"{path}: feature layout v{layout}; this version reads v{pf.LAYOUT_VERSION}"
        )
    try:
        return pf.check_weights(weights)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def load_rollout_policy(path: str | os.PathLike[str]) -> goboard.PatternPolicy:
    """A ``goboard.PatternPolicy`` with the weights stored at ``path``."""
    return goboard.PatternPolicy(load_rollout_weights(path))
