"""The networks on a CUDA GPU: inference positions/s, training examples/s, self-play
games/hour (issue 13). The whole module is skipped where CUDA is absent.

- ``test_evaluator``: ``NetEvaluator.evaluate`` (the path the search uses: uint8
  planes written by ``pool.features`` on the host, the copy to the GPU, the forward
  pass under the precision's autocast, softmax over legal moves on the host) for a
  6x64 and a 20x256 19x19 network with random weights, batches 256, 512 and 2048,
  precisions fp32, bf16 and fp16, no symmetries, with CUDA graphs and without
  (``eager``). The positions are seeded random boards.
- ``test_evaluator_shipped_9x9``: the same for the shipped 9x9 net at batch 512 with
  random symmetries (bf16), as self-play calls it.
- ``test_raw_forward``: the model alone on planes already on the GPU, under the same
  autocast: the ceiling the evaluator's host work is measured against.
- ``test_fused_*``: batch norm folded and cuDNN's fused convolutions
  (:mod:`alphago.nets.fused`, ``fused=True``) against the model under autocast
  (``unfused``), side by side: ``NetEvaluator`` with graphs (6x64 and 20x256 19x19
  at batches 512 and 2048) and the bare forward pass (at 512), bf16 and fp16, and
  the shipped 9x9 net at 512 with random symmetries. The evaluator's default on
  CUDA (unfused until measured) is decided by this group.
- ``test_train_step``: ``Learner.train_step`` (forward, loss, backward, Adam) at batch
  256 on 19x19 for 6x64 and 20x256, per precision, the step as a CUDA graph
  (``graphs``; fp16 always runs eagerly) and not (``eager``).
- ``test_selfplay_games_per_hour``: ``run_selfplay`` on 9x9 with the shipped 4x48
  network at 200 simulations, each of :data:`SELFPLAY` (worker processes sharing the
  GPU, games in lock-step per process; ``--selfplay-device cuda``), two rounds of games
  per worker; ``fused`` layouts run the workers' evaluators folded
  (``ALPHAGO_FUSED=1``). The rate counts the whole call, process start and CUDA
  set-up included; ``worker_max_rss_mb`` is the largest worker's peak resident memory.

Run: ``pytest benchmarks/bench_gpu.py`` (add ``-k "evaluator and 20x256"`` for one
group; ``--benchmark-disable`` runs each body once, the self-play games stopped after
:data:`SMOKE_MOVES` moves). ``extra_info`` holds positions, examples or games per call
and their rates per second.
"""

from __future__ import annotations

import os
import resource
from functools import cache

import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
    pytest.mark.benchmark(group="gpu"),
]

import goboard  # noqa: E402
from alphago.data.examples import Examples, sample_batch  # noqa: E402
from alphago.nets import NetConfig, NetEvaluator, PolicyValueNet  # noqa: E402
from alphago.nets.fused import FusedNetwork  # noqa: E402
from alphago.nets.precision import autocast, compute_dtype  # noqa: E402
from alphago.nets.shipped import shipped_weights  # noqa: E402
from alphago.nets.weights import load_weights, weights_bytes  # noqa: E402
from alphago.train.graphed_step import WARMUP  # noqa: E402
from alphago.train.learner import Learner, TrainConfig  # noqa: E402
from alphago.train.selfplay import SelfPlayConfig  # noqa: E402
from alphago.train.workers import run_selfplay  # noqa: E402
from search import Positions  # noqa: E402

SHAPES = {"6x64": (6, 64), "20x256": (20, 256)}
PRECISIONS = ("fp32", "bf16", "fp16")
BATCHES = (256, 512, 2048)
TRAIN_BATCH = 256
#: (worker processes, parallel games per process) of the self-play benchmark.
SELFPLAY = ((8, 64), (15, 64), (15, 128), (15, 128, "fused"))
SIMULATIONS = 200
SMOKE_MOVES = 4
#: Rounds of games per worker in the self-play benchmark (ALPHAGO_BENCH_ROUNDS).
ROUNDS = int(os.environ.get("ALPHAGO_BENCH_ROUNDS", "2"))


def _net(shape: str, size: int = 19) -> PolicyValueNet:
    torch.manual_seed(0)
    blocks, filters = SHAPES[shape]
    return PolicyValueNet(NetConfig(board_size=size, blocks=blocks, filters=filters))


@cache
def _positions(size: int, batch: int) -> Positions:
    rng = np.random.default_rng(batch)
    boards = []
    for moves in rng.integers(0, 120, batch).tolist():
        board = goboard.Board(size)
        for _ in range(moves):
            legal = [m for m in board.legal_moves() if m != size * size]
            if not legal:
                break
            board.play(int(rng.choice(legal)))
        boards.append(board)
    pool = goboard.Pool(boards, 2)
    return Positions(pool, np.arange(batch) * 2)


@pytest.mark.parametrize("graphs", ["graphs", "eager"])
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_evaluator(bench, shape, batch, precision, graphs):
    ev = NetEvaluator(
        _net(shape),
        "cuda",
        symmetries="none",
        precision=precision,
        cuda_graphs=graphs == "graphs",
    )
    positions = _positions(19, batch)
    priors, _ = bench(ev.evaluate, positions)
    assert priors.shape == (batch, 362)
    bench.rates(positions=batch)


