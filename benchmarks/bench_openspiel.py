"""goboard against OpenSpiel's Go (``pyspiel``), measured in the same run.

Skipped when pyspiel is not installed (``pip install open-spiel``).

Python loop (``test_python_loop``): the same loop code (``gameloops``) on both
libraries: legal moves as a list with pass last, a uniformly random non-pass move (pass
only when forced), from the empty board until the game is over or OpenSpiel's
``max_game_length`` (2 N^2 moves). goboard runs with ``Rules(ko="simple",
suicide=False)``, the legality rules of OpenSpiel's Go as read from its source
(open_spiel/games/go/go_board.cc ``GoBoard::IsLegalMove``: occupied points, the
simple-ko point and suicide are illegal; go.cc: a repeated position ends the game as a
draw, and the game ends after two passes or ``max_game_length`` moves). Differences that
remain: goboard's ``play`` validates the move, pyspiel's ``apply_action`` does not; the
two games are different random games (the libraries number points from opposite edges),
so compare stones/s, not seconds per call.

Rollouts in C/C++ (``test_rollouts``): ``goboard.playouts`` against OpenSpiel's
``RandomRolloutEvaluator``. pyspiel does not expose ``Evaluate`` to Python, so its
rollouts run through ``MCTSBot.step`` with 2 simulations (``MCTSBot::MCTSearch`` calls
``Evaluate`` once per simulation: the root, then one child); each ``Evaluate`` plays
``ROLLOUTS`` rollouts, so a call plays 2 * ROLLOUTS rollouts plus a negligible tree.
The policies differ: OpenSpiel's rollout picks uniformly among all legal actions,
pass and own-eye filling included, and stops at two passes, a repeated position or
``max_game_length``; goboard's never fills its own true eyes and passes only when
forced. Rollout lengths are not reported by pyspiel, so its stones per rollout are the
mean over ``LENGTH_GAMES`` Python replays of its policy (``openspiel_rollout_lengths``):
OpenSpiel's stones/s here is an estimate (a few per cent), goboard's is exact.
"""

from __future__ import annotations

import pytest
from gameloops import goboard_game, openspiel_game, openspiel_rollout_lengths

import goboard

pyspiel = pytest.importorskip("pyspiel")

KOMI = 7.5
SEED = 11
SIZES = [9, 19]
# Rollouts per Evaluate (2 per call) and goboard playouts per call: a few ms per call.
ROLLOUTS = {9: 8, 19: 2}
PLAYOUTS = {9: 128, 19: 32}
LENGTH_GAMES = {9: 400, 19: 100}
SIMPLE_KO = goboard.Rules(ko="simple", suicide=False)

pytestmark = pytest.mark.benchmark(group="openspiel")


def load_game(size):
    return pyspiel.load_game("go", {"board_size": size, "komi": KOMI})


def count(result):
    moves, stones = result
    return {"stones": stones, "moves": moves}


def goboard_loop(size, seed, max_moves):
    return goboard_game(goboard.Board(size, KOMI, SIMPLE_KO), seed, max_moves)


def openspiel_loop(game, seed):
    return openspiel_game(game.new_initial_state(), seed)


@pytest.mark.parametrize("lib", ["goboard", "openspiel"])
@pytest.mark.parametrize("size", SIZES)
def test_python_loop(bench, size, lib):
    game = load_game(size)
    max_moves = game.max_game_length()
    assert max_moves == 2 * size * size
    if lib == "goboard":
        counts = bench.seeded(
            lambda seed: goboard_loop(size, seed, max_moves), count, SEED
        )
    else:
        counts = bench.seeded(lambda seed: openspiel_loop(game, seed), count, SEED)
    assert 0 < counts["stones"] <= counts["moves"] <= max_moves
    bench.rates(**counts)


@pytest.fixture(scope="module")
def rollout_lengths():
    """size -> mean (moves, stones) of an OpenSpiel random rollout from the start."""
    return {
        size: openspiel_rollout_lengths(load_game(size), LENGTH_GAMES[size], SEED)
        for size in SIZES
    }


def openspiel_rollouts(game, rollouts, seed):
    evaluator = pyspiel.RandomRolloutEvaluator(rollouts, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 2, 64, False, seed, False)
    return bot.step(game.new_initial_state())


@pytest.mark.parametrize("lib", ["goboard", "openspiel"])
@pytest.mark.parametrize("size", SIZES)
def test_rollouts(bench, size, lib, rollout_lengths):
    if lib == "goboard":
        board = goboard.Board(size, KOMI)
        n = PLAYOUTS[size]
        counts = bench.seeded(
            lambda seed: goboard.playouts(board, n, seed),
            lambda result: {"stones": int(result[1].sum()), "rollouts": n},
            SEED,
        )
        bench.rates(**counts)
    else:
        game = load_game(size)
        n = 2 * ROLLOUTS[size]
        bench.seeded(
            lambda seed: openspiel_rollouts(game, ROLLOUTS[size], seed),
            lambda action: {},
            SEED,
        )
        _, stones = rollout_lengths[size]
        bench.benchmark.extra_info["stones_per_rollout_estimated"] = stones
        bench.rates(stones=n * stones, rollouts=n)
