"""The GTP engine: game state, the command table, and one command's execution.

The state is the board size, komi, rules, the setup stones (handicap) and the list of
moves; the current board is derived from them, so ``undo`` replays the list without its
last move. Every handler checks all of its arguments before it changes anything, so a
``?`` response leaves the state as it was.

The command table maps a name to a handler ``(engine, args, ctx) -> text``. Plain
handlers return the response text. Streaming handlers (the analysis commands) call
``ctx.begin()`` to send the ``=`` line, then ``ctx.write`` lines as the search goes, and
return the text that ends the response (``""`` or ``"play D4\\n"``). Handlers live in
:mod:`.commands` (GTP 2 core), :mod:`.commands_game` (handicap, time, scoring, SGF) and
:mod:`.commands_analysis` (GUI analysis).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import goboard
from goboard import coords
from goboard.rules import check_komi

from .. import __version__ as _package_version
from .. import sgf
from ..player import Player
from ..player_choice import UnacceptableSize
from ..resign import check_threshold
from .protocol import GtpError, error, parse_command, success
from .timing import TimeManager

__all__ = ["DEFAULT_VERSION", "Context", "Engine", "Handler"]

#: What ``version`` answers by default. Lizzie reads the second number as a Leela Zero
#: release and, below 15, shows a modal dialog from its engine thread that deadlocks it;
#: so the answer starts with the Leela Zero protocol level we speak (0.17: lz-analyze
#: with avoid/allow), then our own version. ``--gtp-version`` overrides it.
DEFAULT_VERSION = f"0.17.0+alphago.{_package_version}"


@dataclass
class Context:
    """What a handler needs besides its arguments: the output stream and stop signal.

    ``wait`` says whether an analysis stream should keep going until ``stop`` is set
    (serve) or end with its search (``Engine.handle``).
    """

    ident: str
    write: Callable[[str], None]
    stop: threading.Event = field(default_factory=threading.Event)
    wait: bool = False
    started: bool = False

    def begin(self) -> None:
        """Send the success header of a streaming response."""
        if not self.started:
            self.started = True
            self.write(f"={self.ident}\n")


Handler = Callable[["Engine", list[str], Context], str]


class Engine:
    """A GTP engine around a :class:`alphago.player.Player`.

    Args:
        player: chooses moves and estimates ownership.
        board_size: initial board size.
        komi: initial komi.
        rules: rules preset or ``goboard.Rules`` for the board.
        resign_below: ``genmove`` answers ``resign`` once the search has put its
            colour's winning chances below this by :mod:`alphago.resign`'s rule (both
            the root's and the chosen move's, for
            :data:`~alphago.resign.RESIGN_TURNS` genmoves in a row, never in the
            first quarter of the board's points; handicap games start lopsided);
            None (default) never resigns. In (0, 0.5).
        name, version: what ``name`` and ``version`` answer (see
            :data:`DEFAULT_VERSION`).
        players: picks the player when ``boardsize`` changes the size (None: keep
            ``player`` for every size).
        analysis_visits: cap on an analysis command's simulations (None: until the
            next command, within the player's tree capacity).
        settle_before_pass: ``genmove`` plays on where the search would pass until
            no dead stones and no neutral points are left (for GUIs that count
            territory themselves); off: pass once passing wins under area scoring.
        dead_threshold: a stone is dead when the ownership estimate gives its point to
            the other colour by more than this (``final_status_list``).
        ponder: under :func:`~alphago.gtp.serve`, after a ``genmove`` has played its
            move, search on in the opponent's turn until the next command arrives
            (thinking on the opponent's time): the next ``genmove`` reuses the subtree
            of the reply. Off by default: in a match on shared cores it would take
            the opponent's CPU.
    """

    def __init__(
        self,
        player: Player,
        board_size: int = 19,
        komi: float = 7.5,
        rules: str | goboard.Rules = "chinese",
        *,
        resign_below: float | None = None,
        name: str = "alphago",
        version: str = DEFAULT_VERSION,
        dead_threshold: float = 0.4,
        players: Callable[[int], Player] | None = None,
        analysis_visits: int | None = None,
        settle_before_pass: bool = False,
        ponder: bool = False,
    ) -> None:
        from . import commands, commands_analysis, commands_game

        self.player = player
        self.size = coords.check_size(board_size)
        self.komi = check_komi(komi)
        self.rules = goboard.Rules.coerce(rules)
        self.resign_below = check_threshold(resign_below)
        #: Each colour's genmoves in a row whose search rated it below resign_below.
        self.low_turns = {goboard.BLACK: 0, goboard.WHITE: 0}
        self.name = name
        self.version = version
        self.dead_threshold = dead_threshold
        self.players = players
        if analysis_visits is not None and analysis_visits < 1:
            raise ValueError(f"analysis_visits must be >= 1, not {analysis_visits}")
        self.analysis_visits = analysis_visits
        self.settle_before_pass = settle_before_pass
        self.ponders = ponder
        #: Set by a genmove that played a move; serve ponders while no command waits.
        self.ponder_pending = False
        self.time = TimeManager()
        self.setup: dict[int, list[int]] = {}
        self.moves: list[tuple[int, int]] = []
        self.board = goboard.Board(self.size, self.komi, self.rules)
        self.quit_requested = False
        self.commands: dict[str, Handler] = {}
        for module in (commands, commands_game, commands_analysis):
            self.commands.update(module.COMMANDS)

    # -- state -----------------------------------------------------------------

    def record(self) -> sgf.GameRecord:
        """The current game as a record."""
        return sgf.GameRecord(
            size=self.size,
            komi=self.komi,
            moves=list(self.moves),
            setup={c: list(p) for c, p in self.setup.items()},
            rules=self.rules.name,
        )

    def build(
        self, setup: dict[int, list[int]], moves: list[tuple[int, int]]
    ) -> goboard.Board:
        """The board after ``setup`` and ``moves`` (raises on an illegal move)."""
        record = sgf.GameRecord(
            size=self.size, komi=self.komi, moves=moves, setup=setup
        )
        return sgf.replay(record, self.rules)

    def player_for(self, size: int) -> Player:
        """The player for ``size`` x ``size`` boards (``players``, else ``player``);
        changes nothing.

        Raises:
            GtpError: ``unacceptable size`` when no player plays that size.
        """
        if self.players is None or size == self.size:
            return self.player
        try:
            return self.players(size)
        except UnacceptableSize:
            raise GtpError("unacceptable size") from None
        except (ValueError, OSError) as exc:  # e.g. a shipped network fails to load
            raise GtpError(f"unacceptable size: {exc}") from None

    def reset(self, size: int | None = None) -> None:
        """Clear the board (optionally to a new size) and start both clocks afresh;
        keeps komi, rules and time settings."""
        if size is not None:
            self.size = size
        self.setup = {}
        self.moves = []
        self.board = goboard.Board(self.size, self.komi, self.rules)
        self.restart_resign_count()
        self.time.new_game()
        self.player.new_game()

    def set_position(
        self, setup: dict[int, list[int]], moves: list[tuple[int, int]]
    ) -> None:
        """Replace setup and moves (raises without changing anything if illegal)."""
        board = self.build(setup, moves)
        self.setup, self.moves, self.board = setup, moves, board
        self.restart_resign_count()

    def restart_resign_count(self) -> None:
        """A new position (new game, undo, setup, loaded game): no low turns yet."""
        self.low_turns = dict.fromkeys(self.low_turns, 0)

    def play(self, colour: int, point: int) -> None:
        """Play a move for ``colour`` (out of turn allowed); raises if illegal."""
        board = sgf.play_as(self.board.copy(), colour, point)
        self.moves.append((colour, point))
        self.board = board

    def board_for(self, colour: int) -> goboard.Board:
        """A copy of the current board with ``colour`` to move and the game not over.

        Out of turn (a GUI asking for the other colour's move, or stones placed by
        hand) the turn changes hands without a pass: an inserted pass would let the
        searched move end the game by passing back, which a side ahead on the board
        then does. A game that is over is rebuilt from its stones."""
        board = self.board.copy()
        if not board.is_over:
            board.set_to_play(colour)
            return board
        return sgf.to_move(board, colour)

    def ponder(self, stop: threading.Event) -> None:
        """Search the current position (the opponent to move after our genmove) until
        ``stop`` is set or the tree is full, keeping the tree for the next genmove;
        answers nothing. A failure is reported on stderr and ends only the pondering."""
        self.ponder_pending = False
        if self.board.is_over:
            return
        capacity = getattr(self.player, "tree_capacity", None)
        simulations = int(capacity()) if callable(capacity) else None
        try:
            self.player.genmove(
                self.board.copy(), stop=stop, simulations=simulations, early_stop=False
            )
        except Exception as exc:  # noqa: BLE001 - pondering must not end the session
            print(f"alphago: pondering stopped: {exc}", file=sys.stderr)

    # -- executing commands ----------------------------------------------------

    def handle(self, line: str) -> str | None:
        """Run one command line; the full response, or None for an empty line.

        Analysis commands run one search (the player's own limit) and return its
        report(s) as one response.
        """
        parts: list[str] = []
        handled = self.execute(line, parts.append, threading.Event(), wait=False)
        return "".join(parts) if handled else None

    def execute(
        self,
        line: str,
        write: Callable[[str], None],
        stop: threading.Event,
        *,
        wait: bool = True,
    ) -> bool:
        """Run one command line, writing the response; False if the line was empty."""
        try:
            command = parse_command(line)
        except Exception as exc:  # noqa: BLE001 - never die on input
            write(error("", f"cannot parse command: {exc}"))
            return True
        if command is None:
            return False
        ctx = Context(command.ident, write, stop, wait)
        handler = self.commands.get(command.name)
        if handler is None:
            what = command.name or "(none)"
            write(error(command.ident, f"unknown command {what}"))
            return True
        try:
            text = handler(self, command.args, ctx)
        except GtpError as exc:
            text, failed = str(exc), True
        except (ValueError, TypeError, OverflowError) as exc:
            text, failed = str(exc) or type(exc).__name__, True
        except Exception as exc:  # noqa: BLE001 - a bug must not end the session
            text, failed = f"internal error: {type(exc).__name__}: {exc}", True
        else:
            failed = False
        if ctx.started:
            # A stream already sent "=": end it. Its failure cannot be an error
            # response any more: it goes to stderr, which GUIs show in their logs.
            tail = text if not failed else ""
            write(tail.rstrip("\n") + "\n\n" if tail.strip() else "\n")
            if failed:
                print(f"alphago: {command.name} failed: {text}", file=sys.stderr)
        elif failed:
            write(error(command.ident, text))
        else:
            write(success(command.ident, text))
        return True
