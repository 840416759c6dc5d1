"""Settling dead stones before a refereed game is counted.

Counting the final position with every stone alive (Tromp-Taylor) is only fair when
both engines capture every dead stone before they pass. Many do not (GNU Go without
``--capture-all-dead`` passes with dead stones in its opponent's area, which are then
counted for their owner), so by default a match settles dead stones first:

- ``arbiter``: a separate engine (GNU Go when installed) replays the game and answers
  ``final_status_list dead``; those stones are removed before the area count.
- ``agree``: both players are asked ``final_status_list dead``; when they name the
  same stones those are removed. When they disagree, the arbiter decides if there is
  one, else the position is counted as it stands and the game is marked disputed.
- ``tromp-taylor``: count as it stands (for engines that capture everything before
  passing, e.g. GNU Go with ``--capture-all-dead``, Pachi with ``pass_all_alive``).

Only games that end by passing (or the move cap) are settled; resignations and
forfeits have no count.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass

import numpy as np

import goboard
from goboard.coords import from_gtp, to_gtp

from .gtp_client import EngineFailure, EngineStopped, GTPClient, GTPError

__all__ = [
    "SCORINGS",
    "Scoring",
    "Settlement",
    "default_arbiter",
    "dead_list",
    "missing_capture_all_dead",
    "score_without",
]

SCORINGS = ("arbiter", "agree", "tromp-taylor")

_GTP_COLOUR = {goboard.BLACK: "b", goboard.WHITE: "w"}


def default_arbiter() -> str | None:
    """GNU Go's command line as an arbiter, if it is installed (PATH or /usr/games)."""
    for candidate in ("gnugo", "/usr/games/gnugo"):
        found = shutil.which(candidate)
        if found is not None:
            return f"{found} --mode gtp --chinese-rules"
    return None


@dataclass(frozen=True, slots=True)
class Scoring:
    """How a match counts finished games.

    Attributes:
        kind: one of :data:`SCORINGS`.
        arbiter: command line of the arbiter engine (None: none; ``arbiter`` needs it).
        timeout: seconds the arbiter or a player may take to answer.
    """

    kind: str = "tromp-taylor"
    arbiter: str | None = None
    timeout: float = 60.0

    def __post_init__(self) -> None:
        if self.kind not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, not {self.kind!r}")
        if self.kind == "arbiter" and not self.arbiter:
            raise ValueError(
                "arbiter scoring needs an arbiter engine (GNU Go is not installed: "
                "give --arbiter, or --scoring agree or tromp-taylor)"
            )

    @classmethod
    def auto(cls, kind: str = "auto", arbiter: str | None = None) -> Scoring:
        """``auto``: arbiter scoring when an arbiter is given or GNU Go is found,
        else agreement of the players."""
        arbiter = arbiter or default_arbiter()
        if kind == "auto":
            kind = "arbiter" if arbiter else "agree"
        return cls(kind, arbiter)

    def describe(self) -> str:
        """One line for reports and SGF comments."""
        if self.kind == "tromp-taylor":
            return "tromp-taylor (every stone on the board counts as alive)"
        judge = f"arbiter {self.arbiter}" if self.arbiter else "no arbiter"
        if self.kind == "agree":
            return f"agree (dead stones named by both players; {judge} on dispute)"
        return f"arbiter (dead stones named by {self.arbiter})"


@dataclass(frozen=True, slots=True)
class Settlement:
    """The dead stones removed before counting and who named them.

    ``how`` is ``"tromp-taylor"``, ``"arbiter"``, ``"agreed"``, ``"disputed,
    arbiter"`` or ``"disputed, counted as it stands"``.
    """

    dead: tuple[int, ...]
    how: str


def dead_list(answer: str, size: int, stones: np.ndarray) -> tuple[int, ...]:
    """The points of a ``final_status_list dead`` answer (ValueError if one is not a
    vertex or holds no stone)."""
    flat = stones.reshape(-1)
    points = set()
    for word in answer.split():
        point = from_gtp(word, size)
        if point >= size * size or flat[point] == 0:
            raise ValueError(f"{word} is not a stone")
        points.add(point)
    return tuple(sorted(points))


def score_without(board: goboard.Board, dead: tuple[int, ...]) -> float:
    """Area score (Black's view, minus komi) after removing the ``dead`` stones."""
    stones = board.stones().copy()
    stones.reshape(-1)[list(dead)] = 0
    return float(goboard.Board.from_stones(stones, komi=board.komi).score())


def _ask_arbiter(
    command: str, board: goboard.Board, moves: list[tuple[int, int]], timeout: float
) -> tuple[int, ...]:
    """Replay the game in the arbiter and return the stones it calls dead."""
    size = board.size
    with GTPClient(command, timeout=timeout) as arbiter:
        for line in (f"boardsize {size}", "clear_board", f"komi {board.komi:g}"):
            arbiter.send(line)
        for colour, point in moves:
            arbiter.send(f"play {_GTP_COLOUR[colour]} {to_gtp(point, size)}")
        answer = arbiter.send("final_status_list dead")
    return dead_list(answer, size, board.stones())


def _ask_player(
    engine: GTPClient, board: goboard.Board, timeout: float
) -> tuple[int, ...] | None:
    """A player's dead stones, or None if it cannot say."""
    try:
        answer = engine.send("final_status_list dead", timeout=timeout)
        return dead_list(answer, board.size, board.stones())
    except EngineStopped:
        raise  # stopped from outside: no settlement at all
    except (GTPError, EngineFailure, ValueError):
        return None


def settle(
    scoring: Scoring,
    board: goboard.Board,
    moves: list[tuple[int, int]],
    players: dict[int, GTPClient],
) -> Settlement:
    """Decide the dead stones of a finished game under ``scoring``.

    Raises:
        EngineFailure, GTPError, ValueError: the arbiter failed or answered nonsense
            (the caller reports the game as unscored).
    """
    if scoring.kind == "tromp-taylor":
        return Settlement((), "tromp-taylor")
    if scoring.kind == "agree":
        named = [_ask_player(e, board, scoring.timeout) for e in players.values()]
        if named[0] is not None and named[0] == named[1]:
            return Settlement(named[0], "agreed")
        if scoring.arbiter is None:
            return Settlement((), "disputed, counted as it stands")
        dead = _ask_arbiter(scoring.arbiter, board, moves, scoring.timeout)
        return Settlement(dead, "disputed, arbiter")
    assert scoring.arbiter is not None
    return Settlement(
        _ask_arbiter(scoring.arbiter, board, moves, scoring.timeout), "arbiter"
    )


def missing_capture_all_dead(command: str) -> bool:
    """True for a GNU Go command line without ``--capture-all-dead``: under
    Tromp-Taylor counting it passes with dead stones still on the board."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    is_gnugo = bool(argv) and os.path.basename(argv[0]).startswith("gnugo")
    return is_gnugo and "--capture-all-dead" not in argv
