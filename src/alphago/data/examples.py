"""Training examples: (planes, policy target, value target), in memory and in shards.

An :class:`Examples` holds ``n`` positions as three arrays:

- ``planes``: uint8 ``[n, C, N, N]``, goboard feature planes (every plane is 0/1, so
  uint8 is exact and a quarter of float32), from the side to move's view;
- ``policy``: float32 ``[n, N*N + 1]``, a distribution over moves (pass last): one-hot
  for a teacher's move, the root visit distribution for self-play;
- ``value``: float32 ``[n]``, the game's outcome for the side to move: +1 win, -1 loss,
  0 tie;
- optional auxiliary targets (KataGo's; both present or both absent):
  ``ownership``, int8 ``[n, N, N]``, the Tromp-Taylor owner of each point at the end
  of the game from the side to move's view (+1 ours, -1 theirs, 0 neither), and
  ``score``, float32 ``[n]``, the final area margin for the side to move in points
  (komi included). A row whose game was not played out (a resignation) has no such
  targets: its score is NaN and its ownership 0, and the learner masks it out.
  Shards written before these targets existed load without them.

Shards are ``.npz`` files (numpy's zip of arrays, compressed: the planes are mostly
zeros) written atomically; the plane kind is stored beside the arrays so a shard cannot
be fed to a network of another input kind by mistake.

The eight symmetries of the board are applied when a batch is sampled
(:func:`sample_batch`), not stored: one random transform per example, the same on its
planes and on its policy target.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from goboard import symmetries

from ..atomic import atomic_write_bytes
from ..nets.alphago2016 import PLANES as PLANES_2016
from ..nets.model import INPUT_PLANES

__all__ = [
    "PLANE_KINDS",
    "PROGRESS_NAME",
    "AuxBatch",
    "Examples",
    "augment",
    "load_shards",
    "sample_aux_batch",
    "sample_batch",
]

#: The file an unfinished ``build_shards`` run keeps in its shard directory
#: (:mod:`alphago.data.dataset`): such a directory holds only part of its shards.
PROGRESS_NAME = "shards.progress"

#: Plane kinds examples may hold, with their plane counts: the Zero net's inputs and
#: the AlphaGo 2016 nets' (``alphago48`` for the policy).
PLANE_KINDS: dict[str, int] = {**INPUT_PLANES, **PLANES_2016}

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]


@dataclass(slots=True)
class Examples:
    """``n`` training positions (module docstring); shapes checked on creation."""

    planes: U8
    policy: F32
    value: F32
    kind: str = "agz17"
    ownership: NDArray[np.int8] | None = None  # [n, N, N]
    score: F32 | None = None  # [n], NaN: no auxiliary targets for this row

    def __post_init__(self) -> None:
        if self.kind not in PLANE_KINDS:
            raise ValueError(f"unknown plane kind {self.kind!r}")
        planes, policy, value = self.planes, self.policy, self.value
        if planes.dtype != np.uint8 or planes.ndim != 4:
            raise ValueError(
                f"planes must be uint8 [n, C, N, N], not {planes.dtype} {planes.shape}"
            )
        n, c, size, width = planes.shape
        if c != PLANE_KINDS[self.kind] or size != width:
            raise ValueError(f"planes {planes.shape} do not fit kind {self.kind!r}")
        if policy.dtype != np.float32 or policy.shape != (n, size * size + 1):
            raise ValueError(
                f"policy must be float32 [{n}, {size * size + 1}], "
                f"not {policy.dtype} {policy.shape}"
            )
        if value.dtype != np.float32 or value.shape != (n,):
            raise ValueError(
                f"value must be float32 [{n}], not {value.dtype} {value.shape}"
            )
        owner, score = self.ownership, self.score
        if (owner is None) != (score is None):
            raise ValueError("ownership and score come together, or neither")
        if owner is not None and (
            owner.dtype != np.int8 or owner.shape != (n, size, size)
        ):
            raise ValueError(
                f"ownership must be int8 [{n}, {size}, {size}], "
                f"not {owner.dtype} {owner.shape}"
            )
        if score is not None and (score.dtype != np.float32 or score.shape != (n,)):
            raise ValueError(
                f"score must be float32 [{n}], not {score.dtype} {score.shape}"
            )

    @property
    def has_aux(self) -> bool:
        """Whether the auxiliary targets are here (some rows may still lack them)."""
        return self.score is not None

    def with_aux(self) -> Examples:
        """These examples with the auxiliary arrays (if absent: every row masked)."""
        if self.has_aux:
            return self
        n, size = len(self), self.size
        return Examples(
            self.planes,
            self.policy,
            self.value,
            self.kind,
            np.zeros((n, size, size), np.int8),
            np.full(n, np.nan, np.float32),
        )

    @classmethod
    def empty(cls, size: int, kind: str = "agz17") -> Examples:
        """No examples, with the shapes of ``size`` and ``kind``."""
        c = PLANE_KINDS[kind]
        return cls(
            np.zeros((0, c, size, size), np.uint8),
            np.zeros((0, size * size + 1), np.float32),
            np.zeros(0, np.float32),
            kind,
        )

    def __len__(self) -> int:
        return int(self.value.shape[0])

    @property
    def size(self) -> int:
        """Board size N."""
        return int(self.planes.shape[-1])

    def take(self, index: NDArray[np.integer] | slice) -> Examples:
        """The examples at ``index`` (copies for index arrays, views for slices)."""
        return Examples(
            self.planes[index],
            self.policy[index],
            self.value[index],
            self.kind,
            None if self.ownership is None else self.ownership[index],
            None if self.score is None else self.score[index],
        )

    @staticmethod
    def concat(parts: Sequence[Examples]) -> Examples:
        """All of ``parts`` in order (at least one; same size and kind)."""
        if not parts:
            raise ValueError("nothing to concatenate")
        kinds = {(p.kind, p.size) for p in parts}
        if len(kinds) != 1:
            raise ValueError(f"examples of different kinds or sizes: {sorted(kinds)}")
        owner = score = None
        if any(p.has_aux for p in parts):
            # Old examples (without the targets) beside new ones: masked rows.
            full = [p.with_aux() for p in parts]
            owner = np.concatenate([p.ownership for p in full])
            score = np.concatenate([p.score for p in full])
        return Examples(
            np.concatenate([p.planes for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
            parts[0].kind,
            owner,
            score,
        )

    def save(self, path: str | Path) -> None:
        """Write a compressed ``.npz`` shard atomically."""
        buffer = io.BytesIO()
        aux: dict[str, NDArray[np.generic]] = {}
        if self.ownership is not None and self.score is not None:
            aux = {"ownership": self.ownership, "score": self.score}
        np.savez_compressed(
            buffer,
            planes=self.planes,
            policy=self.policy,
            value=self.value,
            kind=np.array(self.kind),
            **aux,  # type: ignore[arg-type]
        )
        atomic_write_bytes(path, buffer.getbuffer())

    @classmethod
    def load(cls, path: str | Path) -> Examples:
        """Read a shard written by :meth:`save` (ValueError if it is not one)."""
        # The file is opened here, not by np.load, which leaves it open when the
        # zip is damaged (a ResourceWarning).
        try:
            with open(path, "rb") as file:
                # np.load reads any other file as a pickle and then blames "pickled
                # (object) data": name what it is instead.
                if not zipfile.is_zipfile(file):
                    raise ValueError("not an .npz archive")
                file.seek(0)
                data = np.load(file, allow_pickle=False)
                if not isinstance(data, np.lib.npyio.NpzFile):
                    raise ValueError("an .npy array, not an .npz archive")
                with data:
                    aux = "score" in data.files
                    return cls(
                        data["planes"],
                        data["policy"],
                        data["value"],
                        str(data["kind"]),
                        data["ownership"] if aux else None,
                        data["score"] if aux else None,
                    )
        except (KeyError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise ValueError(f"{path}: not an examples shard ({exc})") from None
        except ValueError as exc:  # not a zip, or arrays of the wrong shapes
            raise ValueError(f"{path}: not an examples shard ({exc})") from None


def load_shards(paths: Sequence[str | Path]) -> Examples:
    """Every shard under ``paths`` (files, or directories of ``*.npz``) as one set.

    Raises:
        ValueError: no shards, a file that is not a shard, or a directory of an
            unfinished ``build_shards`` run (it holds :data:`PROGRESS_NAME`).
    """
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir() and (path / PROGRESS_NAME).exists():
            raise ValueError(
                f"{path}: an unfinished shards run (rerun alphago shards to finish "
                f"it): its shards are only part of the data"
            )
        files.extend(sorted(path.glob("*.npz")) if path.is_dir() else [path])
    if not files:
        raise ValueError(f"no shards in {', '.join(map(str, paths))}")
    return Examples.concat([Examples.load(f) for f in files])


def augment(
    planes: U8, policy: F32, transforms: NDArray[np.integer]
) -> tuple[F32, F32]:
    """Apply transform ``transforms[i]`` to example ``i``; planes come back float32."""
    out_planes = np.empty(planes.shape, np.float32)
    out_policy = np.empty_like(policy)
    for k in range(symmetries.COUNT):
        rows = np.flatnonzero(transforms == k)
        if rows.size:
            out_planes[rows] = symmetries.transform_planes(planes[rows], k)
            out_policy[rows] = symmetries.transform_policy(policy[rows], k)
    return out_planes, out_policy


def _draw(
    examples: Examples,
    rng: np.random.Generator,
    batch_size: int,
    use_symmetries: bool,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The rows and transforms of a batch (the same draws for both samplers)."""
    if len(examples) == 0:
        raise ValueError("cannot sample from no examples")
    rows = rng.integers(0, len(examples), batch_size)
    transforms = (
        rng.integers(0, symmetries.COUNT, batch_size)
        if use_symmetries
        else np.zeros(batch_size, np.int64)
    )
    return rows, transforms


