"""GTP commands for analysis GUIs (Lizzie, Sabaki, KaTrain, GoGui).

``lz-analyze`` / ``kata-analyze`` send ``=`` at once, then a report line every
``interval`` centiseconds while the search runs, and end with an empty line when the
next command arrives (under ``serve``) or when the search ends (``Engine.handle``). The
search is the player's own (its simulation limit); once it is done the stream idles
until it is stopped. ``*-genmove_analyze`` stream the same way during a ``genmove``
and end with ``play <vertex>``. Formats: :mod:`.analysis`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import goboard
import search

from ..player import Candidate, candidates_from_result
from .analysis import AnalyzeArgs, format_kata, format_lz, parse_analyze_args
from .commands import generate
from .engine import Context, Engine, Handler
from .protocol import GtpError

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
        self.score = 0.0
        self.ownership: NDArray[np.float64] | None = None
        if kata:
            own = e.player.ownership(board)  # Black's view
            mover = board.to_play
            self.score = float(mover * (own.sum() - board.komi))
            if a.ownership:
                self.ownership = own * mover

    def __call__(self, result: search.SearchResult) -> None:
        cands = _describe(self.e, result)
        size = self.e.size
        if self.kata:
            line = format_kata(cands, size, self.args, self.score, self.ownership)
        else:
            line = format_lz(cands, size, self.args)
        if line:
            self.ctx.write(line + "\n")


def _analyze(e: Engine, args: list[str], ctx: Context, *, kata: bool) -> str:
    a = parse_analyze_args(args, kata)
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
    )
    report(result)
    if ctx.wait:
        ctx.stop.wait()
    return ""


def _genmove_analyze(e: Engine, args: list[str], ctx: Context, *, kata: bool) -> str:
    a = parse_analyze_args(args, kata)
    if a.colour is None:
        raise GtpError("missing color")
    board = e.board_for(a.colour)
    every = a.interval / 100.0 if a.interval > 0 else None
    report = _Reporter(e, ctx, a, kata, board)
    ctx.begin()
    answer, move, result = generate(
        e, a.colour, ctx, on_result=report if every else None, every_seconds=every
    )
    report(result)
    if move is not None:
        e.play(a.colour, move)
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
