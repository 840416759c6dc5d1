"""Teacher games: GNU Go plays itself through GTP, and every game becomes an SGF file.

No data set can be downloaded where this project trains, so the supervised stage learns
from GNU Go (Debian's ``gnugo``), a real program. One GNU Go process plays both colours
(``genmove b`` / ``genmove w``) game after game (``clear_board``), which costs far less
than a process per game; ``workers`` processes run in parallel.

Variety: GNU Go is almost deterministic, so for the first ``opening_plies`` moves of a
game it only ranks moves (``reg_genmove`` then ``top_moves``) and one of its ``top_k``
best is played at random; then it plays on by itself. Every move is still one GNU Go
considers good, so all of them are training targets, the empty board included.

Every move is refereed by our rules (Chinese: situational superko); a move our rules
refuse ends that game, which is dropped with a warning. The result is GNU Go's own
``final_score`` after two passes (it removes dead stones, which a bare Tromp-Taylor
count of the final position would not). With ``capture_all_dead`` GNU Go captures
every dead stone before it passes (``--capture-all-dead``), so the final position is
settled and its Tromp-Taylor count is the result: ``alphago shards`` then gives the
game's examples the final ownership and score as auxiliary targets.

Games are numbered; game ``i`` uses seed ``seed + i`` for its opening choices and for
GNU Go's random seed, and is written as ``game-{i:06d}.sgf`` atomically. A rerun skips
the files that exist, so an interrupted run resumes where it stopped; an interrupted
``generate`` drops the games in play and returns at once, GNU Go's processes ended.
"""

from __future__ import annotations

import random
import re
import shlex
import shutil
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import goboard
from goboard.coords import from_gtp, to_gtp
from goboard.rules import MAX_KOMI

from ..atomic import remove_stale_temporaries
from ..match.gtp_client import EngineFailure, GTPClient, GTPError
from ..sgf import GameRecord, save_sgf

__all__ = [
    "MAX_GAMES",
    "MAX_WORKERS",
    "GenConfig",
    "find_gnugo",
    "generate",
    "gnugo_command",
    "play_teacher_game",
]

_RESULT = re.compile(r"^[BW]\+(\d+(\.\d+)?|R)$|^0$")

#: Limits of :class:`GenConfig`: more games than this would take years; more
#: processes than this only thrash (komi: ``goboard.rules.MAX_KOMI``).
MAX_GAMES = 10_000_000
MAX_WORKERS = 256
_SEED_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class GenConfig:
    """What :func:`generate` plays.

    Attributes (validated on creation: TypeError or ValueError):
        games: Games numbered ``0..games-1`` (existing files are skipped), at most
            :data:`MAX_GAMES`.
        level: GNU Go's ``--level`` (0..10; 10 is its default and strongest).
        size, komi: The board.
        opening_plies: Plies at the start where one of GNU Go's ``top_k`` moves is
            drawn at random (at most a game's move cap, ``3 * size**2``).
        top_k: How many of GNU Go's best moves the opening draws from.
        workers: GNU Go processes at once (at most :data:`MAX_WORKERS`).
        seed: Base seed; game ``i`` uses ``seed + i`` (which must fit GNU Go's
            C int).
        gnugo: GNU Go's program path (default: found by :func:`find_gnugo`).
        move_timeout: Seconds GNU Go may think on one move.
        capture_all_dead: Run GNU Go with ``--capture-all-dead`` (module docstring).
    """

    games: int = 100
    level: int = 10
    size: int = 9
    komi: float = 7.5
    opening_plies: int = 8
    top_k: int = 4
    workers: int = 2
    seed: int = 0
    gnugo: str | None = None
    move_timeout: float = 60.0
    capture_all_dead: bool = False

    def __post_init__(self) -> None:
        for name in ("games", "level", "size", "opening_plies", "top_k", "workers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                kind = type(value).__name__
                raise TypeError(f"{name} must be an int, not {kind}")
        if not 0 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be in 0..{MAX_GAMES}, not {self.games}")
        if not 0 <= self.level <= 10:
            raise ValueError(f"GNU Go's level must be in 0..10, not {self.level}")
        goboard.coords.check_size(self.size)
        if not -MAX_KOMI <= self.komi <= MAX_KOMI:  # NaN fails too
            raise ValueError(
                f"komi must be in -{MAX_KOMI}..{MAX_KOMI}, not {self.komi}"
            )
        plies = 3 * self.size**2  # a game's move cap
        if not 0 <= self.opening_plies <= plies:
            raise ValueError(
                f"opening_plies must be in 0..{plies}, not {self.opening_plies}"
            )
        if self.top_k < 1:
            raise ValueError(f"top_k must be >= 1, not {self.top_k}")
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"workers must be in 1..{MAX_WORKERS}, not {self.workers}")
        # GNU Go reads its --seed and set_random_seed as a C int.
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TypeError(f"seed must be an int, not {type(self.seed).__name__}")
        if not 0 <= self.seed <= _SEED_MAX - max(self.games - 1, 0):
            raise ValueError(
                f"seed must be in 0..{_SEED_MAX} for every game (seed + game "
                f"number), not {self.seed}"
            )
        if not 0 < self.move_timeout <= 86_400:
            raise ValueError(
                f"move_timeout must be in (0, 86400] seconds, not {self.move_timeout}"
            )


