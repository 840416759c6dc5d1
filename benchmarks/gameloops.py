"""The Python-level random-game loops a user would write, for goboard and OpenSpiel.

Both loops run the same policy with the same code shape: ask for the legal moves (a
list with pass last, in both libraries), pick a uniformly random non-pass move, pass
only when pass is the only legal move, stop when the game is over or after
``max_moves`` moves.

The random pick is ``legal[int(random() * k)]`` with ``random.Random(seed).random``
bound once. Measured on a 19x19 middle game (a list of ~300 ints) it costs ~0.09 us,
against ~0.16 us for ``legal[rng.randrange(k)]``, ~0.45 us for
``rng.choice(legal[:-1])`` (a slice copy plus a Python-level ``_randbelow``), ~0.8 us
for numpy's ``Generator.integers(k)`` (the per-call overhead of a scalar draw) and ~4 us
for ``Generator.choice`` on an array; ``legal_moves()`` itself is ~2 us there, so the
pick is a few per cent of the loop. The bias of ``int(random() * k)`` is below
``k / 2**53``.
"""

from __future__ import annotations

import random
from typing import Any


def goboard_game(board: Any, seed: int, max_moves: int) -> tuple[int, int]:
    """Plays ``board`` (a goboard.Board) on in place; returns (moves, stones) played."""
    rnd = random.Random(seed).random
    moves = stones = 0
    while not board.is_over and moves < max_moves:
        legal = board.legal_moves()
        k = len(legal) - 1  # pass is last; k == 0 picks legal[0], the pass
        board.play(legal[int(rnd() * k)])
        moves += 1
        stones += k > 0
    return moves, stones


def openspiel_game(state: Any, seed: int) -> tuple[int, int]:
    """Plays a pyspiel Go state on in place until it is terminal (two passes, a
    repeated position or the game's max_game_length); returns (moves, stones)."""
    rnd = random.Random(seed).random
    moves = stones = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        k = len(legal) - 1  # pass is last; k == 0 picks legal[0], the pass
        state.apply_action(legal[int(rnd() * k)])
        moves += 1
        stones += k > 0
    return moves, stones


def openspiel_rollout_lengths(game: Any, games: int, seed: int) -> tuple[float, float]:
    """Mean (moves, stones) of OpenSpiel's ``RandomRolloutEvaluator`` rollout policy
    (uniform over ``legal_actions()``, pass included, until terminal) from the empty
    board, replayed in Python: pyspiel does not report its rollouts' lengths."""
    rng = random.Random(seed)
    pass_action = game.num_distinct_actions() - 1
    total_moves = total_stones = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            total_moves += 1
            total_stones += action != pass_action
    return total_moves / games, total_stones / games
