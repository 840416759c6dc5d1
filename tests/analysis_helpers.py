"""Running ``alphago analysis`` in-process (UCT players, small boards) for the tests."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterable, Iterator
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


#: A script step of :func:`run_paced` that waits: the replies so far -> go on?
Until = Callable[[list[Reply]], bool]


def run_paced(
    items: Iterable[dict[str, object] | float | Until],
    timeout: float = 60.0,
    **kwargs: int,
) -> list[Reply]:
    """Serve a script to the end: dicts are sent as query lines, a float sleeps that
    many seconds, and a callable holds the script back until it returns True for the
    replies written so far (AssertionError after ``timeout`` seconds). Waiting on
    what the engine said, rather than sleeping, keeps the tests right on a loaded
    machine, where a search may not have started within any fixed time."""
    srv, out = server(**kwargs)

    def written() -> list[Reply]:
        # The server writes whole lines under a lock; a line not yet ended is skipped.
        lines = out.getvalue().split("\n")[:-1]
        return [json.loads(line) for line in lines]

    def lines() -> Iterator[str]:
        for item in items:
            if isinstance(item, float):
                time.sleep(item)
            elif callable(item):
                deadline = time.monotonic() + timeout
                while not item(written()):
                    assert time.monotonic() < deadline, "the engine never got there"
                    time.sleep(0.01)
            else:
                yield json.dumps(item)

    assert srv.serve(lines()) == 0
    return written()


def searching(qid: str) -> Until:
    """A :func:`run_paced` step: wait for a during-search report of ``qid`` with
    visits (the query needs ``reportDuringSearchEvery``)."""

    def seen(replies: list[Reply]) -> bool:
        return any(
            r.get("id") == qid
            and r.get("isDuringSearch") is True
            and r["rootInfo"]["visits"] > 0
            for r in replies
        )

    return seen


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
