"""The learner's fast paths compute what the plain ones did.

``Learner.train_step`` reads its numbers back in one copy, computes the L2 term over
one concatenation of the weights, takes uint8 or float32 planes, and on CUDA uses a
fused optimiser and channels-last tensors. These tests pin, on the CPU, that the
results equal the per-term computation of before, and that optimiser states move
between implementations (for-loop, foreach, fused) and layouts; the CUDA tests run
the device paths themselves where a GPU is present.
"""

from __future__ import annotations

import copy
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from alphago.data.examples import Examples  # noqa: E402
from alphago.nets import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets import precision as prec  # noqa: E402
from alphago.train.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from alphago.train.learner import (  # noqa: E402
    Learner,
    TrainConfig,
    _flat,
    _sum_of_squares,
)

NET = NetConfig(9, 1, 8)
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

Batch = tuple[np.ndarray, np.ndarray, np.ndarray]


def _batch(n: int = 16, seed: int = 0) -> Batch:
    rng = np.random.default_rng(seed)
    planes = (rng.random((n, 17, 9, 9)) < 0.3).astype(np.float32)
    policy = rng.random((n, 82)).astype(np.float32)
    policy /= policy.sum(1, keepdims=True)
    z = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), n)
    return planes, policy, z


def _learner(
    optimizer: str = "adam", device: str = "cpu", precision: str | None = None
) -> Learner:
    torch.manual_seed(0)
    config = TrainConfig(optimizer=optimizer, lr=1e-2, l2=1e-3, batch_size=16)
    return Learner(PolicyValueNet(NET), config, device, precision)


def _with(learner: Learner, **implementation: Any) -> Learner:
    """``learner`` with its optimiser rebuilt in another implementation."""
    group = learner.optimizer.param_groups[0]
    kind = type(learner.optimizer)
    settings = {k: v for k, v in group.items() if k in ("lr", "momentum", "nesterov")}
    learner.optimizer = kind(learner.model.parameters(), **settings, **implementation)
    return learner


def _weights(learner: Learner) -> dict[str, Any]:
    return {k: v.detach().cpu().clone() for k, v in learner.model.state_dict().items()}


def _old_metrics(model: PolicyValueNet, batch: Batch, config: TrainConfig) -> Any:
    """The loss terms and batch statistics as train_step computed them before:
    one tensor per term, per weight and per statistic, each read as a float."""
    planes, policy, z = (torch.from_numpy(a).float() for a in batch)
    model.train()
    logits, value, _ = model(planes)
    policy_loss = -(policy * torch.log_softmax(logits, dim=1)).sum(1).mean()
    value_loss = torch.mean((z - value) ** 2)
    l2 = sum(
        (p * p).sum()
        for name, p in model.named_parameters()
        if name.endswith("weight") and p.dim() > 1
    )
    assert isinstance(l2, torch.Tensor)
    loss = policy_loss + config.value_weight * value_loss + config.l2 * l2
    with torch.no_grad():
        logp = torch.log_softmax(logits, dim=1)
        var_z = torch.var(z, unbiased=False)
        residual = torch.var(z - value, unbiased=False)
        explained = 1.0 - residual / var_z if var_z > 0 else torch.tensor(math.nan)
        return {
            "loss": float(loss.detach()),
            "policy_loss": float(policy_loss.detach()),
            "value_loss": float(value_loss.detach()),
            "l2": float(l2.detach()),
            "entropy": float(-(logp.exp() * logp).sum(1).mean()),
            "accuracy": float((logits.argmax(1) == policy.argmax(1)).float().mean()),
            "explained_variance": float(explained),
        }


def test_uint8_and_float32_planes_give_the_same_step() -> None:
    planes, policy, z = _batch()
    a, b = _learner(), _learner()
    out_a = a.train_step(planes, policy, z)
    out_b = b.train_step(planes.astype(np.uint8), policy, z)
    assert out_a == out_b
    wa, wb = _weights(a), _weights(b)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.mark.parametrize("constant_z", [False, True])
def test_the_one_copy_metrics_equal_the_per_term_values(constant_z: bool) -> None:
    planes, policy, z = _batch(seed=3)
    if constant_z:
        z = np.ones_like(z)  # no variance: explained variance is NaN
    learner = _learner()
    want = _old_metrics(
        copy.deepcopy(learner.model), (planes, policy, z), learner.config
    )
    got = learner.train_step(planes, policy, z)
    assert list(got) == [
        "loss",
        "policy_loss",
        "value_loss",
        "l2",
        "lr",
        "entropy",
        "accuracy",
        "explained_variance",
    ]
    assert got["lr"] == learner.config.lr
    for key in ("policy_loss", "value_loss", "entropy", "accuracy"):
        assert got[key] == want[key], key
    # The L2 sum is added up in another order: equal to float32 rounding.
    assert got["l2"] == pytest.approx(want["l2"], rel=1e-6)
    assert got["loss"] == pytest.approx(want["loss"], rel=1e-6)
    if constant_z:
        assert math.isnan(got["explained_variance"])
    else:
        assert got["explained_variance"] == want["explained_variance"]


