"""Game records: SGF read/write round trips, handicap, setup, errors, atomic save."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import goboard
from alphago.sgf import GameRecord, read_sgf, replay, save_sgf, write_sgf
from goboard.coords import from_gtp

B, W = goboard.BLACK, goboard.WHITE


def test_read_coordinates_and_properties() -> None:
    data = (
        "(;FF[4]GM[1]SZ[9]KM[6.5]PB[Alice]PW[Bob]RE[W+R]RU[Chinese]"
        ";B[ai];W[ia];B[];W[ee])"
    )
    record = read_sgf(data)
    assert record.size == 9 and record.komi == 6.5
    # SGF "ai" is column a, row i (the bottom row): A1; "ia" is J9.
    assert record.moves == [
        (B, from_gtp("A1", 9)),
        (W, from_gtp("J9", 9)),
        (B, 81),
        (W, from_gtp("E5", 9)),
    ]
    assert record.players == {B: "Alice", W: "Bob"}
    assert record.result == "W+R" and record.rules == "Chinese"


def test_round_trip_with_handicap_and_result() -> None:
    record = GameRecord(
        size=13,
        komi=0.5,
        moves=[(W, from_gtp("K10", 13)), (B, from_gtp("C3", 13)), (W, 169)],
        setup={B: sorted([from_gtp("D4", 13), from_gtp("K10", 13) - 1])},
        result="B+3.5",
        players={B: "x", W: "y"},
        rules="chinese",
    )
    data = write_sgf(record)
    assert b"HA[2]" in data and b"AB[" in data
    back = read_sgf(data)
    assert back == record


def test_round_trip_setup_of_both_colours_and_player_to_move() -> None:
    record = GameRecord(size=5, komi=7.5, setup={B: [0, 6], W: [24]}, to_play=W)
    back = read_sgf(write_sgf(record))
    assert back.setup == {B: [0, 6], W: [24]} and back.to_play == W
    board = replay(back)
    assert board.to_play == W
    assert board.stones().reshape(-1)[24] == W


def test_replay_handicap_gives_white_the_move() -> None:
    record = read_sgf("(;GM[1]SZ[9]HA[2]AB[cc][gg];W[ee];B[dd])")
    board = replay(record)
    flat = board.stones().reshape(-1)
    assert flat[from_gtp("C7", 9)] == B and flat[from_gtp("G3", 9)] == B
    assert flat[from_gtp("E5", 9)] == W and flat[from_gtp("D6", 9)] == B
    assert board.to_play == W


def test_replay_refuses_illegal_moves() -> None:
    record = read_sgf("(;GM[1]SZ[9];B[ee];W[ee])")
    with pytest.raises(goboard.IllegalMoveError):
        replay(record)


@pytest.mark.parametrize(
    "data",
    [
        "not an sgf at all",
        "(;GM[1]SZ[25])",
        "(;GM[1]SZ[1])",
        "(;GM[2]SZ[9])",
        "(;GM[1]SZ[9]KM[lots])",
        "(;GM[1]SZ[9];B[zz])",
        "(;GM[1]SZ[9];B[e\nzz])",  # three letters once the line break is dropped
        "(;GM[1]SZ[9]",
        "",
        b"\xff\xfe(;",
    ],
)
def test_malformed_files_raise_value_error(data: str | bytes) -> None:
    with pytest.raises(ValueError) as info:
        read_sgf(data)
    assert str(info.value)


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ("(;GM[1]SZ[9];B[ee];W[zz])", "W[zz] is not a point of a 9x9 board"),
        ("(;GM[1]SZ[9];B[e\nzz])", "B[e\nzz] is not a point of a 9x9 board"),
        ("(;GM[1]SZ[9];B[jj])", "B[jj] is not a point of a 9x9 board"),
    ],
)
def test_a_bad_move_is_named_in_the_error(data: str, named: str) -> None:
    with pytest.raises(ValueError) as info:
        read_sgf(data)
    assert named in str(info.value)


def test_a_line_break_inside_a_move_is_dropped() -> None:
    # As old files wrap their lines (two of Debian's professional games do).
    record = read_sgf("(;GM[1]SZ[19];B[qd];W[oq\n];B[d\r\nd];W[])")
    assert record.moves == [
        (goboard.BLACK, from_gtp("R16", 19)),
        (goboard.WHITE, from_gtp("P3", 19)),
        (goboard.BLACK, from_gtp("D16", 19)),
        (goboard.WHITE, 19 * 19),
    ]


def test_write_refuses_bad_records() -> None:
    with pytest.raises(ValueError):
        write_sgf(GameRecord(size=9, moves=[(B, 99)]))
    with pytest.raises(ValueError):
        write_sgf(GameRecord(size=9, setup={B: [3], W: [3]}))
    with pytest.raises(ValueError):
        write_sgf(GameRecord(size=30))


def test_save_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "g.sgf"
    path.write_text("old")
    save_sgf(GameRecord(size=9, moves=[(B, 40)]), path)
    assert read_sgf(path.read_bytes()).moves == [(B, 40)]
    assert [p.name for p in tmp_path.iterdir()] == ["g.sgf"]
    with pytest.raises(ValueError):
        save_sgf(GameRecord(size=9, moves=[(B, 500)]), path)
    assert read_sgf(path.read_bytes()).moves == [(B, 40)]  # untouched
    assert [p.name for p in tmp_path.iterdir()] == ["g.sgf"]


def test_random_game_round_trip() -> None:
    rng = np.random.default_rng(7)
    board = goboard.Board(9, 7.5, "chinese")
    moves: list[tuple[int, int]] = []
    while not board.is_over and len(moves) < 120:
        legal = board.legal_moves()
        move = int(rng.choice(legal))
        moves.append((board.to_play, move))
        board.play(move)
    record = GameRecord(size=9, komi=7.5, moves=moves)
    again = replay(read_sgf(write_sgf(record)))
    assert np.array_equal(again.stones(), board.stones())
    assert again.to_play == board.to_play


def test_setup_stones_of_both_colours_on_one_point_are_refused() -> None:
    # Found by fuzz/fuzz_sgf.py: read_sgf took AB and AW on the same point (the
    # board then showed whichever came last) and write_sgf refused the record.
    with pytest.raises(ValueError, match="both colours"):
        read_sgf("(;GM[1]SZ[5]AB[aa][cc]AW[aa:bb]RE[B+1];B[dd])")


def test_a_long_record_round_trips() -> None:
    # fuzz/fuzz_sgf.py found write_sgf quadratic in the moves (sgfmill's
    # extend_main_sequence walks the main line from the root each time): a
    # 1,200-move record took seconds.
    moves = [(B if i % 2 == 0 else W, 81) for i in range(3000)]
    record = GameRecord(size=9, komi=7.5, moves=moves, result="0")
    assert read_sgf(write_sgf(record)) == record


def test_setup_in_a_node_before_any_move_joins_the_setup() -> None:
    """Files that keep the game information alone in the root put the stones in the
    next node; AW over a root AB stone replaces it, AE removes one."""
    data = "(;GM[1]FF[4]SZ[9]AB[aa][bb][cc];AW[bb]AE[cc]AB[dd];W[ee];B[ff])"
    record = read_sgf(data)
    assert record.setup == {B: [0, 30], W: [10]}  # A9, D6; B8
    assert record.moves == [(W, from_gtp("E5", 9)), (B, from_gtp("F4", 9))]


def test_setup_after_a_move_is_refused_not_dropped() -> None:
    """Read as moves only, the position after ``AW``/``AE`` in mid-game would be
    wrong without a word: E5 would stay black."""
    data = "(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];AW[aa]AE[ee];B[gg])"
    with pytest.raises(ValueError, match="after move 2"):
        read_sgf(data)
    with pytest.raises(ValueError, match="both colours"):
        read_sgf("(;GM[1]SZ[9];AB[aa]AW[aa];B[ee])")


def test_a_move_in_the_root_node_is_the_first_move() -> None:
    """Old files (FF[1], FF[3]; 11 games of Debian's goban-original-games) put the
    first move beside the game information: read from the next node on, the game
    went on without Black's first stone."""
    data = "(;FF[3]GM[1]SZ[9]KM[5.5]AB[aa]RE[W+R]B[ee];W[cc];B[gg])"
    record = read_sgf(data)
    assert record.setup == {B: [0]}
    assert record.moves == [
        (B, from_gtp("E5", 9)),
        (W, from_gtp("C7", 9)),
        (B, from_gtp("G3", 9)),
    ]
