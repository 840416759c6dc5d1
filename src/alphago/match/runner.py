"""A match between two GTP engines: many refereed games, in parallel, and the report.

Game ``i`` (from 0) gives engine A Black when ``i`` is even and White when it is odd, so
with an even number of games both engines play each colour equally often. Every game
starts fresh processes (no state leaks between games). Games run on a thread pool: each
thread only drives two subprocesses and waits on their pipes, so threads are enough to
keep ``parallel`` games going at once.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import goboard
from goboard.coords import check_size

from .game import GameOutcome, play_game, setup_failure
from .gtp_client import GTPClient
from .journal import MatchJournal
from .records import save_outcome_sgf
from .settle import Scoring
from .stats import EloEstimate, elo_estimate

__all__ = ["GAME_FIELD", "EngineSetupError", "MatchGame", "MatchResult", "run_match"]

#: Replaced by the game's number in engine command lines.
GAME_FIELD = "{game}"


@dataclass(frozen=True, slots=True)
class MatchGame:
    """One finished game of a match: its number, A's colour, and what happened."""

    index: int
    a_colour: int
    outcome: GameOutcome

    @property
    def a_points(self) -> float:
        """A's score for this game: 1 win, 0.5 tie, 0 loss."""
        w = self.outcome.winner
        return 0.5 if w == 0 else float(w == self.a_colour)


@dataclass(slots=True)
class MatchResult:
    """All games of a match between engine commands ``a`` and ``b``."""

    a: str
    b: str
    games: list[MatchGame]
    scoring: Scoring
    resumed: int = 0  # games read back from the journal, not played by this run

    def elo(self) -> EloEstimate:
        """A's Elo difference over B (ValueError if no games were played)."""
        wins = sum(g.a_points == 1.0 for g in self.games)
        ties = sum(g.a_points == 0.5 for g in self.games)
        return elo_estimate(wins, ties, len(self.games) - wins - ties)

    def seconds_per_move(self, engine: str) -> float:
        """Mean ``genmove`` seconds of engine ``"a"`` or ``"b"`` (NaN: no moves)."""
        total, moves = 0.0, 0
        for g in self.games:
            colour = g.a_colour if engine == "a" else -g.a_colour
            total += g.outcome.think_time[colour]
            moves += g.outcome.genmoves[colour]
        return total / moves if moves else float("nan")

    def report(self) -> str:
        """The human-readable summary ``alphago eval`` prints."""
        n = len(self.games)
        resumed = f" ({self.resumed} resumed from the journal)" if self.resumed else ""
        lines = [f"A: {self.a}", f"B: {self.b}", f"games: {n}{resumed}"]
        for label, engine in (("A", "a"), ("B", "b")):
            parts = []
            for colour, name in ((goboard.BLACK, "black"), (goboard.WHITE, "white")):
                mine = [
                    g
                    for g in self.games
                    if (g.a_colour if engine == "a" else -g.a_colour) == colour
                ]
                won = sum(g.outcome.winner == colour for g in mine)
                parts.append(f"{won}/{len(mine)} as {name}")
            total = sum(
                g.a_points if engine == "a" else 1.0 - g.a_points for g in self.games
            )
            lines.append(f"{label} wins {total:g}/{n} ({', '.join(parts)})")
        black = sum(g.outcome.winner == goboard.BLACK for g in self.games)
        white = sum(g.outcome.winner == goboard.WHITE for g in self.games)
        lines.append(
            f"by colour: black {black}, white {white}, ties {n - black - white}"
        )
        reasons: dict[str, int] = {}
        for g in self.games:
            key = g.outcome.reason.split(":")[0]
            reasons[key] = reasons.get(key, 0) + 1
        lines.append(
            "endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
        )
        lines.append(f"scoring: {self.scoring.describe()}")
        settled: dict[str, int] = {}
        for g in self.games:
            if g.outcome.settled:
                key = g.outcome.settled.split(" (")[0]
                settled[key] = settled.get(key, 0) + 1
        if settled:
            dead = sum(bool(g.outcome.dead) for g in self.games)
            lines.append(
                "counted: "
                + ", ".join(f"{k} {v}" for k, v in sorted(settled.items()))
                + f"; {dead} games had dead stones removed"
            )
        distinct = len({tuple(g.outcome.moves) for g in self.games})
        lines.append(f"distinct games: {distinct} of {n}")
        if n:
            lines.append("A - B: " + self.elo().describe())
        for label, engine in (("A", "a"), ("B", "b")):
            seconds = self.seconds_per_move(engine)
            shown = "no moves" if math.isnan(seconds) else f"{seconds:.3f} s"
            lines.append(f"time per move {label}: {shown}")
        return "\n".join(lines)


