"""UCT with pattern rollouts against UCT with uniform random playouts, 9x9.

Both sides search the same number of simulations per move (UCB1, one rollout per
leaf); the pattern side alternates colours. Equal simulations, not equal time: a
pattern rollout costs about ten uniform ones.

    python scripts/rollout_match.py runs/rollout/best.npz --games 16 --simulations 300
"""

from __future__ import annotations

import argparse
import time

import goboard
import search
from alphago.rollout_weights import load_rollout_policy
from search.mcts import MCTS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", help="rollout weights file")
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--simulations", type=int, default=300)
    args = parser.parse_args()
    policy = load_rollout_policy(args.weights)
    config = search.UCTConfig(num_simulations=args.simulations)
    wins = 0
    start = time.time()
    for g in range(args.games):
        board = goboard.Board(9, komi=7.5, rules="chinese")
        pattern = goboard.BLACK if g % 2 == 0 else goboard.WHITE
        while not board.is_over and board.move_number < 200:
            seed = g * 1000 + board.move_number
            if board.to_play == pattern:
                rollouts = search.PatternRollouts(policy, 1, seed=seed)
                s: MCTS = MCTS(rollouts, board, config, rng=seed, rule="ucb1")
            else:
                s = search.UCT(board, config, rng=seed)
            board.play(s.search().move)
        won = (board.score() > 0) == (pattern == goboard.BLACK)
        wins += won
        side = "B" if pattern == goboard.BLACK else "W"
        print(f"game {g}: pattern rollouts play {side}, {board.result()}", flush=True)
    elapsed = time.time() - start
    print(f"pattern rollouts won {wins}/{args.games} ({elapsed:.0f} s)")


if __name__ == "__main__":
    main()
