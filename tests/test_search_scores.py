"""Final-score estimates averaged over the search tree (``scores=True``).

The reference recomputes every root child's mean margin from the finished tree: each
node's own evaluations (its visits less its children's) times its static margin, seen
from the root's side to move, over the child's whole subtree."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import goboard
import search
from search.tree import TERMINAL

SIZE = 5
KOMI = 2.5


class MarginEvaluator:
    """Uniform priors, a value and an area difference that depend on the stones (so
    every node has its own margin), and a variance that differs between nodes."""

    def __init__(self) -> None:
        self.calls = 0

    @staticmethod
    def area(board: goboard.Board) -> float:
        stones = board.stones()
        own = int(np.count_nonzero(stones == board.to_play))
        theirs = int(np.count_nonzero(stones == -board.to_play))
        return 2.0 * (own - theirs) + 0.25 * (board.move_number % 3)

    @staticmethod
    def variance(board: goboard.Board) -> float:
        return 1.0 + board.move_number % 2

    def _boards(self, positions: search.Positions) -> list[goboard.Board]:
        return [positions.pool.board(int(s)) for s in positions.slots]

    def evaluate(self, positions: search.Positions) -> tuple[np.ndarray, np.ndarray]:
        legal = positions.legal_masks().astype(np.float32)
        priors = legal / legal.sum(axis=1, keepdims=True)
        boards = self._boards(positions)
        values = np.array([np.tanh(self.area(b) / 8.0) for b in boards], np.float32)
        return priors, values

    def evaluate_scored(
        self, positions: search.Positions
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        self.calls += 1
        priors, values = self.evaluate(positions)
        boards = self._boards(positions)
        areas = np.array([self.area(b) for b in boards], np.float32)
        variances = np.array([self.variance(b) for b in boards], np.float32)
        return priors, values, areas, variances


def _static(board: goboard.Board, terminal: bool) -> tuple[float, float]:
    """A node's margin for its side to move and second moment, as the search takes
    them: the counted score at a finished game, else the evaluator's less komi."""
    if terminal:
        counted = board.score() * board.to_play
        return counted, counted * counted
    margin = MarginEvaluator.area(board) - board.komi * board.to_play
    return margin, MarginEvaluator.variance(board) + margin * margin


@dataclass
class Expected:
    """The reference's view of one tree (the fields of ``search.ScoreStats``)."""

    leads: np.ndarray
    stdevs: np.ndarray
    lead: float
    stdev: float


def reference(mcts: search.MCTS, g: int = 0) -> Expected:
    """Each root child's mean margin and spread, and the root's, from the root's side
    to move, over every evaluation in the finished tree."""
    t = mcts.tree
    actions = t.num_actions
    sums, squares, counts = np.zeros(actions), np.zeros(actions), np.zeros(actions)
    total = total_sq = weight = 0.0
    # (node, root action it descends from or -1, sign of its view for the root)
    stack = [(0, -1, 1.0)]
    while stack:
        node, first, sign = stack.pop()
        kids = t.children[g, node]
        own = t.visits[g, node] - t.visits[g, kids[kids >= 0]].sum()
        board = mcts.pool.board(g * t.capacity + node)
        margin, second = _static(board, t.state[g, node] == TERMINAL)
        total += own * sign * margin
        total_sq += own * second
        weight += own
        if first >= 0:
            sums[first] += own * sign * margin
            squares[first] += own * second
            counts[first] += own
        for a in np.flatnonzero(kids >= 0):
            stack.append((int(kids[a]), first if first >= 0 else int(a), -sign))
    with np.errstate(invalid="ignore", divide="ignore"):
        leads = np.where(counts > 0, sums / counts, np.nan)
        stdevs = np.sqrt(np.maximum(squares / counts - leads**2, 0.0))
    lead = total / weight
    return Expected(leads, stdevs, lead, math.sqrt(max(total_sq / weight - lead**2, 0)))


def assert_matches(mcts: search.MCTS, result: search.SearchResult, g: int = 0) -> None:
    """``result.scores`` is the reference's, for every visited root move and the
    root; the tree's margin counts match its visits."""
    assert result.scores is not None
    want = reference(mcts, g)
    seen = result.visits > 0
    np.testing.assert_allclose(result.scores.leads[seen], want.leads[seen], atol=1e-9)
    np.testing.assert_allclose(result.scores.stdevs[seen], want.stdevs[seen], atol=1e-6)
    assert np.isnan(result.scores.leads[~seen]).all()
    assert result.scores.lead == pytest.approx(want.lead, abs=1e-9)
    assert result.scores.stdev == pytest.approx(want.stdev, abs=1e-6)
    mcts.check(g)


def _board() -> goboard.Board:
    board = goboard.Board(SIZE, KOMI, "chinese")
    for v in ("C3", "B2", "D4"):
        board.play_gtp(v)
    return board  # White to move


@pytest.mark.parametrize("leaves", [1, 4])
def test_puct_margins_are_the_subtree_means(leaves: int) -> None:
    config = search.SearchConfig(num_simulations=120, leaves_per_batch=leaves)
    mcts = search.PUCT(MarginEvaluator(), _board(), config, rng=1, scores=True)
    result = mcts.search()
    assert_matches(mcts, result)
    assert result.scores is not None and result.scores.stdev > 0


