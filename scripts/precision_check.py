#!/usr/bin/env python3
"""How far bf16 (or int8, fp16) inference strays from fp32 on a network's own positions.

The network plays games against itself, each move drawn from its fp32 policy, and
every position on the way is evaluated in fp32 and in ``--precision`` (default bf16)
on this machine's device.
Prints the top-1 agreement of the two policies (legal positions), their total
variation distance, and the value difference. README's "Devices and precision" quotes

    python scripts/precision_check.py --size 9 --games 64 --moves 60
    python scripts/precision_check.py --size 19 --games 16 --moves 120
    python scripts/precision_check.py --size 9 --games 64 --moves 60 --precision int8

``--weights FILE`` checks another network (default: the shipped one for the size).
"""

from __future__ import annotations

import argparse

from alphago.nets.agreement import precision_agreement
from alphago.nets.shipped import shipped_weights
from alphago.nets.weights import load_weights


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--moves", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--weights", default=None, help="a network file (default: shipped)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--batch", type=int, default=64, help="positions per network call")
    p.add_argument(
        "--precision",
        choices=("bf16", "fp16", "int8"),
        default="bf16",
        help="the precision compared with fp32 (default bf16)",
    )
    args = p.parse_args(argv)
    path = args.weights or shipped_weights(args.size)
    if path is None:
        p.error(f"no shipped network for {args.size}x{args.size}: give --weights")
    r = precision_agreement(
        load_weights(path),
        args.size,
        args.games,
        args.moves,
        args.seed,
        args.device,
        args.batch,
        args.precision,
    )
    print(f"{path}: {r['positions']} positions of {args.games} games")
    print(f"top-1 agreement {r['agreement']:.2%}")
    print(f"policy total variation: mean {r['tv_mean']:.4f}, max {r['tv_max']:.4f}")
    mean, top = r["value_mean"], r["value_max"]
    print(f"value |fp32 - {args.precision}|: mean {mean:.4f}, max {top:.4f}")


if __name__ == "__main__":
    main()
