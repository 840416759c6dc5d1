"""GTP soak: ``alphago gtp`` driven like an analysis GUI for thousands of cycles.

Starts ``alphago gtp`` (by default the shipped 9x9 network, 32 simulations per
``genmove``, the analysis tree bounded by ``--analysis-memory 128``, one torch thread)
as a subprocess and runs *cycles*. A cycle starts an analysis (``lz-analyze`` or
``kata-analyze``, sometimes with ``ownership true`` or ``maxmoves``, with an interval),
reads 1 to 3 report lines, then sends the command that must stop it: ``play`` (a
random legal move), ``undo``, ``genmove``, another analysis, ``showboard``,
``name`` or ``kata-genmove_analyze``. A ``clear_board`` starts a new game when
the game is over or long. Commands carry ids (``17 play B E5``) so each response can
be matched.

What is checked (each failure is a *violation*; the run goes on after one, and
exits 1 at the end if there was any):

- every response starts with ``=ID`` or ``?ID`` for the id sent, and ends with an
  empty line; commands that must succeed do (``?`` is a violation);
- an analysis stream sends ``=ID`` and then only report lines until its closing empty
  line; after that line no report line may appear (*stale output*): a report line in
  the next command's response, or anywhere outside a stream, is a violation;
- every report line is well formed: ``info`` blocks with exactly Leela Zero's or
  KataGo's fields, numbers in range (winrates in [0, 10000] or [0, 1], priors,
  ``order`` 0, 1, 2, ... , visits most first), the ``maxmoves`` limit kept, and an
  ``ownership`` tail of N*N values in [-1, 1] exactly when asked for;
- every move in a report, and every move of its variation in turn, is legal in the
  position the analysis was started in (a report of an older position is stale
  output too); ``genmove``'s answer is legal, and ``showboard`` agrees with the
  stones the driver keeps;
- each report arrives within ``--line-timeout`` seconds and each response within
  ``--timeout`` seconds (a hang ends the run), and the engine exits 0 on ``quit``.

A report line without any ``info`` block (only ``ownership``: a search with nothing
visited yet) is counted (``empty_reports``) but not a violation.

Every ``--sample-every`` cycles the engine's RSS, peak RSS, threads and open
descriptors (``/proc/PID/``) go to ``OUT/soak_gtp.csv`` with the cycle count and the
violations so far (flushed row by row); ``OUT/soak_gtp.png`` plots them against
cycles. Growth check (``scripts/soak_selfplay.py``'s ``growth_check``): after the
warm-up of ``--warmup`` cycles (default 1000: the analysis tree, the network and the
allocator reach their working size), RSS may grow at most ``--max-rss-growth-mb``
(default 64 MB) to the end, its least-squares slope may be at most
``--max-rss-slope`` MB per 1000 cycles (default 2.0), and the descriptors may grow by
at most ``--max-fd-growth`` (default 2). ``OUT/protocol.log`` keeps the first
violations with the lines around them; ``OUT/soak_gtp.json`` the summary.

Exit status: 0 clean and flat; 1 a violation or growth beyond a threshold; 2 bad
arguments, too few samples to judge, or an engine that could not be started.

Example:

    .venv/bin/python scripts/soak_gtp.py --out /tmp/soak-gtp --cycles 10000
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak_selfplay import (  # noqa: E402 - the sibling script, found beside this one
    CsvLog,
    GrowthSummary,
    growth_check,
    read_csv,
    read_proc,
    write_plot,
)

import goboard  # noqa: E402
from goboard import coords  # noqa: E402

__all__ = ["Driver", "Violation", "check_report", "main"]

CSV_NAME = "soak_gtp.csv"
PNG_NAME = "soak_gtp.png"
JSON_NAME = "soak_gtp.json"
COLUMNS = (
    "elapsed_s",
    "cycles",
    "commands",
    "report_lines",
    "violations",
    "rss_mb",
    "hwm_mb",
    "threads",
    "fds",
)
LZ_KEYS = ("move", "visits", "winrate", "prior", "lcb", "order")
KATA_KEYS = (
    "move",
    "visits",
    "utility",
    "winrate",
    "scoreMean",
    "scoreStdev",
    "scoreLead",
    "scoreSelfplay",
    "prior",
    "lcb",
    "utilityLcb",
    "order",
)


class Violation(Exception):
    """A protocol violation (the message says which)."""


class EngineGone(Exception):
    """The engine closed its output or did not answer in time."""


# -- report lines ----------------------------------------------------------------------


@dataclass
class Report:
    """One parsed report line."""

    infos: list[dict[str, Any]] = field(default_factory=list)
    ownership: list[float] | None = None


def _number(word: str, integer: bool) -> float:
    try:
        return int(word) if integer else float(word)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise Violation(f"not {kind}: {word!r}") from None


def _legal_line(board: goboard.Board, moves: list[str], what: str) -> None:
    """Play ``moves`` (GTP vertices) from ``board`` in turn; Violation if one is not
    a vertex or not legal there."""
    probe = board.copy()
    for i, vertex in enumerate(moves):
        if probe.is_over:
            return  # a variation may go on past two passes; nothing to play there
        try:
            point = coords.from_gtp(vertex, probe.size)
        except ValueError:
            raise Violation(f"{what}: {vertex!r} is not a vertex") from None
        if not probe.is_legal(point):
            raise Violation(
                f"{what}: move {i + 1} ({vertex}) is illegal in the analysed position"
            )
        probe.play(point)


def check_report(
    line: str,
    kata: bool,
    board: goboard.Board,
    *,
    ownership: bool = False,
    max_moves: int = 0,
) -> Report:
    """Parse and check one analysis report line against the analysed ``board``.

    Raises:
        Violation: the line is malformed, or names a move illegal on ``board``.
    """
    words = line.split()
    report = Report()
    keys = KATA_KEYS if kata else LZ_KEYS
    i = 0
    n = board.size
    while i < len(words):
        word = words[i]
        if word == "ownership":
            if not (kata and ownership):
                raise Violation("ownership values that were not asked for")
            values = [_number(w, False) for w in words[i + 1 :]]
            if len(values) != n * n:
                raise Violation(f"{len(values)} ownership values, not {n * n}")
            if any(not -1.0 <= v <= 1.0 for v in values):
                raise Violation("an ownership value outside [-1, 1]")
            report.ownership = values
            break
        if word != "info":
            raise Violation(f"expected 'info' or 'ownership', got {word!r}")
        info: dict[str, Any] = {}
        i += 1
        for key in keys:
            if i + 1 >= len(words) or words[i] != key:
                got = words[i] if i < len(words) else "end of line"
                raise Violation(f"expected field {key!r}, got {got!r}")
            info[key] = words[i + 1]
            i += 2
        if i >= len(words) or words[i] != "pv":
            raise Violation("expected 'pv'")
        j = i + 1
        while j < len(words) and words[j] not in ("info", "ownership"):
            j += 1
        info["pv"] = words[i + 1 : j]
        i = j
        report.infos.append(info)
    if kata and ownership and report.ownership is None:
        raise Violation("ownership asked for and missing")
    if max_moves and len(report.infos) > max_moves:
        raise Violation(f"{len(report.infos)} moves listed, maxmoves {max_moves}")
    last_visits = None
    for order, info in enumerate(report.infos):
        for key in ("visits", "order") + (() if kata else ("winrate", "prior", "lcb")):
            info[key] = _number(info[key], True)
        if kata:
            for key in KATA_KEYS[2:-1]:
                info[key] = _number(info[key], False)
            for key in ("winrate", "prior", "lcb"):
                if not 0.0 <= info[key] <= 1.0:
                    raise Violation(f"{key} {info[key]} outside [0, 1]")
            for key in ("utility", "utilityLcb"):
                if not -1.0 <= info[key] <= 1.0:
                    raise Violation(f"{key} {info[key]} outside [-1, 1]")
        else:
            for key in ("winrate", "prior", "lcb"):
                if not 0 <= info[key] <= 10000:
                    raise Violation(f"{key} {info[key]} outside [0, 10000]")
        if info["order"] != order:
            raise Violation(f"order {info['order']} at position {order}")
        if info["visits"] < 1:
            raise Violation(f"a move listed with {info['visits']} visits")
        if last_visits is not None and info["visits"] > last_visits:
            raise Violation("moves not listed most visited first")
        last_visits = info["visits"]
        if not info["pv"] or info["pv"][0] != info["move"]:
            raise Violation(f"pv {info['pv']} does not start with {info['move']}")
        _legal_line(board, info["pv"], f"pv of {info['move']}")
    return report


# -- the driver ------------------------------------------------------------------------


class Driver:
    """Talks to one engine process: ids, a reader thread, the protocol checks."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        line_timeout: float,
        log: Path | None = None,
        max_logged: int = 50,
    ) -> None:
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.timeout = timeout
        self.line_timeout = line_timeout
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.next_id = 1
        self.commands = 0
        self.report_lines = 0
        self.empty_reports = 0
        self.violations: list[str] = []
        self.recent: list[str] = []  # the last lines both ways, for the log
        self.log_path = log
        self.max_logged = max_logged
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def _note(self, text: str) -> None:
        self.recent.append(text)
        del self.recent[:-12]

    def violation(self, message: str) -> None:
        self.violations.append(message)
        if self.log_path is not None and len(self.violations) <= self.max_logged:
            with open(self.log_path, "a") as f:
                f.write(f"violation {len(self.violations)}: {message}\n")
                for text in self.recent:
                    f.write(f"    {text[:300]}\n")

    def send(self, text: str) -> str:
        ident = str(self.next_id)
        self.next_id += 1
        self.commands += 1
        line = f"{ident} {text}"
        self._note(f">> {line}")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise EngineGone(f"cannot write to the engine: {exc}") from None
        return ident

    def line(self, timeout: float | None = None) -> str:
        try:
            got = self.lines.get(timeout=self.timeout if timeout is None else timeout)
        except queue.Empty:
            raise EngineGone("no output within the timeout") from None
        if got is None:
            raise EngineGone("the engine closed its output")
        self._note(f"<< {got}")
        return got

    def header(self, ident: str, stream: bool = False) -> tuple[bool, str]:
        """The first line of the response to ``ident``: (success, its text)."""
        first = self.line()
        if first.startswith(("info", "ownership", "play ")):
            raise Violation(f"stale output before response {ident}: {first[:60]!r}")
        if first[:1] not in "=?" or first[1:].split(" ", 1)[0] != ident:
            raise Violation(f"expected the response to {ident}, got {first[:60]!r}")
        text = first[1 + len(ident) :]
        if text and not text.startswith(" "):
            raise Violation(f"malformed response header {first[:60]!r}")
        return first[0] == "=", text.strip()

    def response(self, ident: str, must_succeed: bool = True) -> list[str]:
        """A plain response: its lines (first without the ``=ID``), up to the empty
        line. Report lines in it are stale output."""
        ok, text = self.header(ident)
        lines = [text]
        while True:
            nxt = self.line()
            if nxt == "":
                break
            if nxt.startswith(("info ", "ownership ")):
                raise Violation(f"stale analysis line in response {ident}")
            lines.append(nxt)
        if must_succeed and not ok:
            raise Violation(f"command {ident} failed: {' '.join(lines)[:80]!r}")
        if not ok:
            raise Violation(f"command {ident} failed: {text!r}")
        return lines


