"""Fuzz ``alphago analysis`` (KataGo's JSON analysis protocol) in-process.

Each input builds a fresh :class:`alphago.analysis.AnalysisServer` over tiny UCT
players (trees of at most 16 nodes, so even ``maxVisits`` of a billion stays cheap)
and serves it up to 12 lines: queries built from fuzzer-chosen fields with valid or
wild values (wrong types, NaN and infinities, huge and negative ``maxVisits``, unknown
fields, bad moves and coordinates, bad rules, komi and board sizes, ids of every JSON
type), the actions (``query_version``, ``clear_cache``, ``terminate`` with turn
numbers, ``terminate_all``), such JSON cut short or with bytes spliced in, and wholly
arbitrary lines. After the fuzzed lines comes one valid query.

Checks, each a finding when it fails:

- the server never raises and every output line is one strict JSON object (no NaN);
- an unparsable line, or JSON that is not an object, gets exactly one ``error`` reply
  at once; an action gets its echo or an ``error``; a query object gets an ``error``
  at once or, later, a final result or ``noResults`` for each of its turns; an error
  reply carries the query's ``id`` whenever the query had one;
- no reply is an ``internal error``; results are well formed (moves on the board,
  visits within the query's limit);
- the engine keeps serving: the valid query after the fuzzed lines gets a correct
  final answer.

Run: ``python fuzz/fuzz_analysis.py -max_total_time=60 /tmp/an fuzz/corpus/analysis``
(without atheris: replays the seed corpus once).
"""

from __future__ import annotations

import io
import json
import math
import threading
from collections.abc import Iterator
from typing import Any

from fuzzinput import FuzzInput
from harness import instrumented, main

with instrumented():
    import search
    from alphago.analysis import AnalysisServer
    from alphago.player import Player, UCTPlayer
    from goboard import coords

#: Nodes of every search tree: bounds a job's visits whatever the query asks.
MAX_NODES = 16
CHECK_ID = "\x00check"
CHECK = {
    "id": CHECK_ID,
    "moves": [["B", "C3"], ["W", "D4"]],
    "rules": "chinese",
    "komi": 7.5,
    "boardXSize": 5,
    "boardYSize": 5,
    "maxVisits": 6,
    "includeOwnership": True,
}

IDS: tuple[object, ...] = ("a", "b", "q", "", "é", 1, 1.5, None, True, [], {}, "1")
KEYS = (
    "id", "moves", "initialStones", "initialPlayer", "rules", "komi",
    "whiteHandicapBonus", "boardXSize", "boardYSize", "analyzeTurns", "maxVisits",
    "includeOwnership", "includeMovesOwnership", "includePolicy", "avoidMoves",
    "allowMoves", "reportDuringSearchEvery", "priority", "priorities",
    "overrideSettings", "includePVVisits", "includeOwnershipStdev",
    "includeNoResultValue", "action", "terminateId", "turnNumbers", "unknownField",
)  # fmt: skip
RULES = (
    "chinese", "japanese", "tromp-taylor", "korean", "aga", "new-zealand",
    "stone_scoring", "CHINESE", "x", "", "bga", "chinese-ogs", "chinese_kgs",
)  # fmt: skip
RULE_KEYS = (
    "ko", "scoring", "tax", "suicide", "hasButton", "whiteHandicapBonus",
    "friendlyPassOk", "x",
)  # fmt: skip
RULE_VALUES = (
    "SIMPLE", "POSITIONAL", "SITUATIONAL", "AREA", "TERRITORY", "NONE", "SEKI",
    "ALL", "0", "N", "N-1", True, False, 1, None,
)  # fmt: skip
SETTINGS = ("reportAnalysisWinratesAs", "maxVisits", "maxTime", "wideRootNoise")
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE", "black", "x")
ACTIONS = ("query_version", "clear_cache", "terminate", "terminate_all", "x", 3)
WILD: tuple[object, ...] = (
    None, True, False, 0, -1, 1, 2, 5, 19, 2**31, 2**63, -(2**63), 10**30, 0.5,
    -0.0, 1e308, math.nan, math.inf, -math.inf, "", "B", "x", [], {}, [[]], [None],
)  # fmt: skip


