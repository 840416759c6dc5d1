"""Feature planes: golden dumps checked by hand, history semantics, symmetries.

The golden file ``data/features_golden.txt`` holds every plane of a few positions.
Regenerate it with ``GOBOARD_REGEN_GOLDEN=1 pytest tests/test_features.py`` after a
deliberate change, and review the diff: the hand-written records below must still
agree with it (``test_golden_agrees_with_hand_written_records``).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from games import expected_planes, random_game, replay

import goboard
from goboard import BLACK, WHITE, symmetries
from goboard.coords import from_gtp, to_gtp
from goboard.errors import IllegalMoveError
from goboard.reference_planes import alphago_planes
from goboard.text import parse

GOLDEN = Path(__file__).resolve().parent / "data" / "features_golden.txt"
REGEN = os.environ.get("GOBOARD_REGEN_GOLDEN") == "1"


@dataclass(frozen=True)
class GoldenCase:
    name: str
    kind: str
    moves: tuple[str, ...]
    size: int = 0  # of an empty start; a set-up start takes the diagram's size
    setup: str | None = None
    setup_to_play: int = BLACK

    def board(self) -> goboard.Board:
        return self.board_after(len(self.moves))

    def board_after(self, n: int) -> goboard.Board:
        """The start with the first ``n`` moves played."""
        if self.setup is None:
            board = goboard.Board(self.size)
        else:
            board = goboard.Board.from_stones(
                parse(self.setup), to_play=self.setup_to_play
            )
        for vertex in self.moves[:n]:
            board.play_gtp(vertex)
        return board


SETUP_7X7 = """
    . . . . . . .
    . X X O . . .
    . O X O . . .
    . . O . . . .
    . . . . X . .
    . . . . . . .
    . . . . . . .
"""
SETUP_5X5 = """
    . X . . .
    X O . . .
    O . . . .
    . . . . .
    . . . . .
"""
LADDER_7X7 = """
    . . . . . . .
    . . X . . . .
    . . O X . . .
    . X . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . O .
