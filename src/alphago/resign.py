"""When an engine gives a game up: the rule ``alphago gtp`` and ``alphago play`` share.

A search rates the game lost when its winrate, ``(1 + value) / 2`` from the root's side
to move, is below the threshold both at the root and for the move it chose (a root
that is low only because the best move was not visited enough keeps playing). One
low search is too noisy to give a game away on, so a colour resigns only after
:data:`RESIGN_TURNS` of its moves in a row were rated low, and never in the first
quarter of the board's points in moves, where values are least sure.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line imports this module before anything heavy
    import goboard
    import search

__all__ = ["RESIGN_TURNS", "check_threshold", "judge", "winrate_argument"]

#: Searches in a row that must rate a colour's game lost before it resigns (KataGo's
#: default ``resignConsecTurns``).
RESIGN_TURNS = 3


def check_threshold(below: float | None) -> float | None:
    """``below`` if it is None or a winrate in (0, 0.5); raises ValueError otherwise."""
    if below is not None and not 0.0 < below < 0.5:
        raise ValueError(f"resign_below must be in (0, 0.5), not {below}")
    return below


def judge(
    below: float, board: goboard.Board, result: search.SearchResult, low_turns: int
) -> tuple[bool, int]:
    """(resign now, the colour's low searches in a row counting this one), for the
    search ``result`` of the side to move of ``board``, which had ``low_turns`` low
    searches in a row before it."""
    best = max(result.value, result.best_q)  # both must be low
    turns = low_turns + 1 if (1.0 + best) / 2.0 < below else 0
    late = board.move_number >= board.size * board.size // 4
    return late and turns >= RESIGN_TURNS, turns


def winrate_argument(text: str) -> float:
    """An argparse type: a winrate in (0, 0.5) for ``--resign-below``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be in (0, 0.5), not {text}")
    return value