class Players:
    """Tiny UCT players by size; sizes above ``cap`` are refused (0: none)."""

    def __init__(self, sims: int, cap: int) -> None:
        self.sims, self.cap = sims, cap
        self.made: dict[int, Player] = {}

    def player_for(self, size: int) -> Player:
        assert self.can_play(size), f"player_for({size}) after can_play said no"
        if size not in self.made:
            config = search.UCTConfig(num_simulations=self.sims, max_nodes=MAX_NODES)
            self.made[size] = UCTPlayer(config, seed=1, ownership_playouts=4)
        return self.made[size]

    def can_play(self, size: int) -> bool:
        return not self.cap or size <= self.cap


def wild(inp: FuzzInput) -> object:
    if inp.int(0, 3) == 0:
        return inp.text(8)
    if inp.int(0, 5) == 0:
        return inp.float()
    return inp.choice(WILD)


def vertex(inp: FuzzInput) -> object:
    kind = inp.int(0, 9)
    if kind == 0:
        return wild(inp)
    if kind == 1:
        return inp.choice(("pass", "PASS", "tt", "A0", "Z99", "I5", "aa", " C3"))
    return f"{inp.choice('ABCDEFGHJKLMNOPQRST')}{inp.int(1, 19)}"


def colour(inp: FuzzInput) -> object:
    return inp.choice(("B", "W", "b", "white", "x")) if inp.int(0, 7) else wild(inp)


def move_list(inp: FuzzInput) -> object:
    out: list[object] = []
    for _ in range(inp.int(0, 6)):
        if inp.int(0, 11) == 0:
            out.append(wild(inp))
        else:
            pair = [colour(inp), vertex(inp)]
            out.append(pair[: inp.int(0, 2)] if inp.int(0, 9) == 0 else pair)
    return out


def rules(inp: FuzzInput) -> object:
    kind = inp.int(0, 5)
    if kind == 0:
        return wild(inp)
    if kind == 1:
        keys = [inp.choice(RULE_KEYS) for _ in range(inp.int(0, 4))]
        return {k: inp.choice(RULE_VALUES) for k in keys}
    return inp.choice(RULES)


def number(inp: FuzzInput, usual: tuple[object, ...]) -> object:
    return inp.choice(usual) if inp.int(0, 2) else wild(inp)


def filters(inp: FuzzInput) -> object:
    out: list[object] = []
    for _ in range(inp.int(0, 2)):
        item: dict[str, object] = {
            "player": colour(inp),
            "moves": [vertex(inp) for _ in range(inp.int(0, 3))],
            "untilDepth": number(inp, (1, 2, 5, 1000, 1001, 0)),
        }
        if inp.int(0, 7) == 0:
            del item[inp.choice(sorted(item))]
        out.append(item)
    return out


