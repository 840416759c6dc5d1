"""NetEvaluator: a :class:`PolicyValueNet` behind search's Evaluator protocol.

One ``evaluate`` call is one network call: the positions' planes are written by
``pool.features`` into a reused float32 buffer, transformed by the chosen symmetries
(``goboard.symmetries``), run through the model under ``torch.inference_mode()``,
and the policy logits mapped back with the inverse transforms. Illegal moves are
masked before the softmax, so priors are exactly zero on illegal moves and sum to 1
over the legal ones (a position with no legal move, a finished game, gets all
zeros). Values are the net's tanh output: the side to move's expected outcome.

Symmetries (the eight transforms of the square, as Leela Zero uses them):

- ``"none"``: the identity only (deterministic);
- ``"random"``: one transform per position, drawn from the seeded generator (Leela
  Zero's default; the cache then freezes whichever was drawn first);
- ``"average"``: the mean of all eight (deterministic, 8 times the work);
- an int k in 1..8: the mean over k distinct transforms drawn per position
  (k = 1 is ``"random"``, k = 8 is ``"average"``).

Priors are averaged after the softmax, values as they come.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch
from numpy.typing import NDArray

from goboard import symmetries
from search.evaluator import Positions, make_rng

from .model import PolicyValueNet

__all__ = ["NetEvaluator"]

_MODES = {"none": 0, "random": 1, "average": 8}


class _Raw(NamedTuple):
    k: int  # transforms per position
    source: NDArray[np.intp]  # [B * k]: the position of each row
    logits: NDArray[np.float32]  # [B * k, A]
    values: NDArray[np.float32]  # [B * k]
    ownership: NDArray[np.float32] | None  # [B * k, N, N], side to move's view


def _parse_symmetries(value: str | int) -> int:
    if isinstance(value, str):
        if value not in _MODES:
            raise ValueError(
                f"symmetries must be 'none', 'random', 'average' or an int in 1..8, "
                f"not {value!r}"
            )
        return _MODES[value]
    if isinstance(value, bool) or not isinstance(value, int):
        kind = type(value).__name__
        raise TypeError(f"symmetries must be a str or an int, not {kind}")
    if not 1 <= value <= symmetries.COUNT:
        raise ValueError(f"symmetries must be in 1..8, not {value}")
    return value


def masked_softmax(
    logits: NDArray[np.float32], legal: NDArray[np.bool_]
) -> NDArray[np.float32]:
    """Row-wise softmax over the legal entries; zeros elsewhere and on rows with no
    legal entry. ``logits`` is overwritten."""
    logits[~legal] = -np.inf
    top = logits.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    np.subtract(logits, top, out=logits)
    np.exp(logits, out=logits)
    total = logits.sum(axis=1, keepdims=True)
    np.divide(logits, np.maximum(total, np.float32(1e-30)), out=logits)
    return logits


class NetEvaluator:
    """Evaluates positions with a :class:`PolicyValueNet` (implements
    ``search.Evaluator``).

    Args:
        model: the network; it is moved to ``device`` and put in eval mode.
        device: torch device for the forward pass ("cpu", "cuda", ...).
        threads: if given, ``torch.set_num_threads(threads)`` (process-wide).
        symmetries: "none", "random", "average" or k in 1..8 (module docstring).
        seed: int, Generator or None: the source of the random transforms.

    One evaluator reuses its input buffers from call to call: share it between
    threads only behind a lock (or give each thread its own).
    """

    def __init__(
        self,
        model: PolicyValueNet,
        device: str | torch.device = "cpu",
        threads: int | None = None,
        symmetries: str | int = "random",
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if not isinstance(model, PolicyValueNet):
            kind = type(model).__name__
            raise TypeError(f"model must be a PolicyValueNet, not {kind}")
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int):
                kind = type(threads).__name__
                raise TypeError(f"threads must be an int, not {kind}")
            if threads < 1:
                raise ValueError(f"threads must be >= 1, not {threads}")
            torch.set_num_threads(threads)
        self.k = _parse_symmetries(symmetries)
        self.device = torch.device(device)
        # Channels-last lets oneDNN's convolutions skip layout reorders: measured
        # 1.2-1.35x positions/s for a 6x64 19x19 net on 2 CPU threads. The model is
        # converted in place (a layout change only: training it further still works).
        self.model = model.to(self.device).eval()
        self.model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.config = model.config
        self._rng = make_rng(seed)
        self._planes: NDArray[np.float32] | None = None  # [cap, C, N, N]
        self._inputs: NDArray[np.float32] | None = None  # [cap * k, C, N, N]

    def _buffer(self, which: str, rows: int) -> NDArray[np.float32]:
        buf: NDArray[np.float32] | None = getattr(self, which)
        if buf is None or buf.shape[0] < rows:
            cfg = self.config
            n = cfg.board_size
            old = 0 if buf is None else buf.shape[0]
            cap = max(rows, 2 * old)
            buf = np.empty((cap, cfg.planes, n, n), dtype=np.float32)
            setattr(self, which, buf)
        return buf[:rows]

    def _choose(self, batch: int) -> NDArray[np.int64]:
        """Transforms [batch, k] for each position (distinct within a row)."""
        if self.k == 0:
            return np.zeros((batch, 1), dtype=np.int64)
        if self.k == symmetries.COUNT:
            return np.tile(np.arange(symmetries.COUNT, dtype=np.int64), (batch, 1))
        keys = self._rng.random((batch, symmetries.COUNT))
        return np.argsort(keys, axis=1)[:, : self.k].astype(np.int64)

    def forward(
        self, planes: NDArray[np.float32]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32] | None]:
        """Raw network outputs for planes [M, C, N, N]: logits [M, A], values [M] and
        ownership [M, N, N] (None without an ownership head)."""
        with torch.inference_mode():
            x = torch.from_numpy(planes).to(self.device)
            logits, values, owner = self.model(
                x.contiguous(memory_format=torch.channels_last)
            )
            out_p: NDArray[np.float32] = logits.float().cpu().numpy()
            out_v: NDArray[np.float32] = values.float().cpu().numpy()
            out_o: NDArray[np.float32] | None = (
                None if owner is None else owner.float().cpu().numpy()
            )
        return out_p, out_v, out_o

    def _infer(self, positions: Positions) -> _Raw:
        """Network outputs for ``positions`` under the chosen transforms, mapped back
        to the positions' own frame; row j * B + i is position i's j-th transform."""
        cfg = self.config
        n = cfg.board_size
        pool = positions.pool
        if int(pool.size) != n:
            raise ValueError(f"the network is for {n}x{n} boards, not {pool.size}")
        batch = len(positions)
        planes = self._buffer("_planes", batch)
        pool.features(positions.slots, cfg.input_planes, out=planes)
        chosen = self._choose(batch)  # [B, k]
        k = chosen.shape[1]
        flat = chosen.T.reshape(-1)
        source = np.tile(np.arange(batch), k)
        groups = [(s, np.flatnonzero(flat == s)) for s in np.unique(flat).tolist()]
        if self.k == 0:
            inputs = planes
        else:
            inputs = self._buffer("_inputs", batch * k)
            for s, rows in groups:
                inputs[rows] = symmetries.transform_planes(planes[source[rows]], s)
        logits, values, owner = self.forward(inputs)
        for s, rows in groups:
            if s != 0:
                back = symmetries.inverse(s)
                logits[rows] = symmetries.transform_policy(logits[rows], back)
                if owner is not None:
                    owner[rows] = symmetries.transform_planes(owner[rows], back)
        return _Raw(k, source, logits, values, owner)

    def evaluate(
        self, positions: Positions
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Priors float32 [B, N*N + 1] and values float32 [B] for ``positions``."""
        batch = len(positions)
        actions = self.config.actions
        if batch == 0:
            empty = np.zeros((0, actions), dtype=np.float32)
            return empty, np.zeros(0, dtype=np.float32)
        raw = self._infer(positions)
        priors = masked_softmax(raw.logits, positions.legal_masks()[raw.source])
        values = raw.values
        if raw.k > 1:
            priors = priors.reshape(raw.k, batch, actions).mean(0, dtype=np.float32)
            values = values.reshape(raw.k, batch).mean(0, dtype=np.float32)
        values = np.clip(values, -1.0, 1.0).astype(np.float32, copy=False)
        return priors, values

    def ownership(self, positions: Positions) -> NDArray[np.float32]:
        """float32 [B, N, N] in [-1, 1] from Black's view (+1: Black's point at the
        end), averaged over the same transforms as :meth:`evaluate`.

        Raises:
            ValueError: the net has no ownership head (or the board size differs).
        """
        if not self.config.ownership_head:
            raise ValueError("this network has no ownership head")
        n = self.config.board_size
        batch = len(positions)
        if batch == 0:
            return np.zeros((0, n, n), dtype=np.float32)
        raw = self._infer(positions)
        assert raw.ownership is not None
        owner = raw.ownership.reshape(raw.k, batch, n, n).mean(0, dtype=np.float32)
        sign = positions.pool.to_play(positions.slots).astype(np.float32)
        result: NDArray[np.float32] = np.clip(owner * sign[:, None, None], -1.0, 1.0)
        return result

    def __repr__(self) -> str:
        cfg: Any = self.config
        return (
            f"NetEvaluator({cfg.board_size}x{cfg.board_size}, {cfg.blocks} blocks x "
            f"{cfg.filters} filters, symmetries={self.k}, device={self.device})"
        )
