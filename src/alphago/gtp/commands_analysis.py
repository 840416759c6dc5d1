"""GTP commands for analysis GUIs (Lizzie, Sabaki, KaTrain, GoGui).

``lz-analyze`` / ``kata-analyze`` send ``=`` at once, then a report line every
``interval`` centiseconds while the search runs, and end with an empty line when the
next command arrives (under ``serve``) or when the search ends (``Engine.handle``).
Under ``serve`` the search runs until the next command (pondering: the tree is reused
and bounded by ``--analysis-memory``), or to ``--analysis-visits``; once it stops the
stream repeats the final report every interval. ``*-genmove_analyze`` stream the
same way during a ``genmove`` and end with ``play <vertex>``. Formats: :mod:`.analysis`.

A Gumbel player (``--search gumbel``) analyses beyond a move's budget in rounds of
that budget over one tree (:mod:`alphago.player_rounds`: sequential halving needs
its budget in advance); its candidates lead with the move it would play.
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

import goboard
import search

from ..player import Candidate, candidates_from_result
from ..score_estimate import move_scores, searched_lead
from .analysis import AnalyzeArgs, format_kata, format_lz, parse_analyze_args
from .commands import generate, play_generated
from .engine import Context, Engine, Handler

__all__ = ["COMMANDS"]

GOGUI_COMMANDS = [
    "string/Final score/final_score",
    "plist/Dead stones/final_status_list dead",
    "dboard/Ownership/alphago-ownership",
    "none/Show board/showboard",
]


def _describe(e: Engine, result: search.SearchResult) -> list[Candidate]:
    describe = getattr(e.player, "candidates", None)
    if callable(describe):
        found: list[Candidate] = describe(result)
        return found
    return candidates_from_result(result)


class _Reporter:
    """Formats and writes report lines for one analysis command."""

    def __init__(
        self, e: Engine, ctx: Context, a: AnalyzeArgs, kata: bool, board: goboard.Board
    ) -> None:
        self.e, self.ctx, self.args, self.kata = e, ctx, a, kata
        self.scores = move_scores(board, e.player)
        self.ownership: NDArray[np.float64] | None = None
        self.last = time.monotonic()  # when the latest line went out (or the start)
        if kata and a.ownership:
            self.ownership = e.player.ownership(board) * board.to_play

    def __call__(self, result: search.SearchResult) -> None:
        cands = _describe(self.e, result)
        size = self.e.size
        if self.kata:

            def scores(move: int, winrate: float) -> tuple[float, float]:
                return searched_lead(self.scores, result, move, winrate)

            line = format_kata(cands, size, self.args, scores, self.ownership)
        else:
            line = format_lz(cands, size, self.args)
        if line:
            self.ctx.write(line + "\n")
        self.last = time.monotonic()


def _analysis_budget(e: Engine, ctx: Context) -> int | None:
    """Simulations of an analysis: ``--analysis-visits`` if set; else, in a GUI
    session, until the next command (the tree's capacity bounds it); else (one-shot
    ``Engine.handle``) the player's own budget."""
    if e.analysis_visits is not None:
        return e.analysis_visits
    if not ctx.wait:
        return None
    capacity = getattr(e.player, "tree_capacity", None)
    return int(capacity()) if callable(capacity) else None


def _analyze(e: Engine, args: list[str], ctx: Context, *, kata: bool) -> str:
    a = parse_analyze_args(args, kata, e.size)
    colour = e.board.to_play if a.colour is None else a.colour
    board = e.board_for(colour)
    every = a.interval / 100.0 if a.interval > 0 else None
    report = _Reporter(e, ctx, a, kata, board)
    ctx.begin()
    result = e.player.genmove(
        board,
        stop=ctx.stop,
        on_result=report if every is not None else None,
        every_seconds=every,
        simulations=_analysis_budget(e, ctx),
        filters=a.filters,
        early_stop=False,  # an analysis reports on its whole budget
    )
    if ctx.wait and every is not None:
        # Keep the GUI's cadence: the final numbers go out at the next tick, not
        # straight after the last periodic line (unless the next command cuts in).
        ctx.stop.wait(max(0.0, report.last + every - time.monotonic()))
    report(result)
    if ctx.wait:
        # The search is done (budget or tree full); the GUI still shows "pondering",
        # so the stream goes on with the final numbers until the next command.
        while not ctx.stop.wait(every if every is not None else 3600.0):
            report(result)
    return ""


def _genmove_analyze(e: Engine, args: list[str], ctx: Context, *, kata: bool) -> str:
    a = parse_analyze_args(args, kata, e.size)
    # The colour may be left out (KataGo's [player (optional)]): the side to move.
    colour = e.board.to_play if a.colour is None else a.colour
    board = e.board_for(colour)
    every = a.interval / 100.0 if a.interval > 0 else None
    report = _Reporter(e, ctx, a, kata, board)
    ctx.begin()
    answer, move, result = generate(
        e,
        colour,
        ctx,
        on_result=report if every else None,
        every_seconds=every,
        filters=a.filters,
    )
    report(result)
    if move is not None:
        play_generated(e, colour, move)
    return f"play {answer}\n"


def lz_analyze(e: Engine, args: list[str], ctx: Context) -> str:
    return _analyze(e, args, ctx, kata=False)


def kata_analyze(e: Engine, args: list[str], ctx: Context) -> str:
    return _analyze(e, args, ctx, kata=True)


def lz_genmove_analyze(e: Engine, args: list[str], ctx: Context) -> str:
    return _genmove_analyze(e, args, ctx, kata=False)


def kata_genmove_analyze(e: Engine, args: list[str], ctx: Context) -> str:
    return _genmove_analyze(e, args, ctx, kata=True)


def gogui_analyze_commands(e: Engine, args: list[str], ctx: Context) -> str:
    return "\n".join(GOGUI_COMMANDS)


def ownership_dboard(e: Engine, args: list[str], ctx: Context) -> str:
    """The ownership estimate (Black's view) as a GoGui dboard, top row first."""
    own = e.player.ownership(e.board_for(e.board.to_play))
    rows = [" ".join(f"{v:.2f}" for v in row) for row in own]
    return "\n" + "\n".join(rows)


COMMANDS: dict[str, Handler] = {
    "lz-analyze": lz_analyze,
    "kata-analyze": kata_analyze,
    "lz-genmove_analyze": lz_genmove_analyze,
    "kata-genmove_analyze": kata_genmove_analyze,
    "gogui-analyze_commands": gogui_analyze_commands,
    "alphago-ownership": ownership_dboard,
}
