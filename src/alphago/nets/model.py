"""The AlphaGo Zero policy-value network and its configuration.

Shapes (``B`` batch, ``C`` input planes, ``N`` board size, ``F`` filters):

- input: float32 ``[B, C, N, N]``, goboard feature planes of kind
  ``config.input_planes`` (``agz17``: C = 17, ``lz18``: C = 18, ``alphago49``: C = 49,
  the 2016 value net's planes, whose liberty, ladder and move-trial planes hand the
  net the tactics it would otherwise have to learn from few games), side to move's view;
- policy logits: ``[B, N*N + 1]`` (pass last), before any masking or softmax;
- value: ``[B]`` in [-1, 1] (tanh), the expected outcome for the side to move;
- ownership (only with ``ownership_head``): ``[B, N, N]`` in [-1, 1] (tanh), +1 where
  the side to move is expected to own the point at the end;
- score (only with ``score_head``, through :meth:`PolicyValueNet.heads`): ``[B]``, the
  expected final area margin for the side to move, in points (komi included).

Layers (Leela Zero's layout, so that :mod:`alphago.nets.leelazero` converts exactly):

- input block: 3x3 conv C -> F, batch norm, ReLU;
- ``blocks`` residual blocks: (3x3 conv, batch norm, ReLU, 3x3 conv, batch norm),
  plus the block input, ReLU;
- policy head: 1x1 conv F -> 2, batch norm, ReLU, fully connected 2*N*N -> N*N + 1;
- value head: 1x1 conv F -> 1, batch norm, ReLU, fully connected N*N -> 256, ReLU,
  fully connected 256 -> 1, tanh. The AlphaGo Zero paper and Leela Zero both put batch
  norm and ReLU after the value head's 1x1 conv; we do too.
- ownership head: 1x1 conv F -> 1 (with bias), tanh.
- score head: fully connected 256 -> 1 on the value head's hidden layer, times N (the
  layer learns margin / N, about unit scale; the value and the score are two readings
  of the same judgement of the position, so they share its features).
- global pooling (KataGo; Wu 2019, section 4.1), in the residual blocks listed in
  ``global_pooling``: the block's first convolution is split into F - G ordinary
  channels and G = max(1, F // 4) pooling channels. The pooling channels go through
  batch norm and ReLU, then their mean and max over the board (2G numbers per
  position) through a fully connected layer 2G -> F - G, whose outputs are added to
  the ordinary channels as one bias per channel before the block's first batch norm;
  the second convolution maps the F - G channels back to F. Whole-board facts (who is
  ahead, how many ko threats there are) so reach every point in one block instead of
  crawling across the board one 3x3 convolution at a time.

The score head and global pooling are not in Leela Zero's format
(:mod:`alphago.nets.leelazero` refuses to export such nets) and are off by default,
so nets and weights files without them are exactly those of earlier versions.

Batch norm: the convolutions have no bias; each batch norm has a learned shift (beta)
but no learned scale (gamma), as Leela Zero's trainer does (a scale before a ReLU and
a linear layer adds nothing the next layer cannot learn). That keeps every layer
expressible in Leela Zero's text format, where a layer is (weights, bias, running
mean, running variance) with ``y = (conv(x) + bias - mean) / sqrt(var + 1e-5)``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar, cast

import torch
from torch import Tensor, nn
from torch.nn import functional as F

__all__ = [
    "INPUT_PLANES",
    "POLICY_CHANNELS",
    "VALUE_CHANNELS",
    "VALUE_HIDDEN",
    "BatchNorm",
    "GlobalPoolingBlock",
    "Heads",
    "NetConfig",
    "PolicyValueNet",
    "ResidualBlock",
]

#: Input plane kinds the network accepts, and their plane counts.
INPUT_PLANES: dict[str, int] = {"agz17": 17, "lz18": 18, "alphago49": 49}
POLICY_CHANNELS = 2
VALUE_CHANNELS = 1
VALUE_HIDDEN = 256
BN_EPS = 1e-5
#: Config keys :meth:`NetConfig.to_dict` leaves out when they are off.
_OPTIONAL_KEYS = ("score_head", "global_pooling")


def _bad_block_list(indices: tuple[int, ...] | list[int], count: int) -> bool:
    """Whether ``indices`` is not a strictly ascending list in 0..count-1."""
    values = list(indices)
    return values != sorted(set(values)) or any(not 0 <= i < count for i in values)


_Config = TypeVar("_Config")


def config_from_dict(cls: type[_Config], data: object) -> _Config:
    """A frozen config dataclass from its ``asdict`` form: ValueError if ``data``
    is not a dict, has unknown keys or invalid values."""
    if not isinstance(data, dict):
        raise ValueError(f"a net config must be a dict, not {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cast(Any, cls))}
    extra = sorted(str(k) for k in data if k not in names)
    if extra:
        raise ValueError(f"unknown net config keys: {', '.join(extra)}")
    try:
        return cls(**data)
    except TypeError as exc:
        raise ValueError(f"invalid net config: {exc}") from exc


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """A config field that must be an int (not a bool) in low..high."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        span = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"{name} must be {span}, not {value}")


