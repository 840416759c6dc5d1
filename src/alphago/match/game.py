"""One refereed game between two GTP engines.

The referee is our own rules core: every move an engine sends is played on a
``goboard.Board`` (Chinese rules: situational superko, no suicide) before the opponent
hears of it. The game ends on two consecutive passes, a resignation, a forfeit or the
move cap, and is scored by our area count (stones + empty regions reaching only one
colour, minus komi) after the dead stones are settled as the match's
:class:`~alphago.match.settle.Scoring` says (an arbiter, the players' agreement, or
none: plain Tromp-Taylor), whatever the engines think.

An engine forfeits (loses, result ``B+F`` / ``W+F`` as in SGF) when it

- sends a move our rules reject (occupied, suicide, superko, not a vertex),
- crashes, does not answer within the move timeout, or answers ``genmove`` with an
  error,
- refuses a setup command (``boardsize``, ``clear_board``, ``komi``) or a move our
  rules accepted (its rules disagree with the referee's).

An engine (or the arbiter) stopped from outside, by Ctrl-C or ``kill``
(:class:`~alphago.match.gtp_client.EngineStopped`), forfeits nothing: the game has no
result, and :func:`play_game` raises that exception, so that a match being stopped
records no game its stop cut short.

Engines are fresh processes per game and always closed at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import goboard
from goboard.coords import from_gtp, to_gtp

from .gtp_client import EngineFailure, EngineStopped, GTPClient, GTPError
from .settle import Scoring, score_without, settle

__all__ = ["GameOutcome", "play_game", "setup_failure"]

_GTP_COLOUR = {goboard.BLACK: "b", goboard.WHITE: "w"}
_SGF_COLOUR = {goboard.BLACK: "B", goboard.WHITE: "W"}


@dataclass(slots=True)
class GameOutcome:
    """What happened in one game (colours: ``goboard.BLACK`` = 1, ``WHITE`` = -1).

    Attributes:
        size, komi: The board.
        winner: BLACK, WHITE, or 0 for a tie (an even area count with integer komi).
        result: SGF/GTP style: ``"B+3.5"``, ``"W+R"``, ``"B+F"`` (forfeit), ``"0"``.
        reason: How it ended: ``"two passes"``, ``"resignation"``, ``"move cap"`` or
            the forfeit's cause naming the engine's colour.
        moves: ``(colour, point)`` in order; pass is ``size * size``.
        score: Tromp-Taylor score from Black's view (None if the game was not
            counted: resignation or forfeit).
        names: Engine names by colour (GTP ``name``, else the program name).
        think_time: Seconds spent in answered ``genmove`` calls, by colour.
        genmoves: ``genmove`` calls answered, by colour.
        stderr: The tail of each engine's stderr, by colour.
        dead: Stones removed as dead before the count.
        settled: How the dead stones were decided (see ``Settlement.how``), or why
            the count fell back to Tromp-Taylor; empty when the game was not counted.
    """

    size: int
    komi: float
    winner: int = 0
    result: str = "0"
    reason: str = ""
    moves: list[tuple[int, int]] = field(default_factory=list)
    score: float | None = None
    names: dict[int, str] = field(default_factory=dict)
    think_time: dict[int, float] = field(
        default_factory=lambda: {goboard.BLACK: 0.0, goboard.WHITE: 0.0}
    )
    genmoves: dict[int, int] = field(
        default_factory=lambda: {goboard.BLACK: 0, goboard.WHITE: 0}
    )
    stderr: dict[int, str] = field(default_factory=dict)
    dead: tuple[int, ...] = ()
    settled: str = ""


class _Forfeit(Exception):
    def __init__(self, colour: int, why: str) -> None:
        super().__init__(why)
        self.colour = colour


def play_game(
    black: str,
    white: str,
    *,
    size: int = 9,
    komi: float = 7.5,
    max_moves: int | None = None,
    move_timeout: float = 60.0,
    setup_timeout: float = 30.0,
    scoring: Scoring | None = None,
    on_engine: Callable[[GTPClient], None] | None = None,
) -> GameOutcome:
    """Start both engines, referee one game, close both engines.

    Args:
        black, white: Engine command lines.
        size, komi: The board (rules: Chinese, scored by Tromp-Taylor area).
        max_moves: Moves (passes included) before the game is stopped and counted;
            default ``3 * size * size``.
        move_timeout: Seconds an engine may think on one move.
        setup_timeout: Seconds for the engine to start and answer setup commands.
        scoring: How dead stones are settled (default: plain Tromp-Taylor).
        on_engine: Called with each engine as it starts, so that a caller can
            :meth:`~alphago.match.gtp_client.GTPClient.kill` it from another thread
            to end the game at once (the killed engine forfeits).

    Returns:
        The outcome; engine failures never raise, they forfeit the game.

    Raises:
        EngineStopped: An engine or the arbiter was stopped from outside.
    """
    cap = 3 * size * size if max_moves is None else max_moves
    out = GameOutcome(size=size, komi=komi)
    board = goboard.Board(size, komi, "chinese")
    engines: dict[int, GTPClient] = {}
    try:
        for colour, command in ((goboard.BLACK, black), (goboard.WHITE, white)):
            out.names[colour] = command.split()[0] if command.split() else "?"
            try:
                engines[colour] = GTPClient(command, timeout=setup_timeout)
            except EngineFailure as exc:
                raise _Forfeit(colour, str(exc)) from exc
            if on_engine is not None:
                on_engine(engines[colour])
        for colour, engine in engines.items():
            out.names[colour] = _setup(engine, colour, size, komi)
        _play(board, engines, out, cap, move_timeout)
        if out.reason in ("two passes", "move cap"):
            _count(board, engines, out, scoring or Scoring())
    except _Forfeit as forfeit:
        if isinstance(forfeit.__cause__, EngineStopped):
            raise forfeit.__cause__ from None
        winner = -forfeit.colour
        out.winner = winner
        out.result = f"{_SGF_COLOUR[winner]}+F"
        out.reason = f"{_SGF_COLOUR[forfeit.colour]} forfeits: {forfeit}"
    finally:
        for colour, engine in engines.items():
            out.stderr[colour] = engine.close()
    return out


def setup_failure(
    command: str, *, size: int, komi: float, setup_timeout: float = 30.0
) -> str | None:
    """Start the engine ``command``, take it through a game's setup and close it:
    None if it took it, else why not (with the end of its stderr). A match checks
    its engines so before its first game: a broken command line would otherwise
    forfeit every game.

    Raises:
        EngineStopped: the engine was stopped from outside.
    """
    engine: GTPClient | None = None
    why = ""
    try:
        engine = GTPClient(command, timeout=setup_timeout)
        _setup(engine, goboard.BLACK, size, komi)
    except EngineFailure as exc:
        why = str(exc)
    except _Forfeit as exc:
        if isinstance(exc.__cause__, EngineStopped):
            raise exc.__cause__ from None
        why = str(exc)
    finally:
        stderr = engine.close() if engine is not None else ""
    if not why:
        return None
    tail = stderr.strip().splitlines()[-3:]
    return why + ("; its stderr ends: " + " | ".join(tail) if tail else "")


def _setup(engine: GTPClient, colour: int, size: int, komi: float) -> str:
    """Name the engine and set up its board; a refusal or failure forfeits."""
    name = engine.argv[0]
    try:
        name = engine.send("name") or name
        version = engine.send("version")
        if version:
            name = f"{name} {version}"
    except GTPError:
        pass  # name and version are optional courtesies
    except EngineFailure as exc:
        raise _Forfeit(colour, f"setup: {exc}") from exc
    for command in (f"boardsize {size}", "clear_board", f"komi {komi:g}"):
        try:
            engine.send(command)
        except (GTPError, EngineFailure) as exc:
            raise _Forfeit(colour, f"{command!r} failed: {exc}") from exc
    return name


def _play(
    board: goboard.Board,
    engines: dict[int, GTPClient],
    out: GameOutcome,
    cap: int,
    move_timeout: float,
) -> None:
    size = board.size
    while not board.is_over and len(out.moves) < cap:
        colour = board.to_play
        engine = engines[colour]
        start = time.perf_counter()
        try:
            reply = engine.send(f"genmove {_GTP_COLOUR[colour]}", timeout=move_timeout)
        except (GTPError, EngineFailure) as exc:
            # No move: its time is not thinking time (a timeout would add the whole
            # move_timeout to an engine's total over the moves it did answer).
            raise _Forfeit(colour, f"genmove: {exc}") from exc
        out.think_time[colour] += time.perf_counter() - start
        out.genmoves[colour] += 1
        vertex = reply.strip().lower()
        if vertex == "resign":
            out.winner = -colour
            out.result = f"{_SGF_COLOUR[-colour]}+R"
            out.reason = "resignation"
            return
        try:
            point = from_gtp(vertex, size)
            board.play(point)
        except ValueError as exc:  # IllegalMoveError is a ValueError
            raise _Forfeit(colour, f"illegal move {reply!r}: {exc}") from exc
        out.moves.append((colour, point))
        try:
            engines[-colour].send(f"play {_GTP_COLOUR[colour]} {to_gtp(point, size)}")
        except (GTPError, EngineFailure) as exc:
            raise _Forfeit(-colour, f"play {to_gtp(point, size)}: {exc}") from exc
    out.reason = "two passes" if board.is_over else "move cap"


def _count(
    board: goboard.Board,
    engines: dict[int, GTPClient],
    out: GameOutcome,
    scoring: Scoring,
) -> None:
    """Settle the dead stones, then count the area."""
    try:
        settlement = settle(scoring, board, out.moves, engines)
        out.dead, out.settled = settlement.dead, settlement.how
    except EngineStopped:
        raise  # not the arbiter's failure: the game has no count
    except (EngineFailure, GTPError, ValueError) as exc:
        out.dead, out.settled = (), f"arbiter failed ({exc}), counted as it stands"
    out.score = score_without(board, out.dead)
    out.result = _result(out.score)
    out.winner = 0 if out.score == 0 else (1 if out.score > 0 else -1)


def _result(score: float) -> str:
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"