"""
CAPTURE_PASS = ("A4", "A5", "B5", "pass", "C3", "D4")  # B5 captures A5

CASES = [
    GoldenCase("capture_pass_5x5", "agz17", CAPTURE_PASS, size=5),
    GoldenCase("white_to_move_5x5", "lz18", (*CAPTURE_PASS, "E1"), size=5),
    # 12 moves: 13 positions, so the ring buffer has wrapped; E7 captures E6.
    GoldenCase(
        "wrap_9x9",
        "lz18",
        ("E5", "E6", "D6", "C3", "F6", "pass", "E7", "G3", "B7", "H8", "A1", "J9"),
        size=9,
    ),
    GoldenCase("setup_7x7", "agz17", (), setup=SETUP_7X7, setup_to_play=WHITE),
    # White A5 captures A4, then Black passes.
    GoldenCase(
        "setup_then_moves_5x5",
        "lz18",
        ("A5", "pass"),
        setup=SETUP_5X5,
        setup_to_play=WHITE,
    ),
    # AlphaGo 2016 planes: history ages, a capture, and the ko point left empty.
    GoldenCase("capture_pass_5x5_alphago48", "alphago48", CAPTURE_PASS, size=5),
    # A ladder: Black B5 or C4 takes White C5 (the White stone at F2 is too late to
    # break the one from B5); after Black's B5, White's escape at C4 fails.
    GoldenCase("ladder_7x7_alphago49", "alphago49", (), setup=LADDER_7X7),
    GoldenCase("ladder_escape_7x7_alphago48", "alphago48", ("B5",), setup=LADDER_7X7),
]

# The records of the 5x5 cases, position by position, drawn by hand from the moves.
RECORD_CAPTURE_PASS = [
    ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .",  # start
    ". . . . .  X . . . .  . . . . .  . . . . .  . . . . .",  # B A4
    "O . . . .  X . . . .  . . . . .  . . . . .  . . . . .",  # W A5
    ". X . . .  X . . . .  . . . . .  . . . . .  . . . . .",  # B B5 takes A5
    ". X . . .  X . . . .  . . . . .  . . . . .  . . . . .",  # W pass
    ". X . . .  X . . . .  . . X . .  . . . . .  . . . . .",  # B C3
    ". X . . .  X . . O .  . . X . .  . . . . .  . . . . .",  # W D4
    ". X . . .  X . . O .  . . X . .  . . . . .  . . . . X",  # B E1
]
RECORD_SETUP_5X5 = [
    ". X . . .  X O . . .  O . . . .  . . . . .  . . . . .",  # set up
    "O X . . .  . O . . .  O . . . .  . . . . .  . . . . .",  # W A5 takes A4
    "O X . . .  . O . . .  O . . . .  . . . . .  . . . . .",  # B pass
]


def diagram(rows: str) -> np.ndarray:
    """A 5x5 position from its rows written on one line, separated by two spaces."""
    return parse("\n".join(rows.split("  ")))


HAND_RECORDS = {
    "capture_pass_5x5": ([diagram(r) for r in RECORD_CAPTURE_PASS[:7]], BLACK),
    "white_to_move_5x5": ([diagram(r) for r in RECORD_CAPTURE_PASS], WHITE),
    "setup_then_moves_5x5": ([diagram(r) for r in RECORD_SETUP_5X5], WHITE),
    "setup_7x7": ([parse(SETUP_7X7)], WHITE),
}


# ---- the golden dump -----------------------------------------------------------------


def dump_case(case: GoldenCase, planes: np.ndarray, to_play: int) -> str:
    """One case of the golden file: a header, then each plane as rows of 0/1."""
    assert np.isin(planes, (0, 1)).all(), "planes must hold only 0 and 1"
    names = [name for name, _ in goboard.feature_planes(case.kind)]
    assert len(names) == len(planes)
    size = planes.shape[-1]
    lines = [f"== {case.name}", f"kind: {case.kind}", f"size: {size}"]
    if case.setup is not None:
        lines.append(f"setup ({'B' if case.setup_to_play == BLACK else 'W'} to play):")
        lines += [
            "  " + " ".join(row.split()) for row in case.setup.strip("\n").split("\n")
        ]
    lines.append("moves: " + (" ".join(case.moves) if case.moves else "(none)"))
    lines.append(f"to play: {'B' if to_play == BLACK else 'W'}")
    for index, (name, plane) in enumerate(zip(names, planes, strict=True)):
        lines.append(f"-- plane {index}: {name}")
        lines += [" ".join(str(int(v)) for v in row) for row in plane]
    return "\n".join(lines) + "\n"


def golden_text() -> str:
    """The whole golden file, computed from the library."""
    head = "# goboard feature planes (tests/test_features.py; GOBOARD_REGEN_GOLDEN=1)\n"
    return head + "".join("\n" + computed_dump(case) for case in CASES)


def computed_dump(case: GoldenCase) -> str:
    board = case.board()
    return dump_case(case, board.features(case.kind, dtype=np.uint8), board.to_play)


def golden_sections() -> dict[str, str]:
    text = GOLDEN.read_text(encoding="utf-8")
    sections = ["== " + part.rstrip("\n") + "\n" for part in text.split("\n== ")[1:]]
    return {section.split("\n", 1)[0][3:]: section for section in sections}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_golden_dump(case: GoldenCase) -> None:
    if REGEN:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(golden_text(), encoding="utf-8")
    assert computed_dump(case) == golden_sections()[case.name]


def test_golden_file_has_exactly_the_cases() -> None:
    assert list(golden_sections()) == [case.name for case in CASES]
    assert GOLDEN.read_text(encoding="utf-8") == golden_text()


@pytest.mark.parametrize("name", list(HAND_RECORDS))
def test_golden_agrees_with_hand_written_records(name: str) -> None:
    """The golden planes are those of the hand-drawn positions (not just frozen)."""
    case = next(case for case in CASES if case.name == name)
    record, to_play = HAND_RECORDS[name]
    assert case.board().stones().tolist() == record[-1].tolist()
    expected = expected_planes(record, to_play, case.kind)
    assert dump_case(case, expected, to_play) == golden_sections()[name]


@pytest.mark.parametrize(
    "case",
    [case for case in CASES if case.kind.startswith("alphago")],
    ids=lambda case: case.name,
)
def test_alphago_golden_agrees_with_the_slow_definitions(case: GoldenCase) -> None:
    """The alphago golden planes are those of goboard.reference_planes."""
    board = case.board()
    record = [case.board_after(n).stones() for n in range(len(case.moves) + 1)]
    expected = alphago_planes(record, board.to_play, board.legal_mask(), case.kind)
    assert dump_case(case, expected, board.to_play) == golden_sections()[case.name]


def test_ladder_golden_cases_by_hand() -> None:
    ladder = next(c for c in CASES if c.name == "ladder_7x7_alphago49").board()
    f = ladder.features("alphago49", dtype=np.uint8)
    assert vertices(f[44]) == {"B5", "C4"} and vertices(f[45]) == set()
    escape = next(c for c in CASES if c.name == "ladder_escape_7x7_alphago48").board()
    f = escape.features("alphago48", dtype=np.uint8)
    # White C5 is in atari; C4 would give it 2 liberties (plane 37), not enough.
    assert escape.liberties(from_gtp("C5", 7)) == 1 and "C4" in vertices(f[37])
    assert vertices(f[45]) == set()


# ---- plane semantics, spelled out ----------------------------------------------------


def vertices(plane: np.ndarray) -> set[str]:
    size = plane.shape[-1]
    return {to_gtp(int(p), size) for p in np.flatnonzero(plane)}


def test_capture_pass_5x5_by_hand() -> None:
    f = CASES[0].board().features("agz17", dtype=np.uint8)  # Black to move
    own, opp = f[:8], f[8:16]
    assert vertices(own[0]) == {"A4", "B5", "C3"}  # black now
    assert vertices(opp[0]) == {"D4"}  # white now
    assert vertices(own[1]) == {"A4", "B5", "C3"} and vertices(opp[1]) == set()
    # t2 is White's pass: the same stones as t3, just after B5 captured A5.
    for k in (2, 3):
        assert vertices(own[k]) == {"A4", "B5"} and vertices(opp[k]) == set()
    assert vertices(own[4]) == {"A4"} and vertices(opp[4]) == {"A5"}  # before capture
    assert vertices(own[5]) == {"A4"} and vertices(opp[5]) == set()
    assert own[6].sum() == opp[6].sum() == 0  # the empty start
    assert own[7].sum() == opp[7].sum() == 0  # before the record
    assert (f[16] == 1).all()


def test_white_to_move_sees_itself_as_own() -> None:
    f = CASES[1].board().features("lz18", dtype=np.uint8)
    assert vertices(f[0]) == {"D4"} and vertices(f[8]) == {"A4", "B5", "C3", "E1"}
    assert vertices(f[1]) == {"D4"} and vertices(f[9]) == {"A4", "B5", "C3"}
    assert vertices(f[5]) == {"A5"} and vertices(f[4]) == set()  # A5 gone from t4 on
    assert (f[16] == 0).all() and (f[17] == 1).all()


def test_wrap_9x9_by_hand() -> None:
    """12 moves: the window holds the positions after moves 5..12 only."""
    f = CASES[2].board().features("lz18", dtype=np.uint8)  # Black to move
    assert vertices(f[0]) == {"E5", "D6", "F6", "E7", "B7", "A1"}
    assert vertices(f[8]) == {"C3", "G3", "H8", "J9"}
    assert vertices(f[5]) == {"E5", "D6", "F6", "E7"}  # just after E7 took E6
    assert vertices(f[13]) == {"C3"}
    for k in (6, 7):  # after White's pass and after F6: E6 still on the board
        assert vertices(f[k]) == {"E5", "D6", "F6"} and vertices(f[8 + k]) == {
            "C3",
            "E6",
        }
    assert (f[16] == 1).all() and (f[17] == 0).all()


def test_captured_stones_disappear_only_from_t0() -> None:
    board = goboard.Board(5)
    for vertex in ("A4", "A5"):
        board.play_gtp(vertex)
    before = board.features(dtype=np.uint8)
    board.play_gtp("B5")  # takes A5; White to move
    f = board.features(dtype=np.uint8)
    assert vertices(before[8]) == {"A5"}  # Black's view: the white stone is there
    assert vertices(f[0]) == set() and vertices(f[1]) == {"A5"}
    assert vertices(f[8]) == {"A4", "B5"} and vertices(f[9]) == {"A4"}


def test_setup_has_no_history() -> None:
    stones = parse(SETUP_7X7)
    for to_play in (BLACK, WHITE):
        f = goboard.Board.from_stones(stones, to_play=to_play).features(dtype=np.uint8)
        np.testing.assert_array_equal(f[0], stones == to_play)
        np.testing.assert_array_equal(f[8], stones == -to_play)
        assert f[1:8].sum() == f[9:16].sum() == 0
        assert (f[16] == (to_play == BLACK)).all()


# ---- history semantics ---------------------------------------------------------------


@pytest.mark.parametrize("kind", goboard.FEATURE_KINDS)
@pytest.mark.parametrize("size", [5, 9, 19])
def test_every_position_of_random_games_matches_the_model(size, kind, rng) -> None:
    for length in (0, 3, 7, 8, 9, 40):
        board, moves, record = random_game(size, length, rng, pass_rate=0.2)
        for n in range(len(moves) + 1):
            position = replay(moves[:n], size)
            expected = expected_planes(
                record[: n + 1], position.to_play, kind, position.legal_mask()
            )
            np.testing.assert_array_equal(
                position.features(kind, dtype=np.uint8), expected
            )


def test_random_games_from_setups_match_the_model(rng) -> None:
    for size in (5, 9):
        stones = replay(random_game(size, 30, rng)[1], size).stones()
        for to_play in (BLACK, WHITE):
            start = goboard.Board.from_stones(stones, to_play=to_play)
            board, _, record = random_game(size, 12, rng, start=start)
            expected = expected_planes(record, board.to_play, "lz18")
            np.testing.assert_array_equal(board.features("lz18"), expected)


def test_each_move_shifts_history_and_swaps_sides(rng) -> None:
    """After any move (a pass too), new own_t(k+1) is old opp_tk and vice versa."""
    board, _, _ = random_game(9, 20, rng)
    for _ in range(30):
        old = board.features()
        points = board.legal_moves()
        board.play(int(rng.choice(points)) if board.passes == 0 else int(points[0]))
        new = board.features()
        np.testing.assert_array_equal(new[1:8], old[8:15])
        np.testing.assert_array_equal(new[9:16], old[0:7])
        assert (new[16] == 1 - old[16]).all()


def test_a_pass_repeats_the_stones() -> None:
    board = goboard.Board(5)
    board.play_gtp("C3")
    board.play_gtp("pass")
    f = board.features()  # Black to move; t0 and t1 hold the same stones
    assert vertices(f[0]) == vertices(f[1]) == {"C3"}
    assert vertices(f[2]) == set() and f[3:16].sum() == 0 and (f[16] == 1).all()


def test_oldest_position_drops_after_eight() -> None:
    """From a set-up with stones, t7 is the set-up for 7 moves, then it drops."""
    stones = parse(SETUP_7X7)
    board = goboard.Board.from_stones(stones, to_play=BLACK)
    for move in range(7):
        board.play(48 - move)  # along the empty bottom row, right to left
    f = board.features(dtype=np.uint8)  # White to move: own is white
    np.testing.assert_array_equal(f[7], stones == WHITE)
    np.testing.assert_array_equal(f[15], stones == BLACK)
    board.play(35)  # the 8th move: the set-up falls out of the window
    f = board.features(dtype=np.uint8)  # Black to move
    assert vertices(f[7]) == vertices(np.asarray(stones == BLACK)) | {"G1"}


def test_an_illegal_move_adds_no_position() -> None:
    board = goboard.Board(5)
    board.play_gtp("C3")
    before = board.features()
    with pytest.raises(IllegalMoveError):
        board.play(from_gtp("C3", 5))
    np.testing.assert_array_equal(board.features(), before)


@pytest.mark.parametrize("make_copy", [goboard.Board.copy, copy.copy, copy.deepcopy])
def test_copies_keep_their_own_history(make_copy, rng) -> None:
    board, _, record = random_game(9, 10, rng, pass_rate=0.0)
    original = board.features()
    twin = make_copy(board)
    np.testing.assert_array_equal(twin.features(), original)
    for _ in range(9):  # enough to overwrite every slot of the copy's ring buffer
        twin.play(int(rng.choice(twin.legal_moves()[:-1])))
    np.testing.assert_array_equal(board.features(), original)
    twin_now = twin.features()
    board.play(81)  # a pass on the original leaves the copy alone
    record.append(board.stones())
    np.testing.assert_array_equal(twin.features(), twin_now)
    expected = expected_planes(record, board.to_play, "agz17")
    np.testing.assert_array_equal(board.features(), expected)


# ---- symmetries ----------------------------------------------------------------------


def symmetric_games(rng) -> list[tuple[int, list[int], np.ndarray | None, int]]:
    """(size, moves, set-up stones or None, set-up to_play) for a few games."""
    games = []
    for size, length in ((5, 30), (6, 12), (9, 9), (9, 60)):
        games.append((size, random_game(size, length, rng, pass_rate=0.15)[1], None, 1))
    ko = np.array(
        [[0, 1, -1, 0, 0], [1, -1, 0, -1, 0], [0, 1, -1, 0, 0], [0] * 5, [0] * 5]
    )
    games.append((5, [7], ko, BLACK))  # Black takes the ko: point 6 is forbidden
    return games


def start(size: int, stones: np.ndarray | None, to_play: int) -> goboard.Board:
    if stones is None:
        return goboard.Board(size)
    return goboard.Board.from_stones(stones, to_play=to_play)


@pytest.mark.parametrize("k", range(8))
def test_features_and_legal_mask_commute_with_symmetries(k: int, rng) -> None:
    for size, moves, stones, to_play in symmetric_games(rng):
        board = replay(moves, size, start(size, stones, to_play))
        moved_stones = (
            None if stones is None else symmetries.transform_planes(stones, k)
        )
        moved = replay(
            [symmetries.transform_point(m, size, k) for m in moves],
            size,
            start(size, moved_stones, to_play),
        )
        for kind in goboard.FEATURE_KINDS:
            np.testing.assert_array_equal(
                moved.features(kind),
                symmetries.transform_planes(board.features(kind), k),
            )
        np.testing.assert_array_equal(
            moved.legal_mask(), symmetries.transform_policy(board.legal_mask(), k)
        )
        assert moved.ko_point == (
            None
            if board.ko_point is None
            else symmetries.transform_point(board.ko_point, size, k)
        )
