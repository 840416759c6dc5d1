"""Fuzz the SGF loader (alphago.sgf.read_sgf) and the shards conversion behind
`alphago shards` (alphago.data.dataset.build_shards) with SGF text.

Inputs are either raw bytes or SGF built by the fuzzer from real structure: root
properties (SZ, KM, HA, AB/AW with ranges, PL, RE, CA charsets, GM, FF, names), a main
line of B/W moves with good and bad coordinates, variations and deep nesting, text in
several encodings, and spliced bytes.

Checks:

- read_sgf returns a record or raises ValueError (IllegalMoveError is one): no other
  exception type. An accepted record is sane (size 2..19, finite komi in range, points
  on the board, colours BLACK/WHITE) and survives write_sgf -> read_sgf unchanged.
- Replaying an accepted record (alphago.sgf.replay, the C board) agrees with the
  same replay on the pure-Python goboard.reference board: the same final position, or
  both refuse the game with the same error type.
- build_shards on a temp directory holding the file never raises; a game it does not
  take is skipped with a warning naming the file; it leaves no progress or temporary
  file behind; every shard loads and holds consistent arrays (0/1 uint8 planes,
  one-hot float32 policies, values in {-1, 0, 1}); the examples match what the
  reference replay says the game gives.

Run: python fuzz/fuzz_sgf.py -max_total_time=60 [work-corpus-dir] fuzz/corpus/sgf
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
from fuzzinput import FuzzInput
from harness import fuzzing, instrumented, main

if fuzzing():  # coverage of sgfmill's parser too: imported here before alphago's
    import atheris

    with atheris.instrument_imports(include=["sgfmill"]):
        import sgfmill.sgf  # noqa: F401

with instrumented():
    import goboard
    from alphago.data.dataset import DONE_FILE, build_shards, result_winner
    from alphago.data.examples import PROGRESS_NAME, Examples
    from alphago.sgf import GameRecord, read_sgf, replay, write_sgf
    from goboard import reference

B, W = goboard.BLACK, goboard.WHITE
_SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None

SIZES = [
    "9",
    "19",
    "5",
    "2",
    "3",
    "13",
    "1",
    "0",
    "-9",
    "20",
    "25",
    "52",
    "9:9",
    "9:13",
    "7:5",
    "",
    "x",
    " 9",
    "9 ",
    "999999999999999999999",
    "1e1",
    "٩",
]
KOMIS = [
    "6.5",
    "7.5",
    "0",
    "-7",
    "1000",
    "1000.5",
    "-1001",
    "1e308",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "abc",
    "",
    "0x10",
    "7,5",
    " 6.5",
    "6.5.5",
    "1_000",
]
RESULTS = [
    "B+3.5",
    "W+R",
    "B+Resign",
    "W+T",
    "B+F",
    "0",
    "Draw",
    "Jigo",
    "Void",
    "?",
    "",
    "White wins by 3",
    "Black wins",
    "B+",
    "W",
    "b+1",
    "+",
    "B+∞",
]
CHARSETS = [
    "UTF-8",
    "utf8",
    "ISO-8859-1",
    "latin-1",
    "Shift_JIS",
    "GB2312",
    "big5",
    "cp1252",
    "koi8-r",
    "EUC-KR",
    "UTF-16",
    "utf-32",
    "base64",
    "zlib",
    "rot13",
    "hex",
    "uu",
    "bz2",
    "idna",
    "punycode",
    "unicode_escape",
    "raw_unicode_escape",
    "mbcs",
    "nosuch",
    "",
    "UTF-7",
    "cp037",
    "ascii",
]
TEXTS = [
    "Alice",
    "Bob",
    "李昌镐",
    "Ünïcödé",
    "a\\]b",
    "x\\\\",
    "tab\there",
    "\n",
    "",
    "]",
    "\\",
    "日本棋院",
    "é" * 3,
]
PROPS = [
    "FF",
    "GM",
    "SZ",
    "KM",
    "HA",
    "AB",
    "AW",
    "AE",
    "PL",
    "RE",
    "CA",
    "PB",
    "PW",
    "RU",
    "GC",
    "C",
    "B",
    "W",
    "TB",
    "MN",
    "ST",
    "AP",
    "DT",
    "XX",
    "b",
    "Sz",
]


def _coord(inp: FuzzInput, size: int, shift: int = 0) -> str:
    """An SGF point (spread over the board by ``shift`` where the input ran out), or
    a bad one."""
    if inp.int(0, 9) <= 6:
        letters = "abcdefghijklmnopqrstuvwxyz"
        point = (inp.int(0, size * size - 1) + shift * 7) % (size * size)
        return letters[point % size] + letters[point // size]
    return inp.choice(["", "tt", "zz", "A", "aaa", "a", "AA", "a1", "ab:cd", "  "])


def _value(inp: FuzzInput, prop: str, size: int) -> str:
    if prop == "SZ":
        return inp.choice(SIZES)
    if prop == "KM":
        return inp.choice(KOMIS)
    if prop == "HA":
        return inp.choice(["0", "2", "9", "-1", "x", "400"])
    if prop in ("AB", "AW", "AE", "TB"):
        first = _coord(inp, size)
        if inp.int(0, 3) == 0:
            return f"{first}:{_coord(inp, size)}"  # a rectangle
        return first
    if prop == "PL":
        return inp.choice(["B", "W", "b", "w", "x", "", "BW"])
    if prop == "RE":
        return inp.choice(RESULTS)
    if prop == "CA":
        return inp.choice(CHARSETS)
    if prop == "GM":
        return inp.choice(["1", "2", "0", "x", ""])
    if prop == "FF":
        return inp.choice(["4", "3", "1", "5", ""])
    if prop in ("B", "W"):
        return _coord(inp, size)
    if prop in ("PB", "PW", "RU", "GC", "C", "DT", "AP"):
        return inp.choice(TEXTS)
    return inp.text(8)


def _node(inp: FuzzInput, size: int, root: bool, number: int = 0) -> str:
    parts = [";"]
    for _ in range(inp.int(0, 6) if root else inp.choice([0, 0, 0, 1, 2])):
        prop = inp.choice(PROPS)
        values = "".join(f"[{_value(inp, prop, size)}]" for _ in range(inp.int(1, 3)))
        parts.append(prop + values)
    if not root or inp.int(0, 3) == 0:
        colour = "BW"[number % 2] if inp.int(0, 7) != 7 else inp.choice("BWbX")
        parts.append(f"{colour}[{_coord(inp, size, number)}]")
    return "".join(parts)


def _sgf(inp: FuzzInput) -> bytes:
    """A game record built from the fuzzer's choices, encoded as it chooses."""
    size = inp.choice([9, 9, 9, 5, 19, 2, 3, 13])
    root = f";FF[4]GM[1]SZ[{size}]" if inp.bool() else ""
    root += _node(inp, size, root=True)
    if inp.int(0, 2) != 2:
        root += f"RE[{inp.choice(RESULTS)}]"
    body = "".join(_node(inp, size, False, i) for i in range(inp.int(0, 40)))
    for _ in range(inp.choice([0, 0, 0, 1, 2])):  # variations end a sequence
        nodes = (_node(inp, size, False) for _ in range(inp.int(1, 3)))
        body += "(" + "".join(nodes) + ")"
    depth = inp.choice([0, 0, 0, 1, 3, 100, 1200])
    nested = "(;B[aa]" * depth + ")" * depth  # deep nesting
    text = "(" + root + body + nested + (")" if inp.int(0, 7) != 7 else "")
    if inp.int(0, 7) == 7:
        text = text + text  # a collection of two games
    encoding = inp.choice(["utf-8", "utf-8", "latin-1", "shift_jis", "utf-16"])
    data = text.encode(encoding, errors="replace")
    if inp.int(0, 3) == 3:  # splice the fuzzer's bytes in somewhere
        at = inp.int(0, len(data))
        data = data[:at] + inp.bytes(16) + data[at + inp.int(0, 4) :]
    return data


