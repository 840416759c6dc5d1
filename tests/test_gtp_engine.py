"""The GTP engine driven line by line: framing, core commands, errors change nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gtp_helpers import fails, make_engine, ok
from hypothesis import given, settings
from hypothesis import strategies as st

import goboard
from alphago.gtp import DEFAULT_VERSION, Engine
from alphago.gtp.protocol import parse_command, preprocess


def snapshot(e: Engine) -> tuple[object, ...]:
    return (
        e.size,
        e.komi,
        list(e.moves),
        {k: list(v) for k, v in e.setup.items()},
        e.board.stones().tobytes(),
        e.board.to_play,
        e.board.move_number,
    )


def test_preprocess_and_ids() -> None:
    assert preprocess("  play\tb  d4 # a comment\n") == "play b  d4"
    assert preprocess("na\x01me\x7f") == "name"
    assert preprocess("name\r\n") == "name"
    cmd = parse_command("12 known_command name")
    assert cmd is not None and (cmd.ident, cmd.name, cmd.args) == (
        "12",
        "known_command",
        ["name"],
    )
    assert parse_command("# only a comment") is None
    assert parse_command("   \t ") is None


def test_responses_framing_and_ids() -> None:
    e = make_engine()
    assert e.handle("1 protocol_version") == "=1 2\n\n"
    assert e.handle("name") == "= alphago\n\n"
    assert e.handle("\t7\tversion # x") == f"=7 {DEFAULT_VERSION}\n\n"
    assert e.handle("") is None
    assert e.handle("# comment") is None
    assert e.handle("3 nonsense") == "?3 unknown command nonsense\n\n"
    response = e.handle("42")
    assert response is not None and response.startswith("?42 ")


def test_known_and_list_commands() -> None:
    e = make_engine()
    names = ok(e, "list_commands").split("\n")
    required = """protocol_version name version known_command list_commands quit
    boardsize clear_board komi play genmove undo showboard fixed_handicap
    place_free_handicap set_free_handicap time_settings time_left kgs-time_settings
    final_score final_status_list loadsgf printsgf reg_genmove kgs-genmove_cleanup
    lz-analyze lz-genmove_analyze kata-analyze kata-genmove_analyze
    gogui-analyze_commands""".split()  # noqa: SIM905
    assert set(required) <= set(names)
    for name in required:
        assert ok(e, f"known_command {name}") == "true"
    assert ok(e, "known_command frobnicate") == "false"
    fails(e, "known_command")


def test_quit_sets_flag() -> None:
    e = make_engine()
    assert ok(e, "quit") == ""
    assert e.quit_requested


def test_boardsize_and_clear_board() -> None:
    e = make_engine()
    ok(e, "play b e5")
    ok(e, "boardsize 5")
    assert e.size == 5 and e.board.size == 5 and e.moves == []
    for bad in [
        "boardsize 1",
        "boardsize 20",
        "boardsize 99999999999999999999",
        "boardsize x",
        "boardsize",
        "boardsize 9 9",
        "boardsize -3",
    ]:
        before = snapshot(e)
        fails(e, bad)
        assert snapshot(e) == before, bad
    assert fails(e, "boardsize 99999999999999999999") == "unacceptable size"
    assert fails(e, "boardsize 25") == "unacceptable size"
    ok(e, "play b c3")
    ok(e, "clear_board")
    assert not e.board.stones().any() and e.moves == []


def test_komi() -> None:
    e = make_engine()
    ok(e, "komi 6.5")
    assert e.komi == 6.5 and e.board.komi == 6.5
    for bad in ["komi nan", "komi inf", "komi 1e400", "komi abc", "komi", "komi 1e9"]:
        fails(e, bad)
        assert e.komi == 6.5, bad


def test_play_and_illegal_moves_change_nothing() -> None:
    e = make_engine(size=5)
    ok(e, "play b c3")
    ok(e, "play W b3")
    assert e.board.stones()[2, 2] == goboard.BLACK
    assert e.board.stones()[2, 1] == goboard.WHITE
    for bad in [
        "play b c3",
        "play b z9",
        "play b f1",
        "play x c4",
        "play b",
        "play b c4 extra",
        "play",
        "play b i1",
        "play b c0",
        "play b c99999999999999999999",
    ]:
        before = snapshot(e)
        fails(e, bad)
        assert snapshot(e) == before, bad
    before = snapshot(e)  # out of turn and illegal: no pass is left behind either
    assert "illegal" in fails(e, "play w c3")
    assert snapshot(e) == before


def test_out_of_turn_and_pass() -> None:
    e = make_engine(size=5)
    ok(e, "play b c3")
    ok(e, "play b d4")  # black twice: white is taken to have passed
    stones = e.board.stones()
    assert stones[2, 2] == stones[1, 3] == goboard.BLACK
    assert e.board.to_play == goboard.WHITE
    ok(e, "play w pass")
    ok(e, "play b pass")
    assert e.board.is_over
    ok(e, "play w a1")  # play goes on after two passes (cleanup phases)
    assert e.board.stones()[4, 0] == goboard.WHITE


def test_suicide_refused_under_chinese_rules() -> None:
    e = make_engine(size=5)
    for line in ["play b b1", "play b a2"]:
        ok(e, line)
    assert "illegal" in fails(e, "play w a1")


def test_undo_replays_the_move_list() -> None:
    e = make_engine(size=5)
    ok(e, "play b c3")
    first = snapshot(e)
    ok(e, "play w d3")
    ok(e, "undo")
    assert snapshot(e) == first
    ok(e, "undo")
    assert not e.board.stones().any() and e.board.to_play == goboard.BLACK
    assert fails(e, "undo") == "cannot undo"


def test_undo_after_capture_restores_stones() -> None:
    e = make_engine(size=5)
    for line in ["play b b1", "play w a1", "play b pass", "play w c3"]:
        ok(e, line)
    ok(e, "play b a2")  # captures a1
    assert e.board.stones()[4, 0] == 0
    ok(e, "undo")
    assert e.board.stones()[4, 0] == goboard.WHITE


def test_showboard() -> None:
    e = make_engine(size=5)
    ok(e, "play b c3")
    text = ok(e, "showboard")
    assert text.startswith("\n")
    lines = text.strip("\n").split("\n")
    assert lines[0].split() == list("ABCDE")
    row3 = [ln for ln in lines if ln.startswith(" 3")][0]
    assert "X" in row3
    assert "White to play" in text


def test_genmove_plays_a_legal_move_for_the_given_colour() -> None:
    e = make_engine(size=5)
    answer = ok(e, "genmove b")
    point = goboard.coords.from_gtp(answer, 5)
    assert e.moves == [(goboard.BLACK, point)]
    if point != 25:
        assert e.board.stones().reshape(-1)[point] == goboard.BLACK
    answer = ok(e, "genmove b")  # out of turn: the record gets a white pass between
    assert e.moves[-1][0] == goboard.BLACK
    fails(e, "genmove")
    fails(e, "genmove purple")


def test_genmove_out_of_turn_does_not_pass_to_end_the_game() -> None:
    """Black asked to move after its own stone (a GUI's "generate move" after placing
    stones): the search must not see a white pass, or passing back would end a game
    that Black wins by area and the engine would answer pass on an empty board."""
    e = make_engine(size=5, sims=200)
    ok(e, "play b c3")
    board = e.board_for(goboard.BLACK)
    assert board.to_play == goboard.BLACK and board.passes == 0
    assert board.move_number == e.board.move_number and board.last_move is None
    for _ in range(3):
        answer = ok(e, "reg_genmove b")
        assert answer.lower() != "pass", answer
    assert e.board.to_play == goboard.WHITE  # reg_genmove left the game as it was


def test_reg_genmove_does_not_play() -> None:
    e = make_engine(size=5)
    before = snapshot(e)
    answer = ok(e, "reg_genmove w")
    assert goboard.coords.from_gtp(answer, 5) <= 25
    assert snapshot(e) == before


def test_genmove_after_two_passes_still_answers() -> None:
    e = make_engine(size=5)
    ok(e, "play b pass")
    ok(e, "play w pass")
    answer = ok(e, "genmove b")
    assert answer.lower() == "pass" or goboard.coords.from_gtp(answer, 5) < 25


def _hopeless(resign_below: float | None) -> Engine:
    """5x5 with komi 50: Black cannot win, and every playout says so."""
    e = make_engine(size=5, resign_below=resign_below)
    ok(e, "komi 50")
    return e


def _play_on(e: Engine, moves: list[str]) -> None:
    for vertex in moves:
        ok(e, f"play b {vertex}")
        ok(e, "play w pass")


def test_resignation_is_off_by_default() -> None:
    e = make_engine(size=5)  # no resign_below given: the Engine's own default
    ok(e, "komi 50")  # as _hopeless: Black cannot win
    assert e.resign_below is None
    _play_on(e, ["A1", "B1", "C1", "D1"])
    for _ in range(4):
        assert ok(e, "genmove b") != "resign"
        ok(e, "play w pass")


def test_resignation_needs_three_low_genmoves_in_a_row() -> None:
    e = _hopeless(0.1)
    _play_on(e, ["A1", "B1", "C1", "D1"])  # move 8: past a quarter of 25 points
    for _ in range(2):
        assert ok(e, "genmove b") != "resign"
        ok(e, "play w pass")
    assert e.low_turns[goboard.BLACK] == 2
    before = list(e.moves)
    assert ok(e, "reg_genmove b") == "resign"  # what genmove would answer...
    assert e.low_turns[goboard.BLACK] == 2  # ...but no move of the game
    assert ok(e, "genmove b") == "resign"
    assert e.moves == before  # resigning plays nothing


def test_resignation_waits_for_a_quarter_of_the_board() -> None:
    e = _hopeless(0.1)
    _play_on(e, ["A1", "B1"])  # move 4, before 25 // 4 = 6
    e.low_turns[goboard.BLACK] = 5
    assert ok(e, "reg_genmove b") != "resign"
    _play_on(e, ["C1"])  # move 6
    assert ok(e, "reg_genmove b") == "resign"


def test_resignation_needs_the_root_and_the_best_move_both_low() -> None:
    import search
    from alphago.gtp.commands import _resigns

    e = _hopeless(0.1)
    _play_on(e, ["A1", "B1", "C1", "D1"])
    visits = np.zeros(26, dtype=np.int64)
    visits[3] = 10

    def result(value: float, best_q: float) -> search.SearchResult:
        q = np.full(26, np.nan)
        q[3] = best_q
        return search.SearchResult(visits, q, visits / 10.0, 3, value, [3], 10)

    def three(value: float, best_q: float) -> list[bool]:
        e.low_turns[goboard.BLACK] = 0
        return [
            _resigns(e, e.board, goboard.BLACK, result(value, best_q), True)
            for _ in range(3)
        ]

    assert three(-0.9, -0.9) == [False, False, True]  # winrate 0.05 < 0.1
    assert three(-0.9, 0.0) == [False, False, False]  # the move chosen still hopes
    assert three(0.0, -0.9) == [False, False, False]
    assert three(-0.79, -0.79) == [False, False, False]  # winrate 0.105


def test_undo_and_a_new_game_restart_the_count(tmp_path: Path) -> None:
    sgf_file = tmp_path / "game.sgf"
    sgf_file.write_text("(;FF[4]GM[1]SZ[5]KM[50];B[aa];W[bb])")
    e = _hopeless(0.1)
    _play_on(e, ["A1", "B1", "C1", "D1"])
    for _ in range(2):
        ok(e, "genmove b")
        ok(e, "play w pass")
    ok(e, "undo")
    assert e.low_turns == {goboard.BLACK: 0, goboard.WHITE: 0}
    assert ok(e, "genmove b") != "resign"
    for command in ("clear_board", f"loadsgf {sgf_file}"):
        e.low_turns[goboard.BLACK] = 2
        ok(e, command)
        assert e.low_turns[goboard.BLACK] == 0


def test_a_resignation_threshold_outside_0_to_one_half_is_refused() -> None:
    for bad in (0.0, 0.5, 1.0, -0.1):
        with pytest.raises(ValueError, match="resign_below"):
            make_engine(size=5, resign_below=bad)


def test_never_dies_on_garbage() -> None:
    e = make_engine(size=5)
    garbage = [
        "\x00\x01\x02",
        "play \x00",
        "=",
        "?",
        "9" * 5000,
        "play b " + "A" * 10000,
        "komi " + "9" * 400,
        "time_left b 1e308 0",
        "fixed_handicap 1e9",
        "lz-analyze foo",
        "kata-analyze b ownership maybe",
        "loadsgf",
        "final_status_list zombie",
        "set_free_handicap a1",
        "boardsize 0x10",
    ]
    for line in garbage:
        response = e.handle(line)
        assert response is None or response.startswith(("=", "?")), line
    assert ok(e, "name") == "alphago"


def test_ownership_dboard() -> None:
    e = make_engine(size=5)
    rows = ok(e, "alphago-ownership").strip("\n").split("\n")
    values = np.array([[float(v) for v in r.split()] for r in rows])
    assert values.shape == (5, 5)
    assert np.all(np.abs(values) <= 1.0)


_FUZZ_COMMANDS = sorted(
    set(make_engine(size=5).commands) - {"printsgf", "loadsgf", "quit"}
)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(_FUZZ_COMMANDS),
    args=st.lists(
        st.one_of(
            st.text(max_size=8),
            st.sampled_from(
                [
                    "b",
                    "w",
                    "A1",
                    "e5",
                    "pass",
                    "0",
                    "-1",
                    "9" * 30,
                    "1e309",
                    "nan",
                    "true",
                    "interval",
                ]
            ),
        ),
        max_size=4,
    ),
)
def test_fuzzed_commands_get_one_well_formed_response(
    name: str, args: list[str]
) -> None:
    e = make_engine(size=5, sims=4)
    line = " ".join([name, *args]).replace("\n", " ").replace("\r", " ")
    response = e.handle(line)
    assert response is not None
    assert response[0] in "=?" and response.endswith("\n\n")
    assert "\n\n" not in response[:-2]
    if response.startswith("?"):
        fresh = make_engine(size=5, sims=4)
        assert (e.size, e.komi, e.moves, e.setup) == (
            fresh.size,
            fresh.komi,
            fresh.moves,
            fresh.setup,
        )
    e.board._check_invariants()
    assert e.handle("name") == "= alphago\n\n"


def lizzie_accepts(version: str) -> bool:
    """Lizzie 0.7.4's check: the second dot-separated field, as an int, >= 15 (a
    smaller one, or one that is not an int, stalls Lizzie's engine thread)."""
    fields = version.split(".")
    return len(fields) > 1 and fields[1].isdigit() and int(fields[1]) >= 15


def test_default_version_passes_lizzies_check_and_names_our_version() -> None:
    import alphago

    assert lizzie_accepts(DEFAULT_VERSION)
    assert DEFAULT_VERSION.endswith(alphago.__version__)
    assert not lizzie_accepts("0.1.0") and not lizzie_accepts("3.8")
    e = make_engine(version="1.15.3")
    assert e.handle("version") == "= 1.15.3\n\n"
