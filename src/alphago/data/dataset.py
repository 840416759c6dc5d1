"""SGF game records become training examples and shards.

Each move of a record's main line gives one example: the planes of the position before
the move (the mover's view), the move as a one-hot policy target, and the game's result
from the mover's side as the value target (+1 won, -1 lost, 0 tie: ``RE[0]``/``Draw``).

The auxiliary targets (:mod:`alphago.data.examples`: final ownership and score) come
from the record's final position when the game was *played out*: it ended with two
passes, its result is a margin (``B+3.5``, ``W+0.5``, ``0``) and the Tromp-Taylor area
score of the final position (komi included) is that margin, which holds when the dead
stones were captured before the end (GNU Go with ``--capture-all-dead``, as ``alphago
gendata`` plays). Other games (resignations, time wins, records that stop without
their passes, results counted with dead stones left on the board) keep their
examples with the auxiliary targets masked (score NaN).

Skipped, each with a warning naming the file (a collection of real games holds a few):

- files that do not parse, are not Go, or have a board size other than the one asked;
- games without a usable result (none, ``?``, ``Void``, or a time/forfeit win with no
  moves), since they give no value target;
- games whose moves our rules refuse (Chinese rules: situational superko);
- games that give no example: no moves, or only moves out of turn before the end;
- duplicates (the same size, setup and move sequence as an earlier game).

:func:`build_shards` is resumable: an interrupted run (Ctrl-C, a crash, a full disk)
leaves a progress file beside its shards, and the same command run again goes on
from the last shard written and ends with exactly the shards an uninterrupted run
writes. Until then :func:`~alphago.data.examples.load_shards` refuses the directory.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import goboard
from goboard import coords

from ..atomic import atomic_write_bytes, remove_stale_temporaries
from ..sgf import GameRecord, play_as, read_sgf, start_board
from .examples import PLANE_KINDS, PROGRESS_NAME, Examples

__all__ = [
    "DONE_FILE",
    "PROGRESS_FILE",
    "build_shards",
    "game_examples",
    "played_out",
    "result_margin",
    "result_winner",
    "sgf_files",
]


def result_winner(result: str | None) -> int | None:
    """BLACK/WHITE for ``B+..``/``W+..`` (or old files' ``White wins ...``), 0 for a
    tie, None when there is no result."""
    text = (result or "").strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return 0
    if len(text) >= 2 and text[0] in "BW" and text[1] == "+":
        return goboard.BLACK if text[0] == "B" else goboard.WHITE
    for name, colour in (("BLACK WINS", goboard.BLACK), ("WHITE WINS", goboard.WHITE)):
        if text.startswith(name):
            return colour
    return None


def result_margin(result: str | None) -> float | None:
    """The margin from Black's view of a counted result (``B+3.5`` -> 3.5,
    ``W+0.5`` -> -0.5, ``0``/``Draw`` -> 0), None for any other (``B+R``, ``W+T``,
    none)."""
    text = (result or "").strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return 0.0
    if len(text) >= 3 and text[0] in "BW" and text[1] == "+":
        try:
            margin = float(text[2:])
        except ValueError:
            return None
        if margin != margin or margin in (float("inf"), float("-inf")):
            return None
        return margin if text[0] == "B" else -margin
    return None


def played_out(record: GameRecord, board: goboard.Board) -> bool:
    """Whether ``board``, the record's final position, is settled: the game ended
    with two passes and the record's counted result equals its Tromp-Taylor area
    score. Both are needed: the final position of a record that stops without its
    passes (as most professional records do) is often far from settled, dead stones
    and open borders on the board, and its area score now and then equals the
    result (5 of the 591 games of Debian's goban-original-games)."""
    margin = result_margin(record.result)
    return board.is_over and margin is not None and abs(board.score() - margin) < 1e-6


def game_examples(record: GameRecord, kind: str = "agz17") -> Examples:
    """One example per move of ``record`` (see the module docstring).

    Raises:
        ValueError: no usable result; goboard.IllegalMoveError: an illegal move.
    """
    if kind not in PLANE_KINDS:
        raise ValueError(f"unknown plane kind {kind!r}")
    winner = result_winner(record.result)
    if winner is None:
        raise ValueError(f"no usable result ({record.result!r})")
    size = record.size
    board = start_board(record, "chinese", first_from_moves=True)
    planes: list[np.ndarray] = []
    moves: list[int] = []
    values: list[float] = []
    colours: list[int] = []
    for colour, point in record.moves:
        if board.is_over:
            break  # moves after two passes (or a resignation) teach nothing
        if board.to_play == colour:
            planes.append(board.features(kind, dtype=np.uint8))
            moves.append(point)
            values.append(0.0 if winner == 0 else (1.0 if winner == colour else -1.0))
            colours.append(colour)
        board = play_as(board, colour, point)
    n = len(moves)
    if n == 0:
        return Examples.empty(size, kind)
    policy = np.zeros((n, size * size + 1), np.float32)
    policy[np.arange(n), moves] = 1.0
    movers = np.array(colours, np.float32)
    if played_out(record, board):
        owner = (movers[:, None, None] * board.ownership()).astype(np.int8)
        score = (movers * float(board.score())).astype(np.float32)
    else:
        owner = np.zeros((n, size, size), np.int8)
        score = np.full(n, np.nan, np.float32)
    return Examples(
        np.stack(planes), policy, np.array(values, np.float32), kind, owner, score
    )


#: File name endings of game records in directories (``.mgt``: old SGF files, as in
#: Debian's goban-original-games).
SGF_SUFFIXES = (".sgf", ".mgt")


def sgf_files(paths: Iterable[str | Path]) -> list[Path]:
    """SGF files named by ``paths`` (files, or directories searched recursively for
    the :data:`SGF_SUFFIXES`)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(
                sorted(p for p in path.rglob("*") if p.suffix.lower() in SGF_SUFFIXES)
            )
        elif path.exists():
            found.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
    return found


def _game_key(record: GameRecord) -> str:
    text = repr((record.size, sorted(record.setup.items()), record.moves))
    return hashlib.sha1(text.encode()).hexdigest()


def _records(
    files: list[Path], size: int, seen: set[str]
) -> Iterator[tuple[Path, GameRecord | None]]:
    """Each file with its record, or with None (and a warning) when it is skipped;
    ``seen`` holds the keys of the games already taken (updated)."""
    for path in files:
        try:
            record = read_sgf(path.read_bytes())
        except (OSError, ValueError) as exc:
            warnings.warn(f"{path}: skipped: {exc}", stacklevel=3)
            yield path, None
            continue
        except Exception as exc:  # noqa: BLE001 - one odd file must not end a long run
            warnings.warn(f"{path}: skipped: {type(exc).__name__}: {exc}", stacklevel=3)
            yield path, None
            continue
        if record.size != size:
            warnings.warn(
                f"{path}: skipped: {record.size}x{record.size}, not {size}x{size}",
                stacklevel=3,
            )
            yield path, None
            continue
        key = _game_key(record)
        if key in seen:
            warnings.warn(
                f"{path}: skipped: a duplicate of an earlier game", stacklevel=3
            )
            yield path, None
            continue
        seen.add(key)
        yield path, record


#: The file in a shard directory that records an unfinished :func:`build_shards`
#: (not ``*.npz``, so that :func:`~alphago.data.examples.load_shards` never reads it
#: as a shard; it refuses a directory holding one).
PROGRESS_FILE = PROGRESS_NAME
#: The file in a finished shard directory that records its run (settings, inputs,
#: counts), so that the same command run again finds the work done and says so.
DONE_FILE = "shards.done"
_PROGRESS_VERSION = 1
_SHARD_NAME = re.compile(r"^shard-(\d{5,})\.npz$")


def _inputs_digest(files: list[Path]) -> str:
    """Which inputs a run reads, in order (absolute paths, so that a rerun from
    another directory matches)."""
    names = "\n".join(str(p.resolve()) for p in files)
    return hashlib.sha256(names.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass
class _Progress:
    """Where an unfinished run stands after its last written shard: the settings
    and inputs it was started with, how many input files and shards are done, the
    examples read but not yet in a shard, and the keys of the games taken."""

    settings: dict[str, object]
    next_file: int = 0
    shards: int = 0
    games: int = 0
    examples: int = 0
    pending: Examples | None = None
    seen: set[str] = field(default_factory=set)
    finished: bool = False  # the directory holds this very run, finished

    def save(self, path: Path) -> None:
        """Write the record atomically."""
        atomic_write_bytes(path, self.encode())

    def encode(self) -> bytes:
        """The record as a progress file's bytes."""
        state = {
            "version": _PROGRESS_VERSION,
            "settings": self.settings,
            "next_file": self.next_file,
            "shards": self.shards,
            "games": self.games,
            "examples": self.examples,
        }
        arrays: dict[str, np.ndarray] = {
            "state": np.array(json.dumps(state, sort_keys=True)),
            "seen": np.array(sorted(self.seen), dtype="S40"),
        }
        if self.pending is not None and len(self.pending):
            arrays.update(
                planes=self.pending.planes,
                policy=self.pending.policy,
                value=self.pending.value,
                kind=np.array(self.pending.kind),
            )
            if self.pending.ownership is not None and self.pending.score is not None:
                arrays.update(
                    ownership=self.pending.ownership, score=self.pending.score
                )
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
        return buffer.getvalue()

    @classmethod
    def load(cls, path: Path) -> _Progress:
        """Raises ValueError for a file that is not a progress file of ours."""
        try:
            with open(path, "rb") as file, np.load(file, allow_pickle=False) as data:
                state = json.loads(str(data["state"]))
                seen = {bytes(k).decode("ascii") for k in data["seen"]}
                pending = None
                if "planes" in data:
                    aux = "score" in data.files
                    pending = Examples(
                        data["planes"],
                        data["policy"],
                        data["value"],
                        str(data["kind"]),
                        data["ownership"] if aux else None,
                        data["score"] if aux else None,
                    )
            if state.get("version") != _PROGRESS_VERSION:
                raise ValueError(f"unknown version {state.get('version')!r}")
            return cls(
                settings=dict(state["settings"]),
                next_file=int(state["next_file"]),
                shards=int(state["shards"]),
                games=int(state["games"]),
                examples=int(state["examples"]),
                pending=pending,
                seen=seen,
            )
        except (OSError, EOFError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: a damaged progress file ({exc!r})") from None
        except (ValueError, zipfile.BadZipFile, zlib.error) as exc:
            raise ValueError(f"{path}: a damaged progress file ({exc})") from None


def _shard_indices(out: Path) -> list[int]:
    return sorted(
        int(m.group(1)) for p in out.iterdir() if (m := _SHARD_NAME.match(p.name))
    )


def _finished_run(out: Path, settings: dict[str, object]) -> _Progress | None:
    """The finished run recorded in ``out`` if it had these settings and inputs and
    all its shards are there; else None."""
    try:
        done = json.loads((out / DONE_FILE).read_text(encoding="utf-8"))
        counts = [int(done[k]) for k in ("shards", "games", "examples")]
        same = done["version"] == _PROGRESS_VERSION and done["settings"] == settings
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not same or _shard_indices(out) != list(range(counts[0])):
        return None
    shards, games, examples = counts
    return _Progress(
        settings, shards=shards, games=games, examples=examples, finished=True
    )


def _start(out: Path, settings: dict[str, object], files: int) -> _Progress:
    """A fresh run's progress (written to ``out`` at once), or the unfinished
    run's in ``out`` to resume.

    Raises:
        FileExistsError: ``out`` holds shards of another finished run (or of
            unknown origin), or an unfinished run with other inputs or settings.
    """
    progress_path = out / PROGRESS_FILE
    if not progress_path.exists():
        if any(out.glob("shard-*.npz")):
            done = _finished_run(out, settings)
            if done is not None:
                return done
            # Old shards beyond the new ones would be loaded with them.
            raise FileExistsError(
                f"{out} already holds shards of another run: give an empty directory"
            )
        # A fresh run is recorded as unfinished before its first shard: killed
        # before its first progress record, its shard-00000.npz alone would pass
        # for a finished directory (read by load_shards, refused by a rerun).
        progress = _Progress(settings)
        atomic_write_bytes(progress_path, progress.encode())
        return progress
    progress = _Progress.load(progress_path)
    if progress.settings != settings:
        inputs = ("files", "inputs")
        theirs = {k: v for k, v in progress.settings.items() if k not in inputs}
        ours = {k: v for k, v in settings.items() if k not in inputs}
        what = "other input files" if theirs == ours else f"other settings {theirs}"
        raise FileExistsError(
            f"{out} holds an unfinished run with {what}: rerun it with the same "
            f"inputs and options to finish it, or give an empty directory"
        )
    if not 0 <= progress.next_file <= files:
        raise ValueError(f"{progress_path}: a damaged progress file")
    # Shards written after the last progress record are written again.
    for index in _shard_indices(out):
        if index >= progress.shards:
            (out / f"shard-{index:05d}.npz").unlink()
    return progress


def build_shards(
    paths: Iterable[str | Path],
    out_dir: str | Path,
    size: int = 9,
    kind: str = "agz17",
    shard_size: int = 50_000,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, int]:
    """Turn SGF files into shards ``out_dir/shard-NNNNN.npz``; (games, examples) out.

    Examples are written in file order, ``shard_size`` per shard (the last may be
    smaller). ``progress(files_done)`` is called after each file (and once at the
    start of a resumed run, with the files already done).

    Resuming: when a run starts and after each shard, the run's progress
    (settings, inputs, files done, the examples read but not yet in a shard, the
    games seen) is written atomically to ``out_dir/``:data:`PROGRESS_FILE`; the
    file is removed when the run finishes, so shards without it are a finished
    run's, recorded in ``out_dir/``:data:`DONE_FILE`. A rerun on a directory
    holding a progress file, with the same inputs and settings, goes on from there
    and ends with the shards an uninterrupted run writes; on a finished directory
    it finds the work done and returns its counts. Shards of another run (other
    inputs or settings, or no record) are refused, as is an unfinished run with
    other inputs or settings (FileExistsError).

    Raises:
        TypeError, ValueError: a ``size``, ``kind`` or ``shard_size`` out of range.
        FileExistsError: see above.
    """
    size = coords.check_size(size)
    if kind not in PLANE_KINDS:
        raise ValueError(f"unknown plane kind {kind!r}")
    if isinstance(shard_size, bool) or not isinstance(shard_size, int):
        raise TypeError(f"shard_size must be an int, not {type(shard_size).__name__}")
    if shard_size < 1:
        raise ValueError(f"shard_size must be >= 1, not {shard_size}")
    files = sgf_files(paths)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)  # left by a killed run
    settings: dict[str, object] = {
        "size": size,
        "kind": kind,
        "shard_size": shard_size,
        "files": len(files),
        "inputs": _inputs_digest(files),
    }
    state = _start(out, settings, len(files))
    if state.finished:
        print(f"build_shards: {out} already holds this run's shards", file=sys.stderr)
        return state.games, state.examples
    pending: list[Examples] = [state.pending] if state.pending is not None else []
    held = sum(len(p) for p in pending)
    if state.next_file and progress is not None:
        progress(state.next_file)

    def flush(final: bool, files_done: int) -> None:
        nonlocal pending, held
        wrote = False
        while held >= shard_size or (final and held):
            merged = Examples.concat(pending)
            merged.take(slice(0, shard_size)).save(
                out / f"shard-{state.shards:05d}.npz"
            )
            state.shards += 1
            wrote = True
            rest = merged.take(slice(shard_size, None))
            pending, held = ([rest] if len(rest) else []), len(rest)
        if wrote and not final:
            state.next_file = files_done
            state.pending = Examples.concat(pending) if pending else None
            state.save(out / PROGRESS_FILE)

    todo = files[state.next_file :]
    records = _records(todo, size, state.seen)
    for done, (path, record) in enumerate(records, state.next_file + 1):
        if record is None:  # skipped, with a warning
            if progress is not None:
                progress(done)
            continue
        try:
            examples = game_examples(record, kind)
        except ValueError as exc:  # IllegalMoveError is a ValueError
            warnings.warn(f"{path}: skipped: {exc}", stacklevel=2)
            continue
        finally:
            if progress is not None:
                progress(done)
        if not len(examples):
            warnings.warn(f"{path}: skipped: no moves to learn from", stacklevel=2)
            continue
        pending.append(examples)
        held += len(examples)
        state.games += 1
        state.examples += len(examples)
        flush(final=False, files_done=done)
    flush(final=True, files_done=len(files))
    if state.shards:  # a rerun then finds the work done (with none, it redoes it)
        summary = {
            "version": _PROGRESS_VERSION,
            "settings": settings,
            "shards": state.shards,
            "games": state.games,
            "examples": state.examples,
        }
        atomic_write_bytes(
            out / DONE_FILE, json.dumps(summary, sort_keys=True).encode()
        )
    (out / PROGRESS_FILE).unlink(missing_ok=True)
    if state.games == 0:
        print(f"build_shards: no usable games in {len(files)} files", file=sys.stderr)
    return state.games, state.examples