def sample_batch(
    examples: Examples,
    rng: np.random.Generator,
    batch_size: int,
    use_symmetries: bool = True,
) -> tuple[F32, F32, F32]:
    """A random batch (with replacement): float32 planes, policy and value targets."""
    rows, transforms = _draw(examples, rng, batch_size, use_symmetries)
    planes, policy = augment(examples.planes[rows], examples.policy[rows], transforms)
    return planes, policy, examples.value[rows].copy()


#: (planes, policy, value, ownership float32 [B, N, N], score float32 [B]; NaN
#: where a row has no auxiliary targets).
AuxBatch = tuple[F32, F32, F32, F32, F32]


def sample_aux_batch(
    examples: Examples,
    rng: np.random.Generator,
    batch_size: int,
    use_symmetries: bool = True,
) -> AuxBatch:
    """:func:`sample_batch` plus the auxiliary targets, the ownership transformed
    with its example's planes. It draws from ``rng`` exactly as :func:`sample_batch`
    does, so a run with the auxiliary losses trains on the same batches as one
    without them."""
    rows, transforms = _draw(examples, rng, batch_size, use_symmetries)
    planes, policy = augment(examples.planes[rows], examples.policy[rows], transforms)
    value = examples.value[rows].copy()
    if examples.ownership is None or examples.score is None:
        n = examples.size
        owner = np.zeros((batch_size, n, n), np.float32)
        return planes, policy, value, owner, np.full(batch_size, np.nan, np.float32)
    owner = examples.ownership[rows].astype(np.float32)
    for k in range(1, symmetries.COUNT):
        picked = np.flatnonzero(transforms == k)
        if picked.size:
            owner[picked] = symmetries.transform_planes(owner[picked], k)
    return planes, policy, value, owner, examples.score[rows]
