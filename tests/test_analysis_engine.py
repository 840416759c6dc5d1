"""``alphago analysis``: KataGo's JSON analysis protocol, served in-process over UCT."""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Iterator
from typing import Any

import pytest
from analysis_helpers import Reply, query, results, run, run_paced, searching, server
from gtp_helpers import NetOwnership, even_area_player

import goboard
from alphago.analysis import AnalysisServer, parse_query
from alphago.analysis.rules import handicap_bonus, parse_rules
from alphago.player import Player
from alphago.player_choice import PlayerChoice, PlayerSpec
from goboard import coords

FIELDS = {"move", "visits", "winrate", "scoreLead", "scoreMean", "scoreStdev"}
FIELDS |= {"prior", "pv", "order", "lcb", "utility", "utilityLcb", "scoreSelfplay"}


def test_query_version_and_clear_cache_echo_the_query() -> None:
    replies = run(
        [
            {"id": "v", "action": "query_version"},
            {"id": "c", "action": "clear_cache"},
        ]
    )
    assert replies[0]["id"] == "v" and replies[0]["action"] == "query_version"
    assert replies[0]["version"] == "1.16.0" and replies[0]["git_hash"]
    assert replies[1] == {"id": "c", "action": "clear_cache"}


def test_every_turn_gets_a_full_response() -> None:
    moves = [["B", "C3"], ["W", "B2"]]
    q = query(
        moves=moves,
        analyzeTurns=[0, 1, 2],
        maxVisits=30,
        includeOwnership=True,
        includeMovesOwnership=True,
        includePolicy=True,
    )
    replies = run([q])
    got = results(replies, "q")
    assert [r["turnNumber"] for r in got] == [0, 1, 2]
    for r in got:
        root = r["rootInfo"]
        assert root["currentPlayer"] == ("B" if r["turnNumber"] != 1 else "W")
        assert root["visits"] == 30 == sum(m["visits"] for m in r["moveInfos"])
        assert 0.0 <= root["winrate"] <= 1.0 and math.isfinite(root["scoreLead"])
        assert len(r["ownership"]) == 25 and len(r["policy"]) == 26
        assert all(-1.0 <= v <= 1.0 for v in r["ownership"])
        assert [m["order"] for m in r["moveInfos"]] == list(range(len(r["moveInfos"])))
        visits = [m["visits"] for m in r["moveInfos"]]
        assert visits == sorted(visits, reverse=True)
        for m in r["moveInfos"]:
            assert FIELDS | {"ownership"} <= set(m)
            assert m["pv"][0] == m["move"] and len(m["ownership"]) == 25
            assert m["scoreMean"] == m["scoreLead"] and m["scoreStdev"] >= 1.0
    # Policy: -1 on the stones, a distribution over the legal points and pass.
    c3, b2 = coords.from_gtp("C3", 5), coords.from_gtp("B2", 5)
    policy = got[2]["policy"]
    assert policy[c3] == -1.0 and policy[b2] == -1.0
    assert sum(v for v in policy if v >= 0) == pytest.approx(1.0, abs=1e-4)
    assert got[0]["policy"].count(-1.0) == 0
    assert got[1]["policy"][c3] == -1.0 and got[1]["policy"][b2] >= 0


def test_pv_visits() -> None:
    # includePVVisits was accepted and ignored: no pvVisits, which KataGo sends with
    # one count per pv move, each node's visits, so they never grow along the line.
    got = results(run([query(maxVisits=40, includePVVisits=True)]), "q")[0]
    assert any(len(m["pv"]) > 1 for m in got["moveInfos"])
    for m in got["moveInfos"]:
        counts = m["pvVisits"]
        assert len(counts) == len(m["pv"]) and counts[0] == m["visits"]
        assert all(a >= b >= 1 for a, b in zip(counts, counts[1:], strict=False))
    plain = results(run([query(maxVisits=5)]), "q")[0]
    assert all("pvVisits" not in m for m in plain["moveInfos"])