def test_games_searched_together_keep_their_own_komi_and_margins() -> None:
    """Three trees in one batch, each with its komi; eight leaves a step bring
    collisions, and a game one pass from its end brings counted leaves."""
    ended = goboard.Board(SIZE, 0.5, "chinese")
    ended.play_gtp("C3")
    ended.play_gtp("pass")  # Black's pass ends it: a counted leaf
    other = goboard.Board(SIZE, -3.0, "chinese")
    boards = [_board(), ended, other]

    class PassFirst(MarginEvaluator):  # the search reads the passes often
        def evaluate(
            self, positions: search.Positions
        ) -> tuple[np.ndarray, np.ndarray]:
            priors, values = super().evaluate(positions)
            priors[:, -1] += 0.5
            return priors, values

    config = search.SearchConfig(num_simulations=96, leaves_per_batch=8)
    mcts = search.PUCT(PassFirst(), boards, config, rng=8, scores=True)
    results = mcts.run()
    for g, result in enumerate(results):
        assert_matches(mcts, result, g)
    assert results[1].visits[SIZE * SIZE] > 0


def test_walks_that_collide_add_no_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """One move's prior far above the others sends a step's walks down one line, so
    some meet a leaf another walk is evaluating: they add visits' virtual loss back
    and nothing to the margins."""

    class Narrow(MarginEvaluator):
        def evaluate(
            self, positions: search.Positions
        ) -> tuple[np.ndarray, np.ndarray]:
            priors, values = super().evaluate(positions)
            priors *= 0.01
            priors[np.arange(len(priors)), priors.argmax(axis=1)] += 1.0
            return priors, values

    collisions = []
    backup = search._step.backup

    def counting(tree: Any, walks: Any, *args: Any) -> None:
        collisions.append(int(np.sum(walks.kind == search._step.COLLISION)))
        backup(tree, walks, *args)

    monkeypatch.setattr(search._step, "backup", counting)
    config = search.SearchConfig(num_simulations=200, leaves_per_batch=8)
    mcts = search.PUCT(Narrow(), _board(), config, rng=8, scores=True)
    assert_matches(mcts, mcts.search())
    assert sum(collisions) > 0


def test_margins_follow_the_tree_when_it_is_reused() -> None:
    config = search.SearchConfig(num_simulations=80)
    mcts = search.PUCT(MarginEvaluator(), _board(), config, rng=2, scores=True)
    first = mcts.search()
    mcts.advance(first.move)
    assert_matches(mcts, mcts.search())
    mcts.set_root(goboard.Board(SIZE, 0.5, "chinese"))  # another komi
    assert_matches(mcts, mcts.search())


def test_the_spread_adds_each_evaluations_variance() -> None:
    """With a single child visit the stdev is that evaluation's own variance."""
    config = search.SearchConfig(num_simulations=1)
    mcts = search.PUCT(MarginEvaluator(), _board(), config, rng=3, scores=True)
    result = mcts.search()
    assert result.scores is not None
    (move,) = np.flatnonzero(result.visits)
    assert result.visits[move] == 1
    child = mcts.root_board()
    child.play(int(move))
    assert result.scores.stdevs[move] == pytest.approx(
        math.sqrt(MarginEvaluator.variance(child))
    )


def test_alphago2016_and_gumbel_keep_margins_too() -> None:
    board = _board()
    alphago = search.AlphaGo2016(
        MarginEvaluator(),
        board,
        search.AlphaGo2016Config(num_simulations=60, expansion_threshold=2),
        rng=4,
        scores=True,
    )
    assert_matches(alphago, alphago.search())
    gumbel = search.Gumbel(
        MarginEvaluator(),
        board,
        search.GumbelConfig(num_simulations=32, considered_actions=4),
        rng=5,
        scores=True,
    )
    assert_matches(gumbel, gumbel.search())


def test_keeping_scores_changes_no_move() -> None:
    config = search.SearchConfig(num_simulations=96, leaves_per_batch=4)
    plain = search.PUCT(MarginEvaluator(), _board(), config, rng=6).search()
    scored = search.PUCT(
        MarginEvaluator(), _board(), config, rng=6, scores=True
    ).search()
    assert plain.scores is None and scored.scores is not None
    assert np.array_equal(plain.visits, scored.visits)
    assert np.array_equal(plain.q, scored.q, equal_nan=True)
    assert (plain.move, plain.value) == (scored.move, scored.value)


def test_a_finished_game_in_the_tree_counts_its_score() -> None:
    """After White's pass, Black's pass ends the game: that child is counted."""
    board = goboard.Board(SIZE, KOMI, "chinese")
    board.play_gtp("C3")
    board.play_gtp("pass")

    class PassFirst(MarginEvaluator):
        def evaluate(
            self, positions: search.Positions
        ) -> tuple[np.ndarray, np.ndarray]:
            priors, values = super().evaluate(positions)
            priors[:, -1] += 1.0  # pass looks best everywhere
            return priors, values

    config = search.SearchConfig(num_simulations=64)
    mcts = search.PUCT(PassFirst(), board, config, rng=7, scores=True)
    result = mcts.search()
    assert result.scores is not None
    passed = SIZE * SIZE
    assert result.visits[passed] > 0  # a leaf the rules count: Black owns the board
    assert result.scores.leads[passed] == pytest.approx(25 - KOMI)
    assert result.scores.stdevs[passed] == 0.0
    assert_matches(mcts, result)


def test_bad_scored_evaluators_are_refused() -> None:
    with pytest.raises(TypeError, match="evaluate_scored"):
        search.PUCT(search.UniformEvaluator(), _board(), scores=True)

    class Bad(MarginEvaluator):
        def __init__(self, variance: float) -> None:
            super().__init__()
            self.bad = variance

        def evaluate_scored(
            self, positions: search.Positions
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            p, v, a, var = super().evaluate_scored(positions)
            return p, v, a, np.full_like(var, self.bad)

    config = search.SearchConfig(num_simulations=4)
    for variance in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="variance"):
            search.PUCT(Bad(variance), _board(), config, scores=True).search()