@dataclass
class Stream:
    """An analysis running in the engine."""

    ident: str
    kata: bool
    board: goboard.Board
    ownership: bool
    max_moves: int


class Soak:
    """The cycle loop: a mirror of the game, the command mix, the checks."""

    def __init__(self, driver: Driver, rng: random.Random, args: argparse.Namespace):
        self.d = driver
        self.rng = rng
        self.args = args
        self.size = args.size
        self.history: list[goboard.Board] = [self._new_board()]
        self.cycles = 0

    def _new_board(self) -> goboard.Board:
        return goboard.Board(self.size, self.args.komi, "chinese")

    @property
    def board(self) -> goboard.Board:
        return self.history[-1]

    def _colour(self) -> str:
        return "B" if self.board.to_play == goboard.BLACK else "W"

    def plain(self, text: str) -> list[str]:
        return self.d.response(self.d.send(text))

    def setup(self) -> None:
        self.plain(f"boardsize {self.size}")
        self.plain("clear_board")
        self.plain(f"komi {self.args.komi}")

    def start_analysis(self) -> Stream:
        kata = self.rng.random() < 0.5
        ownership = kata and self.rng.random() < 0.3
        max_moves = self.rng.choice((0, 0, 0, 3, 10))
        words = ["kata-analyze" if kata else "lz-analyze", str(self.args.interval)]
        if self.rng.random() < 0.5:
            words.insert(1, self._colour().lower())
        if max_moves:
            words += ["maxmoves", str(max_moves)]
        if ownership:
            words += ["ownership", "true"]
        ident = self.d.send(" ".join(words))
        ok, text = self.d.header(ident)
        if not ok or text:
            raise Violation(f"analysis {ident} answered {'=' if ok else '?'}{text!r}")
        return Stream(ident, kata, self.board.copy(), ownership, max_moves)

    def report(self, s: Stream, line: str) -> None:
        self.d.report_lines += 1
        report = check_report(
            line, s.kata, s.board, ownership=s.ownership, max_moves=s.max_moves
        )
        if not report.infos:
            self.d.empty_reports += 1

    def read_reports(self, s: Stream, count: int) -> None:
        for _ in range(count):
            line = self.d.line(self.args.line_timeout)
            if line == "":
                raise Violation(f"analysis {s.ident} ended by itself")
            self.report(s, line)

    def close_stream(self, s: Stream) -> None:
        """Reports may still come until the stream's empty line."""
        while True:
            line = self.d.line()
            if line == "":
                return
            self.report(s, line)

    def stopper(self) -> str:
        """The command that ends the running analysis (chosen at random)."""
        r = self.rng.random()
        if len(self.board.legal_moves()) <= 1 or self.board.is_over:
            return "clear_board"
        if self.board.move_number >= self.args.max_game_moves:
            return "clear_board"
        if r < 0.40:
            return "play"
        if r < 0.60:
            return "undo" if len(self.history) > 1 else "play"
        if r < 0.72:
            return "genmove"
        if r < 0.86:
            return "analyze"
        if r < 0.92:
            return "showboard"
        if r < 0.96:
            return "name"
        return "genmove_analyze"

    def random_move(self) -> int:
        moves = [m for m in self.board.legal_moves() if m != self.size * self.size]
        return self.rng.choice(moves) if moves else self.size * self.size

    def apply(self, point: int) -> None:
        board = self.board.copy()
        board.play(point)
        self.history.append(board)

    def cycle(self, stream: Stream | None) -> Stream | None:
        """One analysis start/stop; returns the stream left running (if any)."""
        if stream is None:
            stream = self.start_analysis()
        self.read_reports(stream, self.rng.randint(1, 3))
        kind = self.stopper()
        colour = self._colour()
        if kind == "play":
            point = self.random_move()
            ident = self.d.send(f"play {colour} {coords.to_gtp(point, self.size)}")
        elif kind == "undo":
            ident = self.d.send("undo")
        elif kind == "genmove":
            ident = self.d.send(f"genmove {colour}")
        elif kind == "analyze":
            ident = ""
        elif kind == "genmove_analyze":
            ident = self.d.send(f"kata-genmove_analyze {colour} {self.args.interval}")
        else:
            ident = self.d.send(kind)
        if kind == "analyze":
            # The new analysis is the stopper: its "=ID" comes after the old stream's
            # empty line.
            nxt = self.start_analysis_after(stream)
            self.cycles += 1
            return nxt
        self.close_stream(stream)
        self.cycles += 1
        if kind == "genmove_analyze":
            self.genmove_analyze(ident, colour)
            return None
        lines = self.d.response(ident)
        if kind == "play":
            self.apply(point)
        elif kind == "undo":
            self.history.pop()
        elif kind == "genmove":
            self.genmove_answer(lines[0], f"genmove {ident}")
        elif kind == "clear_board":
            self.history = [self._new_board()]
        elif kind == "showboard":
            self.check_showboard(lines)
        elif kind == "name" and lines[0] != "alphago":
            raise Violation(f"name answered {lines[0]!r}")
        return None

    def start_analysis_after(self, old: Stream) -> Stream:
        kata = self.rng.random() < 0.5
        words = ["kata-analyze" if kata else "lz-analyze", str(self.args.interval)]
        ident = self.d.send(" ".join(words))
        self.close_stream(old)
        ok, text = self.d.header(ident)
        if not ok or text:
            raise Violation(f"analysis {ident} answered {'=' if ok else '?'}{text!r}")
        return Stream(ident, kata, self.board.copy(), False, 0)

    def genmove_answer(self, answer: str, what: str) -> None:
        if answer.lower() == "resign":
            self.plain("clear_board")  # what a GUI does: a new game
            self.history = [self._new_board()]
            return
        try:
            point = coords.from_gtp(answer, self.size)
        except ValueError:
            raise Violation(f"{what}: answer {answer!r} is not a vertex") from None
        if not self.board.is_legal(point):
            raise Violation(f"{what}: {answer} is illegal")
        self.apply(point)

    def genmove_analyze(self, ident: str, colour: str) -> None:
        ok, text = self.d.header(ident)
        if not ok or text:
            raise Violation(f"genmove_analyze {ident} answered {text!r}")
        s = Stream(ident, True, self.board.copy(), False, 0)
        while True:
            line = self.d.line()
            if line.startswith("play "):
                break
            if line == "":
                raise Violation(f"genmove_analyze {ident} ended without 'play'")
            self.report(s, line)
        if self.d.line() != "":
            raise Violation(f"genmove_analyze {ident}: no empty line after 'play'")
        self.genmove_answer(line.split()[1], f"kata-genmove_analyze {ident}")

    def check_showboard(self, lines: list[str]) -> None:
        stones = self.board.stones()
        rows = [ln for ln in lines if ln[:2].strip().isdigit()]
        if len(rows) != self.size:
            raise Violation(f"showboard has {len(rows)} rows, not {self.size}")
        for r, row in enumerate(rows):
            cells = row.replace("(", " ").replace(")", " ").split()[1:-1]
            want = [
                {goboard.BLACK: "X", goboard.WHITE: "O"}.get(int(v), ".")
                for v in stones[r]
            ]
            got = ["." if c == "+" else c for c in cells]
            if got != want:
                raise Violation(f"showboard row {self.size - r} {got} != {want}")


