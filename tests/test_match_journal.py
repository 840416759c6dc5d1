"""Resumable matches: the journal beside a match's SGFs, and run_match(resume=True)."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest
from match_fakes import fake_engine, scripted

from alphago.match import EngineStopped, MatchGame, run_match
from alphago.match.settle import Scoring

AS_IT_STANDS = Scoring()


def _engines(tmp_path: Path) -> tuple[str, str]:
    # Seeded by the game's number, so every game differs and replays identically.
    a = fake_engine(tmp_path, "random", 1)[: -len(" 1")] + " {game}"
    return a, fake_engine(tmp_path, "random", 7)


def _summary(games: list[MatchGame]) -> list[tuple[int, int, str, object]]:
    return [(g.index, g.a_colour, g.outcome.result, g.outcome.moves) for g in games]


def test_an_interrupted_match_resumes_where_it_stopped(tmp_path: Path) -> None:
    a, b = _engines(tmp_path)
    whole = run_match(a, b, 4, size=5, scoring=AS_IT_STANDS)
    folder = tmp_path / "games"
    first = run_match(a, b, 4, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    assert _summary(first.games) == _summary(whole.games)
    # As if killed during games 1 and 3: their records never appeared.
    for index in (1, 3):
        (folder / f"game-{index}.json").unlink()
    seen: list[tuple[int, int]] = []
    resumed = run_match(
        a,
        b,
        4,
        size=5,
        sgf_dir=folder,
        scoring=AS_IT_STANDS,
        resume=True,
        on_game=lambda game, done: seen.append((game.index, done)),
    )
    assert sorted(index for index, _ in seen) == [1, 3]  # only the missing games
    assert sorted(done for _, done in seen) == [3, 4]  # counted after the two kept
    assert _summary(resumed.games) == _summary(whole.games)
    assert resumed.resumed == 2
    assert "games: 4 (2 resumed from the journal)" in resumed.report()
    # Thinking times come back too, so the report's time per move stays whole.
    kept = resumed.games[0].outcome
    assert kept.think_time == first.games[0].outcome.think_time
    assert kept.genmoves == first.games[0].outcome.genmoves


def test_a_resumed_match_can_grow(tmp_path: Path) -> None:
    a, b = _engines(tmp_path)
    folder = tmp_path / "games"
    run_match(a, b, 2, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    seen: list[int] = []
    more = run_match(
        a,
        b,
        4,
        size=5,
        sgf_dir=folder,
        scoring=AS_IT_STANDS,
        resume=True,
        on_game=lambda game, done: seen.append(game.index),
    )
    assert sorted(seen) == [2, 3]
    assert [g.index for g in more.games] == [0, 1, 2, 3]
    assert [g.a_colour for g in more.games] == [1, -1, 1, -1]
    # A shorter match over the same journal uses its first games only.
    fewer = run_match(
        a, b, 3, size=5, sgf_dir=folder, scoring=AS_IT_STANDS, resume=True
    )
    assert [g.index for g in fewer.games] == [0, 1, 2] and fewer.resumed == 3


def test_a_journal_is_not_overwritten_or_mixed_with_another_match(
    tmp_path: Path,
) -> None:
    a, b = _engines(tmp_path)
    folder = tmp_path / "games"
    run_match(a, b, 2, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(ValueError, match="holds a match already"):
        run_match(a, b, 2, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    with pytest.raises(ValueError, match=r"another match \(komi differ\)"):
        run_match(
            a,
            b,
            2,
            size=5,
            komi=0.5,
            sgf_dir=folder,
            scoring=AS_IT_STANDS,
            resume=True,
        )
    with pytest.raises(ValueError, match=r"engine_a, engine_b differ"):
        run_match(b, a, 2, size=5, sgf_dir=folder, scoring=AS_IT_STANDS, resume=True)
    with pytest.raises(ValueError, match="scoring differ"):
        run_match(
            a,
            b,
            2,
            size=5,
            sgf_dir=folder,
            resume=True,
            scoring=Scoring(kind="agree"),
        )
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    with pytest.raises(ValueError, match="needs its SGF directory"):
        run_match(a, b, 2, size=5, scoring=AS_IT_STANDS, resume=True)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("game-1.json", "{not json", "unreadable match journal"),
        ("game-1.json", '{"index": 1}', "damaged game record"),
        ("game-1.json", '{"index": 0, "outcome": {}}', "damaged game record"),
        ("match.json", "[]", "not an object"),
    ],
)
def test_a_damaged_journal_is_refused_by_name(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    a, b = _engines(tmp_path)
    folder = tmp_path / "games"
    run_match(a, b, 2, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    (folder / name).write_text(text)
    with pytest.raises(ValueError, match=message) as exc:
        run_match(a, b, 2, size=5, sgf_dir=folder, scoring=AS_IT_STANDS, resume=True)
    assert name in str(exc.value)


def test_a_journalled_game_holds_what_the_report_needs(tmp_path: Path) -> None:
    a, b = _engines(tmp_path)
    folder = tmp_path / "games"
    result = run_match(a, b, 1, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    data = json.loads((folder / "game-0.json").read_text())
    out = result.games[0].outcome
    assert data["index"] == 0
    assert data["outcome"]["result"] == out.result
    assert [tuple(m) for m in data["outcome"]["moves"]] == out.moves
    settings = json.loads((folder / "match.json").read_text())
    assert settings["engine_a"] == a and settings["size"] == 5
    assert settings["max_moves"] == 75  # the default cap, resolved


def test_a_game_stopped_from_outside_is_not_journalled(tmp_path: Path) -> None:
    # Engine A is stopped (SIGTERM) in game 2: the match stops, games 0 and 1 stay in
    # the journal, game 2 is neither journalled nor counted as a forfeit.
    a = fake_engine(tmp_path, "stop2", 1)[: -len(" 1")] + " {game}"
    b = fake_engine(tmp_path, "random", 7)
    folder = tmp_path / "games"
    with pytest.raises(EngineStopped):
        run_match(a, b, 4, size=5, sgf_dir=folder, scoring=AS_IT_STANDS)
    journalled = sorted(p.name for p in folder.glob("game-*.json"))
    assert journalled == ["game-0.json", "game-1.json"]
    for name in journalled:
        assert not json.loads((folder / name).read_text())["outcome"][
            "result"
        ].endswith("+F")


def test_a_stopped_match_ends_the_games_in_play(tmp_path: Path) -> None:
    # Game 0 ends at once; game 1's engine A thinks for 30 s. Stopping the match
    # after game 0 (an exception, as Ctrl-C or SIGTERM in the CLI) kills game 1's
    # engines instead of leaving its thread to play on, and journals nothing of it.
    a = fake_engine(tmp_path, "slow1", 1)[: -len(" 1")] + " {game}"
    b = fake_engine(tmp_path, "pass")
    folder = tmp_path / "games"

    def stop(game: MatchGame, done: int) -> None:
        raise KeyboardInterrupt

    before = set(threading.enumerate())
    with pytest.raises(KeyboardInterrupt):
        run_match(
            a,
            b,
            2,
            size=5,
            parallel=2,
            sgf_dir=folder,
            scoring=AS_IT_STANDS,
            move_timeout=60,
            on_game=stop,
        )
    deadline = time.monotonic() + 20  # well short of the engine's 30 s
    while any(t.is_alive() for t in set(threading.enumerate()) - before):
        assert time.monotonic() < deadline, "game 1 is still being played"
        time.sleep(0.1)
    assert sorted(p.name for p in folder.glob("game-*.json")) == ["game-0.json"]


def test_a_count_cut_short_by_a_stop_is_not_journalled(tmp_path: Path) -> None:
    # Agreement without an arbiter: after two passes both players are asked for
    # their dead stones and take their time. The match is stopped then (Ctrl-C):
    # its killed players cannot answer, which would be a dispute counted as it
    # stands, a count the stop made rather than the game. Nothing is journalled.
    slow = scripted(tmp_path, "", dead="sleep")
    folder = tmp_path / "games"
    before = set(threading.enumerate())
    main = threading.main_thread().ident
    assert main is not None

    def interrupt_the_count() -> None:
        deadline = time.monotonic() + 20
        while not (tmp_path / "counting").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Thread(target=interrupt_the_count)
    # A shell without job control starts background jobs with SIGINT ignored, and
    # Python then keeps it ignored: give Ctrl-C its usual meaning for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            run_match(slow, slow, 1, size=5, sgf_dir=folder, scoring=Scoring("agree"))
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (tmp_path / "counting").exists()  # the stop came while they counted
    deadline = time.monotonic() + 20  # well short of the engines' 30 s
    while any(t.is_alive() for t in set(threading.enumerate()) - before):
        assert time.monotonic() < deadline, "the game is still being played"
        time.sleep(0.1)
    assert list(folder.glob("game-*")) == []
