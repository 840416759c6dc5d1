"""Matches: colour alternation, parallel games, SGFs, the report; a game vs GNU Go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from match_fakes import fake_engine

import goboard
from alphago.match import EngineSetupError, run_match
from alphago.match.settle import Scoring
from alphago.sgf import read_sgf, replay

GNUGO = "/usr/games/gnugo"
# The fake engines keep no dead stones worth settling: the board counts as it stands.
AS_IT_STANDS = Scoring()


def test_colours_alternate_and_sgfs_are_written(tmp_path: Path) -> None:
    a, b = fake_engine(tmp_path, "corner"), fake_engine(tmp_path, "pass")
    seen: list[int] = []
    result = run_match(
        a,
        b,
        4,
        size=5,
        parallel=2,
        sgf_dir=tmp_path / "sgf",
        on_game=lambda game, done: seen.append(done),
        scoring=AS_IT_STANDS,
    )
    assert sorted(seen) == [1, 2, 3, 4]
    assert [g.index for g in result.games] == [0, 1, 2, 3]
    assert [g.a_colour for g in result.games] == [1, -1, 1, -1]
    # A (always A1) forfeits every game on its second move, whatever its colour.
    assert [g.outcome.result for g in result.games] == ["W+F", "B+F", "W+F", "B+F"]
    assert all(g.a_points == 0.0 for g in result.games)
    files = sorted(f for f in os.listdir(tmp_path / "sgf") if f.endswith(".sgf"))
    assert files == [f"game-00{i}.sgf" for i in range(4)]
    record = read_sgf((tmp_path / "sgf" / "game-001.sgf").read_bytes())
    assert record.size == 5 and record.komi == 7.5 and record.result == "B+F"
    assert record.players == {
        goboard.BLACK: "fake-pass 1.0",
        goboard.WHITE: "fake-corner 1.0",
    }
    assert record.moves == result.games[1].outcome.moves
    report = result.report()
    assert "A wins 0/4 (0/2 as black, 0/2 as white)" in report
    assert "B wins 4/4 (2/2 as black, 2/2 as white)" in report
    assert "by colour: black 2, white 2, ties 0" in report
    # A sweep: the exact binomial bound, (1 - 0.025 ** (1 / 4)) as a score.
    assert "A - B: Elo -inf (95% CI -inf .. +72.1)" in report
    assert "time per move A:" in report


def test_bad_arguments(tmp_path: Path) -> None:
    p = fake_engine(tmp_path, "pass")
    with pytest.raises(ValueError, match="games"):
        run_match(p, p, 0, scoring=AS_IT_STANDS)
    with pytest.raises(ValueError, match="parallel"):
        run_match(p, p, 2, parallel=0, scoring=AS_IT_STANDS)
    with pytest.raises(ValueError):
        run_match(p, p, 2, size=1, scoring=AS_IT_STANDS)
    # No count by default: a silent Tromp-Taylor once flattered our GNU Go figures.
    with pytest.raises(TypeError, match="scoring"):
        run_match(p, p, 2)  # type: ignore[call-arg]


@pytest.mark.skipif(not os.path.exists(GNUGO), reason="GNU Go is not installed")
def test_a_game_against_gnugo(tmp_path: Path) -> None:
    gnugo = f"{GNUGO} --mode gtp --chinese-rules --capture-all-dead --level 1"
    result = run_match(
        fake_engine(tmp_path, "random", 5),
        gnugo,
        2,
        size=5,
        parallel=2,
        sgf_dir=tmp_path,
        move_timeout=30,
        scoring=AS_IT_STANDS,
    )
    for game in result.games:
        out = game.outcome
        assert out.reason in ("two passes", "resignation"), out.reason
        assert out.result[0] in "BW"
        names = out.names.values()
        assert any(name.startswith("GNU Go") for name in names)
        record = read_sgf((tmp_path / f"game-00{game.index}.sgf").read_bytes())
        board = replay(record, "chinese")  # every move legal under our rules
        if out.reason == "two passes":
            assert board.is_over and board.result() == out.result


def test_commands_are_checked_before_any_game(tmp_path: Path) -> None:
    p = fake_engine(tmp_path, "pass")
    with pytest.raises(ValueError, match="engine A: program not found"):
        run_match("/nonexistent/engine --gtp", p, 2, scoring=AS_IT_STANDS)
    with pytest.raises(ValueError, match="engine B: bad command line"):
        run_match(p, "gnugo 'unclosed", 2, scoring=AS_IT_STANDS)


def test_game_numbers_in_command_lines_vary_deterministic_engines(
    tmp_path: Path,
) -> None:
    fixed = fake_engine(tmp_path, "random", seed=3)
    per_game = fixed[: -len(" 3")] + " {game}"  # the fake's seed argument
    same = run_match(fixed, fixed, 4, size=5, scoring=AS_IT_STANDS)
    varied = run_match(per_game, fixed, 4, size=5, scoring=AS_IT_STANDS)
    # One engine and seed on both sides: every game repeats move for move.
    assert same.games[0].outcome.moves == same.games[2].outcome.moves
    assert "distinct games: 1 of 4" in same.report()
    assert varied.games[0].outcome.moves != varied.games[2].outcome.moves
    assert "distinct games: 4 of 4" in varied.report()


@pytest.mark.parametrize("broken", ["a", "b"])
def test_an_engine_that_cannot_set_up_stops_the_match(
    tmp_path: Path, broken: str
) -> None:
    # A bad command line (here: an engine refusing the board size) would forfeit
    # all 6 games; the match stops at the first, names the engine, records nothing.
    good, bad = fake_engine(tmp_path, "pass"), fake_engine(tmp_path, "nosize")
    a, b = (bad, good) if broken == "a" else (good, bad)
    with pytest.raises(EngineSetupError, match=f"engine {broken.upper()} could not"):
        run_match(
            a,
            b,
            6,
            size=5,
            parallel=2,
            sgf_dir=tmp_path / "m",
            scoring=AS_IT_STANDS,
            stop_on_setup_failure=True,
        )
    assert list((tmp_path / "m").iterdir()) == []  # its new journal is withdrawn
    # Nothing was lost, so the same folder takes a match with a fixed command.
    result = run_match(
        good, good, 1, size=5, sgf_dir=tmp_path / "m", scoring=AS_IT_STANDS
    )
    assert [g.outcome.reason for g in result.games] == ["two passes"]


@pytest.mark.parametrize("parallel", [1, 3])
def test_a_setup_failure_after_a_good_setup_is_a_forfeit(
    tmp_path: Path, parallel: int
) -> None:
    # An engine that took the setup before the match (its check, as game 0) and
    # fails later has crashed, not been misconfigured: it forfeits that game.
    flaky = fake_engine(tmp_path, "nosize1")[: -len(" 0")] + " {game}"
    good = fake_engine(tmp_path, "pass")
    for _ in range(3):  # the same whatever order parallel games start in
        result = run_match(
            good,
            flaky,
            3,
            size=5,
            parallel=parallel,
            scoring=AS_IT_STANDS,
            stop_on_setup_failure=True,
        )
        outcomes = [g.outcome for g in result.games]
        assert [o.result for o in outcomes] == ["W+7.5", "W+F", "W+7.5"]
    assert outcomes[1].reason == "B forfeits: 'boardsize 5' failed: unacceptable size"


def test_a_resumed_match_trusts_its_journalled_engines(tmp_path: Path) -> None:
    flaky = fake_engine(tmp_path, "nosize1")[: -len(" 0")] + " {game}"
    good, games = fake_engine(tmp_path, "pass"), tmp_path / "m"
    run_match(good, flaky, 1, size=5, sgf_dir=games, scoring=AS_IT_STANDS)
    # Resumed, game 1 is the first this run plays, and B fails its setup there:
    # the journal's game proves B's command line, so that is a forfeit.
    result = run_match(
        good,
        flaky,
        2,
        size=5,
        sgf_dir=games,
        resume=True,
        scoring=AS_IT_STANDS,
        stop_on_setup_failure=True,
    )
    assert [g.outcome.result for g in result.games] == ["W+7.5", "W+F"]


def test_without_the_stop_a_setup_failure_is_a_forfeit(tmp_path: Path) -> None:
    good, bad = fake_engine(tmp_path, "pass"), fake_engine(tmp_path, "nosize")
    result = run_match(good, bad, 2, size=5, scoring=AS_IT_STANDS)
    assert [g.outcome.result for g in result.games] == ["B+F", "W+F"]


def test_the_report_says_when_an_engine_made_no_moves(tmp_path: Path) -> None:
    failing, good = fake_engine(tmp_path, "error"), fake_engine(tmp_path, "pass")
    result = run_match(failing, good, 2, size=5, scoring=AS_IT_STANDS)
    assert [g.outcome.result for g in result.games] == ["W+F", "B+F"]
    report = result.report()
    assert "time per move A: no moves" in report
    assert "nan" not in report