def test_the_l2_term_has_the_old_gradient_and_needs_no_copy() -> None:
    torch.manual_seed(1)
    conv = torch.randn(6, 5, 3, 3).contiguous(memory_format=torch.channels_last)
    one = torch.randn(2, 6, 1, 1).contiguous(memory_format=torch.channels_last)
    weights = [w.requires_grad_() for w in (torch.randn(7, 4), conv, one)]
    for w in weights:  # views of the weights' own memory
        assert _flat(w).data_ptr() == w.data_ptr() and _flat(w).numel() == w.numel()
    total = _sum_of_squares(weights)
    total.backward()  # type: ignore[no-untyped-call]
    want = sum(float((w.detach().double() ** 2).sum()) for w in weights)
    assert float(total.detach()) == pytest.approx(want, rel=1e-6)
    for w in weights:
        assert w.grad is not None and w.grad.stride() == w.stride()
        assert torch.equal(w.grad, 2 * w.detach())


def _implementations() -> list[dict[str, Any]]:
    """foreach, and fused where this torch has fused CPU optimisers (>= 2.4)."""
    kinds: list[dict[str, Any]] = [{"foreach": True}]
    try:
        torch.optim.Adam([torch.zeros(1, requires_grad=True)], fused=True)
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, fused=True)
    except (RuntimeError, TypeError, ValueError):
        return kinds
    return [*kinds, {"fused": True}]


def _resume_in(
    tmp_path: Path, saver: Learner, loader: Learner, batch: Batch
) -> tuple[Learner, Learner]:
    """``saver`` trains two steps and is saved to a file; ``loader`` resumes from
    it; both take one more step."""
    saver.train_step(*batch)
    saver.train_step(*batch)
    save_checkpoint(tmp_path / "c.pt", {"learner": saver.state_dict()})
    flags = {k: loader.optimizer.param_groups[0].get(k) for k in ("foreach", "fused")}
    loader.load_state_dict(load_checkpoint(tmp_path / "c.pt")["learner"])
    after = {k: loader.optimizer.param_groups[0].get(k) for k in flags}
    assert after == flags  # the loader keeps its own implementation
    assert loader.step == 2
    saver.train_step(*batch)
    loader.train_step(*batch)
    return saver, loader


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
@pytest.mark.parametrize(
    "implementation", _implementations(), ids=lambda kind: "-".join(kind)
)
@pytest.mark.parametrize("direction", ["from_plain", "to_plain"])
def test_a_checkpoint_resumes_in_another_optimiser_implementation(
    tmp_path: Path, optimizer: str, implementation: dict[str, Any], direction: str
) -> None:
    batch = _batch()
    plain, other = _learner(optimizer), _with(_learner(optimizer), **implementation)
    saver, loader = (plain, other) if direction == "from_plain" else (other, plain)
    saver, loader = _resume_in(tmp_path, saver, loader, batch)
    ws, wl = _weights(saver), _weights(loader)
    for key in ws:
        torch.testing.assert_close(wl[key], ws[key], rtol=1e-5, atol=1e-6)
    for state in loader.optimizer.state.values():
        step = state.get("step")
        if step is not None:
            assert float(step) == 3.0


def test_optimiser_buffers_take_the_parameters_layout_when_loaded() -> None:
    # A fused optimiser refuses buffers laid out unlike their parameter; a
    # checkpoint written by an NCHW learner must still resume in a channels-last
    # one (a CUDA learner) and back.
    batch = _batch()
    nchw = _learner()
    nchw.train_step(*batch)
    state = nchw.state_dict()
    last = _learner()
    last.model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    last = _with(last, **_implementations()[-1])
    last.load_state_dict(state)
    for param, entries in last.optimizer.state.items():
        for name in ("exp_avg", "exp_avg_sq"):
            assert entries[name].stride() == param.stride(), name
    last.train_step(*batch)
    back = _learner()
    back.load_state_dict(last.state_dict())
    for param, entries in back.optimizer.state.items():
        assert entries["exp_avg"].stride() == param.stride()
        assert entries["step"].device.type == "cpu"
    back.train_step(*batch)


