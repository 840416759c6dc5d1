"""Fuzz the GTP engine (alphago.gtp) in-process with command lines and sequences.

Each input builds a fresh engine over a tiny UCT player (1-8 simulations, a handful of
ownership playouts) on a small board and feeds it up to 16 command lines: mostly known
command names (the analysis commands with intervals and avoid/allow clauses,
``loadsgf`` of fuzzed SGF text, clock commands with huge, negative and NaN numbers,
``boardsize``/``clear_board``, ``genmove``, ``play``, ``undo``, handicap, scoring)
with fuzzer-chosen words as arguments, sometimes wholly arbitrary lines. Lines go
either one at a time through ``Engine.execute`` (an analysis stream told to stop
after a fuzzer-chosen number of search steps, as if the next command had arrived) or
all together through ``serve`` over a text stream (the real loop: reader thread,
stop on the next line, over-long lines).

Checks, each a finding when it fails:

- every response is well formed: ``=`` or ``?``, the command's numeric id echoed,
  one response per non-empty line, ending with an empty line and holding none before;
- no exception leaves the engine and no response is an ``internal error``;
- a ``?`` response leaves the game state (size, komi, setup, moves, clock settings)
  as it was, and the board always equals the replay of setup and moves;
- ``genmove`` answers a vertex of the board, ``pass`` or ``resign``.

File names given to ``loadsgf``/``printsgf`` are mapped to files in one temporary
folder (reused across inputs), so the fuzzer never touches the rest of the disk.

Run: ``python fuzz/fuzz_gtp.py -max_total_time=60 /tmp/fuzz-gtp fuzz/corpus/gtp``
(without atheris: replays the seed corpus once).
"""

from __future__ import annotations

import io
import os
import tempfile
import threading
from typing import Any

from fuzzinput import FuzzInput
from harness import instrumented, main

with instrumented():
    import numpy as np
    from numpy.typing import NDArray

    import goboard
    import search
    from alphago.gtp import Engine, serve
    from alphago.gtp.engine import Context
    from alphago.gtp.protocol import MAX_LINE, parse_command, preprocess
    from alphago.player import UCTPlayer
    from alphago.player_choice import UnacceptableSize
    from goboard import coords

_DIR = tempfile.mkdtemp(prefix="fuzz-gtp-")
SGF_PATH = os.path.join(_DIR, "input.sgf")
OUT_PATH = os.path.join(_DIR, "out.sgf")
MISSING_PATH = os.path.join(_DIR, "missing.sgf")
#: What a fuzzed file name may stand for; anything else is the fuzzed SGF file.
PATHS = {"missing": MISSING_PATH, "dir": _DIR, "out": OUT_PATH}

SIZES = (9, 5, 7, 2, 3, 13, 19, 4)
COLOURS = ("b", "w", "black", "white", "B", "WHITE", "x", "")
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZIabcdefghj"
NUMBERS = (
    "nan", "NaN", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e9", "-1e9", "1e10",
    "1000000000", "999999999999", "1000000000000", "-1", "-0", "0", "0.0", "1", "2",
    "4.5", "-7.5", "7.25", "1e-320", "0x10", "1_000", "9" * 25, "-" + "9" * 19,
    "+5", "٣", "½", "0.05", "3600", "86400000", "1e-3",
)  # fmt: skip
KEYWORDS = (
    "interval", "avoid", "allow", "ownership", "true", "false", "maxmoves",
    "minmoves", "pvVisits", "rootInfo", "ownershipStdev", "movesOwnership",
    "pvEdgeVisits", "TRUE", "b", "w",
)  # fmt: skip
STATUSES = ("alive", "dead", "seki", "none", "absolute", "byoyomi", "canadian", "x")

