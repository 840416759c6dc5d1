"""In-process fake players for the terminal-game and resignation tests."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

import goboard
import search


class FirstLegal:
    """A deterministic Player: the first legal point (pass when none). Its search
    result has root value ``value``; with ``best_q`` set, the chosen move has 10 visits
    and that Q, else nothing is visited."""

    name = "first-legal"

    def __init__(self, value: float = 0.0, best_q: float | None = None) -> None:
        self.value = value
        self.best_q = best_q
        self.games = 0
        self.searches = 0

    def new_game(self) -> None:
        self.games += 1

    def ownership(self, board: goboard.Board) -> np.ndarray:
        return np.zeros((board.size, board.size))

    def genmove(
        self,
        board: goboard.Board,
        *,
        time_budget: float | None = None,
        stop: threading.Event | None = None,
        on_result: Callable[[search.SearchResult], None] | None = None,
        every_seconds: float | None = None,
    ) -> search.SearchResult:
        self.searches += 1
        move = int(board.legal_moves()[0])
        a = board.size**2 + 1
        visits = np.zeros(a, np.int64)
        q = np.zeros(a)
        if self.best_q is not None:
            visits[move] = 10
            q = np.full(a, np.nan)
            q[move] = self.best_q
        pi = visits / max(1, int(visits.sum()))
        return search.SearchResult(visits, q, pi, move, self.value, [move], 1)
