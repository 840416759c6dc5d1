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


@pytest.fixture
def no_tf32(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full float32 convolutions: with TF32 (cuDNN's default on Ampere and later) the
    algorithm the graph's autotuned capture picks and the eager one differ by ~1e-4,
    as seen on an H100; without it only the summation order differs."""
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)


def _boards(count: int, size: int = 9) -> list[goboard.Board]:
    return [random_board(size, 5 + i % 30, i) for i in range(count)]


@needs_cuda
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_graphed_evaluator_matches_eager(
    monkeypatch: pytest.MonkeyPatch, no_tf32: None, precision: str
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
    # bf16: another convolution algorithm rounds differently, and the test net's
    # peaked policy magnifies logit errors (0.035 of a prior seen on an H100)
    tol = 1e-4 if precision == "fp32" else 0.08
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
    # 130 rows ran eagerly in a grown buffer, which dropped the graphs before it;
    # the captures after that went into a new memory pool (torch refuses a pool
    # whose graphs are all gone)
    assert graphed._graphed.captured == [16, 64, 128]


@needs_cuda
def test_graphs_follow_weights_changed_in_place(no_tf32: None) -> None:
    model = tiny_net(9, blocks=1, filters=8)
    graphed = NetEvaluator(model, "cuda", symmetries="none", precision="fp32")
    positions = positions_of(_boards(12))
    _, before = graphed.evaluate(positions)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1.5)
    after, values = graphed.evaluate(positions)
    eager = NetEvaluator(
        model, "cuda", symmetries="none", precision="fp32", cuda_graphs=False
    )
    expected, expected_values = eager.evaluate(positions)
    assert graphed._graphed is not None and graphed._graphed.captured == [16]
    assert not np.allclose(values, before, atol=1e-3)
    np.testing.assert_allclose(after, expected, atol=1e-4)
    np.testing.assert_allclose(values, expected_values, atol=1e-4)


@needs_cuda
def test_environment_switches_graphs_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALPHAGO_CUDA_GRAPHS", "0")
    assert NetEvaluator(tiny_net(9), "cuda")._graphed is None
    monkeypatch.setenv("ALPHAGO_CUDA_GRAPHS", "1")
    assert NetEvaluator(tiny_net(9), "cuda")._graphed is not None


@needs_cuda
def test_random_symmetries_agree_with_eager(no_tf32: None) -> None:
    """Symmetries are applied into the graph's input buffer: the same seed gives the
    same transforms, so graphed and eager evaluators agree row for row."""
    net = tiny_net(9, blocks=1, filters=8)
    positions = positions_of(_boards(40))
    eager = NetEvaluator(
        net, "cuda", symmetries=3, seed=5, precision="fp32", cuda_graphs=False
    )
    graphed = NetEvaluator(net, "cuda", symmetries=3, seed=5, precision="fp32")
    for _ in range(2):  # the second call replays the graph captured by the first
        p0, v0 = eager.evaluate(positions)
        p1, v1 = graphed.evaluate(positions)
        np.testing.assert_allclose(p1, p0, atol=1e-4)
        np.testing.assert_allclose(v1, v0, atol=1e-4)


# -- the bookkeeping, on the CPU, with torch.cuda's graph API faked ----------------


class _Pool:
    """A memory pool as torch keeps it: a capture into a pool whose graphs have
    all been released fails (the assertion an H100 run hit)."""

    def __init__(self) -> None:
        self.graphs = 0
        self.used = False


class _Graph:
    def __init__(self) -> None:
        self.pool: _Pool | None = None
        self.rerun = None

    def replay(self) -> None:
        assert self.rerun is not None
        self.rerun()

    def __del__(self) -> None:
        if self.pool is not None:
            self.pool.graphs -= 1


class _Recorder(torch.nn.Module):
    """The net, remembering its last input and outputs (what a capture records)."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net = net
        self.config = net.config
        self.calls = 0
        self.last: tuple = ()  # type: ignore[type-arg]

    def forward(self, x: torch.Tensor):  # type: ignore[no-untyped-def]
        self.calls += 1
        out = self.net(x)
        self.last = (x, out)
        return out


class _Capture:
    recorder: _Recorder

    def __init__(self, graph: _Graph, pool: _Pool, capture_error_mode: str) -> None:
        if pool.used and pool.graphs == 0:
            raise RuntimeError("it->second->use_count > 0 INTERNAL ASSERT FAILED")
        self.graph, self.pool = graph, pool

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        x, outputs = self.recorder.last
        net = self.recorder.net

        def rerun() -> None:
            for old, new in zip(outputs, net(x), strict=True):
                if old is not None:
                    old.copy_(new)

        self.graph.rerun = rerun
        self.graph.pool = self.pool
        self.pool.graphs += 1
        self.pool.used = True


class _Stream:
    def __init__(self, *args: object) -> None:
        pass

    def wait_stream(self, other: object) -> None:
        pass


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    import contextlib

    monkeypatch.setattr(torch.cuda, "Stream", _Stream)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: _Stream())
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "graph_pool_handle", _Pool)
    monkeypatch.setattr(torch.cuda, "CUDAGraph", _Graph)
    monkeypatch.setattr(torch.cuda, "graph", _Capture)


def _graphed(net: torch.nn.Module, max_rows: int = 4096) -> GraphedForward:
    recorder = _Recorder(net)
    _Capture.recorder = recorder
    graphed = GraphedForward(
        recorder,  # type: ignore[arg-type]
        torch.device("cuda"),
        "fp32",
        torch.float32,
        max_rows=max_rows,
    )
    graphed.device = torch.device("cpu")  # the tensors live on the CPU here
    return graphed


def _run(graphed: GraphedForward, planes: torch.Tensor) -> tuple:  # type: ignore[type-arg]
    with torch.inference_mode():
        graphed.input(len(planes)).copy_(planes)
        return graphed(len(planes))


def test_buckets_growth_and_pools_with_faked_graphs(fake_cuda: None) -> None:
    net = tiny_net(9, blocks=1, filters=8, ownership=True)
    graphed = _graphed(net, max_rows=128)
    rng = np.random.default_rng(0)
    pools = []
    for rows in (3, 8, 70, 1, 130, 64, 65, 9, 3):
        planes = torch.from_numpy((rng.random((rows, 17, 9, 9)) < 0.3).astype("f4"))
        got = _run(graphed, planes)
        with torch.inference_mode():
            want = net(planes)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            torch.testing.assert_close(g, w)
        pools.append(graphed._pool)
    assert graphed.enabled
    # 3 and 8 share bucket 8; 70 grows the buffer (new pool), 130 is past max_rows
    # and grows it again (eager, new pool); then 64, 128 and 16 are captured
    assert graphed.captured == [8, 16, 64, 128]
    assert pools[0] is pools[1] and pools[2] is not pools[1]
    assert pools[4] is None and pools[5] is not pools[2]


def test_a_failed_capture_falls_back_to_eager(
    fake_cuda: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("operation not permitted when stream is capturing\nmore")

    monkeypatch.setattr(torch.cuda, "graph", refuse)
    net = tiny_net(9, blocks=1, filters=8)
    graphed = _graphed(net)
    planes = torch.ones((5, 17, 9, 9))
    for _ in range(2):
        logits, values, owner = _run(graphed, planes)
        with torch.inference_mode():
            want = net(planes)
        torch.testing.assert_close(logits, want[0])
        assert owner is None
    assert not graphed.enabled and graphed.captured == []
    err = capsys.readouterr().err
    assert err.count("warning: CUDA graph capture failed (RuntimeError: operation") == 1
