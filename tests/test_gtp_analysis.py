"""Analysis commands (lz-/kata-analyze) parsed back, and streaming under serve()."""

from __future__ import annotations

import contextlib
import io
import threading
import time
from collections.abc import Iterator

import pytest
from gtp_helpers import (
    Collector,
    FixedOwnership,
    NetOwnership,
    PipeWriter,
    even_area_player,
    fails,
    make_engine,
    ok,
    parse_info,
)

import goboard
from alphago.gtp import Engine, serve
from alphago.gtp.analysis import parse_analyze_args

LZ_FIELDS = ["move", "visits", "winrate", "prior", "lcb", "order", "pv"]
KATA_FIELDS = [
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
    "pv",
]


def stream_lines(response: str) -> list[str]:
    assert response.startswith("=") and response.endswith("\n\n")
    lines = response[:-2].split("\n")
    assert lines[0] in ("=", "=5")
    return lines[1:]


def test_lz_analyze_fields_and_scaling() -> None:
    e = make_engine(size=9, sims=64)
    ok(e, "play b e5")
    response = e.handle("lz-analyze 10")
    assert response is not None
    lines = stream_lines(response)
    assert lines and all(ln.startswith("info move ") for ln in lines)
    moves = parse_info(lines[-1])
    assert len(moves) >= 2
    total = 0
    for order, m in enumerate(moves):
        assert list(m) == LZ_FIELDS
        for key in ("visits", "winrate", "prior", "lcb", "order"):
            assert str(m[key]).isdigit(), (key, m[key])  # integers, no decimals
        assert 0 <= int(str(m["winrate"])) <= 10000
        assert 0 <= int(str(m["prior"])) <= 10000
        assert 0 <= int(str(m["lcb"])) <= int(str(m["winrate"]))
        assert int(str(m["order"])) == order
        pv = m["pv"]
        assert isinstance(pv, list) and pv[0] == m["move"]
        point = goboard.coords.from_gtp(str(m["move"]), 9)
        assert e.board_for(goboard.WHITE).is_legal(point)
        total += int(str(m["visits"]))
    visits = [int(str(m["visits"])) for m in moves]
    assert visits == sorted(visits, reverse=True)
    assert total <= 64 + 1
    # The uniform prior of the UCT search: 1 / (number of legal moves) * 10000.
    legal = len(e.board_for(goboard.WHITE).legal_moves())
    assert int(str(moves[0]["prior"])) == round(10000 / legal)
    assert e.moves == [(goboard.BLACK, 40)]  # analysis changes nothing


def test_kata_analyze_scores_lead_where_the_winrate_says() -> None:
    """Each move's scoreLead is the playouts calibrated by its winrate, as the
    analysis engine reports it: the side the winrate favours leads (raw random
    playouts put a move at 72% winrate 5 points behind)."""
    e = make_engine(size=9, sims=300)
    for line in ["play b e5", "play w c3", "play b g7", "play w c7"]:
        ok(e, line)
    response = e.handle("kata-analyze b 0")
    assert response is not None
    items = parse_info(stream_lines(response)[-1])
    assert len(items) > 5
    for m in items:
        winrate, lead = float(str(m["winrate"])), float(str(m["scoreLead"]))
        assert lead * (winrate - 0.5) >= 0, m
        assert lead == float(str(m["scoreMean"])) == float(str(m["scoreSelfplay"]))
        assert float(str(m["scoreStdev"])) <= 9.0  # sqrt of 77 empty points, capped


def test_kata_analyze_reads_scores_off_an_ownership_head() -> None:
    """With a network's ownership head, each move's scoreLead is the head's ownership
    after it, summed, less komi: here Black's 13.5 - 9 points less 7.5 of komi."""
    e = Engine(NetOwnership(), board_size=5, komi=7.5)
    for colour, lead in (("b", -3.0), ("w", 3.0)):
        response = e.handle(f"kata-analyze {colour} 0")
        assert response is not None
        items = parse_info(stream_lines(response)[-1])
        assert items
        for m in items:
            assert float(str(m["scoreLead"])) == pytest.approx(lead, abs=1e-3)
            assert float(str(m["scoreMean"])) == pytest.approx(lead, abs=1e-3)
            # sqrt(25 * (1 - 0.81)): each point's variance as a +-1 outcome
            assert float(str(m["scoreStdev"])) == pytest.approx(2.179, abs=1e-3)


def test_kata_analyze_reports_the_margins_the_search_averaged() -> None:
    """A network with an ownership head: the tree's average margin, here Black behind
    by the komi after every move, with the evaluations' own spread (2 points), not
    the head's static reading after the move (which would spread 5)."""
    e = Engine(even_area_player(), board_size=5, komi=6.5)
    for colour, lead in (("b", -6.5), ("w", 6.5)):
        response = e.handle(f"kata-analyze {colour} 0")
        assert response is not None
        items = parse_info(stream_lines(response)[-1])
        assert len(items) >= 2
        for m in items:
            assert float(str(m["scoreLead"])) == pytest.approx(lead, abs=1e-3)
            assert float(str(m["scoreStdev"])) == pytest.approx(2.0, abs=1e-3)


