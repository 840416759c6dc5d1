"""Devices and numeric precision for the networks: one place that says what runs where.

Devices: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` (any torch device string), or ``"auto"``:
CUDA when present, else the CPU. :func:`resolve_device` refuses, with one line a user
can act on, a device this machine does not have.

Precisions (what the forward pass, and in training the backward pass, computes in):

- ``"fp32"``: float32 everywhere (the default for training on the CPU, and on
  devices other than CUDA).
- ``"bf16"``: ``torch.autocast`` to bfloat16: convolutions and linear layers in
  bfloat16, reductions and the losses in float32, weights and optimiser state kept in
  float32. The default on CUDA devices that support bfloat16 (Ampere and later), and
  for inference (``inference=True``: the search's evaluators) on CPUs with bfloat16
  arithmetic: AMX tiles (Intel Sapphire Rapids and later) or AVX512-BF16 (AMD Zen 4
  and later, Intel Cooper Lake), where oneDNN runs bfloat16 convolutions in them.
  Measured with AMX (one thread, the shipped 4x48 9x9 net): forward passes 1.5-3x
  faster at batches of 8 to 64, slower below 4 rows (the evaluator runs those in
  float32), 99.3% top-1 agreement with float32 over 2,782 positions of its own games
  and values within 0.0035 on average; a training step at batch 256 2.0x as fast.
  With AVX512-BF16 alone (AMD EPYC Zen 5): the default engine's moves in 0.87 of
  float32's time on 9x9 and 0.85 on 19x19, 99.4% and 98.9% top-1 agreement. Other
  CPUs allow bf16 too (CPU autocast supports it) but emulate it, so fp32 stays their
  default.
- ``"fp16"``: ``torch.autocast`` to float16, CUDA only. Training scales the loss with a
  ``torch.amp.GradScaler`` (its float16 gradients would underflow otherwise); a step
  whose gradients overflow is skipped, and the learner counts and logs those.
  The CPU refuses fp16: CPUs have no fast float16 arithmetic and its loss scaling
  would buy nothing there.
- ``"int8"``: the search's network calls on CPUs with AVX512-VNNI
  (:func:`int8_supported`), through an int8 copy of the network
  (:mod:`alphago.nets.int8`): inference only, never the default (it strays further
  from fp32 than bf16 does; README's "Devices and precision" has the figures).
  Training and CUDA devices refuse it.

``None`` (or ``"auto"``) asks for the device's default (:func:`default_precision`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import torch

__all__ = [
    "INT8_ENGINE",
    "PRECISIONS",
    "autocast",
    "compute_dtype",
    "cpu_has_amx_bf16",
    "cpu_has_bf16_arithmetic",
    "default_precision",
    "denormals_flushed",
    "flush_denormals",
    "flushing_denormals",
    "int8_supported",
    "resolve_device",
    "resolve_precision",
    "supported_precisions",
]

#: The precision names, in the order the command line lists them.
PRECISIONS = ("fp32", "bf16", "fp16", "int8")

#: The dtype each precision's input (and autocast) computes in; int8 takes float32
#: planes and quantizes them itself.
_DTYPES = {
    "fp32": torch.float32,
    "bf16": torch.bfloat16,
    "fp16": torch.float16,
    "int8": torch.float32,
}

#: torch's quantized engine that runs :mod:`alphago.nets.int8` networks.
INT8_ENGINE = "onednn"


def flushing_denormals() -> bool:
    """True if this thread's arithmetic flushes denormal floats to zero."""
    return sys.float_info.min / 2 == 0.0  # a denormal double, unless flushed


def flush_denormals(on: bool = True) -> None:
    """Flush denormal floats to zero (FTZ/DAZ) in this thread, or stop doing so.

    Trained weights and Adam's moments drift into the denormal range (the shipped
    nets hold thousands of such values), and x86 arithmetic on them is slow enough
    that a 19x19 policy's CPU training step took 2.6 s instead of 0.11 s. The flag is
    per thread and torch's worker threads copy it when they start, so set it before
    the process's first torch operation. It also flushes Python's own float
    arithmetic in this thread, which is why it is scoped (:func:`denormals_flushed`)
    rather than set on import.
    """
    torch.set_flush_denormal(on)


@contextlib.contextmanager
def denormals_flushed() -> Iterator[None]:
    """:func:`flush_denormals` for the body; the thread's previous setting after
    (torch threads started inside keep flushing: they only run torch's kernels)."""
    before = flushing_denormals()
    flush_denormals(True)
    try:
        yield
    finally:
        flush_denormals(before)


def resolve_device(device: str | torch.device | None = "auto") -> torch.device:
    """The torch device for ``device`` (``"auto"``/None: CUDA when present, else CPU).

    Raises:
        ValueError: not a device name, or a device this machine lacks (CUDA absent,
            a CUDA index past the last GPU), in one line saying so.
    """
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if isinstance(device, torch.device):
        dev = device
    elif isinstance(device, str):
        try:
            dev = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"unknown device {device!r} (use cpu, cuda, cuda:N or auto)"
            ) from None
    else:
        raise TypeError(f"device must be a str or torch.device, not {type(device)}")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            built = "built without CUDA" if torch.version.cuda is None else "no GPU"
            raise ValueError(
                f"device {str(dev)!r}: CUDA is not available here (torch "
                f"{torch.__version__}: {built}); use --device cpu"
            )
        count = torch.cuda.device_count()
        if dev.index is not None and dev.index >= count:
            raise ValueError(
                f"device {str(dev)!r}: this machine has {count} CUDA device(s), "
                f"cuda:0..cuda:{count - 1}"
            )
    elif dev.type == "mps":
        mps: Any = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise ValueError(f"device {str(dev)!r} is not available here")
    return dev


