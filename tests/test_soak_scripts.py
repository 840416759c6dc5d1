"""The soak scripts (scripts/soak_selfplay.py, scripts/soak_gtp.py): tiny runs that
write their CSV, plot and summary, and checks that fail when they should (a growing
series, stale analysis output, malformed or illegal report lines)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from scripts_helpers import SCRIPTS, load_script

import goboard

selfplay = load_script("soak_selfplay")
gtp = load_script("soak_gtp")

LIMITS = {"max_rss_growth_mb": 64.0, "max_rss_slope": 1.0, "max_fd_growth": 2}


def _series(rss: list[float], fds: list[int], step: int = 500) -> list[dict]:
    return [
        {"games": float(i * step), "rss_mb": r, "fds": float(f)}
        for i, (r, f) in enumerate(zip(rss, fds, strict=True))
    ]


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# -- the growth check --------------------------------------------------------------


def test_least_squares_slope() -> None:
    assert selfplay.least_squares_slope([0, 1, 2, 3], [1, 3, 5, 7]) == pytest.approx(2)
    assert selfplay.least_squares_slope([0, 1, 2], [4, 4, 4]) == 0
    assert str(selfplay.least_squares_slope([1], [1])) == "nan"


def test_flat_series_passes_after_the_warmup() -> None:
    # A steep warm-up (the replay window filling), then noise around a level.
    rss = [200, 380, 405, 410] + [400 + (i % 3) for i in range(20)]
    summary = selfplay.growth_check(
        _series(rss, [7] * 24), "games", 1000, **LIMITS, unit="games"
    )
    assert summary.ok, summary.failures
    assert summary.x_warm == 1000 and summary.rss_warm_mb == 405
    assert summary.rss_first_mb == 200 and summary.rss_last_mb == rss[-1]
    assert abs(summary.rss_slope_mb_per_1000) < 0.5  # the 405 and 410 tilt it
    assert summary.lines()[-1] == "verdict: flat"


def test_growing_rss_fails_on_slope_and_growth() -> None:
    # 2 kB per game: 1 MB every 500 games, 40 MB over 20,000 games.
    rss = [400 + i for i in range(41)]
    summary = selfplay.growth_check(_series(rss, [7] * 41), "games", 0, **LIMITS)
    assert not summary.ok
    assert summary.rss_slope_mb_per_1000 == pytest.approx(2.0)
    assert any("slope" in f for f in summary.failures)
    assert not any("grew" in f for f in summary.failures)  # 40 MB < 64
    steep = selfplay.growth_check(
        _series([400 + 5 * i for i in range(41)], [7] * 41), "games", 0, **LIMITS
    )
    assert any("grew 200.0 MB" in f for f in steep.failures)


def test_descriptor_leak_fails() -> None:
    fds = [7] * 10 + [8, 9, 10, 11]
    summary = selfplay.growth_check(_series([400] * 14, fds), "games", 0, **LIMITS)
    assert summary.failures == ["4 more open descriptors after the warm-up (> 2)"], (
        summary.failures
    )
    assert "FAIL" in summary.lines()[-1]


def test_too_few_samples_after_the_warmup() -> None:
    with pytest.raises(ValueError, match="need at least 2"):
        selfplay.growth_check(_series([1, 2, 3], [3, 3, 3]), "games", 1000, **LIMITS)


def test_analyze_mode_judges_a_written_csv(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    log = selfplay.CsvLog(path, ("games", "rss_mb", "fds"))
    for row in _series([400 + 3 * i for i in range(30)], [7] * 30):
        log.add(row)
    log.close()
    assert len(_read(path)) == 30  # every row is on the disk as it is added
    script = str(SCRIPTS / "soak_selfplay.py")
    grows = subprocess.run(
        [sys.executable, script, "--analyze", str(path), "--warmup", "0"],
        capture_output=True,
        text=True,
    )
    assert grows.returncode == 1, grows.stdout + grows.stderr
    assert "FAIL" in grows.stdout
    assert "RSS slope 6.000 MB per 1000 games (> 1)" in grows.stdout
    lenient = subprocess.run(
        [sys.executable, script, "--analyze", str(path), "--warmup", "0"]
        + ["--max-rss-growth-mb", "1000", "--max-rss-slope", "10"],
        capture_output=True,
        text=True,
    )
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr


def test_read_proc_of_this_process() -> None:
    fields = selfplay.read_proc()
    assert fields["rss_mb"] > 1 and fields["hwm_mb"] >= fields["rss_mb"]
    assert fields["threads"] >= 1 and fields["fds"] >= 3


# -- tiny runs -----------------------------------------------------------------------


def test_tiny_selfplay_soak(tmp_path: Path) -> None:
    out = tmp_path / "sp"
    args = [
        "--out", str(out), "--games", "16", "--games-per-iteration", "4",
        "--parallel-games", "2", "--simulations", "2", "--size", "5",
        "--blocks", "1", "--filters", "4", "--updates", "1", "--epochs", "1",
        "--batch", "8", "--resume-every", "1", "--warmup", "4", "--plot-every", "1",
        "--max-rss-growth-mb", "100000", "--max-rss-slope", "1e9",
    ]  # fmt: skip
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "soak_selfplay.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = _read(out / "soak_selfplay.csv")
    assert [int(r["games"]) for r in rows] == [0, 4, 8, 12, 16]
    assert list(rows[0]) == list(selfplay.COLUMNS)
    calls = [int(r["search_calls"]) for r in rows]
    searches = [int(r["searches"]) for r in rows]
    assert calls[0] == 0 and all(b > a for a, b in zip(calls, calls[1:], strict=False))
    assert searches[-1] >= calls[-1]  # each call searched one root or more
    assert all(float(r["rss_mb"]) > 0 and int(r["fds"]) >= 3 for r in rows)
    summary = json.loads((out / "soak_selfplay.json").read_text())["summary"]
    assert summary["ok"] and summary["x_last"] == 16
    assert (out / "soak_selfplay.png").stat().st_size > 1000
    assert (out / "run" / "checkpoint.pt").exists()
    assert "RSS slope after warm-up" in proc.stdout and "verdict: flat" in proc.stdout
    # Redrawn after every sample: the plot's own font files are open from the start.
    assert len({r["fds"] for r in rows}) == 1, [r["fds"] for r in rows]


def test_tiny_gtp_soak(tmp_path: Path) -> None:
    out = tmp_path / "gtp"
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "soak_gtp.py"), "--out", str(out)]
        + ["--cycles", "30", "--sample-every", "10", "--warmup", "0"]
        + ["--max-rss-growth-mb", "100000", "--max-rss-slope", "1e9"]
        + ["--simulations", "8"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = _read(out / "soak_gtp.csv")
    assert [int(r["cycles"]) for r in rows] == [0, 10, 20, 30]
    assert all(int(r["violations"]) == 0 for r in rows)
    result = json.loads((out / "soak_gtp.json").read_text())
    assert result["cycles"] == 30 and result["violations"] == 0
    assert result["report_lines"] >= 30 and result["quit_exit_status"] == 0
    assert result["summary"]["ok"]
    assert (out / "soak_gtp.png").stat().st_size > 1000
    assert "violations 0" in proc.stdout


#: A stand-in engine whose analysis streams send one more report line after their
#: closing empty line (with STALE set), the bug the GTP soak looks for.
FAKE_ENGINE = textwrap.dedent(
    """
    import os, select, sys
    STALE = {stale}
    buf = b""
    def readline():  # from fd 0 itself: select() cannot see what sys.stdin buffered
        global buf
        while b"\\n" not in buf:
            chunk = os.read(0, 4096)
            if not chunk:
                line, buf = buf, b""
                return line.decode()
            buf += chunk
        line, buf = buf.split(b"\\n", 1)
        return line.decode() + "\\n"
    def waiting():
        return b"\\n" in buf or select.select([0], [], [], 0.02)[0]
    LZ = "info move pass visits 5 winrate 5000 prior 100 lcb 4000 order 0 pv pass"
    KATA = ("info move pass visits 5 utility 0 winrate 0.5 scoreMean 0 scoreStdev 0"
            " scoreLead 0 scoreSelfplay 0 prior 0.01 lcb 0.4 utilityLcb -0.2 order 0"
            " pv pass")
    def out(text):
        sys.stdout.write(text)
        sys.stdout.flush()
    pending = None
    while True:
        line = pending or readline()
        pending = None
        if not line:
            break
        ident, name, *args = line.split()
        if name.endswith("-analyze"):
            info = KATA if name.startswith("kata") else LZ
            if "ownership" in args:
                info += " ownership" + " 0" * 81
            out(f"={{ident}}\\n")
            while not waiting():
                out(info + "\\n")
            out("\\n")
            if STALE:
                out(info + "\\n")
            pending = readline()
        elif name == "genmove":
            out(f"={{ident}} pass\\n\\n")
        elif name == "name":
            out(f"={{ident}} alphago\\n\\n")
        elif name == "quit":
            out(f"={{ident}}\\n\\n")
            break
        else:
            out(f"={{ident}}\\n\\n")
    """
)


@pytest.mark.parametrize("stale", [True, False])
def test_gtp_soak_catches_stale_output(tmp_path: Path, stale: bool) -> None:
    engine = tmp_path / "fake_engine.py"
    engine.write_text(FAKE_ENGINE.format(stale=stale))
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "soak_gtp.py"), "--out", str(out)]
        + ["--cycles", "20", "--sample-every", "5", "--warmup", "0", "--seed", "3"]
        + ["--max-rss-growth-mb", "1000", "--max-rss-slope", "1e9"]
        + ["--timeout", "20", "--engine", f"{sys.executable} {engine}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = json.loads((out / "soak_gtp.json").read_text())
    problems = result["first_violations"]
    if stale:
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert result["violations"] >= 1
        assert any("stale" in p for p in problems), problems
        assert "violation" in (out / "protocol.log").read_text()
    else:
        # The fake engine's showboard is empty: those are the only violations.
        assert all("showboard" in p for p in problems), problems


# -- report lines --------------------------------------------------------------------


def _board(*moves: str) -> goboard.Board:
    board = goboard.Board(9, 7.5, "chinese")
    for move in moves:
        board.play_gtp(move)
    return board


LZ_LINE = (
    "info move E5 visits 10 winrate 5200 prior 1800 lcb 4900 order 0 pv E5 D4 "
    "info move D4 visits 4 winrate 4800 prior 900 lcb 3000 order 1 pv D4"
)


def test_report_lines_that_pass() -> None:
    report = gtp.check_report(LZ_LINE, False, _board())
    assert [i["move"] for i in report.infos] == ["E5", "D4"]
    assert report.infos[0]["pv"] == ["E5", "D4"] and report.infos[1]["visits"] == 4
    kata = (
        "info move C3 visits 3 utility 0.1 winrate 0.55 scoreMean 1.5 scoreStdev 9"
        " scoreLead 1.5 scoreSelfplay 1.5 prior 0.2 lcb 0.3 utilityLcb -0.4 order 0"
        " pv C3 ownership " + " ".join(["0.25"] * 81)
    )
    report = gtp.check_report(kata, True, _board(), ownership=True)
    assert report.ownership == [0.25] * 81


@pytest.mark.parametrize(
    ("line", "board", "message"),
    [
        (LZ_LINE, _board("E5"), "illegal in the analysed position"),  # stale position
        (LZ_LINE, _board("D4"), r"move 2 \(D4\) is illegal"),  # in the variation
        (LZ_LINE.replace("order 1", "order 2"), _board(), "order 2 at position 1"),
        (LZ_LINE.replace("visits 4", "visits 40"), _board(), "most visited first"),
        (LZ_LINE.replace("winrate 5200", "winrate 52000"), _board(), "outside"),
        (LZ_LINE.replace(" prior 1800", ""), _board(), "expected field 'prior'"),
        (LZ_LINE.replace("pv E5 D4", "pv D4"), _board(), "does not start with"),
        (LZ_LINE.replace("D4 info", "Z9 info"), _board(), "not a vertex"),
        ("info move E5 visits x", _board(), "expected field"),
        ("garbage", _board(), "expected 'info'"),
        ("ownership 0", _board(), "not asked for"),
    ],
)
def test_report_lines_that_fail(line: str, board: goboard.Board, message: str) -> None:
    with pytest.raises(gtp.Violation, match=message):
        gtp.check_report(line, False, board)


def test_report_limits() -> None:
    with pytest.raises(gtp.Violation, match="maxmoves 1"):
        gtp.check_report(LZ_LINE, False, _board(), max_moves=1)
    with pytest.raises(gtp.Violation, match="missing"):
        gtp.check_report("", True, _board(), ownership=True)
    with pytest.raises(gtp.Violation, match="expected field 'utility'"):
        gtp.check_report(LZ_LINE, True, _board())
