"""The original AlphaGo's networks (Silver et al. 2016): P_sigma / P_rho and V_theta.

Shapes (``B`` batch, ``C`` input planes, ``N`` board size, ``k`` filters, ``L``
layers):

- :class:`PolicyNet2016` (the SL policy P_sigma and the RL policy P_rho have the same
  shape): input float32 ``[B, C, N, N]`` (goboard planes of ``config.input_planes``,
  ``alphago48`` by default), a 5x5 conv C -> k, then ``L - 2`` 3x3 convs k -> k, each
  followed by a ReLU, then a 1x1 conv k -> 1 with a separate learned bias for each
  point (the paper's "different bias for each position"). Output: logits
  ``[B, N*N + 1]``, softmax'ed by the caller over the legal moves.
  *Pass*: the paper's network has no pass output; our policy vectors end with one
  (DESIGN.md), and a policy that can never pass cannot end a game. The pass logit
  comes from a small pooled head: the mean over the board of the last 3x3 layer's
  ``k`` channels, through a linear layer k -> 1.
- :class:`ValueNet2016`: input ``alphago49`` planes by default (the policy's 48 and
  the colour to play). The paper numbers its layers: 1 (5x5) and 2-11 (3x3) as the
  policy's, 12 an additional 3x3 conv, 13 a 1x1 conv to one plane, 14 a fully
  connected layer of 256 ReLUs, then one tanh unit. With ``L`` = 13 here that is a
  5x5 conv and ``L - 2`` = 11 3x3 convs (the same stack as the policy's, whose last
  3x3 layer is the value net's "additional" layer 12), the 1x1 conv, the 256 layer
  and the tanh output: ``[B]`` in [-1, 1], the outcome expected by the side to move.
  The 1x1 conv is linear (no ReLU): with one channel a ReLU there can go dead for
  every point, and the net then predicts a constant. Measured on 540 9x9 games
  (6 x 64, Adam 1e-3, 300 steps, three seeds): with the ReLU one seed in three died
  (0.4% of the plane positive, held-out MSE 0.996), without it all three learned
  (held-out MSE 0.755-0.803).

No batch norm (the paper had none); convolutions have biases.

Default shapes (:func:`default_shape`): 13 layers x 192 filters on 19x19 (the paper's
match network). On 9x9, 6 layers x 64 filters: the 19x19 net's receptive field (2 +
11 = 13 points from the centre) is about 0.7 of the board's width, and 6 layers
keep that ratio on 9x9 (6 points); 64 filters is the filter count of our Zero
default and trains in reasonable time on a CPU, where 192 would cost 9 times the
work for a board with 4.5 times fewer points. 13x13 gets 9 x 128.

Weights files: our format (:mod:`alphago.nets.weights`: one torch file of plain data
and tensors, read with ``weights_only=True``, written atomically, with a checksum)
plus a ``kind`` entry, ``"alphago2016-policy"`` or ``"alphago2016-value"``.
:func:`load_net2016` refuses a file of another kind (a Zero net, which has no
``kind``; a policy where a value net is wanted, and the other way round) and, when
asked, one for other input planes or another board size, with one line naming what
was expected; :func:`alphago.nets.load_weights` refuses 2016 files in the same way.

:class:`AlphaGo2016Evaluator` puts a policy net (priors) and an optional value net
(values; 0 without one) behind ``search.Evaluator``, through :class:`NetEvaluator`'s
machinery (uint8 planes, symmetries, device, precision, CUDA graphs): the two nets
run as one module on the value net's planes, the policy reading their first planes
(``alphago48`` is the first 48 planes of ``alphago49``).
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from ..atomic import atomic_write_bytes
from .evaluator import NetEvaluator
from .model import PolicyValueNet, check_int, check_planes, config_from_dict
from .weights import (
    FORMAT,
    MAX_PARAMETERS,
    PathLike,
    WeightsError,
    check_state_fits,
    check_values,
    read_payload,
    state_digest,
)

__all__ = [
    "PLANES",
    "POLICY_KIND",
    "VALUE_HIDDEN",
    "VALUE_KIND",
    "AlphaGo2016Evaluator",
    "Net2016Config",
    "Net2016",
    "PolicyNet2016",
    "PolicyValuePair",
    "ValueNet2016",
    "default_shape",
    "load_net2016",
    "net2016_bytes",
    "save_net2016",
]

POLICY_KIND = "alphago2016-policy"
VALUE_KIND = "alphago2016-value"
KINDS = (POLICY_KIND, VALUE_KIND)

#: Input plane kinds these nets accept, and their plane counts (goboard's kinds;
#: a kind goboard does not write fails when planes are first made).
PLANES: dict[str, int] = {"agz17": 17, "lz18": 18, "alphago48": 48, "alphago49": 49}
#: Default input planes of each kind of net.
DEFAULT_PLANES = {POLICY_KIND: "alphago48", VALUE_KIND: "alphago49"}
VALUE_HIDDEN = 256


def default_shape(size: int) -> tuple[int, int]:
    """(layers, filters) for an ``size`` x ``size`` board (module docstring)."""
    if size >= 19:
        return 13, 192
    if size >= 13:
        return 9, 128
    return 6, 64


@dataclass(frozen=True, slots=True)
class Net2016Config:
    """The shape of a 2016 policy or value net (JSON-able; validated on creation).

    Attributes:
        board_size: N, 2..19.
        layers: L, the policy's weight layers (>= 2): a 5x5 conv, L - 2 3x3 convs,
            the 1x1 output conv. The value net has the same conv stack.
        filters: k, channels of every conv but the last (>= 1).
        input_planes: goboard feature kind (:data:`PLANES`).
    """

    board_size: int = 19
    layers: int = 13
    filters: int = 192
    input_planes: str = "alphago48"

    def __post_init__(self) -> None:
        check_int("board_size", self.board_size, 2, 19)
        check_int("layers", self.layers, 2, 100)
        check_int("filters", self.filters, 1, 4096)
        check_planes(self.input_planes, PLANES)

    @classmethod
    def for_board(
        cls,
        size: int,
        kind: str = POLICY_KIND,
        layers: int | None = None,
        filters: int | None = None,
        input_planes: str | None = None,
    ) -> Net2016Config:
        """The default config of a ``kind`` net on ``size`` x ``size``, with the
        given fields replaced."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        d_layers, d_filters = default_shape(size)
        return cls(
            board_size=size,
            layers=d_layers if layers is None else layers,
            filters=d_filters if filters is None else filters,
            input_planes=DEFAULT_PLANES[kind] if input_planes is None else input_planes,
        )

    @property
    def planes(self) -> int:
        """Input planes C."""
        return PLANES[self.input_planes]

    @property
    def actions(self) -> int:
        """Policy entries, N*N + 1."""
        return self.board_size**2 + 1

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (JSON-able)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Net2016Config:
        """The config from :meth:`to_dict`'s output (ValueError if it is not one)."""
        return config_from_dict(cls, data)


