"""The Gumbel search as a player: games, determinism, tree reuse, analysis in rounds,
GTP and the JSON analysis engine (fake evaluator, no network)."""

from __future__ import annotations

import io
import json
import threading
import time

import numpy as np
import pytest
from analysis_helpers import query
from gtp_helpers import Collector, PipeWriter, ok, parse_info
from search_helpers import FakeEvaluator, random_move

import goboard
import search
from alphago.analysis import AnalysisServer
from alphago.gtp import Engine, serve
from alphago.player import Player, SearchPlayer


def gumbel(
    sims: int = 32, seed: int = 1, *, scale: float = 0.0, max_nodes: int = 20_000
) -> SearchPlayer:
    """A Gumbel player over the fake evaluator (match play's default: no noise)."""
    config = search.GumbelConfig(
        num_simulations=sims, gumbel_scale=scale, max_nodes=max_nodes
    )
    return SearchPlayer(FakeEvaluator(), config, seed=seed)


def successive(board: goboard.Board, budgets: list[int]) -> search.SearchResult:
    """The last of successive searches of ``board`` by one player (one tree)."""
    player = gumbel(32)
    results = [player.genmove(board, simulations=n) for n in budgets]
    return results[-1]


def positions(count: int, size: int = 9, seed: int = 0) -> list[goboard.Board]:
    """Boards of a seeded random game, one per move."""
    rng = np.random.default_rng(seed)
    board = goboard.Board(size, 7.5, "chinese")
    out = []
    for _ in range(count):
        out.append(board.copy())
        board.play(random_move(board, rng))
    return out


def test_a_gumbel_player_plays_a_9x9_game_to_the_end() -> None:
    player = gumbel(16)
    board = goboard.Board(9, 7.5, "chinese")
    for _ in range(400):
        if board.is_over:
            break
        result = player.genmove(board)
        assert result.improved_policy is not None  # the Gumbel search ran
        assert board.is_legal(result.move)
        board.play(result.move)
    assert board.is_over


def test_the_config_picks_the_search() -> None:
    board = goboard.Board(5)
    assert gumbel().genmove(board).improved_policy is not None
    puct = SearchPlayer(FakeEvaluator(), search.SearchConfig(num_simulations=32))
    assert puct.genmove(board).improved_policy is None
    assert isinstance(gumbel(), Player)
    with pytest.raises(TypeError):
        SearchPlayer(FakeEvaluator(), search.UCTConfig())  # type: ignore[arg-type]


def test_without_noise_the_seed_changes_nothing() -> None:
    boards = positions(6)
    for board in boards:
        a, b = gumbel(seed=1).genmove(board), gumbel(seed=2).genmove(board)
        assert a.move == b.move
        assert np.array_equal(a.visits, b.visits)
    # With the noise on the seeds differ somewhere, so the match above is no accident.
    noisy = [
        gumbel(seed=1, scale=1.0).genmove(b).visits
        != gumbel(seed=2, scale=1.0).genmove(b).visits
        for b in boards
    ]
    assert any(differ.any() for differ in noisy)


def test_the_tree_is_reused_after_our_move_and_the_reply() -> None:
    player = gumbel(64)
    board = goboard.Board(9, 7.5, "chinese")
    first = player.genmove(board)
    lead = player.candidates(first)[0]
    assert lead.move == first.move and len(lead.pv) >= 2
    board.play(first.move)
    board.play(lead.pv[1])  # a reply the search read: its subtree has visits
    second = player.genmove(board)
    assert int(second.visits.sum()) > second.num_simulations == 64
    fresh = gumbel(64).genmove(board)
    assert int(fresh.visits.sum()) == fresh.num_simulations


def test_the_halving_plans_for_the_budget_asked() -> None:
    board = positions(5)[-1]
    asked = gumbel(800).genmove(board, simulations=40)
    configured = gumbel(40).genmove(board)
    assert asked.move == configured.move
    assert np.array_equal(asked.visits, configured.visits)


def test_a_longer_search_runs_in_rounds_over_one_tree() -> None:
    board = positions(7)[-1]
    seen: list[search.SearchResult] = []
    long = gumbel(32).genmove(board, simulations=50, on_result=seen.append)
    # 50 over rounds of at most 32: two rounds of 25, each a whole search of the
    # tree the previous one left (the same position: the tree is reused).
    second = successive(board, [25, 25])
    assert long.num_simulations == 50 == int(long.visits.sum())
    assert np.array_equal(long.visits, second.visits)
    assert long.move == second.move
    assert seen == []  # no every_seconds: no reports
    gumbel(32).genmove(board, simulations=96, on_result=seen.append, every_seconds=0)
    counts = [r.num_simulations for r in seen]
    assert len(counts) >= 3 and counts == sorted(counts) and counts[-1] > 32


def test_rounds_stop_at_a_full_tree_and_on_stop() -> None:
    board = positions(3)[-1]
    full = gumbel(32, max_nodes=100).genmove(board, simulations=10_000)
    assert full.num_simulations < 100
    stop = threading.Event()

    def halt(result: search.SearchResult) -> None:
        if result.num_simulations > 64:
            stop.set()

    start = time.monotonic()
    stopped = gumbel(32).genmove(
        board, simulations=100_000, stop=stop, on_result=halt, every_seconds=0
    )
    assert time.monotonic() - start < 10
    assert 64 < stopped.num_simulations < 200


