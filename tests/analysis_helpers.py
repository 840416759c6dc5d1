"""Running ``alphago analysis`` in-process (UCT players, small boards) for the tests."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

from alphago.analysis import AnalysisServer
from alphago.player_choice import PlayerChoice, PlayerSpec

Reply = dict[str, Any]


def server(simulations: int = 24, seed: int = 3) -> tuple[AnalysisServer, io.StringIO]:
    """A server over plain UCT players writing to a StringIO."""
    out = io.StringIO()
    spec = PlayerSpec(simulations=simulations, seed=seed, uct=True)
    choice = PlayerChoice(spec, log=lambda line: None)
    return AnalysisServer(choice, out, simulations, log=lambda line: None), out


def run(lines: Iterable[str | dict[str, object]], **kwargs: int) -> list[Reply]:
    """Serve ``lines`` (dicts are sent as JSON) to the end; the parsed replies."""
    srv, out = server(**kwargs)
    text = (line if isinstance(line, str) else json.dumps(line) for line in lines)
    assert srv.serve(text) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def query(qid: str = "q", size: int = 5, **fields: object) -> dict[str, object]:
    """A query with KataGo's required fields (Chinese rules, komi 7.5)."""
    q: dict[str, object] = {
        "id": qid,
        "moves": [],
        "rules": "chinese",
        "komi": 7.5,
        "boardXSize": size,
        "boardYSize": size,
    }
    q.update(fields)
    return q


def results(replies: list[Reply], qid: str) -> list[Reply]:
    """The final analysis replies of query ``qid`` (no warnings or errors)."""
    return [
        r
        for r in replies
        if r.get("id") == qid
        and "error" not in r
        and "warning" not in r
        and r.get("isDuringSearch") is False
    ]