def value(inp: FuzzInput, key: str, ids: list[object]) -> object:
    if inp.int(0, 9) == 0:
        return wild(inp)
    if key in ("id", "terminateId"):
        return inp.choice(ids) if ids and inp.bool() else inp.choice(IDS)
    if key in ("moves", "initialStones"):
        return move_list(inp)
    if key == "initialPlayer":
        return colour(inp)
    if key == "rules":
        return rules(inp)
    if key == "komi":
        return number(inp, (7.5, 6.5, 0, -7.5, 0.25, 150, 151, 7))
    if key == "whiteHandicapBonus":
        return inp.choice(("0", "N", "N-1", "n", 0))
    if key in ("boardXSize", "boardYSize"):
        return number(inp, (5, 5, 9, 2, 3, 19, 1, 0, 20, 25, 7))
    if key in ("analyzeTurns", "turnNumbers", "priorities"):
        return [number(inp, (0, 1, 2, 3, -1, 6)) for _ in range(inp.int(0, 3))]
    if key == "maxVisits":
        return number(inp, (1, 2, 3, 10, 0, -5, 10**9, 10**9 + 1, 2**63, 1.5))
    if key == "reportDuringSearchEvery":
        return number(inp, (0.001, 1e-300, 0.05, 0, -1, 86401, 5e-324))
    if key == "priority":
        return number(inp, (0, 1, -1, 10**20))
    if key in ("avoidMoves", "allowMoves"):
        return filters(inp)
    if key == "overrideSettings":
        out: dict[str, object] = {}
        for _ in range(inp.int(0, 3)):
            k = inp.choice(SETTINGS)
            out[k] = (
                inp.choice(PERSPECTIVES)
                if k == "reportAnalysisWinratesAs" and inp.bool()
                else number(inp, (1, 3, 0.01, 0, -1, 10**9, 86401))
            )
        return out
    if key == "action":
        return inp.choice(ACTIONS)
    if key.startswith("include"):
        return inp.bool() if inp.int(0, 3) else wild(inp)
    return wild(inp)


def query(inp: FuzzInput, ids: list[object]) -> dict[str, object]:
    """A query: the required fields mostly valid, then fuzzed fields on top."""
    size = inp.choice((5, 5, 3, 2, 9, 19))
    q: dict[str, object] = {
        "id": inp.choice(("a", "b", "q")),
        "moves": [],
        "rules": "chinese",
        "komi": 7.5,
        "boardXSize": size,
        "boardYSize": size,
    }
    if inp.int(0, 3) == 0:
        del q[inp.choice(sorted(q))]
    if inp.int(0, 3) == 0:
        q = {"id": q.get("id", "a"), "action": inp.choice(ACTIONS[:4])}
    for _ in range(inp.int(0, 5)):
        key = inp.choice(KEYS)
        q[key] = value(inp, key, ids)
    return q


def line(inp: FuzzInput, ids: list[object]) -> str:
    kind = inp.int(0, 11)
    if kind == 0:
        return inp.text(120)
    q = query(inp, ids)
    ids.append(q.get("id"))
    text = json.dumps(q)  # NaN and Infinity as Python's json writes them
    if kind == 1:
        return text[: inp.int(0, len(text))]
    if kind == 2:
        at = inp.int(0, len(text))
        return text[:at] + inp.text(8) + text[at:]
    if kind == 3:
        return json.dumps(inp.choice(([q], "x", 1, None, [1, 2], True)))
    if kind == 4:
        return "\t" + text + "   "
    return text


def strict(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"non-JSON constant {constant} in a reply: {text}")

    return json.loads(text, parse_constant=refuse)