def check_planes(value: object, known: Mapping[str, int]) -> None:
    """A config's input_planes: one of the kinds in ``known``."""
    if not isinstance(value, str):
        raise TypeError(f"input_planes must be a str, not {type(value).__name__}")
    if value not in known:
        kinds = ", ".join(sorted(known))
        raise ValueError(f"input_planes must be one of {kinds}, not {value!r}")


@dataclass(frozen=True, slots=True)
class NetConfig:
    """The shape of a :class:`PolicyValueNet` (JSON-able; validated on creation).

    Attributes:
        board_size: N, 2..19.
        blocks: residual blocks (>= 0).
        filters: channels of the tower (>= 1).
        input_planes: goboard feature kind, ``"agz17"``, ``"lz18"`` or ``"alphago49"``.
        ownership_head: add the ownership head.
        score_head: add the score head (module docstring).
        global_pooling: indices of the residual blocks with global pooling
            (distinct, ascending, each < ``blocks``; empty: none).
    """

    board_size: int = 19
    blocks: int = 6
    filters: int = 64
    input_planes: str = "agz17"
    ownership_head: bool = False
    score_head: bool = False
    global_pooling: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        check_int("board_size", self.board_size, 2, 19)
        check_int("blocks", self.blocks, 0, 1000)
        check_int("filters", self.filters, 1, 4096)
        check_planes(self.input_planes, INPUT_PLANES)
        if not isinstance(self.ownership_head, bool):
            kind = type(self.ownership_head).__name__
            raise TypeError(f"ownership_head must be a bool, not {kind}")
        if not isinstance(self.score_head, bool):
            kind = type(self.score_head).__name__
            raise TypeError(f"score_head must be a bool, not {kind}")
        pooling = self.global_pooling
        if isinstance(pooling, (str, bytes)) or not isinstance(pooling, (tuple, list)):
            kind = type(pooling).__name__
            raise TypeError(f"global_pooling must be a sequence of ints, not {kind}")
        for index in pooling:
            check_int("a global_pooling block", index, 0)
        if _bad_block_list(pooling, self.blocks):
            raise ValueError(
                f"global_pooling must list distinct blocks in 0..{self.blocks - 1} in "
                f"ascending order, not {list(pooling)}"
            )
        if pooling and self.filters < 2:
            raise ValueError("global pooling needs filters >= 2")
        # A list (from JSON) becomes a tuple: hashable, and equal to the same config
        # made in Python.
        object.__setattr__(self, "global_pooling", tuple(pooling))

    @property
    def planes(self) -> int:
        """Input planes C (17, 18 or 49)."""
        return INPUT_PLANES[self.input_planes]

    @property
    def actions(self) -> int:
        """Policy entries, N*N + 1."""
        return self.board_size**2 + 1

    @property
    def pooling_channels(self) -> int:
        """G, the pooling channels of a global pooling block."""
        return max(1, self.filters // 4)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (JSON-able). The score head and global pooling appear only
        when used, so a net without them writes the same config (and weights file
        digest) as before they existed, and older versions read its files."""
        data = dataclasses.asdict(self)
        for name in _OPTIONAL_KEYS:
            if not data[name]:
                del data[name]
        if "global_pooling" in data:
            data["global_pooling"] = list(self.global_pooling)
        return data

    @classmethod
    def from_dict(cls, data: object) -> NetConfig:
        """The config from :meth:`to_dict`'s output.

        Raises:
            ValueError: not a dict, or unknown keys (or invalid values).
        """
        return config_from_dict(cls, data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> NetConfig:
        return cls.from_dict(json.loads(text))


class BatchNorm(nn.Module):
    """Batch norm over ``[B, F, N, N]`` with a learned shift (``bias``) and no learned
    scale: ``y = (x - mean) / sqrt(var + eps) + bias``.

    Training mode normalises with the batch's mean and (biased) variance and moves the
    running statistics towards the batch's by ``momentum`` (the variance unbiased),
    counting steps in ``num_batches_tracked``; eval mode uses the running statistics.
    That is ``nn.BatchNorm2d(affine=False)``'s arithmetic, and the state is the same:
    ``bias``, ``running_mean``, ``running_var`` (each ``[F]``, float32) and
    ``num_batches_tracked`` (int64 scalar), so weights files written when this class
    was an ``nn.BatchNorm2d`` with a hand-added bias load unchanged.

    When gradients are recorded the shift is added after ``F.batch_norm`` rather than
    passed to it: batch norm's CUDA backward rejects a bias without a weight ("tensor
    does not have a device"). Without gradients (inference, ``torch.no_grad``) it is
    passed in, which is one fused pass instead of two (the add alone cost as much as
    the normalisation on CPU) and exactly the old class's arithmetic.
    """

    num_batches_tracked: Tensor
    running_mean: Tensor
    running_var: Tensor

    def __init__(self, channels: int, momentum: float = 0.1, eps: float = BN_EPS):
        super().__init__()
        self.num_features = channels
        self.momentum = momentum
        self.eps = eps
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: Tensor) -> Tensor:
        if self.training:
            self.num_batches_tracked.add_(1)
        if not torch.is_grad_enabled():
            return F.batch_norm(
                x,
                self.running_mean,
                self.running_var,
                None,
                self.bias,
                self.training,
                self.momentum,
                self.eps,
            )
        y = F.batch_norm(
            x,
            self.running_mean,
            self.running_var,
            None,
            None,
            self.training,
            self.momentum,
            self.eps,
        )
        # Under autocast y may be bf16/fp16: add the shift in y's type so the next
        # layer does not get a float32 tensor (twice the memory traffic).
        return y + self.bias.to(y.dtype)[None, :, None, None]

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}"


def _conv_bn(cin: int, cout: int, kernel: int) -> tuple[nn.Conv2d, BatchNorm]:
    conv = nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False)
    return conv, BatchNorm(cout)


class ResidualBlock(nn.Module):
    """Two 3x3 conv + batch norm layers and a skip connection; ``[B, F, N, N]``."""

    def __init__(self, filters: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = _conv_bn(filters, filters, 3)
        self.conv2, self.bn2 = _conv_bn(filters, filters, 3)

    def forward(self, x: Tensor) -> Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class GlobalPoolingBlock(nn.Module):
    """A residual block with global pooling biases (module docstring); ``[B, F, N, N]``.

    ``filters`` F, ``pooled`` G (1 <= G < F).
    """

    def __init__(self, filters: int, pooled: int) -> None:
        super().__init__()
        regular = filters - pooled
        self.conv1, self.bn1 = _conv_bn(filters, regular, 3)
        self.pool_conv, self.pool_bn = _conv_bn(filters, pooled, 3)
        self.pool_fc = nn.Linear(2 * pooled, regular)
        self.conv2, self.bn2 = _conv_bn(regular, filters, 3)

    def pooled_bias(self, x: Tensor) -> Tensor:
        """The per-channel biases ``[B, F - G]`` that the pooling channels give."""
        g = torch.relu(self.pool_bn(self.pool_conv(x)))
        features = torch.cat([g.mean(dim=(2, 3)), g.amax(dim=(2, 3))], dim=1)
        bias: Tensor = self.pool_fc(features)
        return bias

    def forward(self, x: Tensor) -> Tensor:
        y = self.conv1(x)
        # Under autocast the bias may come out in another type than the conv's.
        y = y + self.pooled_bias(x).to(y.dtype)[:, :, None, None]
        y = torch.relu(self.bn1(y))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class Heads(NamedTuple):
    """Every output of :meth:`PolicyValueNet.heads` (shapes in the module docstring).

    ``ownership_logit`` is the ownership head before its tanh (``ownership =
    tanh(ownership_logit)``): the learner's cross-entropy wants it, not the
    saturated tanh. None for a head the net does not have.
    """

    logits: Tensor
    value: Tensor
    ownership_logit: Tensor | None
    score: Tensor | None


class PolicyValueNet(nn.Module):
    """Residual tower with policy, value and optional ownership heads.

    ``forward(x [B, C, N, N])`` returns ``(policy logits [B, N*N+1], value [B],
    ownership [B, N, N] or None)``; see the module docstring for the layers.
    """

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        if not isinstance(config, NetConfig):
            raise TypeError(f"config must be a NetConfig, not {type(config).__name__}")
        self.config = config
        n2 = config.board_size**2
        f = config.filters
        self.conv_in, self.bn_in = _conv_bn(config.planes, f, 3)
        pooling = set(config.global_pooling)
        self.tower = nn.ModuleList(
            GlobalPoolingBlock(f, config.pooling_channels)
            if i in pooling
            else ResidualBlock(f)
            for i in range(config.blocks)
        )
        self.policy_conv, self.policy_bn = _conv_bn(f, POLICY_CHANNELS, 1)
        self.policy_fc = nn.Linear(POLICY_CHANNELS * n2, n2 + 1)
        self.value_conv, self.value_bn = _conv_bn(f, VALUE_CHANNELS, 1)
        self.value_fc1 = nn.Linear(VALUE_CHANNELS * n2, VALUE_HIDDEN)
        self.value_fc2 = nn.Linear(VALUE_HIDDEN, 1)
        self.ownership_conv: nn.Conv2d | None = (
            nn.Conv2d(f, 1, 1) if config.ownership_head else None
        )
        self.score_fc: nn.Linear | None = (
            nn.Linear(VALUE_HIDDEN, 1) if config.score_head else None
        )

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor | None]:
        """Policy logits, value and ownership (None without the head): what play
        needs. Training reads every head through :meth:`heads`."""
        logits, value, owner, _ = self.heads(x, score=False)
        return logits, value, None if owner is None else torch.tanh(owner)

    def heads(self, x: Tensor, score: bool = True) -> Heads:
        """Every head's output (:class:`Heads`); ``score=False`` skips the score
        head."""
        return self.heads_on_trunk(self.trunk(x), score)

    def trunk(self, x: Tensor) -> Tensor:
        """The residual tower's output [B, filters, N, N], which every head reads."""
        cfg = self.config
        n = cfg.board_size
        if x.dim() != 4 or tuple(x.shape[1:]) != (cfg.planes, n, n):
            raise ValueError(
                f"expected input [B, {cfg.planes}, {n}, {n}], not {tuple(x.shape)}"
            )
        h = torch.relu(self.bn_in(self.conv_in(x)))
        for block in self.tower:
            h = block(h)
        return h

    def heads_on_trunk(self, h: Tensor, score: bool = True) -> Heads:
        """The heads on :meth:`trunk`'s output (so a tool that trains only the
        heads runs the frozen tower once)."""
        n = self.config.board_size
        p = torch.relu(self.policy_bn(self.policy_conv(h)))
        logits = self.policy_fc(torch.flatten(p, 1))
        v = torch.relu(self.value_bn(self.value_conv(h)))
        v = torch.relu(self.value_fc1(torch.flatten(v, 1)))
        value = torch.tanh(self.value_fc2(v)).squeeze(1)
        ownership = None
        if self.ownership_conv is not None:
            ownership = self.ownership_conv(h).squeeze(1)
        margin = None
        if score and self.score_fc is not None:
            margin = self.score_fc(v).squeeze(1) * float(n)
        return Heads(logits, value, ownership, margin)
