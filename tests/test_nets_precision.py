"""Devices and precisions: alphago.nets.precision, NetEvaluator's precision and uint8
transfer, the Learner's autocast and fp16 loss scaling."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import positions_of, random_board, tiny_net  # noqa: E402

import goboard  # noqa: E402
from alphago.nets import NetConfig, NetEvaluator, PolicyValueNet  # noqa: E402
from alphago.nets import precision as prec  # noqa: E402
from alphago.nets.agreement import precision_agreement  # noqa: E402
from alphago.nets.own_games import self_play_positions  # noqa: E402
from alphago.nets.shipped import shipped_weights  # noqa: E402
from alphago.nets.weights import load_weights  # noqa: E402
from alphago.train.learner import Learner, TrainConfig  # noqa: E402
from search import Positions  # noqa: E402

CUDA = torch.cuda.is_available()
CPU = torch.device("cpu")


# -- resolving devices and precisions --------------------------------------------


def test_cpu_precisions() -> None:
    assert prec.resolve_precision(None, CPU) == "fp32"
    assert prec.resolve_precision("auto", CPU) == "fp32"
    assert prec.resolve_precision("bf16", CPU) == "bf16"
    assert prec.resolve_precision("fp32", CPU) == "fp32"
    assert prec.supported_precisions(CPU) == ("fp32", "bf16")
    with pytest.raises(ValueError, match="fp16 needs a CUDA device; use fp32 or bf16"):
        prec.resolve_precision("fp16", CPU)
    unknown = "one of fp32, bf16, fp16, int8 or auto, not 'fp8'"
    with pytest.raises(ValueError, match=unknown):
        prec.resolve_precision("fp8", CPU)
    with pytest.raises(TypeError):
        prec.resolve_precision(16, CPU)  # type: ignore[arg-type]


def test_devices() -> None:
    assert prec.resolve_device("cpu") == CPU
    assert prec.resolve_device(CPU) == CPU
    assert prec.resolve_device("auto").type == ("cuda" if CUDA else "cpu")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        prec.resolve_device("gpu")


@pytest.mark.skipif(CUDA, reason="CUDA is present")
@pytest.mark.parametrize("name", ["cuda", "cuda:0"])
def test_cuda_absent_is_one_clear_error(name: str) -> None:
    with pytest.raises(ValueError, match=f"device '{name}': CUDA is not available"):
        prec.resolve_device(name)
    with pytest.raises(ValueError, match="CUDA is not available"):
        NetEvaluator(tiny_net(9), device=name)
    with pytest.raises(ValueError, match="CUDA is not available"):
        Learner(tiny_net(9), TrainConfig(), name)


@pytest.mark.skipif(not CUDA, reason="needs CUDA")
def test_cuda_defaults_and_bad_index() -> None:
    cuda = torch.device("cuda")
    bf16 = torch.cuda.is_bf16_supported()
    assert prec.resolve_precision(None, cuda) == ("bf16" if bf16 else "fp32")
    assert prec.resolve_precision("fp16", cuda) == "fp16"
    with pytest.raises(ValueError, match="CUDA device"):
        prec.resolve_device(f"cuda:{torch.cuda.device_count()}")


def test_evaluator_and_learner_refuse_fp16_on_cpu() -> None:
    with pytest.raises(ValueError, match="fp16 needs a CUDA device"):
        NetEvaluator(tiny_net(9), precision="fp16")
    with pytest.raises(ValueError, match="fp16 needs a CUDA device"):
        Learner(tiny_net(9), TrainConfig(), "cpu", "fp16")


def test_autocast_context() -> None:
    x, w = torch.ones(2, 3), torch.ones(4, 3)
    with prec.autocast(CPU, "fp32"):
        assert torch.nn.functional.linear(x, w).dtype == torch.float32
    with prec.autocast(CPU, "bf16"):
        assert torch.nn.functional.linear(x, w).dtype == torch.bfloat16
    assert prec.compute_dtype("fp16") == torch.float16


# -- NetEvaluator: uint8 transfer and precision -----------------------------------


def _boards(size: int = 9) -> list[goboard.Board]:
    return [random_board(size, m, s) for s, m in enumerate([0, 3, 12, 30, 45])]


def test_uint8_and_float_planes_give_identical_outputs() -> None:
    model = tiny_net(9, "lz18", blocks=2, ownership=True)
    ev = NetEvaluator(model, symmetries="none", precision="fp32")
    boards = _boards()
    planes = goboard.features_batch(boards, "lz18")
    small = goboard.features_batch(boards, "lz18", dtype=np.uint8)
    assert small.dtype == np.uint8
    got = ev.forward(small)
    want = ev.forward(planes)
    for a, b in zip(got, want, strict=True):
        assert a is not None and b is not None
        np.testing.assert_array_equal(a, b)
    # And both are the model on the float planes, up to the rounding that folding
    # batch norm into the convolutions changes (exactly the model without folding).
    with torch.no_grad():
        logits, values, owner = model(torch.from_numpy(planes))
    unfolded = NetEvaluator(model, symmetries="none", precision="fp32", fused=False)
    for got, atol in ((want, 2e-5), (unfolded.forward(small), 1e-6)):
        np.testing.assert_allclose(got[0], logits.numpy(), atol=atol)
        np.testing.assert_allclose(got[1], values.numpy(), atol=atol)
        assert got[2] is not None and owner is not None
        np.testing.assert_allclose(got[2], owner.numpy(), atol=atol)
    with pytest.raises(TypeError, match="float32 or uint8"):
        ev.forward(planes.astype(np.float64))
    with pytest.raises(ValueError, match="expected planes"):
        ev.forward(small[:, :17])


def _reference(
    model: PolicyValueNet, positions: Positions, kind: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Priors [8, B, A], values [8, B] and ownership [8, B, N, N] (side to move)
    under each transform: float32 planes, numpy transforms, the plain model."""
    sym = goboard.symmetries
    planes = positions.pool.features(positions.slots, kind)
    legal = positions.legal_masks()
    priors, values, owners = [], [], []
    for s in range(8):
        x = torch.from_numpy(np.ascontiguousarray(sym.transform_planes(planes, s)))
        with torch.no_grad():
            logits, value, owner = model(x)
        back = sym.transform_policy(logits.double().numpy(), sym.inverse(s))
        back[~legal] = -np.inf
        p = np.exp(back - back.max(axis=1, keepdims=True))
        priors.append(p / p.sum(axis=1, keepdims=True))
        values.append(value.double().numpy())
        assert owner is not None
        owners.append(sym.transform_planes(owner.double().numpy(), sym.inverse(s)))
    return np.stack(priors), np.stack(values), np.stack(owners)


