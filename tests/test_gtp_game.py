"""GTP handicap, clock, scoring and SGF commands."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gtp_helpers import FixedOwnership, fails, make_engine, ok
from numpy.typing import NDArray

import goboard
import search
from alphago import sgf
from alphago.gtp import Engine
from alphago.gtp.commands_game import handicap_points
from alphago.gtp.timing import LAG, SAFETY
from alphago.player import UCTPlayer
from alphago.player_choice import UnacceptableSize


def test_fixed_handicap_19_matches_gtp_table() -> None:
    e = make_engine(size=19)
    assert ok(e, "fixed_handicap 2").split() == ["D4", "Q16"]
    ok(e, "clear_board")
    assert ok(e, "fixed_handicap 9").split() == [
        "D4",
        "Q16",
        "D16",
        "Q4",
        "D10",
        "Q10",
        "K4",
        "K16",
        "K10",
    ]
    stones = e.board.stones()
    assert int((stones == goboard.BLACK).sum()) == 9
    assert e.board.to_play == goboard.WHITE
    ok(e, "clear_board")
    assert set(ok(e, "fixed_handicap 5").split()) == {"D4", "Q16", "D16", "Q4", "K10"}


def test_fixed_handicap_9x9_and_limits() -> None:
    assert [goboard.coords.to_gtp(p, 9) for p in handicap_points(9, 4)] == [
        "C3",
        "G7",
        "C7",
        "G3",
    ]
    e = make_engine(size=9)
    for bad in [
        "fixed_handicap 1",
        "fixed_handicap 10",
        "fixed_handicap x",
        "fixed_handicap",
    ]:
        fails(e, bad)
        assert not e.board.stones().any()
    e10 = make_engine(size=10)
    fails(e10, "fixed_handicap 5")  # even sizes: corners only
    ok(e10, "fixed_handicap 4")


def test_handicap_needs_an_empty_board() -> None:
    e = make_engine(size=9)
    ok(e, "play b e5")
    for line in [
        "fixed_handicap 2",
        "place_free_handicap 2",
        "set_free_handicap a1 b2",
    ]:
        assert fails(e, line) == "board not empty"
    assert e.moves == [(goboard.BLACK, goboard.coords.from_gtp("E5", 9))]


def test_place_free_handicap() -> None:
    e = make_engine(size=9)
    vertices = ok(e, "place_free_handicap 12").split()
    assert len(vertices) == len(set(vertices)) == 12
    points = {goboard.coords.from_gtp(v, 9) for v in vertices}
    black = set(np.flatnonzero(e.board.stones().reshape(-1) == goboard.BLACK).tolist())
    assert points == black
    ok(e, "clear_board")
    fails(e, "place_free_handicap 1")
    fails(e, "place_free_handicap 81")


def test_set_free_handicap() -> None:
    e = make_engine(size=9)
    ok(e, "set_free_handicap a1 j9 e5")
    flat = e.board.stones().reshape(-1)
    for v in ["A1", "J9", "E5"]:
        assert flat[goboard.coords.from_gtp(v, 9)] == goboard.BLACK
    assert e.board.to_play == goboard.WHITE
    ok(e, "clear_board")
    for bad in [
        "set_free_handicap a1",
        "set_free_handicap a1 a1",
        "set_free_handicap a1 pass",
        "set_free_handicap a1 z1",
    ]:
        fails(e, bad)
        assert not e.board.stones().any()


def test_handicap_then_undo_keeps_stones() -> None:
    e = make_engine(size=9)
    ok(e, "fixed_handicap 2")
    ok(e, "play w e5")
    ok(e, "undo")
    assert int((e.board.stones() == goboard.BLACK).sum()) == 2
    assert e.board.to_play == goboard.WHITE
    assert fails(e, "undo") == "cannot undo"


def test_time_commands_set_and_validate() -> None:
    e = make_engine()
    ok(e, "time_settings 300 30 5")
    assert e.time.system == "canadian" and e.time.byo_stones == 5
    ok(e, "time_settings 60 0 0")
    assert e.time.system == "absolute"
    ok(e, "time_settings 0 1 0")
    assert e.time.system == "none"
    ok(e, "kgs-time_settings byoyomi 60 10 3")
    assert (e.time.system, e.time.byo_periods) == ("japanese", 3)
    ok(e, "kgs-time_settings canadian 60 10 3")
    assert e.time.system == "canadian"
    ok(e, "kgs-time_settings absolute 60")
    assert e.time.system == "absolute"
    ok(e, "kgs-time_settings none")
    assert e.time.system == "none"
    for bad in [
        "time_settings 1 2",
        "time_settings -1 0 0",
        "time_settings a b c",
        "time_settings 1e99 0 0",
        "kgs-time_settings fischer 1 2",
        "kgs-time_settings byoyomi 1 2",
        "kgs-time_settings",
        "time_left b 10",
        "time_left q 10 0",
        "time_left b 10 -1",
    ]:
        fails(e, bad)
        assert e.time.system == "none", bad
    ok(e, "time_settings 300 30 5")
    ok(e, "time_left b 12 3")
    clock = e.time.clock(goboard.BLACK)
    assert clock.in_byo and clock.byo_left == 12 and clock.stones == 3
    ok(e, "reg_genmove b")  # not a move of the game: the clock is not charged
    assert clock.byo_left == 12 and clock.stones == 3
    ok(e, "genmove b")
    assert clock.stones == 2 and clock.byo_left < 12


@pytest.mark.parametrize("new_game", ["clear_board", "boardsize 9", "boardsize 7"])
def test_a_new_game_starts_with_full_clocks(new_game: str) -> None:
    """A controller that sends time_settings once for a match (and no time_left):
    the time the last game's moves took must not come off the next game's clock."""
    e = make_engine()
    ok(e, "time_settings 300 30 5")
    fresh = e.time.budget(goboard.BLACK, 9, 0)
    e.time.spent(goboard.BLACK, 299.0)
    e.time.spent(goboard.WHITE, 400.0)  # into byo-yomi
    ok(e, new_game)
    assert e.time.clock(goboard.BLACK).main == 300
    assert not e.time.clock(goboard.WHITE).in_byo
    assert e.time.budget(goboard.BLACK, 9, 0) == fresh
    assert e.time.system == "canadian"  # the settings stay


class RecordingPlayer(UCTPlayer):
    """Remembers the time budgets it was given."""

    def __init__(self, sims: int) -> None:
        super().__init__(search.UCTConfig(num_simulations=sims), seed=1)
        self.budgets: list[float | None] = []

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        self.budgets.append(kwargs.get("time_budget"))
        return super().genmove(board, **kwargs)


def test_genmove_under_a_clock_gets_a_budget_and_keeps_it() -> None:
    import time

    small = RecordingPlayer(16)
    ok(Engine(small, board_size=9), "genmove b")  # no time settings: its own limit
    assert small.budgets == [None]
    player = RecordingPlayer(20_000)  # about 2.5 s of search without the clock
    e = Engine(player, board_size=9)
    ok(e, "time_settings 0 1 1")  # 1 second per move (canadian, 1 stone)
    ok(e, "time_left w 1 1")
    start = time.monotonic()
    ok(e, "genmove w")
    elapsed = time.monotonic() - start
    budget = player.budgets[-1]
    assert budget is not None and budget == pytest.approx(1.0 * (1 - SAFETY) - LAG)
    assert elapsed < 1.0 + 0.5  # the budget plus generous slack for a loaded machine


def test_final_score_and_status_use_the_ownership_estimate() -> None:
    e = Engine(FixedOwnership(), board_size=5)
    for move in [
        "b b1",
        "b b2",
        "b b3",
        "b b4",
        "b b5",
        "w d1",
        "w d2",
        "w d3",
        "w d4",
        "w d5",
        "w a3",
        "b e3",
    ]:
        ok(e, "play " + move)
    assert ok(e, "final_status_list dead").split() == ["A3", "E3"]
    alive = set(ok(e, "final_status_list alive").split())
    assert alive == {f"{c}{r}" for c in "BD" for r in range(1, 6)}
    assert ok(e, "final_status_list seki") == ""
    # Dead stones removed: Black A-B (10 points), White D-E (10), C neutral; komi 7.5.
    assert ok(e, "final_score") == "W+7.5"
    fails(e, "final_status_list")
    fails(e, "final_status_list undead")
    e.dead_threshold = 0.95  # the estimate is no longer clear enough
    assert ok(e, "final_status_list dead") == ""


def test_printsgf_and_loadsgf_round_trip(tmp_path: Path) -> None:
    e = make_engine(size=9)
    ok(e, "komi 5.5")
    ok(e, "fixed_handicap 2")
    for move in ["w e5", "b d5", "w pass"]:
        ok(e, "play " + move)
    text = ok(e, "printsgf")
    record = sgf.read_sgf(text)
    assert record.size == 9 and record.komi == 5.5
    assert len(record.setup[goboard.BLACK]) == 2 and len(record.moves) == 3
    path = tmp_path / "game.sgf"
    ok(e, f"printsgf {path}")
    assert sgf.read_sgf(path.read_bytes()).moves == record.moves

    f = make_engine(size=19)
    ok(f, f"loadsgf {path}")
    assert f.size == 9 and f.komi == 5.5 and f.moves == e.moves
    assert np.array_equal(f.board.stones(), e.board.stones())
    ok(f, f"loadsgf {path} 2")  # the position before move 2
    assert len(f.moves) == 1


def test_loadsgf_errors_change_nothing(tmp_path: Path) -> None:
    e = make_engine(size=9)
    ok(e, "play b e5")
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[9];B[ee];W[ee])")  # second move on an occupied point
    junk = tmp_path / "junk.sgf"
    junk.write_text("this is not sgf")
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]SZ[25])")
    for line in [
        f"loadsgf {tmp_path / 'missing.sgf'}",
        f"loadsgf {bad}",
        f"loadsgf {junk}",
        f"loadsgf {big}",
        f"loadsgf {bad} x",
        "loadsgf",
    ]:
        assert fails(e, line)
        assert e.size == 9 and len(e.moves) == 1, line
    # The refusal names the move as a player counts it, not an array index.
    assert fails(e, f"loadsgf {bad}").endswith("move 2 (W E5) is illegal: occupied")
    fails(e, f"printsgf {tmp_path / 'no' / 'such' / 'dir.sgf'}")


class OneSizePlayer(UCTPlayer):
    """A player for one board size only, as the shipped 9x9 network is."""

    def __init__(self, size: int) -> None:
        super().__init__(search.UCTConfig(num_simulations=4), seed=1)
        self.size = size

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        if board.size != self.size:
            raise ValueError(f"the player is for {self.size}x{self.size} boards")
        return super().genmove(board, **kwargs)


def test_loadsgf_of_another_size_switches_player(tmp_path: Path) -> None:
    # Found by fuzz/fuzz_gtp.py: loadsgf changed the board size without asking
    # ``players``, so after loading a 19x19 game into the shipped 9x9 network's
    # engine every genmove failed ("the network is for 9x9 boards, not 19").
    def players(size: int) -> UCTPlayer:
        if size > 9:
            raise UnacceptableSize(f"no player for {size}x{size}")
        return OneSizePlayer(size)

    e = Engine(OneSizePlayer(9), board_size=9, players=players)
    small = tmp_path / "small.sgf"
    small.write_text("(;GM[1]FF[4]SZ[5]KM[0.5];B[cc];W[bb])")
    ok(e, f"loadsgf {small}")
    assert e.size == 5 and isinstance(e.player, OneSizePlayer) and e.player.size == 5
    assert ok(e, "genmove b")
    ok(e, "boardsize 9")
    ok(e, "play b e5")
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]FF[4]SZ[19];B[dd];W[pp])")
    assert "unacceptable size" in fails(e, f"loadsgf {big}")
    assert e.size == 9 and e.player.size == 9 and len(e.moves) == 1  # unchanged
    assert ok(e, "genmove w")


@pytest.mark.parametrize("size", [7, 9, 13, 19])
def test_handicap_points_are_distinct_and_on_board(size: int) -> None:
    top = 4 if size % 2 == 0 or size == 7 else 9
    for count in range(2, top + 1):
        points = handicap_points(size, count)
        assert len(set(points)) == count
        assert all(0 <= p < size * size for p in points)


class PassingPlayer(FixedOwnership):
    """Always wants to pass (to exercise kgs-genmove_cleanup)."""

    def genmove(self, board: goboard.Board, **kwargs: Any) -> search.SearchResult:
        result = super().genmove(board, **kwargs)
        return dataclasses.replace(result, move=board.size * board.size)


def test_genmove_cleanup_captures_dead_stones_instead_of_passing() -> None:
    e = Engine(PassingPlayer(), board_size=5)
    for move in ["b b1", "b b2", "b b3", "b b4", "b b5", "w d3", "w a3"]:
        ok(e, "play " + move)
    assert ok(e, "reg_genmove b") == "pass"
    answer = ok(e, "kgs-genmove_cleanup b")
    assert answer != "pass"
    assert answer[0] in "ABC"  # a move on Black's own side of the estimate
    assert e.moves[-1] == (goboard.BLACK, goboard.coords.from_gtp(answer, 5))
    # Without dead stones of the opponent, cleanup passes like genmove.
    f = Engine(PassingPlayer(), board_size=5)
    ok(f, "play b b2")
    ok(f, "play w d2")
    assert ok(f, "kgs-genmove_cleanup b") == "pass"


class WallOwnership(PassingPlayer):
    """Ownership: columns A-B Black, D-E White, C neutral; always passes."""

    def ownership(self, board: goboard.Board) -> NDArray[np.float64]:
        own = np.zeros((5, 5))
        own[:, :2], own[:, 3:] = 0.9, -0.9
        return own


def test_settle_before_pass_fills_neutral_points_then_passes() -> None:
    # Walls on columns B and D leave column C neutral: a territory-counting GUI
    # would see open dame. Without the switch the engine passes at once.
    moves = [f"b b{r}" for r in range(1, 6)] + [f"w d{r}" for r in range(1, 6)]
    plain = Engine(WallOwnership(), board_size=5)
    for move in moves:
        ok(plain, "play " + move)
    assert ok(plain, "genmove b") == "pass"
    e = Engine(WallOwnership(), board_size=5, settle_before_pass=True)
    for move in moves:
        ok(e, "play " + move)
    played = []
    for colour in "bwbwbwbw":
        answer = ok(e, f"genmove {colour}")
        played.append(answer)
        if answer == "pass" and len(played) > 1 and played[-2] == "pass":
            break
    fills = [a for a in played if a != "pass"]
    assert sorted(fills) == ["C1", "C2", "C3", "C4", "C5"], played
    assert played[-2:] == ["pass", "pass"]  # settled: then it passes
    assert (e.board.ownership() != 0).all()