def test_sym_hash_is_the_same_for_symmetric_positions() -> None:
    # rootInfo had no symHash, which KataGo documents beside thisHash: B2, D4 (its
    # half turn) and B4 (its mirror) share it; C3, or White to move, do not.
    def root(*moves: list[str], **fields: object) -> dict[str, Any]:
        q = {**query(moves=list(moves), maxVisits=2), **fields}
        reply: dict[str, Any] = results(run([q]), "q")[0]["rootInfo"]
        return reply

    b2, d4, b4 = root(["B", "B2"]), root(["B", "D4"]), root(["B", "B4"])
    assert b2["symHash"] == d4["symHash"] == b4["symHash"]
    assert len({b2["thisHash"], d4["thisHash"], b4["thisHash"]}) == 3
    assert root(["B", "C3"])["symHash"] != b2["symHash"]
    black = root(initialStones=[["B", "B2"]], initialPlayer="B")
    assert black["currentPlayer"] == "B" and black["symHash"] != b2["symHash"]


def _black_and_side_to_move(**fields: object) -> tuple[Reply, Reply]:
    base = query(moves=[["B", "C3"]], maxVisits=40, includeOwnership=True, **fields)
    black = results(run([base]), "q")[0]
    stm = dict(base, overrideSettings={"reportAnalysisWinratesAs": "SIDETOMOVE"})
    return black, results(run([stm]), "q")[0]


def test_values_are_from_blacks_view_by_default() -> None:
    # White to move: SIDETOMOVE is White's view, the default is Black's.
    black, white = _black_and_side_to_move()
    assert black["rootInfo"]["currentPlayer"] == "W"
    assert black["rootInfo"]["winrate"] == pytest.approx(
        1.0 - white["rootInfo"]["winrate"], abs=2e-6
    )
    assert black["rootInfo"]["scoreLead"] == pytest.approx(
        -white["rootInfo"]["scoreLead"], abs=2e-6
    )
    for a, b in zip(black["moveInfos"], white["moveInfos"], strict=True):
        assert a["move"] == b["move"]
        assert a["winrate"] == pytest.approx(1.0 - b["winrate"], abs=2e-6)
        assert a["scoreLead"] == pytest.approx(-b["scoreLead"], abs=2e-6)
    assert black["ownership"] == [
        pytest.approx(-v, abs=2e-6) for v in white["ownership"]
    ]
    # Black's stone at C3 is Black's in Black's view.
    assert black["ownership"][coords.from_gtp("C3", 5)] > 0.0


def test_errors_carry_the_id_and_the_engine_keeps_serving() -> None:
    lines: list[str | dict[str, object]] = [
        '{"id":"broken", "moves": [',
        query("illegal", moves=[["B", "C3"], ["W", "C3"]]),
        query("vertex", moves=[["B", "Z9"]]),
        query("shape", boardYSize=7),
        query("big", size=25),
        query("rules", rules="klingon"),
        {"id": "norules", "moves": [], "boardXSize": 5, "boardYSize": 5},
        query("komi", komi=7.3),
        query("turns", analyzeTurns=[3]),
        query("who", moves=[["X", "C3"]]),
        query("avoid", avoidMoves=[{"player": "B", "moves": ["C3"]}]),
        {"id": "act", "action": "fly"},
        "[1, 2]",
        query("fine", maxVisits=8),
    ]
    replies = run(lines)
    errors = {r.get("id"): r for r in replies if "error" in r}
    fields = {
        "broken": None,
        "illegal": "moves",
        "vertex": "moves",
        "shape": "boardXSize",
        "big": "boardXSize",
        "rules": "rules",
        "norules": "rules",
        "komi": "komi",
        "turns": "analyzeTurns",
        "who": "moves",
        "avoid": "avoidMoves",
        "act": "action",
    }
    assert set(errors) == set(fields) | {None}
    for qid, field in fields.items():
        assert errors[qid].get("field") == field, errors[qid]
    assert errors["illegal"]["error"].startswith("Illegal move 1: W C3 (")
    assert "at " not in errors["illegal"]["error"]  # a reason, not a point index
    assert results(replies, "fine")[0]["rootInfo"]["visits"] == 8


