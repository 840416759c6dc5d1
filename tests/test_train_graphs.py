"""The training step as a CUDA graph (alphago.train.graphed_step) and the Learner's use
of it.

Everywhere: which learners use graphs, the refusals, and the portable optimiser state
(checkpoints must not depend on whether a step was graphed). Where CUDA is present: a
graphed learner trains exactly as an eager one (metrics and weights, step by step,
with the schedule moving), across input shapes, a checkpoint round trip to the CPU and
a state loaded mid-run."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402

from alphago.train.graphed_step import (  # noqa: E402
    WARMUP,
    GraphedTrainStep,
    portable_optimizer_state,
)
from alphago.train.learner import Learner, TrainConfig  # noqa: E402

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs CUDA")


def _batch(
    seed: int, rows: int = 16, size: int = 9, dtype: type = np.uint8
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    planes = (rng.random((rows, 17, size, size)) < 0.3).astype(dtype)
    policy = rng.random((rows, size * size + 1)).astype(np.float32)
    policy /= policy.sum(1, keepdims=True)
    z = rng.choice(np.array([-1.0, 1.0], np.float32), rows)
    return planes, policy, z


def _config(**kw: object) -> TrainConfig:
    """A rate that warms up over 2 steps and falls tenfold two steps after the
    first capture, so a graph replaying a stale rate cannot go unnoticed."""
    base = {
        "lr": 1e-2,
        "schedule": "step",
        "milestones": (WARMUP + 2,),
        "warmup_steps": 2,
    }
    base.update(kw)
    return TrainConfig(**base)  # type: ignore[arg-type]


def test_cpu_learners_run_eagerly() -> None:
    learner = Learner(tiny_net(9), _config(), "cpu", cuda_graphs=True)
    assert learner._graphed is None
    out = learner.train_step(*_batch(0))
    assert set(out) == {
        "loss", "policy_loss", "value_loss", "l2", "entropy", "accuracy",
        "explained_variance", "lr",
    }  # fmt: skip
    assert out["lr"] == pytest.approx(1e-2 * 0.5)  # warm-up step 1 of 2


def test_graphed_step_refuses_cpu_and_sgd() -> None:
    model = tiny_net(9)
    adam = torch.optim.Adam(model.parameters())
    with pytest.raises(ValueError, match="CUDA graphs need a CUDA device, not cpu"):
        GraphedTrainStep(adam, lambda *a: torch.zeros(7), torch.device("cpu"))
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    if CUDA:
        with pytest.raises(ValueError, match="graphed steps need Adam, not SGD"):
            GraphedTrainStep(sgd, lambda *a: torch.zeros(7), torch.device("cuda"))


def test_portable_state_of_an_eager_optimizer_is_its_state_dict() -> None:
    learner = Learner(tiny_net(9), _config(), "cpu")
    learner.train_step(*_batch(0))
    want = learner.optimizer.state_dict()
    got = portable_optimizer_state(learner.optimizer)
    assert got["param_groups"] == want["param_groups"]
    assert got["state"].keys() == want["state"].keys()
    for key, entries in want["state"].items():
        for name, value in entries.items():
            assert got["state"][key][name] is value


def test_portable_state_undoes_capturable_settings() -> None:
    """What GraphedTrainStep.reset does to an Adam, undone: a tensor rate becomes a
    float, capturable goes off, step counters come back as CPU float32 tensors."""
    model = tiny_net(9)
    adam = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.zeros(2, 17, 9, 9))[0].sum().backward()
    adam.step()
    for group in adam.param_groups:
        group["lr"] = torch.tensor(0.25)
        group["capturable"] = True
    for entries in adam.state.values():
        entries["step"] = entries["step"].to(torch.float64)
    state = portable_optimizer_state(adam)
    for group in state["param_groups"]:
        assert group["lr"] == 0.25 and type(group["lr"]) is float
        assert group["capturable"] is False
    # counters already on the CPU are left as they are
    assert all(e["step"].dtype == torch.float64 for e in state["state"].values())
    assert adam.param_groups[0]["capturable"] is True  # the optimiser is untouched


@needs_cuda
@pytest.mark.parametrize(
    ("kw", "graphed"),
    [({}, True), ({"cuda_graphs": False}, False), ({"precision": "fp16"}, False)],
)
def test_which_cuda_learners_use_graphs(kw: dict, graphed: bool) -> None:
    learner = Learner(tiny_net(9), _config(), "cuda", **kw)
    assert (learner._graphed is not None) is graphed
    sgd = Learner(tiny_net(9), _config(optimizer="sgd"), "cuda")
    assert sgd._graphed is None


@pytest.fixture
def no_tf32(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full float32 arithmetic, and cuDNN's autotuner on for the eager learner too,
    so that both run the convolution algorithms the graphed learner's warm-ups chose
    (torch caches them per shape). Otherwise Adam magnifies the different rounding of
    different algorithms: on an H100 the entropy differed by 3e-4 after 8 steps."""
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cudnn, "benchmark", True)