# Argument templates: c colour, v vertex, n number, i small integer, s board size,
# t time system, k analysis keyword, l vertex list, p file name, u status, x any.
COMMANDS = {
    "protocol_version": "", "name": "", "version": "", "known_command": "x",
    "list_commands": "", "quit": "", "boardsize": "s", "clear_board": "",
    "komi": "n", "play": "cv", "undo": "", "showboard": "", "genmove": "c",
    "reg_genmove": "c", "kgs-genmove_cleanup": "c", "fixed_handicap": "i",
    "place_free_handicap": "i", "set_free_handicap": "vvv", "time_settings": "nni",
    "kgs-time_settings": "tnni", "time_left": "cni", "final_score": "",
    "final_status_list": "u", "loadsgf": "pi", "printsgf": "p",
    "lz-analyze": "cikikkl", "kata-analyze": "cikkkik", "lz-genmove_analyze": "ciki",
    "kata-genmove_analyze": "cikk", "gogui-analyze_commands": "",
    "alphago-ownership": "",
}  # fmt: skip
NAMES = sorted(COMMANDS)
#: Commands that may stream; their header is "=id\n" instead of "=id ".
STREAMING = {n for n in NAMES if "analyze" in n and n != "gogui-analyze_commands"}


class ScriptedStop(threading.Event):
    """A stop signal that turns on after ``steps`` polls of the search, and at once
    when the stream waits for it: the next command arrives at a chosen moment."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def is_set(self) -> bool:
        self.steps -= 1
        if self.steps < 0:
            self.set()
        return super().is_set()

    def wait(self, timeout: float | None = None) -> bool:
        self.set()
        return True


def vertex(inp: FuzzInput) -> str:
    kind = inp.int(0, 7)
    if kind == 0:
        return inp.choice(("pass", "PASS", "resign", "Pass", "tt", "A0", "Z99"))
    return f"{inp.choice(LETTERS)}{inp.int(0, 26)}"


def word(inp: FuzzInput, kind: str) -> str:
    if kind == "c":
        return inp.choice(COLOURS)
    if kind == "v":
        return vertex(inp)
    if kind == "n":
        if inp.bool():
            return inp.choice(NUMBERS)
        return repr(inp.float()) if inp.bool() else str(inp.int(-100, 4000))
    if kind == "i":
        return str(inp.int(-3, 40)) if inp.bool() else inp.choice(NUMBERS)
    if kind == "s":
        return str(inp.choice(SIZES)) if inp.bool() else str(inp.int(-2, 30))
    if kind == "t":
        return inp.choice(STATUSES[3:])
    if kind == "k":
        return inp.choice(KEYWORDS)
    if kind == "l":
        return ",".join(vertex(inp) for _ in range(inp.int(0, 3)))
    if kind == "p":
        return inp.choice(("input", "missing", "dir", "out"))
    if kind == "u":
        return inp.choice(STATUSES)
    return inp.text(12)


def any_word(inp: FuzzInput) -> str:
    return word(inp, inp.choice("cvnisklpux"))


def sgf_text(inp: FuzzInput) -> bytes:
    """A fuzzed SGF file: raw bytes, or a game built from fuzzed pieces."""
    if inp.int(0, 3) == 0:
        return inp.bytes(300)
    size = inp.choice(("9", "5", "19", "0", "1", "2", "52", "7:5", "x", "-3", ""))
    props = [f"SZ[{size}]"] if inp.int(0, 4) else []
    if inp.bool():
        props.append(f"KM[{inp.choice(NUMBERS)}]")
    for _ in range(inp.int(0, 2)):
        props.append(
            inp.choice(("HA[2]", "AB[aa][bb]", "AW[cc]", "RU[Japanese]", "CA[latin1]"))
            + inp.choice(("", "PL[W]", "AE[aa]", "GM[2]", "FF[3]"))
        )
    nodes = []
    for _ in range(inp.int(0, 8)):
        colour = inp.choice(("B", "W", "b"))
        point = inp.choice(("", "tt")) if inp.int(0, 5) == 0 else ""
        if not point:
            point = inp.choice("abcdefghist") + inp.choice("abcdefghist")
        nodes.append(f";{colour}[{point}]")
    tail = inp.text(20) if inp.int(0, 3) == 0 else ""
    text = f"(;GM[1]FF[4]{''.join(props)}{''.join(nodes)}{tail})"
    return text.encode("utf-8", errors="surrogateescape")


def command_line(inp: FuzzInput) -> str:
    """One command line: a known name with fuzzed arguments, or arbitrary text."""
    ident = inp.choice(("", "", "", "1 ", "42 ", "007 ", "0 ", "9" * 20 + " ", "-1 "))
    kind = inp.int(0, 15)
    if kind == 0:
        return inp.text(80)
    if kind == 1:
        return ident + " ".join(any_word(inp) for _ in range(inp.int(0, 5)))
    name = inp.choice(NAMES)
    template = COMMANDS[name]
    words = []
    for k in template[: inp.int(0, len(template))] if inp.int(0, 3) else template:
        words.append(word(inp, k) if inp.int(0, 7) else any_word(inp))
    for _ in range(inp.int(0, 2) if inp.int(0, 3) == 0 else 0):
        words.append(any_word(inp))
    if name == "loadsgf" and inp.int(0, 3):
        with open(SGF_PATH, "wb") as f:
            f.write(sgf_text(inp))
    sep = inp.choice((" ", " ", "\t", "  "))
    line = ident + sep.join([name, *words])
    if inp.int(0, 15) == 0:
        line += inp.choice((" # comment", "\r", "\x00", " \x7f", "#"))
    return line


class SizedPlayer(UCTPlayer):
    """A player made for one board size (as a network is): asked about a board of
    another size, it fails the check. ``size`` 0: any size."""

    size = 0

    def _check(self, board: goboard.Board) -> None:
        assert self.size in (0, board.size), f"{self.size}x player on {board.size}x"

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        if isinstance(board, goboard.Board):
            self._check(board)
        return super().genmove(board, **kwargs)

    def ownership(self, board: goboard.Board) -> NDArray[np.float64]:
        self._check(board)
        return super().ownership(board)


def make_engine(inp: FuzzInput) -> Engine:
    sims = inp.int(1, 8)
    per_size = inp.bool()  # players by size, as alphago gtp picks them
    cap = inp.choice((0, 0, 5, 9, 13))  # players refuse sizes above this (0: none)
    playouts = inp.int(1, 8)
    size = inp.choice(SIZES[:4])

    def new_player(size: int, first: bool = False) -> SizedPlayer:
        if cap and size > cap and not first:
            raise UnacceptableSize(f"no player for {size}x{size}")
        config = search.UCTConfig(num_simulations=sims, max_nodes=4 * sims + 4)
        player = SizedPlayer(config, seed=1, ownership_playouts=playouts)
        player.size = size if per_size else 0
        return player

    engine = Engine(
        new_player(size, first=True),
        board_size=size,
        komi=inp.choice((7.5, 0.0, -3.5, 0.5)),
        rules=inp.choice(("chinese", "tromp-taylor")),
        resign_below=inp.choice((None, 0.45)),
        players=new_player if per_size else None,
        analysis_visits=inp.choice((None, None, 1, 3)),
        settle_before_pass=inp.bool(),
    )
    _confine_files(engine)
    return engine


def _confine_files(engine: Engine) -> None:
    """Map loadsgf/printsgf file names to the harness's own files."""
    for name in ("loadsgf", "printsgf"):
        handler = engine.commands[name]

        def confined(e: Engine, args: list[str], ctx: Context, h=handler) -> str:
            if args:
                args = [PATHS.get(args[0], SGF_PATH), *args[1:]]
            return h(e, args, ctx)

        engine.commands[name] = confined