def test_lines_that_are_no_strict_json_get_an_error_and_the_engine_goes_on() -> None:
    # Found by fuzz/fuzz_analysis.py: Python's json reads NaN and Infinity, so a
    # query echoed by an action (or an id of NaN in an error reply) could not be
    # written back (ValueError out of serve: the engine died); an integer of more
    # than 4300 digits, nesting deeper than the recursion limit and an id with a bad
    # escape in an unparsable line raised out of handle too; analyzeTurns [] made
    # no job and so no reply at all. 1e400 is JSON, but Python reads it as infinity:
    # the echo of an action holding it ended the engine too.
    lines: list[str | dict[str, object]] = [
        '{"id": "nan", "action": "query_version", "x": NaN}',
        '{"id": NaN, "action": "clear_cache"}',
        '{"id": "inf", "moves": [], "komi": -Infinity}',
        '{"id": "huge", "action": "query_version", "n": 1e400}',
        '{"id": "digits", "action": "clear_cache", "n": ' + "9" * 5000 + "}",
        "[" * 100_000,
        '{"id":"\\u12", "moves": [',
        query("noturns", analyzeTurns=[]),
        query("fine", maxVisits=5),
    ]
    replies = run(lines)
    errors = [r for r in replies if "error" in r]
    assert len(errors) == 8, replies
    assert all(r["error"].startswith("could not parse json") for r in errors[:7])
    assert [r.get("id") for r in errors] == ["nan", None, "inf", "huge", "digits"] + [
        None,
        None,
        "noturns",
    ]
    assert errors[7]["field"] == "analyzeTurns"
    assert results(replies, "fine")[0]["rootInfo"]["visits"] == 5


def test_visits_and_report_intervals_as_large_as_katagos() -> None:
    # KataGo takes maxVisits up to 2**50 and reports every up to 1e6 seconds; a
    # client asking 2**31 visits, to search until it terminates, got an error.
    job = parse_query(query(maxVisits=2**50, reportDuringSearchEvery=1e6)).jobs[0]
    assert job.max_visits == 2**50 and job.report_every == 1e6
    override = query(overrideSettings={"maxVisits": 2**31})
    assert parse_query(override).jobs[0].max_visits == 2**31
    for key, value in (("maxVisits", 2**50 + 1), ("reportDuringSearchEvery", 1.1e6)):
        replies = run([{**query("big"), key: value}])
        assert [r.get("field") for r in replies] == [key], replies


def test_override_settings_given_as_strings() -> None:
    # KataGo reads overrideSettings as config lines, so "maxVisits": "100" works
    # there; we refused the string.
    settings = {
        "maxVisits": "12",
        "maxTime": "2.5",
        "reportAnalysisWinratesAs": "WHITE",
    }
    job = parse_query(query(overrideSettings=settings)).jobs[0]
    assert (job.max_visits, job.max_time, job.perspective) == (12, 2.5, "WHITE")
    replies = run([query("bad", overrideSettings={"maxVisits": "many"})])
    assert [r.get("id") for r in replies if "error" in r] == ["bad"]


def test_rules_we_do_not_score_and_ignored_settings_warn() -> None:
    q = query(
        rules="japanese",
        maxVisits=6,
        overrideSettings={"wideRootNoise": 0.04, "maxTime": 8.0},
    )
    replies = run([q])
    warnings = [r for r in replies if "warning" in r]
    assert {(w["id"], w["field"]) for w in warnings} == {
        ("q", "rules"),
        ("q", "overrideSettings"),
    }
    ignored = [w for w in warnings if w["field"] == "overrideSettings"][0]
    assert "wideRootNoise" in ignored["warning"] and "maxTime" not in ignored["warning"]
    assert all("rootInfo" not in w for w in warnings)  # KaTrain skips warning lines
    assert results(replies, "q")[0]["rootInfo"]["visits"] == 6


def test_katago_fields_we_cannot_honour_warn() -> None:
    # includeOwnershipStdev and the like were dropped in silence: the client found no
    # ownershipStdev and no word why. A flag that is false asks for nothing.
    q = query(
        maxVisits=4,
        includeOwnershipStdev=True,
        includeMovesOwnershipStdev=False,
        rootPolicyTemperature=2.0,
        analysisPVLen=5,
    )
    replies = run([q])
    warned = [(r["id"], r["field"]) for r in replies if "warning" in r]
    assert warned == [
        ("q", "includeOwnershipStdev"),
        ("q", "rootPolicyTemperature"),
        ("q", "analysisPVLen"),
    ]
    assert results(replies, "q")[0]["rootInfo"]["visits"] == 4


