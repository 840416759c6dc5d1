"""Matches between GTP engines: a subprocess GTP client, a refereed game loop, Elo.

``alphago eval`` is a thin layer over :func:`run_match`; :mod:`alphago.match.human`
is the terminal game of ``alphago play``.
"""

from .game import GameOutcome, play_game
from .gtp_client import (
    EngineDied,
    EngineFailure,
    EngineStopped,
    EngineTimeout,
    GTPClient,
    GTPError,
)
from .records import save_outcome_sgf
from .runner import GAME_FIELD, EngineSetupError, MatchGame, MatchResult, run_match
from .stats import EloEstimate, elo_difference, elo_estimate

__all__ = [
    "GAME_FIELD",
    "EloEstimate",
    "EngineDied",
    "EngineFailure",
    "EngineSetupError",
    "EngineStopped",
    "EngineTimeout",
    "GTPClient",
    "GTPError",
    "GameOutcome",
    "MatchGame",
    "MatchResult",
    "elo_difference",
    "elo_estimate",
    "play_game",
    "run_match",
    "save_outcome_sgf",
]