def state(e: Engine) -> tuple[object, ...]:
    t = e.time
    clock = (t.system, t.main, t.byo_time, t.byo_stones, t.byo_periods)
    setup = {c: list(p) for c, p in e.setup.items()}
    return (e.size, e.komi, setup, list(e.moves), e.board.copy(), clock)


def expected_ident(line: str) -> str:
    words = preprocess(line).split()
    if words and words[0].isascii() and words[0].isdigit():
        return str(int(words[0])) if len(words[0]) <= 18 else words[0]
    return ""


def check_response(line: str, response: str | None) -> None:
    if len(line) > MAX_LINE:  # serve refuses it unread
        assert response == "? line too long\n\n", response
        return
    command = parse_command(line)
    if response is None:
        assert command is None and not preprocess(line), (line, response)
        return
    assert command is not None, (line, response)
    assert response[:1] in ("=", "?"), (line, response)
    assert response.endswith("\n\n"), (line, response)
    assert "\n\n" not in response[:-2], (line, response)
    assert "internal error" not in response, (line, response)
    ident = expected_ident(line) if command is not None else ""
    head = response[1 : 1 + len(ident)]
    assert head == ident, (line, response)
    after = response[1 + len(ident)]
    assert after == " " or (after == "\n" and response[0] == "="), (line, response)
    if after == "\n":  # a streaming response: only analysis commands stream
        assert command is not None and command.name in STREAMING, (line, response)


