"""The eight symmetries of the square board, for planes, policies, points and stones.

Transform ``k`` in 0..7 rotates a board by ``k % 4`` quarter turns counter-clockwise
(as printed, row 0 on top) and then, for ``k >= 4``, mirrors it left to right. Transform
0 is the identity. Every function works on a trailing (N, N) pair of axes or a trailing
policy axis of N * N + 1 entries, so batches (leading axes) need no loop; pass (the last
policy entry, the point N * N) is left where it is.

``inverse(k)`` undoes ``k``: rotations undo with the opposite rotation, and every
reflection is its own inverse.
"""

from __future__ import annotations

import operator

import numpy as np
import numpy.typing as npt

from .coords import check_size

COUNT = 8

ArrayT = npt.NDArray[np.generic]


def _check(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"a symmetry must be an int in 0..7, not {type(k).__name__}")
    if not 0 <= k < COUNT:
        raise ValueError(f"a symmetry must be in 0..7, not {k}")
    return int(k)


def inverse(k: int) -> int:
    """The transform that undoes ``k``."""
    k = _check(k)
    return (4 - k) % 4 if k < 4 else k


def transform_planes(planes: npt.ArrayLike, k: int) -> ArrayT:
    """Apply transform ``k`` to the last two axes (..., N, N); returns a new array."""
    k = _check(k)
    arr = np.asarray(planes)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"planes must end in a square (N, N) pair, not {arr.shape}")
    out = np.rot90(arr, k % 4, axes=(-2, -1))
    if k >= 4:
        out = np.flip(out, axis=-1)
    # A copy even for k == 0, where rot90 returns a view of the input.
    return out.copy(order="C")


def transform_policy(policy: npt.ArrayLike, k: int) -> ArrayT:
    """Apply transform ``k`` to a policy (..., N * N + 1); pass stays last."""
    arr = np.asarray(policy)
    n = int(round((arr.shape[-1] - 1) ** 0.5)) if arr.ndim else 0
    if arr.ndim < 1 or n * n + 1 != arr.shape[-1]:
        raise ValueError(f"a policy must end in N * N + 1 entries, not {arr.shape}")
    board = arr[..., :-1].reshape(arr.shape[:-1] + (n, n))
    moved = transform_planes(board, k).reshape(arr.shape[:-1] + (n * n,))
    return np.concatenate([moved, arr[..., -1:]], axis=-1)


def transform_point(point: int, size: int, k: int) -> int:
    """Where transform ``k`` moves ``point`` (pass, ``size * size``, stays pass)."""
    size = check_size(size)
    k = _check(k)
    if isinstance(point, bool):
        raise TypeError("a point must be an int, not bool")
    point = operator.index(point)  # TypeError for floats and other non-integers
    if not 0 <= point <= size * size:
        raise ValueError(f"point {point!r} is off a {size}x{size} board")
    if point == size * size:
        return point
    marker = np.zeros((size, size), dtype=np.int8)
    marker.flat[point] = 1
    return int(np.flatnonzero(transform_planes(marker, k))[0])


def point_maps(size: int) -> npt.NDArray[np.intp]:
    """[8, N * N + 1] table: ``point_maps(n)[k][p] == transform_point(p, n, k)``."""
    size = check_size(size)
    ids = np.arange(size * size + 1)
    return np.stack([_gather_index(ids, k) for k in range(COUNT)])


def _gather_index(ids: npt.NDArray[np.intp], k: int) -> npt.NDArray[np.intp]:
    # transform_policy moves values; applied to the inverse transform of the identity
    # it gives, for each source point, where it lands.
    moved = transform_policy(ids, k)
    where = np.empty_like(ids)
    where[moved] = ids
    return where
