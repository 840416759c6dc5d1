"""Game outcomes as SGF records (through :mod:`alphago.sgf`, written atomically)."""

from __future__ import annotations

import os

import goboard

from .game import GameOutcome

__all__ = ["save_outcome_sgf"]


def save_outcome_sgf(
    outcome: GameOutcome, path: str | os.PathLike[str], rules: str = "chinese"
) -> None:
    """Write a game's moves, players, komi and result to ``path`` as SGF.

    The file appears whole or not at all (``alphago.sgf.save_sgf`` writes a temporary
    file and renames it). An unfinished game (empty ``result``) gets no result.
    """
    from alphago.sgf import GameRecord, save_sgf

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
    )
    save_sgf(record, path)