def find_gnugo() -> str:
    """GNU Go's path: ``gnugo`` on PATH, else Debian's ``/usr/games/gnugo``."""
    found = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")
    if found is None:
        raise FileNotFoundError(
            "GNU Go not found: install it (Debian: apt-get install gnugo) or give its "
            "path"
        )
    return found


def gnugo_command(
    level: int,
    seed: int | str = 0,
    gnugo: str | None = None,
    *,
    capture_all_dead: bool,
) -> str:
    """The GTP command line of GNU Go at ``level`` with Chinese rules (``seed`` may
    be ``alphago.match``'s ``{game}`` field), capturing every dead stone before it
    passes with ``capture_all_dead``. No default: a match counted by area needs it
    (without it GNU Go passes with dead stones on the board), teacher games may not."""
    program = gnugo or find_gnugo()
    extra = ["--capture-all-dead"] if capture_all_dead else []
    return shlex.join(
        [program, "--mode", "gtp", "--chinese-rules", "--level", str(level)]
        + ["--seed", str(seed)]
        + extra
    )


def _top_moves(reply: str, size: int) -> list[int]:
    """Points of a ``top_moves`` answer (``E5 75.01 D3 74.01 ...``), best first."""
    words = reply.split()
    return [from_gtp(v, size) for v in words[0::2]]


def play_teacher_game(engine: GTPClient, config: GenConfig, index: int) -> GameRecord:
    """One GNU Go self-play game on ``engine`` (already started).

    Raises:
        GTPError, EngineFailure: GNU Go failed; ValueError: it played a move our rules
        refuse or gave a result we cannot read.
    """
    size, seed = config.size, config.seed + index
    rng = random.Random(seed)
    for command in (f"boardsize {size}", "clear_board", f"komi {config.komi:g}"):
        engine.send(command)
    engine.send(f"set_random_seed {seed}")
    board = goboard.Board(size, config.komi, "chinese")
    moves: list[tuple[int, int]] = []
    colours = {goboard.BLACK: "b", goboard.WHITE: "w"}

    def play(point: int) -> None:
        colour = board.to_play
        board.play(point)
        moves.append((colour, point))

    gtp_colour = {goboard.BLACK: "black", goboard.WHITE: "white"}
    for _ in range(config.opening_plies):
        colour = board.to_play
        chosen = engine.send(
            f"reg_genmove {colours[colour]}", timeout=config.move_timeout
        )
        if chosen.lower() in ("pass", "resign"):
            break
        ranked = _top_moves(engine.send(f"top_moves_{gtp_colour[colour]}"), size)
        options = [p for p in ranked[: config.top_k] if board.is_legal(p)]
        point = rng.choice(options) if options else from_gtp(chosen, size)
        engine.send(f"play {colours[colour]} {to_gtp(point, size)}")
        play(point)
    result = None
    cap = 3 * size * size
    while not board.is_over and len(moves) < cap:
        reply = engine.send(
            f"genmove {colours[board.to_play]}", timeout=config.move_timeout
        ).lower()
        if reply == "resign":
            result = "W+R" if board.to_play == goboard.BLACK else "B+R"
            break
        play(from_gtp(reply, size))
    if result is None:
        result = engine.send("final_score")
        if not _RESULT.match(result):
            raise ValueError(f"GNU Go's final_score {result!r} is not a result")
    return GameRecord(
        size=size,
        komi=config.komi,
        moves=moves,
        result=result,
        players={colour: f"GNU Go {config.level}" for colour in colours},
        rules="Chinese",
        comment=f"GNU Go level {config.level}; opening: one of its {config.top_k} best"
        f" moves at random for {config.opening_plies} plies",
    )


