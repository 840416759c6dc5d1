"""The command sequences GUIs send, replayed through serve() with their timing.

Lizzie 0.7.4 (Leela Zero mode) and qGo 2.1 were watched through a logging wrapper:
these are the commands they send and what they need from each answer. Pondering
analysis, per-move score estimates and avoid/allow are checked here too.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gtp_helpers import Collector, PipeWriter, fails, make_engine, ok, parse_info

import goboard
import search
from alphago.gtp import DEFAULT_VERSION, Engine, serve
from alphago.player import UCTPlayer


class Session:
    """An engine under serve() on a pipe, with timestamped output lines."""

    def __init__(self, engine: Engine) -> None:
        self.pipe = PipeWriter()
        self.out = TimedCollector()
        self.thread = threading.Thread(
            target=serve, args=(engine, self.pipe.reader, self.out), daemon=True
        )
        self.thread.start()

    def ask(self, command: str, timeout: float = 20.0) -> str:
        """Send a numbered command; its response text once complete."""
        ident = str(next_id())
        start = len(self.out.getvalue())
        self.pipe.send(f"{ident} {command}\n")
        head = f"={ident}"
        self.out.wait_for_after(start, head, timeout)
        begin = self.out.getvalue().index(head, start)
        self.out.wait_for_after(begin, "\n\n", timeout)
        text = self.out.getvalue()
        return text[begin : text.index("\n\n", begin) + 2]

    def start_stream(self, command: str, timeout: float = 20.0) -> int:
        """Send an analysis command; the output offset where its stream starts."""
        start = len(self.out.getvalue())
        self.pipe.send(f"{command}\n")
        self.out.wait_for_after(start, "info move", timeout)
        return start

    def report_gaps(self, command: str, seconds: float) -> list[float]:
        """Start an analysis stream, watch it for ``seconds``: the seconds between
        its report lines (at least two gaps)."""
        begin = time.monotonic()
        self.start_stream(command)
        time.sleep(seconds)
        stamps = self.out.info_times(begin)
        assert len(stamps) >= 3, self.out.getvalue()
        return [b - a for a, b in zip(stamps, stamps[1:], strict=False)]

    def close(self) -> None:
        try:
            self.pipe.send("quit\n")
            self.thread.join(timeout=10)
            assert not self.thread.is_alive()
        finally:
            self.pipe.close()


_ids = iter(range(1, 10**6))


def next_id() -> int:
    return next(_ids)


class TimedCollector(Collector):
    """Output that remembers when each line arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.stamps: list[tuple[float, str]] = []
        self._partial = ""

    def write(self, text: str) -> int:
        now = time.monotonic()
        self._partial += text
        *done, self._partial = self._partial.split("\n")
        self.stamps.extend((now, line) for line in done)
        return super().write(text)

    def wait_for_after(self, start: int, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.getvalue()[start:]:
            assert time.monotonic() < deadline, self.getvalue()[start:]
            time.sleep(0.01)

    def info_times(self, since: float) -> list[float]:
        return [t for t, line in self.stamps if t >= since and line.startswith("info")]


def total_visits(line: str) -> int:
    return sum(int(str(m["visits"])) for m in parse_info(line) if "visits" in m)


def test_lizzie_session() -> None:
    # Lizzie: identification, setup, then analysis that runs while the user plays.
    engine = make_engine(size=19, sims=40)
    s = Session(engine)
    try:
        assert s.ask("name").endswith(" alphago\n\n")
        version = s.ask("version").split(" ", 1)[1].strip()
        assert version == DEFAULT_VERSION and int(version.split(".")[1]) >= 15
        for command in ("boardsize 19", "komi 7.5", "clear_board"):
            assert s.ask(command).startswith("=")
        # lz-analyze 50: a report every 0.5 s, and the stream goes on after the
        # search budget (40) is spent: Lizzie keeps showing "pondering".
        gaps = s.report_gaps("lz-analyze 50", seconds=1.8)
        assert min(gaps) > 0.3 and max(gaps) < 1.0, gaps
        # A play batch during analysis: the stream closes at once, then each answer.
        sent = time.monotonic()
        assert s.ask("play b Q16").startswith("=")
        assert time.monotonic() - sent < 1.0
        assert s.ask("play w D4").startswith("=")
        s.start_stream("lz-analyze 50")
        sent = time.monotonic()
        assert s.ask("undo").startswith("=")  # undo during analysis
        assert time.monotonic() - sent < 1.0
        assert engine.moves == [(goboard.BLACK, goboard.coords.from_gtp("Q16", 19))]
        # kata-analyze with ownership: 361 values after the moves on each line.
        # (Playouts for ownership and per-move scores: slow on the sanitizer build.)
        start = s.start_stream("kata-analyze 50 ownership true", timeout=180.0)
        time.sleep(0.6)
        text = s.out.getvalue()[start:]
        line = next(ln for ln in text.split("\n") if ln.startswith("info"))
        moves = parse_info(line)
        assert len(moves[-1]["ownership"]) == 361  # type: ignore[arg-type]
        assert s.ask("name").endswith(" alphago\n\n")
    finally:
        s.close()


class EndsJustAfterAReport(UCTPlayer):
    """A search that sends one periodic report, then ends 30% of an interval later."""

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        every, on_result = kwargs.pop("every_seconds"), kwargs.pop("on_result")
        result = super().genmove(board, **kwargs)
        time.sleep(every)
        on_result(result)
        time.sleep(0.3 * every)
        return result


def test_the_final_report_keeps_the_cadence() -> None:
    # CI caught a gap of 0.26 s in a 0.5 s stream: the final report went out as soon
    # as the search ended, straight after a periodic one. It waits for the next tick.
    player = EndsJustAfterAReport(search.UCTConfig(num_simulations=8), seed=1)
    s = Session(Engine(player, board_size=9, komi=7.5))
    try:
        gaps = s.report_gaps("lz-analyze 50", seconds=1.7)
        assert min(gaps) >= 0.49, gaps  # never sooner than the interval
        assert s.ask("name").endswith(" alphago\n\n")
    finally:
        s.close()


def test_qgo_session() -> None:
    # qGo numbers nothing (unless the engine path ends in gnugo) and sends komi with
    # two decimals and colours spelled out.
    e = make_engine(size=19, sims=16)
    assert e.handle("protocol_version") == "= 2\n\n"
    assert e.handle("boardsize 9") == "= \n\n"
    assert e.handle("clear_board") == "= \n\n"
    assert e.handle("komi 7.50") == "= \n\n" and e.komi == 7.5
    assert e.handle("play black E5") == "= \n\n"
    answer = ok(e, "genmove white")
    point = goboard.coords.from_gtp(answer, 9)
    assert e.moves == [(1, 40), (-1, point)] and point != 40


def analysis_lines(engine: Engine, command: str, seconds: float) -> list[str]:
    """The report lines an analysis streams for ``seconds`` under serve()."""
    s = Session(engine)
    try:
        start = s.start_stream(command)
        time.sleep(seconds)
        s.ask("name")
        text = s.out.getvalue()[start:]
    finally:
        s.close()
    return [ln for ln in text.split("\n") if ln.startswith("info")]


def test_analysis_ponders_past_the_move_budget_and_respects_a_cap() -> None:
    lines = analysis_lines(make_engine(size=9, sims=16), "lz-analyze 20", 1.0)
    assert total_visits(lines[-1]) > 16  # more than genmove's budget
    capped = make_engine(size=9, sims=1000, analysis_visits=30)
    lines = analysis_lines(capped, "lz-analyze 10", 0.8)
    assert total_visits(lines[-1]) <= 30 + 1


def test_kata_scores_belong_to_each_move() -> None:
    # White's D3 string is in atari (liberty E4... only C4 left): capturing it is
    # worth far more than the first line, and the estimates must say so.
    board = goboard.Board(5, komi=0.5)
    e = make_engine(size=5, sims=300)
    for colour, vertex in [
        ("b", "C2"),
        ("w", "C3"),
        ("b", "B3"),
        ("w", "A5"),
        ("b", "D3"),
        ("w", "E5"),
    ]:
        ok(e, f"play {colour} {vertex}")
        board.play_gtp(vertex)
    response = e.handle("kata-analyze 0")
    assert response is not None
    line = response[:-2].split("\n")[-1]
    moves = {str(m["move"]): m for m in parse_info(line)}
    means = {v: float(str(m["scoreMean"])) for v, m in moves.items()}
    assert len(set(means.values())) > 1, means  # not one constant for every move
    assert all(float(str(m["scoreStdev"])) >= 0 for m in moves.values())
    assert means["C4"] == max(means.values()), means  # the capture scores best


def test_avoid_and_allow_restrict_the_searched_moves() -> None:
    e = make_engine(size=5, sims=200)
    centre = ["B2", "C2", "D2", "B3", "C3", "D3", "B4", "C4", "D4"]
    response = e.handle(f"lz-analyze 0 avoid b {','.join(centre)} 1")
    assert response is not None
    listed = {str(m["move"]) for m in parse_info(response[:-2].split("\n")[-1])}
    assert listed and not listed & set(centre)
    response = e.handle("lz-analyze 0 allow b A1,E5 1")
    assert response is not None
    listed = {str(m["move"]) for m in parse_info(response[:-2].split("\n")[-1])}
    assert listed <= {"A1", "E5"} and listed
    # White's avoid does not touch Black's root moves.
    response = e.handle("lz-analyze b 0 avoid w C3 1")
    assert response is not None
    listed = {str(m["move"]) for m in parse_info(response[:-2].split("\n")[-1])}
    assert "C3" in listed
    for bad in (
        "lz-analyze avoid b Z9 1",
        "lz-analyze avoid b C3 0",
        "lz-analyze avoid x C3 1",
        "lz-analyze allow b , 1",
    ):
        fails(e, bad)


@pytest.mark.parametrize("vertices", ["pass", "C3,pass"])
def test_allow_of_pass_only_passes(vertices: str) -> None:
    e = make_engine(size=5, sims=50)
    ok(e, "play b C3")
    response = e.handle(f"lz-analyze w 0 allow w {vertices} 1")
    assert response is not None
    listed = {str(m["move"]) for m in parse_info(response[:-2].split("\n")[-1])}
    assert listed == {"pass"}


RECORDED = Path(__file__).parent / "data" / "gui"


@pytest.mark.parametrize("gui", ["lizzie", "qgo"])
def test_recorded_gui_sessions_replay(gui: str) -> None:
    # The exact lines Lizzie 0.7.4 and qGo 2.1 sent (scripts/lizzie_screenshot.sh and
    # docs/gui/README.md): every id is echoed, each analysis streams and is closed by
    # the next command, and the game ends where the GUI left it.
    lines = (RECORDED / f"{gui}_session.txt").read_text().splitlines()
    engine = make_engine(size=19, sims=24)
    s = Session(engine)
    try:
        for line in lines:
            ident, command = line.split(" ", 1)
            start = len(s.out.getvalue())
            if command.startswith("lz-analyze"):
                s.pipe.send(line + "\n")
                s.out.wait_for_after(start, "info move", 20.0)
                assert s.out.getvalue()[start:].startswith(f"={ident}\n")
                continue
            s.pipe.send(line + "\n")
            s.out.wait_for_after(start, f"={ident} ", 20.0)
            s.out.wait_for_after(start, "\n\n", 20.0)
            reply = s.out.getvalue()[start:]
            if reply.startswith("info") or reply.startswith("\n"):
                reply = reply[reply.index(f"={ident} ") :]  # after a closed stream
            assert reply.startswith(f"={ident} "), reply
    finally:
        s.close()
    assert engine.size == 9
    if gui == "lizzie":
        expected = ["E5", "G7", "C3", "F3"]
        assert [goboard.coords.to_gtp(p, 9) for _, p in engine.moves] == expected
    else:
        assert engine.moves[0] == (1, goboard.coords.from_gtp("C3", 9))
        assert len(engine.moves) == 2 and engine.moves[1][0] == -1
