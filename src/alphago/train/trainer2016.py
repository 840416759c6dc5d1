"""The optimiser loop shared by the 2016 networks' training commands.

:class:`Trainer2016` owns one network (a policy or a value net of
:mod:`alphago.nets.alphago2016`), its optimiser (Adam, or SGD with Nesterov momentum
when ``momentum`` > 0, plain SGD at 0, as :class:`~alphago.train.learner.TrainConfig`
says) and the step counter; the caller computes the loss, the trainer adds the L2
term (convolution and linear weights only) and takes the step at the scheduled
learning rate. Its state (weights, optimiser, step) goes into the run's checkpoint.
The forward pass runs under the precision's autocast (fp32 or bf16; fp16's loss
scaling is the Zero learner's, not offered here).
"""

from __future__ import annotations

import copy
import math
from typing import Any

import torch
from torch import Tensor, nn

from ..nets.alphago2016 import Net2016
from ..nets.precision import autocast, resolve_device, resolve_precision
from .graphed_step import portable_optimizer_state
from .learner import TrainConfig, make_optimizer

__all__ = ["Trainer2016", "l2_term"]


def l2_term(model: nn.Module) -> Tensor:
    """Sum of squares of the convolution and linear weight tensors."""
    terms = [
        (p * p).sum()
        for name, p in model.named_parameters()
        if name.endswith("weight") and p.dim() > 1
    ]
    total = torch.stack(terms).sum()
    return total


class Trainer2016:
    """Network, optimiser and step counter (module docstring)."""

    def __init__(
        self,
        model: Net2016,
        config: TrainConfig,
        device: str | torch.device = "cpu",
        precision: str | None = None,
    ) -> None:
        self.device = resolve_device(device)
        self.precision = resolve_precision(precision, self.device)
        if self.precision == "fp16":
            raise ValueError(
                "the AlphaGo 2016 trainers run in fp32 or bf16, not fp16 (use bf16)"
            )
        self.model = model.to(self.device)
        self.config = config
        self.step = 0
        self.optimizer = make_optimizer(self.model, config)

    @property
    def lr(self) -> float:
        """The learning rate of the next step."""
        return self.config.rate(self.step)

    def autocast(self) -> Any:
        """The forward pass's autocast context."""
        return autocast(self.device, self.precision)

    def tensor(self, array: Any) -> Tensor:
        """A numpy array on the device as float32."""
        return torch.as_tensor(array).to(self.device).float()

    def begin(self) -> float:
        """Train mode, gradients cleared, the step's learning rate set; returns it."""
        lr = self.lr
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.optimizer.zero_grad(set_to_none=True)
        return lr

    def finish(self, loss: Tensor) -> float:
        """Add the L2 term to ``loss``, backpropagate, step; returns the L2 sum."""
        l2 = l2_term(self.model)
        total = loss + self.config.l2 * l2
        if not math.isfinite(float(total.detach())):
            raise ValueError(f"the loss is not finite at step {self.step}")
        total.backward()  # type: ignore[no-untyped-call]
        self.optimizer.step()
        self.step += 1
        return float(l2.detach())

    def state_dict(self) -> dict[str, Any]:
        return {
            "model": self.model.state_dict(),
            "optimizer": portable_optimizer_state(self.optimizer),
            "step": self.step,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s output (ValueError if it does not fit)."""
        try:
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(copy.deepcopy(state["optimizer"]))
            step = state["step"]
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise ValueError(f"not a trainer state: {exc}") from None
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise ValueError(f"not a trainer state: step {step!r}")
        self.step = step