def test_candidates_lead_with_the_move_played() -> None:
    # The finalists share the last phase's visits: the halving winner is often not
    # first by visits (then lowest point), so the order puts it first.
    differs = 0
    for board in positions(12):
        player = gumbel(48)
        result = player.genmove(board)
        cands = player.candidates(result)
        assert cands[0].move == result.move
        assert cands[0].pv[0] == result.move
        by_visits = min(
            np.flatnonzero(result.visits > 0).tolist(),
            key=lambda m: (-int(result.visits[m]), m),
        )
        differs += by_visits != result.move
    assert differs > 0


# -- GTP ------------------------------------------------------------------------------


def gtp_engine(sims: int = 32, **kwargs: object) -> Engine:
    return Engine(gumbel(sims), board_size=9, komi=7.5, **kwargs)  # type: ignore[arg-type]


def test_gtp_one_shot_analysis_and_genmove() -> None:
    e = gtp_engine()
    response = e.handle("lz-analyze 0")
    assert response is not None
    infos = parse_info(response[:-2].split("\n")[-1])
    assert sum(int(str(m["visits"])) for m in infos) == 32  # one move's budget
    expected = gumbel().genmove(goboard.Board(9, 7.5, "chinese"))
    assert goboard.coords.from_gtp(str(infos[0]["move"]), 9) == expected.move
    for colour in ("b", "w"):
        ok(e, f"genmove {colour}")
    assert [c for c, _ in e.moves] == [goboard.BLACK, goboard.WHITE]


def test_allow_limits_the_moves_halving_considers() -> None:
    response = gtp_engine().handle("kata-analyze b 0 allow b E5,D4 1")
    assert response is not None
    infos = parse_info(response[:-2].split("\n")[-1])
    assert {str(m["move"]) for m in infos} == {"E5", "D4"}
    assert sum(int(str(m["visits"])) for m in infos) == 32


def test_analysis_visits_beyond_a_move_run_in_rounds() -> None:
    e = gtp_engine(analysis_visits=80)
    response = e.handle("kata-analyze b 0")
    assert response is not None
    infos = parse_info(response[:-2].split("\n")[-1])
    assert sum(int(str(m["visits"])) for m in infos) == 80
    expected = successive(goboard.Board(9, 7.5, "chinese"), [27, 27, 26])
    assert goboard.coords.from_gtp(str(infos[0]["move"]), 9) == expected.move
    assert {str(m["move"]): int(str(m["visits"])) for m in infos} == {
        goboard.coords.to_gtp(m, 9): int(expected.visits[m])
        for m in np.flatnonzero(expected.visits).tolist()
    }


def test_pondering_searches_in_rounds_until_the_tree_is_full() -> None:
    # Without a cap, lz-analyze searches until the next command within the tree's
    # capacity (640 nodes: 20 rounds of 32, the last cut short when the tree fills).
    player = gumbel(32, max_nodes=640)
    board = goboard.Board(9, 7.5, "chinese")
    while (expected := player.genmove(board)).num_simulations == 32:
        pass
    want = {
        goboard.coords.to_gtp(m, 9): int(expected.visits[m])
        for m in np.flatnonzero(expected.visits).tolist()
    }
    e = Engine(gumbel(32, max_nodes=640), board_size=9, komi=7.5)
    pipe = PipeWriter()
    out = Collector()
    thread = threading.Thread(target=serve, args=(e, pipe.reader, out), daemon=True)
    thread.start()
    try:
        pipe.send("1 lz-analyze 2\n")

        def last_report() -> dict[str, int]:
            lines = [ln for ln in out.getvalue().split("\n") if ln.startswith("info")]
            infos = parse_info(lines[-1]) if lines else []
            return {str(m["move"]): int(str(m["visits"])) for m in infos}

        deadline = time.monotonic() + 30
        while sum(last_report().values()) < sum(want.values()):
            assert time.monotonic() < deadline, out.getvalue()[-500:]
            time.sleep(0.01)
        assert last_report() == want
        pipe.send("2 name\n")
        out.wait_for("=2 alphago\n\n")
        pipe.send("quit\n")
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        pipe.close()  # also when the test failed: no pipe is left for the GC to find


# -- the JSON analysis engine ---------------------------------------------------------


class GumbelSource:
    def __init__(self) -> None:
        self.player = gumbel(32)

    def player_for(self, size: int) -> Player:
        return self.player

    def can_play(self, size: int) -> bool:
        return True


def test_json_analysis_runs_in_rounds_and_leads_with_the_move() -> None:
    out = io.StringIO()
    server = AnalysisServer(GumbelSource(), out, 32, log=lambda line: None)
    q = query(size=9, maxVisits=80, reportDuringSearchEvery=0.0001)
    assert server.serve([json.dumps(q)]) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    final = [r for r in replies if r["isDuringSearch"] is False]
    assert len(final) == 1 and len(replies) > 1
    assert final[0]["rootInfo"]["visits"] == 80
    infos = final[0]["moveInfos"]
    assert [i["order"] for i in infos] == list(range(len(infos)))
    expected = successive(goboard.Board(9, 7.5, "chinese"), [27, 27, 26])
    assert infos[0]["move"] == goboard.coords.to_gtp(expected.move, 9)
    assert [i["visits"] for i in infos] == [
        int(expected.visits[goboard.coords.from_gtp(i["move"], 9)]) for i in infos
    ]
    assert infos[0]["pv"][0] == infos[0]["move"]
