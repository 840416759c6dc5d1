"""Leela Zero's text weights format (version 1): export and import.

The format, as Leela Zero 0.17 reads it: the first line is the version, ``1``; every
further line is one parameter tensor, its float values separated by spaces, in this
order (F filters, 18 input planes, 19x19 board):

====================  =========================================================
input block           conv weights [F, 18, 3, 3], conv biases [F], batch-norm
                      running means [F], running variances [F]
each residual block   the same four lines for its first conv, then its second
policy head           conv [2, F, 1, 1], biases [2], means [2], variances [2],
                      fully connected weights [362, 722], biases [362]
value head            conv [1, F, 1, 1], biases [1], means [1], variances [1],
                      fully connected [256, 361], [256], then [1, 256], [1]
====================  =========================================================

So a file has ``1 + 4 + 8 * blocks + 14`` lines. Leela Zero has no learned batch-norm
scale, and it folds the conv bias into the mean: ``y = (conv(x) + bias - mean) /
sqrt(var + 1e-5)``, followed by ReLU. Our :class:`BatchNorm` computes ``(conv(x) -
mean) / sqrt(var + 1e-5) + beta``, so the exported bias is ``beta * sqrt(var +
1e-5)`` and the import divides it back out. Its inputs are our ``lz18`` planes.

Orientation: Leela Zero numbers points ``y * 19 + x`` with y = 0 the bottom row
(row "1" in GTP), while our point ``row * N + col`` has row 0 at the top. The two
frames differ by a vertical flip, so conversion flips every 3x3 kernel upside down
and permutes the spatial inputs and outputs of the fully connected layers; with that
our net on our planes computes exactly what Leela Zero's net computes on its planes,
in both directions (the flip is its own inverse). Values: tanh, side to move, as ours.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator
from typing import IO

import numpy as np
import torch
from numpy.typing import NDArray

from .model import (
    BN_EPS,
    INPUT_PLANES,
    POLICY_CHANNELS,
    VALUE_CHANNELS,
    VALUE_HIDDEN,
    BatchNorm,
    NetConfig,
    PolicyValueNet,
    ResidualBlock,
)
from .weights import (
    MAX_WEIGHTS_BYTES,
    PathLike,
    WeightsError,
    atomic_write,
    expected_state,
    open_regular,
)

__all__ = ["LZ_BOARD_SIZE", "LZ_VERSION", "export_leela_zero", "import_leela_zero"]

LZ_VERSION = 1
LZ_BOARD_SIZE = 19
LZ_INPUT = "lz18"
_HEAD_LINES = 14
#: The largest magnitude a parameter may have: the net holds float32.
_F32_MAX = float(np.finfo(np.float32).max)

F64 = NDArray[np.float64]


def _flip_index(n: int) -> NDArray[np.intp]:
    """Point permutation between our frame and Leela Zero's ([N*N], an involution)."""
    return np.arange(n * n).reshape(n, n)[::-1].reshape(-1)


def _fc_input_perm(channels: int, n: int) -> NDArray[np.intp]:
    flip = _flip_index(n)
    return np.concatenate([c * n * n + flip for c in range(channels)])


def _policy_output_perm(n: int) -> NDArray[np.intp]:
    return np.concatenate([_flip_index(n), [n * n]])


def _f64(t: torch.Tensor) -> F64:
    return np.asarray(t.detach().cpu().double().numpy(), dtype=np.float64)


def _conv_layers(model: PolicyValueNet) -> Iterator[tuple[torch.nn.Conv2d, BatchNorm]]:
    yield model.conv_in, model.bn_in
    for block in model.tower:
        assert isinstance(block, ResidualBlock)
        yield block.conv1, block.bn1
        yield block.conv2, block.bn2


def _stats(bn: BatchNorm) -> tuple[torch.Tensor, torch.Tensor]:
    """(running mean, running variance) of ``bn``."""
    mean, var = bn.running_mean, bn.running_var
    assert mean is not None and var is not None  # track_running_stats is on
    return mean, var


