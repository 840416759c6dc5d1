"""Pinned searches with the deterministic fake evaluator (golden files), and the first
simulations worked out by hand.

The golden numbers live in ``tests/data/search_golden.json``. After an intended change
of the search, regenerate them with ``GOBOARD_REGEN_GOLDEN=1 pytest
tests/test_search_golden.py`` and review the diff. The cases use neither rollouts nor
noise, so they depend only on the rules, the agz17 planes and the search itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from search_helpers import FakeEvaluator, masked_priors, recorded

import goboard
from search import MCTS, PUCT, AlphaGo2016, AlphaGo2016Config, SearchConfig

GOLDEN = Path(__file__).resolve().parent / "data" / "search_golden.json"
# 9x9, a few moves in (points row * 9 + col).
MIDGAME = [40, 30, 50, 32, 20, 42, 60, 24]


def _board(size: int, moves: list[int]) -> goboard.Board:
    board = goboard.Board(size, komi=7.5)
    for move in moves:
        board.play(move)
    return board


CASES: dict[str, Callable[[], MCTS]] = {
    "puct_5x5": lambda: PUCT(
        FakeEvaluator(), _board(5, []), SearchConfig(num_simulations=64), rng=0
    ),
    "puct_5x5_virtual_loss": lambda: PUCT(
        FakeEvaluator(),
        _board(5, []),
        SearchConfig(num_simulations=64, leaves_per_batch=4, virtual_loss=2),
        rng=0,
    ),
    "puct_9x9_midgame": lambda: PUCT(
        FakeEvaluator(),
        _board(9, MIDGAME),
        SearchConfig(num_simulations=100, c_puct=2.0, fpu_reduction=0.1),
        rng=0,
    ),
    "ag2016_5x5_threshold3": lambda: AlphaGo2016(
        FakeEvaluator(),
        _board(5, [12]),
        AlphaGo2016Config(num_simulations=64, expansion_threshold=3, mix_lambda=0.0),
        rng=0,
    ),
}


def _summary(s: MCTS) -> dict[str, Any]:
    result = s.search()
    s.check()
    return {
        "visits": result.visits.tolist(),
        "q": [None if math.isnan(x) else round(float(x), 6) for x in result.q],
        "value": round(result.value, 6),
        "move": result.move,
        "pv": result.pv,
        "nodes": int(s.tree.num_nodes[0]),
    }


def _generate() -> dict[str, Any]:
    return {name: _summary(make()) for name, make in CASES.items()}


def test_golden_searches() -> None:
    golden = recorded(GOLDEN, "GOBOARD_REGEN_GOLDEN", _generate)
    assert sorted(golden) == sorted(CASES)
    for name, make in CASES.items():
        got, want = _summary(make()), golden[name]
        assert got["visits"] == want["visits"], name
        assert got["move"] == want["move"] and got["pv"] == want["pv"], name
        assert got["nodes"] == want["nodes"], name
        assert got["value"] == pytest.approx(want["value"], abs=1e-6), name
        q = [np.nan if x is None else x for x in want["q"]]
        np.testing.assert_allclose(
            np.array([np.nan if x is None else x for x in got["q"]]), q, atol=1e-6
        )


def test_golden_sanity() -> None:
    golden = json.loads(GOLDEN.read_text())
    for name, case in golden.items():
        sims = 100 if "9x9" in name else 64
        assert sum(case["visits"]) == sims, name
        assert case["move"] == int(np.argmax(case["visits"])), name
        assert case["pv"][0] == case["move"], name


def test_first_simulations_by_hand() -> None:
    # The first two simulations of "puct_5x5", step by step (c_puct 1.5, FPU 0.25).
    board = _board(5, [])
    prior, v0 = masked_priors(board)  # root evaluation: one visit, value v0
    # Simulation 1: every child is unvisited, so each scores
    # FPU + U = (v0 - 0.25) + 1.5 * P * sqrt(1) / (1 + 0): the largest prior wins,
    # the lowest index among equals.
    first = int(np.argmax(prior))
    after_first = board.copy()
    after_first.play(first)
    _, v1 = masked_priors(after_first)
    # Back-up: the child holds -v1 for Black (v1 is White's view); the root's mean for
    # Black is (v0 + (-v1)) / 2 over its two visits.
    q1 = -v1
    root_q = (v0 - v1) / 2
    # Simulation 2: the visited child scores q1 + 1.5 * P * sqrt(2) / 2, the others
    # (root_q - 0.25) + 1.5 * P * sqrt(2).
    scores = {
        a: (root_q - 0.25) + 1.5 * float(prior[a]) * math.sqrt(2)
        for a in range(26)
        if prior[a] > 0 and a != first
    }
    scores[first] = q1 + 1.5 * float(prior[first]) * math.sqrt(2) / 2
    second = max(sorted(scores), key=lambda a: scores[a])

    seen: list[np.ndarray] = []
    sums: list[float] = []
    s = PUCT(FakeEvaluator(), board, SearchConfig(num_simulations=3), rng=0)

    def watch(results: list[Any]) -> None:
        seen.append(results[0].visits.copy())
        sums.append(float(s.tree.value_sums[0, 0]))

    s.search(callback=watch, every=1)
    expected_1 = np.zeros(26, dtype=np.int64)
    expected_1[first] = 1
    np.testing.assert_array_equal(seen[0], expected_1)
    expected_2 = expected_1.copy()
    expected_2[second] += 1
    np.testing.assert_array_equal(seen[1], expected_2)
    # The root stores values from its chooser's (White's) view: -(v0 + q1).
    assert sums[0] == pytest.approx(-(v0 + q1))
    # The golden case starts the same way.
    golden = json.loads(GOLDEN.read_text())["puct_5x5"]
    assert golden["visits"][first] >= 1
