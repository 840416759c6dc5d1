"""The GTP 2 core commands: administration, board setup, moves, undo, showboard.

Also the move generation shared by ``genmove``, ``reg_genmove``,
``kgs-genmove_cleanup`` and the ``*-genmove_analyze`` commands (:func:`generate`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

import goboard
import search
from goboard import coords, text
from goboard.rules import MAX_KOMI, check_komi

from .. import resign
from .commands_game import seki_stones
from .engine import Context, Engine, Handler
from .protocol import (
    GtpError,
    parse_colour,
    parse_float,
    parse_int,
    parse_vertex,
)

__all__ = ["COMMANDS", "generate", "play_generated"]


def _nargs(args: list[str], low: int, high: int | None = None) -> None:
    high = low if high is None else high
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise GtpError(f"expected {want} argument(s), got {len(args)}")


def protocol_version(e: Engine, args: list[str], ctx: Context) -> str:
    return "2"


def name(e: Engine, args: list[str], ctx: Context) -> str:
    return e.name


def version(e: Engine, args: list[str], ctx: Context) -> str:
    return e.version


def known_command(e: Engine, args: list[str], ctx: Context) -> str:
    _nargs(args, 1)
    return "true" if args[0] in e.commands else "false"


def list_commands(e: Engine, args: list[str], ctx: Context) -> str:
    return "\n".join(sorted(e.commands))


def quit_(e: Engine, args: list[str], ctx: Context) -> str:
    e.quit_requested = True
    return ""


def boardsize(e: Engine, args: list[str], ctx: Context) -> str:
    _nargs(args, 1)
    word = args[0]
    if word.isdigit() and word.isascii() and len(word) > 6:
        raise GtpError("unacceptable size")
    size = parse_int(word, "board size", -(10**6), 10**6)
    if not goboard.MIN_SIZE <= size <= goboard.MAX_SIZE:
        raise GtpError("unacceptable size")
    e.player = e.player_for(size)
    e.reset(size)
    return ""


def clear_board(e: Engine, args: list[str], ctx: Context) -> str:
    e.reset()
    return ""


def komi(e: Engine, args: list[str], ctx: Context) -> str:
    _nargs(args, 1)
    value = check_komi(parse_float(args[0], "komi", -MAX_KOMI, MAX_KOMI))
    e.komi = value
    e.board.komi = value
    return ""


def play(e: Engine, args: list[str], ctx: Context) -> str:
    _nargs(args, 2)
    colour = parse_colour(args[0])
    point = parse_vertex(args[1], e.size)
    try:
        e.play(colour, point)
    except goboard.IllegalMoveError as exc:
        raise GtpError(f"illegal move ({exc.reason})") from None
    return ""


def undo(e: Engine, args: list[str], ctx: Context) -> str:
    if not e.moves:
        raise GtpError("cannot undo")
    e.set_position(e.setup, e.moves[:-1])
    return ""


def showboard(e: Engine, args: list[str], ctx: Context) -> str:
    b = e.board
    black, white = b.captures
    info = f"{'Black' if b.to_play == goboard.BLACK else 'White'} to play"
    info += f", komi {e.komi:g}, captures B {black} W {white}"
    return "\n" + text.render(b) + "\n" + info


def generate(
    e: Engine,
    colour: int,
    ctx: Context,
    *,
    on_result: Callable[[search.SearchResult], None] | None = None,
    every_seconds: float | None = None,
    cleanup: bool = False,
    account: bool = True,
    filters: Sequence[search.MoveFilter] = (),
) -> tuple[str, int | None, search.SearchResult]:
    """Search a move for ``colour``: (GTP answer, point or None for resign, the
    search result)."""
    board = e.board_for(colour)
    budget = e.time.budget(colour, e.size, board.move_number)
    start = time.monotonic()
    result = e.player.genmove(
        board,
        time_budget=budget,
        on_result=on_result,
        every_seconds=every_seconds,
        filters=filters,
    )
    if account:  # reg_genmove is no move of the game: the clock does not run
        e.time.spent(colour, time.monotonic() - start)
    if not cleanup and _resigns(e, board, colour, result, account):
        return "resign", None, result
    move = int(result.move)
    pass_point = e.size * e.size
    if not board.is_legal(move):
        legal = board.legal_moves()
        move = legal[0] if legal else pass_point
    if cleanup and move == pass_point:
        move = _cleanup_move(e, board, colour, result.visits)
    elif e.settle_before_pass and move == pass_point:
        move = _settling_move(e, board, colour, result.visits)
    return coords.to_gtp(move, e.size), move, result


def play_generated(e: Engine, colour: int, move: int) -> None:
    """Play the move a genmove chose; with ``--ponder``, :func:`serve` then thinks
    on in the opponent's turn."""
    e.play(colour, move)
    e.ponder_pending = e.ponders


