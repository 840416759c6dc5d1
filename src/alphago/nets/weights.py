"""Weights files: one torch file holding a network's config and its state_dict.

The file is ``torch.save`` of a plain dict::

    {"format": "alphago.nets/1", "config": NetConfig.to_dict(), "state_dict": {...},
     "sha256": "<hex digest of the config and every tensor, see state_digest>"}

holding only strings, numbers, booleans and tensors, so it loads with
``torch.load(weights_only=True)``: torch's restricted unpickler, which refuses any
file naming other classes or functions (a crafted pickle cannot run code here).
Files written before the checksum existed have no ``sha256`` entry and still load;
where the entry is present it must match. A file with a ``kind`` entry holds another
kind of network (the AlphaGo 2016 nets of :mod:`alphago.nets.alphago2016`) and is
refused here with a line naming its kind.

A file is a hostile input until checked, so :func:`load_weights` checks in an order
that never lets the file decide how much memory or time is spent: the file's size
and the sizes its zip archive declares (at most :data:`MAX_WEIGHTS_BYTES`), then the
config (at most :data:`MAX_PARAMETERS` parameters), then every tensor's key, shape and
type against the shapes the config implies (worked out on torch's ``meta`` device,
which allocates nothing), then the values (finite; batch-norm running variances not
negative) and the checksum. Only then is the network built. Every refusal is a
:class:`WeightsError` (a ValueError) naming the file.

Writes are atomic (:mod:`alphago.atomic`): a temporary file in the target's
directory, flushed and fsynced, then ``os.replace``; on any failure the old file (if
any) stays as it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import stat
import zipfile
from collections.abc import Mapping
from typing import Any, BinaryIO

import torch

from ..atomic import atomic_write, atomic_write_bytes
from .model import NetConfig, PolicyValueNet

__all__ = [
    "FORMAT",
    "MAX_PARAMETERS",
    "MAX_WEIGHTS_BYTES",
    "PathLike",
    "WeightsError",
    "atomic_write",
    "atomic_write_bytes",
    "weights_bytes",
    "check_state_dict",
    "check_state_fits",
    "check_values",
    "expected_state",
    "load_network",
    "load_weights",
    "open_regular",
    "read_capped",
    "read_payload",
    "save_weights",
    "state_digest",
]

FORMAT = "alphago.nets/1"

PathLike = str | os.PathLike[str]

#: The most parameters a loaded network may have (2**27, 512 MiB as float32: nearly
#: three times Leela Zero's largest, 40 blocks x 256 filters, 47.6M).
MAX_PARAMETERS = 2**27
#: The largest weights file read, and the most bytes its archive may unpack to
#: (Leela Zero's text format: the most bytes read after gzip decompression).
MAX_WEIGHTS_BYTES = 2**30

_FLOAT_TYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_KNOWN_ENTRIES = ("format", "config", "state_dict", "sha256")


class WeightsError(ValueError):
    """A weights file refused: not one of ours, damaged, too big, or holding values
    no trained network has. The message names the file."""


def open_regular(path: PathLike) -> BinaryIO:
    """``open(path, "rb")``, refusing what is not a regular file before opening it
    (opening a FIFO would wait for a writer; a device may never end).

    Raises:
        WeightsError: not a regular file. OSError: it cannot be opened.
    """
    target = os.fspath(path)
    if not stat.S_ISREG(os.stat(target).st_mode):
        raise WeightsError(f"{target}: not a regular file")
    return open(target, "rb")


def read_capped(path: PathLike, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, refused beyond ``limit`` bytes
    (default :data:`MAX_WEIGHTS_BYTES`).

    Raises:
        WeightsError: not a regular file (a device such as ``/dev/zero`` never ends),
            or larger than ``limit``.
        OSError: the file cannot be opened or read.
    """
    target = os.fspath(path)
    if limit is None:
        limit = MAX_WEIGHTS_BYTES
    with open_regular(target) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise WeightsError(f"{target}: larger than the {limit}-byte limit")
    return data


def _tensor_bytes(t: torch.Tensor) -> memoryview:
    flat = t.detach().cpu().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().data


def state_digest(config: Mapping[str, Any], state: Mapping[str, torch.Tensor]) -> str:
    """The sha256 (hex) of a weights file's contents: the config as sorted JSON, then
    for each key in sorted order its name, dtype, shape and raw bytes."""
    h = hashlib.sha256()
    h.update(json.dumps(dict(config), sort_keys=True).encode())
    for key in sorted(state):
        t = state[key]
        header = f"\0{key}\0{str(t.dtype).removeprefix('torch.')}\0{list(t.shape)}\0"
        h.update(header.encode())
        h.update(_tensor_bytes(t))
    return h.hexdigest()