def test_kata_analyze_fields_and_ownership() -> None:
    e = make_engine(size=5, sims=32)
    response = e.handle("kata-analyze b interval 5 ownership true")
    assert response is not None
    lines = stream_lines(response)
    items = parse_info(lines[-1])
    own = items[-1]["ownership"]
    assert isinstance(own, list) and len(own) == 25
    assert all(-1.0 <= v <= 1.0 for v in own)
    for order, m in enumerate(items[:-1]):
        assert list(m) == KATA_FIELDS
        winrate = float(str(m["winrate"]))
        assert 0.0 <= winrate <= 1.0
        assert float(str(m["utility"])) == pytest.approx(2 * winrate - 1, abs=1e-5)
        assert 0.0 <= float(str(m["prior"])) <= 1.0
        assert "." in str(m["winrate"])  # floats, not Leela Zero's integers
        assert int(str(m["order"])) == order
    plain = e.handle("kata-analyze 5")
    assert plain is not None and "ownership" not in plain


def test_kata_ownership_is_from_the_side_to_move() -> None:
    e = Engine(FixedOwnership(), board_size=5)
    for colour, sign in (("w", -1), ("b", 1)):
        response = e.handle(f"kata-analyze {colour} ownership true")
        assert response is not None
        own = parse_info(stream_lines(response)[-1])[-1]["ownership"]
        assert isinstance(own, list)
        rows = [own[r * 5 : r * 5 + 5] for r in range(5)]
        assert all(row[0] == sign * 0.9 and row[4] == -sign * 0.9 for row in rows)


def test_analyze_arguments() -> None:
    a = parse_analyze_args(["w", "25", "minmoves", "3", "maxmoves", "5"], kata=False)
    assert (a.colour, a.interval, a.min_moves, a.max_moves) == (-1, 25, 3, 5)
    a = parse_analyze_args(["interval", "7", "ownership", "true"], kata=True)
    assert a.interval == 7 and a.ownership and a.colour is None
    a = parse_analyze_args(["B", "50", "pvVisits", "true", "rootInfo", "false"], True)
    assert a.colour == 1 and a.interval == 50 and not a.ownership
    a = parse_analyze_args(["b", "avoid", "b", "a1,b2", "3", "50"], kata=False)
    assert a.colour == 1 and a.interval == 50  # avoid consumed its three arguments
    e = make_engine(size=5)
    for bad in [
        "lz-analyze x",
        "lz-analyze 10 interval",
        "kata-analyze ownership yes",
        "lz-analyze 10 ownership true",
        "lz-analyze -5",
        "lz-analyze 99999999999999",
    ]:
        fails(e, bad)


def test_genmove_analyze_without_a_colour_plays_the_side_to_move() -> None:
    """KataGo documents the player as optional: the side to move plays."""
    e = make_engine(size=5, sims=30)
    ok(e, "play b c3")
    for command in ("lz-genmove_analyze 10", "kata-genmove_analyze"):
        colour = e.board.to_play
        response = e.handle(command)
        assert response is not None and response.startswith("=")
        assert response.rstrip("\n").split("\n")[-1].startswith("play ")
        assert e.moves[-1][0] == colour and e.board.to_play == -colour


def test_maxmoves_limits_the_report() -> None:
    e = make_engine(size=5, sims=40)
    response = e.handle("lz-analyze 0 maxmoves 2")
    assert response is not None
    assert len(parse_info(stream_lines(response)[-1])) == 2


def test_genmove_analyze_plays_and_reports() -> None:
    e = make_engine(size=5, sims=24)
    response = e.handle("5 lz-genmove_analyze b 1")
    assert response is not None
    lines = stream_lines(response)
    assert lines[-1].startswith("play ")
    move = lines[-1].split()[1]
    assert e.moves == [(goboard.BLACK, goboard.coords.from_gtp(move, 5))]
    assert all(ln.startswith("info ") for ln in lines[:-1]) and len(lines) >= 2
    response = e.handle("kata-genmove_analyze w")
    assert response is not None and stream_lines(response)[-1].startswith("play ")
    assert len(e.moves) == 2 and e.moves[1][0] == goboard.WHITE


def test_genmove_analyze_can_resign() -> None:
    # Komi 50 on 5x5 with --resign-below: the third low search resigns, as
    # "play resign" (KataGo's form), and plays nothing.
    e = make_engine(size=5, sims=24, resign_below=0.1)
    ok(e, "komi 50")
    for v in ("A1", "B1", "C1"):
        ok(e, f"play b {v}")
        ok(e, "play w pass")
    e.low_turns[goboard.BLACK] = 2
    before = list(e.moves)
    response = e.handle("kata-genmove_analyze b")
    assert response is not None and stream_lines(response)[-1] == "play resign"
    assert e.moves == before


