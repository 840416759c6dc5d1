"""Inference with batch norm folded into the convolutions, in the compute type.

In eval mode a batch norm is an affine map per channel, so it folds into the
convolution before it: ``W' = W * s`` and ``b' = shift - mean * s`` with ``s = 1 /
sqrt(var + eps)`` (:func:`fold`). :class:`FusedNetwork` runs a
:class:`~alphago.nets.model.PolicyValueNet` that way, with its weights kept in the
compute type (so no autocast and no casting of the weights at every call) and the
ReLUs and residual sums done in place. On the CPU that is all: oneDNN's fused
post-ops (``torch.ops.mkldnn._convolution_pointwise``, which torch's compiler emits)
measured no faster than these plain steps on the shipped nets, and they are an
internal operator. On CUDA each convolution can also take its ReLU, or a residual
block's sum and ReLU, into cuDNN's fused kernel (``torch.cudnn_convolution_relu``,
``torch.cudnn_convolution_add_relu``): the unfused network passes over every
activation two or three more times per convolution, a large share of a 20x256 net's
time on a GPU by the memory traffic it takes.

The folded weights are folded again, in place, whenever one of the source network's
tensors has changed (their version counters move with every in-place update: an
optimiser's step, ``load_state_dict``); CUDA graphs captured on the network keep
reading the same tensors. Not noticed (build a new one then): changes made without
torch seeing them (through ``.data``, or by replaying a CUDA graph of an optimiser
step), and tensors replaced rather than changed (a new ``Parameter`` assigned,
``load_state_dict(..., assign=True)``, the module moved or converted): looking for
those at every call would cost more than the folding saves on small calls.

Where cuDNN's fused operators are missing, or refuse or get wrong the network's
layers in its type (checked once per kind of network, against the plain steps),
the convolutions run plainly: ``kernels`` says which ("cudnn" or "plain").
README's "Devices and precision" gives what this measured.
"""

from __future__ import annotations

import copy
from typing import cast

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from .model import BatchNorm, GlobalPoolingBlock, PolicyValueNet, ResidualBlock

__all__ = ["FusedNetwork", "fold", "fold_pooled"]


def fold(conv: nn.Conv2d, bn: BatchNorm) -> tuple[Tensor, Tensor]:
    """``conv`` (no bias) then ``bn`` in eval mode as one convolution: its weight
    and bias, in the layers' type (float32 for our networks)."""
    s = torch.rsqrt(bn.running_var + bn.eps)
    return conv.weight * s[:, None, None, None], bn.bias - bn.running_mean * s


def fold_pooled(block: GlobalPoolingBlock) -> tuple[Tensor, Tensor]:
    """The weight and bias of ``block``'s pooling layer with ``bn1``'s scale folded
    in: the pooled bias enters before ``bn1``, whose scale applies to it too."""
    s = torch.rsqrt(block.bn1.running_var + block.bn1.eps)
    return block.pool_fc.weight * s[:, None], block.pool_fc.bias * s


def _folded_state(net: PolicyValueNet) -> dict[str, Tensor]:
    """Every tensor :class:`FusedNetwork` computes with, in the network's type, by
    name."""
    out: dict[str, Tensor] = {}

    def conv_bn(name: str, conv: nn.Conv2d, bn: BatchNorm) -> None:
        out[f"{name}.w"], out[f"{name}.b"] = fold(conv, bn)

    def plain(name: str, layer: nn.Linear | nn.Conv2d) -> None:
        assert layer.bias is not None
        out[f"{name}.w"], out[f"{name}.b"] = layer.weight, layer.bias

    conv_bn("in", net.conv_in, net.bn_in)
    for i, module in enumerate(net.tower):
        block = cast(ResidualBlock | GlobalPoolingBlock, module)
        conv_bn(f"{i}.conv1", block.conv1, block.bn1)
        conv_bn(f"{i}.conv2", block.conv2, block.bn2)
        if isinstance(block, GlobalPoolingBlock):
            conv_bn(f"{i}.pool", block.pool_conv, block.pool_bn)
            out[f"{i}.fc.w"], out[f"{i}.fc.b"] = fold_pooled(block)
    conv_bn("policy", net.policy_conv, net.policy_bn)
    conv_bn("value", net.value_conv, net.value_bn)
    plain("policy_fc", net.policy_fc)
    plain("value_fc1", net.value_fc1)
    plain("value_fc2", net.value_fc2)
    if net.ownership_conv is not None:
        plain("ownership", net.ownership_conv)
    return out