def _resigns(
    e: Engine,
    board: goboard.Board,
    colour: int,
    result: search.SearchResult,
    account: bool,
) -> bool:
    """Whether ``colour`` resigns after ``result`` (:mod:`alphago.resign`'s rule at
    ``e.resign_below``); counts the low turn when ``account`` (a move of the game)."""
    if e.resign_below is None:
        return False
    resigns, turns = resign.judge(e.resign_below, board, result, e.low_turns[colour])
    if account:
        e.low_turns[colour] = turns
    return resigns


def _settling_move(
    e: Engine, board: goboard.Board, colour: int, visits: NDArray[np.int64]
) -> int:
    """Instead of passing, for GUIs that count territory themselves: capture dead
    stones first, then fill neutral points (empty regions bordering both colours)
    where the new stone keeps two liberties; pass when the board is settled."""
    pass_point = e.size * e.size
    move = _cleanup_move(e, board, colour, visits)
    if move != pass_point:
        return move
    neutral = board.ownership().reshape(-1) == 0
    stones = board.stones().reshape(-1)
    fills = []
    for m in board.legal_moves()[:-1]:
        if stones[m] != 0 or not neutral[m] or board.is_true_eye(m, colour):
            continue
        after = board.copy()
        after.play(m)
        if after.liberties(m) >= 2:
            fills.append(m)
    if not fills:
        return pass_point
    return max(fills, key=lambda m: (int(visits[m]), -m))


def _cleanup_move(
    e: Engine, board: goboard.Board, colour: int, visits: NDArray[np.int64]
) -> int:
    """Instead of passing: a non-pass move while the opponent has dead stones (seki
    stones are not dead: playing into a seki's shared liberty is self-atari)."""
    pass_point = e.size * e.size
    own = e.player.ownership(board).reshape(-1)
    stones = board.stones().reshape(-1)
    dead = (stones == -colour) & (own * -colour < -e.dead_threshold)
    if dead.any():
        dead[seki_stones(e)] = False
    if not dead.any():
        return pass_point
    legal = [m for m in board.legal_moves() if m != pass_point]
    safe = [m for m in legal if own[m] * colour > 0] or legal
    if not safe:
        return pass_point
    return max(safe, key=lambda m: (int(visits[m]), -m))


def _genmove(e: Engine, args: list[str], ctx: Context, *, commit: bool) -> str:
    _nargs(args, 1)
    colour = parse_colour(args[0])
    answer, move, _ = generate(e, colour, ctx, account=commit)
    if commit and move is not None:
        play_generated(e, colour, move)
    return answer


def genmove(e: Engine, args: list[str], ctx: Context) -> str:
    return _genmove(e, args, ctx, commit=True)


def reg_genmove(e: Engine, args: list[str], ctx: Context) -> str:
    return _genmove(e, args, ctx, commit=False)


def genmove_cleanup(e: Engine, args: list[str], ctx: Context) -> str:
    _nargs(args, 1)
    colour = parse_colour(args[0])
    answer, move, _ = generate(e, colour, ctx, cleanup=True)
    if move is not None:
        play_generated(e, colour, move)
    return answer


COMMANDS: dict[str, Handler] = {
    "protocol_version": protocol_version,
    "name": name,
    "version": version,
    "known_command": known_command,
    "list_commands": list_commands,
    "quit": quit_,
    "boardsize": boardsize,
    "clear_board": clear_board,
    "komi": komi,
    "play": play,
    "undo": undo,
    "showboard": showboard,
    "genmove": genmove,
    "reg_genmove": reg_genmove,
    "kgs-genmove_cleanup": genmove_cleanup,
}
