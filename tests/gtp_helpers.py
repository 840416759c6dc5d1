"""Helpers for the GTP tests: a small engine and response parsing."""

from __future__ import annotations

import io
import os
import threading
import time
import types

import numpy as np
from numpy.typing import NDArray

import goboard
import search
from alphago.gtp import Engine
from alphago.player import SearchPlayer, UCTPlayer


class FixedOwnership(UCTPlayer):
    """A 5x5 player whose ownership estimate is given: columns A-C Black, D-E White."""

    def __init__(self) -> None:
        super().__init__(search.UCTConfig(num_simulations=8), seed=1)

    def ownership(self, board: goboard.Board) -> NDArray[np.float64]:
        own = np.full((5, 5), -0.9)
        own[:, :3] = 0.9
        return own


class NetOwnership(FixedOwnership):
    """FixedOwnership, passed off as a network's ownership head: analyses read their
    score leads off it (``alphago.score_estimate.move_scores``)."""

    ownership_from_net = True


class EvenAreaEvaluator:
    """A stand-in network with an ownership head that sees every point as open (area
    difference 0, variance 4 a position): a search that averages its margins finds
    Black behind by exactly the komi, with a spread of 2 points, after every move."""

    config = types.SimpleNamespace(ownership_head=True)

    def evaluate(self, positions: search.Positions) -> tuple[NDArray[np.float32], ...]:
        legal = positions.legal_masks().astype(np.float32)
        values = np.zeros(len(positions), dtype=np.float32)
        return legal / legal.sum(axis=1, keepdims=True), values

    def evaluate_scored(
        self, positions: search.Positions
    ) -> tuple[NDArray[np.float32], ...]:
        priors, values = self.evaluate(positions)
        return priors, values, np.zeros_like(values), np.full_like(values, 4.0)

    def ownership(self, positions: search.Positions) -> NDArray[np.float32]:
        n = int(positions.pool.size)
        return np.zeros((len(positions), n, n), dtype=np.float32)


def even_area_player(sims: int = 24) -> SearchPlayer:
    """A PUCT player over :class:`EvenAreaEvaluator`."""
    config = search.SearchConfig(num_simulations=sims)
    return SearchPlayer(EvenAreaEvaluator(), config, seed=1)  # type: ignore[arg-type]


def make_engine(size: int = 9, sims: int = 16, **kwargs: object) -> Engine:
    """An engine with a tiny UCT search (fast, legal moves)."""
    player = UCTPlayer(
        search.UCTConfig(num_simulations=sims), seed=1, ownership_playouts=16
    )
    return Engine(player, board_size=size, komi=7.5, **kwargs)  # type: ignore[arg-type]


def ok(engine: Engine, line: str) -> str:
    """Run a command that must succeed; return its text (after "= ")."""
    response = engine.handle(line)
    assert response is not None, line
    assert response.startswith("="), (line, response)
    assert response.endswith("\n\n") and "\n\n" not in response[:-2], response
    head, _, rest = response[:-2].partition(" ")
    return rest


def fails(engine: Engine, line: str) -> str:
    """Run a command that must fail; return the message."""
    response = engine.handle(line)
    assert response is not None, line
    assert response.startswith("?"), (line, response)
    assert response.endswith("\n\n") and "\n\n" not in response[:-2], response
    return response[:-2].partition(" ")[2]


def parse_info(line: str) -> list[dict[str, object]]:
    """Split an analysis line into per-move dicts (pv a list; ownership separate)."""
    words = line.split()
    out: list[dict[str, object]] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "info":
            out.append({})
            i += 1
        elif word == "pv":
            j = i + 1
            while j < len(words) and words[j] not in ("info", "ownership"):
                j += 1
            out[-1]["pv"] = words[i + 1 : j]
            i = j
        elif word == "ownership":
            out.append({"ownership": [float(w) for w in words[i + 1 :]]})
            break
        else:
            out[-1][word] = words[i + 1]
            i += 2
    return out


class PipeWriter:
    """Writes into an OS pipe from the test, like a GUI on the other end."""

    def __init__(self) -> None:
        r, w = os.pipe()
        self.reader = os.fdopen(r, "r")
        self.writer = os.fdopen(w, "w")

    def send(self, text: str) -> None:
        self.writer.write(text)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()  # end of input: serve's reader thread ends
        for thread in threading.enumerate():
            if thread.name == "gtp-reader":
                thread.join(timeout=5)
        self.reader.close()


class Collector(io.StringIO):
    """A thread-safe-enough output that can wait for a substring."""

    def wait_for(self, text: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.getvalue():
            assert time.monotonic() < deadline, self.getvalue()
            time.sleep(0.01)
