"""``alphago analysis`` as KaTrain drives it.

Two tests: the queries KaTrain 1.20's ``KataGoEngine.request_analysis`` writes (copied
from katrain/core/engine.py: ``overrideSettings`` with ``reportAnalysisWinratesAs``
BLACK, ``wideRootNoise`` and ``maxTime``; both ownership flags; the policy; its
terminate action) sent to the real command, checking every field KaTrain's engine
and ``GameNode`` read; and KaTrain's own engine class (pip ``katrain``) started on
``alphago analysis`` as its "custom" backend, whose parsed analysis is checked
(skipped where KaTrain is not installed).
"""

from __future__ import annotations

import json
import math
import queue
import shlex
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import IO, Any

import pytest

COMMAND = [sys.executable, "-m", "alphago.cli", "analysis", "--simulations", "40"]


def katrain_query(qid: str, moves: list[list[str]], visits: int) -> dict[str, Any]:
    """What KaTrain's request_analysis sends for a 9x9 node (default settings)."""
    return {
        "rules": "chinese",
        "priority": 1000,
        "analyzeTurns": [len(moves)],
        "maxVisits": visits,
        "komi": 7.5,
        "boardXSize": 9,
        "boardYSize": 9,
        "includeOwnership": True,
        "includeMovesOwnership": True,
        "includePolicy": True,
        "initialStones": [],
        "initialPlayer": "B",
        "moves": moves,
        "overrideSettings": {
            "reportAnalysisWinratesAs": "BLACK",
            "wideRootNoise": 0.04,
            "maxTime": 8.0,
        },
        "reportDuringSearchEvery": 0.25,
        "id": qid,
    }


def _check_analysis(a: dict[str, Any], size: int) -> None:
    """Every field KaTrain reads from a result (engine.py, game_node.py)."""
    assert isinstance(a["id"], str) and a.get("noResults", False) is False
    root = a["rootInfo"]
    assert root["visits"] >= 1
    assert 0.0 <= root["winrate"] <= 1.0 and math.isfinite(root["scoreLead"])
    assert a["moveInfos"], "KaTrain falls back to the policy without moves"
    for i, m in enumerate(a["moveInfos"]):
        assert m["order"] == i and m["visits"] >= 1 and m["pv"][0] == m["move"]
        assert 0.0 <= m["winrate"] <= 1.0 and math.isfinite(m["scoreLead"])
        assert 0.0 <= m["prior"] <= 1.0 and len(m["ownership"]) == size * size
    assert len(a["ownership"]) == size * size
    assert len(a["policy"]) == size * size + 1