def weights_bytes(model: PolicyValueNet) -> bytes:
    """The contents of ``model``'s weights file (what :func:`save_weights` writes):
    how a network travels to worker processes and Ray tasks."""
    if not isinstance(model, PolicyValueNet):
        raise TypeError(f"model must be a PolicyValueNet, not {type(model).__name__}")
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    config = model.config.to_dict()
    payload = {
        "format": FORMAT,
        "config": config,
        "state_dict": state,
        "sha256": state_digest(config, state),
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def save_weights(model: PolicyValueNet, path: PathLike) -> None:
    """Write ``model``'s config and weights to ``path`` atomically."""
    atomic_write_bytes(path, weights_bytes(model))


def expected_state(config: NetConfig) -> dict[str, torch.Tensor]:
    """The state_dict of a network of ``config`` on torch's ``meta`` device: every
    key with its shape and dtype, no memory allocated for the values.

    Raises:
        WeightsError: the network would have more than :data:`MAX_PARAMETERS`.
    """
    # The residual tower alone is a lower bound: refuse giants before building even
    # the meta network (1000 meta blocks take a while to construct).
    tower = config.blocks * 2 * 9 * config.filters**2
    if tower > MAX_PARAMETERS:
        raise WeightsError(
            f"a net of {config.blocks} blocks x {config.filters} filters has more "
            f"than {tower} parameters; the limit is {MAX_PARAMETERS}"
        )
    with torch.device("meta"):
        model = PolicyValueNet(config)
    state = dict(model.state_dict())
    total = sum(t.numel() for t in state.values())
    if total > MAX_PARAMETERS:
        raise WeightsError(
            f"the net has {total} parameters; the limit is {MAX_PARAMETERS}"
        )
    return state


def check_state_dict(
    model: PolicyValueNet | NetConfig, state: Mapping[str, Any]
) -> None:
    """Raise ValueError unless ``state`` has exactly the keys, shapes and (floating,
    or integer where the network's is integer) dtypes of ``model`` (a network, or a
    config: then nothing is allocated)."""
    if isinstance(model, NetConfig):
        expected = expected_state(model)
    else:
        expected = dict(model.state_dict())
    check_state_fits(expected, state)


def check_state_fits(
    expected: Mapping[str, torch.Tensor], state: Mapping[str, Any]
) -> None:
    """Raise ValueError unless ``state`` has exactly the keys and shapes of
    ``expected``, floating where it is floating and of its dtype elsewhere (any
    kind of net)."""
    missing = sorted(set(expected) - set(state))
    extra = sorted(str(k) for k in set(state) - set(expected))
    problems = []
    if missing:
        problems.append(f"missing keys: {', '.join(missing)}")
    if extra:
        problems.append(f"unexpected keys: {', '.join(extra)}")
    for key in sorted(set(expected) & set(state)):
        value, want = state[key], expected[key]
        if not isinstance(value, torch.Tensor):
            problems.append(f"{key} is a {type(value).__name__}, not a tensor")
        elif value.shape != want.shape:
            problems.append(
                f"{key} has shape {tuple(value.shape)}, expected {tuple(want.shape)}"
            )
        elif want.dtype.is_floating_point and value.dtype not in _FLOAT_TYPES:
            problems.append(f"{key} has dtype {value.dtype}, not a float type")
        elif not want.dtype.is_floating_point and value.dtype != want.dtype:
            problems.append(f"{key} has dtype {value.dtype}, expected {want.dtype}")
    if problems:
        raise ValueError("weights do not fit the network: " + "; ".join(problems))


def check_values(state: Mapping[str, torch.Tensor]) -> None:
    """Raise ValueError at the first non-finite value (NaN, inf) or negative
    batch-norm running variance in ``state``."""
    for key in sorted(state):
        t = state[key]
        if not t.dtype.is_floating_point:
            continue
        finite = torch.isfinite(t)
        if not bool(finite.all()):
            bad = int((~finite).sum())
            raise ValueError(f"{key} holds {bad} non-finite values (NaN or inf)")
        if key.endswith("running_var") and bool((t < 0).any()):
            raise ValueError(
                f"{key} holds a negative batch-norm variance ({float(t.min()):g})"
            )


def read_payload(path: PathLike | bytes) -> tuple[str, dict[Any, Any]]:
    """(the name for messages, the unpickled dict) of a weights file of this
    project's format, any kind of net; the checks every loader starts with.

    Raises:
        WeightsError: too large, not a zip archive, pickled objects, damage, or
            not this format.
        OSError: the file cannot be read.
    """
    if isinstance(path, bytes):
        target, data = "weights", path
        if len(data) > MAX_WEIGHTS_BYTES:
            raise WeightsError(f"{target}: larger than {MAX_WEIGHTS_BYTES} bytes")
    else:
        target = os.fspath(path)
        data = read_capped(target)
    _check_archive(data, target)
    payload = _unpickle(data, target)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise WeightsError(f"{target}: not a weights file of format {FORMAT!r}")
    return target, payload


def _check_archive(data: bytes, target: str) -> None:
    """Refuse what is not a zip archive, or one that unpacks to too many bytes (a
    torch file's entries are stored, but torch would inflate compressed ones)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            declared = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise WeightsError(f"{target}: not a weights file ({exc})") from None
    if declared > MAX_WEIGHTS_BYTES:
        raise WeightsError(
            f"{target}: the archive unpacks to {declared} bytes; the limit is "
            f"{MAX_WEIGHTS_BYTES}"
        )


def _unpickle(data: bytes, target: str) -> object:
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise WeightsError(
            f"{target}: refusing to load: the file carries pickled objects other "
            f"than tensors and plain data (possibly code); only files written by "
            f"save_weights are accepted ({exc})"
        ) from None
    except Exception as exc:  # noqa: BLE001 - damage can fail anywhere in torch
        # Truncated or damaged archives fail in the zip reader, the unpickler or
        # the storage reader, as RuntimeError, OSError, EOFError, ...
        # (a zip of another kind, such as a rollout .npz, fails here too)
        raise WeightsError(
            f"{target}: not a weights file written by alphago ({_brief(exc)})"
        ) from None


def _brief(exc: BaseException) -> str:
    """The exception's kind and the start of its first line: torch's messages run to
    many lines of C++ context."""
    first = (str(exc).strip().splitlines() or [""])[0]
    if len(first) > 100:
        first = first[:97] + "..."
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def load_weights(
    path: PathLike | bytes, map_location: str | torch.device = "cpu"
) -> PolicyValueNet:
    """Read a file written by :func:`save_weights` (or its contents, as bytes);
    returns a PolicyValueNet in eval mode on ``map_location``.

    Raises:
        WeightsError (a ValueError): not a weights file (or a damaged, truncated
            one), a file carrying pickled code or objects other than tensors and
            plain data, a wrong format tag, an invalid config or one beyond the
            limits, a state_dict whose keys, shapes or types do not fit the config,
            non-finite values, negative batch-norm variances, or a checksum that
            does not match. The message names the file.
        OSError: the file cannot be opened or read.
    """
    target, payload = read_payload(path)
    if "kind" in payload:  # another kind of net (alphago.nets.alphago2016)
        kind = payload["kind"]
        what = f"{kind} weights" if isinstance(kind, str) else "another kind of net"
        raise WeightsError(
            f"{target}: expected an AlphaGo Zero policy-value net, not {what}"
        )
    extra = sorted(str(k) for k in payload if k not in _KNOWN_ENTRIES)
    if extra:
        raise WeightsError(f"{target}: unexpected entries: {', '.join(extra)}")
    raw_config = payload.get("config")
    state = payload.get("state_dict")
    if not isinstance(state, Mapping):
        raise WeightsError(f"{target}: state_dict is missing or not a mapping")
    try:
        config = NetConfig.from_dict(raw_config)
        check_state_dict(config, state)
        check_values(state)
    except (ValueError, TypeError) as exc:
        raise WeightsError(f"{target}: {exc}") from None
    if "sha256" in payload:
        assert isinstance(raw_config, dict)  # NetConfig.from_dict checked it
        digest = payload["sha256"]
        if not isinstance(digest, str) or digest != state_digest(raw_config, state):
            raise WeightsError(
                f"{target}: checksum mismatch: the file is damaged (its sha256 "
                f"does not match its contents)"
            )
    model = PolicyValueNet(config)
    model.load_state_dict(dict(state), strict=True)
    return model.to(map_location).eval()


def load_network(
    path: PathLike, map_location: str | torch.device = "cpu"
) -> PolicyValueNet:
    """Load either kind of weights file: ours (a torch zip archive, read by
    :func:`load_weights`) or Leela Zero's text format, plain or gzipped (read by
    :func:`alphago.nets.import_leela_zero`), told apart by the first bytes.

    Raises:
        WeightsError (a ValueError): see :func:`load_weights` and
            :func:`alphago.nets.import_leela_zero`.
        OSError: the file cannot be opened or read.
    """
    target = os.fspath(path)
    with open_regular(target) as f:
        head = f.read(64)
    if head.startswith(b"PK"):
        return load_weights(path, map_location)
    if not (head.startswith(b"\x1f\x8b") or head.lstrip()[:1].isdigit()):
        # Leela Zero's text starts with its version number; gzip with its magic.
        raise WeightsError(
            f"{target}: not a weights file: neither a network of ours (a torch zip "
            "archive) nor Leela Zero's (text, plain or gzipped)"
        )
    from .leelazero import import_leela_zero

    return import_leela_zero(path).to(map_location)
