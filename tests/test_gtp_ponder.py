"""Pondering (``alphago gtp --ponder``): after its genmove the engine searches on in
the opponent's turn until the next command, and the next genmove reuses that tree."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from gtp_helpers import Collector, PipeWriter

import goboard
import search
from alphago.gtp import Engine, serve
from alphago.player import UCTPlayer
from goboard import coords


class Recording(UCTPlayer):
    """A small UCT player (with room in its tree, as --analysis-memory gives) that
    keeps every search's board and result."""

    def __init__(self) -> None:
        config = search.UCTConfig(num_simulations=64, max_nodes=50_000)
        super().__init__(config, seed=1)
        self.searches: list[tuple[goboard.Board, dict[str, Any], search.SearchResult]]
        self.searches = []

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        result = super().genmove(board, **kwargs)
        self.searches.append((board.copy(), kwargs, result))
        return result


@contextlib.contextmanager
def served(ponder: bool) -> Iterator[tuple[Recording, PipeWriter, Collector]]:
    player = Recording()
    e = Engine(player, board_size=7, komi=7.5, ponder=ponder)
    pipe = PipeWriter()
    out = Collector()
    thread = threading.Thread(target=serve, args=(e, pipe.reader, out), daemon=True)
    thread.start()
    try:
        yield player, pipe, out
        pipe.send("quit\n")
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        pipe.close()  # also when the test failed: no pipe is left for the GC to find


def _wait_for_searches(player: Recording, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while len(player.searches) < count:
        assert time.monotonic() < deadline, "no pondering search started and ended"
        time.sleep(0.01)


def test_the_engine_ponders_and_the_next_genmove_reuses_the_tree() -> None:
    with served(ponder=True) as (player, pipe, out):
        pipe.send("1 genmove b\n")
        out.wait_for("=1 ")
        # The opponent thinks; we ponder. 2 s leaves room on slow builds: under
        # ASan, 0.5 s gave 71 simulations, too few for the subtree check below.
        time.sleep(2.0)
        pipe.send("2 name\n")  # any command ends the pondering search
        out.wait_for("=2 alphago\n\n")
        _wait_for_searches(player, 2)
        board, kwargs, pondered = player.searches[1]
        assert board.to_play == goboard.WHITE  # the opponent's turn, after our move
        assert kwargs["stop"] is not None and kwargs["early_stop"] is False
        assert pondered.num_simulations > 64  # beyond a genmove's budget
        reply = int(pondered.visits[:-1].argmax())  # the reply it read most
        pipe.send(f"3 play w {coords.to_gtp(reply, 7)}\n")
        out.wait_for("=3 \n\n")
        pipe.send("4 genmove b\n")
        out.wait_for("=4 ")
        _wait_for_searches(player, 3)
        _, _, second = player.searches[2]
        # The reply's subtree came along: more visits than this search ran.
        assert int(second.visits.sum()) > second.num_simulations + 10
    # Five responses (quit's the last), and nothing that was not asked for.
    answers = out.getvalue().split("\n\n")
    assert answers[-1] == "" and [a[:2] for a in answers[:-1]] == [
        "=1",
        "=2",
        "=3",
        "=4",
        "= ",
    ]


def test_pondering_ends_at_once_when_a_command_arrives() -> None:
    with served(ponder=True) as (player, pipe, out):
        pipe.send("1 genmove b\n")
        out.wait_for("=1 ")
        time.sleep(0.2)
        start = time.monotonic()
        pipe.send("2 name\n")
        out.wait_for("=2 alphago\n\n")
        assert time.monotonic() - start < 2.0  # a tree's capacity would take minutes


def test_no_pondering_unless_asked_nor_after_reg_genmove() -> None:
    with served(ponder=False) as (player, pipe, out):
        pipe.send("1 genmove b\n")
        out.wait_for("=1 ")
        time.sleep(0.3)
        assert len(player.searches) == 1
    with served(ponder=True) as (player, pipe, out):
        pipe.send("1 reg_genmove b\n")  # no move of the game: nothing to ponder on
        out.wait_for("=1 ")
        time.sleep(0.3)
        assert len(player.searches) == 1


class FailsToPonder(Recording):
    """Its searches in the opponent's turn (those with a stop event) raise."""

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        if kwargs.get("stop") is not None:
            raise RuntimeError("the network fell over")
        return super().genmove(board, **kwargs)


def test_a_failed_ponder_is_reported_and_the_session_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (A player whose search raised drops its tree itself: tests/test_player.py.)
    player = FailsToPonder()
    e = Engine(player, board_size=7, komi=7.5, ponder=True)
    assert e.handle("genmove b") is not None and e.ponder_pending
    e.ponder(threading.Event())
    assert "pondering stopped: the network fell over" in capsys.readouterr().err
    assert not e.ponder_pending
    response = e.handle("genmove w")
    assert response is not None and response.startswith("= ")
