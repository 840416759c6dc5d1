"""The learner: the AlphaGo Zero loss, one optimiser step, and the numbers we log.

Loss (AlphaGo Zero): ``l = -pi . log p + c_v * (z - v)^2 + c_l2 * ||theta||^2`` over a
batch, where ``pi`` is the policy target (a teacher's move one-hot, or self-play visit
counts), ``z`` the game's outcome for the side to move, and the L2 term covers the
convolution and linear weights (not biases or batch-norm shifts), as the paper's ``c``.
The L2 term is written into the loss rather than left to the optimiser's weight decay
so that it is the same for Adam and SGD and can be logged.

Auxiliary losses (KataGo; Wu 2019), each on only when its weight is above 0 (then the
net needs the head), added after the terms above so that with both weights 0 the
loss is today's to the bit:

- ownership: ``c_o * mean over points of BCE((1 + o) / 2, sigmoid(2 * y))``, where
  ``o`` in {-1, 0, +1} is the final owner of a point from the side to move and ``y``
  the ownership head before its tanh (``tanh(y) = 2 * sigmoid(2y) - 1``, so this is
  the cross-entropy of the head's own prediction, computed from the logit so it never
  saturates). The mean over the N*N points is KataGo's per-point weight 1.5 / N^2
  summed, so ``c_o`` = 1.5 is KataGo's setting; a neutral point (``o`` = 0) asks for
  an ownership of 0.
- score: ``c_s * huber((s_hat - s) / N)`` with the Huber threshold 1, where ``s`` is
  the final area margin for the side to move in points and ``s_hat`` the score head.
  Dividing by N puts the error in units of about a row of the board: quadratic for
  errors below N points (where the head should be precise), linear beyond, so a
  blow-out game between weak early nets (margins of 50+ on 9x9) cannot swamp the
  policy and value terms as a squared error would.

Rows without auxiliary targets (resigned games, examples from older versions) are
masked out of both; a batch without any such row contributes 0.

Learning rate: ``lr * schedule(step) * lr_multiplier``. The schedule is constant, cosine
decay to 0 over ``total_steps``, or step decay (x0.1 at each milestone); the multiplier
is 1 in supervised training and set by the KL rule in self-play training
(:mod:`alphago.train.rl`).

Precision (:mod:`alphago.nets.precision`): the forward pass runs under the chosen
autocast (``fp32``, ``bf16`` or ``fp16``; default bf16 on CUDA, fp32 elsewhere) and the
losses are computed in float32 from its outputs; weights and optimiser state stay
float32. ``fp16`` scales the loss with a ``torch.amp.GradScaler``: a step whose
scaled gradients overflow is skipped (the weights stay as they were) and the scale
halves. Such steps still count in ``step`` (the schedule moves on), and under fp16
every step's metrics say ``skipped`` (1 or 0), ``skipped_steps`` (the run's total)
and ``loss_scale``; a logged line of several steps has the mean of ``skipped`` and
the total and scale after its last step.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import Tensor
from torch.nn import functional as F

from ..data.examples import Examples
from ..nets.graphs import graphs_wanted
from ..nets.model import Heads, PolicyValueNet
from ..nets.precision import autocast, resolve_device, resolve_precision
from ..nets.weights import check_state_dict, check_values
from .graphed_step import GraphedTrainStep, portable_optimizer_state

__all__ = ["Learner", "TrainConfig", "aux_losses", "batch_stats", "make_optimizer"]

SCHEDULES = ("constant", "cosine", "step")
OPTIMIZERS = ("adam", "sgd")


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """Optimiser settings (JSON-able via ``asdict``; validated).

    Attributes:
        optimizer: ``"adam"`` (default) or ``"sgd"`` (with ``momentum``, Nesterov).
        lr: Base learning rate.
        momentum: SGD momentum.
        l2: ``c_l2``, the L2 coefficient (AlphaGo Zero: 1e-4).
        value_weight: ``c_v``, the value loss weight.
        batch_size: Examples per step.
        schedule: ``"constant"``, ``"cosine"`` or ``"step"``.
        total_steps: Steps the schedule spans (cosine reaches 0 there).
        milestones: Steps where the step schedule divides the rate by 10.
        warmup_steps: Linear warm-up from 0 over these steps.
        ownership_weight: ``c_o``, the ownership loss weight (module docstring);
            0 (default) leaves the loss as AlphaGo Zero's.
        score_weight: ``c_s``, the score loss weight; 0 (default) is off.
    """

    optimizer: str = "adam"
    lr: float = 1e-3
    momentum: float = 0.9
    l2: float = 1e-4
    value_weight: float = 1.0
    batch_size: int = 256
    schedule: str = "constant"
    total_steps: int = 0
    milestones: tuple[int, ...] = field(default_factory=tuple)
    warmup_steps: int = 0
    ownership_weight: float = 0.0
    score_weight: float = 0.0

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"optimizer must be one of {OPTIMIZERS}, not {self.optimizer!r}"
            )
        if self.schedule not in SCHEDULES:
            raise ValueError(
                f"schedule must be one of {SCHEDULES}, not {self.schedule!r}"
            )
        if self.schedule == "cosine" and self.total_steps < 1:
            raise ValueError("the cosine schedule needs total_steps >= 1")
        if self.schedule == "step" and not self.milestones:
            # Without any, the step schedule is the constant rate under another name.
            raise ValueError("the step schedule needs milestones")
        for name in (
            "lr",
            "l2",
            "value_weight",
            "momentum",
            "ownership_weight",
            "score_weight",
        ):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, not {value}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, not {self.batch_size}")
        if self.warmup_steps < 0 or self.total_steps < 0:
            raise ValueError("warmup_steps and total_steps must be >= 0")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["milestones"] = list(self.milestones)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        data = dict(data)
        data["milestones"] = tuple(data.get("milestones", ()))
        return cls(**data)

    def rate(self, step: int) -> float:
        """The scheduled learning rate before ``step`` (counting from 0)."""
        scale = 1.0
        if self.warmup_steps and step < self.warmup_steps:
            scale = (step + 1) / self.warmup_steps
        if self.schedule == "cosine":
            done = min(step, self.total_steps) / self.total_steps
            scale *= 0.5 * (1.0 + math.cos(math.pi * done))
        elif self.schedule == "step":
            scale *= 0.1 ** sum(step >= m for m in self.milestones)
        return self.lr * scale


def make_optimizer(
    model: torch.nn.Module, config: TrainConfig
) -> torch.optim.Optimizer:
    """The optimizer ``config`` names over ``model``'s parameters: Adam, or SGD
    with Nesterov momentum when it has momentum (L2 is in the loss, not here)."""
    params = list(model.parameters())
    if config.optimizer == "adam":
        return torch.optim.Adam(params, lr=config.lr)
    return torch.optim.SGD(
        params, lr=config.lr, momentum=config.momentum, nesterov=config.momentum > 0
    )


def _decayed(model: PolicyValueNet) -> list[Tensor]:
    """The weights under L2: convolution and linear weight tensors."""
    return [
        p
        for name, p in model.named_parameters()
        if name.endswith("weight") and p.dim() > 1
    ]


def batch_stats(
    logits: Tensor, value: Tensor, policy: Tensor, z: Tensor
) -> dict[str, float]:
    """Policy entropy, top-1 accuracy (against the target's argmax), explained
    variance of the value (NaN when every ``z`` is the same)."""
    values = _stats(logits, value, policy, z).tolist()
    return dict(zip(STATS, values, strict=True))


#: The metrics a training step returns, in the order of its metrics tensor.
TERMS = ("loss", "policy_loss", "value_loss", "l2")
#: What a step with the auxiliary losses adds after :data:`TERMS` (each only when
#: its weight is on).
AUX_TERMS = ("ownership_loss", "score_loss")
STATS = ("entropy", "accuracy", "explained_variance")


def _stats(logits: Tensor, value: Tensor, policy: Tensor, z: Tensor) -> Tensor:
    """:func:`batch_stats` as one tensor, without waiting for the device (so that it
    can be part of a CUDA graph)."""
    with torch.no_grad():
        logp = torch.log_softmax(logits, dim=1)
        entropy = -(logp.exp() * logp).sum(1).mean()
        accuracy = (logits.argmax(1) == policy.argmax(1)).float().mean()
        var_z = torch.var(z, unbiased=False)
        residual = torch.var(z - value, unbiased=False)
        explained = torch.where(
            var_z > 0, 1.0 - residual / var_z, torch.full_like(var_z, math.nan)
        )
        return torch.stack([entropy, accuracy, explained])


class Learner:
    """Owns a network, its optimiser and the step counter (all in the checkpoint).

    Args:
        model: the network (moved to ``device``).
        config: the optimiser settings.
        device: torch device, or "auto" (CUDA when present); ValueError if this
            machine lacks it.
        precision: "fp32", "bf16", "fp16" or None for the device's default (module
            docstring); ValueError where the device cannot run it.
        cuda_graphs: on CUDA with Adam and without fp16, run each step as a CUDA
            graph (:mod:`alphago.train.graphed_step`). None (default): yes unless
            ``ALPHAGO_CUDA_GRAPHS=0``. Ignored elsewhere.
    """

    def __init__(
        self,
        model: PolicyValueNet,
        config: TrainConfig,
        device: str | torch.device = "cpu",
        precision: str | None = None,
        cuda_graphs: bool | None = None,
    ) -> None:
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, self.device)
        # Channels-last: the layout cuDNN's and oneDNN's convolutions run in, so no
        # transposes around each of them. Measured: a graphed 6x64 19x19 step on an
        # H100 at batch 256, bf16 55.9k examples/s vs 29.2k; a 4x48 9x9 step on one
        # CPU thread 1.15-1.4x. A layout change only: state dicts read the same.
        self.model = model.to(self.device)
        self.model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.config = config
        cfg = model.config
        if config.ownership_weight > 0 and not cfg.ownership_head:
            raise ValueError(
                "an ownership loss weight needs a net with an ownership head"
            )
        if config.score_weight > 0 and not cfg.score_head:
            raise ValueError("a score loss weight needs a net with a score head")
        #: The auxiliary losses are on (their weights above 0).
        self.aux = config.ownership_weight > 0 or config.score_weight > 0
        #: The loss terms a step returns, in the order of its metrics tensor.
        weights = (config.ownership_weight, config.score_weight)
        self.terms = TERMS + tuple(
            name for name, w in zip(AUX_TERMS, weights, strict=True) if w > 0
        )
        self.step = 0
        self.lr_multiplier = 1.0
        self.skipped_steps = 0
        self._skipped = False
        self.scaler: torch.amp.GradScaler | None = None
        if self.precision == "fp16":
            self.scaler = torch.amp.GradScaler(self.device.type)
        self.optimizer = make_optimizer(self.model, config)
        self._graphed: GraphedTrainStep | None = None
        if (
            graphs_wanted(cuda_graphs)
            and self.device.type == "cuda"
            and self.scaler is None
            and config.optimizer == "adam"
        ):
            self._graphed = GraphedTrainStep(self.optimizer, self._step, self.device)

    @property
    def lr(self) -> float:
        """The learning rate of the next step."""
        return self.config.rate(self.step) * self.lr_multiplier

    def _tensors(self, *arrays: NDArray[Any]) -> list[Tensor]:
        """The arrays on the device as float32; uint8 planes travel as uint8 and
        become floats there (a quarter of the bytes over the bus)."""
        return [torch.from_numpy(a).to(self.device).float() for a in arrays]

    def _forward(self, planes: Tensor, cache: bool = True) -> tuple[Tensor, Tensor]:
        """Logits and values in float32, the model run under the precision
        (``cache``: autocast's weight-cast cache, off in a CUDA graph capture)."""
        with autocast(self.device, self.precision, cache):
            logits, value, _ = self.model(planes)
        return logits.float(), value.float()

    def _forward_heads(self, planes: Tensor, cache: bool = True) -> Heads:
        """Every head in float32 (None for heads the net lacks)."""
        with autocast(self.device, self.precision, cache):
            out = self.model.heads(planes, score=self.config.score_weight > 0)
        owner, score = out.ownership_logit, out.score
        return Heads(
            out.logits.float(),
            out.value.float(),
            None if owner is None else owner.float(),
            None if score is None else score.float(),
        )

    def losses(
        self,
        planes: Tensor,
        policy: Tensor,
        z: Tensor,
        cache: bool = True,
        ownership: Tensor | None = None,
        score: Tensor | None = None,
    ) -> tuple[dict[str, Tensor], Tensor, Tensor]:
        """Loss terms of a batch (``loss`` is their weighted sum), logits and values.

        ``ownership`` [B, N, N] and ``score`` [B] (NaN: no target) are the auxiliary
        targets; they are read only when this learner has the auxiliary losses on.
        """
        if self.aux:
            heads = self._forward_heads(planes, cache)
            logits, value = heads.logits, heads.value
        else:
            logits, value = self._forward(planes, cache)
        policy_loss = -(policy * torch.log_softmax(logits, dim=1)).sum(1).mean()
        value_loss = torch.mean((z - value) ** 2)
        l2 = sum((w * w).sum() for w in _decayed(self.model))
        assert isinstance(l2, Tensor)
        loss = policy_loss + self.config.value_weight * value_loss + self.config.l2 * l2
        terms = {
            "loss": loss,
            "policy_loss": policy_loss,
            "value_loss": value_loss,
            "l2": l2,
        }
        if self.aux:
            if ownership is None or score is None:
                raise ValueError(
                    "the auxiliary losses need ownership and score targets"
                )
            own_loss, score_loss = aux_losses(heads, ownership, score)
            terms["ownership_loss"] = own_loss
            terms["score_loss"] = score_loss
            terms["loss"] = (
                loss
                + self.config.ownership_weight * own_loss
                + self.config.score_weight * score_loss
            )
        return terms, logits, value

    def train_step(
        self,
        planes: NDArray[np.float32],
        policy: NDArray[np.float32],
        z: NDArray[np.float32],
        ownership: NDArray[np.float32] | None = None,
        score: NDArray[np.float32] | None = None,
    ) -> dict[str, float]:
        """One optimiser step on a batch; returns the loss terms (before the step),
        the learning rate used and the batch statistics of :func:`batch_stats`.

        ``ownership`` [B, N, N] and ``score`` [B] (NaN: no target) feed the auxiliary
        losses when they are on (missing: every row masked) and are ignored when off.
        """
        lr = self.lr
        self.model.train()
        arrays: tuple[NDArray[np.float32], ...] = (planes, policy, z)
        if self.aux:
            b, n = planes.shape[0], self.model.config.board_size
            if ownership is None or score is None:
                ownership = np.zeros((b, n, n), np.float32)
                score = np.full(b, np.nan, np.float32)
            arrays += (ownership, score)
        if self._graphed is not None:
            metrics = self._graphed(arrays, lr)
        else:
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            self.optimizer.zero_grad(set_to_none=True)
            x, pi, zt, *aux = self._tensors(*arrays)
            metrics = self._step(x, pi, zt, True, *aux)
        self.step += 1
        out = dict(zip(self.terms + STATS, metrics.tolist(), strict=True))
        out["lr"] = lr
        if self.scaler is not None:
            out["skipped"] = float(self._skipped)
            out["skipped_steps"] = float(self.skipped_steps)
            out["loss_scale"] = float(self.scaler.get_scale())
        return out

    def _step(
        self,
        x: Tensor,
        pi: Tensor,
        z: Tensor,
        cache: bool = True,
        ownership: Tensor | None = None,
        score: Tensor | None = None,
    ) -> Tensor:
        """Losses, backward pass and optimiser step on device tensors (gradients
        already cleared); the metrics tensor (:attr:`terms` then :data:`STATS`).
        Without fp16 nothing here waits for the device, so it can be captured."""
        terms, logits, value = self.losses(x, pi, z, cache, ownership, score)
        if self.scaler is None:
            terms["loss"].backward()  # type: ignore[no-untyped-call]
            self.optimizer.step()
        else:
            scale = self.scaler.get_scale()
            self.scaler.scale(terms["loss"]).backward()  # type: ignore[no-untyped-call]
            self.scaler.step(self.optimizer)
            self.scaler.update()
            # update() halves the scale exactly when it found inf/NaN gradients, and
            # then step() left the weights alone.
            self._skipped = self.scaler.get_scale() < scale
            self.skipped_steps += self._skipped
        loss_terms = torch.stack([terms[k].detach() for k in self.terms])
        return torch.cat([loss_terms, _stats(logits, value, pi, z)])

    def policy_logp(self, planes: NDArray[np.float32]) -> Tensor:
        """Log-probabilities of the current policy (eval mode, no gradient)."""
        self.model.eval()
        with torch.inference_mode():
            (x,) = self._tensors(planes)
            logits, _ = self._forward(x)
            return torch.log_softmax(logits, dim=1)

    def validate(self, examples: Examples, batch_size: int = 1024) -> dict[str, float]:
        """Validation metrics (no symmetries, eval mode): policy cross-entropy, value
        MSE, top-1 accuracy against the target's most likely move."""
        self.model.eval()
        n = len(examples)
        if n == 0:
            raise ValueError("no validation examples")
        sums = {"val_policy_loss": 0.0, "val_value_mse": 0.0, "val_accuracy": 0.0}
        with torch.inference_mode():
            for start in range(0, n, batch_size):
                part = examples.take(slice(start, start + batch_size))
                x, pi, zt = self._tensors(part.planes, part.policy, part.value)
                logits, value = self._forward(x)
                logp = torch.log_softmax(logits, dim=1)
                sums["val_policy_loss"] += float(-(pi * logp).sum(1).sum())
                sums["val_value_mse"] += float(((zt - value) ** 2).sum())
                sums["val_accuracy"] += float((logits.argmax(1) == pi.argmax(1)).sum())
        out = {k: v / n for k, v in sums.items()}
        if self.aux and examples.has_aux:
            out.update(self._validate_aux(examples, batch_size))
        return out

    def _validate_aux(self, examples: Examples, batch_size: int) -> dict[str, float]:
        """Mean ownership and score losses over the rows with targets, those this
        learner trains (nothing when no row has targets)."""
        assert examples.ownership is not None and examples.score is not None
        rows = int(np.isfinite(examples.score).sum())
        if rows == 0:
            return {}
        own = score = 0.0
        with torch.inference_mode():
            for start in range(0, len(examples), batch_size):
                part = examples.take(slice(start, start + batch_size))
                assert part.ownership is not None and part.score is not None
                x, o, s = self._tensors(part.planes, part.ownership, part.score)
                count = float(np.isfinite(part.score).sum())
                a, b = aux_losses(self._forward_heads(x), o, s)
                own += float(a) * count
                score += float(b) * count
        out = {"val_ownership_loss": own / rows, "val_score_loss": score / rows}
        return {k: v for k, v in out.items() if k[4:] in self.terms}

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue: weights, optimiser, counters (and the fp16
        loss scale)."""
        state: dict[str, Any] = {
            "model": self.model.state_dict(),
            "optimizer": portable_optimizer_state(self.optimizer),
            "step": self.step,
            "lr_multiplier": self.lr_multiplier,
            "skipped_steps": self.skipped_steps,
        }
        if self.scaler is not None:
            state["scaler"] = self.scaler.state_dict()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s output. Checkpoints from before precisions
        (no ``skipped_steps``) load; a run may change precision when it resumes
        (the fp16 scale starts afresh when the checkpoint has none).

        Everything is checked before anything is changed.

        Raises:
            ValueError: ``state`` is not such a state: entries missing or of the
                wrong type, weights that do not fit the network or are not finite,
                an optimiser state of another optimiser or other shapes. The
                learner is left as it was.
        """
        try:
            model_state = state["model"]
            check_state_dict(self.model, model_state)
            check_values(model_state)
            self._check_optimizer_state(state["optimizer"])
            step = _count(state["step"], "step")
            lr_multiplier = float(state["lr_multiplier"])
            if not math.isfinite(lr_multiplier) or lr_multiplier < 0:
                raise ValueError(f"lr_multiplier {lr_multiplier} is not finite >= 0")
            skipped = _count(state.get("skipped_steps", 0), "skipped_steps")
            scaler_state = state.get("scaler") if self.scaler is not None else None
            if scaler_state:
                torch.amp.GradScaler(self.device.type).load_state_dict(scaler_state)
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as exc:
            raise ValueError(f"not a learner state: {exc}") from None
        self.model.load_state_dict(model_state)
        # A copy: torch's load keeps the given tensors where they already fit, and
        # this learner's steps must not move buffers that belong to someone else.
        self.optimizer.load_state_dict(copy.deepcopy(state["optimizer"]))
        if self._graphed is not None:
            self._graphed.reset()
        self.step = step
        self.lr_multiplier = lr_multiplier
        self.skipped_steps = skipped
        if self.scaler is not None and scaler_state:
            self.scaler.load_state_dict(scaler_state)

    def _check_optimizer_state(self, saved: dict[str, Any]) -> None:
        """Raise unless ``saved`` loads into this learner's optimiser and holds, for
        every parameter, this optimiser's buffers with the parameter's shape
        (torch's own load checks only the parameter counts)."""
        scratch = copy.deepcopy(self.optimizer)
        scratch.load_state_dict(saved)
        buffers = _OPTIMIZER_BUFFERS[type(self.optimizer).__name__]
        ours_groups = portable_optimizer_state(self.optimizer)["param_groups"]
        groups = zip(ours_groups, scratch.param_groups, strict=True)
        for ours, group in groups:
            for key, want in ours.items():
                if key != "params" and not _same_kind(want, group.get(key)):
                    raise ValueError(f"optimiser setting {key}={group.get(key)!r}")
            for param in group["params"]:
                entries = scratch.state.get(param, {})
                if entries and set(entries) != buffers:
                    raise ValueError(f"optimiser buffers {sorted(entries)}")
                for name, value in entries.items():
                    if value is None and name == "momentum_buffer":
                        continue
                    if not isinstance(value, Tensor):
                        raise ValueError(f"optimiser buffer {name} is not a tensor")
                    if value.dim() and value.shape != param.shape:
                        raise ValueError(f"optimiser buffer {name} has another shape")
                    if not bool(torch.isfinite(value).all()):
                        raise ValueError(f"optimiser buffer {name} is not finite")


#: The per-parameter buffers of the optimisers a Learner makes.
_OPTIMIZER_BUFFERS = {
    "Adam": {"step", "exp_avg", "exp_avg_sq"},
    "SGD": {"momentum_buffer"},
}


def _same_kind(want: object, value: object) -> bool:
    """Whether a saved optimiser setting ``value`` could stand where ``want`` is."""
    if want is None or isinstance(want, bool):
        return type(value) is type(want)
    if isinstance(want, (int, float)):
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
        )
    if isinstance(want, (tuple, list)):
        return (
            isinstance(value, (tuple, list))
            and len(value) == len(want)
            and all(_same_kind(w, v) for w, v in zip(want, value, strict=True))
        )
    return type(value) is type(want)