def test_a_finished_game_is_analysed_to_its_last_turn() -> None:
    # A review asks for every turn of a game that ended with two passes: the last
    # turn is searched with the side to move playing on, and a warning says so.
    moves = [["B", "C3"], ["W", "pass"], ["B", "pass"]]
    replies = run([query(moves=moves, analyzeTurns=[3, 2], maxVisits=12)])
    assert not [r for r in replies if "error" in r]
    warnings = [r for r in replies if "warning" in r]
    assert [(w["id"], w["field"]) for w in warnings] == [("q", "moves")]
    assert "turn 3;" in warnings[0]["warning"]
    got = {r["turnNumber"]: r for r in results(replies, "q")}
    assert set(got) == {2, 3}
    for turn, side in ((2, "B"), (3, "W")):
        assert got[turn]["rootInfo"]["currentPlayer"] == side
        assert got[turn]["rootInfo"]["visits"] == 12
    # The position is the game's last one: C3 is taken.
    assert "C3" not in {m["move"] for m in got[3]["moveInfos"]}
    # A move after the end goes on from the stones, as before, with no warning.
    later = run([query(moves=[*moves, ["W", "B2"]], maxVisits=6)])
    assert not [r for r in later if "warning" in r or "error" in r]
    assert results(later, "q")[0]["rootInfo"]["currentPlayer"] == "B"


def test_avoid_and_allow_moves() -> None:
    allow = [{"player": "B", "moves": ["C3", "B2"], "untilDepth": 1}]
    got = results(run([query(maxVisits=30, allowMoves=allow)]), "q")[0]
    assert {m["move"] for m in got["moveInfos"]} == {"C3", "B2"}
    avoid = [{"player": "B", "moves": ["C3", "B2"], "untilDepth": 1}]
    got = results(run([query(maxVisits=60, avoidMoves=avoid)]), "q")[0]
    played = {m["move"] for m in got["moveInfos"]}
    assert len(played) > 5 and not played & {"C3", "B2"}


def test_initial_stones_and_player() -> None:
    q = query(
        initialStones=[["B", "C3"], ["W", "D4"]],
        initialPlayer="W",
        includePolicy=True,
        maxVisits=10,
    )
    got = results(run([q]), "q")[0]
    assert got["rootInfo"]["currentPlayer"] == "W"
    for v in ("C3", "D4"):
        assert got["policy"][coords.from_gtp(v, 5)] == -1.0
        assert v not in {m["move"] for m in got["moveInfos"]}


def test_moves_the_rules_forbid_only_by_suicide_are_played_as_katago_does() -> None:
    # KataGo plays a query's moves tolerantly (a record may come from other rules):
    # a multi-stone suicide under Chinese rules is played, its stones removed; we
    # refused the whole query. Occupied points, simple ko and single-stone suicide
    # stay errors.
    setup = [["W", "B1"], ["W", "B2"], ["W", "A3"], ["B", "A1"]]
    q = query(initialStones=setup, moves=[["B", "A2"]], analyzeTurns=[0, 1])
    jobs = parse_query(q).jobs
    assert [j.turn for j in jobs] == [0, 1]
    after = jobs[1].board
    assert after.to_play == goboard.WHITE
    assert after.stones().ravel().tolist().count(goboard.BLACK) == 0
    assert after.stones().ravel().tolist().count(goboard.WHITE) == 3
    single = query(initialStones=[["W", "B1"], ["W", "A2"]], moves=[["B", "A1"]])
    ko = [["B", "B1"], ["W", "C1"], ["B", "A2"], ["W", "B2"], ["B", "C2"]]
    ko += [["W", "A1"], ["B", "B1"]]  # W took the ko at A1; B takes back at once
    occupied = [["B", "C3"], ["W", "C3"]]
    for bad in (single, query(moves=ko), query(moves=occupied)):
        replies = run([bad])
        assert [r.get("field") for r in replies] == ["moves"], replies


def test_white_moves_first_after_handicap_stones() -> None:
    # KataGo: with no moves and no initialPlayer, two or more Black stones and no
    # White one are handicap stones, and White is to move (we had Black move again).
    def first(**fields: object) -> int:
        return parse_query({**query(), **fields}).jobs[0].board.to_play

    handicap = [["B", "B2"], ["B", "D4"]]
    assert first(initialStones=handicap) == goboard.WHITE
    assert first(initialStones=handicap, initialPlayer="B") == goboard.BLACK
    assert (
        first(initialStones=handicap, moves=[["B", "C3"]], analyzeTurns=[0])
        == goboard.BLACK
    )
    assert first(initialStones=handicap[:1]) == goboard.BLACK
    assert first(initialStones=[*handicap, ["W", "C3"]]) == goboard.BLACK