def _layer_lines(conv: torch.nn.Conv2d, bn: BatchNorm) -> list[F64]:
    weight = _f64(conv.weight)
    if weight.shape[-1] == 3:
        weight = weight[:, :, ::-1, :]
    mean, var_t = _stats(bn)
    var = _f64(var_t)
    bias = _f64(bn.bias) * np.sqrt(var + BN_EPS)
    return [weight, bias, _f64(mean), var]


def _format(values: F64) -> str:
    return " ".join(map("{:.9g}".format, values.reshape(-1).tolist()))


def _check_exportable(model: PolicyValueNet, drop_ownership: bool) -> None:
    cfg = model.config
    if cfg.board_size != LZ_BOARD_SIZE:
        raise ValueError(
            f"Leela Zero's format is for 19x19 nets; this one is "
            f"{cfg.board_size}x{cfg.board_size}"
        )
    if cfg.input_planes != LZ_INPUT:
        raise ValueError(
            f"Leela Zero's format needs 'lz18' input planes, not {cfg.input_planes!r}"
        )
    extras = []
    if cfg.global_pooling:
        extras.append(f"global pooling (blocks {list(cfg.global_pooling)})")
    if cfg.score_head:
        extras.append("a score head")
    if extras:
        raise ValueError(
            f"Leela Zero's format cannot hold {' and '.join(extras)}: its residual "
            f"blocks are plain 3x3 convolutions and its heads are policy and value "
            f"only; this net cannot be exported"
        )
    if cfg.ownership_head and not drop_ownership:
        raise ValueError(
            "Leela Zero's format has no ownership head; pass drop_ownership=True "
            "to export the rest of the net"
        )


def export_leela_zero(
    model: PolicyValueNet, path: PathLike, *, drop_ownership: bool = False
) -> None:
    """Write ``model`` as a Leela Zero version 1 weights file, atomically.

    Raises:
        ValueError: the net is not 19x19 with ``lz18`` input, it has global
            pooling or a score head (never exportable), or it has an ownership
            head and ``drop_ownership`` is False.
    """
    if not isinstance(model, PolicyValueNet):
        raise TypeError(f"model must be a PolicyValueNet, not {type(model).__name__}")
    _check_exportable(model, drop_ownership)
    n = model.config.board_size
    lines: list[F64] = []
    for conv, bn in _conv_layers(model):
        lines += _layer_lines(conv, bn)
    pol_in = _fc_input_perm(POLICY_CHANNELS, n)
    pol_out = _policy_output_perm(n)
    val_in = _fc_input_perm(VALUE_CHANNELS, n)
    lines += _layer_lines(model.policy_conv, model.policy_bn)
    lines.append(_f64(model.policy_fc.weight)[pol_out][:, pol_in])
    lines.append(_f64(model.policy_fc.bias)[pol_out])
    lines += _layer_lines(model.value_conv, model.value_bn)
    lines.append(_f64(model.value_fc1.weight)[:, val_in])
    lines.append(_f64(model.value_fc1.bias))
    lines.append(_f64(model.value_fc2.weight))
    lines.append(_f64(model.value_fc2.bias))
    text = "\n".join([str(LZ_VERSION)] + [_format(v) for v in lines]) + "\n"
    data = text.encode("ascii")

    def write(f: IO[bytes]) -> None:
        f.write(data)

    atomic_write(path, write)


def _read_capped(path: PathLike, limit: int) -> bytes | bytearray:
    """The file's bytes, gunzipped if it is gzipped: at most ``limit`` bytes either
    way, decompressed as a stream so that a small gzip bomb never expands whole."""
    target = os.fspath(path)
    with open_regular(target) as f:
        if f.read(2) != b"\x1f\x8b":
            f.seek(0)
            raw = f.read(limit + 1)
            if len(raw) > limit:
                raise WeightsError(f"{target}: larger than the {limit}-byte limit")
            return raw
        f.seek(0)
        out = bytearray()
        try:
            with gzip.GzipFile(fileobj=f, mode="rb") as unzipped:
                while chunk := unzipped.read(min(1 << 20, limit + 1 - len(out))):
                    out += chunk
                    if len(out) > limit:
                        raise WeightsError(
                            f"{target}: decompresses to more than the {limit}-byte "
                            f"limit"
                        )
        except (OSError, EOFError, zlib.error) as exc:
            raise WeightsError(f"{target}: broken gzip file ({exc})") from None
    return out


