"""Analysis output for GUIs: Leela Zero's ``lz-analyze`` and KataGo's ``kata-analyze``.

Both print one line per report, made of one ``info`` block per candidate move, most
visited first, and end the stream with an empty line when the next command arrives.

- Leela Zero: ``info move D4 visits 31 winrate 5123 prior 1200 lcb 4870 order 0 pv D4
  Q16``; winrate, prior and lcb are integers, the fraction times 10000.
- KataGo: ``info move D4 visits 31 utility 0.02 winrate 0.51 scoreMean 1.2 scoreStdev
  0 scoreLead 1.2 scoreSelfplay 1.2 prior 0.12 lcb 0.48 utilityLcb -0.04 order 0 pv D4
  Q16``, floats; with ``ownership true`` the line ends with ``ownership`` and N*N values
  in [-1, 1], row by row from the top-left point (A19 on 19x19).

Everything is from the point of view of the side to move. Each move's
``scoreMean``/``scoreLead``/``scoreSelfplay`` and ``scoreStdev`` come from
:func:`alphago.score_estimate.searched_lead`, as in the analysis engine: the margin
the search tree averaged over the network's ownership head where the net has one
(the shipped 9x9 net), else the lead that random playouts after the move, calibrated
by the move's winrate, give (rough, but the move's own, and on the side the winrate
says leads).

Arguments (both commands): ``[colour] [interval] [key value ...]`` with keys
``interval`` (centiseconds), ``minmoves``/``maxmoves`` (how many candidates to list;
``minmoves`` is accepted and ignored), ``ownership true|false`` (kata only;
``pvVisits``, ``rootInfo``, ``ownershipStdev``, ``movesOwnership``, ``pvEdgeVisits``
are accepted and ignored), and any number of ``avoid COLOUR VERTICES DEPTH`` /
``allow COLOUR VERTICES DEPTH`` clauses (vertices comma-separated): for the first
DEPTH moves of every line, COLOUR may not play VERTICES (avoid) or only VERTICES
(allow); see :mod:`search.filters`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from goboard import coords
from search import MoveFilter

from ..player import Candidate
from .protocol import GtpError, parse_colour, parse_int, parse_vertex

__all__ = ["AnalyzeArgs", "format_kata", "format_lz", "parse_analyze_args"]

#: KataGo's true/false options; only ``ownership`` changes our output.
_KATA_FLAGS = (
    "ownership",
    "ownershipstdev",
    "pvvisits",
    "pvedgevisits",
    "rootinfo",
    "movesownership",
)

#: Longest interval accepted (centiseconds): one day.
MAX_INTERVAL = 8_640_000


@dataclass
class AnalyzeArgs:
    """Parsed analysis arguments."""

    colour: int | None = None
    interval: int = 0  # centiseconds; 0: report only at the end of the search
    min_moves: int = 0
    max_moves: int = 0  # 0: no limit
    ownership: bool = False
    filters: list[MoveFilter] = field(default_factory=list)


#: Deepest avoid/allow clause accepted (moves of each line).
MAX_FILTER_DEPTH = 1000


def _parse_filter(words: list[str], allow: bool, size: int) -> MoveFilter:
    """``COLOUR VERTICES DEPTH`` of an avoid/allow clause."""
    colour = parse_colour(words[0])
    vertices = [v for v in words[1].split(",") if v]
    if not vertices:
        raise GtpError("avoid/allow needs at least one vertex")
    moves = tuple(sorted({parse_vertex(v, size) for v in vertices}))
    depth = parse_int(words[2], "avoid/allow depth", 1, MAX_FILTER_DEPTH)
    return MoveFilter(colour, moves, depth, allow)


def parse_analyze_args(args: list[str], kata: bool, size: int = 19) -> AnalyzeArgs:
    """Parse ``[colour] [interval] [key value ...]`` for a size x size board."""
    out = AnalyzeArgs()
    i = 0
    if i < len(args) and args[i].lower() in ("b", "w", "black", "white"):
        out.colour = parse_colour(args[i])
        i += 1
    while i < len(args):
        key = args[i].lower()
        if key.isdigit():  # a bare number is the interval, wherever it stands
            out.interval = parse_int(key, "interval", 0, MAX_INTERVAL)
            i += 1
            continue
        if key in ("avoid", "allow"):
            if i + 3 >= len(args):
                raise GtpError(f"{key} needs a colour, vertices and a depth")
            out.filters.append(_parse_filter(args[i + 1 : i + 4], key == "allow", size))
            i += 4
            continue
        if i + 1 >= len(args):
            raise GtpError(f"{key} needs a value")
        value = args[i + 1]
        if key == "interval":
            out.interval = parse_int(value, "interval", 0, MAX_INTERVAL)
        elif key == "minmoves":
            out.min_moves = parse_int(value, "minmoves", 0, 1000)
        elif key == "maxmoves":
            out.max_moves = parse_int(value, "maxmoves", 0, 1000)
        elif kata and key in _KATA_FLAGS:
            if value.lower() not in ("true", "false"):
                raise GtpError(f"{args[i]} must be true or false, not {value!r}")
            if key == "ownership":
                out.ownership = value.lower() == "true"
        else:
            raise GtpError(f"unknown analysis argument {args[i]!r}")
        i += 2
    return out


def _limit(cands: list[Candidate], args: AnalyzeArgs) -> list[Candidate]:
    return cands[: args.max_moves] if args.max_moves > 0 else cands


def _pv(pv: list[int], size: int) -> str:
    return " ".join(coords.to_gtp(m, size) for m in pv)


def format_lz(cands: list[Candidate], size: int, args: AnalyzeArgs) -> str:
    """One Leela Zero report line (no newline); empty if nothing was visited."""
    parts = []
    for order, c in enumerate(_limit(cands, args)):
        parts.append(
            f"info move {coords.to_gtp(c.move, size)} visits {c.visits}"
            f" winrate {round(c.winrate * 10000)} prior {round(c.prior * 10000)}"
            f" lcb {round(c.lcb * 10000)} order {order} pv {_pv(c.pv, size)}"
        )
    return " ".join(parts)


def format_kata(
    cands: list[Candidate],
    size: int,
    args: AnalyzeArgs,
    scores: Callable[[int, float], tuple[float, float]],
    ownership: NDArray[np.float64] | None,
) -> str:
    """One KataGo report line (no newline). ``scores(move, winrate)`` is the score
    lead and spread after a move that the search gives that winrate
    (:func:`alphago.score_estimate.searched_lead`); it and ``ownership`` are from the
    side to move's view."""
    parts = []
    for order, c in enumerate(_limit(cands, args)):
        utility = 2.0 * c.winrate - 1.0
        mean, spread = scores(c.move, c.winrate)
        parts.append(
            f"info move {coords.to_gtp(c.move, size)} visits {c.visits}"
            f" utility {utility:.6f} winrate {c.winrate:.6f}"
            f" scoreMean {mean:.3f} scoreStdev {spread:.3f} scoreLead {mean:.3f}"
            f" scoreSelfplay {mean:.3f} prior {c.prior:.6f} lcb {c.lcb:.6f}"
            f" utilityLcb {2.0 * c.lcb - 1.0:.6f} order {order} pv {_pv(c.pv, size)}"
        )
    if ownership is not None:
        values = " ".join(f"{v:.4f}" for v in np.asarray(ownership).reshape(-1))
        parts.append(f"ownership {values}")
    return " ".join(parts)
