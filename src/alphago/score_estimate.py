"""Score estimates for analysis: the search tree's average over a network's ownership
head, or random playouts calibrated by the search.

Analysis GUIs want a score for the position and for every candidate move
(``kata-analyze``'s ``scoreLead``, the analysis engine's ``scoreLead``, KaTrain's
points lost), and our networks predict who wins, not always by how much. The sources:

- *The search tree's average* (:func:`searched_lead`): a ``SearchPlayer`` whose
  network has an ownership head (``--ownership-weight``, such as the shipped 9x9 net)
  searches with ``scores=True``, so every evaluation adds the head's ownership summed,
  less komi, to the nodes above it, as values are (KataGo's ``scoreMean``); the
  spread is that of those estimates, each with its own variance ``sum(1 - o^2)``, a
  +-1 outcome of mean ``o`` per point (9 points on an empty 9x9 board, shrinking as
  the head grows sure). On GNU Go games played out to the end it came within 1.6
  points of the final margin at move 40 of 9x9, where the calibrated playouts below
  were 6.9 points off (``scripts/score_check.py``, README "Score estimates"). The
  score head (``--score-weight``) was less accurate than the summed ownership from
  move 20 on, so it is not read. :class:`NetMoveScores` gives the head's ownership
  after each move (``includeMovesOwnership``) and its static reading where the
  search kept no average.
- *Playouts* (:class:`MoveScores`): :data:`SCORE_PLAYOUTS` random playouts (C,
  true-eye rule) from the position after a move give the mean and spread of their
  area scores and the share of playouts each point ended owned by Black. Cheap, and
  each move's own, but random play misjudges fights, so its mean drifts far from the
  real margin until the endgame. *The search*'s winrate knows the fights but not the
  margin. :func:`score_lead` joins them: it reads the final score as normal with
  spread :func:`score_spread` and picks the mean that gives the search's winrate,
  ``spread * Phi^-1(winrate)``: the winrate sets the leader and the size in units of
  the position's uncertainty. The spread is the square root of the empty points
  (what is still to be decided grows like a random walk over the moves left: 9
  points on an empty 9x9 board, 19 on 19x19, so one point of lead is worth about
  4.4% and 2.1% of winrate there), capped by the playouts' own spread, which shrinks
  as the position settles. Random playouts alone spread four times wider (about 40
  points on an empty 9x9 board), which would turn a 45% winrate into a 5-point
  deficit. When the playouts are settled (their spread below the square root of the
  empty points), agree with the search on who leads and see a larger margin (a
  counted endgame), their mean is used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import NDArray

import goboard
import search

if TYPE_CHECKING:
    from .player import Player

__all__ = [
    "SCORE_PLAYOUTS",
    "MoveScores",
    "NetMoveScores",
    "ScoreSource",
    "move_scores",
    "score_lead",
    "searched_lead",
    "score_spread",
]

#: Random playouts behind each score estimate.
SCORE_PLAYOUTS = 64

#: Winrates are clipped to this distance from 0 and 1 before the normal quantile.
_WINRATE_EPS = 0.001
#: Smallest spread (points) the calibration assumes: playouts of a settled position
#: can all end the same, but a winrate away from 0 or 1 still means some doubt.
_MIN_STDEV = 1.0

_NORMAL = NormalDist()


def score_spread(stdev: float, empty: int) -> float:
    """The final score's assumed spread: ``sqrt(empty)`` capped by the playouts'
    ``stdev``, and at least one point."""
    spread = math.sqrt(max(empty, 0))
    if math.isfinite(stdev):
        spread = min(spread, stdev)
    return max(spread, _MIN_STDEV)


def score_lead(mean: float, stdev: float, winrate: float, empty: int) -> float:
    """A score lead consistent with the search's winrate, all from one side's view.

    Args:
        mean: the playouts' mean score (area minus komi) for that side.
        stdev: the playouts' standard deviation (points).
        winrate: the search's winning probability for that side, in [0, 1].
        empty: empty points of the position.

    Returns:
        ``score_spread(stdev, empty) * Phi^-1(winrate)`` (winrate clipped to [0.001,
        0.999]); or ``mean`` where the playouts are settled (``stdev`` below
        ``sqrt(empty)``) and see the same leader with a larger margin.
    """
    if not math.isfinite(winrate):
        return float(mean) if math.isfinite(mean) else 0.0
    w = min(max(winrate, _WINRATE_EPS), 1.0 - _WINRATE_EPS)
    lead = score_spread(stdev, empty) * _NORMAL.inv_cdf(w)
    settled = math.isfinite(stdev) and stdev < math.sqrt(max(empty, 0))
    if settled and math.isfinite(mean) and mean * lead > 0 and abs(mean) > abs(lead):
        return float(mean)
    return float(lead)


class ScoreSource(Protocol):
    """Score leads and ownership after each move of one position (``None``: the
    position itself), from the view of its side to move (ownership: Black's)."""

    def lead(self, move: int | None, winrate: float) -> tuple[float, float]:
        """``(scoreLead, scoreStdev)`` after ``move`` for a search that gives it
        ``winrate``."""
        ...

    def ownership(self, move: int | None) -> NDArray[np.float64]:
        """float64 [N, N] in [-1, 1], Black's view, after ``move``."""
        ...


def _after(board: goboard.Board, move: int | None) -> goboard.Board:
    """``board`` after ``move`` (a copy); ``board`` itself for None or a move that
    is not legal there (the position's own estimate stands for it)."""
    if move is None:
        return board
    child = board.copy()
    try:
        child.play(move)
    except ValueError:
        return board
    return child


class MoveScores:
    """Playout score estimates after each move of one position, computed once per move.

    ``scores(move)`` is ``(mean, stdev)`` of the playouts' final scores from the view
    of the side to move at ``board`` (who plays ``move``); ``ownership(move)`` the share
    of playouts each point ended Black's minus White's, float64 [N, N] in [-1, 1],
    Black's view. A move that is not legal here (and ``None``) stands for the position
    itself.
    """

    def __init__(self, board: goboard.Board, playouts: int = SCORE_PLAYOUTS) -> None:
        self.board, self.playouts = board, playouts
        self.empty = int(np.count_nonzero(board.stones() == 0))
        self.cache: dict[int | None, tuple[float, float, NDArray[np.float64]]] = {}

    def __call__(self, move: int | None) -> tuple[float, float]:
        mean, stdev, _ = self._get(move)
        return mean, stdev

    def lead(self, move: int | None, winrate: float) -> tuple[float, float]:
        """``(score_lead, score_spread)`` after ``move`` (``None``: the position)
        for a search that gives it ``winrate``, from the mover's view: what analyses
        report as ``scoreLead`` and ``scoreStdev``."""
        mean, stdev = self(move)
        empty = self.empty - (move is not None and move != self.board.size**2)
        return score_lead(mean, stdev, winrate, empty), score_spread(stdev, empty)

    def ownership(self, move: int | None) -> NDArray[np.float64]:
        """float64 [N, N], Black's view, after ``move`` (``None``: the position)."""
        return self._get(move)[2]

    def _get(self, move: int | None) -> tuple[float, float, NDArray[np.float64]]:
        if move not in self.cache:
            self.cache[move] = self._estimate(move)
        return self.cache[move]

    def _estimate(self, move: int | None) -> tuple[float, float, NDArray[np.float64]]:
        board, mover = _after(self.board, move), self.board.to_play
        if board.is_over:
            owner = board.ownership().astype(np.float64)
            return float(mover * board.score()), 0.0, owner
        seed = 1 + (board.size**2 + 1 if move is None else move)
        scores, _, owners = goboard.playouts(
            board, self.playouts, seed=seed, ownership=True
        )
        owner = owners.astype(np.float64) / self.playouts
        return float(mover * scores.mean()), float(scores.std()), owner


class NetMoveScores:
    """Score leads read off a network's ownership head after each move of one
    position (module docstring), computed once per move.

    Args:
        board: the position (not modified).
        ownership_of: the head's float64 [N, N] ownership of a board, Black's view
            (``SearchPlayer.ownership``).
    """

    def __init__(
        self,
        board: goboard.Board,
        ownership_of: Callable[[goboard.Board], NDArray[np.float64]],
    ) -> None:
        self.board, self.ownership_of = board, ownership_of
        self.cache: dict[int | None, NDArray[np.float64]] = {}

    def lead(self, move: int | None, winrate: float) -> tuple[float, float]:
        """``(lead, spread)`` from the mover's view; the winrate is not needed: the
        head says by how much, and its sign need not follow the search's."""
        del winrate
        owner = self.ownership(move)
        black_margin = float(owner.sum()) - self.board.komi
        spread = math.sqrt(float(np.sum(1.0 - owner * owner)))
        return self.board.to_play * black_margin, max(spread, _MIN_STDEV)

    def ownership(self, move: int | None) -> NDArray[np.float64]:
        if move not in self.cache:
            board = _after(self.board, move)
            if board.is_over:  # counted as it stands, as MoveScores does
                owner = board.ownership().astype(np.float64)
            else:
                owner = np.asarray(self.ownership_of(board), dtype=np.float64)
            self.cache[move] = owner
        return self.cache[move]


def searched_lead(
    source: ScoreSource,
    result: search.SearchResult,
    move: int | None,
    winrate: float,
) -> tuple[float, float]:
    """``(scoreLead, scoreStdev)`` after ``move`` (None: the root), mover's view:
    the search tree's average (``result.scores``) where the search kept one for that
    move, else ``source``'s estimate."""
    stats = result.scores
    if stats is not None:
        if move is None:
            lead, spread = stats.lead, stats.stdev
        else:
            lead, spread = float(stats.leads[move]), float(stats.stdevs[move])
        if math.isfinite(lead) and math.isfinite(spread):
            return lead, max(spread, _MIN_STDEV)
    return source.lead(move, winrate)


def move_scores(board: goboard.Board, player: Player) -> ScoreSource:
    """The score source for ``player``'s analyses of ``board`` (behind the tree's
    average, :func:`searched_lead`): its network's ownership head where it has one
    (``SearchPlayer.ownership_from_net``), else playouts."""
    if getattr(player, "ownership_from_net", False):
        return NetMoveScores(board, player.ownership)
    return MoveScores(board)