def _read_lines(path: PathLike) -> list[str]:
    raw = _read_capped(path, MAX_WEIGHTS_BYTES)
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        target = os.fspath(path)
        raise WeightsError(f"{target}: not a Leela Zero weights file") from None
    return [line for line in text.splitlines() if line.strip()]


def _line_sizes(blocks: int, filters: int) -> list[tuple[int, str]]:
    """(values, what) of every parameter line of a net of this shape (the module
    docstring's table), in file order."""
    n2 = LZ_BOARD_SIZE**2
    planes = INPUT_PLANES[LZ_INPUT]

    def layer(cin: int, cout: int, kernel: int, what: str) -> list[tuple[int, str]]:
        return [
            (cout * cin * kernel * kernel, f"{what} weights"),
            (cout, f"{what} biases"),
            (cout, f"{what} means"),
            (cout, f"{what} variances"),
        ]

    sizes = layer(planes, filters, 3, "input conv")
    for i in range(1, 2 * blocks + 1):
        sizes += layer(filters, filters, 3, f"residual conv {i}")
    sizes += layer(filters, POLICY_CHANNELS, 1, "policy conv")
    sizes += [
        ((n2 + 1) * POLICY_CHANNELS * n2, "policy fc weights"),
        (n2 + 1, "policy fc biases"),
    ]
    sizes += layer(filters, VALUE_CHANNELS, 1, "value conv")
    sizes += [
        (VALUE_HIDDEN * VALUE_CHANNELS * n2, "value fc1 weights"),
        (VALUE_HIDDEN, "value fc1 biases"),
        (VALUE_HIDDEN, "value fc2 weights"),
        (1, "value fc2 biases"),
    ]
    return sizes


def _check_line_sizes(lines: list[str], blocks: int, filters: int) -> None:
    """Count every line's values before anything is allocated for them: a short
    file cannot make us build a big net."""
    sizes = _line_sizes(blocks, filters)
    pairs = zip(lines[1:], sizes, strict=True)
    for number, (line, (expected, what)) in enumerate(pairs, 2):
        count = len(line.split())
        if count != expected:
            raise ValueError(
                f"line {number} ({what}): {count} values, expected {expected} "
                f"(a net of {blocks} blocks x {filters} filters)"
            )


def _parse(line: str, number: int, expected: int, what: str) -> F64:
    try:
        values = np.array(line.split(), dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"line {number} ({what}): not a list of numbers") from exc
    if values.size != expected:
        raise ValueError(
            f"line {number} ({what}): {values.size} values, expected {expected}"
        )
    if not np.isfinite(values).all():
        raise ValueError(f"line {number} ({what}): non-finite values")
    if (np.abs(values) > _F32_MAX).any():
        raise ValueError(f"line {number} ({what}): values beyond float32's range")
    return values