def test_moves_in_every_form_katago_reads() -> None:
    # KataGo's docs: a location is a GTP vertex or "(x,y)", the column from the left
    # and the row from the top counted from 0; "(2,2)" was refused here.
    def stones(*vertices: str) -> list[int]:
        moves = [[("B", "W")[i % 2], v] for i, v in enumerate(vertices)]
        board = parse_query(query(moves=moves)).jobs[0].board
        return [p for p, c in enumerate(board.stones().ravel()) if c]

    a5, c3, e1 = (coords.from_gtp(v, 5) for v in ("A5", "C3", "E1"))
    assert stones("(0,0)", "( 2 , 2 )", "(4,4)") == [a5, c3, e1]
    assert stones("a5", " c3 ", "PASS", "E1") == [a5, c3, e1]
    for bad in ("(5,0)", "(0,-1)", "(1)", "(1,2,3)", "(a,b)", "()"):
        replies = run([query("bad", moves=[["B", bad]])])
        assert [r.get("field") for r in replies] == ["moves"], (bad, replies)


def test_terminate_a_queued_and_a_running_query() -> None:
    long = query("long", size=9, maxVisits=1_000_000, reportDuringSearchEvery=0.05)
    queued = query("queued", size=9, maxVisits=5)
    stop = [
        {"id": "t1", "action": "terminate", "terminateId": "queued"},
        {"id": "t2", "action": "terminate", "terminateId": "long"},
    ]
    replies = run_paced([long, searching("long"), queued, 0.1, *stop])
    acks = [r for r in replies if r.get("action") == "terminate"]
    assert [a["id"] for a in acks] == ["t1", "t2"]
    assert results(replies, "queued") == [
        {"id": "queued", "turnNumber": 0, "isDuringSearch": False, "noResults": True}
    ]
    final = results(replies, "long")
    assert len(final) == 1 and 0 < final[0]["rootInfo"]["visits"] < 1_000_000
    during = [r for r in replies if r.get("id") == "long" and r["isDuringSearch"]]
    assert during and all(r["rootInfo"]["visits"] > 0 for r in during)
    assert replies.index(final[0]) > replies.index(during[-1])


def test_queries_in_flight_are_answered_by_priority() -> None:
    first = query("first", size=9, maxVisits=1_000_000, reportDuringSearchEvery=0.05)
    low = query("low", maxVisits=4, priority=0)
    high = query("high", maxVisits=4, priority=5)
    multi = query("multi", moves=[["B", "C3"]], analyzeTurns=[0, 1], priorities=[1, 9])
    stop = {"id": "t", "action": "terminate", "terminateId": "first"}
    # The others queue while "first" searches (it started, so it is not reordered).
    replies = run_paced([first, searching("first"), low, high, multi, 0.1, stop])
    order = [
        (r["id"], r["turnNumber"])
        for r in replies
        if r.get("isDuringSearch") is False and "noResults" not in r
    ]
    assert order == [("first", 0), ("multi", 1), ("high", 0), ("multi", 0), ("low", 0)]


def test_terminate_all_and_turn_numbers() -> None:
    first = query("first", size=9, maxVisits=1_000_000, reportDuringSearchEvery=0.05)
    game = query("game", moves=[["B", "C3"]], analyzeTurns=[0, 1], maxVisits=4)
    stop = [
        {"id": "t", "action": "terminate", "terminateId": "game", "turnNumbers": [1]},
        {"id": "all", "action": "terminate_all"},
    ]
    replies = run_paced([first, searching("first"), game, 0.1, *stop])
    game_replies = results(replies, "game")
    assert all(r.get("noResults") for r in game_replies)
    assert sorted(r["turnNumber"] for r in game_replies) == [0, 1]
    assert results(replies, "first")[0]["rootInfo"]["visits"] > 0