def _pad(w: Tensor) -> list[int]:
    return [w.shape[-1] // 2] * 2


class _Plain:
    """Convolution with its bias, then the ReLU (and the sum) as separate steps."""

    name = "plain"

    @staticmethod
    def conv(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return F.conv2d(x, w, b, padding=_pad(w))

    def conv_relu(self, x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return torch.relu_(self.conv(x, w, b))

    def conv_add_relu(self, x: Tensor, w: Tensor, b: Tensor, z: Tensor) -> Tensor:
        return torch.relu_(self.conv(x, w, b).add_(z))


class _CuDNN(_Plain):
    """cuDNN's fused convolution + bias (+ sum) + ReLU."""

    name = "cudnn"

    def conv_relu(self, x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        y: Tensor = torch.cudnn_convolution_relu(x, w, b, [1, 1], _pad(w), [1, 1], 1)
        return y

    def conv_add_relu(self, x: Tensor, w: Tensor, b: Tensor, z: Tensor) -> Tensor:
        y: Tensor = torch.cudnn_convolution_add_relu(
            x, w, z, 1.0, b, [1, 1], _pad(w), [1, 1], 1
        )
        return y


_FUSED: dict[str, type[_Plain]] = {"cuda": _CuDNN}


#: Probe verdicts by (kernels, device, dtype, network shape), one probe per process.
_PROBED: dict[tuple[str, str, torch.dtype, str], bool] = {}


def _agrees(net: PolicyValueNet, dtype: torch.dtype, kernels: _Plain) -> bool:
    """Whether ``kernels`` run ``net``'s layers in ``dtype`` and make what the plain
    steps make (:meth:`FusedNetwork.features`, within 5% of the largest value, and
    0.001) on two seeded positions and a copy of ``net`` with random batch-norm
    statistics and shifts: a fresh network's folded biases are all zero, so a
    kernel that dropped its bias would pass on it. A kernel that drops its bias or
    its sum is off by far more."""
    device = next(net.parameters()).device
    key = (kernels.name, str(device), dtype, net.config.to_json())
    if key in _PROBED:
        return _PROBED[key]
    gen = torch.Generator().manual_seed(0)
    twin = copy.deepcopy(net).eval()
    with torch.no_grad():
        for module in twin.modules():
            if isinstance(module, BatchNorm):
                count = module.num_features
                module.running_mean.copy_(torch.rand(count, generator=gen) - 0.5)
                module.running_var.copy_(torch.rand(count, generator=gen) + 0.5)
                module.bias.copy_(torch.rand(count, generator=gen) - 0.5)
    plain = FusedNetwork(twin, dtype, probe=False)
    cfg = net.config
    n = cfg.board_size
    x = (torch.rand(2, cfg.planes, n, n, generator=gen) < 0.3).to(device, dtype)
    x = x.contiguous(memory_format=torch.channels_last)
    verdict = True
    try:
        with torch.inference_mode():
            want = plain.features(x)
            plain._k = kernels
            got = plain.features(x)
    except (RuntimeError, NotImplementedError, AttributeError, TypeError):
        verdict = False
    else:
        for a, b in zip(got, want, strict=True):
            if a.shape != b.shape or a.dtype != b.dtype:
                verdict = False
                break
            error = float((a.float() - b.float()).abs().max())
            if not error <= 0.05 * float(b.float().abs().max()) + 1e-3:
                verdict = False
                break
    _PROBED[key] = verdict
    return verdict


class FusedNetwork:
    """``net`` (a :class:`PolicyValueNet`) for inference in ``dtype`` with batch
    norm folded and the convolutions fused (module docstring).

    Calling it on planes [B, C, N, N] of ``dtype`` (channels-last is the layout the
    kernels want) returns what ``net`` does in eval mode: policy logits, value and
    ownership (None without the head), in ``dtype``. ``kernels``: "cudnn" or
    "plain". ``probe=False`` skips the fused kernels' check (and so runs plainly).
    """

    def __init__(
        self, net: PolicyValueNet, dtype: torch.dtype, probe: bool = True
    ) -> None:
        if not isinstance(net, PolicyValueNet):
            raise TypeError(f"net must be a PolicyValueNet, not {type(net).__name__}")
        self.net = net
        self.config = net.config
        self.dtype = dtype
        self._sources = [*net.parameters(), *net.buffers()]
        self._seen = -1
        self._tensors: dict[str, Tensor] = {}
        self._pooling = [isinstance(b, GlobalPoolingBlock) for b in net.tower]
        self.refresh()
        self.device = self._tensors["in.w"].device
        self._k: _Plain = _Plain()
        fused = _FUSED.get(self.device.type)
        if probe and fused is not None and _agrees(net, dtype, fused()):
            self._k = fused()
        self.kernels = self._k.name

    def _version(self) -> int:
        # Version counters only grow, so their sum moves when any of them does.
        return sum(t._version for t in self._sources)

    def refresh(self) -> None:
        """Fold the source network's weights again if any of them changed."""
        seen = self._version()
        if seen == self._seen:
            return
        # Ordinary tensors even when first made inside inference mode (a lazy first
        # call), so that a later refresh outside it may still write them.
        with torch.inference_mode(False), torch.no_grad():
            state = _folded_state(self.net)
            if not self._tensors:
                for name, t in state.items():
                    t = t.detach().to(self.dtype, copy=True)  # never the source
                    if t.dim() == 4:
                        t = t.contiguous(memory_format=torch.channels_last)
                    self._tensors[name] = t
            else:
                for name, t in state.items():
                    self._tensors[name].copy_(t)
        self._seen = seen

    def __call__(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor | None]:
        # Inside a CUDA graph's capture a refold would be recorded into the graph.
        cuda = self.device.type == "cuda"
        if not (cuda and torch.cuda.is_current_stream_capturing()):
            self.refresh()
        return self.forward(x)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor | None]:
        """The network on ``x`` with the weights as last folded."""
        t = self._tensors
        h, p, v = self.features(x)
        logits = F.linear(torch.flatten(p, 1), t["policy_fc.w"], t["policy_fc.b"])
        v = torch.relu(
            F.linear(torch.flatten(v, 1), t["value_fc1.w"], t["value_fc1.b"])
        )
        value = torch.tanh(F.linear(v, t["value_fc2.w"], t["value_fc2.b"])).squeeze(1)
        owner = None
        if "ownership.w" in t:
            owner = F.conv2d(h, t["ownership.w"], t["ownership.b"])
            owner = torch.tanh(owner).squeeze(1)
        return logits, value, owner

    def features(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """What every convolution kernel makes: the tower's output and the policy
        and value heads' convolutional features."""
        t, k = self._tensors, self._k
        cfg = self.config
        if x.dim() != 4 or tuple(x.shape[1:]) != (cfg.planes,) + (cfg.board_size,) * 2:
            raise ValueError(
                f"expected input [B, {cfg.planes}, {cfg.board_size}, "
                f"{cfg.board_size}], not {tuple(x.shape)}"
            )
        h = k.conv_relu(x, t["in.w"], t["in.b"])
        for i, pooling in enumerate(self._pooling):
            w1, b1 = t[f"{i}.conv1.w"], t[f"{i}.conv1.b"]
            if pooling:
                g = k.conv_relu(h, t[f"{i}.pool.w"], t[f"{i}.pool.b"])
                pooled = torch.cat([g.mean(dim=(2, 3)), g.amax(dim=(2, 3))], dim=1)
                bias = F.linear(pooled, t[f"{i}.fc.w"], t[f"{i}.fc.b"])
                y = torch.relu_(k.conv(h, w1, b1).add_(bias[:, :, None, None]))
            else:
                y = k.conv_relu(h, w1, b1)
            h = k.conv_add_relu(y, t[f"{i}.conv2.w"], t[f"{i}.conv2.b"], h)
        p = k.conv_relu(h, t["policy.w"], t["policy.b"])
        v = k.conv_relu(h, t["value.w"], t["value.b"])
        return h, p, v