def test_gogui_analyze_commands_name_known_commands() -> None:
    e = make_engine()
    for entry in ok(e, "gogui-analyze_commands").split("\n"):
        kind, label, command = entry.split("/")
        assert kind in ("string", "plist", "dboard", "none") and label
        assert ok(e, f"known_command {command.split()[0]}") == "true"


# -- serve() ------------------------------------------------------------------


def run_serve(text: str, sims: int = 16, size: int = 5) -> str:
    e = make_engine(size=size, sims=sims)
    out = io.StringIO()
    serve(e, io.StringIO(text), out)
    return out.getvalue()


def test_serve_answers_in_order_and_quits() -> None:
    out = run_serve("1 name\n\n# comment\nboardsize 7\n2 nonsense\n3 quit\nname\n")
    assert out == "=1 alphago\n\n= \n\n?2 unknown command nonsense\n\n=3 \n\n"


def test_serve_ends_at_end_of_input() -> None:
    assert run_serve("name") == "= alphago\n\n"


def test_serve_rejects_overlong_lines_and_goes_on() -> None:
    out = run_serve("x" * 200_000 + "\nname\n")
    assert out == "? line too long\n\n= alphago\n\n"


@contextlib.contextmanager
def served(sims: int) -> Iterator[tuple[PipeWriter, Collector]]:
    """A 9x9 engine under serve() on a pipe: (its input, its output); quits at the
    end and checks that the loop ended."""
    e = make_engine(size=9, sims=sims)
    pipe = PipeWriter()
    out = Collector()
    thread = threading.Thread(target=serve, args=(e, pipe.reader, out), daemon=True)
    thread.start()
    try:
        yield pipe, out
        pipe.send("quit\n")
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        pipe.close()  # also when the test failed: no pipe is left for the GC to find


def test_analysis_streams_until_the_next_command() -> None:
    with served(400) as (pipe, out):
        pipe.send("1 lz-analyze 1\n")
        out.wait_for("info move")
        pipe.send("# a comment is no command\n")
        time.sleep(0.3)  # the search is finished or not: the stream stays open
        assert not out.getvalue().endswith("\n\n")
        pipe.send("2 name\n")
        out.wait_for("=2 alphago\n\n")
        text = out.getvalue()
    head, _, tail = text.partition("=2 alphago\n\n")
    assert tail == ""
    assert head.startswith("=1\n") and head.endswith("\n\n")
    body = head[len("=1\n") : -2]
    assert body and all(ln.startswith("info move ") for ln in body.split("\n"))
    assert "\n\n" not in body


def test_a_bare_newline_stops_analysis_without_a_response() -> None:
    """KataGo's analysis ends on a raw newline too: the stream closes with its empty
    line and nothing answers the newline itself."""
    with served(20_000) as (pipe, out):
        pipe.send("1 lz-analyze 1\n")
        out.wait_for("info move")
        pipe.send("   \n")
        out.wait_for("\n\n")
        head = out.getvalue()
        assert head.startswith("=1\n") and head.endswith("\n\n")
        pipe.send("2 name\n")
        out.wait_for("=2 alphago\n\n")
        assert out.getvalue() == head + "=2 alphago\n\n"


def test_pipelined_commands_stop_analysis_at_once() -> None:
    e = make_engine(size=9, sims=20_000)  # about 2.5 s of search if not stopped
    out = io.StringIO()
    src = io.StringIO("kata-analyze 1\nname\n")
    thread = threading.Thread(target=serve, args=(e, src, out), daemon=True)
    thread.start()
    thread.join(timeout=2.0)
    assert not thread.is_alive(), "the analysis did not stop on the queued command"
    text = out.getvalue()
    assert text.startswith("=\n") and text.endswith("\n\n= alphago\n\n")
    reports = text[2 : -len("\n\n= alphago\n\n")].split("\n")
    visits = sum(
        int(str(m["visits"])) for m in parse_info(reports[-1]) if "visits" in m
    )
    assert visits < 1000  # stopped long before its 20000 simulations


class BrokenSearch(FixedOwnership):
    """Every search raises (a network that fell over)."""

    def genmove(self, board: goboard.Board, **kwargs: object) -> object:
        raise RuntimeError("the network fell over")


@pytest.mark.parametrize("command", ["kata-analyze b 10", "lz-genmove_analyze b 10"])
def test_a_stream_that_fails_ends_and_says_why_on_stderr(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The "=" went out before the search: the failure cannot be an error response.
    e = Engine(BrokenSearch(), board_size=5)
    assert e.handle(command) == "=\n\n"
    name = command.split()[0]
    err = capsys.readouterr().err
    assert f"alphago: {name} failed: internal error: RuntimeError: the network" in err
    assert ok(e, "name") == "alphago"  # the session goes on