def test_rules_mapping() -> None:
    assert parse_rules("tromp-taylor").rules == goboard.Rules("positional", True)
    # KataGo's "chinese" is simple ko; its servers' variants are positional superko.
    assert parse_rules("chinese").rules == goboard.Rules("simple", False)
    assert parse_rules("chinese-ogs").rules == goboard.Rules("positional", False)
    assert parse_rules("aga").rules == goboard.Rules("situational", False)
    # KaTrain sends "new zealand"; KataGo takes any spacing, hyphen or underscore.
    for name in ("new zealand", "New-Zealand", "new_zealand", "NZ", "newzealand"):
        nz = parse_rules(name)
        assert nz.rules == goboard.Rules("situational", True), name
        assert nz.handicap_bonus == "0"
    for name in ("tromp_taylor", "Tromp Taylor", "TrompTaylor"):
        assert parse_rules(name).rules == goboard.Rules("positional", True), name
    assert parse_rules("french").handicap_bonus == "N-1"
    assert parse_rules("ing").rules == goboard.Rules("positional", True)
    assert parse_rules("ancient area").warnings  # stone scoring's group tax
    assert parse_rules("ancient-territory").territory
    # An object starts from Tromp-Taylor: multi-stone suicide legal unless it says.
    assert parse_rules({"ko": "SIMPLE"}).rules == goboard.Rules("simple", True)
    assert parse_rules("cn").handicap_bonus == "N"
    japanese = parse_rules("japanese")
    assert japanese.territory and japanese.warnings
    assert japanese.rules == goboard.Rules("simple", False)
    obj = parse_rules({"ko": "POSITIONAL", "scoring": "AREA", "suicide": True})
    assert obj.rules == goboard.Rules("positional", True) and not obj.warnings
    assert parse_rules({"hasButton": True, "scoring": "AREA"}).warnings
    for bad in ("nope", "", "chinese ogs extra", {"ko": "WEIRD"}, {"colour": 1}, 7):
        with pytest.raises(ValueError):
            parse_rules(bad)
    two_black = [(goboard.BLACK, 10), (goboard.BLACK, 20)]
    assert handicap_bonus("N", two_black) == 2
    assert handicap_bonus("N-1", two_black) == 1
    assert handicap_bonus("0", two_black) == 0
    assert handicap_bonus("N", two_black + [(goboard.WHITE, 5)]) == 0
    assert handicap_bonus("N", two_black[:1]) == 0


def test_rules_objects_as_kata_get_rules_prints_them() -> None:
    # KataGo's rules objects may carry "komi" (kata-get-rules prints it) and spell
    # "scoring" as "score"; both were refused as unknown fields. The query's komi
    # wins over the object's; with neither, button rules default to 7.
    printed = {
        "ko": "SIMPLE",
        "scoring": "AREA",
        "tax": "NONE",
        "suicide": False,
        "hasButton": False,
        "whiteHandicapBonus": "N",
        "friendlyPassOk": True,
        "komi": 6.0,
    }

    def komi(**fields: object) -> float:
        q = {**query(), **fields}
        if "komi" not in fields:
            del q["komi"]
        return parse_query(q).jobs[0].board.komi

    assert komi(rules=printed) == 6.0
    assert komi(rules=printed, komi=5.5) == 5.5
    assert komi(rules="aga-button") == 7.0 and komi(rules="japanese") == 6.5
    assert parse_rules({"score": "TERRITORY"}).territory
    for bad in (6.3, "7.5", True, 151):
        replies = run([query("bad", rules={**printed, "komi": bad})])
        assert [r.get("field") for r in replies] == ["rules"], (bad, replies)


def test_black_moves_before_whites_first_are_handicap_stones() -> None:
    # KataGo counts Black's moves before White's first as handicap stones (servers
    # record free handicap so) for whiteHandicapBonus, turn by turn; we counted only
    # initialStones, so a Chinese 2-stone game had komi 2 points short.
    def komi(rules: str, moves: list[list[str]], **fields: object) -> list[float]:
        q = {**query(rules=rules, moves=moves), **fields}
        q["analyzeTurns"] = list(range(len(moves) + 1))
        return [job.board.komi for job in parse_query(q).jobs]

    two = [["B", "B2"], ["B", "D4"], ["W", "C3"], ["B", "B4"]]
    assert komi("chinese", two) == [7.5, 7.5, 9.5, 9.5, 9.5]
    assert komi("aga", two) == [7.5, 7.5, 8.5, 8.5, 8.5]
    assert komi("tromp-taylor", two) == [7.5] * 5
    assert komi("chinese", [["B", "B2"], ["W", "C3"], ["B", "D4"]]) == [7.5] * 4
    with_stone = komi("chinese", two[2:], initialStones=[["B", "B2"], ["B", "D4"]])
    assert with_stone == [9.5, 9.5, 9.5]
    white_stone = komi("chinese", two, initialStones=[["W", "A1"]])
    assert white_stone == [7.5] * 5