def _check_config(config: object) -> Net2016Config:
    if not isinstance(config, Net2016Config):
        raise TypeError(f"config must be a Net2016Config, not {type(config).__name__}")
    return config


class _Trunk(nn.Module):
    """The 5x5 conv and the ``layers - 2`` 3x3 convs, each with a ReLU."""

    def __init__(self, config: Net2016Config) -> None:
        super().__init__()
        k = config.filters
        self.convs = nn.ModuleList(
            [nn.Conv2d(config.planes, k, 5, padding=2)]
            + [nn.Conv2d(k, k, 3, padding=1) for _ in range(config.layers - 2)]
        )

    def forward(self, x: Tensor) -> Tensor:
        for conv in self.convs:
            x = torch.relu(conv(x))
        return x


def _check_input(config: Net2016Config, x: Tensor) -> None:
    n = config.board_size
    if x.dim() != 4 or tuple(x.shape[1:]) != (config.planes, n, n):
        raise ValueError(
            f"expected input [B, {config.planes}, {n}, {n}], not {tuple(x.shape)}"
        )


class PolicyNet2016(nn.Module):
    """P_sigma / P_rho: ``forward(x [B, C, N, N]) -> logits [B, N*N + 1]``."""

    kind = POLICY_KIND

    def __init__(self, config: Net2016Config) -> None:
        super().__init__()
        self.config = _check_config(config)
        n2 = config.board_size**2
        self.trunk = _Trunk(config)
        self.head = nn.Conv2d(config.filters, 1, 1, bias=False)
        self.position_bias = nn.Parameter(torch.zeros(n2))
        self.pass_fc = nn.Linear(config.filters, 1)

    def forward(self, x: Tensor) -> Tensor:
        _check_input(self.config, x)
        h = self.trunk(x)
        board = torch.flatten(self.head(h), 1) + self.position_bias
        passes = self.pass_fc(h.mean(dim=(2, 3)))
        return torch.cat([board, passes], dim=1)


