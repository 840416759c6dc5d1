"""A game between a human at a terminal and a :class:`alphago.player.Player`.

The board is redrawn (``goboard.text.render``) before every move. The human types GTP
vertices (``D4``, case-insensitive) or one of the commands below; anything our rules
reject is explained and asked again, never played:

========  ===========================================================
pass      pass (two passes in a row end the game)
resign    give up: the engine wins
undo      take back your last move and the engine's reply
quit      stop now (also end of input); the game is recorded unfinished
help      list the commands
========  ===========================================================

The game is refereed by ``goboard.Board`` under Chinese rules and counted by the
Tromp-Taylor area score when both sides pass.
"""

from __future__ import annotations

from typing import TextIO

import goboard
from goboard.coords import from_gtp, to_gtp
from goboard.text import render

from ..player import Player
from ..resign import check_threshold, judge
from .game import GameOutcome

__all__ = ["HELP", "play_human"]

HELP = "commands: a vertex such as D4, pass, resign, undo, quit, help"
_NAMES = {goboard.BLACK: "Black (X)", goboard.WHITE: "White (O)"}


def _replay(size: int, komi: float, moves: list[tuple[int, int]]) -> goboard.Board:
    board = goboard.Board(size, komi, "chinese")
    for _, point in moves:
        board.play(point)
    return board


def play_human(
    player: Player,
    *,
    size: int = 9,
    komi: float = 7.5,
    human: int = goboard.BLACK,
    stdin: TextIO,
    stdout: TextIO,
    time_budget: float | None = None,
    resign_below: float | None = None,
) -> GameOutcome:
    """Play one game on the terminal; returns what happened (SGF-ready).

    Args:
        player: The engine.
        size, komi: The board.
        human: The human's colour, ``goboard.BLACK`` or ``goboard.WHITE``.
        stdin, stdout: Where the human types and reads.
        time_budget: Seconds per engine move (None: its simulation count decides).
        resign_below: The engine resigns once its searches rate its winning chances
            below this by :mod:`alphago.resign`'s rule (None: it never resigns, unless
            its own search configuration says so).

    Returns:
        The outcome; ``result`` is ``""`` when the human quit before the end.
    """
    if human not in (goboard.BLACK, goboard.WHITE):
        raise ValueError("human must be goboard.BLACK or goboard.WHITE")
    check_threshold(resign_below)
    out = GameOutcome(size=size, komi=komi, result="")
    out.names = {human: "human", -human: player.name}
    board = goboard.Board(size, komi, "chinese")
    player.new_game()
    low_turns = 0  # the engine's low searches in a row (alphago.resign)

    def say(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    say(f"You are {_NAMES[human]}. {HELP}")
    while not board.is_over:
        say("\n" + render(board))
        colour = board.to_play
        if colour != human:
            result = player.genmove(board, time_budget=time_budget)
            resigns = result.resign
            if resign_below is not None:
                by_rule, low_turns = judge(resign_below, board, result, low_turns)
                resigns = resigns or by_rule
            if resigns:
                board.resign()
                say(f"{player.name} resigns")
                break
            board.play(result.move)
            out.moves.append((colour, result.move))
            say(f"{player.name} plays {to_gtp(result.move, size)}")
            continue
        stdout.write(f"{_NAMES[colour]} to play, move {board.move_number + 1}> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            say("")
            line = "quit"
        word = line.strip().lower()
        if word in ("quit", "exit", "q"):
            say("game abandoned")
            out.reason = "quit"
            return out
        if word in ("help", "?", ""):
            say(HELP)
        elif word == "resign":
            board.resign()
        elif word == "undo":
            mine = [i for i, (c, _) in enumerate(out.moves) if c == human]
            if not mine:
                say("nothing to undo")
                continue
            del out.moves[mine[-1] :]
            board = _replay(size, komi, out.moves)
            player.new_game()
            low_turns = 0
        else:
            try:
                point = from_gtp(word, size)
                board.play(point)
            except goboard.IllegalMoveError as exc:
                say(f"illegal move {word.upper()}: {exc.reason}; try again")
                continue
            except ValueError as exc:
                say(f"not a move: {exc}; {HELP}")
                continue
            out.moves.append((colour, point))
            if point == size * size:
                say(f"{_NAMES[colour]} passes")
    say("\n" + render(board))
    out.result = board.result()
    if board.resigned is not None:
        out.reason = "resignation"
        out.winner = -board.resigned
    else:
        out.score = board.score()
        out.reason = "two passes"
        out.winner = 0 if out.score == 0 else (1 if out.score > 0 else -1)
    say(f"result: {out.result}")
    return out