# -- main ------------------------------------------------------------------------------


def _default_engine(args: argparse.Namespace) -> list[str]:
    exe = Path(sys.executable).with_name("alphago")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "alphago.cli"]
    return command + [
        "gtp",
        "--size",
        str(args.size),
        "--simulations",
        str(args.simulations),
        "--analysis-memory",
        str(args.analysis_memory),
        "--threads",
        "1",
        "--seed",
        str(args.seed),
    ]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, help="directory for the CSV, PNG, JSON, log")
    p.add_argument("--cycles", type=int, default=10_000)
    p.add_argument("--hours", type=float, default=None)
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.5)
    p.add_argument("--simulations", type=int, default=32, help="per genmove")
    p.add_argument("--analysis-memory", type=int, default=128, help="MB")
    p.add_argument("--interval", type=int, default=5, help="centiseconds")
    p.add_argument("--max-game-moves", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--engine",
        default=None,
        help="engine command line (default: this venv's alphago gtp with the "
        "options above)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="s per response")
    p.add_argument("--line-timeout", type=float, default=30.0, help="s per report")
    p.add_argument("--sample-every", type=int, default=50, help="cycles")
    p.add_argument("--plot-every", type=int, default=10, help="samples per redraw")
    p.add_argument("--warmup", type=float, default=1000, help="cycles left out")
    p.add_argument("--max-rss-growth-mb", type=float, default=64.0)
    p.add_argument("--max-rss-slope", type=float, default=2.0, help="MB/1000 cycles")
    p.add_argument("--max-fd-growth", type=int, default=2)
    p.add_argument("--analyze", type=Path, default=None, help="only judge a CSV")
    return p


def _judge(
    rows: list[dict[str, float]], args: argparse.Namespace
) -> GrowthSummary | None:
    try:
        return growth_check(
            rows,
            "cycles",
            args.warmup,
            max_rss_growth_mb=args.max_rss_growth_mb,
            max_rss_slope=args.max_rss_slope,
            max_fd_growth=args.max_fd_growth,
        )
    except ValueError as exc:
        print(f"soak_gtp: cannot judge: {exc}", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.analyze is not None:
        summary = _judge(read_csv(args.analyze), args)
        if summary is None:
            return 2
        print("\n".join(summary.lines()))
        return 0 if summary.ok else 1
    if args.out is None or args.cycles < 1:
        print("soak_gtp: --out and --cycles >= 1 are required", file=sys.stderr)
        return 2
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    command = shlex.split(args.engine) if args.engine else _default_engine(args)
    (out / "protocol.log").write_text(f"engine: {shlex.join(command)}\n")
    try:
        driver = Driver(
            command,
            timeout=args.timeout,
            line_timeout=args.line_timeout,
            log=out / "protocol.log",
        )
    except OSError as exc:
        print(f"soak_gtp: cannot start {command[0]}: {exc}", file=sys.stderr)
        return 2
    print(f"soak_gtp: engine pid {driver.pid}: {shlex.join(command)}", flush=True)
    soak = Soak(driver, random.Random(args.seed), args)
    log = CsvLog(out / CSV_NAME, COLUMNS)
    start = time.monotonic()
    deadline = None if args.hours is None else start + 3600.0 * args.hours
    title = f"alphago gtp under a GUI-like load (interval {args.interval} cs)"

    def sample() -> None:
        row: dict[str, float] = {
            "elapsed_s": time.monotonic() - start,
            "cycles": soak.cycles,
            "commands": driver.commands,
            "report_lines": driver.report_lines,
            "violations": len(driver.violations),
        }
        row.update(read_proc(driver.pid))
        log.add(row)
        print(
            f"[{row['elapsed_s']:7.0f}s] cycles {soak.cycles} commands "
            f"{driver.commands} reports {driver.report_lines} violations "
            f"{len(driver.violations)} rss {row['rss_mb']:.1f} MB fds "
            f"{row['fds']:.0f} threads {row['threads']:.0f}",
            flush=True,
        )

    def plot(final: bool) -> None:
        rows = log.rows
        state = "complete" if final else "partial, still running"
        last = rows[-1]
        write_plot(
            rows,
            "cycles",
            out / PNG_NAME,
            f"{title} ({state})\n{shlex.join(command[1:])}",
            warmup=args.warmup,
            extra=(
                f"{last['cycles']:.0f} cycles, {last['commands']:.0f} commands, "
                f"{last['report_lines']:.0f} report lines, "
                f"{last['violations']:.0f} violations, "
                f"{last['elapsed_s'] / 60:.0f} min"
            ),
        )

    gone: str | None = None
    stream: Stream | None = None
    try:
        soak.setup()
        sample()
        while soak.cycles < args.cycles:
            if deadline is not None and time.monotonic() >= deadline:
                break
            before = soak.cycles
            try:
                stream = soak.cycle(stream)
            except Violation as exc:
                driver.violation(str(exc))
                stream = None
                _resync(soak)
            if soak.cycles // args.sample_every != before // args.sample_every:
                sample()
                if len(log.rows) % args.plot_every == 0:
                    plot(final=False)
    except EngineGone as exc:
        gone = str(exc)
        driver.violation(f"engine gone: {exc}")
    except KeyboardInterrupt:
        gone = "interrupted"
    quit_rc: int | None = None
    if gone is None:
        try:
            if stream is not None:
                ident = driver.send("quit")
                soak.close_stream(stream)
            else:
                ident = driver.send("quit")
            driver.response(ident)
            quit_rc = driver.proc.wait(timeout=30)
            if quit_rc != 0:
                driver.violation(f"the engine exited {quit_rc} after quit")
        except (Violation, EngineGone, subprocess.TimeoutExpired) as exc:
            driver.violation(f"quit: {exc}")
    if driver.proc.poll() is None:
        if log.rows[-1]["cycles"] != soak.cycles:
            sample()
        driver.proc.kill()
        driver.proc.wait()
    log.close()
    plot(final=True)
    summary = _judge(log.rows, args)
    result: dict[str, Any] = {
        "engine": command,
        "cycles": soak.cycles,
        "commands": driver.commands,
        "report_lines": driver.report_lines,
        "empty_reports": driver.empty_reports,
        "violations": len(driver.violations),
        "first_violations": driver.violations[:20],
        "engine_gone": gone,
        "quit_exit_status": quit_rc,
        "seconds": time.monotonic() - start,
    }
    if summary is not None:
        result["summary"] = asdict(summary) | {"ok": summary.ok}
    (out / JSON_NAME).write_text(json.dumps(result, indent=1))
    print(
        f"cycles {soak.cycles}, commands {driver.commands}, report lines "
        f"{driver.report_lines} ({driver.empty_reports} without moves), violations "
        f"{len(driver.violations)}"
        + (f", engine gone: {gone}" if gone else "")
        + f", quit exit status {quit_rc}"
    )
    for message in driver.violations[:10]:
        print(f"  violation: {message}")
    if summary is not None:
        print("\n".join(summary.lines()), flush=True)
    if summary is None:
        return 2
    return 0 if summary.ok and not driver.violations and gone is None else 1


def _resync(soak: Soak) -> None:
    """After a violation: drain what the engine still sends, then agree on a fresh
    board (a known state for the next cycle)."""
    d = soak.d
    ident = d.send("clear_board")
    deadline = time.monotonic() + d.timeout  # an engine that never answers is gone
    while True:
        if time.monotonic() > deadline:
            raise EngineGone("no answer to clear_board after a violation")
        line = d.line()
        if line.startswith(f"={ident}") or line.startswith(f"?{ident}"):
            while d.line() != "":
                pass
            break
    soak.history = [soak._new_board()]


if __name__ == "__main__":
    sys.exit(main())
