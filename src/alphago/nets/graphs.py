"""The network's forward pass as CUDA graphs, one per batch-size bucket.

Measured on an H100 (2026-11-26): self-play with the shipped 9x9 net, 15 processes
sharing the GPU, reached 50k games/hour with the GPU busy 80% of the time, although
each forward pass (512 positions, a 4x48 net) is a few dozen kernels of microseconds:
the time went to launching them one by one from Python, in every process. A CUDA graph
replays the whole pass with one launch.

A graph is captured for a fixed shape, reading a fixed input buffer and writing fixed
output tensors. So :class:`GraphedForward` owns the network's input buffer, rounds each
batch up to a bucket (:func:`bucket`: powers of two up to 64, then multiples of 64),
captures one graph per bucket the first time it is needed (after two warm-up passes
with cuDNN's autotuner on, so each shape gets its fastest convolutions), and returns
the outputs' first ``rows`` rows. Rows past ``rows`` hold whatever the buffer held: in
eval mode every row is computed on its own, so they do not touch the real ones.

The graphs share one memory pool. That is safe here because replays never overlap
and each replay's outputs are read (copied to the host) before the next replay. A
grown input buffer drops them all, and the next ones get a new pool.

The graphs read the parameters where they live, so in-place updates (an optimiser
step, ``load_state_dict``) show in the next replay; moving the model or replacing its
tensors needs a new :class:`GraphedForward`. Autocast runs with its weight-cast cache
off, so for the model the casts are part of each replay. A
:class:`~alphago.nets.fused.FusedNetwork` keeps its own folded weights, already in
the compute type; its owner refreshes them (in place) before each replay. If a
capture fails, the evaluator says so once on stderr and runs the network eagerly
from then on.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import torch
from torch import Tensor

from .fused import FusedNetwork
from .model import PolicyValueNet
from .precision import autocast

__all__ = ["GraphedForward", "bucket", "graphs_wanted"]

Outputs = tuple[Tensor, Tensor, Tensor | None]


def graphs_wanted(flag: bool | None) -> bool:
    """Whether to use CUDA graphs: ``flag``, or when None, yes unless the
    environment says ``ALPHAGO_CUDA_GRAPHS=0``."""
    if flag is None:
        return os.environ.get("ALPHAGO_CUDA_GRAPHS", "1") != "0"
    return flag


def bucket(rows: int) -> int:
    """The batch size a graph is captured for: ``rows`` rounded up to a power of two
    (at least 8) up to 64, else to a multiple of 64."""
    if rows < 1:
        raise ValueError(f"rows must be >= 1, not {rows}")
    if rows <= 64:
        return max(8, 1 << (rows - 1).bit_length())
    return -(-rows // 64) * 64


class GraphedForward:
    """``model`` on ``input(rows)`` by graph replay (see the module docstring).

    Args:
        model: the network, on ``device``, in eval mode, or its
            :class:`~alphago.nets.fused.FusedNetwork` (whose weights the caller
            refreshes before each replay).
        device: a CUDA device.
        precision: the autocast precision ("fp32", "bf16" or "fp16").
        dtype: the input buffer's dtype (the compute type of ``precision``).
        max_rows: batches larger than this run eagerly (no graph).
    """

    def __init__(
        self,
        model: PolicyValueNet | FusedNetwork,
        device: torch.device,
        precision: str,
        dtype: torch.dtype,
        max_rows: int = 4096,
    ) -> None:
        if device.type != "cuda":
            raise ValueError(f"CUDA graphs need a CUDA device, not {device}")
        self.model = model
        self.device = device
        self.precision = precision
        self.dtype = dtype
        self.max_rows = max_rows
        self.enabled = True
        self._input: Tensor | None = None
        self._graphs: dict[int, tuple[torch.cuda.CUDAGraph, Outputs]] = {}
        self._pool: Any = None

    @property
    def captured(self) -> list[int]:
        """The buckets captured so far, in increasing order."""
        return sorted(self._graphs)

    def input(self, rows: int) -> Tensor:
        """The input buffer's first ``rows`` rows ([rows, C, N, N], channels-last).

        Write the batch there, then call this object with ``rows``. Growing the
        buffer moves it, which drops the graphs captured on the old one."""
        need = bucket(rows) if rows <= self.max_rows else rows
        old = 0 if self._input is None else int(self._input.shape[0])
        if need > old:
            cfg = self.model.config
            n = cfg.board_size
            self._drop_graphs()
            self._input = torch.zeros(
                (max(need, 2 * old), cfg.planes, n, n),
                dtype=self.dtype,
                device=self.device,
            ).contiguous(memory_format=torch.channels_last)
        assert self._input is not None
        return self._input[:rows]

    def _drop_graphs(self) -> None:
        """Forget every graph and start a new memory pool for the next ones: once
        a pool's last graph is gone, torch refuses captures into it (an internal
        assertion, ``use_count > 0``, seen on an H100 with torch 2.11)."""
        self._graphs.clear()
        self._pool = None

    def __call__(self, rows: int) -> Outputs:
        """The network on ``input(rows)``: logits, values, ownership (or None),
        ``rows`` rows each. Call under ``torch.inference_mode()``."""
        assert self._input is not None and rows <= self._input.shape[0]
        size = bucket(rows)
        if not self.enabled or rows > self.max_rows:
            return self._eager(self._input[:rows])
        entry = self._graphs.get(size)
        if entry is None:
            entry = self._capture(size)
            if entry is None:
                return self._eager(self._input[:rows])
        graph, outputs = entry
        graph.replay()
        logits, values, owner = outputs
        return logits[:rows], values[:rows], None if owner is None else owner[:rows]

    def _eager(self, x: Tensor) -> Outputs:
        with autocast(self.device, self.precision):
            out: Outputs = self.model(x)
        return out

    def _capture(self, size: int) -> tuple[torch.cuda.CUDAGraph, Outputs] | None:
        assert self._input is not None
        x = self._input[:size]
        cudnn = torch.backends.cudnn
        flags = cudnn.flags(
            enabled=cudnn.enabled,
            benchmark=True,
            deterministic=cudnn.deterministic,
            allow_tf32=cudnn.allow_tf32,
        )
        try:
            with flags:
                side = torch.cuda.Stream(self.device)  # type: ignore[no-untyped-call]
                side.wait_stream(torch.cuda.current_stream(self.device))
                with torch.cuda.stream(side):
                    for _ in range(2):
                        with autocast(self.device, self.precision, cache=False):
                            self.model(x)
                torch.cuda.current_stream(self.device).wait_stream(side)
                if self._pool is None:
                    self._pool = torch.cuda.graph_pool_handle()
                graph = torch.cuda.CUDAGraph()
                with (
                    torch.cuda.graph(
                        graph, pool=self._pool, capture_error_mode="thread_local"
                    ),
                    autocast(self.device, self.precision, cache=False),
                ):
                    outputs: Outputs = self.model(x)
        except RuntimeError as exc:
            self.enabled = False
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(
                f"warning: CUDA graph capture failed ({type(exc).__name__}: {first}); "
                "running the network without graphs",
                file=sys.stderr,
            )
            return None
        self._graphs[size] = (graph, outputs)
        return graph, outputs
