"""The resignation rule (alphago.resign) and `alphago play --resign-below`."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from player_fakes import FirstLegal

import goboard
import search
from alphago.cli import main
from alphago.match.game import GameOutcome
from alphago.match.human import play_human
from alphago.resign import RESIGN_TURNS, judge
from alphago.sgf import read_sgf


def _result(board: goboard.Board, value: float, best_q: float) -> search.SearchResult:
    """A search result for the first legal move with the given root value and Q."""
    move = int(board.legal_moves()[0])
    a = board.size**2 + 1
    visits = np.zeros(a, np.int64)
    visits[move] = 10
    q = np.full(a, np.nan)
    q[move] = best_q
    return search.SearchResult(visits, q, visits / 10.0, move, value, [move], 10)


def test_judge_counts_low_searches_in_a_row_and_waits_a_quarter() -> None:
    late = goboard.Board(5)
    for vertex in ("A1", "E5", "B1", "D5", "C1", "C5"):  # move 6 = 25 // 4
        late.play(goboard.coords.from_gtp(vertex, 5))
    early = goboard.Board(5)
    low, high = _result(late, -0.9, -0.9), _result(late, 0.0, 0.0)
    turns, verdicts = 0, []
    for result in (low, low, low, low, high, low):
        resigns, turns = judge(0.1, late, result, turns)
        verdicts.append(resigns)
    assert RESIGN_TURNS == 3
    assert verdicts == [False, False, True, True, False, False]
    assert turns == 1  # the high search started the count again
    assert judge(0.1, early, low, 10) == (False, 11)  # counted, but too early


def test_judge_needs_the_root_and_the_chosen_move_both_low() -> None:
    board = goboard.Board(5)
    for vertex in ("A1", "E5", "B1", "D5", "C1", "C5"):
        board.play(goboard.coords.from_gtp(vertex, 5))
    for value, best_q, low in (
        (-0.9, 0.0, False),
        (0.0, -0.9, False),
        (-0.79, -0.79, False),
        (-0.81, -0.81, True),
    ):
        assert judge(0.1, board, _result(board, value, best_q), 2)[0] is low


class Gloomy(FirstLegal):
    """Plays the first legal move and rates every position lost (or, with ``hope``,
    keeps the chosen move's Q at a draw)."""

    name = "gloomy"

    def __init__(self, hope: bool = False) -> None:
        super().__init__(value=-0.95, best_q=0.0 if hope else -0.95)


def _play(
    player: Gloomy, script: str, resign_below: float | None
) -> tuple[str, GameOutcome]:
    out = StringIO()
    outcome = play_human(
        player,  # type: ignore[arg-type]
        size=5,
        human=goboard.BLACK,
        stdin=StringIO(script),
        stdout=out,
        resign_below=resign_below,
    )
    return out.getvalue(), outcome


def test_play_human_engine_resigns_by_the_rule() -> None:
    # Human (Black) at moves 0, 2, 4, 6; the engine searches at 1, 3, 5, 7: low every
    # time, but at move 7 it is past the quarter (6) with 4 low searches in a row.
    text, outcome = _play(Gloomy(), "c3\nb2\nd4\ne1\nb4\n", 0.1)
    assert "gloomy resigns" in text
    assert outcome.result == "B+R" and outcome.reason == "resignation"
    assert len(outcome.moves) == 7


def test_play_human_undo_restarts_the_count() -> None:
    # The engine is low at moves 1, 3 and 5; the undo takes back moves 4 and 5 and
    # the count with them. Without that it would resign at move 7; with it, it needs
    # three more low searches (5, 7, 9) and resigns at move 9.
    player = Gloomy()
    text, outcome = _play(player, "c3\nb2\nd4\nundo\nd4\ne1\nb4\n", 0.1)
    assert outcome.result == "B+R"
    assert len(outcome.moves) == 9
    assert player.searches == 6  # 3 before the undo, 3 after
    assert text.count("gloomy resigns") == 1


def test_play_human_keeps_playing_without_the_option_or_with_hope() -> None:
    for player, below in ((Gloomy(), None), (Gloomy(hope=True), 0.1)):
        _, outcome = _play(player, "c3\nb2\nd4\ne1\nb4\nquit\n", below)
        assert outcome.reason == "quit" and outcome.result == ""
        assert len(outcome.moves) == 10


def test_play_human_refuses_a_bad_threshold() -> None:
    with pytest.raises(ValueError, match="resign_below"):
        _play(Gloomy(), "quit\n", 0.5)


@pytest.mark.parametrize("bad", ["0.5", "0", "x"])
def test_play_command_refuses_a_bad_threshold(
    bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["play", "--resign-below", bad])
    assert exc.value.code == 2
    assert "--resign-below" in capsys.readouterr().err


def test_play_command_resigns_a_hopeless_game(tmp_path: Path) -> None:
    # 5x5 with komi 50: Black (the engine) cannot win, and every playout says so.
    sgf = tmp_path / "game.sgf"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "alphago.cli",
            "play",
            "--size",
            "5",
            "--komi",
            "50",
            "--uct",
            "--simulations",
            "32",
            "--color",
            "white",
            "--resign-below",
            "0.1",
            "--sgf",
            str(sgf),
        ],
        input="a1\nb1\nc1\nd1\ne1\na2\nb2\nc2\nd2\ne2\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "resigns" in proc.stdout
    record = read_sgf(sgf.read_bytes())
    assert record.result == "W+R"
    assert len(record.moves) == 6  # Black's moves 0, 2, 4 and White's 1, 3, 5
    # (a vertex the engine took is refused and the next line read)
