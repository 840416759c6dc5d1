"""FusedNetwork (alphago.nets.fused): batch norm folded into the convolutions.

It must give what the model gives in eval mode (every block kind and head, float32 to
rounding, bf16 to bf16's), follow in-place changes of the model's weights without
moving its own tensors (CUDA graphs read them), and fall back to plain convolutions
when a fused kernel is missing or wrong. cuDNN's kernels themselves need CUDA; their
calls are checked here against the operators' own schemas with CPU stand-ins."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import pooling_net, positions_of, random_board, tiny_net  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from alphago.nets import NetConfig, NetEvaluator, PolicyValueNet  # noqa: E402
from alphago.nets import fused as fused_mod  # noqa: E402
from alphago.nets.evaluator import fused_wanted  # noqa: E402
from alphago.nets.fused import FusedNetwork, fold  # noqa: E402
from alphago.nets.precision import autocast  # noqa: E402
from alphago.nets.shipped import shipped_weights  # noqa: E402
from alphago.nets.weights import load_weights  # noqa: E402


def _planes(net: PolicyValueNet, rows: int = 6, seed: int = 0) -> torch.Tensor:
    n = net.config.board_size
    gen = torch.Generator().manual_seed(seed)
    x = (torch.rand(rows, net.config.planes, n, n, generator=gen) < 0.3).float()
    return x.contiguous(memory_format=torch.channels_last)


def _close(got, want, atol: float) -> None:
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            torch.testing.assert_close(g.float(), w.float(), atol=atol, rtol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tiny_net(9),
        lambda: tiny_net(9, "lz18", blocks=2, ownership=True),
        lambda: tiny_net(7, blocks=3, filters=12, seed=4),
        pooling_net,
    ],
    ids=["tiny", "ownership", "deeper-7x7", "global-pooling"],
)
def test_float32_gives_the_model_in_eval_mode(make) -> None:
    net = make()
    x = _planes(net)
    with torch.inference_mode():
        want = net(x)
        got = FusedNetwork(net, torch.float32)(x)
    _close(got, want, atol=2e-5)
    assert got[0].dtype == torch.float32


def test_fold_is_the_conv_then_batch_norm() -> None:
    net = tiny_net(9)
    x = torch.randn(3, 8, 9, 9)
    w, b = fold(net.tower[0].conv1, net.tower[0].bn1)
    with torch.no_grad():
        want = net.tower[0].bn1(net.tower[0].conv1(x))
        got = F.conv2d(x, w, b, padding=1)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)


def test_bf16_stays_near_float32_on_the_shipped_net() -> None:
    """bf16 with folded weights against the float32 model, as bf16 under autocast
    does: same top move on nearly every position, logits and values close."""
    path = shipped_weights(9)
    assert path is not None
    net = load_weights(path).eval()
    boards = [random_board(9, m, s) for s, m in enumerate(range(0, 64, 2))]
    planes = positions_of(boards).pool.features(
        np.arange(len(boards)) * 2, net.config.input_planes
    )
    x = torch.from_numpy(planes).contiguous(memory_format=torch.channels_last)
    cpu = torch.device("cpu")
    with torch.inference_mode():
        ref = net(x)
        folded = FusedNetwork(net, torch.bfloat16)(x.bfloat16())
        with autocast(cpu, "bf16"):
            cast = net(x)
    for got in (folded, cast):
        top = (got[0].float().argmax(1) == ref[0].argmax(1)).float().mean()
        assert float(top) >= 0.9
        assert float((got[1].float() - ref[1]).abs().max()) < 0.1
    # Folding costs bf16 no more than autocast's casts do, within a margin.
    err_folded = float((folded[0].float() - ref[0]).abs().mean())
    err_cast = float((cast[0].float() - ref[0]).abs().mean())
    assert err_folded < 2 * err_cast + 1e-3


def test_in_place_changes_are_folded_again_into_the_same_tensors() -> None:
    net = tiny_net(9, ownership=True)
    fused = FusedNetwork(net, torch.float32)
    x = _planes(net)
    before = {k: t.data_ptr() for k, t in fused._tensors.items()}
    with torch.inference_mode():
        first = fused(x)
    # An optimiser step (in-place on the parameters) ...
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    logits, value, _ = net(x)
    (logits.square().mean() + value.sum()).backward()
    opt.step()
    # ... and a batch-norm statistic changed by hand, both in place.
    with torch.no_grad():
        net.policy_bn.running_var.mul_(3.0)
    net.eval()
    with torch.inference_mode():
        want = net(x)
        got = fused(x)
    _close(got, want, atol=2e-5)
    assert float((got[0] - first[0]).abs().max()) > 1e-2
    assert {k: t.data_ptr() for k, t in fused._tensors.items()} == before
    # load_state_dict copies in place too.
    other = tiny_net(9, ownership=True, seed=9)
    net.load_state_dict(other.state_dict())
    with torch.inference_mode():
        _close(fused(x), other(x), atol=2e-5)


def test_made_inside_inference_mode_it_still_refolds_outside() -> None:
    net = tiny_net(9)
    x = _planes(net)
    with torch.inference_mode():
        fused = FusedNetwork(net, torch.float32)  # as the evaluator makes it, lazily
        fused(x)
    with torch.no_grad():
        net.policy_fc.bias.add_(1.0)
        _close(fused(x), net(x), atol=2e-5)


def test_a_batch_norm_statistic_alone_is_seen() -> None:
    net = tiny_net(9)
    fused = FusedNetwork(net, torch.float32)
    x = _planes(net)
    with torch.no_grad():
        net.tower[0].bn2.running_mean.add_(0.7)
    with torch.inference_mode():
        _close(fused(x), net(x), atol=2e-5)


def test_unchanged_weights_are_not_folded_again(monkeypatch) -> None:
    net = tiny_net(9)
    fused = FusedNetwork(net, torch.float32)
    calls = []
    real = fused_mod._folded_state
    monkeypatch.setattr(
        fused_mod, "_folded_state", lambda n: calls.append(1) or real(n)
    )
    x = _planes(net)
    with torch.inference_mode():
        for _ in range(3):
            fused(x)
    assert calls == []
    with torch.no_grad():
        net.value_fc2.bias.add_(1.0)
    with torch.inference_mode():
        fused(x)
        fused(x)
    assert calls == [1]


def test_refusals() -> None:
    with pytest.raises(TypeError, match="net must be a PolicyValueNet, not Linear"):
        FusedNetwork(torch.nn.Linear(2, 2), torch.float32)  # type: ignore[arg-type]
    fused = FusedNetwork(tiny_net(9), torch.float32)
    with pytest.raises(ValueError, match=r"expected input \[B, 17, 9, 9\]"):
        fused(torch.zeros(2, 17, 7, 7))


# -- the kernels: probe and fallback ----------------------------------------------


class _Reference(fused_mod._Plain):
    """Right answers by another route (stands in for a fused library kernel)."""

    name = "reference"

    def conv_relu(self, x, w, b):
        return torch.relu(F.conv2d(x, w, b, padding=w.shape[-1] // 2))

    def conv_add_relu(self, x, w, b, z):
        return torch.relu(F.conv2d(x, w, b, padding=w.shape[-1] // 2) + z)


class _Broken(_Reference):
    name = "broken"

    def conv_add_relu(self, x, w, b, z):
        return torch.relu(F.conv2d(x, w, b, padding=w.shape[-1] // 2))  # no sum


class _NoBias(_Reference):
    name = "no-bias"

    def conv_relu(self, x, w, b):
        return torch.relu(F.conv2d(x, w, None, padding=w.shape[-1] // 2))


class _Refusing(_Reference):
    name = "refusing"

    def conv_relu(self, x, w, b):
        raise RuntimeError("no such kernel for this type")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [(_Reference, "reference"), (_Broken, "plain"), (_Refusing, "plain")],
)
def test_the_probe_keeps_only_kernels_that_run_and_agree(
    monkeypatch, kind, expected
) -> None:
    monkeypatch.setitem(fused_mod._FUSED, "cpu", kind)
    net = pooling_net()
    fused = FusedNetwork(net, torch.float32)
    assert fused.kernels == expected
    x = _planes(net)
    with torch.inference_mode():
        _close(fused(x), net(x), atol=2e-5)


def test_the_probe_catches_a_dropped_bias_on_a_fresh_network(monkeypatch) -> None:
    """A fresh network's folded biases are all zero; the probe runs on a copy with
    random statistics, so a kernel that ignores its bias is still caught."""
    monkeypatch.setitem(fused_mod._FUSED, "cpu", _NoBias)
    fresh = PolicyValueNet(NetConfig(9, 2, 8)).eval()
    assert FusedNetwork(fresh, torch.float32).kernels == "plain"


def test_the_probe_runs_once_per_kind_of_network(monkeypatch) -> None:
    monkeypatch.setitem(fused_mod._FUSED, "cpu", _Reference)
    monkeypatch.setattr(fused_mod, "_PROBED", {})
    calls = []
    real = fused_mod.FusedNetwork.features

    def counted(self, x):
        calls.append(1)
        return real(self, x)

    monkeypatch.setattr(fused_mod.FusedNetwork, "features", counted)
    for seed in (0, 1):
        assert (
            FusedNetwork(tiny_net(9, seed=seed), torch.float32).kernels == "reference"
        )
    assert len(calls) == 2  # the first network's probe: plain, then the kernels
    FusedNetwork(tiny_net(9), torch.bfloat16)
    assert len(calls) == 4


def test_cpu_runs_the_plain_kernels() -> None:
    assert FusedNetwork(tiny_net(9), torch.float32).kernels == "plain"


def _schema_args(op) -> list[str]:
    return [a.name for a in op.default._schema.arguments]


def test_cudnn_calls_match_the_operators_schemas(monkeypatch) -> None:
    """The cuDNN kernels' calls, bound by the names in torch's own schemas, to CPU
    stand-ins: a wrong order of stride/padding or of z/alpha/bias would show."""
    relu_names = _schema_args(torch.ops.aten.cudnn_convolution_relu)
    add_names = _schema_args(torch.ops.aten.cudnn_convolution_add_relu)
    assert relu_names[0] == add_names[0] == "self"

    def conv(a):
        return F.conv2d(
            a["self"], a["weight"], a["bias"], a["stride"], a["padding"],
            a["dilation"], a["groups"],
        )  # fmt: skip

    def fake_relu(*args):
        return torch.relu(conv(dict(zip(relu_names, args, strict=True))))

    def fake_add_relu(*args):
        a = dict(zip(add_names, args, strict=True))
        return torch.relu(conv(a) + a["alpha"] * a["z"])

    monkeypatch.setattr(torch, "cudnn_convolution_relu", fake_relu)
    monkeypatch.setattr(torch, "cudnn_convolution_add_relu", fake_add_relu)
    monkeypatch.setitem(fused_mod._FUSED, "cpu", fused_mod._CuDNN)
    net = pooling_net()
    fused = FusedNetwork(net, torch.float32)
    assert fused.kernels == "cudnn"
    x = _planes(net)
    with torch.inference_mode():
        _close(fused(x), net(x), atol=2e-5)


# -- NetEvaluator's use of it -----------------------------------------------------


def test_fused_by_default_on_the_cpu_only(monkeypatch) -> None:
    monkeypatch.delenv("ALPHAGO_FUSED", raising=False)
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert fused_wanted(None, cpu) and not fused_wanted(None, cuda)
    assert not fused_wanted(False, cpu) and fused_wanted(True, cuda)
    monkeypatch.setenv("ALPHAGO_FUSED", "1")
    assert fused_wanted(None, cuda)
    monkeypatch.setenv("ALPHAGO_FUSED", "0")
    assert not fused_wanted(None, cpu) and fused_wanted(True, cpu)
    assert "fused=False" in repr(NetEvaluator(tiny_net(9), "cpu"))
    monkeypatch.delenv("ALPHAGO_FUSED")
    assert "fused=True" in repr(NetEvaluator(tiny_net(9), "cpu"))


def test_evaluator_follows_the_model_between_calls() -> None:
    """The evaluator's folded copy sees weights changed between calls, as the model
    run directly did."""
    net = tiny_net(9, ownership=True)
    positions = positions_of([random_board(9, m, m) for m in (0, 7, 20)])
    folded = NetEvaluator(net, symmetries="none", precision="fp32")
    plain = NetEvaluator(net, symmetries="none", precision="fp32", fused=False)
    with torch.no_grad():
        net.policy_fc.weight.mul_(-1.0)
        net.value_bn.running_mean.add_(0.3)
    p1, v1 = folded.evaluate(positions)
    p2, v2 = plain.evaluate(positions)
    np.testing.assert_allclose(p1, p2, atol=1e-5)
    np.testing.assert_allclose(v1, v2, atol=1e-5)


# -- on a GPU ---------------------------------------------------------------------

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@needs_cuda
@pytest.mark.parametrize("precision", ["fp32", "bf16", "fp16"])
def test_cuda_fused_evaluator_matches_the_model(monkeypatch, precision) -> None:
    """Folded (cuDNN's fused kernels where they run) and replayed as CUDA graphs,
    against the model under autocast without graphs; then again after the weights
    changed in place, which the graphs' folded copy must follow."""
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    net = pooling_net()
    plain = NetEvaluator(
        net, "cuda", symmetries="none", precision=precision, fused=False,
        cuda_graphs=False,
    )  # fmt: skip
    fused = NetEvaluator(
        net, "cuda", symmetries="none", precision=precision, fused=True
    )
    assert "fused=True" in repr(fused) and fused._graphed is not None
    tol = 1e-4 if precision == "fp32" else 0.08  # as the graph tests (bf16 policy)
    for _ in range(2):
        for rows in (3, 70, 9):
            boards = [random_board(9, 5 + i % 30, i) for i in range(rows)]
            positions = positions_of(boards)
            got = fused.evaluate_scored(positions)
            want = plain.evaluate_scored(positions)
            # priors, values; then areas and variances, sums over 81 points
            for a, b, scale in zip(got, want, (1, 1, 81, 81), strict=True):
                np.testing.assert_allclose(a, b, atol=tol * scale)
        with torch.no_grad():
            net.value_fc2.weight.mul_(-1.0)
            net.bn_in.running_mean.add_(0.2)
    kernels = {f.kernels for f in fused._fused.values()}
    print(f"{precision}: kernels {kernels}")
    assert kernels <= {"cudnn", "plain"}