@pytest.mark.parametrize("symmetries", ["none", "random", 3, "average"])
def test_device_side_symmetries_match_numpy(symmetries: str | int) -> None:
    # Each position's priors and value are the reference's under one of the eight
    # transforms (random modes), transform 0 ("none"), or their mean (k > 1): this
    # pins the grouping by transform, the gather and the row order coming back.
    model = tiny_net(9, "agz17", blocks=1, ownership=True)
    positions = positions_of(_boards())
    ev = NetEvaluator(model, symmetries=symmetries, seed=7, precision="fp32")
    priors, values = ev.evaluate(positions)
    ref_p, ref_v, ref_o = _reference(model, positions, "agz17")
    if symmetries == "none":
        np.testing.assert_allclose(priors, ref_p[0], atol=1e-5)
        np.testing.assert_allclose(values, ref_v[0], atol=1e-5)
    elif symmetries == "random":
        for i in range(len(positions)):
            err = np.abs(ref_p[:, i] - priors[i]).max(axis=1)
            s = int(err.argmin())
            assert err[s] < 1e-5, err
            assert abs(ref_v[s, i] - values[i]) < 1e-5
        # The transforms differ between positions (seed 7): the test sees them.
        assert (
            len(
                {int(np.abs(ref_p[:, i] - priors[i]).max(1).argmin()) for i in range(5)}
            )
            > 1
        )
    elif symmetries == "average":
        np.testing.assert_allclose(priors, ref_p.mean(0), atol=1e-5)
        np.testing.assert_allclose(values, ref_v.mean(0), atol=1e-5)
        sign = positions.pool.to_play(positions.slots)[:, None, None]
        owner = ev.ownership(positions)
        np.testing.assert_allclose(owner, ref_o.mean(0) * sign, atol=1e-5)
    else:  # 3 distinct transforms per position: priors within the references' hull
        assert priors.shape == ref_p[0].shape
        assert np.all(priors <= ref_p.max(0) + 1e-5)
        assert np.all(priors >= ref_p.min(0) - 1e-5)


def test_buffers_are_reused_and_grow() -> None:
    ev = NetEvaluator(tiny_net(9), symmetries="average", precision="fp32")
    boards = _boards()
    ev.evaluate(positions_of(boards[:2]))
    host, inputs = ev._host, ev._inputs[torch.float32]
    assert host is not None and list(ev._inputs) == [torch.float32]
    assert host.dtype == torch.uint8
    assert inputs.is_contiguous(memory_format=torch.channels_last)
    assert tuple(host.shape) == (2, 17, 9, 9) and inputs.shape[0] == 16
    ev.evaluate(positions_of(boards[:2]))
    assert ev._host is host and ev._inputs[torch.float32] is inputs  # no new buffers
    ev.evaluate(positions_of(boards))
    assert ev._host is not host and ev._host is not None
    assert ev._host.shape[0] == 5
    assert ev._inputs[torch.float32].shape[0] == 40


