"""Analysis results as KataGo's response objects.

Everything the search gives is from the side to move's view; :class:`View` turns it
into the query's ``reportAnalysisWinratesAs`` (Black's by default, which is what
KaTrain asks for): winrates, lcb and utilities as ``1 - x`` and scores and ownership
negated where the views differ, as KataGo does.

Per field:

- ``winrate``: the search's mean value mapped to [0, 1]; ``lcb`` a normal
  approximation below it; ``utility`` = 2 winrate - 1 (no score utility).
- ``scoreLead`` (= ``scoreMean`` = ``scoreSelfplay``) and ``scoreStdev``: where the
  network has an ownership head (the shipped 9x9 net), the margin the search tree
  averaged over the head's estimates (``SearchResult.scores``) and their spread;
  else :func:`alphago.score_estimate.score_lead` reads the lead off the move's
  winrate with the spread ``scoreStdev`` (the square root of the empty points, capped
  by random playouts after the move). Never missing (:mod:`alphago.score_estimate`).
- ``pvVisits`` (``includePVVisits``): the visits of each node along ``pv``.
- ``prior``: the network's policy at the root; ``policy``: the raw network policy,
  -1 on illegal points, pass last. UCT has no network: both are uniform over the
  legal moves.
- ``ownership``: the player's estimate (the ownership head, else random playouts);
  ``moveInfos[].ownership``: the same after each move.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import goboard
import search
from goboard import coords

from ..player import Candidate, Player, candidates_from_result
from ..score_estimate import ScoreSource, move_scores, searched_lead
from .query import Job

__all__ = ["View", "analysis_response", "no_results", "policy_of"]

_DIGITS = 6


@dataclass(frozen=True, slots=True)
class View:
    """Whose view to report from: ``sign`` +1 keeps the side to move's values."""

    sign: int

    @classmethod
    def of(cls, perspective: str, to_play: int) -> View:
        if perspective == "BLACK":
            return cls(1 if to_play == goboard.BLACK else -1)
        if perspective == "WHITE":
            return cls(1 if to_play == goboard.WHITE else -1)
        return cls(1)

    def rate(self, x: float) -> float:
        """A probability (winrate, lcb) in this view."""
        return _r(x if self.sign > 0 else 1.0 - x)

    def points(self, x: float) -> float:
        """A score or utility in this view."""
        return _r(self.sign * x)


def _r(x: float) -> float:
    return round(float(x), _DIGITS) if np.isfinite(x) else 0.0


def _flat(values: NDArray[np.float64], sign: float) -> list[float]:
    return [round(float(v), _DIGITS) for v in (sign * values).ravel()]


def policy_of(player: Player, board: goboard.Board) -> list[float]:
    """The raw policy (N*N + 1 values, pass last, -1 where illegal)."""
    legal = board.legal_mask()
    evaluator = getattr(player, "evaluator", None)
    if isinstance(evaluator, search.Evaluator):
        pool = goboard.Pool([board], 1)
        priors, _ = evaluator.evaluate(search.Positions(pool, [0]))
        p = np.asarray(priors[0], dtype=np.float64)
        p = np.where(legal, np.nan_to_num(p, nan=0.0), 0.0)
        total = p.sum()
        p = p / total if total > 0 else legal / max(int(legal.sum()), 1)
    else:
        p = legal / max(int(legal.sum()), 1)
    return [
        round(float(v), _DIGITS) if ok else -1.0 for v, ok in zip(p, legal, strict=True)
    ]


def sym_hash(board: goboard.Board) -> str:
    """KataGo's ``symHash``: like ``thisHash`` (stones, side to move, ko point) but
    the same for positions that are rotations or reflections of each other."""
    grid = board.stones().astype(np.int8)
    if board.ko_point is not None:
        grid[divmod(board.ko_point, board.size)] = 2
    views = [np.rot90(grid, k) for k in range(4)]
    canonical = min(v.tobytes() for view in views for v in (view, view.T))
    digest = hashlib.blake2b(canonical + bytes([board.to_play & 0xFF]), digest_size=8)
    return digest.hexdigest().upper()


