"""int8 inference on the CPU: a :class:`PolicyValueNet`'s convolutions in 8 bits.

CPUs with AVX512-VNNI multiply-accumulate four 8-bit products per 32-bit lane in one
instruction, twice bfloat16's rate with AVX512-BF16 and four times float32's.
:class:`Int8Network` is an inference-only copy of a network that uses them:

- batch norm is folded into the convolution before it (eval mode's running statistics
  make it an affine map per channel: ``W' = W * s``, ``b' = beta - mean * s`` with
  ``s = 1 / sqrt(var + eps)``), so each conv + BN pair is one convolution with a bias;
- the folded tower (input block, residual blocks, the policy and value heads' 1x1
  convolutions) is quantized after training by torch's FX graph mode on the oneDNN
  engine: weights int8 per output channel, activations uint8 per tensor with ranges
  set from a histogram of the activations of calibration positions
  (:func:`calibration_planes`), each convolution fused with the ReLU after it, each
  residual sum with its ReLU;
- the heads' fully connected layers, and the ownership head's 1x1 convolution, stay
  in float32: they are a few percent of the arithmetic and the outputs the search
  and the analyses read come out of them (quantized per tensor, ownership came in
  steps of 0.04, coarse for a GUI's map and for a score summed over the board);
- global pooling blocks stay in float32 (their mean and max over the board would
  need ranges of their own); the tower quantizes their outputs again.

The copy is a snapshot: training the network afterwards does not change it.
README's "Devices and precision" gives what it measured (speed, agreement with fp32).
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from collections.abc import Iterator
from typing import cast

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from search import Positions

from .fused import fold, fold_pooled
from .model import (
    BatchNorm,
    GlobalPoolingBlock,
    NetConfig,
    PolicyValueNet,
    ResidualBlock,
)
from .own_games import positions_of, self_play_positions
from .precision import INT8_ENGINE, autocast, default_precision, resolve_precision

__all__ = [
    "CALIBRATION_POSITIONS",
    "Int8Network",
    "calibration_planes",
]

#: How many positions set the activations' ranges. 64 to 1,024 positions of the
#: shipped nets' own games gave the same agreement with fp32 within noise (about
#: 1.5 points of top-1 from one draw of positions to the next).
CALIBRATION_POSITIONS = 128


def _folded(conv: nn.Conv2d, bn: BatchNorm) -> nn.Conv2d:
    """``conv`` (square kernel, no bias) then ``bn`` in eval mode, as one
    convolution with a bias."""
    kernel = conv.kernel_size[0]
    out = nn.Conv2d(conv.in_channels, conv.out_channels, kernel, padding=kernel // 2)
    assert out.bias is not None
    with torch.no_grad():
        weight, bias = fold(conv, bn)
        out.weight.copy_(weight.contiguous())
        out.bias.copy_(bias)
    return out


class _Block(nn.Module):
    """A :class:`ResidualBlock` with its batch norms folded."""

    def __init__(self, block: ResidualBlock) -> None:
        super().__init__()
        self.conv1 = _folded(block.conv1, block.bn1)
        self.conv2 = _folded(block.conv2, block.bn2)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.conv2(F.relu(self.conv1(x))) + x)


class _PoolingBlock(nn.Module):
    """A :class:`GlobalPoolingBlock` with its batch norms folded (run in float32).

    The pooled bias enters before ``bn1``, so ``bn1``'s scale applies to it too: it
    is folded into the fully connected layer's rows.
    """

    def __init__(self, block: GlobalPoolingBlock) -> None:
        super().__init__()
        self.conv1 = _folded(block.conv1, block.bn1)
        self.pool_conv = _folded(block.pool_conv, block.pool_bn)
        self.conv2 = _folded(block.conv2, block.bn2)
        self.pool_fc = copy.deepcopy(block.pool_fc)
        with torch.no_grad():
            weight, bias = fold_pooled(block)
            self.pool_fc.weight.copy_(weight)
            self.pool_fc.bias.copy_(bias)

    def forward(self, x: Tensor) -> Tensor:
        g = F.relu(self.pool_conv(x))
        pooled = torch.cat([g.mean(dim=(2, 3)), g.amax(dim=(2, 3))], dim=1)
        y = F.relu(self.conv1(x) + self.pool_fc(pooled)[:, :, None, None])
        return F.relu(self.conv2(y) + x)


class _Tower(nn.Module):
    """The convolutional part, batch norms folded: planes -> (policy features,
    value features[, the tower's output, for the ownership head])."""

    def __init__(self, net: PolicyValueNet) -> None:
        super().__init__()
        self.conv_in = _folded(net.conv_in, net.bn_in)
        self.blocks = nn.Sequential(
            *(
                _PoolingBlock(b)
                if isinstance(b, GlobalPoolingBlock)
                else _Block(cast(ResidualBlock, b))
                for b in net.tower
            )
        )
        self.policy_conv = _folded(net.policy_conv, net.policy_bn)
        self.value_conv = _folded(net.value_conv, net.value_bn)
        # The ownership head reads the tower's output itself (float32, below).
        self.tower_out = net.ownership_conv is not None

    def forward(self, x: Tensor) -> tuple[Tensor, ...]:
        h = self.blocks(F.relu(self.conv_in(x)))
        p = F.relu(self.policy_conv(h))
        v = F.relu(self.value_conv(h))
        if not self.tower_out:
            return p, v
        return p, v, h


@contextlib.contextmanager
def _fx_stack_traces_off() -> Iterator[None]:
    """FX tracing without a stack trace per traced operation: symbolizing them was
    2 s of the 2.6 s a 9x9 net took to quantize."""
    try:
        import torch.fx.config as config
    except ImportError:  # a torch without the switch
        yield
        return
    before = config.do_not_emit_stack_traces
    config.do_not_emit_stack_traces = True
    try:
        yield
    finally:
        config.do_not_emit_stack_traces = before


def _quantize(tower: _Tower, calibration: Tensor) -> nn.Module:
    """``tower`` quantized by FX graph mode, its activation ranges from
    ``calibration`` (float32 planes)."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.fx.custom_config import PrepareCustomConfig
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    torch.backends.quantized.engine = INT8_ENGINE
    qconfig = get_default_qconfig_mapping(INT8_ENGINE).set_object_type(
        _PoolingBlock, None
    )
    custom = PrepareCustomConfig().set_non_traceable_module_classes([_PoolingBlock])
    with warnings.catch_warnings(), _fx_stack_traces_off():
        # torch marks the FX quantization API as headed for torchao; it is the one
        # that ships with every torch this project accepts (2.4 to 2.13).
        warnings.simplefilter("ignore")
        prepared = prepare_fx(
            tower.eval(), qconfig, (calibration[:1],), prepare_custom_config=custom
        )
        with torch.inference_mode():
            prepared(calibration)
        return convert_fx(prepared)


def calibration_planes(
    net: PolicyValueNet, positions: int = CALIBRATION_POSITIONS, seed: int = 0
) -> Tensor:
    """float32 planes [positions, C, N, N] of positions ``net`` (in eval mode) meets
    in play: eight games played in lock-step, each move drawn from the net's policy
    (in the CPU's inference precision), for up to half a board of moves each,
    sampled evenly.

    Positions of the net's own games set its activations' ranges better than random
    or pattern-policy playouts did on 9x9 (96.8% top-1 agreement with fp32 against
    94-95%); on 19x19 the three came out alike, about 96.5%.
    """
    size = net.config.board_size
    seen = self_play_positions(_Policy(net), size, 8, max(1, size * size // 2), seed)
    chosen = np.linspace(0, len(seen) - 1, min(positions, len(seen))).round()
    picked = positions_of([seen[int(i)] for i in chosen])
    return _planes(picked, net.config)


class _Policy:
    """``net``'s policy as a search evaluator, for :func:`self_play_positions`
    (float64 priors over the legal moves; the values are not needed)."""

    def __init__(self, net: PolicyValueNet) -> None:
        self.net = net
        self.precision = default_precision(torch.device("cpu"), inference=True)

    def evaluate(self, positions: Positions) -> tuple[np.ndarray, np.ndarray]:
        planes = _planes(positions, self.net.config)
        legal = torch.from_numpy(positions.legal_masks())
        with torch.inference_mode():
            with autocast(torch.device("cpu"), self.precision):
                logits = self.net(planes)[0].float()
            logits[~legal] = -torch.inf
            priors = torch.softmax(logits, dim=1).double().numpy()
        return priors, np.zeros(len(positions))


def _planes(positions: Positions, config: NetConfig) -> Tensor:
    """float32 planes [B, C, N, N] of ``positions``."""
    n = config.board_size
    planes = np.zeros((len(positions), config.planes, n, n), np.uint8)
    positions.pool.features(positions.slots, config.input_planes, out=planes)
    return torch.from_numpy(planes).float()


class Int8Network(nn.Module):
    """``net`` for inference with int8 convolutions (module docstring).

    ``calibration``: float32 planes whose activations set the ranges (default:
    :func:`calibration_planes` of the net, seed 0, so the copy is deterministic).
    ``forward(x)`` returns what :meth:`PolicyValueNet.forward` does: policy logits,
    value and ownership (None without the head), float32.

    Raises:
        ValueError: ``net`` is not a :class:`PolicyValueNet`, or this machine cannot
            run int8 (:func:`~alphago.nets.precision.int8_supported`).
    """

    def __init__(self, net: PolicyValueNet, calibration: Tensor | None = None) -> None:
        super().__init__()
        if not isinstance(net, PolicyValueNet):
            raise ValueError(
                f"int8 runs PolicyValueNet networks only, not {type(net).__name__}"
            )
        resolve_precision("int8", torch.device("cpu"), inference=True)
        self.config = net.config
        was_training = net.training
        net.eval()
        cpu = copy.deepcopy(net).to("cpu")
        net.train(was_training)
        if calibration is None:
            calibration = calibration_planes(cpu)
        self.tower = _quantize(_Tower(cpu), calibration.to("cpu", torch.float32))
        self.policy_fc = cpu.policy_fc
        self.value_fc1 = cpu.value_fc1
        self.value_fc2 = cpu.value_fc2
        self.ownership_conv = cpu.ownership_conv

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor | None]:
        out = self.tower(x.float())
        logits = self.policy_fc(torch.flatten(out[0], 1))
        v = F.relu(self.value_fc1(torch.flatten(out[1], 1)))
        value = torch.tanh(self.value_fc2(v)).squeeze(1)
        owner = None
        if self.ownership_conv is not None:
            owner = torch.tanh(self.ownership_conv(out[2])).squeeze(1)
        return logits, value, owner
