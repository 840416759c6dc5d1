"""``alphago bench``: how fast this machine runs the board, the search and the network.

Each measurement is one line of text:

- board: ``goboard.playouts`` random games from the empty board (playouts/s and
  stones placed per second, the raw rules-core speed);
- search: PUCT with the uniform evaluator and UCT with random rollouts (simulations/s,
  the tree overhead without a network);
- network (only when torch and ``alphago.nets`` import): the forward pass of a randomly
  initialised ``blocks x filters`` net (positions/s) and PUCT over it with
  ``batch`` leaves per network call (simulations/s, steady state: the tree is warmed by
  one search first, then a second position is searched and timed).

Kept beside the match code because it is a command-line helper, not a library API.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

import goboard
import search

__all__ = ["run_bench"]


def _position(size: int, moves: int, seed: int) -> goboard.Board:
    """A position a few random moves into a game (no passes)."""
    rng = np.random.default_rng(seed)
    board = goboard.Board(size, 7.5, "chinese")
    for _ in range(moves):
        legal = board.legal_moves()[:-1]
        if not legal:
            break
        board.play(int(rng.choice(legal)))
    return board


def _rate(count: float, seconds: float) -> str:
    return f"{count / max(seconds, 1e-9):,.0f}"


def run_bench(
    *,
    size: int = 19,
    playouts: int = 2000,
    simulations: int = 800,
    net: bool = True,
    blocks: int = 6,
    filters: int = 64,
    threads: int | None = None,
    batch: int = 8,
    device: str = "cpu",
    precision: str | None = None,
) -> Iterator[str]:
    """Yield one report line per measurement (see the module docstring)."""
    board = goboard.Board(size, 7.5, "chinese")
    start = time.perf_counter()
    _, lengths = goboard.playouts(board, playouts, 1)
    took = time.perf_counter() - start
    yield (
        f"board {size}x{size}: {_rate(playouts, took)} playouts/s, "
        f"{_rate(float(lengths.sum()), took)} stones/s ({playouts} playouts)"
    )
    root = _position(size, size, 7)
    for label, config in (
        # Tree overhead alone: with all values 0, a first-play reduction would push
        # every simulation down one ever longer line, so it is off here.
        (
            "PUCT uniform",
            search.SearchConfig(num_simulations=simulations, fpu_reduction=0.0),
        ),
        ("UCT rollouts", search.UCTConfig(num_simulations=simulations)),
    ):
        result = search.run_search(root, None, config, rng=3)
        yield (
            f"search {label}: {_rate(result.num_simulations, result.elapsed)} "
            f"simulations/s ({result.num_simulations} in {result.elapsed:.2f} s)"
        )
    if not net:
        return
    try:
        import torch

        from alphago.nets import NetConfig, NetEvaluator, PolicyValueNet
    except ImportError as exc:
        yield f"network: skipped ({exc})"
        return
    torch.manual_seed(0)
    model = PolicyValueNet(NetConfig(board_size=size, blocks=blocks, filters=filters))
    evaluator = NetEvaluator(
        model, device=device, threads=threads, seed=0, precision=precision
    )
    shape = (
        f"{blocks}x{filters}, {torch.get_num_threads()} threads, "
        f"{evaluator.device} {evaluator.precision}"
    )
    # 0/1 planes as uint8, as the evaluator's own calls send them.
    rng = np.random.default_rng(0)
    planes = (rng.random((batch, model.config.planes, size, size)) < 0.2).astype(
        np.uint8
    )
    evaluator.forward(planes)  # warm-up: allocations, kernel choice
    # The median call: robust to other processes taking the cores for a moment
    # (torch's thread pool waits for its slowest thread).
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < 1.0:
        t0 = time.perf_counter()
        evaluator.forward(planes)
        times.append(time.perf_counter() - t0)
    took = float(np.median(times))
    yield f"network {shape}: {_rate(batch, took)} positions/s (batch {batch})"
    config = search.SearchConfig(num_simulations=simulations, leaves_per_batch=batch)
    search.run_search(root, evaluator, config, rng=1)  # warm-up
    result = search.run_search(_position(size, size + 1, 8), evaluator, config, rng=2)
    yield (
        f"search PUCT + network {shape}: "
        f"{_rate(result.num_simulations, result.elapsed)} simulations/s "
        f"({batch} leaves per call)"
    )