def aux_losses(heads: Heads, ownership: Tensor, score: Tensor) -> tuple[Tensor, Tensor]:
    """The ownership and score losses of a batch (module docstring), each the mean
    over the rows with targets (``score`` not NaN); 0 for a head the net lacks.

    ``ownership`` [B, N, N] in {-1, 0, +1}, ``score`` [B] in points, side to move's
    view. Masking uses ``where``, not indexing, so the shapes never depend on the
    data (a CUDA graph can hold it)."""
    mask = torch.isfinite(score)
    weight = mask.float()
    rows = weight.sum().clamp(min=1.0)
    zero = heads.value.sum() * 0.0
    own_loss = score_loss = zero
    if heads.ownership_logit is not None:
        target = (ownership + 1.0) * 0.5
        per_point = F.binary_cross_entropy_with_logits(
            2.0 * heads.ownership_logit, target, reduction="none"
        )
        own_loss = (per_point.mean(dim=(1, 2)) * weight).sum() / rows
    if heads.score is not None:
        n = float(ownership.shape[-1])
        truth = torch.where(mask, score, torch.zeros_like(score))
        per_row = F.huber_loss(heads.score / n, truth / n, reduction="none", delta=1.0)
        score_loss = (per_row * weight).sum() / rows
    return own_loss, score_loss


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, not {value!r}")
    return value
