"""Playing strength with random rollouts: small tactics, and UCT against random play.

The tactical positions were picked from seeded random 5x5 games: White to move, one
move is far better than every other by the mean of 300 random playouts (capture: C3
takes D3 and wins, 0.72 against -0.13 for the runner-up; save: C3 connects the
white stone in atari at B3, 0.58 against 0.01). A search whose backup or selection has
a sign error plays one of the losing moves.
"""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import random_move

import goboard
from goboard.coords import from_gtp
from goboard.text import parse_board
from search import (
    MCTS,
    PUCT,
    UCT,
    AlphaGo2016,
    AlphaGo2016Config,
    RolloutEvaluator,
    SearchConfig,
    UCTConfig,
    UniformEvaluator,
)

CAPTURE = """
    O X . . .
    . . X O X
    X X . X O
    . O O O .
    X X . . O
"""
SAVE = """
    X . X . O
    . X O O .
    X O . . .
    X X X O .
    X . O . O
"""


def _searches(board: goboard.Board, seed: int) -> list[MCTS]:
    return [
        UCT(board, UCTConfig(num_simulations=400), rng=seed),
        PUCT(
            RolloutEvaluator(2, seed),
            board,
            SearchConfig(num_simulations=300),
            rng=seed,
        ),
        AlphaGo2016(
            UniformEvaluator(),
            board,
            AlphaGo2016Config(
                num_simulations=300, expansion_threshold=2, mix_lambda=1.0
            ),
            rng=seed,
        ),
    ]


@pytest.mark.parametrize(
    ("diagram", "answer"), [(CAPTURE, "C3"), (SAVE, "C3")], ids=["capture", "save"]
)
def test_rollout_searches_find_the_tactic(diagram: str, answer: str) -> None:
    board = parse_board(diagram, to_play=goboard.WHITE, komi=0.5)
    want = from_gtp(answer, 5)
    assert board.is_legal(want)
    for seed in (1, 2):
        for s in _searches(board, seed):
            result = s.search()
            assert result.move == want, (type(s).__name__, seed, result.visits)
            assert result.q[want] == np.nanmax(result.q)


def _play_match(size: int, games: int, simulations: int, seed: int) -> list[float]:
    """UCT (Black in even games, White in odd ones) against a random player, all games
    stepped together through one batched search. Returns UCT's score per game."""
    rng = np.random.default_rng(seed)
    boards = [goboard.Board(size, komi=0.5) for _ in range(games)]
    uct = UCT(boards, UCTConfig(num_simulations=simulations), rng=seed)
    uct_colour = [goboard.BLACK if g % 2 == 0 else goboard.WHITE for g in range(games)]
    limit = 3 * size * size
    for _ in range(limit):
        live = [g for g in range(games) if not boards[g].is_over]
        if not live:
            break
        mine = [g for g in live if boards[g].to_play == uct_colour[g]]
        moves = {}
        if mine:
            for g, result in zip(mine, uct.run(games=mine), strict=True):
                moves[g] = result.move
        for g in live:
            move = moves[g] if g in moves else random_move(boards[g], rng)
            boards[g].play(move)
            if not boards[g].is_over:
                uct.advance(move, g)
    return [boards[g].score() * uct_colour[g] for g in range(games)]


def test_uct_beats_random_play_on_5x5() -> None:
    scores = _play_match(5, games=10, simulations=200, seed=7)
    assert sum(s > 0 for s in scores) >= 9, scores


def test_uct_beats_random_play_on_9x9() -> None:
    scores = _play_match(9, games=2, simulations=200, seed=8)
    assert all(s > 0 for s in scores), scores