# -- the reference replay ------------------------------------------------------------


def _ref_start(record: GameRecord) -> reference.Board:
    """alphago.sgf.start_board on the reference board."""
    n, komi = record.size, record.komi
    if not record.setup:
        board = reference.Board(n, komi, "chinese")
        if record.to_play == W:
            board = reference.Board.from_stones(board.stones(), W, komi, "chinese")
        return board
    flat = [0] * (n * n)
    for colour, points in record.setup.items():
        for p in points:
            if not 0 <= p < n * n:
                raise ValueError(f"setup point {p} is off the board")
            flat[p] = colour
    first = record.to_play
    if first is None:
        first = W if W not in record.setup else B
    return reference.Board.from_stones(
        np.array(flat).reshape(n, n), first, komi, "chinese"
    )


def _ref_play_as(board: reference.Board, colour: int, point: int) -> reference.Board:
    """alphago.sgf.play_as on the reference board."""
    if board.to_play != colour and not board.is_over and board.passes == 0:
        board.play(board.size * board.size)
    if board.to_play != colour or board.is_over:
        board = reference.Board.from_stones(
            board.stones(), colour, board.komi, board.rules
        )
    board.play(point)
    return board


def _ref_replay(record: GameRecord) -> tuple[object, int]:
    """(final board or the exception, examples build_shards takes from the game)."""
    examples = 0
    stopped = False
    try:
        board = _ref_start(record)
        for colour, point in record.moves:
            stopped = stopped or board.is_over
            if not stopped and board.to_play == colour:
                examples += 1
            board = _ref_play_as(board, colour, point)
    except ValueError as exc:
        return exc, (examples if stopped else -1)
    return board, examples