def test_validate_equals_the_per_batch_sums() -> None:
    planes, policy, z = _batch(n=37, seed=5)
    examples = Examples(planes.astype(np.uint8), policy, z)
    learner = _learner()
    got = learner.validate(examples, batch_size=16)
    model = learner.model.eval()
    with torch.no_grad():
        logits, value, _ = model(torch.from_numpy(planes))
        pi, zt = torch.from_numpy(policy), torch.from_numpy(z)
        want = {
            "val_policy_loss": float(-(pi * torch.log_softmax(logits, 1)).sum()) / 37,
            "val_value_mse": float(((zt - value) ** 2).sum()) / 37,
            "val_accuracy": float((logits.argmax(1) == pi.argmax(1)).sum()) / 37,
        }
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], rel=1e-5), key


def test_fp16_skips_are_still_reported_step_by_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The scale is read before the step is queued and after its metrics came
    # back; a run of overflows, then good steps, counts exactly the overflows.
    monkeypatch.setattr(prec, "supported_precisions", lambda device: prec.PRECISIONS)
    learner = _learner(precision="fp16")
    learner.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**40)
    batch = _batch()
    rows = [learner.train_step(*batch)]
    while rows[-1]["skipped"] and len(rows) < 60:
        rows.append(learner.train_step(*batch))
    rows.append(learner.train_step(*batch))
    skips = len(rows) - 2
    assert skips >= 1  # 2**40 overflows float16 gradients
    assert [r["skipped"] for r in rows] == [1.0] * skips + [0.0, 0.0]
    assert [r["skipped_steps"] for r in rows] == [*range(1, skips + 1), skips, skips]
    halved = [2.0 ** (40 - k) for k in range(1, skips + 1)]
    assert [r["loss_scale"] for r in rows] == [*halved, halved[-1], halved[-1]]
    assert learner.skipped_steps == skips and learner.step == skips + 2


# On a CUDA device (skipped elsewhere).


@CUDA
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_cuda_learner_is_fused_channels_last_and_matches_the_cpu(
    optimizer: str,
) -> None:
    batch = _batch()
    cpu, gpu = _learner(optimizer), _learner(optimizer, "cuda", "fp32")
    assert gpu.optimizer.param_groups[0].get("fused") is True
    assert gpu.model.conv_in.weight.is_contiguous(memory_format=torch.channels_last)
    a, b = cpu.train_step(*batch), gpu.train_step(*batch)
    assert a.keys() == b.keys()
    for key in a:  # TF32 convolutions: close, not equal
        assert b[key] == pytest.approx(a[key], rel=2e-2, abs=1e-3), key
    # uint8 planes: the same numbers (they come from the forward pass, which is
    # deterministic; the backward's weight gradients need not be).
    small = _learner(optimizer, "cuda", "fp32")
    assert small.train_step(batch[0].astype(np.uint8), batch[1], batch[2]) == b


@CUDA
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_cuda_step_waits_on_the_gpu_once(precision: str) -> None:
    learner = _learner(device="cuda", precision=precision)
    batch = _batch()
    learner.train_step(*batch)  # first step: lazy initialisation
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            learner.train_step(*batch)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    syncs = [w for w in caught if "synchroniz" in str(w.message)]
    assert len(syncs) == 1, [str(w.message) for w in syncs]


@CUDA
def test_cuda_checkpoints_resume_on_the_cpu_and_back(tmp_path: Path) -> None:
    batch = _batch()
    saver, loader = _resume_in(tmp_path, _learner(device="cuda"), _learner(), batch)
    for entries in loader.optimizer.state.values():
        assert entries["step"].device.type == "cpu"
    saver, loader = _resume_in(tmp_path, _learner(), _learner(device="cuda"), batch)
    for param, entries in loader.optimizer.state.items():
        assert entries["step"].device == param.device
        assert entries["exp_avg"].stride() == param.stride()


@CUDA
def test_cuda_fp16_overflow_is_skipped_by_the_fused_step() -> None:
    learner = _learner(device="cuda", precision="fp16")
    learner.scaler = torch.amp.GradScaler("cuda", init_scale=2.0**100)
    batch = _batch()
    before = _weights(learner)
    out = learner.train_step(*batch)
    assert out["skipped"] == 1.0 and out["loss_scale"] == 2.0**99
    after = _weights(learner)
    for key in ("conv_in.weight", "bn_in.bias", "policy_fc.weight"):
        assert torch.equal(before[key], after[key]), key
    learner.scaler = torch.amp.GradScaler("cuda", init_scale=2.0**8)
    assert learner.train_step(*batch)["skipped"] == 0.0
    assert not torch.equal(
        before["conv_in.weight"], _weights(learner)["conv_in.weight"]
    )
