"""The refereed game loop: endings, scoring by our rules, and who loses for what."""

from __future__ import annotations

from pathlib import Path

import pytest
from match_fakes import fake_engine, scripted

import goboard
from alphago.match import EngineStopped, play_game
from alphago.match.settle import Scoring
from alphago.sgf import GameRecord, replay

B, W = goboard.BLACK, goboard.WHITE


def test_two_passes_are_counted_by_tromp_taylor(tmp_path: Path) -> None:
    p = fake_engine(tmp_path, "pass")
    out = play_game(p, p, size=5, komi=7.5)
    assert out.reason == "two passes"
    assert out.moves == [(B, 25), (W, 25)]
    assert (out.winner, out.result, out.score) == (W, "W+7.5", -7.5)
    assert out.names == {B: "fake-pass 1.0", W: "fake-pass 1.0"}
    assert out.genmoves == {B: 1, W: 1}
    tie = play_game(p, p, size=5, komi=0.0)
    assert (tie.winner, tie.result) == (0, "0")


def test_random_games_are_legal_and_scored(tmp_path: Path) -> None:
    out = play_game(
        fake_engine(tmp_path, "random", 1), fake_engine(tmp_path, "random", 2), size=5
    )
    assert out.reason == "two passes", out
    record = GameRecord(
        size=5,
        komi=7.5,
        moves=out.moves,
        setup={},
        result=None,
        players={},
        rules="chinese",
    )
    board = replay(record, "chinese")
    assert board.is_over and board.result() == out.result
    assert out.score == board.score()
    assert out.winner == (1 if out.score > 0 else -1)


@pytest.mark.parametrize("bad_colour", [B, W])
def test_illegal_move_forfeits(tmp_path: Path, bad_colour: int) -> None:
    bad, good = fake_engine(tmp_path, "corner"), fake_engine(tmp_path, "pass")
    black, white = (bad, good) if bad_colour == B else (good, bad)
    out = play_game(black, white, size=5)
    assert out.winner == -bad_colour
    assert out.result == ("W+F" if bad_colour == B else "B+F")
    side = "B" if bad_colour == B else "W"
    assert (
        out.reason
        == f"{side} forfeits: illegal move 'A1': illegal move at 20: occupied"
    )
    assert out.moves[0][1] == 20 or out.moves[1][1] == 20  # A1 once was fine


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("garbage", "illegal move 'Z99'"),
        ("crash", "genmove: engine exited (exit code 3)"),
        ("slow", "genmove: no answer within 0.5 s"),
        ("error", "genmove: cannot"),
        ("refuse", "play pass: illegal move"),
        ("nosize", "'boardsize 5' failed: unacceptable size"),
    ],
)
def test_failures_forfeit_for_the_failing_engine(
    tmp_path: Path, mode: str, reason: str
) -> None:
    bad, good = fake_engine(tmp_path, mode), fake_engine(tmp_path, "pass")
    out = play_game(good, bad, size=5, move_timeout=0.5)
    assert (out.winner, out.result) == (B, "B+F")
    assert out.reason.startswith("W forfeits: " + reason), out.reason
    if mode == "crash":
        assert "boom: fake crash" in out.stderr[W]


@pytest.mark.parametrize("stopped", [B, W])
def test_an_engine_stopped_from_outside_forfeits_nothing(
    tmp_path: Path, stopped: int
) -> None:
    # Ctrl-C reaches the engines too, or someone kills one: the game has no result,
    # whoever was to move.
    bad, good = fake_engine(tmp_path, "sigterm"), fake_engine(tmp_path, "pass")
    black, white = (bad, good) if stopped == B else (good, bad)
    with pytest.raises(EngineStopped, match="signal 15"):
        play_game(black, white, size=5)


def test_a_stopped_arbiter_gives_no_count(tmp_path: Path) -> None:
    passer = fake_engine(tmp_path, "pass")
    arbiter = Scoring("arbiter", fake_engine(tmp_path, "sigterm"))
    with pytest.raises(EngineStopped):
        play_game(passer, passer, size=5, scoring=arbiter)
    # The players cannot name dead stones (they do not know the command): the arbiter
    # decides, and it was stopped.
    agree = Scoring("agree", fake_engine(tmp_path, "sigterm"))
    with pytest.raises(EngineStopped):
        play_game(passer, passer, size=5, scoring=agree)


def test_missing_program_forfeits(tmp_path: Path) -> None:
    out = play_game("/nonexistent/engine", fake_engine(tmp_path, "pass"), size=5)
    assert (out.winner, out.result) == (W, "W+F")
    assert "cannot start" in out.reason


def test_resignation_and_move_cap(tmp_path: Path) -> None:
    out = play_game(fake_engine(tmp_path, "resign"), fake_engine(tmp_path, "pass"))
    assert (out.winner, out.result, out.reason) == (W, "W+R", "resignation")
    assert out.score is None and out.moves == []
    r1, r2 = fake_engine(tmp_path, "random", 3), fake_engine(tmp_path, "random", 4)
    capped = play_game(r1, r2, size=5, max_moves=6)
    assert capped.reason == "move cap" and len(capped.moves) == 6
    assert capped.score is not None and capped.result != ""


def test_a_timed_out_genmove_is_no_move_and_no_thinking_time(tmp_path: Path) -> None:
    # Black answers C3 at once, then thinks past the timeout: one move, a few ms,
    # not the timeout's seconds spread over that one move (time per move x 30).
    black = scripted(tmp_path, "C3,sleep")
    out = play_game(black, fake_engine(tmp_path, "pass"), size=5, move_timeout=3.0)
    assert out.reason.startswith("B forfeits: genmove: no answer within 3 s")
    assert out.genmoves[B] == 1
    assert out.think_time[B] < 1.0, out.think_time
