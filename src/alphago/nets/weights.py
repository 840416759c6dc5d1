"""Weights files: one torch file holding a network's config and its state_dict.

The file is ``torch.save`` of a plain dict::

    {"format": "alphago.nets/1", "config": NetConfig.to_dict(), "state_dict": {...}}

holding only strings, numbers, booleans and tensors, so it loads with
``torch.load(weights_only=True)``: torch's restricted unpickler, which refuses any
file naming other classes or functions (a crafted pickle cannot run code here).
Writes are atomic: a temporary file in the target's directory, flushed and fsynced,
then ``os.replace``; on any failure the old file (if any) stays as it was.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import tempfile
from collections.abc import Callable, Mapping
from typing import IO, Any

import torch

from .model import NetConfig, PolicyValueNet

__all__ = [
    "FORMAT",
    "atomic_write",
    "atomic_write_bytes",
    "weights_bytes",
    "check_state_dict",
    "load_network",
    "load_weights",
    "save_weights",
]

FORMAT = "alphago.nets/1"

PathLike = str | os.PathLike[str]


def atomic_write(path: PathLike, write: Callable[[IO[bytes]], None]) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then move it there.

    On any exception the temporary file is removed and ``path`` is untouched.
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    base = os.path.basename(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # Make the rename itself durable where the platform allows it.
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write_bytes(path: PathLike, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""

    def write(f: IO[bytes]) -> None:
        f.write(data)

    atomic_write(path, write)


def weights_bytes(model: PolicyValueNet) -> bytes:
    """The contents of ``model``'s weights file (what :func:`save_weights` writes):
    how a network travels to worker processes and Ray tasks."""
    if not isinstance(model, PolicyValueNet):
        raise TypeError(f"model must be a PolicyValueNet, not {type(model).__name__}")
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    payload = {
        "format": FORMAT,
        "config": model.config.to_dict(),
        "state_dict": state,
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def save_weights(model: PolicyValueNet, path: PathLike) -> None:
    """Write ``model``'s config and weights to ``path`` atomically."""
    atomic_write_bytes(path, weights_bytes(model))


def check_state_dict(model: PolicyValueNet, state: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``state`` has exactly ``model``'s keys and shapes."""
    expected = model.state_dict()
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    problems = []
    if missing:
        problems.append(f"missing keys: {', '.join(missing)}")
    if extra:
        problems.append(f"unexpected keys: {', '.join(extra)}")
    for key in sorted(set(expected) & set(state)):
        value = state[key]
        if not isinstance(value, torch.Tensor):
            problems.append(f"{key} is a {type(value).__name__}, not a tensor")
        elif value.shape != expected[key].shape:
            problems.append(
                f"{key} has shape {tuple(value.shape)}, "
                f"expected {tuple(expected[key].shape)}"
            )
    if problems:
        raise ValueError("weights do not fit the network: " + "; ".join(problems))


def load_weights(
    path: PathLike | bytes, map_location: str | torch.device = "cpu"
) -> PolicyValueNet:
    """Read a file written by :func:`save_weights` (or its contents, as bytes);
    returns a PolicyValueNet in eval mode.

    Raises:
        ValueError: not a weights file, a file carrying pickled code or objects other
            than tensors and plain data, a wrong format tag, an invalid config, or a
            state_dict whose keys or shapes do not fit the config.
        OSError: the file cannot be read.
    """
    source: str | io.BytesIO
    if isinstance(path, bytes):
        target, source = "weights", io.BytesIO(path)
    else:
        target = source = os.fspath(path)
    try:
        payload = torch.load(source, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        raise ValueError(
            f"{target}: refusing to load: the file carries pickled objects other "
            f"than tensors and plain data (possibly code); only files written by "
            f"save_weights are accepted ({exc})"
        ) from exc
    except OSError:
        raise
    except Exception as exc:
        # A damaged or foreign file can fail anywhere inside the unpickler.
        raise ValueError(f"{target}: not a weights file ({exc!r})") from exc
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{target}: not a weights file of format {FORMAT!r}")
    known = ("format", "config", "state_dict")
    extra = sorted(str(k) for k in payload if k not in known)
    if extra:
        raise ValueError(f"{target}: unexpected entries: {', '.join(extra)}")
    config = NetConfig.from_dict(payload.get("config"))
    state = payload.get("state_dict")
    if not isinstance(state, Mapping):
        raise ValueError(f"{target}: state_dict is missing or not a mapping")
    model = PolicyValueNet(config)
    try:
        check_state_dict(model, state)
    except ValueError as exc:
        raise ValueError(f"{target}: {exc}") from None
    model.load_state_dict(dict(state), strict=True)
    model.eval()
    return model


def load_network(
    path: PathLike, map_location: str | torch.device = "cpu"
) -> PolicyValueNet:
    """Load either kind of weights file: ours (a torch zip archive, read by
    :func:`load_weights`) or Leela Zero's text format, plain or gzipped (read by
    :func:`alphago.nets.import_leela_zero`), told apart by the first bytes."""
    with open(path, "rb") as f:
        head = f.read(4)
    if head.startswith(b"PK"):
        return load_weights(path, map_location)
    from .leelazero import import_leela_zero

    return import_leela_zero(path).to(map_location)