class ValueNet2016(nn.Module):
    """V_theta: ``forward(x [B, C, N, N]) -> value [B]`` in [-1, 1]."""

    kind = VALUE_KIND

    def __init__(self, config: Net2016Config) -> None:
        super().__init__()
        self.config = _check_config(config)
        n2 = config.board_size**2
        self.trunk = _Trunk(config)
        self.head = nn.Conv2d(config.filters, 1, 1)
        self.fc1 = nn.Linear(n2, VALUE_HIDDEN)
        self.fc2 = nn.Linear(VALUE_HIDDEN, 1)

    def forward(self, x: Tensor) -> Tensor:
        _check_input(self.config, x)
        # No ReLU on the one-plane 1x1 conv: a single channel's ReLU can die for
        # every point (module docstring).
        h = self.head(self.trunk(x))
        h = torch.relu(self.fc1(torch.flatten(h, 1)))
        return torch.tanh(self.fc2(h)).squeeze(1)


Net2016 = PolicyNet2016 | ValueNet2016
_CLASSES: dict[str, type[PolicyNet2016] | type[ValueNet2016]] = {
    POLICY_KIND: PolicyNet2016,
    VALUE_KIND: ValueNet2016,
}


# --- weights files -----------------------------------------------------------------


def net2016_bytes(model: Net2016) -> bytes:
    """The contents of ``model``'s weights file (what :func:`save_net2016` writes)."""
    if not isinstance(model, (PolicyNet2016, ValueNet2016)):
        raise TypeError(f"model must be a 2016 net, not {type(model).__name__}")
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    config = model.config.to_dict()
    payload = {
        "format": FORMAT,
        "kind": model.kind,
        "config": config,
        "state_dict": state,
        "sha256": state_digest({"kind": model.kind, **config}, state),
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def save_net2016(model: Net2016, path: PathLike) -> None:
    """Write ``model``'s kind, config and weights to ``path`` atomically."""
    atomic_write_bytes(path, net2016_bytes(model))


def _describe(payload: Mapping[str, Any]) -> str:
    kind = payload.get("kind")
    if kind is None:
        return "an AlphaGo Zero policy-value net"
    return f"{kind} weights" if isinstance(kind, str) else "weights of an unknown kind"


def _expected_state(kind: str, config: Net2016Config) -> dict[str, Tensor]:
    k, c, n2 = config.filters, config.planes, config.board_size**2
    rough = 25 * c * k + (config.layers - 2) * 9 * k * k + n2 * VALUE_HIDDEN
    if rough > MAX_PARAMETERS:
        raise WeightsError(
            f"a net of {config.layers} layers x {k} filters has more than {rough} "
            f"parameters; the limit is {MAX_PARAMETERS}"
        )
    with torch.device("meta"):
        model = _CLASSES[kind](config)
    return dict(model.state_dict())


def load_net2016(
    path: PathLike | bytes,
    kind: str = POLICY_KIND,
    *,
    board_size: int | None = None,
    input_planes: str | None = None,
    map_location: str | torch.device = "cpu",
) -> Net2016:
    """Read a file of :func:`save_net2016` holding a ``kind`` net; returns it in eval
    mode on ``map_location``.

    ``board_size`` and ``input_planes``, when given, must be the net's.

    Raises:
        WeightsError (a ValueError): not a weights file, or a damaged one (as
            :func:`alphago.nets.load_weights` checks), a net of another kind, board
            size or input planes: one line naming the file and what was expected.
        OSError: the file cannot be opened or read.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    target, payload = read_payload(path)
    if payload.get("kind") != kind:
        raise WeightsError(
            f"{target}: expected {kind} weights, not {_describe(payload)}"
        )
    extra = sorted(str(k) for k in payload if k not in (*_ENTRIES, "kind"))
    if extra:
        raise WeightsError(f"{target}: unexpected entries: {', '.join(extra)}")
    raw_config = payload.get("config")
    state = payload.get("state_dict")
    if not isinstance(state, Mapping):
        raise WeightsError(f"{target}: state_dict is missing or not a mapping")
    try:
        config = Net2016Config.from_dict(raw_config)
    except (ValueError, TypeError) as exc:
        raise WeightsError(f"{target}: {exc}") from None
    n = config.board_size
    if board_size is not None and n != board_size:
        raise WeightsError(
            f"{target}: expected a {board_size}x{board_size} {kind} net, not {n}x{n}"
        )
    if input_planes is not None and config.input_planes != input_planes:
        raise WeightsError(
            f"{target}: expected an {kind} net on {input_planes} planes, not "
            f"{config.input_planes}"
        )
    try:
        check_state_fits(_expected_state(kind, config), state)
        check_values(state)
    except (ValueError, TypeError) as exc:
        raise WeightsError(f"{target}: {exc}") from None
    assert isinstance(raw_config, dict)
    digest = payload.get("sha256")
    if digest != state_digest({"kind": kind, **raw_config}, state):
        raise WeightsError(
            f"{target}: checksum mismatch: the file is damaged (its sha256 does not "
            f"match its contents)"
        )
    model = _CLASSES[kind](config)
    model.load_state_dict(dict(state), strict=True)
    return model.to(map_location).eval()


_ENTRIES = ("format", "config", "state_dict", "sha256")


# --- the evaluator -----------------------------------------------------------------

#: (policy planes, value planes) pairs where the policy's planes are the first planes
#: of the value net's, so that one feature pass feeds both.
_PREFIXES = {("alphago48", "alphago49")}


@dataclass(frozen=True, slots=True)
class PairConfig:
    """What :class:`NetEvaluator` reads of a network's config, for a policy and an
    optional value net run as one module on ``input_planes``."""

    board_size: int
    input_planes: str
    policy_planes: int
    ownership_head: bool = False

    @property
    def planes(self) -> int:
        return PLANES[self.input_planes]

    @property
    def actions(self) -> int:
        return self.board_size**2 + 1


class PolicyValuePair(nn.Module):
    """A policy net and an optional value net as one ``PolicyValueNet``-like module:
    ``forward(x)`` returns ``(logits, values, None)``; values are 0 without a value
    net. ``x`` holds the value net's planes (the policy's without one)."""

    def __init__(self, policy: PolicyNet2016, value: ValueNet2016 | None) -> None:
        super().__init__()
        if not isinstance(policy, PolicyNet2016):
            raise TypeError(f"policy must be a PolicyNet2016, not {type(policy)}")
        if value is not None and not isinstance(value, ValueNet2016):
            raise TypeError(f"value must be a ValueNet2016, not {type(value)}")
        p, v = policy.config, value.config if value is not None else None
        kind = p.input_planes
        if v is not None:
            if v.board_size != p.board_size:
                raise ValueError(
                    f"the policy net is for {p.board_size}x{p.board_size}, the value "
                    f"net for {v.board_size}x{v.board_size}"
                )
            if v.input_planes != kind and (kind, v.input_planes) not in _PREFIXES:
                raise ValueError(
                    f"the policy net's {kind} planes are not the first planes of the "
                    f"value net's {v.input_planes}"
                )
            kind = v.input_planes
        self.config = PairConfig(p.board_size, kind, p.planes)
        self.policy = policy
        self.value = value

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, None]:
        logits = self.policy(x[:, : self.config.policy_planes])
        if self.value is None:
            values = torch.zeros(x.shape[0], dtype=logits.dtype, device=x.device)
        else:
            values = self.value(x)
        return logits, values, None


class AlphaGo2016Evaluator(NetEvaluator):
    """``search.Evaluator`` over a 2016 policy net (priors, masked to the legal
    moves) and value net (values; 0 when ``value`` is None). The other arguments
    are :class:`NetEvaluator`'s."""

    def __init__(
        self,
        policy: PolicyNet2016,
        value: ValueNet2016 | None = None,
        device: str | torch.device = "cpu",
        threads: int | None = None,
        symmetries: str | int = "random",
        seed: int | np.random.Generator | None = None,
        precision: str | None = None,
        cuda_graphs: bool | None = None,
    ) -> None:
        # NetEvaluator reads only what PolicyValuePair has (forward's three
        # outputs and the config fields of PairConfig).
        pair = cast(PolicyValueNet, PolicyValuePair(policy, value))
        super().__init__(
            pair,
            device,
            threads,
            symmetries,
            seed,
            precision,
            cuda_graphs,
        )

    def __repr__(self) -> str:
        pair: Any = self.model
        value = "none" if pair.value is None else _shape_text(pair.value.config)
        return (
            f"AlphaGo2016Evaluator(policy {_shape_text(pair.policy.config)}, value "
            f"{value}, symmetries={self.k}, device={self.device}, "
            f"precision={self.precision})"
        )


def _shape_text(config: Net2016Config) -> str:
    n = config.board_size
    return f"{n}x{n} {config.layers}x{config.filters} {config.input_planes}"
