"""Game outcomes as SGF records (through :mod:`alphago.sgf`, written atomically)."""

from __future__ import annotations

import os

import goboard
from goboard.coords import to_gtp

from .game import GameOutcome
from .settle import Scoring

__all__ = ["save_outcome_sgf"]


def save_outcome_sgf(
    outcome: GameOutcome,
    path: str | os.PathLike[str],
    rules: str = "chinese",
    scoring: Scoring | None = None,
) -> None:
    """Write a game's moves, players, komi and result to ``path`` as SGF.

    The game comment (``GC``) says how the game ended and was counted: the scoring,
    who settled the dead stones and which they were. The file appears whole or not at
    all (``alphago.sgf.save_sgf`` writes a temporary file and renames it). An
    unfinished game (empty ``result``) gets no result.
    """
    from alphago.sgf import GameRecord, save_sgf

    notes = [f"ended: {outcome.reason}"] if outcome.reason else []
    if scoring is not None:
        notes.append(f"scoring: {scoring.describe()}")
    if outcome.settled:
        dead = " ".join(to_gtp(p, outcome.size) for p in outcome.dead) or "none"
        notes.append(f"dead stones ({outcome.settled}): {dead}")

    record = GameRecord(
        size=outcome.size,
        komi=outcome.komi,
        moves=list(outcome.moves),
        setup={},
        result=outcome.result or None,
        players={
            goboard.BLACK: outcome.names.get(goboard.BLACK, ""),
            goboard.WHITE: outcome.names.get(goboard.WHITE, ""),
        },
        rules=rules,
        comment="\n".join(notes) or None,
    )
    save_sgf(record, path)