def supported_precisions(
    device: torch.device, inference: bool = False
) -> tuple[str, ...]:
    """The precisions ``device`` runs (module docstring): for training, or with
    ``inference`` for the search's network calls."""
    if device.type == "cuda":
        bf16 = torch.cuda.is_bf16_supported()
        return ("fp32", "bf16", "fp16") if bf16 else ("fp32", "fp16")
    if device.type == "cpu":
        int8 = ("int8",) if inference and int8_supported() else ()
        return ("fp32", "bf16", *int8)
    return ("fp32",)


def int8_supported() -> bool:
    """Whether this CPU has AVX512-VNNI (torch's probe, which does not report the
    256-bit AVX-VNNI of some desktop CPUs) and this torch the oneDNN quantized
    engine.

    Without VNNI, x86 int8 kernels add pairs of products in 16 bits, which saturate
    unless the activations give up a bit of their range; such CPUs keep to fp32 and
    bf16 rather than run a slower and less exact int8.
    """
    probe = getattr(torch.cpu, "_is_vnni_supported", None)
    try:
        vnni = bool(probe is not None and probe())
    except RuntimeError:
        vnni = False
    return vnni and INT8_ENGINE in torch.backends.quantized.supported_engines


def _onednn_bf16_with(feature: str) -> bool:
    """torch's probe ``torch.cpu._is_<feature>_supported`` and oneDNN's bfloat16
    kernels both say yes (False where this torch lacks either probe)."""
    probe = getattr(torch.cpu, f"_is_{feature}_supported", None)
    try:
        return bool(probe is not None and probe()) and bool(
            torch.ops.mkldnn._is_mkldnn_bf16_supported()
        )
    except (AttributeError, RuntimeError):
        return False


def cpu_has_amx_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in AMX tiles and oneDNN uses
    them (torch's own probes; False where this torch lacks them)."""
    return _onednn_bf16_with("amx_tile")


def cpu_has_bf16_arithmetic() -> bool:
    """Whether this CPU computes in bfloat16 natively, in AMX tiles or with
    AVX512-BF16 instructions, for oneDNN's convolutions (False where this torch
    cannot tell)."""
    return cpu_has_amx_bf16() or _onednn_bf16_with("avx512_bf16")


def default_precision(device: torch.device, inference: bool = False) -> str:
    """bf16 on CUDA devices that have it, and for inference on CPUs with bfloat16
    arithmetic (module docstring); fp32 elsewhere."""
    if device.type == "cuda" and "bf16" in supported_precisions(device):
        return "bf16"
    if inference and device.type == "cpu" and cpu_has_bf16_arithmetic():
        return "bf16"
    return "fp32"


def resolve_precision(
    precision: str | None, device: torch.device, inference: bool = False
) -> str:
    """``precision`` checked against ``device``; None/``"auto"``: its default
    (for network evaluation in search when ``inference``, else for training).

    Raises:
        ValueError: an unknown name, or one the device cannot run (one line).
    """
    if precision is None or precision == "auto":
        return default_precision(device, inference)
    if not isinstance(precision, str):
        raise TypeError(f"precision must be a str, not {type(precision).__name__}")
    if precision not in PRECISIONS:
        known = ", ".join(PRECISIONS)
        raise ValueError(f"precision must be one of {known} or auto, not {precision!r}")
    allowed = supported_precisions(device, inference)
    if precision not in allowed:
        why = _why_not(precision, device, inference)
        raise ValueError(
            f"precision {precision} does not run on {device}: {why}; use "
            f"{' or '.join(allowed)}"
        )
    return precision


def _why_not(precision: str, device: torch.device, inference: bool) -> str:
    """Why ``device`` cannot run ``precision`` (for :func:`resolve_precision`)."""
    if precision == "int8":
        if not inference:
            return "int8 is for the search's network calls, not training"
        if device.type != "cpu":
            return "int8 runs on CPUs only"
        return "int8 needs a CPU with AVX512-VNNI and torch's oneDNN quantized engine"
    return {
        "cpu": "fp16 needs a CUDA device",
        "cuda": "this GPU has no bfloat16 (it needs Ampere or later)",
    }.get(device.type, "only fp32 is supported there")


def compute_dtype(precision: str) -> torch.dtype:
    """The dtype autocast computes in under ``precision`` (the network's input
    dtype: float32 for int8, which quantizes its input itself)."""
    return _DTYPES[precision]


def autocast(
    device: torch.device, precision: str, cache: bool = True
) -> contextlib.AbstractContextManager[Any]:
    """``torch.autocast`` for ``precision`` on ``device`` (a no-op context for fp32
    and int8).
    ``cache=False`` casts the weights afresh on every use, as a CUDA graph capture
    needs (a cached cast would be a tensor made during the capture)."""
    if precision in ("fp32", "int8"):
        return contextlib.nullcontext()
    return torch.autocast(
        device_type=device.type, dtype=_DTYPES[precision], cache_enabled=cache
    )