def same(a: object, b: object) -> bool:
    """JSON values equal (NaN equal to itself, as an echoed id should be)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def parse_line(text: str) -> tuple[bool, object]:
    """(parsed, value): the line read as strict JSON."""

    def refuse(constant: str) -> None:
        raise ValueError(constant)  # NaN and Infinity are no JSON

    try:
        return True, json.loads(text.strip(), parse_constant=refuse)
    except (ValueError, RecursionError):
        return False, None


def check_result(r: dict[str, Any]) -> None:
    assert isinstance(r.get("turnNumber"), int), r
    if r.get("noResults"):
        return
    root = r["rootInfo"]
    assert root["currentPlayer"] in ("B", "W"), r
    assert 0.0 <= root["winrate"] <= 1.0, r
    assert 0 <= root["visits"] <= MAX_NODES, r
    for order, m in enumerate(r["moveInfos"]):
        assert m["order"] == order and isinstance(m["pv"], list), r
        assert 0 < m["visits"] <= root["visits"] and 0.0 <= m["winrate"] <= 1.0, r


def check_answer(replies: list[dict[str, Any]]) -> None:
    """The valid query after the fuzzed lines got its correct final answer."""
    final = [r for r in replies if r.get("id") == CHECK_ID and "error" not in r]
    final = [r for r in final if "warning" not in r and not r.get("isDuringSearch")]
    assert len(final) == 1, replies
    r = final[0]
    assert not r.get("noResults"), r
    assert r["turnNumber"] == 2 and r["rootInfo"]["currentPlayer"] == "B", r
    assert r["rootInfo"]["visits"] == CHECK["maxVisits"], r
    assert len(r["ownership"]) == 25 and r["moveInfos"], r
    taken = {coords.from_gtp("C3", 5), coords.from_gtp("D4", 5)}
    for m in r["moveInfos"]:
        assert coords.from_gtp(m["move"], 5) not in taken, r


def one_input(data: bytes) -> None:
    inp = FuzzInput(data)
    players = Players(inp.int(1, 8), inp.choice((0, 0, 0, 5, 9)))
    out = io.StringIO()
    server = AnalysisServer(
        players,
        out,
        default_visits=inp.int(1, 4),
        perspective=inp.choice(("BLACK", "WHITE", "SIDETOMOVE")),
        log=lambda text: None,
        finish_at_eof=inp.int(0, 3) > 0,
    )
    ids: list[object] = []
    lines = []
    while inp.remaining and len(lines) < 12:
        lines.append(line(inp, ids))
    lines.append(json.dumps(CHECK))

    # Replies written while handle() runs a line come from the reading thread: they
    # belong to that line. The worker's (results) are matched by id afterwards.
    now = [-1]
    at_once: list[list[dict[str, Any]]] = [[] for _ in lines]
    later: list[dict[str, Any]] = []
    send = server.write
    reader = threading.current_thread()

    def record(obj: dict[str, object]) -> None:
        send(obj)
        copy = strict(json.dumps(obj))  # what the client reads
        mine = threading.current_thread() is reader
        (at_once[now[0]] if mine else later).append(copy)

    server.write = record  # type: ignore[method-assign]

    def feed() -> Iterator[str]:
        for i, text in enumerate(lines):
            now[0] = i
            yield text

    assert server.serve(feed()) == 0
    replies = [strict(text) for text in out.getvalue().splitlines()]
    assert all(isinstance(r, dict) for r in replies), replies
    for r in replies:
        assert "internal error" not in str(r.get("error", "")), r
    for i, text in enumerate(lines):
        check_line(text, at_once[i], replies)
    for r in later:
        if "error" not in r:
            check_result(r)
    if server.finish_at_eof:
        check_answer(replies)
    else:
        # terminated at the end of the input: the check query was answered somehow
        assert any(r.get("id") == CHECK_ID for r in replies), replies


Replies = list[dict[str, Any]]


def check_line(text: str, mine: Replies, every: Replies) -> None:
    if not text.strip():
        assert not mine, (text, mine)
        return
    parsed, q = parse_line(text)
    errors = [r for r in mine if "error" in r]
    if not parsed or not isinstance(q, dict):
        assert len(errors) == 1 and len(mine) == 1, (text, mine)
        if "id" in errors[0]:
            assert isinstance(errors[0]["id"], str), (text, mine)
        return
    for r in errors:
        if "id" in q:
            assert "id" in r and same(r["id"], q["id"]), (text, r)
    if q.get("action") is not None:
        if not errors:
            echo = [r for r in mine if "action" in r and same(r.get("id"), q.get("id"))]
            assert echo, (text, mine)
        return
    if errors:
        return
    qid = q.get("id")
    assert isinstance(qid, str), (text, mine)
    answered = [r for r in every if r.get("id") == qid and "turnNumber" in r]
    assert any(not r.get("isDuringSearch") for r in answered), (text, mine, every)


if __name__ == "__main__":
    main(one_input, "analysis")
