"""A Gumbel search's budget beyond one move's: rounds over one growing tree.

Sequential halving splits a budget known in advance into phases, so it cannot run
"until stopped" the way PUCT ponders: planned for a whole analysis (the tree's
capacity, tens of thousands of simulations), its first phase alone would spread
thousands of visits evenly over the considered moves. An analysis therefore searches
in rounds of about a move's budget over the same tree, each round a whole sequential
halving: its completed Q values carry every visit so far, and the report after each
round is a finished search's.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable

import search

__all__ = ["search_in_rounds"]


def search_in_rounds(
    mcts: search.MCTS,
    config: search.GumbelConfig,
    round_size: int,
    on_result: Callable[[search.SearchResult], None] | None = None,
    every_seconds: float | None = None,
    stop: threading.Event | None = None,
) -> search.SearchResult:
    """Search ``config.num_simulations`` at ``mcts``'s root in the fewest rounds of
    at most ``round_size`` simulations (their sizes differ by one at most).

    The rounds end early when one is cut short (``stop``, ``config.time_limit`` for
    all of them, a full tree). The result is the last round's (its move that round's
    halving winner) with the simulations and seconds of all. ``on_result`` gets
    results counted the same way: during a round every ``every_seconds`` (as
    :meth:`search.MCTS.run` calls back), and between rounds once that long has
    passed since the last.
    """
    total = config.num_simulations
    rounds = -(-total // round_size)
    start = time.monotonic()
    deadline = None if config.time_limit is None else start + config.time_limit
    done = 0
    last_report = start

    def report(result: search.SearchResult) -> None:
        nonlocal last_report
        assert on_result is not None
        last_report = time.monotonic()
        on_result(result)

    def during(results: list[search.SearchResult]) -> None:
        r = results[0]
        sims, elapsed = done + r.num_simulations, time.monotonic() - start
        report(dataclasses.replace(r, num_simulations=sims, elapsed=elapsed))

    result: search.SearchResult | None = None
    for i in range(rounds):
        budget = total // rounds + (i < total % rounds)
        round_config = dataclasses.replace(config, num_simulations=budget)
        if deadline is not None:
            left = deadline - time.monotonic()
            if result is not None and left <= 0:
                break
            round_config = dataclasses.replace(round_config, time_limit=max(left, 1e-6))
        mcts.config = round_config
        r = mcts.search(
            callback=during if on_result is not None else None,
            every_seconds=every_seconds,
            stop_event=stop,
        )
        done += r.num_simulations
        result = dataclasses.replace(
            r, num_simulations=done, elapsed=time.monotonic() - start
        )
        if r.num_simulations < budget or (stop is not None and stop.is_set()):
            break
        due = (
            every_seconds is not None
            and time.monotonic() - last_report >= every_seconds
        )
        if on_result is not None and i + 1 < rounds and due:
            report(result)
    assert result is not None
    return result
