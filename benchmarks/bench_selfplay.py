"""Self-play game production: games per hour (``alphago.train.selfplay``).

One round plays :data:`GAMES` whole games on 9x9 at 200 simulations per move with a
seeded random 6x64 network (AlphaGo Zero inputs), :data:`PARALLEL` games in lock-step
in one engine with 8 leaves per tree per network call (network batches of up to
``PARALLEL * 8`` positions), in this process on :data:`THREADS` torch thread: what one
worker of ``alphago.train.workers.run_selfplay`` does. A random net plays long games
(many reach the 2 * N * N = 162 move cap), so moves/s is the steadier figure.

Scaling: one round of 4 games took 65 s here (about 220 games/hour). For the default
self-play batch set ``GAMES = PARALLEL = 32`` (bigger network batches, about
ten minutes a round). With ``--benchmark-disable`` (the CI smoke run) the games stop
at :data:`SMOKE_MOVES` moves so the body takes seconds.

``extra_info``: games, moves (per round), their rates per second, and games_per_hour.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from alphago.nets import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.weights import weights_bytes  # noqa: E402
from alphago.train.selfplay import (  # noqa: E402
    SelfPlayConfig,
    selfplay_job,
)

pytestmark = pytest.mark.benchmark(group="selfplay")

GAMES = 4
PARALLEL = 4
THREADS = 1
SIMULATIONS = 200
SMOKE_MOVES = 6


def test_games_per_hour(bench):
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(board_size=9, blocks=6, filters=64)).eval()
    weights, net_config = weights_bytes(net), net.config.to_dict()
    smoke = bool(bench.benchmark.disabled)
    config = SelfPlayConfig(
        simulations=SIMULATIONS,
        parallel_games=PARALLEL,
        leaves_per_batch=8,
        size=9,
        max_moves=SMOKE_MOVES if smoke else None,
    )

    def play():
        return selfplay_job(weights, net_config, config, GAMES, 1, THREADS)

    result = bench(play, rounds=1, warmup_rounds=0)
    assert len(result.records) == GAMES
    per_s = bench.rates(games=GAMES, moves=result.moves)
    if per_s:
        bench.benchmark.extra_info["games_per_hour"] = per_s["games"] * 3600
