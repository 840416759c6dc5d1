"""Shared benchmark fixtures: seeded positions per board size and a ``bench`` wrapper.

Positions (``positions(size)``, built once per session, default Tromp-Taylor rules):

- ``opening``: the empty board.
- ``middle``: ``N*N // 2`` moves of a seeded random game (uniform over the legal
  non-pass points, no passes); ``middle_moves`` is that move list, replayable from
  ``opening``.
- ``endgame``: the same game continued with the playout policy (uniform over the legal
  points that do not fill one of the mover's own true eyes) until no such point is left:
  a crowded board that is not over yet.
- ``snapshots``: a copy of the board after every move of that game, for batches.

The middle game of uniform random play is not much like a real one: strings are
scattered, 2-liberty strings and ataris everywhere (about 18 stones in atari per 19x19
board, where real games have a handful). ``tactical_positions(size)`` is a second,
more game-like sample: ``TACTICAL_GAMES`` seeded games of the C pattern rollout policy
(``goboard.PatternPolicy``, eye-aware) with hand-set weights on its four tactical
features (``TACTICAL_WEIGHTS``: take captures, save strings in atari, avoid
self-atari, play near the previous move; all 3x3 and response patterns zero), replayed
under the default rules. Its ``batch(n)`` cycles through the positions from move
N*N // 4 to move N*N of each game (interleaved, evenly spread). Still not a strong
player's game, but ataris are rarer by an order of magnitude and play is local.
``pro_positions()`` is a third, real sample: 19x19 middle games of professional
players (the positions after moves 61, 73, ..., 169 of the historical games in Debian's
``goban-original-games``, read from ``PRO_GAMES``), 256 of them spread evenly;
benchmarks that use it skip where that package is not installed.

``bench`` wraps pytest-benchmark's ``benchmark``:

- ``bench(fn, *args)`` times ``fn`` the usual way; ``bench(fn, *args, rounds=R)`` or
  ``setup=...`` switches to ``benchmark.pedantic`` (fixed rounds, an untimed per-round
  setup).
- ``bench.seeded(fn, count, seed)`` times ``fn(seed)`` with a new seed on every call
  (seed, seed + 1, ...) and returns the mean of ``count(result)`` (a dict of counts)
  over all calls. Random workloads use it: re-running one seed times one fixed sequence
  of branches, which the CPU's branch predictor learns. Measured here, one fixed 19x19
  playout repeated ran at ~29M stones/s against ~11M for fresh ones; with 4 or more
  different playouts per call the effect is gone.
- ``bench.rates(stones=..., ...)`` stores per-call counts in ``extra_info`` and, when
  timing is on, ``<name>_per_s`` = count / seconds per call: the median time, or the
  mean time after ``seeded`` (the work varies from call to call, so total work over
  total time). The rates of every benchmark are printed after pytest-benchmark's table.
- ``bench.ratio(name, value)`` records a ratio the benchmark measured itself (two
  things timed in turn, so that both see the same load); ratios are printed first.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import goboard
from goboard import pattern_features

# The helper module ``gameloops`` sits beside this file; make it importable whatever
# pytest import mode is in use (as tests/conftest.py does for its helpers).
_BENCH_DIR = str(Path(__file__).resolve().parent)
if _BENCH_DIR not in sys.path:
    sys.path.insert(0, _BENCH_DIR)

SEED = 20240611
SIZES = (9, 19)


@dataclass(frozen=True)
class Positions:
    """Fixed-seed positions of one board size (see the module docstring)."""

    size: int
    opening: goboard.Board
    middle: goboard.Board
    middle_moves: tuple[int, ...]
    endgame: goboard.Board
    snapshots: tuple[goboard.Board, ...] = field(repr=False)

    def phase(self, name: str) -> goboard.Board:
        """The position called ``name``: "opening", "middle" or "endgame"."""
        board: goboard.Board = getattr(self, name)
        return board

    def batch(self, n: int) -> list[goboard.Board]:
        """``n`` boards, cycling through the game's snapshots from move N*N // 4 on."""
        start = len(self.middle_moves) // 2
        snaps = self.snapshots[start:]
        return [snaps[i % len(snaps)] for i in range(n)]