def generate(
    out_dir: str | Path,
    config: GenConfig,
    progress: Callable[[int, GameRecord | None], None] | None = None,
) -> int:
    """Play the missing games of ``config`` into ``out_dir``; returns games written.

    ``progress(index, record)`` is called after each game (record None: the game was
    dropped, with a warning on stderr). Thread-safe: calls are serialised.
    """
    gnugo = config.gnugo or find_gnugo()
    if shutil.which(gnugo) is None:  # else every game is dropped, one line each
        raise FileNotFoundError(f"GNU Go not found: no program {gnugo!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)  # left by a killed run
    todo = [i for i in range(config.games) if not (out / f"game-{i:06d}.sgf").exists()]
    lock = threading.Lock()
    written = 0
    chunks = [todo[w :: config.workers] for w in range(config.workers)]
    # Interruption (Ctrl-C, or SIGTERM made an exception by the CLI) reaches only the
    # main thread, and threads cannot be stopped from outside: ``stop`` tells the
    # workers to start no new game, and killing their engines ends the games in play.
    stop = threading.Event()
    engines: dict[int, GTPClient] = {}  # worker number -> its engine, under ``lock``

    def start_engine(w: int) -> GTPClient | None:
        with lock:
            if stop.is_set():
                return None
            engine = GTPClient(
                gnugo_command(
                    config.level,
                    config.seed,
                    gnugo,
                    capture_all_dead=config.capture_all_dead,
                )
            )
            engines[w] = engine
            return engine

    def worker(w: int, indices: list[int]) -> None:
        nonlocal written
        engine: GTPClient | None = None
        for index in indices:
            record: GameRecord | None = None
            try:
                if engine is not None and not engine.alive():
                    # Died or killed by a stop since its last game: tidy it (its pipes)
                    # before a new one replaces it, or the stop leaves it open.
                    engine.close()
                    engine = None
                if engine is None:
                    engine = start_engine(w)
                    if engine is None:
                        break
                record = play_teacher_game(engine, config, index)
                save_sgf(record, out / f"game-{index:06d}.sgf")
            except (GTPError, EngineFailure, ValueError) as exc:
                if stop.is_set():
                    break
                print(f"gendata: game {index} dropped: {exc}", file=sys.stderr)
                if engine is not None:
                    engine.close()
                engine = None
                record = None
            with lock:
                written += record is not None
                if progress is not None:
                    progress(index, record)
            if stop.is_set():
                break
        if engine is not None:
            engine.close()

    pool = ThreadPoolExecutor(max_workers=config.workers)
    try:
        futures = [
            pool.submit(worker, w, chunk) for w, chunk in enumerate(chunks) if chunk
        ]
        for future in futures:
            future.result()
    except BaseException:
        stop.set()
        with lock:
            for engine in engines.values():
                engine.kill()
        raise
    finally:
        pool.shutdown(wait=True)
    return written
