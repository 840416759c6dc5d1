"""The analysis engine's loop: queries in on stdin, results out on stdout.

The reader (the calling thread) parses each line and queues its jobs; one worker
thread searches them, highest ``priority`` first and then in arrival order, so several
queries can be in flight and each is answered as it finishes (on a small CPU one
search at a time uses the cores best: the search itself batches the network). Every
output line is one JSON object written under a lock and flushed.

``terminate`` (and ``terminate_all``) answer at once with the query echoed; queued jobs
they match are answered ``noResults``, and a running one stops and reports what it
has. At the end of the input the queued jobs are finished before the engine exits,
as KataGo does (``-quit-without-waiting``: they are terminated).
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import re
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import Protocol, TextIO

import search

from ..player import Player
from .query import Job, QueryError, parse_query
from .respond import Extras, analysis_response, candidates_of, no_results, policy_of

__all__ = ["AnalysisServer", "KATAGO_VERSION", "PlayerSource"]

#: ``query_version``'s ``version``: the KataGo release whose protocol we follow.
KATAGO_VERSION = "1.16.0"

_ID = re.compile(r'"id"\s*:\s*"((?:[^"\\]|\\.)*)"')


class PlayerSource(Protocol):
    """Players by board size (``alphago.player_choice.PlayerChoice``)."""

    def player_for(self, size: int) -> Player: ...

    def can_play(self, size: int) -> bool: ...


class AnalysisServer:
    """Serves KataGo analysis queries with the players ``players`` gives.

    Args:
        players: the player for each board size.
        out: where responses go (one JSON object per line).
        default_visits: simulations when a query names no ``maxVisits``.
        perspective: the default ``reportAnalysisWinratesAs``.
        log: one line of diagnostics (stderr by default).
        finish_at_eof: finish the queued jobs when the input ends (KataGo's default);
            False terminates them (``-quit-without-waiting``).
    """

    def __init__(
        self,
        players: PlayerSource,
        out: TextIO,
        default_visits: int,
        perspective: str = "BLACK",
        log: Callable[[str], None] | None = None,
        finish_at_eof: bool = True,
    ) -> None:
        self.players = players
        self.finish_at_eof = finish_at_eof
        self.out = out
        self.default_visits = default_visits
        self.perspective = perspective
        self._log = log if log is not None else _stderr
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._queue: list[tuple[int, int, Job]] = []
        self._order = itertools.count()
        self._running: Job | None = None
        self._closing = False
        self._worker = threading.Thread(target=self._work, name="analysis", daemon=True)

    # -- I/O -------------------------------------------------------------------------

    def write(self, obj: dict[str, object]) -> None:
        """Send one response line."""
        line = json.dumps(obj, separators=(",", ":"), allow_nan=False)
        with self._write_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError):  # the client went away
                self._closing = True

    def serve(self, lines: Iterable[str]) -> int:
        """Answer every line, then finish the queued jobs; returns an exit status."""
        self._worker.start()
        self._log("alphago analysis: ready to begin handling requests")
        try:
            for line in lines:
                self.handle(line)
                if self._closing:
                    break
            if not self.finish_at_eof:
                self.terminate(None)
        finally:
            with self._cond:
                self._closing = True
                self._cond.notify_all()
            self._worker.join()
        return 0

    # -- queries ---------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """One input line: an action, a query to queue, or an error reply."""
        line = line.strip()
        if not line:
            return
        try:
            q = json.loads(line, parse_constant=_no_constant, parse_float=_finite)
        except (ValueError, RecursionError) as e:
            # ValueError: bad JSON, NaN or Infinity (not JSON; KataGo refuses them
            # too, and they could not be echoed), a number too large for a float
            # (1e400 is JSON, but would read as infinity), an integer of too many
            # digits.
            reply: dict[str, object] = {"error": f"could not parse json: {e}"}
            qid = _recover_id(line)
            if qid is not None:
                reply["id"] = qid
            self.write(reply)
            return
        if not isinstance(q, dict):
            self.write({"error": "a query must be a JSON object"})
            return
        try:
            action = q.get("action")
            if action is None:
                self._enqueue(q)
            else:
                self._action(q, action)
        except QueryError as e:
            reply = {"error": str(e)}
            if e.field is not None:
                reply["field"] = e.field
            if "id" in q:
                reply["id"] = q["id"]
            self.write(reply)

    def _enqueue(self, q: dict[str, object]) -> None:
        parsed = parse_query(q, self.perspective)
        size = parsed.jobs[0].board.size if parsed.jobs else 0
        if parsed.jobs and not self.players.can_play(size):
            raise QueryError(
                f"this engine's network cannot play {size}x{size}", "boardXSize"
            )
        for key, message in parsed.warnings:
            self.write({"warning": message, "field": key, "id": parsed.query_id})
        with self._cond:
            for job in parsed.jobs:
                heapq.heappush(self._queue, (-job.priority, next(self._order), job))
            self._cond.notify_all()

    def _action(self, q: dict[str, object], action: object) -> None:
        if "id" not in q or not isinstance(q["id"], str):
            raise QueryError("id must be a string", "id")
        if action == "query_version":
            self.write({**q, "version": KATAGO_VERSION, "git_hash": "<omitted>"})
        elif action == "clear_cache":
            self.write(dict(q))
        elif action in ("terminate", "terminate_all"):
            target = q.get("terminateId")
            if action == "terminate" and not isinstance(target, str):
                raise QueryError("terminateId must be a string", "terminateId")
            turns = q.get("turnNumbers")
            if turns is not None and (
                not isinstance(turns, list)
                or any(isinstance(t, bool) or not isinstance(t, int) for t in turns)
            ):
                raise QueryError(
                    "turnNumbers must be a list of integers", "turnNumbers"
                )
            self.write(dict(q))
            self.terminate(target if action == "terminate" else None, turns)
        else:
            raise QueryError(f"unknown action {action!r}", "action")

    def terminate(self, query_id: object, turns: list[int] | None = None) -> None:
        """Stop the jobs of ``query_id`` (None: every query), on ``turns`` if given."""

        def hit(job: Job) -> bool:
            return (query_id is None or job.query_id == query_id) and (
                turns is None or job.turn in turns
            )

        with self._cond:
            dropped = [job for _, _, job in self._queue if hit(job)]
            self._queue = [e for e in self._queue if not hit(e[2])]
            heapq.heapify(self._queue)
            running = self._running
            if running is not None and hit(running):
                running.stop.set()
        for job in dropped:
            self.write(no_results(job))

    # -- the worker --------------------------------------------------------------------

    def _next(self) -> Job | None:
        with self._cond:
            while not self._queue:
                if self._closing:
                    return None
                self._cond.wait()
            _, _, job = heapq.heappop(self._queue)
            self._running = job
            return job

    def _work(self) -> None:
        while (job := self._next()) is not None:
            try:
                self._search(job)
            except Exception as e:  # one bad job must not end the engine
                self._log(traceback.format_exc().rstrip())
                # turnNumber: a client waiting for each turn's final reply learns
                # that this one will not come.
                reply = {"error": f"internal error: {e}", "id": job.query_id}
                self.write({**reply, "turnNumber": job.turn})
            finally:
                with self._cond:
                    self._running = None

    def _search(self, job: Job) -> None:
        player = self.players.player_for(job.board.size)
        extras = Extras.of(job.board, player)
        if job.ownership:
            own = player.ownership(job.board)
            extras.ownership = [float(v) for v in own.ravel()]
        if job.policy:
            extras.policy = policy_of(player, job.board)
        visits = job.max_visits if job.max_visits is not None else self.default_visits
        capacity = getattr(player, "tree_capacity", None)
        if callable(capacity):  # a search stops when its tree is full anyway
            visits = max(1, min(visits, int(capacity())))

        def report(result: search.SearchResult) -> None:
            if not result.visits.any():  # nothing to show yet
                return
            cands = candidates_of(player, result)
            self.write(analysis_response(job, result, cands, extras, during=True))

        if job.stop.is_set():
            self.write(no_results(job))
            return
        result = player.genmove(
            job.board,
            time_budget=job.max_time,
            stop=job.stop,
            on_result=report if job.report_every is not None else None,
            every_seconds=job.report_every,
            simulations=visits,
            filters=job.filters,
            early_stop=False,  # maxVisits asks for that many
        )
        cands = candidates_of(player, result)
        self.write(analysis_response(job, result, cands, extras, during=False))


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of a float's range")
    return value


def _recover_id(line: str) -> str | None:
    """The string ``id`` of a line that is no JSON, when one can be read off it."""
    found = _ID.search(line)
    if found is None:
        return None
    try:
        qid = json.loads(f'"{found.group(1)}"')
    except ValueError:  # a bad escape or a control character inside
        return None
    return qid if isinstance(qid, str) else None


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
