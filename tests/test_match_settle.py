"""Dead stones settled before the count: arbiter, agreement, plain Tromp-Taylor."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from match_fakes import scripted

import goboard
from alphago.match import play_game, run_match
from alphago.match.settle import (
    Scoring,
    dead_list,
    default_arbiter,
    missing_capture_all_dead,
    score_without,
)
from alphago.sgf import read_sgf

# 5x5: Black walls column C, White column D; White's A1 is a lone stone in Black's
# area. Counted as it stands it is alive and makes A-B neutral: W+6.5 with komi 0.5;
# removed, Black owns A-C: 15 - 10 - 0.5 = B+4.5.
BLACK_MOVES = "C1,C2,C3,C4,C5"
WHITE_MOVES = "D1,D2,D3,D4,D5,A1"


def test_dead_list_and_score_without() -> None:
    board = goboard.Board(5, komi=0.5)
    for v in ["C1", "D1", "C2", "A1"]:
        board.play_gtp(v)
    stones = board.stones()
    assert dead_list("A1\n", 5, stones) == (goboard.coords.from_gtp("A1", 5),)
    assert dead_list("", 5, stones) == ()
    for bad in ("B2", "Z9", "pass"):
        with pytest.raises(ValueError):
            dead_list(bad, 5, stones)
    a1 = goboard.coords.from_gtp("A1", 5)
    assert score_without(board, ()) == board.score()
    assert score_without(board, (a1,)) > board.score()
    assert np.array_equal(board.stones(), stones)  # the board is left alone


def test_tromp_taylor_counts_the_dead_stone(tmp_path: Path) -> None:
    out = play_game(
        scripted(tmp_path, BLACK_MOVES),
        scripted(tmp_path, WHITE_MOVES),
        size=5,
        komi=0.5,
    )
    assert out.reason == "two passes"
    assert (out.result, out.dead, out.settled) == ("W+6.5", (), "tromp-taylor")


def test_players_that_agree_settle_it(tmp_path: Path) -> None:
    agree = Scoring("agree")
    black = scripted(tmp_path, BLACK_MOVES, dead="A1")
    white = scripted(tmp_path, WHITE_MOVES, dead="A1")
    out = play_game(black, white, size=5, komi=0.5, scoring=agree)
    assert (out.result, out.settled) == ("B+4.5", "agreed")
    assert out.dead == (goboard.coords.from_gtp("A1", 5),)
    # A dispute without an arbiter: counted as it stands, and marked.
    liar = scripted(tmp_path, WHITE_MOVES, dead="")
    out = play_game(black, liar, size=5, komi=0.5, scoring=agree)
    assert (out.result, out.settled) == ("W+6.5", "disputed, counted as it stands")


def test_an_arbiter_decides_a_dispute(tmp_path: Path) -> None:
    # The arbiter is a scripted engine too: it replays the game and names A1.
    judge = scripted(tmp_path, "", dead="A1")
    black = scripted(tmp_path, BLACK_MOVES, dead="A1")
    white = scripted(tmp_path, WHITE_MOVES, dead="")
    out = play_game(
        black, white, size=5, komi=0.5, scoring=Scoring("agree", arbiter=judge)
    )
    assert (out.result, out.settled) == ("B+4.5", "disputed, arbiter")
    out = play_game(
        black, white, size=5, komi=0.5, scoring=Scoring("arbiter", arbiter=judge)
    )
    assert (out.result, out.settled) == ("B+4.5", "arbiter")
    # An arbiter answering nonsense: counted as it stands, and said so.
    bad = scripted(tmp_path, "", dead="B2")
    out = play_game(black, white, size=5, komi=0.5, scoring=Scoring("arbiter", bad))
    assert out.result == "W+6.5" and out.settled.startswith("arbiter failed")


@pytest.mark.skipif(default_arbiter() is None, reason="GNU Go is not installed")
def test_gnu_go_as_arbiter_and_the_record(tmp_path: Path) -> None:
    black = scripted(tmp_path, BLACK_MOVES)
    white = scripted(tmp_path, WHITE_MOVES)
    scoring = Scoring.auto()
    assert scoring.kind == "arbiter"
    result = run_match(
        black, white, 2, size=5, komi=0.5, scoring=scoring, sgf_dir=tmp_path / "sgf"
    )
    game = result.games[0].outcome
    assert (game.result, game.settled) == ("B+4.5", "arbiter")
    report = result.report()
    assert "scoring: arbiter (dead stones named by" in report
    assert "counted: arbiter 2; 2 games had dead stones removed" in report
    record = read_sgf((tmp_path / "sgf" / "game-000.sgf").read_bytes())
    assert record.result == "B+4.5"
    assert record.comment is not None
    assert "dead stones (arbiter): A1" in record.comment
    assert "scoring: arbiter" in record.comment


def test_scoring_choices() -> None:
    assert Scoring.auto("tromp-taylor").kind == "tromp-taylor"
    assert Scoring.auto("auto", "my-judge --gtp").kind == "arbiter"
    with pytest.raises(ValueError):
        Scoring("arbiter", None)
    with pytest.raises(ValueError):
        Scoring("japanese")
    assert missing_capture_all_dead("/usr/games/gnugo --mode gtp --level 10")
    assert not missing_capture_all_dead("gnugo --mode gtp --capture-all-dead")
    assert not missing_capture_all_dead("alphago gtp --size 9")


def test_auto_without_gnu_go_falls_back_to_agreement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert default_arbiter() is None
    assert Scoring.auto().kind == "agree"


@pytest.mark.skipif(default_arbiter() is None, reason="GNU Go is not installed")
def test_eval_warns_about_gnu_go_without_capture_all_dead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from alphago.cli import main

    gnugo = (default_arbiter() or "").replace(" --chinese-rules", "")
    argv = ["eval", gnugo, gnugo, "--games", "1", "--size", "5"]
    assert main([*argv, "--scoring", "tromp-taylor"]) == 0
    out, err = capsys.readouterr()
    assert "warning: GNU Go without --capture-all-dead" in err
    assert "scoring: tromp-taylor" in out
    assert main(argv) == 0  # auto: GNU Go settles, no warning
    out, err = capsys.readouterr()
    assert "warning" not in err and "scoring: arbiter" in out