def test_quit_without_waiting_terminates_at_the_end_of_input() -> None:
    srv, out = server()
    srv.finish_at_eof = False

    def lines() -> Iterator[str]:
        # End the input only once "a" is searching (slow builds take a while).
        yield json.dumps(
            query("a", size=9, maxVisits=1_000_000, reportDuringSearchEvery=0.05)
        )
        deadline = time.monotonic() + 120
        while '"isDuringSearch": true' not in out.getvalue().replace(":true", ": true"):
            assert time.monotonic() < deadline, out.getvalue()
            time.sleep(0.02)
        yield json.dumps(query("b"))

    assert srv.serve(lines()) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert results(replies, "b")[0]["noResults"] is True
    assert 0 < results(replies, "a")[0]["rootInfo"]["visits"] < 1_000_000


class _OnePlayer:
    """A PlayerSource of one 5x5 player."""

    def __init__(self, player: Player) -> None:
        self.player = player

    def player_for(self, size: int) -> Player:
        return self.player

    def can_play(self, size: int) -> bool:
        return size == 5


def test_scores_come_from_the_ownership_head_where_the_net_has_one() -> None:
    """Black's expected area 13.5 - 9 less komi 7.5: Black 3 points behind, in the
    root and after every move, with the head's own spread."""
    out = io.StringIO()
    srv = AnalysisServer(_OnePlayer(NetOwnership()), out, 16, log=lambda line: None)
    srv.serve([json.dumps(query("net", includeMovesOwnership=True))])
    (reply,) = results(
        [json.loads(line) for line in out.getvalue().splitlines()], "net"
    )
    assert reply["rootInfo"]["scoreLead"] == pytest.approx(-3.0, abs=1e-5)
    assert reply["moveInfos"]
    for m in reply["moveInfos"]:
        assert m["scoreLead"] == m["scoreMean"] == pytest.approx(-3.0, abs=1e-5)
        assert m["scoreStdev"] == pytest.approx(math.sqrt(25 * 0.19), abs=1e-5)
        assert m["ownership"][0] == pytest.approx(0.9)  # A5: the head's, Black's view


def test_a_search_that_averages_margins_reports_them() -> None:
    """Black's view: behind by the komi everywhere, spread 2 (the evaluations'), in
    the root and in every move (the head's static reading would spread 5)."""
    out = io.StringIO()
    player = even_area_player()
    srv = AnalysisServer(_OnePlayer(player), out, 24, log=lambda line: None)
    srv.serve([json.dumps(query("avg", moves=[["B", "C3"]]))])
    (reply,) = results(
        [json.loads(line) for line in out.getvalue().splitlines()], "avg"
    )
    assert reply["rootInfo"]["scoreLead"] == pytest.approx(-7.5, abs=1e-5)
    assert reply["rootInfo"]["scoreStdev"] == pytest.approx(2.0, abs=1e-5)
    assert len(reply["moveInfos"]) >= 2
    for m in reply["moveInfos"]:
        assert m["scoreLead"] == pytest.approx(-7.5, abs=1e-5)
        assert m["scoreStdev"] == pytest.approx(2.0, abs=1e-5)


def test_a_search_that_fails_names_its_turn_and_the_engine_goes_on() -> None:
    logged: list[str] = []
    out = io.StringIO()
    choice = PlayerChoice(PlayerSpec(simulations=24, seed=3, uct=True), log=print)
    srv = AnalysisServer(choice, out, 24, log=logged.append)
    sound = choice.player_for(5)

    class Failing:  # the 5x5 player, whose searches of turn 1 raise
        def __getattr__(self, name: str) -> Any:
            return getattr(sound, name)

        def genmove(self, board: goboard.Board, **kwargs: Any) -> Any:
            if board.move_number == 1:
                raise RuntimeError("the network fell over")
            return sound.genmove(board, **kwargs)

    choice.player_for = lambda size: Failing()  # type: ignore[method-assign]
    lines = [query("a", moves=[["B", "C3"]], analyzeTurns=[0, 1]), query("b")]
    assert srv.serve(json.dumps(q) for q in lines) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    failed = [r for r in replies if "error" in r]
    assert failed == [
        {"error": "internal error: the network fell over", "id": "a", "turnNumber": 1}
    ]
    answered = {(r["id"], r["turnNumber"]) for r in replies if "moveInfos" in r}
    assert answered == {("a", 0), ("b", 0)}
    assert any("RuntimeError: the network fell over" in line for line in logged)
