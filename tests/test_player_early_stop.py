"""``early_stop`` above the search: on for a move's search, off for every analysis.

The players stop a move's search once it is decided (``alphago gtp --early-stop``;
off by default); lz-analyze/kata-analyze and the JSON analysis engine report on the
budget they were asked for, so they always search it whole.
"""

from __future__ import annotations

import io
import json

import numpy as np
from gtp_helpers import parse_info

import goboard
import search
from alphago.analysis import AnalysisServer
from alphago.cli import build_parser, player_choice
from alphago.gtp import Engine
from alphago.player import SearchPlayer, UCTPlayer

CENTRE = 12  # C3 on 5x5


class Dominant:
    """Priors of 0.9 on the centre, values 0: the move is decided early."""

    def evaluate(self, positions: search.Positions) -> tuple[np.ndarray, np.ndarray]:
        n = len(positions)
        a = positions.pool.size**2 + 1
        priors = np.full((n, a), 0.1 / (a - 1), dtype=np.float32)
        priors[:, CENTRE] = 0.9
        return priors, np.zeros(n, dtype=np.float32)


def player(early: bool = True, sims: int = 400) -> SearchPlayer:
    cfg = search.SearchConfig(
        num_simulations=sims, early_stop=early, leaves_per_batch=8
    )
    return SearchPlayer(Dominant(), cfg, seed=1)


def test_genmove_stops_once_decided_unless_told_not_to() -> None:
    board = goboard.Board(5, 7.5, "chinese")
    quick = player().genmove(board)
    assert quick.move == CENTRE and quick.num_simulations < 400
    whole = player().genmove(board, early_stop=False)
    assert whole.move == CENTRE and whole.num_simulations == 400
    assert player(early=False).genmove(board).num_simulations == 400
    p = player()  # the call's choice is for that call only
    p.genmove(board, early_stop=False)
    assert p.config.early_stop


def test_after_the_opponents_pass_the_whole_budget_is_searched() -> None:
    # pass_rules may then play any winning move by its visits, not only the leader.
    board = goboard.Board(5, 7.5, "chinese")
    board.play(25)
    assert player().genmove(board).num_simulations == 400
    board.play(0)  # no pass last: it stops early again
    assert player().genmove(board).num_simulations < 400


def test_uct_players_stop_too() -> None:
    # Late in a 5x5 game with one sensible move left, UCT's visits run away as well.
    board = goboard.Board(5, 7.5, "chinese")
    for move in [6, 7, 8, 11, 13, 16, 17, 18, 1, 3]:
        board.play(move)
    cfg = search.UCTConfig(num_simulations=2000, early_stop=True)
    quick = UCTPlayer(cfg, seed=1).genmove(board)
    whole = UCTPlayer(cfg, seed=1).genmove(board, early_stop=False)
    assert quick.move == whole.move
    assert quick.num_simulations < whole.num_simulations == 2000


def test_gtp_analysis_searches_its_whole_budget() -> None:
    e = Engine(player(), board_size=5, komi=7.5)
    response = e.handle("kata-analyze 0")
    assert response is not None and response.startswith("=")
    line = response[:-2].split("\n")[-1]
    visits = sum(int(str(m["visits"])) for m in parse_info(line))
    assert visits == 400


def test_the_json_analysis_engine_searches_max_visits() -> None:
    class One:
        def player_for(self, size: int) -> SearchPlayer:
            return player()

        def can_play(self, size: int) -> bool:
            return size == 5

    out = io.StringIO()
    server = AnalysisServer(One(), out, 400, log=lambda line: None)
    q = {
        "id": "q",
        "moves": [],
        "rules": "chinese",
        "komi": 7.5,
        "boardXSize": 5,
        "boardYSize": 5,
        "maxVisits": 300,
    }
    assert server.serve([json.dumps(q)]) == 0
    reply = json.loads(out.getvalue().splitlines()[-1])
    assert reply["rootInfo"]["visits"] == 300


def test_the_command_line_switch() -> None:
    # Off by default: on 9x9 the shorter searches lost games (README).
    on = player_choice(build_parser().parse_args(["gtp", "--uct", "--early-stop"]))
    off = player_choice(build_parser().parse_args(["gtp", "--uct"]))
    assert on.spec.early_stop and not off.spec.early_stop
    made = on.player_for(5), off.player_for(5)
    assert [p.config.early_stop for p in made] == [True, False]  # type: ignore[attr-defined]
