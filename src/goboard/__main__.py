"""``python -m goboard``: play one random game on the compiled core, print and score it.

Each side plays a uniformly random legal move that does not fill one of its own
one-point eyes (all on-board neighbours its own stones) and passes when none is left,
so games end with the board settled and the Tromp-Taylor count meaningful.
"""

from __future__ import annotations

import argparse

import numpy as np

from . import Board, Rules
from .rules import KO_RULES, PRESETS
from .text import render


def _fills_own_eye(stones: np.ndarray, point: int, colour: int) -> bool:
    size = stones.shape[0]
    row, col = divmod(point, size)
    neighbours = [
        stones[r, c]
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < size and 0 <= c < size
    ]
    return all(n == colour for n in neighbours)


def random_game(board: Board, rng: np.random.Generator, max_moves: int) -> Board:
    """Play random non-eye-filling moves on ``board`` until the game ends."""
    pass_move = board.size * board.size
    while not board.is_over and board.move_number < max_moves:
        stones = board.stones()
        candidates = [
            int(p)
            for p in board.legal_moves()
            if p != pass_move and not _fills_own_eye(stones, int(p), board.to_play)
        ]
        board.play(int(rng.choice(candidates)) if candidates else pass_move)
    return board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m goboard", description=__doc__)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--rules", default="tromp-taylor", choices=sorted(PRESETS))
    parser.add_argument("--ko", choices=KO_RULES, help="override the preset's ko rule")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        rules = Rules.coerce(args.rules)
        if args.ko:
            rules = Rules(ko=args.ko, suicide=rules.suicide)
        board = Board(args.size, komi=args.komi, rules=rules)
    except (TypeError, ValueError) as err:
        parser.error(str(err))
    random_game(board, np.random.default_rng(args.seed), max_moves=4 * args.size**2)
    black, white = board.captures
    print(render(board))
    print(
        f"moves {board.move_number}, captures B {black} W {white}, "
        f"rules {board.rules.name}, komi {board.komi:g}"
    )
    print(f"score {board.score():+g} (Black's view), result {board.result()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
