"""The Python-level random-game loop a user would write on top of goboard.

``legal = board.legal_moves()``, a uniformly random non-pass point (pass only when it
is the only legal move), ``board.play(move)``, until the game is over or 2 N^2 moves
(OpenSpiel's default ``max_game_length``; random play that may fill its own eyes
seldom ends by itself). Loop and random pick: ``gameloops.goboard_game``.

Two rule sets: ``Rules(ko="simple", suicide=False)``, the legality rules of OpenSpiel's
Go (``GoBoard::IsLegalMove``: occupied, the simple-ko point and suicide are illegal; a
repeated position ends its game as a draw instead), for a like-for-like comparison with
``bench_openspiel``; and the default Tromp-Taylor rules (positional superko, so every
candidate is also checked against the game's position history; multi-stone suicide
allowed). The timed call includes ``Board(...)`` (about a microsecond). Each call plays
a new game (``bench.seeded``: a repeated game would be learnt by the branch predictor).
"""

from __future__ import annotations

import pytest
from gameloops import goboard_game

import goboard

SEED = 11
RULES = {"simple-ko": goboard.Rules(ko="simple", suicide=False), "tromp-taylor": None}

pytestmark = pytest.mark.benchmark(group="python-loop")


def play_game(size, rules, seed):
    board = goboard.Board(size) if rules is None else goboard.Board(size, rules=rules)
    return goboard_game(board, seed, 2 * size * size)


def count(result):
    moves, stones = result
    return {"stones": stones, "moves": moves}


@pytest.mark.parametrize("rules", list(RULES))
@pytest.mark.parametrize("size", [9, 19])
def test_python_loop(bench, size, rules):
    counts = bench.seeded(lambda seed: play_game(size, RULES[rules], seed), count, SEED)
    assert 0 < counts["stones"] <= counts["moves"] <= 2 * size * size
    bench.rates(**counts)