def _pair(precision: str = "fp32") -> tuple[Learner, Learner]:
    """Two learners from the same start: one replays graphs, the other runs the same
    steps eagerly with the same capturable Adam (whose arithmetic differs from the
    plain one's in the last bits, which Adam then magnifies where gradients are
    near 0; :func:`test_capturable_adam_tracks_plain_adam` covers that part)."""
    eager = Learner(
        tiny_net(9, blocks=2, filters=16), _config(), "cuda", precision, True
    )
    graphed = Learner(
        tiny_net(9, blocks=2, filters=16), _config(), "cuda", precision, True
    )
    assert graphed._graphed is not None and eager._graphed is not None
    eager._graphed.enabled = False
    return eager, graphed


def _assert_same(a: Learner, b: Learner, atol: float) -> None:
    sa, sb = a.model.state_dict(), b.model.state_dict()
    for name, value in sa.items():
        torch.testing.assert_close(sb[name], value, atol=atol, rtol=atol, msg=name)


@needs_cuda
def test_graphed_training_matches_eager(no_tf32: None) -> None:
    eager, graphed = _pair()
    steps = WARMUP + 6
    for step in range(steps):
        batch = _batch(step)
        want, got = eager.train_step(*batch), graphed.train_step(*batch)
        assert got["lr"] == want["lr"]
        for key, value in want.items():
            assert got[key] == pytest.approx(value, rel=1e-4, abs=1e-5), (step, key)
    assert graphed._graphed is not None and graphed._graphed.captured == 1
    assert graphed.step == eager.step == steps
    _assert_same(eager, graphed, 1e-4)
    # the batch-norm statistics moved in the graph too
    assert int(graphed.model.policy_bn.num_batches_tracked) == steps


@needs_cuda
def test_each_input_shape_gets_its_graph(no_tf32: None) -> None:
    eager, graphed = _pair()
    batches = [_batch(i) for i in range(WARMUP + 2)]
    floats = [_batch(10 + i, rows=8, dtype=np.float32) for i in range(WARMUP + 2)]
    for a, b in zip(batches, floats, strict=True):
        for batch in (a, b):
            want, got = eager.train_step(*batch), graphed.train_step(*batch)
            assert got["loss"] == pytest.approx(want["loss"], rel=1e-4)
    assert graphed._graphed is not None and graphed._graphed.captured == 2
    _assert_same(eager, graphed, 1e-4)


@needs_cuda
def test_graphed_checkpoints_are_portable_and_resume(no_tf32: None) -> None:
    eager, graphed = _pair()
    for step in range(WARMUP + 3):
        eager.train_step(*_batch(step))
        graphed.train_step(*_batch(step))
    state = graphed.state_dict()
    for group in state["optimizer"]["param_groups"]:
        assert type(group["lr"]) is float and group["capturable"] is False
    for entries in state["optimizer"]["state"].values():
        assert entries["step"].device.type == "cpu"
    # the checkpoint loads into a CPU learner ...
    cpu = Learner(tiny_net(9, blocks=2, filters=16), _config(), "cpu")
    cpu.load_state_dict(state)
    assert cpu.step == graphed.step
    # ... and back into the graphed one, which drops its graphs and goes on as the
    # eager learner does
    graphed.load_state_dict(eager.state_dict())
    assert graphed._graphed is not None and graphed._graphed.captured == 0
    for step in range(10, 10 + WARMUP + 3):
        want = eager.train_step(*_batch(step))
        got = graphed.train_step(*_batch(step))
        assert got["loss"] == pytest.approx(want["loss"], rel=1e-4, abs=1e-5)
    assert graphed._graphed.captured == 1
    _assert_same(eager, graphed, 1e-4)


@needs_cuda
def test_capturable_adam_tracks_plain_adam(no_tf32: None) -> None:
    plain = Learner(
        tiny_net(9, blocks=2, filters=16), _config(lr=1e-3), "cuda", "fp32", False
    )
    graphed = Learner(
        tiny_net(9, blocks=2, filters=16), _config(lr=1e-3), "cuda", "fp32", True
    )
    assert plain._graphed is None
    for step in range(WARMUP + 4):
        want = plain.train_step(*_batch(step))
        got = graphed.train_step(*_batch(step))
        assert got["loss"] == pytest.approx(want["loss"], rel=1e-3)
    _assert_same(plain, graphed, 2e-3)


@needs_cuda
def test_graphed_bf16_training_tracks_eager() -> None:
    eager, graphed = _pair("bf16")
    for step in range(WARMUP + 5):
        batch = _batch(step)
        want, got = eager.train_step(*batch), graphed.train_step(*batch)
        assert got["loss"] == pytest.approx(want["loss"], rel=2e-2)
    _assert_same(eager, graphed, 5e-2)
