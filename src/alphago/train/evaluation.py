"""Evaluation in the self-play loop: matches against GNU Go, and their log lines.

The loop's in-process matches (gate, UCT baseline) are :mod:`alphago.train.arena`;
GNU Go plays through GTP, so a network is matched against it as ``alphago gtp``
processes refereed by :func:`alphago.match.run_match`. GNU Go captures every dead stone
before it passes (``--capture-all-dead``) and GNU Go as arbiter settles what is left
before the area count: without both, GNU Go passes with our dead stones in its area,
Tromp-Taylor gives them to us, and the figure flatters the net. Both engines take the
game's number as their seed (``{game}``): with one seed, a deterministic engine and
GNU Go would play the same few games over and over.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from .metrics import MetricsLog

__all__ = ["gnugo_match", "log_eval"]


def gnugo_match(
    weights: Path,
    size: int,
    komi: float,
    simulations: int,
    level: int,
    games: int,
    parallel: int = 1,
    sgf_dir: Path | None = None,
) -> tuple[int, int, int]:
    """The network in ``weights`` against GNU Go at ``level``: (wins, losses, ties).

    With ``sgf_dir``, a match that a killed run left there goes on from its finished
    games (the resumed run evaluates the same ``weights``: the evaluation phase runs
    after the decision that may replace them is checkpointed)."""
    from ..data.gendata import gnugo_command
    from ..match import GAME_FIELD, run_match
    from ..match.settle import Scoring

    ours = shlex.join(
        [sys.executable, "-m", "alphago.cli", "gtp", "--size", str(size)]
        + ["--komi", f"{komi:g}", "--weights", str(weights)]
        + ["--simulations", str(simulations), "--threads", "1", "--seed", GAME_FIELD]
    )
    theirs = gnugo_command(level, GAME_FIELD, capture_all_dead=True)
    result = run_match(
        ours,
        theirs,
        games,
        size=size,
        komi=komi,
        parallel=parallel,
        sgf_dir=sgf_dir,
        scoring=Scoring.auto(),
        resume=sgf_dir is not None,
    )
    wins = sum(g.a_points == 1.0 for g in result.games)
    ties = sum(g.a_points == 0.5 for g in result.games)
    return wins, len(result.games) - wins - ties, ties


def log_eval(
    log: MetricsLog, step: int, opponent: str, wins: int, losses: int, ties: int
) -> None:
    """One ``eval`` line: the counts, the win rate (ties half) and the Elo estimate."""
    from ..match.stats import elo_estimate

    games = wins + losses + ties
    elo = elo_estimate(wins, ties, losses)
    log.log(
        "eval",
        step,
        opponent=opponent,
        wins=wins,
        losses=losses,
        ties=ties,
        win_rate=(wins + 0.5 * ties) / max(games, 1),
        elo=elo.elo,
        elo_low=elo.low,
        elo_high=elo.high,
    )