def _bench_shipped_9x9(bench, **options) -> None:
    """The self-play case: the shipped 9x9 net, 512 positions (64 games x 8 leaves),
    random symmetries."""
    path = shipped_weights(9)
    assert path is not None
    ev = NetEvaluator(load_weights(path), "cuda", symmetries="random", **options)
    positions = _positions(9, 512)
    bench(ev.evaluate, positions)
    bench.rates(positions=512)


@pytest.mark.parametrize("graphs", ["graphs", "eager"])
def test_evaluator_shipped_9x9(bench, graphs):
    _bench_shipped_9x9(bench, cuda_graphs=graphs == "graphs")


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_raw_forward(bench, shape, batch, precision):
    device = torch.device("cuda")
    model = _net(shape).to(device).eval().to(memory_format=torch.channels_last)
    x = (torch.rand(batch, 17, 19, 19, device=device) < 0.2).to(torch.float32)
    x = x.contiguous(memory_format=torch.channels_last)

    def forward():
        with torch.inference_mode(), autocast(device, precision):
            out = model(x)
        torch.cuda.synchronize()
        return out

    bench(forward)
    bench.rates(positions=batch)


FUSED = ("fused", "unfused")


@pytest.mark.parametrize("fused", FUSED)
@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("batch", [512, 2048])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_fused_evaluator(bench, shape, batch, precision, fused):
    ev = NetEvaluator(
        _net(shape), "cuda", symmetries="none", precision=precision,
        fused=fused == "fused",
    )  # fmt: skip
    positions = _positions(19, batch)
    bench(ev.evaluate, positions)
    if fused == "fused":
        net = ev._fused_network(compute_dtype(precision))
        assert net is not None
        bench.benchmark.extra_info["kernels"] = net.kernels
    bench.rates(positions=batch)


@pytest.mark.parametrize("fused", FUSED)
@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_fused_raw_forward(bench, shape, precision, fused):
    device, batch = torch.device("cuda"), 512
    model = _net(shape).to(device).eval().to(memory_format=torch.channels_last)
    dtype = compute_dtype(precision)
    x = (torch.rand(batch, 17, 19, 19, device=device) < 0.2).to(dtype)
    x = x.contiguous(memory_format=torch.channels_last)
    net = FusedNetwork(model, dtype) if fused == "fused" else None

    def forward():
        with torch.inference_mode():
            if net is not None:
                out = net(x)
            else:
                with autocast(device, precision):
                    out = model(x)
        torch.cuda.synchronize()
        return out

    bench(forward)
    if net is not None:
        bench.benchmark.extra_info["kernels"] = net.kernels
    bench.rates(positions=batch)


@pytest.mark.parametrize("fused", FUSED)
def test_fused_shipped_9x9(bench, fused):
    _bench_shipped_9x9(bench, fused=fused == "fused")


@pytest.mark.parametrize("graphs", ["graphs", "eager"])
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_train_step(bench, shape, precision, graphs):
    if graphs != "eager" and precision == "fp16":
        pytest.skip("fp16 steps run eagerly (the loss scaler checks on the host)")
    rng = np.random.default_rng(0)
    n = 4096
    planes = (rng.random((n, 17, 19, 19)) < 0.2).astype(np.uint8)
    policy = np.zeros((n, 362), np.float32)
    policy[np.arange(n), rng.integers(0, 362, n)] = 1.0
    value = rng.choice(np.array([-1.0, 1.0], np.float32), n)
    batch = sample_batch(Examples(planes, policy, value), rng, TRAIN_BATCH)
    learner = Learner(
        _net(shape),
        TrainConfig(batch_size=TRAIN_BATCH),
        "cuda",
        precision,
        cuda_graphs=graphs != "eager",
    )
    for _ in range(WARMUP + 1):  # the eager warm-ups and the capture, untimed
        learner.train_step(*batch)
    out = bench(learner.train_step, *batch)  # the metrics' copy synchronises
    assert np.isfinite(out["loss"])
    bench.rates(examples=TRAIN_BATCH)


@pytest.mark.parametrize(
    "layout", SELFPLAY, ids=["-".join(map(str, x)) for x in SELFPLAY]
)
def test_selfplay_games_per_hour(bench, monkeypatch, layout):
    workers, parallel = layout[:2]
    if "fused" in layout:
        monkeypatch.setenv("ALPHAGO_FUSED", "1")  # the workers inherit it
    games = ROUNDS * workers * parallel
    path = shipped_weights(9)
    assert path is not None
    net = load_weights(path)
    smoke = bool(bench.benchmark.disabled)
    config = SelfPlayConfig(
        simulations=SIMULATIONS,
        parallel_games=parallel,
        leaves_per_batch=8,
        size=9,
        max_moves=SMOKE_MOVES if smoke else None,
    )

    def play():
        return run_selfplay(
            weights_bytes(net),
            net.config.to_dict(),
            config,
            games,
            1,
            workers=workers,
            device="cuda",
            precision="bf16",
        )

    result = bench(play, rounds=1, warmup_rounds=0)
    assert len(result.records) == games
    per_s = bench.rates(games=games, moves=result.moves)
    info = bench.benchmark.extra_info
    if per_s:
        info["games_per_hour"] = per_s["games"] * 3600
    # ru_maxrss of waited-for children: kilobytes on Linux
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    info["worker_max_rss_mb"] = children.ru_maxrss / 1024
