"""Where one self-play process spends its time: ``play_games`` under cProfile, grouped.

    python scripts/profile_selfplay.py [--device cuda] [--parallel-games 64] [--moves N]

Plays ``--games`` games (default: one batch of ``--parallel-games``) with the shipped
net for ``--size``, each stopped after ``--moves`` moves, and prints one JSON line: wall
time, simulations per second, and the profile's own time grouped into

- ``network``: torch calls and our model's Python (on CUDA this includes waiting for
  the GPU, since reading results back synchronises);
- ``evaluator``: ``alphago.nets.evaluator`` and ``search.evaluator`` (planes, host <->
  device copies, legal masks, softmax);
- ``search``: the rest of the ``search`` package (selection, backup, tree bookkeeping);
- ``goboard``: the compiled rules core's methods (Pool expand/features, Board);
- ``selfplay``: the game loop itself; ``other``: everything else (numpy helpers, ...);

then the ``--top`` functions by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time

import torch

from alphago.nets.shipped import shipped_weights
from alphago.nets.weights import load_weights
from alphago.train.selfplay import SelfPlayConfig, play_games

GROUPS = (
    ("evaluator", ("alphago/nets/evaluator.py", "search/evaluator.py")),
    ("network", ("torch", "alphago/nets/model.py")),
    ("search", ("/search/",)),
    ("goboard", ("goboard",)),
    ("selfplay", ("alphago/train/selfplay.py",)),
)


def group_of(filename: str, name: str) -> str:
    """The group of one profile entry (first match in :data:`GROUPS`)."""
    where = f"{filename}:{name}"
    for group, marks in GROUPS:
        if any(mark in where for mark in marks):
            return group
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default=None)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--parallel-games", type=int, default=64)
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = shipped_weights(args.size)
    if path is None:
        parser.error(f"no shipped net for {args.size}x{args.size}")
    net = load_weights(path)
    config = SelfPlayConfig(
        simulations=args.simulations,
        parallel_games=args.parallel_games,
        size=args.size,
        max_moves=args.moves,
    )
    games = args.games or args.parallel_games
    play_games(net, config, min(games, 4), 0, device=args.device)  # warm-up
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    result = play_games(
        net, config, games, 1, device=args.device, precision=args.precision
    )
    profile.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profile)
    groups: dict[str, float] = {}
    rows = []
    for (filename, _, name), entry in stats.stats.items():  # type: ignore[attr-defined]
        own = entry[2]
        group = group_of(filename, name)
        groups[group] = groups.get(group, 0.0) + own
        rows.append((own, group, f"{filename.split('/src/')[-1]}:{name}"))
    total = sum(groups.values())
    print(
        json.dumps(
            {
                "device": args.device,
                "parallel_games": args.parallel_games,
                "games": games,
                "moves": result.moves,
                "wall_s": round(wall, 2),
                "simulations_per_s": round(result.moves * args.simulations / wall),
                "share": {g: round(t / total, 3) for g, t in sorted(groups.items())},
            }
        )
    )
    for own, group, where in sorted(rows, reverse=True)[: args.top]:
        print(f"{own:8.3f} s  {group:9s} {where}")


if __name__ == "__main__":
    main()
