#!/usr/bin/env python3
"""How far bf16 inference strays from fp32 on a network's own positions (by hand).

The network plays games against itself, each move drawn from its fp32 policy, and
every position on the way is evaluated in both precisions on this machine's device.
Prints the top-1 agreement of the two policies (legal positions), their total
variation distance, and the value difference. README's "Devices and precision" quotes

    python scripts/precision_check.py --size 9 --games 64 --moves 60
    python scripts/precision_check.py --size 19 --games 16 --moves 120

``--weights FILE`` checks another network (default: the shipped one for the size).
"""

from __future__ import annotations

import argparse

import numpy as np

import goboard
from alphago.nets import NetEvaluator, PolicyValueNet
from alphago.nets.shipped import shipped_weights
from alphago.nets.weights import load_weights
from search import Positions


def self_play_positions(
    evaluator: NetEvaluator, size: int, games: int, moves: int, seed: int
) -> list[goboard.Board]:
    """Every position of ``games`` games of at most ``moves`` moves, each move drawn
    from ``evaluator``'s policy: the positions the network meets in play."""
    rng = np.random.default_rng(seed)
    boards = [goboard.Board(size, 7.5, "chinese") for _ in range(games)]
    seen: list[goboard.Board] = []
    for _ in range(moves):
        live = [b for b in boards if not b.is_over]
        if not live:
            break
        seen.extend(b.copy() for b in live)
        priors, _ = evaluator.evaluate(positions_of(live))
        for board, p in zip(live, priors, strict=True):
            board.play(int(rng.choice(len(p), p=p / p.sum())))
    return seen


def positions_of(boards: list[goboard.Board]) -> Positions:
    """The boards as the roots of a fresh pool."""
    return Positions(goboard.Pool(boards, 2), np.arange(len(boards)) * 2)


def compare(
    model: PolicyValueNet,
    size: int,
    games: int,
    moves: int,
    seed: int = 1,
    device: str = "cpu",
    batch: int = 64,
) -> dict[str, float]:
    """bf16 against fp32 on ``model``'s own positions: ``positions``, ``agreement``
    (top-1, over positions with a legal move), ``tv_mean``/``tv_max`` (policies'
    total variation) and ``value_mean``/``value_max`` (absolute value difference)."""

    def evaluator(precision: str) -> NetEvaluator:
        return NetEvaluator(
            model, device=device, symmetries="none", precision=precision
        )

    fp32, bf16 = evaluator("fp32"), evaluator("bf16")
    boards = self_play_positions(fp32, size, games, moves, seed)
    p32, v32, p16, v16 = [], [], [], []
    for start in range(0, len(boards), batch):
        chunk = positions_of(boards[start : start + batch])
        for ev, priors, values in ((fp32, p32, v32), (bf16, p16, v16)):
            pr, va = ev.evaluate(chunk)
            priors.append(pr)
            values.append(va)
    a32, a16 = np.concatenate(p32), np.concatenate(p16)
    value_error = np.abs(np.concatenate(v32) - np.concatenate(v16))
    legal = a32.sum(axis=1) > 0
    tv = 0.5 * np.abs(a32 - a16).sum(axis=1)
    return {
        "positions": len(boards),
        "agreement": float(np.mean((a32.argmax(1) == a16.argmax(1))[legal])),
        "tv_mean": float(tv.mean()),
        "tv_max": float(tv.max()),
        "value_mean": float(value_error.mean()),
        "value_max": float(value_error.max()),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--moves", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--weights", default=None, help="a network file (default: shipped)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--batch", type=int, default=64, help="positions per network call")
    args = p.parse_args(argv)
    path = args.weights or shipped_weights(args.size)
    if path is None:
        p.error(f"no shipped network for {args.size}x{args.size}: give --weights")
    r = compare(
        load_weights(path),
        args.size,
        args.games,
        args.moves,
        args.seed,
        args.device,
        args.batch,
    )
    print(f"{path}: {r['positions']} positions of {args.games} games")
    print(f"top-1 agreement {r['agreement']:.2%}")
    print(f"policy total variation: mean {r['tv_mean']:.4f}, max {r['tv_max']:.4f}")
    print(f"value |fp32 - bf16|: mean {r['value_mean']:.4f}, max {r['value_max']:.4f}")


if __name__ == "__main__":
    main()
