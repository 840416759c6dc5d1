"""CUDA graphs of the network (alphago.nets.graphs) and NetEvaluator's use of them.

The bucketing and the refusals run everywhere; the graphs themselves only where CUDA
is present, where they must give what the eager network gives for every batch size,
across buffer growth, and after the weights change in place."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import positions_of, random_board, tiny_net  # noqa: E402

import goboard  # noqa: E402
from alphago.nets import NetEvaluator  # noqa: E402
from alphago.nets.graphs import GraphedForward, bucket  # noqa: E402

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs CUDA")


def test_buckets() -> None:
    assert [bucket(r) for r in (1, 2, 8, 9, 16, 17, 33, 64)] == [
        8, 8, 8, 16, 16, 32, 64, 64,
    ]  # fmt: skip
    assert [bucket(r) for r in (65, 128, 129, 512, 513, 2000)] == [
        128, 128, 192, 512, 576, 2048,
    ]  # fmt: skip
    for rows in range(1, 3000):
        size = bucket(rows)
        assert size >= rows
        assert size <= max(8, 2 * rows - 1) if rows <= 64 else size - rows < 64
    with pytest.raises(ValueError, match="rows must be >= 1, not 0"):
        bucket(0)


def test_graphs_need_cuda() -> None:
    with pytest.raises(ValueError, match="CUDA graphs need a CUDA device, not cpu"):
        GraphedForward(tiny_net(9), torch.device("cpu"), "fp32", torch.float32)


def test_cpu_evaluator_runs_eagerly() -> None:
    ev = NetEvaluator(tiny_net(9), "cpu", cuda_graphs=True)
    assert "cuda_graphs=False" in repr(ev)
    priors, values = ev.evaluate(positions_of([random_board(9, 10, 1)]))
    assert priors.shape == (1, 82) and abs(float(priors.sum()) - 1.0) < 1e-5


def _boards(count: int, size: int = 9) -> list[goboard.Board]:
    return [random_board(size, 5 + i % 30, i) for i in range(count)]


@needs_cuda
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_graphed_evaluator_matches_eager(
    monkeypatch: pytest.MonkeyPatch, precision: str
) -> None:
    monkeypatch.delenv("ALPHAGO_CUDA_GRAPHS", raising=False)
    eager = NetEvaluator(
        tiny_net(9, blocks=2, filters=16, ownership=True),
        "cuda",
        symmetries="none",
        precision=precision,
        cuda_graphs=False,
    )
    graphed = NetEvaluator(
        tiny_net(9, blocks=2, filters=16, ownership=True),
        "cuda",
        symmetries="none",
        precision=precision,
    )
    assert "cuda_graphs=True" in repr(graphed)
    assert graphed._graphed is not None
    graphed._graphed.max_rows = 128
    tol = 1e-4 if precision == "fp32" else 3e-2
    # growth, shrinking, a bucket reused, a size past the graphs' limit
    for rows in (3, 8, 70, 1, 130, 64, 65, 9):
        positions = positions_of(_boards(rows))
        p0, v0 = eager.evaluate(positions)
        p1, v1 = graphed.evaluate(positions)
        np.testing.assert_allclose(p1, p0, atol=tol)
        np.testing.assert_allclose(v1, v0, atol=tol)
        o0 = eager.ownership(positions)
        o1 = graphed.ownership(positions)
        np.testing.assert_allclose(o1, o0, atol=tol)
    assert graphed._graphed.enabled
    # 130 rows ran eagerly in a grown buffer, which dropped the graphs before it
    assert graphed._graphed.captured == [16, 64, 128]


@needs_cuda
def test_graphs_follow_weights_changed_in_place() -> None:
    model = tiny_net(9, blocks=1, filters=8)
    graphed = NetEvaluator(model, "cuda", symmetries="none", precision="fp32")
    positions = positions_of(_boards(12))
    before, _ = graphed.evaluate(positions)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1.5)
    after, values = graphed.evaluate(positions)
    eager = NetEvaluator(
        model, "cuda", symmetries="none", precision="fp32", cuda_graphs=False
    )
    expected, expected_values = eager.evaluate(positions)
    assert not np.allclose(after, before, atol=1e-3)
    np.testing.assert_allclose(after, expected, atol=1e-4)
    np.testing.assert_allclose(values, expected_values, atol=1e-4)


@needs_cuda
def test_environment_switches_graphs_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALPHAGO_CUDA_GRAPHS", "0")
    assert NetEvaluator(tiny_net(9), "cuda")._graphed is None
    monkeypatch.setenv("ALPHAGO_CUDA_GRAPHS", "1")
    assert NetEvaluator(tiny_net(9), "cuda")._graphed is not None


@needs_cuda
def test_random_symmetries_agree_with_eager() -> None:
    """Symmetries are applied into the graph's input buffer: the same seed gives the
    same transforms, so graphed and eager evaluators agree row for row."""
    net = tiny_net(9, blocks=1, filters=8)
    positions = positions_of(_boards(40))
    eager = NetEvaluator(net, "cuda", symmetries=3, seed=5, cuda_graphs=False)
    graphed = NetEvaluator(net, "cuda", symmetries=3, seed=5, precision="bf16")
    eager_bf16 = NetEvaluator(
        net, "cuda", symmetries=3, seed=5, precision="bf16", cuda_graphs=False
    )
    p0, v0 = eager_bf16.evaluate(positions)
    p1, v1 = graphed.evaluate(positions)
    np.testing.assert_allclose(p1, p0, atol=3e-2)
    np.testing.assert_allclose(v1, v0, atol=3e-2)
    assert eager.evaluate(positions)[0].shape == p1.shape
