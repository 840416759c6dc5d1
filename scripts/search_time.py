#!/usr/bin/env python3
"""Time a player's searches along recorded games (run by hand, not in CI).

For each SGF, the player (``alphago gtp``'s, built from the options below) searches
every position where Black is to move, keeping its tree between those searches as in
play, and the recorded move is then played whatever it chose. Prints the mean seconds
and simulations a search, and the visits a search found at its root from the tree
kept since Black's previous move. Two runs over the same games, one core each, compare
two settings on the same positions:

    taskset -c 0 python scripts/search_time.py games/*.sgf --games 10 --early-stop &
    taskset -c 1 python scripts/search_time.py games/*.sgf --games 10

``--weights FILE`` times another network in the same engine, ``--precision`` another
arithmetic for it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import goboard
from alphago.player_choice import PlayerChoice, PlayerSpec
from alphago.sgf import read_sgf, start_board


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sgf", nargs="+", type=Path, help="game records of one board size")
    p.add_argument("--games", type=int, default=None, help="the first N files only")
    p.add_argument("--simulations", type=int, default=800)
    p.add_argument("--early-stop", action="store_true")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rollout-threads", type=int, default=1)
    p.add_argument("--moves", type=int, default=None, help="Black's first N moves only")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--weights", default=None, help="a network file (default: shipped)")
    p.add_argument(
        "--precision", choices=("auto", "fp32", "bf16", "int8"), default="auto"
    )
    args = p.parse_args()
    spec = PlayerSpec(
        simulations=args.simulations,
        seed=args.seed,
        threads=args.threads,
        rollout_threads=args.rollout_threads,
        early_stop=args.early_stop,
        weights=args.weights,
        precision=None if args.precision == "auto" else args.precision,
    )
    choice = PlayerChoice(spec, log=lambda line: None)
    seconds, sims, reused, searches = 0.0, 0, 0, 0
    for path in sorted(args.sgf)[: args.games]:
        record = read_sgf(path.read_bytes())
        board = start_board(record, "chinese")
        player = choice.player_for(board.size)
        player.new_game()
        black_moves = 0
        for _, point in record.moves:
            if board.is_over or black_moves == args.moves:
                break
            if board.to_play == goboard.BLACK:
                start = time.perf_counter()
                result = player.genmove(board)
                seconds += time.perf_counter() - start
                sims += result.num_simulations
                reused += int(result.visits.sum()) - result.num_simulations
                searches += 1
                black_moves += 1
            board.play(point)
    if searches == 0:
        raise SystemExit("no position with Black to move in these records")
    print(
        f"{searches} searches: {seconds / searches:.3f} s, "
        f"{sims / searches:.0f} simulations and {reused / searches:.0f} reused "
        "visits at the root a search"
    )


if __name__ == "__main__":
    main()