def check_state(e: Engine, line: str, before: tuple[object, ...], ok: bool) -> None:
    after = state(e)
    if not ok:
        assert after[:4] == before[:4] and after[5] == before[5], (line, before, after)
        assert after[4] == before[4], (line, "a failed command changed the board")
    replay = e.build(e.setup, e.moves)
    assert replay.stones().tolist() == e.board.stones().tolist(), line
    assert e.board.size == e.size, line


def check_genmove(e: Engine, line: str, response: str) -> None:
    command = parse_command(line)
    if command is None or response[0] != "=":
        return
    if command.name not in ("genmove", "reg_genmove", "kgs-genmove_cleanup"):
        return
    answer = response[:-2].partition(" ")[2].strip()
    if answer.lower() != "resign":
        coords.from_gtp(answer, e.size)  # raises on anything but a vertex or pass


def run_direct(e: Engine, inp: FuzzInput, lines: list[str]) -> None:
    for line in lines:
        before = state(e)
        if inp.int(0, 3) == 0:
            response = e.handle(line)
        else:
            parts: list[str] = []
            stop = ScriptedStop(inp.int(0, 6))
            handled = e.execute(line, parts.append, stop, wait=inp.bool())
            response = "".join(parts) if handled else None
        check_response(line, response)
        if response is not None:
            check_state(e, line, before, response[0] == "=")
            check_genmove(e, line, response)


def run_serve(e: Engine, lines: list[str]) -> None:
    out = io.StringIO()
    serve(e, io.StringIO("\n".join(lines) + "\n"), out)
    text = out.getvalue()
    expected = []
    for line in lines:
        if len(line) > MAX_LINE:
            expected.append((line, ""))
            continue
        for part in line.split("\n"):  # serve reads lines, so does a GUI
            command = parse_command(part)
            if command is not None:
                expected.append((part, command.name))
            if command is not None and command.name == "quit":
                break
        else:
            continue
        break
    responses = [r + "\n\n" for r in text.split("\n\n")[:-1]]
    assert text.endswith("\n\n") or not text, text
    assert len(responses) == len(expected), (lines, text)
    for (line, _), response in zip(expected, responses, strict=True):
        check_response(line, response)


def one_input(data: bytes) -> None:
    inp = FuzzInput(data)
    served = inp.int(0, 5) == 0
    e = make_engine(inp)
    lines = []
    while inp.remaining and len(lines) < 16:
        lines.append(command_line(inp))
    if served:
        if inp.int(0, 7) == 0:
            lines.append("x" * (MAX_LINE + 10))
        run_serve(e, lines)
    else:
        run_direct(e, inp, lines)


if __name__ == "__main__":
    main(one_input, "gtp")
