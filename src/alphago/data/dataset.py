"""SGF game records become training examples and shards.

Each move of a record's main line gives one example: the planes of the position before
the move (the mover's view), the move as a one-hot policy target, and the game's result
from the mover's side as the value target (+1 won, -1 lost, 0 tie: ``RE[0]``/``Draw``).

Skipped, each with a warning naming the file (a collection of real games holds a few):

- files that do not parse, are not Go, or have a board size other than the one asked;
- games without a usable result (none, ``?``, ``Void``, or a time/forfeit win with no
  moves), since they give no value target;
- games whose moves our rules refuse (Chinese rules: situational superko);
- duplicates (the same size, setup and move sequence as an earlier game).
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

import goboard

from ..nets.model import INPUT_PLANES
from ..sgf import GameRecord, play_as, read_sgf, start_board
from .examples import Examples

__all__ = ["build_shards", "game_examples", "result_winner", "sgf_files"]


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


def game_examples(record: GameRecord, kind: str = "agz17") -> Examples:
    """One example per move of ``record`` (see the module docstring).

    Raises:
        ValueError: no usable result; goboard.IllegalMoveError: an illegal move.
    """
    if kind not in INPUT_PLANES:
        raise ValueError(f"unknown plane kind {kind!r}")
    winner = result_winner(record.result)
    if winner is None:
        raise ValueError(f"no usable result ({record.result!r})")
    size = record.size
    board = start_board(record, "chinese")
    planes: list[np.ndarray] = []
    moves: list[int] = []
    values: list[float] = []
    for colour, point in record.moves:
        if board.is_over:
            break  # moves after two passes (or a resignation) teach nothing
        if board.to_play == colour:
            planes.append(board.features(kind, dtype=np.uint8))
            moves.append(point)
            values.append(0.0 if winner == 0 else (1.0 if winner == colour else -1.0))
        board = play_as(board, colour, point)
    n = len(moves)
    if n == 0:
        return Examples.empty(size, kind)
    policy = np.zeros((n, size * size + 1), np.float32)
    policy[np.arange(n), moves] = 1.0
    return Examples(np.stack(planes), policy, np.array(values, np.float32), kind)


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


def _records(files: list[Path], size: int) -> Iterator[tuple[Path, GameRecord | None]]:
    """Each file with its record, or with None (and a warning) when it is skipped."""
    seen: set[str] = set()
    for path in files:
        try:
            record = read_sgf(path.read_bytes())
        except (OSError, ValueError) as exc:
            warnings.warn(f"{path}: skipped: {exc}", stacklevel=3)
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
    smaller). ``progress(files_done)`` is called after each file. A directory that
    already holds shards is refused (FileExistsError).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if any(out.glob("shard-*.npz")):
        # Old shards beyond the new ones would be loaded with them.
        raise FileExistsError(f"{out} already holds shards: give an empty directory")
    files = sgf_files(paths)
    pending: list[Examples] = []
    held = games = total = shards = 0

    def flush(final: bool) -> None:
        nonlocal pending, held, shards
        while held >= shard_size or (final and held):
            merged = Examples.concat(pending)
            merged.take(slice(0, shard_size)).save(out / f"shard-{shards:05d}.npz")
            shards += 1
            rest = merged.take(slice(shard_size, None))
            pending, held = ([rest] if len(rest) else []), len(rest)

    for done, (path, record) in enumerate(_records(files, size), 1):
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
        if len(examples):
            pending.append(examples)
            held += len(examples)
            games += 1
            total += len(examples)
            flush(final=False)
    flush(final=True)
    if games == 0:
        print(f"build_shards: no usable games in {len(files)} files", file=sys.stderr)
    return games, total
