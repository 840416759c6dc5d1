"""NetEvaluator on the CPU: the folded network (:mod:`alphago.nets.fused`, batch norm
folded into the convolutions, weights in the compute type) against the model under
autocast, side by side.

``test_evaluate`` times ``NetEvaluator.evaluate`` with the folded network (the CPU
default) on the shipped nets' positions at the batch sizes the search sends: 9x9 at
16 (one game's leaves) and 128 (lock-step self-play), 19x19 at 1 and 16; fp32, and
bf16 where the CPU computes in bfloat16 natively. Inside each benchmark the two ways
are also timed in turn, :data:`PAIRS` times (which goes first alternating, each
right after an untimed call of its own), and ``folded/autocast`` is the median of
the paired time ratios (below 1: the folded network is faster), measured under the
same load.

Run: ``pytest benchmarks/bench_evaluator.py`` (one torch thread).
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import goboard  # noqa: E402
from alphago.nets import NetEvaluator  # noqa: E402
from alphago.nets.precision import cpu_has_bf16_arithmetic  # noqa: E402
from alphago.nets.shipped import shipped_weights  # noqa: E402
from alphago.nets.weights import load_weights  # noqa: E402
from search import Positions  # noqa: E402

pytestmark = pytest.mark.benchmark(group="evaluator")

CASES = ((9, 16), (9, 128), (19, 1), (19, 16))
PAIRS = 7


def _seconds(ev: NetEvaluator, positions: Positions, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        ev.evaluate(positions)
    return time.perf_counter() - start


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
@pytest.mark.parametrize(
    ("size", "batch"), CASES, ids=[f"{s}x{s}-{b}" for s, b in CASES]
)
def test_evaluate(bench, positions, size, batch, precision):
    if precision == "bf16" and not cpu_has_bf16_arithmetic():
        pytest.skip("this CPU has no bfloat16 arithmetic")
    path = shipped_weights(size)
    assert path is not None
    torch.set_num_threads(1)
    model = load_weights(path)
    folded, plain = (
        NetEvaluator(model, symmetries="none", precision=precision, fused=f)
        for f in (True, False)
    )
    boards = positions(size).batch(batch)  # a seeded game's middle and end
    positions = Positions(goboard.Pool(boards, 2), np.arange(batch) * 2)
    bench(folded.evaluate, positions)
    bench.rates(positions=batch)
    if bench.benchmark.disabled:
        return
    calls = max(1, 256 // batch)
    plain.evaluate(positions)  # its first call's set-up, untimed
    ratios = []
    for i in range(PAIRS):
        # each side timed right after an untimed call of its own; which goes first
        # alternates
        pair = {}
        for ev in (folded, plain) if i % 2 == 0 else (plain, folded):
            ev.evaluate(positions)
            pair[ev is folded] = _seconds(ev, positions, calls)
        ratios.append(pair[True] / pair[False])
    bench.ratio("folded/autocast", statistics.median(ratios))