def _check_command(label: str, command: str) -> None:
    """Fail early (ValueError) on a command line that cannot start any game."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(
            f"engine {label}: bad command line {command!r}: {exc}"
        ) from exc
    if not argv:
        raise ValueError(f"engine {label}: empty command line")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"engine {label}: program not found: {argv[0]!r}")


def run_match(
    engine_a: str,
    engine_b: str,
    games: int,
    *,
    size: int = 9,
    komi: float = 7.5,
    parallel: int = 1,
    sgf_dir: str | os.PathLike[str] | None = None,
    max_moves: int | None = None,
    move_timeout: float = 60.0,
    on_game: Callable[[MatchGame, int], None] | None = None,
    scoring: Scoring,
    resume: bool = False,
    stop_on_setup_failure: bool = False,
) -> MatchResult:
    """Play ``games`` games between two engine command lines.

    Args:
        engine_a, engine_b: Command lines of the engines (A has Black in even games).
            ``{game}`` in a command line becomes the game's number, e.g. ``--seed
            {game}``: deterministic engines would otherwise repeat the same games.
        games: Number of games (>= 1).
        size, komi: The board.
        parallel: Games played at once (>= 1).
        sgf_dir: If given, each game is saved there as ``game-NNN.sgf``, and the
            match's journal beside it (:mod:`alphago.match.journal`).
        max_moves, move_timeout: As in :func:`play_game`.
        on_game: Called with each game this run finishes and the number finished so
            far, resumed games included (from
            worker threads, one at a time).
        scoring: How dead stones are settled before counting, see
            :mod:`alphago.match.settle`. Required: a silent Tromp-Taylor default once
            let GNU Go matches count its opponent's dead stones as alive (README,
            "Its strength"), so every caller says which count is fair for its players
            (``Scoring.auto()`` for an outside engine, ``Scoring()`` for engines that
            capture their dead stones).
        resume: Go on with the match journalled in ``sgf_dir``: its finished games
            count as they are and only the missing numbers are played.
        stop_on_setup_failure: Before the first game of a match with no journalled
            games, start each engine and take it through a game's setup
            (:func:`~alphago.match.game.setup_failure`); raise
            :class:`EngineSetupError` if one fails. Otherwise a failing engine
            forfeits its games.

    Returns:
        The games in order of their number.

    Raises:
        ValueError: Bad counts or size, or an engine command line that cannot be
            split or names no program found on the PATH; ``sgf_dir`` holds another
            match's journal, or a journal and ``resume`` is not set, or ``resume``
            without ``sgf_dir``.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, not {games}")
    if parallel < 1:
        raise ValueError(f"parallel must be >= 1, not {parallel}")
    check_size(size)
    for label, command in (("A", engine_a), ("B", engine_b)):
        _check_command(label, command)
    if scoring.arbiter is not None:
        _check_command("arbiter", scoring.arbiter)
    if resume and sgf_dir is None:
        raise ValueError("resuming a match needs its SGF directory")
    journal = None
    finished: dict[int, GameOutcome] = {}
    if sgf_dir is not None:
        settings = {
            "engine_a": engine_a,
            "engine_b": engine_b,
            "size": size,
            "komi": komi,
            "max_moves": 3 * size * size if max_moves is None else max_moves,
            "scoring": scoring.describe(),
        }
        journal = MatchJournal(Path(sgf_dir), settings, resume=resume)
        finished = {i: g for i, g in journal.finished().items() if i < games}
    lock = threading.Lock()
    stopping = threading.Event()
    # Every engine started, so that a stop can end the games in play at once: threads
    # cannot be stopped from outside, and Python would wait for them at exit.
    engines: list[GTPClient] = []

    def started(engine: GTPClient) -> None:
        with lock:
            engines.append(engine)
        if stopping.is_set():
            engine.kill()  # a game that began as the match stopped

    done = [MatchGame(i, _a_colour(i), g) for i, g in sorted(finished.items())]
    width = max(3, len(str(games - 1)))

    def one(index: int) -> MatchGame:
        a_colour = _a_colour(index)
        a, b = (
            command.replace(GAME_FIELD, str(index)) for command in (engine_a, engine_b)
        )
        black, white = (a, b) if index % 2 == 0 else (b, a)
        outcome = play_game(
            black,
            white,
            size=size,
            komi=komi,
            max_moves=max_moves,
            move_timeout=move_timeout,
            scoring=scoring,
            on_engine=started,
        )
        game = MatchGame(index, a_colour, outcome)
        if stopping.is_set():
            # The stop killed this game's engines, maybe before it ended (a forfeit)
            # or while they named dead stones (a dispute): no record, --resume
            # replays it.
            return game
        if journal is not None:
            path = journal.folder / f"game-{index:0{width}d}.sgf"
            save_outcome_sgf(outcome, path, scoring=scoring)
            journal.save(index, outcome)  # last: a journalled game has its SGF
        with lock:
            done.append(game)
            if on_game is not None:
                on_game(game, len(done))
        return game

    missing = [index for index in range(games) if index not in finished]
    if stop_on_setup_failure and missing and not finished:
        # Journalled games prove both command lines; otherwise each engine must take
        # a game's setup once, as its first game would start it, before any game.
        for label, command in (("A", engine_a), ("B", engine_b)):
            why = setup_failure(
                command.replace(GAME_FIELD, str(missing[0])), size=size, komi=komi
            )
            if why is not None:
                if journal is not None:
                    journal.discard_if_new_and_empty()
                raise EngineSetupError(f"engine {label} could not start a game: {why}")
    pool = ThreadPoolExecutor(max_workers=max(1, min(parallel, len(missing))))
    try:
        futures = [pool.submit(one, index) for index in missing]
        # The first failure stops the match at once, not after the games before it.
        # Without a failure every game is done here; with one, result() raises it.
        wait(futures, return_when=FIRST_EXCEPTION)
        for future in futures:
            if future.done():
                future.result()
    except BaseException:
        # Ctrl-C, an engine stopped from outside (EngineStopped: that game has no
        # result) or a failure outside the games (an SGF that cannot be written):
        # start no more games, and end the running ones (nothing they finish is
        # journalled: the games are replayed on --resume).
        stopping.set()
        pool.shutdown(wait=False, cancel_futures=True)
        with lock:
            for engine in engines:
                engine.kill()
        raise
    pool.shutdown()
    played = sorted(done, key=lambda g: g.index)
    return MatchResult(engine_a, engine_b, played, scoring, len(finished))


class EngineSetupError(RuntimeError):
    """An engine failed to start or take a game's setup before the match's first
    game: a broken command line (a bad option, a missing file), which would
    otherwise forfeit every game of the match."""


def _a_colour(index: int) -> int:
    """Engine A's colour in game ``index``: Black in even games."""
    return goboard.BLACK if index % 2 == 0 else goboard.WHITE