def _check_record(record: GameRecord) -> None:
    n = record.size
    assert 2 <= n <= 19, n
    assert math.isfinite(record.komi) and -1000 <= record.komi <= 1000, record.komi
    for colour, point in record.moves:
        assert colour in (B, W) and 0 <= point <= n * n, (colour, point)
    for colour, points in record.setup.items():
        assert colour in (B, W) and all(0 <= p < n * n for p in points), record.setup
    assert record.to_play in (None, B, W)
    again = read_sgf(write_sgf(record))
    assert again == record, (record, again)


def _check_replay(record: GameRecord) -> tuple[object, int] | None:
    """Compare the C board's replay with the reference's; the reference's result (None
    where the game is too long for the slow reference board)."""
    if len(record.moves) * record.size**2 > 60 * 361:
        return None
    ours: object
    try:
        ours = replay(record, "chinese")
    except ValueError as exc:
        ours = exc
    theirs, examples = _ref_replay(record)
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        assert type(ours) is type(theirs), (ours, theirs)
    else:
        assert isinstance(ours, goboard.Board)
        assert isinstance(theirs, reference.Board)
        assert np.array_equal(ours.stones(), theirs.stones())
        assert ours.to_play == theirs.to_play and ours.captures == theirs.captures
        assert ours.is_over == theirs.is_over
    return theirs, examples


def _check_shards(out: Path, games: int, examples: int, size: int) -> Examples | None:
    names = sorted(p.name for p in out.iterdir())
    assert PROGRESS_NAME not in names, names
    if not names:
        assert games == 0 and examples == 0
        return None
    # The shards and the finished run's record; no temporary or partial files.
    shards = [f"shard-{i:05d}.npz" for i in range(len(names) - 1)]
    assert names == [*shards, DONE_FILE], names
    done = json.loads((out / DONE_FILE).read_text())
    assert (done["shards"], done["games"], done["examples"]) == (
        len(shards),
        games,
        examples,
    )
    loaded = [Examples.load(out / name) for name in shards]
    total = Examples.concat(loaded)
    assert len(total) == examples and games >= 1
    n = size
    assert total.planes.dtype == np.uint8 and total.planes.shape[2:] == (n, n)
    assert total.planes.max() <= 1
    policy = total.policy
    assert policy.dtype == np.float32 and policy.shape == (examples, n * n + 1)
    assert set(np.unique(policy)) <= {0.0, 1.0} and np.all(policy.sum(1) == 1.0)
    assert set(np.unique(total.value)) <= {-1.0, 0.0, 1.0}
    return total


def _shards(data: bytes, inp: FuzzInput, record: GameRecord | None) -> None:
    size = inp.choice([record.size if record else 9, 9, 5, 19])
    shard_size = inp.int(1, 40)
    twice = inp.int(0, 7) == 7  # the same game again: a duplicate, skipped
    tmp = Path(tempfile.mkdtemp(prefix="fuzz-sgf-", dir=_SCRATCH))
    try:
        games_dir, out = tmp / "games", tmp / "out"
        games_dir.mkdir()
        (games_dir / "game.sgf").write_bytes(data)
        if twice:
            (games_dir / "game2.sgf").write_bytes(data)
        with (
            warnings.catch_warnings(record=True) as caught,
            contextlib.redirect_stderr(io.StringIO()),
        ):
            warnings.simplefilter("always")
            games, examples = build_shards([games_dir], out, size, "agz17", shard_size)
        messages = [str(w.message) for w in caught]
        total = _check_shards(out, games, examples, size)
        assert games <= 1
        if twice:
            assert any("game2.sgf: skipped" in m for m in messages), messages
        if games == 0:  # every game not taken is named in a warning
            assert any("game.sgf: skipped" in m for m in messages), messages
        if record is None:
            assert games == 0
            return
        if record.size != size or result_winner(record.result) is None:
            assert games == 0
            return
        checked = _check_replay(record)
        if checked is None:
            return
        final, expected = checked
        if expected < 0:  # the reference refused a move build_shards reads
            assert games == 0, final
        else:
            assert examples == expected, (examples, expected)
            if total is not None:
                winner = result_winner(record.result)
                assert winner == 0 or set(np.unique(total.value)) <= {-1.0, 1.0}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def one_input(data: bytes) -> None:
    inp = FuzzInput(data)
    sgf_bytes = inp.rest() if inp.int(0, 3) == 0 else _sgf(inp)
    record: GameRecord | None
    try:
        record = read_sgf(sgf_bytes)
    except ValueError:
        record = None
    if record is not None:
        _check_record(record)
        _check_replay(record)
    _shards(sgf_bytes, inp, record)  # after a raw tail its choices read as zeros


if __name__ == "__main__":
    main(one_input, "sgf")