def candidates_of(player: Player, result: search.SearchResult) -> list[Candidate]:
    """The player's root moves (priors and variations when it can say)."""
    describe = getattr(player, "candidates", None)
    if callable(describe):
        found: list[Candidate] = describe(result)
        return found
    return candidates_from_result(result)


def no_results(job: Job) -> dict[str, object]:
    """The reply to a job terminated before it searched anything."""
    return {
        "id": job.query_id,
        "turnNumber": job.turn,
        "isDuringSearch": False,
        "noResults": True,
    }


@dataclass
class Extras:
    """What a job's reports share: score estimates, ownership and policy, made once."""

    scores: ScoreSource
    ownership: list[float] | None = None
    policy: list[float] | None = None

    @classmethod
    def of(cls, board: goboard.Board, player: Player) -> Extras:
        return cls(move_scores(board, player))


def _move_info(
    c: Candidate,
    order: int,
    job: Job,
    extras: Extras,
    view: View,
    result: search.SearchResult,
) -> dict[str, object]:
    board = job.board
    lead, spread = searched_lead(extras.scores, result, c.move, c.winrate)
    pv = c.pv
    if job.pv_visits:  # one count per pv move: the line ends where none is known
        pv = pv[: len(c.pv_visits)]
    info: dict[str, object] = {
        "move": coords.to_gtp(c.move, board.size),
        "visits": int(c.visits),
        "winrate": view.rate(c.winrate),
        "scoreLead": view.points(lead),
        "scoreMean": view.points(lead),
        "scoreSelfplay": view.points(lead),
        "scoreStdev": _r(spread),
        "prior": _r(c.prior),
        "utility": view.points(2.0 * c.winrate - 1.0),
        "lcb": view.rate(c.lcb),
        "utilityLcb": view.points(2.0 * c.lcb - 1.0),
        "order": order,
        "pv": [coords.to_gtp(m, board.size) for m in pv],
    }
    if job.pv_visits:
        info["pvVisits"] = c.pv_visits[: len(pv)]
    if job.moves_ownership:
        own = extras.scores.ownership(c.move)
        info["ownership"] = _flat(own, view.sign * board.to_play)
    return info


def analysis_response(
    job: Job,
    result: search.SearchResult,
    candidates: Sequence[Candidate],
    extras: Extras,
    *,
    during: bool,
) -> dict[str, object]:
    """One response for ``job`` from a (partial or final) search result."""
    board = job.board
    view = View.of(job.perspective, board.to_play)
    visits = int(result.visits.sum())
    if visits == 0 and not during:
        return no_results(job)
    value = float(result.value) if np.isfinite(result.value) else 0.0
    winrate = min(max((value + 1.0) / 2.0, 0.0), 1.0)
    lead, spread = searched_lead(extras.scores, result, None, winrate)
    root: dict[str, object] = {
        "winrate": view.rate(winrate),
        "scoreLead": view.points(lead),
        "scoreSelfplay": view.points(lead),
        "scoreStdev": _r(spread),
        "utility": view.points(2.0 * winrate - 1.0),
        "visits": visits,
        "currentPlayer": "B" if board.to_play == goboard.BLACK else "W",
        "thisHash": f"{board.situation_hash:016X}",
        "symHash": sym_hash(board),
    }
    out: dict[str, object] = {
        "id": job.query_id,
        "isDuringSearch": during,
        "turnNumber": job.turn,
        "moveInfos": [
            _move_info(c, i, job, extras, view, result)
            for i, c in enumerate(candidates)
        ],
        "rootInfo": root,
    }
    if extras.ownership is not None:
        out["ownership"] = [
            round(view.sign * board.to_play * v, _DIGITS) for v in extras.ownership
        ]
    if extras.policy is not None:
        out["policy"] = extras.policy
    return out
