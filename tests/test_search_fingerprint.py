"""Fingerprints of fixed-seed searches as self-play and GTP run them, pinned so that
speed work on the search cannot change a result unnoticed.

Each case plays a few moves: search, choose a move (sampled from the visits for the
first moves, as self-play does), play it and ``advance`` (tree reuse), or ``set_root``
when a game ends. Every search result is compared with the recorded one: visit counts,
the chosen move and the principal variation exactly, Q values and the root value to
1e-12 (the search's float arithmetic is meant to be reproduced operation for
operation; the tolerance only absorbs a platform's last-bit differences in the
Dirichlet sampler's log/exp), and the number of tree nodes.

The numbers live in ``tests/data/search_fingerprint.json``. Besides the search they
depend on the rules, the agz17 planes (the fake evaluator reads them) and numpy's
``Generator`` streams (Dirichlet noise, move sampling). After an intended change of any
of these, regenerate with ``GOBOARD_REGEN_FINGERPRINT=1 pytest
tests/test_search_fingerprint.py`` and review the diff.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from search_helpers import FakeEvaluator, recorded

import goboard
from search import (
    MCTS,
    PUCT,
    UCT,
    AlphaGo2016,
    AlphaGo2016Config,
    SearchConfig,
    UCTConfig,
    UniformEvaluator,
    choose_move,
    puct_scores,
)

DATA = Path(__file__).resolve().parent / "data" / "search_fingerprint.json"

Make = Callable[[list[goboard.Board]], MCTS]

#: Self-play's search settings (alphago.train.selfplay.SelfPlayConfig's defaults),
#: fewer simulations.
SELFPLAY = SearchConfig(
    num_simulations=48,
    leaves_per_batch=8,
    dirichlet_alpha=0.15,
    dirichlet_fraction=0.25,
)


def _case(
    make: Make,
    games: int,
    moves: int,
    *,
    size: int = 9,
    rules: str = "chinese",
    sampled: int = 2,
) -> Callable[[], list[dict[str, Any]]]:
    """A case: ``moves`` searches of ``games`` games in lock-step from empty boards."""

    def play() -> list[dict[str, Any]]:
        boards = [goboard.Board(size, 7.5, rules) for _ in range(games)]
        engine = make(boards)
        pick = np.random.default_rng(99)
        out: list[dict[str, Any]] = []
        for m in range(moves):
            for g, r in enumerate(engine.run()):
                engine.check(g)
                out.append(
                    {
                        "visits": r.visits.tolist(),
                        "move": r.move,
                        "pv": r.pv,
                        "value": r.value,
                        "q": r.q[r.visits > 0].tolist(),  # NaN elsewhere
                        "nodes": int(engine.tree.num_nodes[g]),
                        "resign": r.resign,
                    }
                )
                move = r.move if m >= sampled else choose_move(r.visits, 1.0, pick)
                boards[g].play(move)
                if boards[g].is_over:
                    boards[g] = goboard.Board(size, 7.5, rules)
                    engine.set_root(boards[g], g)
                else:
                    engine.advance(move, g)
        return out

    return play


CASES: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "selfplay_lockstep": _case(
        lambda b: PUCT(FakeEvaluator(), b, SELFPLAY, np.random.default_rng(7)), 6, 5
    ),
    "selfplay_virtual_loss_3": _case(
        lambda b: PUCT(
            FakeEvaluator(),
            b,
            SearchConfig(
                num_simulations=40,
                leaves_per_batch=4,
                virtual_loss=3,
                dirichlet_alpha=0.3,
                dirichlet_fraction=0.25,
                resign_threshold=-0.3,
            ),
            [3, 4, 5],
        ),
        3,
        4,
        size=7,
    ),
    "gtp_single": _case(
        lambda b: PUCT(
            FakeEvaluator(),
            b[0],
            SearchConfig(num_simulations=150, fpu_reduction=0.1),
            9,
        ),
        1,
        4,
    ),
    "gtp_single_leaf_batches": _case(
        lambda b: PUCT(
            FakeEvaluator(),
            b[0],
            SearchConfig(num_simulations=150, leaves_per_batch=8),
            9,
        ),
        1,
        4,
    ),
    "to_the_end_5x5": _case(
        lambda b: PUCT(
            UniformEvaluator(),
            b,
            SearchConfig(
                num_simulations=60, leaves_per_batch=2, fpu_reduction=0.0, max_nodes=80
            ),
            4,
        ),
        2,
        30,
        size=5,
        rules="tromp-taylor",
        sampled=0,
    ),
    "alphago2016": _case(
        lambda b: AlphaGo2016(
            FakeEvaluator(),
            b,
            AlphaGo2016Config(
                num_simulations=40, leaves_per_batch=4, expansion_threshold=3
            ),
            5,
        ),
        2,
        3,
        size=7,
    ),
    "uct": _case(
        lambda b: UCT(b, UCTConfig(num_simulations=40, leaves_per_batch=2), 5), 2, 3
    ),
}


def test_fingerprints() -> None:
    cases = recorded(
        DATA,
        "GOBOARD_REGEN_FINGERPRINT",
        lambda: {name: play() for name, play in CASES.items()},
    )
    assert sorted(cases) == sorted(CASES)
    for name, play in CASES.items():
        got, want = play(), cases[name]
        assert len(got) == len(want), name
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            where = f"{name}, search {i}"
            for key in ("visits", "move", "pv", "nodes", "resign"):
                assert g[key] == w[key], f"{where}: {key}"
            assert g["value"] == pytest.approx(w["value"], rel=1e-12, abs=1e-12), where
            np.testing.assert_allclose(
                g["q"], w["q"], rtol=1e-12, atol=1e-12, err_msg=where
            )


def test_engine_scores_are_puct_scores_bit_for_bit() -> None:
    """The engine's selection reads statistics it keeps per edge (search.tree); its
    scores must equal ``puct_scores`` on the children's node statistics exactly."""
    boards = [goboard.Board(9, 7.5, "chinese") for _ in range(3)]
    cfg = SearchConfig(
        num_simulations=64, leaves_per_batch=4, c_puct=1.3, fpu_reduction=0.2
    )
    s = PUCT(FakeEvaluator(), boards, cfg, rng=1)
    s.run()
    s.advance(s.run()[1].move, 1)
    s.run()
    t = s.tree
    checked = 0
    for g in range(3):
        used = int(t.num_nodes[g])
        nodes = np.flatnonzero(t.state[g, :used] == 1)  # EXPANDED
        rows = (g * t.stride + nodes).astype(np.int32)
        bases = np.full(rows.size, g * t.stride, dtype=np.int32)
        got = s._scores(rows, bases)
        kids = t.children[g, nodes]
        visits = np.where(kids >= 0, t.visits[g, kids], 0.0)
        sums = np.where(kids >= 0, t.value_sums[g, kids], 0.0)
        parent_visits = t.visits[g, nodes]
        parent_q = t.value_sums[g, nodes] / -parent_visits
        want = puct_scores(
            t.prior[g, nodes], visits, sums, parent_visits, parent_q, 1.3, 0.2
        )
        np.testing.assert_array_equal(got, want)
        checked += nodes.size
    assert checked > 50
