"""Random games with goboard's invariant checker after every move: all sizes and rules.

Meant for the debug build (`GOBOARD_DEBUG=1 pip install .`), where the C core also
asserts its invariants inside every mutation (GB_PARANOID), playouts included; on any
build the script calls `Board._check_invariants()` after each move and each refusal.

Each game picks uniformly among the legal moves (pass included, so games end by two
passes or by the move cap), and every few moves tries an arbitrary point first: a
refusal must leave the position exactly as it was. Random playouts from the reached
positions add moves that only the C loop plays (on the debug build they are checked
inside C). Sizes 2..19, the six ko/suicide rule sets, round robin until --moves.

    python scripts/invariant_run.py --moves 10000000 --out /tmp/invariants.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import goboard
from goboard.errors import IllegalMoveError

RULES = [
    goboard.Rules(ko=ko, suicide=suicide)
    for ko in ("simple", "positional", "situational")
    for suicide in (True, False)
]
SIZES = range(goboard.MIN_SIZE, goboard.MAX_SIZE + 1)


def state(board: goboard.Board) -> tuple[object, ...]:
    return (board.stones().tobytes(), board.to_play, board.zobrist, board.ko_point)


def play_game(size: int, rules: goboard.Rules, rng: np.random.Generator) -> dict:
    """One random game to its end or 4*N*N moves; counts of what was done."""
    board = goboard.Board(size, rules=rules)
    counts = {"moves": 0, "refusals": 0, "playout_moves": 0}
    while not board.is_over and counts["moves"] < 4 * size * size:
        if rng.random() < 0.2:  # an arbitrary point: legal or a refusal to check
            point = int(rng.integers(size * size))
            before = state(board)
            try:
                board.play(point)
                counts["moves"] += 1
            except IllegalMoveError:
                counts["refusals"] += 1
                if state(board) != before:
                    raise AssertionError(f"refused {point} changed the board") from None
            board._check_invariants()
            continue
        legal = board.legal_moves()
        board.play(int(legal[rng.integers(len(legal))]))
        counts["moves"] += 1
        board._check_invariants()
        if counts["moves"] % 50 == 0:
            _, lengths = goboard.playouts(board, 2, int(rng.integers(2**31)))
            counts["playout_moves"] += int(lengths.sum())
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=10_000_000, help="total to reach")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="JSON summary written here")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    per_case: dict[str, dict[str, int]] = {}
    totals = {"moves": 0, "refusals": 0, "playout_moves": 0, "games": 0}
    start = time.monotonic()
    report_at = 0
    while totals["moves"] + totals["playout_moves"] < args.moves:
        for size in SIZES:
            for rules in RULES:
                counts = play_game(size, rules, rng)
                name = f"{size}x{size} {rules.name}"
                case = per_case.setdefault(name, dict.fromkeys(totals, 0))
                for key, value in counts.items():
                    case[key] += value
                    totals[key] += value
                case["games"] += 1
                totals["games"] += 1
        done = totals["moves"] + totals["playout_moves"]
        if done >= report_at:
            rate = done / (time.monotonic() - start)
            print(f"{done:,} moves checked ({rate:,.0f}/s), {totals}", flush=True)
            report_at = done + args.moves // 20
    summary = {
        "build": "GB_PARANOID" if _paranoid() else "release (Python-side checks only)",
        "seconds": round(time.monotonic() - start),
        "totals": totals,
        "per_case": per_case,
    }
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "per_case"}))
    return 0


def _paranoid() -> bool:
    """Whether the C core was built with its invariant checker in every mutation."""
    import subprocess

    so = goboard._board.__file__
    out = subprocess.run(["strings", so], capture_output=True, text=True, check=False)
    return "gb_board_check(b) == GB_OK" in out.stdout


if __name__ == "__main__":
    sys.exit(main())