class _Reader:
    """Hands out the parameter lines in order, checking their lengths."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.pos = 1  # line 0 is the version

    def take(self, expected: int, what: str) -> F64:
        values = _parse(self.lines[self.pos], self.pos + 1, expected, what)
        self.pos += 1
        return values


def _set(param: torch.Tensor, values: F64) -> None:
    with torch.no_grad():
        param.copy_(torch.from_numpy(values.reshape(param.shape).astype(np.float32)))


def _load_layer(
    reader: _Reader, conv: torch.nn.Conv2d, bn: BatchNorm, what: str
) -> None:
    weight = reader.take(conv.weight.numel(), f"{what} weights")
    cout = conv.out_channels
    bias = reader.take(cout, f"{what} biases")
    mean = reader.take(cout, f"{what} means")
    var = reader.take(cout, f"{what} variances")
    if (var < 0).any():
        # Leela Zero computes with var + 1e-5 > 0, but no trained net has a
        # negative variance and our weights files refuse one (check_values).
        raise ValueError(f"{what}: negative batch-norm variances")
    beta = bias / np.sqrt(var + BN_EPS)
    if (np.abs(beta) > _F32_MAX).any():
        raise ValueError(
            f"{what}: biases / sqrt(variances + 1e-5) go beyond float32's range"
        )
    weight = weight.reshape(conv.weight.shape)
    if weight.shape[-1] == 3:
        weight = weight[:, :, ::-1, :]
    _set(conv.weight, np.ascontiguousarray(weight))
    _set(bn.bias, beta)
    running_mean, running_var = _stats(bn)
    _set(running_mean, mean)
    _set(running_var, var)


def import_leela_zero(path: PathLike) -> PolicyValueNet:
    """Read a Leela Zero version 1 weights file (plain or gzipped) as a
    PolicyValueNet (19x19, ``lz18`` input, eval mode).

    Everything is checked before the net is built: the file's size (after gzip
    decompression, which streams, at most :data:`~alphago.nets.weights.
    MAX_WEIGHTS_BYTES`), the net's size (at most :data:`~alphago.nets.weights.
    MAX_PARAMETERS`) and the number of values on every line.

    Raises:
        WeightsError (a ValueError, naming the file): not a regular file, too big,
            broken gzip, wrong version, line count, line lengths (another board
            size or input plane count), non-numeric or non-finite values, values
            beyond float32's range (also biases once divided by the square root of
            their variance), or negative batch-norm variances.
        OSError: the file cannot be opened or read.
    """
    target = os.fspath(path)
    lines = _read_lines(path)
    try:
        version = int(lines[0].strip()) if lines else None
    except ValueError:
        version = None
    if version != LZ_VERSION:
        raise WeightsError(f"{target}: not a Leela Zero version 1 weights file")
    blocks, rest = divmod(len(lines) - 1 - 4 - _HEAD_LINES, 8)
    if blocks < 0 or rest:
        raise WeightsError(
            f"{target}: {len(lines)} lines do not make a Leela Zero net "
            f"(1 + 4 + 8 * blocks + 14)"
        )
    filters = len(lines[2].split())
    if filters < 1:
        raise WeightsError(f"{target}: line 3 (input biases) is empty")
    n = LZ_BOARD_SIZE
    try:
        config = NetConfig(n, blocks, filters, LZ_INPUT, False)
        expected_state(config)  # the parameter limit, nothing allocated
        _check_line_sizes(lines, blocks, filters)
    except ValueError as exc:
        raise WeightsError(f"{target}: {exc}") from None
    model = PolicyValueNet(config)
    reader = _Reader(lines)
    try:
        for i, (conv, bn) in enumerate(_conv_layers(model)):
            what = "input conv" if i == 0 else f"residual conv {i}"
            _load_layer(reader, conv, bn, what)
        _load_layer(reader, model.policy_conv, model.policy_bn, "policy conv")
        pol_in = _fc_input_perm(POLICY_CHANNELS, n)
        pol_out = _policy_output_perm(n)
        a, k = n * n + 1, POLICY_CHANNELS * n * n
        w = reader.take(a * k, "policy fc weights").reshape(a, k)
        _set(model.policy_fc.weight, w[pol_out][:, pol_in])
        _set(model.policy_fc.bias, reader.take(a, "policy fc biases")[pol_out])
        _load_layer(reader, model.value_conv, model.value_bn, "value conv")
        val_in = _fc_input_perm(VALUE_CHANNELS, n)
        w = reader.take(VALUE_HIDDEN * n * n, "value fc1 weights")
        _set(model.value_fc1.weight, w.reshape(VALUE_HIDDEN, n * n)[:, val_in])
        _set(model.value_fc1.bias, reader.take(VALUE_HIDDEN, "value fc1 biases"))
        _set(model.value_fc2.weight, reader.take(VALUE_HIDDEN, "value fc2 weights"))
        _set(model.value_fc2.bias, reader.take(1, "value fc2 biases"))
    except ValueError as exc:
        raise WeightsError(f"{target}: {exc}") from None
    return model.eval()