def test_bf16_buffers_and_repr() -> None:
    ev = NetEvaluator(tiny_net(9), precision="bf16", symmetries="none")
    priors, values = ev.evaluate(positions_of(_boards()))
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert list(ev._inputs) == [torch.bfloat16]
    assert "precision=bf16" in repr(ev)
    assert ev.precision == "bf16"


@pytest.mark.parametrize("fast", [True, False])
def test_inference_defaults_to_bf16_on_cpus_with_bf16_arithmetic(
    monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    monkeypatch.setattr(prec, "cpu_has_bf16_arithmetic", lambda: fast)
    want = "bf16" if fast else "fp32"
    assert prec.resolve_precision(None, CPU, inference=True) == want
    assert prec.resolve_precision("auto", CPU, inference=True) == want
    assert NetEvaluator(tiny_net(9)).precision == want
    # Training keeps float32 on the CPU whatever it has, as do explicit choices.
    assert prec.resolve_precision(None, CPU) == "fp32"
    assert _learner(None).precision == "fp32"
    assert NetEvaluator(tiny_net(9), precision="fp32").precision == "fp32"


def test_amx_probe_is_a_bool_and_false_without_torchs_probe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert isinstance(prec.cpu_has_amx_bf16(), bool)
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported", raising=False)
    assert prec.cpu_has_amx_bf16() is False


@pytest.mark.parametrize(
    ("amx", "avx512_bf16", "want"),
    [(True, False, True), (False, True, True), (False, False, False)],
)
def test_bf16_arithmetic_is_amx_or_avx512_bf16(
    monkeypatch: pytest.MonkeyPatch, amx: bool, avx512_bf16: bool, want: bool
) -> None:
    monkeypatch.setattr(prec, "cpu_has_amx_bf16", lambda: amx)
    # raising=False: a torch without these probes gets them for the test.
    monkeypatch.setattr(
        torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16, raising=False
    )
    monkeypatch.setattr(
        torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: True, raising=False
    )
    assert prec.cpu_has_bf16_arithmetic() is want
    # A oneDNN without bfloat16 kernels has no use for the instructions.
    monkeypatch.setattr(
        torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: False, raising=False
    )
    assert prec.cpu_has_bf16_arithmetic() is amx


def test_bf16_arithmetic_probe_is_false_without_torchs_probes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert isinstance(prec.cpu_has_bf16_arithmetic(), bool)
    monkeypatch.setattr(prec, "cpu_has_amx_bf16", lambda: False)
    monkeypatch.delattr(torch.cpu, "_is_avx512_bf16_supported", raising=False)
    assert prec.cpu_has_bf16_arithmetic() is False


def test_cpu_bf16_runs_small_calls_in_fp32() -> None:
    from alphago.nets.evaluator import CPU_BF16_MIN_ROWS

    model = tiny_net(9, blocks=2)
    boards = _boards()
    assert len(boards) >= CPU_BF16_MIN_ROWS
    fp32 = NetEvaluator(model, symmetries="none", precision="fp32")
    bf16 = NetEvaluator(model, symmetries="none", precision="bf16")
    small = positions_of(boards[: CPU_BF16_MIN_ROWS - 1])
    large = positions_of(boards)
    # Below the threshold: float32, the same numbers bit for bit.
    for got, want in zip(bf16.evaluate(small), fp32.evaluate(small), strict=True):
        np.testing.assert_array_equal(got, want)
    assert list(bf16._inputs) == [torch.float32]
    # At or above it: bfloat16, close to float32 but not equal.
    p16, v16 = bf16.evaluate(large)
    p32, v32 = fp32.evaluate(large)
    assert torch.bfloat16 in bf16._inputs
    assert not np.array_equal(v16, v32)
    np.testing.assert_allclose(p16, p32, atol=0.05)
    np.testing.assert_allclose(v16, v32, atol=0.05)


def test_bf16_agrees_with_fp32_on_the_shipped_net() -> None:
    # README ("Devices and precision") quotes the same measurement over 3,534
    # positions (64 games, scripts/precision_check.py): top-1 agreement 99.4%, value
    # error mean 0.0025, max 0.036.
    path = shipped_weights(9)
    assert path is not None
    got = precision_agreement(load_weights(path), 9, games=16, moves=40)
    assert got["positions"] > 500
    assert got["agreement"] >= 0.97
    assert got["value_mean"] < 0.01 and got["value_max"] < 0.1
    assert got["tv_mean"] < 0.01
    assert got["value_max"] > 0  # bf16 really ran


class _OnePoint:
    """An evaluator whose policy is all on the highest-numbered legal point."""

    def evaluate(self, positions: Positions) -> tuple[np.ndarray, np.ndarray]:
        legal = positions.legal_masks()
        priors = np.zeros(legal.shape, dtype=np.float32)
        points = legal[:, :-1]
        last = points.shape[1] - 1 - np.argmax(points[:, ::-1], axis=1)
        priors[np.arange(len(legal)), last] = 1.0
        return priors, np.zeros(len(legal), dtype=np.float32)


def test_self_play_positions_follow_the_policy() -> None:
    # Each live game's position is kept before each move, as a copy, and the move
    # is drawn from the evaluator's policy: here all of it on one point, so the
    # games fill the board from its last point backwards.
    seen = self_play_positions(_OnePoint(), 5, games=3, moves=4, seed=0)  # type: ignore[arg-type]
    assert len(seen) == 12
    assert [b.move_number for b in seen] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert len({id(b) for b in seen}) == 12
    for b in seen[9:]:  # after three moves: the last three points, Black first
        assert list(b.stones().flatten()[-3:]) == [
            goboard.BLACK,
            goboard.WHITE,
            goboard.BLACK,
        ]
        assert not b.stones().flatten()[:-3].any()
    assert not any(b.stones().any() for b in seen[:3])


# -- Learner ----------------------------------------------------------------------


def _batch(n: int = 16, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    planes = (rng.random((n, 17, 9, 9)) < 0.3).astype(np.float32)
    policy = np.zeros((n, 82), np.float32)
    policy[np.arange(n), rng.integers(0, 82, n)] = 1.0
    z = rng.choice(np.array([-1.0, 1.0], np.float32), n)
    return planes, policy, z


def _learner(precision: str | None) -> Learner:
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(9, 1, 16))
    return Learner(net, TrainConfig(batch_size=16), "cpu", precision)


def test_learner_bf16_trains_close_to_fp32() -> None:
    fp32, bf16 = _learner(None), _learner("bf16")
    assert fp32.precision == "fp32" and bf16.precision == "bf16"
    assert fp32.scaler is None and bf16.scaler is None
    batch = _batch()
    before = bf16.model.conv_in.weight.detach().clone()
    a, b = fp32.train_step(*batch), bf16.train_step(*batch)
    assert "skipped_steps" not in b
    assert b["loss"] == pytest.approx(a["loss"], rel=0.02)
    assert b["policy_loss"] != a["policy_loss"]  # bf16 really ran
    assert not torch.equal(before, bf16.model.conv_in.weight)
    logp = bf16.policy_logp(batch[0])
    assert logp.dtype == torch.float32
    torch.testing.assert_close(logp.exp().sum(1), torch.ones(16), atol=1e-4, rtol=0)


def _allow_fp16_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CPU refuses fp16 for users (slow, pointless); torch's CPU autocast and
    # GradScaler still run it, which lets this test drive the scaler code on CPU.
    monkeypatch.setattr(
        prec, "supported_precisions", lambda device, inference=False: prec.PRECISIONS
    )


def test_fp16_overflow_skips_the_step_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _allow_fp16_on_cpu(monkeypatch)
    learner = _learner("fp16")
    assert learner.scaler is not None
    learner.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**100)  # overflows
    batch = _batch()
    before = {k: v.clone() for k, v in learner.model.state_dict().items()}
    out = learner.train_step(*batch)
    assert out["skipped"] == 1.0 and out["skipped_steps"] == 1.0
    assert out["loss_scale"] == 2.0**99
    assert learner.step == 1 and learner.skipped_steps == 1
    after = learner.model.state_dict()
    for key in ("conv_in.weight", "bn_in.bias", "policy_fc.weight"):
        assert torch.equal(before[key], after[key]), key
    # A sane scale trains: the step is taken and the count stays.
    learner.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**8)
    out = learner.train_step(*batch)
    assert out["skipped"] == 0.0 and out["skipped_steps"] == 1.0
    assert not torch.equal(before["conv_in.weight"], learner.model.conv_in.weight)
    # The count and the scale are in the checkpoint; old checkpoints still load.
    state = learner.state_dict()
    assert state["skipped_steps"] == 1 and state["scaler"]["scale"] == 2.0**8
    again = _learner("fp16")
    again.load_state_dict(state)
    assert again.skipped_steps == 1
    assert again.scaler is not None and again.scaler.get_scale() == 2.0**8
    old: dict[str, Any] = {
        k: v for k, v in state.items() if k not in ("skipped_steps", "scaler")
    }
    fresh = _learner(None)
    fresh.load_state_dict(old)
    assert fresh.skipped_steps == 0 and fresh.step == 2


def test_learner_uint8_planes_validate() -> None:
    learner = _learner(None)
    planes, policy, z = _batch()
    x_float = learner._tensors(planes)[0]
    x_small = learner._tensors(planes.astype(np.uint8))[0]
    assert x_small.dtype == torch.float32
    assert torch.equal(x_float, x_small)
