"""scripts/paired_matches.py: two journalled matches compared game by game."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts_helpers import load_script

import goboard
from alphago.match.game import GameOutcome
from alphago.match.journal import MatchJournal

paired = load_script("paired_matches")
B, W = goboard.BLACK, goboard.WHITE


def journal(
    folder: Path, engine_a: str, winners: list[int], engine_b: str = "B"
) -> Path:
    settings = {"engine_a": engine_a, "engine_b": engine_b, "size": 5, "komi": 0.5,
                "max_moves": 75, "scoring": "tromp-taylor"}  # fmt: skip
    j = MatchJournal(folder, settings, resume=False)
    for i, winner in enumerate(winners):
        j.save(i, GameOutcome(size=5, komi=0.5, winner=winner, result="B+R"))
    return folder


def test_pairs_count_by_engine_a_and_its_colour(tmp_path: Path) -> None:
    # Engine A is Black in even games: winners B, W, ... are A's wins in 0 and 1 ...
    first = journal(tmp_path / "one", "A1", [B, W, B, B, W, B])  # A wins 0, 1, 2
    second = journal(tmp_path / "two", "A2", [W, W, B, W, B])  # 1, 2, 3, 4; no 5
    r = paired.pair(first, second)
    assert (r.games, r.wins_first, r.wins_second) == (5, 3, 4)
    assert (r.only_first, r.only_second) == (1, 2)  # game 0; games 3 and 4
    assert r.sign_test_p == pytest.approx(1.0)  # 3 pairs, split 2/1
    assert paired.pair(first, first).sign_test_p == 1.0  # no pair differs


def test_the_sign_test_is_exact() -> None:
    five = paired.Pairing(games=9, wins_first=6, wins_second=1, only_first=5,
                          only_second=0)  # fmt: skip
    assert five.sign_test_p == pytest.approx(2 / 32)
    split = paired.Pairing(games=20, wins_first=12, wins_second=8, only_first=10,
                           only_second=6)  # fmt: skip
    # P(X <= 6) for X ~ Bin(16, 1/2) is 14893 / 65536; doubled.
    assert split.sign_test_p == pytest.approx(2 * 14893 / 65536)


def test_matches_against_other_opponents_are_refused(tmp_path: Path) -> None:
    first = journal(tmp_path / "one", "A1", [B])
    other = journal(tmp_path / "two", "A2", [B], engine_b="another opponent")
    with pytest.raises(ValueError, match="engine_b"):
        paired.pair(first, other)
    with pytest.raises(ValueError, match="not a match journal"):
        paired.pair(first, tmp_path / "missing")


def test_a_tie_is_half_a_point_in_the_pairs(tmp_path: Path) -> None:
    # Integer komi: games 0 and 1 are ties in the first match. A tie beats a loss
    # (game 0) and loses to a win (game 1); game 2 is a tie against a tie.
    first = journal(tmp_path / "one", "A1", [0, 0, 0])
    second = journal(tmp_path / "two", "A2", [W, W, 0])  # A lost 0, won 1
    r = paired.pair(first, second)
    assert (r.wins_first, r.wins_second) == (1.5, 1.5)
    assert (r.only_first, r.only_second) == (1, 1)