def _lines_of(stream: IO[str]) -> queue.Queue[str]:
    """The stream's lines, read on a thread so that a wait can time out; "" marks
    the end."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    return lines


def test_katrains_queries_and_terminate() -> None:
    with subprocess.Popen(
        COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            node = katrain_query("QUERY:1", [["B", "E5"], ["W", "C3"]], 60)
            ponder = katrain_query("QUERY:2", [["B", "E5"]], 10_000_000)
            # KaTrain's maxTime is a setting (8 s by default). On a loaded machine 8 s
            # of wall clock passed before the first report during the search, and the
            # query ended on its own; with more time only the terminate ends it.
            ponder["overrideSettings"]["maxTime"] = 600.0
            proc.stdin.write(json.dumps(node) + "\n" + json.dumps(ponder) + "\n")
            proc.stdin.flush()
            lines = _lines_of(proc.stdout)
            replies: list[dict[str, Any]] = []
            deadline = time.monotonic() + 120
            while True:
                wait = deadline - time.monotonic()
                line = lines.get(timeout=max(wait, 0.0))  # queue.Empty: no report
                assert line, "the engine stopped before reporting during QUERY:2"
                replies.append(json.loads(line))
                r = replies[-1]
                if r.get("id") == "QUERY:2" and r.get("isDuringSearch"):
                    break
            terminate = {
                "action": "terminate",
                "terminateId": "QUERY:2",
                "id": "QUERY:3",
            }
            proc.stdin.write(json.dumps(terminate) + "\n")
            proc.stdin.close()
            while line := lines.get(timeout=60):
                replies.append(json.loads(line))
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
    warned = [r for r in replies if "warning" in r]
    assert {(r["id"], r["field"]) for r in warned} == {
        ("QUERY:1", "overrideSettings"),
        ("QUERY:2", "overrideSettings"),
    }
    final = {r["id"]: r for r in replies if "rootInfo" in r and not r["isDuringSearch"]}
    assert set(final) == {"QUERY:1", "QUERY:2"}
    for a in final.values():
        _check_analysis(a, 9)
    assert final["QUERY:1"]["rootInfo"]["visits"] == 60
    assert final["QUERY:1"]["rootInfo"]["currentPlayer"] == "B"
    assert final["QUERY:1"]["turnNumber"] == 2
    assert 1 <= final["QUERY:2"]["rootInfo"]["visits"] < 10_000_000
    assert final["QUERY:2"]["rootInfo"]["currentPlayer"] == "W"
    assert {"action": "terminate", "terminateId": "QUERY:2", "id": "QUERY:3"} in replies
    # Black's view (KaTrain's forced reportAnalysisWinratesAs): E5's owner is Black.
    e5 = 4 * 9 + 4
    assert final["QUERY:2"]["ownership"][e5] > 0


class FakeKaTrain:
    """The parts of KaTrain's app object its engine calls: log and popups."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, int]] = []
        self.popups: list[tuple[Any, ...]] = []

    def log(self, message: str, level: int = 0) -> None:
        self.lines.append((str(message), level))

    def __call__(self, *args: Any) -> None:
        self.popups.append(args)


@pytest.fixture
def katrain_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    pytest.importorskip("katrain")
    monkeypatch.setenv("KIVY_NO_ARGS", "1")
    monkeypatch.setenv("KIVY_NO_CONSOLELOG", "1")
    monkeypatch.setenv("KIVY_NO_FILELOG", "1")
    monkeypatch.setenv("KIVY_HOME", str(tmp_path / "kivy"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from katrain.core import constants, engine, game

    return constants, engine, game


def test_katrains_own_engine_client(katrain_modules: Any) -> None:
    constants, engine_module, game = katrain_modules
    app = FakeKaTrain()
    config = {
        "backend": "custom",
        # KaTrain runs a custom command through the shell and stops it with SIGTERM:
        # exec makes the engine itself the process that gets it.
        "altcommand": "exec " + shlex.join(COMMAND),
        "max_visits": 50,
        "fast_visits": 10,
        # Far beyond what 50 visits take, so the visits end the search even on a
        # loaded machine (at 8 s, with two training runs beside it, it stopped at 48).
        "max_time": 100.0,
        "wide_root_noise": 0.04,
        "_enable_ownership": True,
    }
    root = game.KaTrainSGF.parse_sgf("(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc])")
    node = root.children[0].children[0]
    engine = engine_module.KataGoEngine(app, config)
    try:
        node.analyze(engine)
        deadline = time.monotonic() + 120
        while not node.analysis_complete and time.monotonic() < deadline:
            time.sleep(0.1)
        assert node.analysis_complete, app.lines[-20:]
    finally:
        process = engine.katago_process
        engine.shutdown(finish=False)
        if process is not None:  # KaTrain leaves the pipes to the garbage collector
            assert process.wait(timeout=30) is not None
            for pipe in (process.stdin, process.stdout, process.stderr):
                pipe.close()
    errors = [m for m, level in app.lines if level == constants.OUTPUT_ERROR]
    assert errors == [] and app.popups == []
    assert node.root_visits == 50
    assert 0.0 <= node.winrate <= 1.0 and math.isfinite(node.score)
    moves = node.candidate_moves
    assert moves and moves[0]["order"] == 0
    assert all(math.isfinite(m["pointsLost"]) for m in moves)
    assert len(node.ownership) == 81 and len(node.policy) == 82
    ranking = node.policy_ranking
    assert ranking is not None and ranking[0][0] > 0
    assert node.format_score() and node.format_winrate()
    # The node's move (W C7: SGF cc) reached its parent's analysis, as KaTrain does.
    assert "C7" in node.parent.analysis["moves"]