@cache
def build_positions(size: int, seed: int = SEED) -> Positions:
    rng = random.Random(seed * 100 + size)
    board = goboard.Board(size)
    opening = board.copy()
    snapshots = []
    moves: list[int] = []
    while len(moves) < size * size // 2:
        legal = board.legal_moves()[:-1]  # pass is last
        if len(legal) == 0:
            break
        move = rng.choice(legal)
        board.play(move)
        moves.append(move)
        snapshots.append(board.copy())
    middle = board.copy()
    for _ in range(3 * size * size):
        colour = board.to_play
        points = board.legal_moves()[:-1]
        legal = [p for p in points if not board.is_true_eye(p, colour)]
        if not legal:
            break
        board.play(rng.choice(legal))
        snapshots.append(board.copy())
    return Positions(size, opening, middle, tuple(moves), board, tuple(snapshots))


TACTICAL_GAMES = 8
#: Weights of goboard.PatternPolicy's tactical features for ``tactical_positions``.
TACTICAL_WEIGHTS = {
    pattern_features.CAPTURE: 3.0,
    pattern_features.SAVE_ATARI: 3.0,
    pattern_features.SELF_ATARI: -4.0,
    pattern_features.NEAR_PREVIOUS: 1.5,
}


@dataclass(frozen=True)
class TacticalPositions:
    """Middle games of seeded pattern-policy games (see the module docstring)."""

    size: int
    games: tuple[tuple[goboard.Board, ...], ...] = field(repr=False)

    def batch(self, n: int) -> list[goboard.Board]:
        """``n`` boards spread evenly over the games' middle-game positions, the games
        interleaved move by move."""
        moves = itertools.zip_longest(*self.games)
        pool = [pos for at_move in moves for pos in at_move if pos is not None]
        step = max(1, len(pool) // n)
        return [pool[(i * step) % len(pool)] for i in range(n)]


@cache
def build_tactical_positions(size: int, seed: int = SEED) -> TacticalPositions:
    weights = np.zeros(pattern_features.NUM_FEATURES, dtype=np.float32)
    for index, weight in TACTICAL_WEIGHTS.items():
        weights[index] = weight
    policy = goboard.PatternPolicy(weights)
    games = []
    for game in range(TACTICAL_GAMES):
        # The rollout plays simple ko; replaying under the default rules stops at the
        # first move superko forbids (rare) or at the end of the rollout.
        start = goboard.Board(size)
        moves = policy.playout_moves(start, seed * 100 + game, 3 * size * size)
        board = goboard.Board(size)
        kept = []
        for move in moves[: size * size]:
            if not board.is_legal(int(move)):
                break
            board.play(int(move))
            if board.move_number >= size * size // 4:
                kept.append(board.copy())
        games.append(tuple(kept))
    return TacticalPositions(size, tuple(games))


#: Debian's goban-original-games: historical professional games, SGF text in .sgf
#: and .mgt files (alphago.data.dataset.SGF_SUFFIXES reads both alike).
PRO_GAMES = Path("/usr/share/goban")
PRO_SUFFIXES = (".sgf", ".mgt")
#: The positions kept from each game: after these moves, the middle game.
PRO_MOVES = range(61, 170, 12)


@cache
def build_pro_positions(count: int = 256) -> tuple[goboard.Board, ...]:
    """``count`` positions spread evenly over the professional 19x19 games' middle
    games (fewer if the games hold fewer), or none where they are not installed."""
    sgf = pytest.importorskip("alphago.sgf")  # sgfmill reads the records
    boards: list[goboard.Board] = []
    paths = sorted(p for p in PRO_GAMES.glob("*") if p.suffix.lower() in PRO_SUFFIXES)
    for path in paths:
        kept = []
        try:
            record = sgf.read_sgf(path.read_bytes())
            board = sgf.start_board(record, "chinese")
            if board.size != 19:
                continue
            for number, (colour, point) in enumerate(record.moves[: PRO_MOVES[-1]], 1):
                board = sgf.play_as(board, colour, point)
                if number in PRO_MOVES:
                    kept.append(board.copy())
        except ValueError:  # goboard.IllegalMoveError is one
            continue  # a record that does not replay: the game is left out whole
        boards.extend(kept)
    if len(boards) <= count:
        return tuple(boards)
    step = len(boards) / count
    return tuple(boards[int(i * step)] for i in range(count))


@pytest.fixture(scope="session")
def pro_positions() -> tuple[goboard.Board, ...]:
    """Up to 256 professional 19x19 middle-game positions; skips where there are
    none."""
    boards = build_pro_positions()
    if not boards:
        pytest.skip(f"no professional games in {PRO_GAMES} (goban-original-games)")
    return boards


@pytest.fixture(scope="session")
def tactical_positions() -> Callable[[int], TacticalPositions]:
    """``tactical_positions(size)``: the session's pattern-policy middle games."""
    return build_tactical_positions


@pytest.fixture(scope="session")
def positions() -> Callable[[int], Positions]:
    """``positions(size)``: the session's fixed-seed positions of that size."""
    return build_positions


# ---- the bench wrapper and the rate summary ----------------------------------------

_RATES: list[tuple[str, str, dict[str, float]]] = []
_RATIOS: list[tuple[str, str, float]] = []


class Bench:
    """``benchmark`` plus a switch to ``pedantic`` and rate bookkeeping."""

    def __init__(self, benchmark: Any, nodeid: str) -> None:
        self.benchmark = benchmark
        self.nodeid = nodeid
        self.varying = False  # the work differs from call to call (seeded)

    def __call__(
        self,
        fn: Callable[..., Any],
        *args: Any,
        setup: Callable[[], Any] | None = None,
        rounds: int | None = None,
        iterations: int = 1,
        warmup_rounds: int = 1,
    ) -> Any:
        if setup is None and rounds is None:
            return self.benchmark(fn, *args)
        return self.benchmark.pedantic(
            fn,
            args=args,
            setup=setup,
            rounds=rounds or 100,
            iterations=iterations,
            warmup_rounds=warmup_rounds,
        )

    def seeded(
        self,
        fn: Callable[[int], Any],
        count: Callable[[Any], dict[str, float]],
        seed: int,
    ) -> dict[str, float]:
        """Time ``fn(seed)``, ``fn(seed + 1)``, ...; the mean ``count`` per call."""
        totals: dict[str, float] = {}
        seeds = itertools.count(seed)

        def call() -> None:
            for name, value in count(fn(next(seeds))).items():
                totals[name] = totals.get(name, 0) + value

        self(call)
        self.varying = True
        calls = next(seeds) - seed
        return {name: total / calls for name, total in totals.items()}

    def seconds(self) -> float | None:
        """Seconds per call (median, or mean after ``seeded``); None when timing is
        off (--benchmark-disable)."""
        stats = self.benchmark.stats
        if not stats:
            return None
        return float(stats.stats.mean if self.varying else stats.stats.median)

    def rates(self, **counts: float) -> dict[str, float]:
        """Record per-call ``counts`` (and their rates per second) in extra_info."""
        info = self.benchmark.extra_info
        seconds = self.seconds()
        per_s: dict[str, float] = {}
        for name, count in counts.items():
            info[name] = count
            if seconds:
                per_s[name] = count / seconds
                info[f"{name}_per_s"] = per_s[name]
        if per_s:
            group = self.benchmark.group or ""
            _RATES.append((group, self.nodeid.split("::")[-1], per_s))
        return per_s

    def ratio(self, name: str, value: float) -> None:
        """Record a ratio measured inside the benchmark (printed before the rates)."""
        self.benchmark.extra_info[name] = value
        _RATIOS.append((name, self.nodeid.split("::")[-1], value))


@pytest.fixture
def bench(benchmark: Any, request: pytest.FixtureRequest) -> Bench:
    return Bench(benchmark, request.node.nodeid)


def _human(value: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


@pytest.hookimpl(trylast=True)  # after pytest-benchmark's table
def pytest_terminal_summary(terminalreporter: Any) -> None:
    tr = terminalreporter
    if _RATIOS:
        tr.write_sep("-", "ratios measured side by side within one benchmark")
        width = max(len(test) for _, test, _ in _RATIOS)
        for name, test, value in sorted(_RATIOS, key=lambda r: r[1]):
            tr.write_line(f"{test:{width}s}  {name} = {value:.3f}")
    if not _RATES:
        return
    tr.write_sep("-", "rates per second (count per call / time per call)")
    width = max(len(name) for _, name, _ in _RATES)
    for group, name, per_s in sorted(_RATES, key=lambda r: r[:2]):
        text = "  ".join(f"{k}/s={_human(v)}" for k, v in per_s.items())
        tr.write_line(f"{group:12s} {name:{width}s}  {text}")
