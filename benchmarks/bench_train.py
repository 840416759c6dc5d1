"""Training throughput: examples per second (``alphago.train.learner``).

One call is one optimiser step (forward, loss, backward, Adam) on a batch of 256
9x9 examples, AlphaGo Zero inputs, for a 6x64 network and for the 4x48 network the
shipped 9x9 net uses; plus the batch sampler alone (uint8 planes to float32 with a
random symmetry per example), which runs before every step. Torch uses its default
thread count (all cores).

``extra_info``: examples per call and examples per second.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from alphago.data.examples import Examples, sample_batch  # noqa: E402
from alphago.nets import NetConfig, PolicyValueNet  # noqa: E402
from alphago.train.learner import Learner, TrainConfig  # noqa: E402

pytestmark = pytest.mark.benchmark(group="train")

BATCH = 256
SIZE = 9


def _examples(n: int = 4096) -> Examples:
    rng = np.random.default_rng(0)
    planes = (rng.random((n, 17, SIZE, SIZE)) < 0.2).astype(np.uint8)
    moves = rng.integers(0, SIZE * SIZE + 1, n)
    policy = np.zeros((n, SIZE * SIZE + 1), np.float32)
    policy[np.arange(n), moves] = 1.0
    value = rng.choice(np.array([-1.0, 1.0], np.float32), n)
    return Examples(planes, policy, value)


@pytest.mark.parametrize("shape", [(6, 64), (4, 48)], ids=["6x64", "4x48"])
def test_train_step(bench, shape):
    torch.manual_seed(0)
    blocks, filters = shape
    net = PolicyValueNet(NetConfig(board_size=SIZE, blocks=blocks, filters=filters))
    learner = Learner(net, TrainConfig(batch_size=BATCH))
    batch = sample_batch(_examples(), np.random.default_rng(1), BATCH)
    out = bench(learner.train_step, *batch)
    assert np.isfinite(out["loss"])
    bench.rates(examples=BATCH)


def test_sample_batch(bench):
    examples, rng = _examples(), np.random.default_rng(2)
    planes, _, _ = bench(sample_batch, examples, rng, BATCH)
    assert planes.shape == (BATCH, 17, SIZE, SIZE)
    bench.rates(examples=BATCH)
