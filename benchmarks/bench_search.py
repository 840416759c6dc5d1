"""Monte Carlo tree search: simulations per second.

- ``test_uniform``: PUCT with the uniform evaluator, i.e. the tree overhead alone
  (selection, node creation in the pool, backup), for one tree and for 64 and 256 trees
  stepped together. The uniform evaluator gives every position the value 0, so the
  first-play-urgency reduction is set to 0 here (AlphaGo Zero's unvisited Q of 0):
  with a positive reduction and all values equal, every simulation would follow the
  first line it tried and the tree would be a single deep path.
- ``test_uniform_leaf_batches``: one tree collecting 8 or 16 leaves per evaluator call
  with virtual loss (how a single-tree search feeds a network).
- ``test_rollouts``: UCT, one random C playout per leaf, 9x9.
- ``test_selfplay_lockstep``: self-play's search as ``alphago.train.selfplay`` runs it
  (64 9x9 games in lock-step, 200 simulations, 8 leaves per batch, Dirichlet noise,
  first-play urgency, Chinese rules), three moves from the empty boards with tree reuse
  (``advance``) in between, and an evaluator that costs next to nothing (priors and
  values looked up in a fixed random table by the position's evaluation key), so the
  time is the search's own: selection, node creation in the pool, legal masks and
  eye masks for the priors, backup, tree reuse.

Each round times one ``run()`` of a freshly built search (built untimed in the setup)
from the fixed middle-game position; ``simulations/s`` counts all games together.
"""

from __future__ import annotations

import numpy as np
import pytest

import goboard
from search import PUCT, UCT, Positions, SearchConfig, UCTConfig, UniformEvaluator

pytestmark = pytest.mark.benchmark(group="mcts")

# Simulations per game per round, by number of games: enough to grow a real tree, small
# enough for the smoke run.
SIMULATIONS = {1: 800, 64: 100, 256: 50}
ROUNDS = 5


@pytest.mark.parametrize("games", [1, 64, 256])
@pytest.mark.parametrize("size", [9, 19])
def test_uniform(bench, positions, size, games):
    sims = SIMULATIONS[games]
    cfg = SearchConfig(num_simulations=sims, fpu_reduction=0.0, max_nodes=sims + 1)
    boards = positions(size).batch(games)

    def setup():
        return (PUCT(UniformEvaluator(), boards, cfg, rng=list(range(games))),), {}

    results = bench(lambda s: s.run(), setup=setup, rounds=ROUNDS)
    assert sum(r.num_simulations for r in results) == games * sims
    bench.rates(simulations=games * sims)


@pytest.mark.parametrize("leaves", [8, 16])
def test_uniform_leaf_batches(bench, positions, leaves):
    """One tree, ``leaves`` leaves per evaluator call (virtual loss 1)."""
    sims = SIMULATIONS[1]
    cfg = SearchConfig(
        num_simulations=sims,
        fpu_reduction=0.0,
        leaves_per_batch=leaves,
        max_nodes=sims + leaves,
    )
    board = positions(9).middle

    def setup():
        return (PUCT(UniformEvaluator(), board, cfg, rng=0),), {}

    results = bench(lambda s: s.run(), setup=setup, rounds=ROUNDS)
    assert results[0].num_simulations == sims
    bench.rates(simulations=sims)


@pytest.mark.parametrize("games", [1, 64])
def test_rollouts(bench, positions, games):
    sims = SIMULATIONS[games] // 2
    cfg = UCTConfig(num_simulations=sims, max_nodes=sims + 1)
    boards = positions(9).batch(games)

    def setup():
        return (UCT(boards, cfg, rng=list(range(games))),), {}

    results = bench(lambda s: s.run(), setup=setup, rounds=ROUNDS)
    assert sum(r.num_simulations for r in results) == games * sims
    bench.rates(simulations=games * sims)


class TableEvaluator:
    """Priors and values from a fixed random table, looked up by evaluation key: a
    network's varied answers at next to no cost. Reads the legal masks, as the
    network evaluator does (the search shares them)."""

    def __init__(self, actions: int, rows: int = 4096, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.priors = rng.dirichlet(np.full(actions, 0.3), size=rows).astype(np.float32)
        self.values = rng.uniform(-0.9, 0.9, rows).astype(np.float32)

    def evaluate(self, positions: Positions) -> tuple[np.ndarray, np.ndarray]:
        keys = positions.pool.eval_keys(positions.slots)
        row = (keys % np.uint64(self.values.size)).astype(np.int64)
        positions.legal_masks()
        return self.priors[row], self.values[row]


def test_selfplay_lockstep(bench):
    games, sims, moves = 64, 200, 3
    cfg = SearchConfig(
        num_simulations=sims,
        leaves_per_batch=8,
        dirichlet_alpha=0.15,
        dirichlet_fraction=0.25,
    )
    evaluator = TableEvaluator(82)

    def setup():
        boards = [goboard.Board(9, 7.5, "chinese") for _ in range(games)]
        return (PUCT(evaluator, boards, cfg, rng=0),), {}

    def play(s):
        done = 0
        for _ in range(moves):
            for g, r in enumerate(s.run()):
                done += r.num_simulations
                s.advance(r.move, g)
        return done

    done = bench(play, setup=setup, rounds=ROUNDS)
    assert done == games * sims * moves
    bench.rates(simulations=games * sims * moves)
