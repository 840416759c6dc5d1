"""NetEvaluator: a :class:`PolicyValueNet` behind search's Evaluator protocol.

One ``evaluate`` call is one network call. The positions' planes (all 0 or 1) are
written by ``pool.features`` as uint8 into a reused host buffer (page-locked when the
device is a GPU, so the copy to it is a DMA that need not wait), travel to the device
as uint8, a quarter of float32's bytes, and only there become floats: the chosen
symmetries are applied on the device, into a reused channels-last input buffer of the
compute type. The network runs under ``torch.inference_mode()``: by default on the
CPU (``fused``) as a :class:`~alphago.nets.fused.FusedNetwork` (batch norm folded
into the convolutions, the weights kept in the compute type), otherwise as the model
under the precision's autocast (:mod:`alphago.nets.precision`), on CUDA as a
replayed CUDA graph per batch-size bucket (:mod:`alphago.nets.graphs`), the policy
logits are mapped back with the inverse transforms on the device, and logits, values
(and ownership) come back to the host in one copy. Illegal moves are masked before
the softmax, so priors are exactly zero on illegal moves and sum to 1 over the legal
ones (a position with no legal move, a finished game, gets all zeros). Values are
the net's tanh output: the side to move's expected outcome.

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

import os
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch
from numpy.typing import NDArray
from torch import Tensor

from goboard import symmetries
from search.evaluator import Positions, make_rng

from .fused import FusedNetwork
from .graphs import GraphedForward, graphs_wanted
from .int8 import Int8Network
from .model import PolicyValueNet
from .precision import autocast, compute_dtype, resolve_device, resolve_precision

__all__ = ["CPU_BF16_MIN_ROWS", "NetEvaluator", "fused_wanted"]

_MODES = {"none": 0, "random": 1, "average": 8}

#: The fewest rows a CPU call runs in bf16: measured with one thread and the shipped
#: 4x48 9x9 net on an AMX CPU, bf16 took 1.3-2x float32's time for 1 row and broke
#: even at 2-4 rows (autocast casts the weights afresh each call); with AVX512-BF16
#: alone (AMD Zen 5), bf16 ran 0.80 of float32's speed at 1 row, 0.98 at 4, 1.09 at 8.
CPU_BF16_MIN_ROWS = 4


def fused_wanted(flag: bool | None, device: torch.device) -> bool:
    """Whether to run a :class:`FusedNetwork`: ``flag``, or when None,
    ``ALPHAGO_FUSED`` (``1`` or ``0``) if set, else yes on the CPU (measured faster
    there: README's "Devices and precision") and no on CUDA until it has been
    measured on a GPU (``benchmarks/bench_gpu.py`` times both)."""
    if flag is not None:
        return flag
    env = os.environ.get("ALPHAGO_FUSED")
    if env is not None:
        return env != "0"
    return device.type == "cpu"


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


def _transform(x: Tensor, k: int) -> Tensor:
    """``goboard.symmetries.transform_planes`` on a tensor's last two axes."""
    y = torch.rot90(x, k % 4, dims=(-2, -1)) if k % 4 else x
    return torch.flip(y, dims=(-1,)) if k >= 4 else y


def _transform_policy(p: Tensor, k: int, n: int) -> Tensor:
    """``goboard.symmetries.transform_policy`` on rows [M, N*N + 1]; pass stays."""
    board = _transform(p[:, :-1].reshape(-1, n, n), k).reshape(-1, n * n)
    return torch.cat([board, p[:, -1:]], dim=1)


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
        device: torch device for the forward pass ("cpu", "cuda", "cuda:1", or
            "auto": CUDA when present); ValueError if this machine lacks it.
        threads: if given, ``torch.set_num_threads(threads)`` (process-wide).
        symmetries: "none", "random", "average" or k in 1..8 (module docstring).
        seed: int, Generator or None: the source of the random transforms.
        precision: "fp32", "bf16", "fp16", "int8", or None for the device's
            inference default (bf16 on CUDA and on CPUs with AMX or AVX512-BF16,
            fp32 elsewhere); ValueError where the device cannot run it
            (:mod:`alphago.nets.precision`). On the CPU, bf16 runs calls of at least
            ``CPU_BF16_MIN_ROWS`` rows; smaller ones run in float32, which oneDNN
            does faster there. int8 (CPUs with AVX512-VNNI) evaluates an int8 copy
            of the model made here (:mod:`alphago.nets.int8`): later changes to the
            model's weights do not reach it.
        cuda_graphs: on a CUDA device, run the network as CUDA graphs
            (:mod:`alphago.nets.graphs`); None: yes, unless the environment sets
            ``ALPHAGO_CUDA_GRAPHS=0``. Ignored on other devices.
        fused: run a :class:`~alphago.nets.fused.FusedNetwork` (batch norm folded
            into the convolutions, weights in the compute type) rather than the
            model under autocast; None: :func:`fused_wanted`'s default. Ignored for
            int8 and for networks other than a ``PolicyValueNet``.

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
        precision: str | None = None,
        cuda_graphs: bool | None = None,
        fused: bool | None = None,
    ) -> None:
        # A PolicyValueNet, or a module returning the same three outputs with a
        # config of the fields read here (AlphaGo 2016's policy-value pair).
        if not isinstance(model, torch.nn.Module) or not hasattr(model, "config"):
            kind = type(model).__name__
            raise TypeError(f"model must be a PolicyValueNet, not {kind}")
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int):
                kind = type(threads).__name__
                raise TypeError(f"threads must be an int, not {kind}")
            if threads < 1:
                raise ValueError(f"threads must be >= 1, not {threads}")
        self.k = _parse_symmetries(symmetries)
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, self.device, inference=True)
        if threads is not None:
            torch.set_num_threads(threads)
        self._pinned = self.device.type == "cuda"
        # Channels-last lets oneDNN's convolutions skip layout reorders: measured
        # 1.2-1.35x positions/s for a 6x64 19x19 net on 2 CPU threads. The model is
        # converted in place (a layout change only: training it further still works).
        self.model = model.to(self.device).eval()
        self.model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.config = model.config
        self._rng = make_rng(seed)
        # Ownership asked for between a search's evaluations (an analysis reporting
        # each move's) draws its transforms from a stream of its own, so that it
        # never changes the transforms, and so the moves, of the search.
        self._aside_rng = np.random.default_rng(self._rng.spawn(1)[0])
        # Reused buffers, grown by doubling: host uint8 planes [cap, C, N, N] (pinned
        # on CUDA) with their numpy view, the device's uint8 copy (CUDA only), and
        # the network input [cap * k, C, N, N], channels-last, compute type.
        self._host: Tensor | None = None
        self._host_np: NDArray[np.uint8] | None = None
        self._staged: Tensor | None = None
        self._inputs: dict[torch.dtype, Tensor] = {}
        self._graphed = None
        # int8 runs a quantized copy (a snapshot of the model as it is now).
        self._int8 = Int8Network(self.model) if self.precision == "int8" else None
        # Folded copies by compute type (CPU bf16 runs small calls in float32).
        self._fuse = (
            self._int8 is None
            and isinstance(model, PolicyValueNet)
            and fused_wanted(fused, self.device)
        )
        self._fused: dict[torch.dtype, FusedNetwork] = {}
        if graphs_wanted(cuda_graphs) and self.device.type == "cuda":
            dtype = compute_dtype(self.precision)
            network = self._fused_network(dtype) or self.model
            self._graphed = GraphedForward(network, self.device, self.precision, dtype)

    def _fused_network(self, dtype: torch.dtype) -> FusedNetwork | None:
        """The folded network for ``dtype`` (made on first use), or None when this
        evaluator runs the model itself."""
        if not self._fuse:
            return None
        net = self._fused.get(dtype)
        if net is None:
            assert isinstance(self.model, PolicyValueNet)
            net = self._fused[dtype] = FusedNetwork(self.model, dtype)
        return net

    def _capacity(self, buf: Tensor | None, rows: int) -> int:
        """0 when ``buf`` holds ``rows`` rows, else the capacity to grow it to."""
        old = 0 if buf is None else int(buf.shape[0])
        return 0 if old >= rows else max(rows, 2 * old)

    def _shape(self, rows: int) -> tuple[int, int, int, int]:
        n = self.config.board_size
        return (rows, self.config.planes, n, n)

    def _host_planes(self, rows: int) -> NDArray[np.uint8]:
        """The reused host uint8 planes buffer, first ``rows`` rows."""
        cap = self._capacity(self._host, rows)
        if cap:
            self._host = torch.empty(
                self._shape(cap), dtype=torch.uint8, pin_memory=self._pinned
            )
            self._host_np = self._host.numpy()
        assert self._host_np is not None
        return self._host_np[:rows]

    def _precision_for(self, rows: int) -> str:
        """The precision a call of ``rows`` rows runs in (class docstring)."""
        if self.precision == "bf16" and self.device.type == "cpu":
            return "fp32" if rows < CPU_BF16_MIN_ROWS else "bf16"
        return self.precision

    def _input_buffer(self, rows: int, dtype: torch.dtype) -> Tensor:
        if self._graphed is not None:
            return self._graphed.input(rows)
        buf = self._inputs.get(dtype)
        cap = self._capacity(buf, rows)
        if cap:
            buf = self._inputs[dtype] = torch.empty(
                self._shape(cap),
                dtype=dtype,
                device=self.device,
                memory_format=torch.channels_last,
            )
        assert buf is not None
        return buf[:rows]

    def _upload(self, planes: NDArray[Any]) -> Tensor:
        """``planes`` [B, C, N, N] (uint8 or float32) as a tensor on the device."""
        if self.device.type == "cpu":
            return torch.from_numpy(planes)
        rows = planes.shape[0]
        if planes.dtype == np.uint8:
            host = self._host_planes(rows)
            if not np.shares_memory(host, planes):
                host[...] = planes
            assert self._host is not None
            cap = self._capacity(self._staged, rows)
            if cap:
                self._staged = torch.empty(
                    self._shape(cap), dtype=torch.uint8, device=self.device
                )
            assert self._staged is not None
            staged = self._staged[:rows]
            # Asynchronous from pinned memory; the stream orders it before its use.
            staged.copy_(self._host[:rows], non_blocking=True)
            return staged
        return torch.from_numpy(planes).to(self.device)

    def _choose(
        self, batch: int, rng: np.random.Generator | None = None
    ) -> NDArray[np.int64]:
        """Transforms [batch, k] for each position (distinct within a row), drawn
        from ``rng`` (default: the evaluator's stream)."""
        if self.k == 0:
            return np.zeros((batch, 1), dtype=np.int64)
        if self.k == symmetries.COUNT:
            return np.tile(np.arange(symmetries.COUNT, dtype=np.int64), (batch, 1))
        keys = (self._rng if rng is None else rng).random((batch, symmetries.COUNT))
        return np.argsort(keys, axis=1)[:, : self.k].astype(np.int64)

    def _run(
        self,
        x: Tensor,
        source: NDArray[np.intp],
        transforms: NDArray[np.int64],
        meanwhile: Callable[[], object] | None = None,
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32] | None]:
        """Output row i is the network on ``x[source[i]]`` under transform
        ``transforms[i]``, mapped back: logits [M, A], values [M], ownership
        [M, N, N] or None (on the host). ``meanwhile`` is called once the network's
        work is queued and before its results are waited for: host work done there
        overlaps the GPU's (on the CPU it simply comes next).

        Rows are run grouped by transform (a stable sort), so that each transform is
        one slice on the device; the host puts the results back in row order.
        """
        cfg = self.config
        n = cfg.board_size
        actions = cfg.actions
        rows = len(transforms)
        perm = np.argsort(transforms, kind="stable")
        ordered = transforms[perm]
        kinds, starts = np.unique(ordered, return_index=True)
        bounds = [*starts.tolist(), rows]
        groups = [
            (int(s), bounds[i], bounds[i + 1]) for i, s in enumerate(kinds.tolist())
        ]
        identity = bool(np.array_equal(perm, np.arange(rows)))
        gather = source[perm]
        with torch.inference_mode():
            if not np.array_equal(gather, np.arange(rows)):
                index = torch.from_numpy(gather.astype(np.int64))
                x = x.index_select(0, index.to(self.device, non_blocking=True))
            # Planes came as uint8 and become the compute type here: under autocast
            # the first convolution would cast float32 input down anyway.
            precision = self._precision_for(rows)
            dtype = compute_dtype(precision)
            inputs = self._input_buffer(rows, dtype)
            for s, a, b in groups:
                inputs[a:b].copy_(_transform(x[a:b], s))
            fused = self._fused_network(dtype)
            if fused is not None:
                fused.refresh()  # a graph replay reads the folded weights as they are
            if self._graphed is not None:
                logits, values, owner = self._graphed(rows)
            elif self._int8 is not None:
                logits, values, owner = self._int8(inputs)
            elif fused is not None:
                logits, values, owner = fused.forward(inputs)
            else:
                with autocast(self.device, precision):
                    logits, values, owner = self.model(inputs)
            parts = [logits.float(), values.float()[:, None]]
            if owner is not None:
                parts.append(owner.float().reshape(rows, n * n))
            out = torch.cat(parts, dim=1)
            for s, a, b in groups:
                if s == 0:
                    continue
                back = symmetries.inverse(s)
                out[a:b, :actions] = _transform_policy(out[a:b, :actions], back, n)
                if owner is not None:
                    own = out[a:b, actions + 1 :].reshape(-1, n, n)
                    out[a:b, actions + 1 :] = _transform(own, back).reshape(-1, n * n)
            if meanwhile is not None:
                meanwhile()
            host: NDArray[np.float32] = out.cpu().numpy()
        if identity:
            order: NDArray[np.float32] = host
        else:
            order = np.empty_like(host)
            order[perm] = host
        out_p = np.ascontiguousarray(order[:, :actions])
        out_v = np.ascontiguousarray(order[:, actions])
        out_o = None
        if owner is not None:
            out_o = np.ascontiguousarray(order[:, actions + 1 :]).reshape(rows, n, n)
        return out_p, out_v, out_o

    def forward(
        self, planes: NDArray[np.float32] | NDArray[np.uint8]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32] | None]:
        """Raw network outputs for planes [M, C, N, N] (float32, or uint8 0/1 planes
        as ``pool.features(..., dtype=np.uint8)`` writes them): logits [M, A],
        values [M] and ownership [M, N, N] (None without an ownership head)."""
        arr: NDArray[Any] = np.ascontiguousarray(planes)
        if arr.dtype not in (np.float32, np.uint8):
            raise TypeError(f"planes must be float32 or uint8, not {arr.dtype}")
        if arr.ndim != 4 or arr.shape[1:] != self._shape(0)[1:]:
            raise ValueError(
                f"expected planes {list(self._shape(0)[1:])} per row, not "
                f"{list(arr.shape)}"
            )
        rows = arr.shape[0]
        x = self._upload(arr)
        return self._run(x, np.arange(rows), np.zeros(rows, dtype=np.int64))

    def _infer(
        self,
        positions: Positions,
        rng: np.random.Generator | None = None,
        legal: bool = True,
    ) -> _Raw:
        """Network outputs for ``positions`` under the transforms chosen from ``rng``
        (:meth:`_choose`), mapped back to the positions' own frame; row j * B + i is
        position i's j-th transform. ``legal``: the positions' legal moves will be
        wanted (they are worked out, and cached, while the network runs)."""
        cfg = self.config
        n = cfg.board_size
        pool = positions.pool
        if int(pool.size) != n:
            raise ValueError(f"the network is for {n}x{n} boards, not {pool.size}")
        batch = len(positions)
        planes = self._host_planes(batch)
        pool.features(positions.slots, cfg.input_planes, out=planes)
        chosen = self._choose(batch, rng)  # [B, k]
        k = chosen.shape[1]
        flat = chosen.T.reshape(-1)
        source = np.tile(np.arange(batch), k)
        with torch.inference_mode():
            x = self._upload(planes)
        meanwhile = positions.legal_masks if legal else None
        logits, values, owner = self._run(x, source, flat, meanwhile)
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
        return self._priors_values(self._infer(positions), positions)

    def _priors_values(
        self, raw: _Raw, positions: Positions
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        batch, actions = len(positions), self.config.actions
        priors = masked_softmax(raw.logits, positions.legal_masks()[raw.source])
        values = raw.values
        if raw.k > 1:
            priors = priors.reshape(raw.k, batch, actions).mean(0, dtype=np.float32)
            values = values.reshape(raw.k, batch).mean(0, dtype=np.float32)
        values = np.clip(values, -1.0, 1.0).astype(np.float32, copy=False)
        return priors, values

    def evaluate_scored(
        self, positions: Positions
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float32],
        NDArray[np.float32],
        NDArray[np.float32],
    ]:
        """:meth:`evaluate`'s priors and values from the same network call, with the
        ownership head's final-score estimate (``search.ScoredEvaluator``): float32
        [B] the side to move's expected area less the opponent's (the ownership,
        averaged over the transforms, summed; komi left to the search) and [B] its
        variance, ``sum(1 - o^2)``, each point's own as a +-1 outcome of mean o.

        Raises:
            ValueError: the net has no ownership head (or the board size differs).
        """
        if not self.config.ownership_head:
            raise ValueError("this network has no ownership head")
        batch, points = len(positions), self.config.board_size**2
        if batch == 0:
            empty = np.zeros(0, dtype=np.float32)
            return *self.evaluate(positions), empty, empty.copy()
        raw = self._infer(positions)
        assert raw.ownership is not None
        priors, values = self._priors_values(raw, positions)
        owner = raw.ownership.reshape(raw.k, batch, points).mean(0, dtype=np.float32)
        owner = np.clip(owner, -1.0, 1.0)
        areas = owner.sum(axis=1, dtype=np.float32)
        variances = (1.0 - owner * owner).sum(axis=1, dtype=np.float32)
        return priors, values, areas, variances

    def ownership(self, positions: Positions) -> NDArray[np.float32]:
        """float32 [B, N, N] in [-1, 1] from Black's view (+1: Black's point at the
        end), averaged over as many transforms as :meth:`evaluate` takes, drawn from
        a random stream of their own (asked for during a search, as an analysis
        does for each move's ownership, it leaves the search's transforms alone).

        Raises:
            ValueError: the net has no ownership head (or the board size differs).
        """
        if not self.config.ownership_head:
            raise ValueError("this network has no ownership head")
        n = self.config.board_size
        batch = len(positions)
        if batch == 0:
            return np.zeros((0, n, n), dtype=np.float32)
        raw = self._infer(positions, self._aside_rng, legal=False)
        assert raw.ownership is not None
        owner = raw.ownership.reshape(raw.k, batch, n, n).mean(0, dtype=np.float32)
        sign = positions.pool.to_play(positions.slots).astype(np.float32)
        result: NDArray[np.float32] = np.clip(owner * sign[:, None, None], -1.0, 1.0)
        return result

    def __repr__(self) -> str:
        cfg: Any = self.config
        return (
            f"NetEvaluator({cfg.board_size}x{cfg.board_size}, {cfg.blocks} blocks x "
            f"{cfg.filters} filters, symmetries={self.k}, device={self.device}, "
            f"precision={self.precision}, cuda_graphs={self._graphed is not None}, "
            f"fused={self._fuse})"
        )
