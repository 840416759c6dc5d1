"""avoid / allow move filters inside the search (search.filters)."""

from __future__ import annotations

import numpy as np
import pytest

import goboard
import search
from search.filters import filter_legal

CENTRE = (30, 31, 32, 39, 40, 41, 48, 49, 50)


def test_filter_legal_by_colour_and_depth() -> None:
    legal = np.ones((4, 5), dtype=np.bool_)
    depth = np.array([0, 1, 2, 0])
    to_play = np.array([1, -1, 1, -1], dtype=np.int8)
    out = filter_legal(legal, depth, to_play, [search.MoveFilter(1, (0, 1), 2)])
    assert out[0].tolist() == [False, False, True, True, True]  # black, depth 0
    assert out[1].all() and out[3].all()  # white
    assert out[2].all()  # black, but depth 2 is past until_depth 2
    allow = filter_legal(legal, depth, to_play, [search.MoveFilter(-1, (2,), 1, True)])
    assert allow[3].tolist() == [False, False, True, False, False]
    assert allow[1].all()  # depth 1 >= until_depth 1
    assert legal.all()  # the input is not modified


def test_nothing_left_means_pass() -> None:
    legal = np.array([[True, False, True]])
    out = filter_legal(
        legal,
        np.zeros(1, np.int64),
        np.ones(1, np.int8),
        [search.MoveFilter(1, (0,), 1)],
    )
    assert out.tolist() == [[False, False, True]]
    out = filter_legal(
        legal,
        np.zeros(1, np.int64),
        np.ones(1, np.int8),
        [search.MoveFilter(1, (1,), 1, allow=True)],  # only an illegal point allowed
    )
    assert out.tolist() == [[False, False, True]]


@pytest.mark.parametrize("kind", ["puct", "uct"])
def test_searches_never_visit_filtered_moves(kind: str) -> None:
    board = goboard.Board(9)
    if kind == "puct":
        cfg = search.SearchConfig(num_simulations=300)
        mcts: search.MCTS = search.PUCT(search.UniformEvaluator(), board, cfg, 1)
    else:
        mcts = search.UCT(board, search.UCTConfig(num_simulations=300), 1)
    mcts.set_move_filters([search.MoveFilter(1, CENTRE, 1)])
    result = mcts.search()
    assert result.visits.sum() > 0 and result.visits[list(CENTRE)].sum() == 0
    assert result.move not in CENTRE
    # Masked at the root only: White's replies below it may take the centre.
    t = mcts.tree
    assert np.isinf(t.prior[0, 0, list(CENTRE)]).all()
    below = [int(c) for c in t.children[0, 0] if c > 0 and t.state[0, c] == 1]
    assert below and all(np.isfinite(t.prior[0, n, list(CENTRE)]).all() for n in below)
    # Until depth 3 for White: no white move to 40 anywhere in the first 3 plies.
    mcts.set_move_filters([search.MoveFilter(-1, (40,), 3)])
    mcts.search()
    for node in range(1, int(t.num_nodes[0])):
        depth, up = 0, node
        while t.parent[0, up] >= 0:
            depth, up = depth + 1, int(t.parent[0, up])
        if depth == 1 and t.children[0, node, 40] > 0:
            pytest.fail("white played 40 at depth 2")
    mcts.set_move_filters([])
    mcts.search()
    assert np.isfinite(t.prior[0, 0, list(CENTRE)]).all()  # lifted: a fresh tree


def test_filters_are_checked() -> None:
    with pytest.raises(ValueError):
        search.MoveFilter(0, (1,), 1)
    with pytest.raises(ValueError):
        search.MoveFilter(1, (1,), 0)
    with pytest.raises(ValueError):
        search.MoveFilter(1, (-1,), 1)
    mcts = search.UCT(goboard.Board(5), search.UCTConfig(num_simulations=10), 1)
    with pytest.raises(ValueError):
        mcts.set_move_filters([search.MoveFilter(1, (26,), 1)])
    with pytest.raises(TypeError):
        mcts.set_move_filters(["avoid"])  # type: ignore[list-item]
