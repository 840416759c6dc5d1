"""alphago.nets.model.BatchNorm: the plain formula in train and eval mode, the state of
the nn.BatchNorm2d it replaced (old weights files), and an old file's outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import random_board  # noqa: E402
from torch import nn  # noqa: E402

from alphago.nets import PolicyValueNet, load_weights  # noqa: E402
from alphago.nets.model import BN_EPS, BatchNorm  # noqa: E402

CUDA = torch.cuda.is_available()


class OldBatchNorm(nn.BatchNorm2d):
    """The class BatchNorm was until issue 13 (crashes in CUDA backward)."""

    def __init__(self, channels: int) -> None:
        super().__init__(channels, eps=BN_EPS, affine=False)
        self.bias = nn.Parameter(torch.zeros(channels))


def _seeded(channels: int = 5, seed: int = 0) -> BatchNorm:
    torch.manual_seed(seed)
    bn = BatchNorm(channels)
    with torch.no_grad():
        bn.running_mean.uniform_(-1.0, 1.0)
        bn.running_var.uniform_(0.5, 2.0)
        bn.bias.uniform_(-1.0, 1.0)
    return bn


def _input(channels: int = 5, seed: int = 1) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(4, channels, 3, 3, generator=g, dtype=torch.float64)
    return (x * 2.0 + 0.7).float()  # mean and variance far from 0 and 1


def test_state_dict_keys_and_defaults() -> None:
    bn = BatchNorm(3)
    state = bn.state_dict()
    assert list(state) == list(OldBatchNorm(3).state_dict())
    assert sorted(state) == [
        "bias",
        "num_batches_tracked",
        "running_mean",
        "running_var",
    ]
    assert [name for name, _ in bn.named_parameters()] == ["bias"]
    assert torch.equal(state["running_var"], torch.ones(3))
    assert state["num_batches_tracked"].dtype == torch.int64
    assert bn.momentum == 0.1 and bn.eps == 1e-5


def test_train_mode_is_the_batch_formula() -> None:
    bn = _seeded().train()
    mean0, var0 = bn.running_mean.clone(), bn.running_var.clone()
    x = _input()
    y = bn(x)
    xd = x.double()
    mu = xd.mean(dim=(0, 2, 3))
    var = xd.var(dim=(0, 2, 3), unbiased=False)
    want = (xd - mu[None, :, None, None]) / torch.sqrt(var + 1e-5)[None, :, None, None]
    want = want + bn.bias.double()[None, :, None, None]
    torch.testing.assert_close(y.double(), want, atol=1e-5, rtol=0)
    # The running statistics move by momentum 0.1, the variance unbiased (n = 36).
    unbiased = var * 36 / 35
    torch.testing.assert_close(
        bn.running_mean.double(), 0.9 * mean0.double() + 0.1 * mu, atol=1e-6, rtol=0
    )
    torch.testing.assert_close(
        bn.running_var.double(), 0.9 * var0.double() + 0.1 * unbiased, atol=1e-6, rtol=0
    )
    assert int(bn.num_batches_tracked) == 1
    bn(x)
    assert int(bn.num_batches_tracked) == 2


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
def test_eval_mode_uses_running_statistics(grad: bool) -> None:
    # Two code paths: the shift added after F.batch_norm (gradients recorded) or
    # passed to it (no gradients).
    bn = _seeded().eval()
    state = {k: v.clone() for k, v in bn.state_dict().items()}
    x = _input()
    with torch.set_grad_enabled(grad):
        y = bn(x)
    assert y.requires_grad == grad
    mean = state["running_mean"].double()[None, :, None, None]
    std = torch.sqrt(state["running_var"].double() + 1e-5)[None, :, None, None]
    want = (x.double() - mean) / std + state["bias"].double()[None, :, None, None]
    torch.testing.assert_close(y.double(), want, atol=1e-5, rtol=0)
    for key, value in bn.state_dict().items():
        assert torch.equal(value, state[key]), key  # nothing moved


def test_gradients_match_the_formula() -> None:
    bn = _seeded().train()
    x = _input().double().requires_grad_(True)
    bn = bn.double()
    upstream = torch.linspace(-1.0, 2.0, x.numel(), dtype=torch.float64)
    (bn(x).flatten() * upstream).sum().backward()
    x2 = x.detach().clone().requires_grad_(True)
    bias = bn.bias.detach().clone().requires_grad_(True)
    mu = x2.mean(dim=(0, 2, 3), keepdim=True)
    var = x2.var(dim=(0, 2, 3), unbiased=False, keepdim=True)
    y = (x2 - mu) / torch.sqrt(var + 1e-5) + bias[None, :, None, None]
    (y.flatten() * upstream).sum().backward()
    assert x.grad is not None and x2.grad is not None and bn.bias.grad is not None
    torch.testing.assert_close(x.grad, x2.grad, atol=1e-9, rtol=0)
    torch.testing.assert_close(bn.bias.grad, bias.grad, atol=1e-9, rtol=0)
    # The shift's gradient is the upstream gradient summed over batch and board.
    want = upstream.reshape(x.shape).sum(dim=(0, 2, 3))
    torch.testing.assert_close(bn.bias.grad, want, atol=1e-9, rtol=0)


@pytest.mark.parametrize("training", [True, False])
def test_same_as_the_old_module(training: bool) -> None:
    new = _seeded()
    old = OldBatchNorm(5)
    old.load_state_dict(new.state_dict())
    new.train(training)
    old.train(training)
    x = _input()
    torch.testing.assert_close(new(x), old(x), atol=1e-5, rtol=0)
    for (key, a), b in zip(
        new.state_dict().items(), old.state_dict().values(), strict=True
    ):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=0, msg=key)
    # And an old module's state loads strictly into the new one.
    back = BatchNorm(5)
    back.load_state_dict(old.state_dict(), strict=True)
    assert int(back.num_batches_tracked) == int(old.num_batches_tracked)


def test_autocast_bf16_keeps_the_shift_in_bf16() -> None:
    bn = _seeded().eval()
    x = _input()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        y = bn(x.bfloat16())
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), bn(x).detach(), atol=0.05, rtol=0.02)


# The first shipped 9x9 net (shipped until 2026-11-27, kept as tests/data/
# alphago-9x9-bn-v1.pt: a weights file written by the old nn.BatchNorm2d class) on four
# seeded positions: values and the top three policy logits, computed before the
# rewrite with the old class (torch 2.13 CPU, one thread). Without gradients the new
# class does the old arithmetic exactly; with them (the shift added after the
# normalisation) it rounds differently, by up to 4e-6 here.
_GOLDEN_VALUES = [0.0131143, 0.0896375, 0.9999645, -0.9606370]
_GOLDEN_TOP = [
    ([40, 56, 29], [2.2264, 0.7831, 0.77144]),
    ([23, 59, 30], [1.88763, 1.53841, 1.18888]),
    ([52, 68, 57], [3.25511, 2.68607, 1.44624]),
    ([16, 68, 55], [2.77489, 2.40329, 1.71353]),
]


OLD_FILE = Path(__file__).parent / "data" / "alphago-9x9-bn-v1.pt"


def _old_file() -> PolicyValueNet:
    return load_weights(OLD_FILE).eval()


def _golden_planes() -> torch.Tensor:
    boards = [random_board(9, n, s) for s, n in enumerate([0, 7, 25, 50])]
    return torch.from_numpy(np.stack([b.features("agz17") for b in boards]))


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_old_file_outputs_unchanged(grad: bool) -> None:
    model = _old_file()
    with torch.set_grad_enabled(grad):
        logits, values, _ = model(_golden_planes())
    # The golden figures are rounded to 6 decimals, and another CPU or torch build
    # sums in another order (an H100 machine's torch 2.11 differed by 1.3e-7).
    tol = 1e-5 if grad else 1e-6
    np.testing.assert_allclose(values.detach().numpy(), _GOLDEN_VALUES, atol=tol)
    for row, (moves, top) in zip(logits.detach(), _GOLDEN_TOP, strict=True):
        got = torch.topk(row, 3)
        assert got.indices.tolist() == moves
        np.testing.assert_allclose(got.values.numpy(), top, atol=6e-6 + tol)


def test_old_file_state_is_the_old_layout() -> None:
    model = _old_file()
    assert isinstance(model.bn_in, BatchNorm)
    keys = [k for k in model.state_dict() if k.startswith("bn_in.")]
    assert keys == [
        "bn_in.bias",
        "bn_in.running_mean",
        "bn_in.running_var",
        "bn_in.num_batches_tracked",
    ]
    assert int(model.bn_in.num_batches_tracked) > 0  # trained: the counter came along


@pytest.mark.skipif(not CUDA, reason="needs CUDA")
def test_cuda_backward_matches_cpu() -> None:
    cpu = _seeded().train().double()
    gpu = _seeded().train().double().cuda()
    x = _input().double()
    xg = x.cuda().requires_grad_(True)
    x.requires_grad_(True)
    (cpu(x) ** 2).sum().backward()
    (gpu(xg) ** 2).sum().backward()
    assert x.grad is not None and xg.grad is not None
    assert cpu.bias.grad is not None and gpu.bias.grad is not None
    torch.testing.assert_close(xg.grad.cpu(), x.grad, atol=1e-9, rtol=0)
    torch.testing.assert_close(gpu.bias.grad.cpu(), cpu.bias.grad, atol=1e-9, rtol=0)
    torch.testing.assert_close(
        gpu.running_var.cpu(), cpu.running_var, atol=1e-9, rtol=0
    )
