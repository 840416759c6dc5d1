"""The AlphaGo 2016 planes (alphago48 / alphago49): hand-made positions, ladders on
every side of the board for both colours, and the C writer against
goboard.reference_planes.

Plane numbers are those of planes.h (and ``goboard.feature_planes("alphago49")``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from games import random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import goboard
from goboard import BLACK, WHITE, symmetries
from goboard.coords import from_gtp, to_gtp
from goboard.reference_planes import alphago_planes
from goboard.text import parse

OWN, OPP, EMPTY, ONES = 0, 1, 2, 3
TURNS, LIBS, CAPTURE, SELF_ATARI, LIBS_AFTER = 4, 12, 20, 28, 36
LADDER_CAPTURE, LADDER_ESCAPE, SENSIBLE, ZEROS, BLACK_TO_MOVE = 44, 45, 46, 47, 48
MOVE_PLANES = slice(CAPTURE, ZEROS)


def planes(board: goboard.Board, kind: str = "alphago48") -> np.ndarray:
    return board.features(kind, dtype=np.uint8)


def at(plane: np.ndarray) -> set[str]:
    """The GTP vertices where a plane is 1."""
    size = plane.shape[-1]
    return {to_gtp(int(p), size) for p in np.flatnonzero(plane)}


def value(f: np.ndarray, first: int, count: int, vertex: str) -> int | None:
    """The one-hot index set at ``vertex`` among planes first..first+count-1."""
    size = f.shape[-1]
    row, col = divmod(from_gtp(vertex, size), size)
    hot = np.flatnonzero(f[first : first + count, row, col])
    assert len(hot) <= 1, f"{vertex}: more than one plane of a one-hot group"
    return int(hot[0]) if len(hot) else None


def setup(diagram: str, to_play: int = BLACK, rules: str = "tromp-taylor"):
    return goboard.Board.from_stones(parse(diagram), to_play=to_play, rules=rules)


# ---- the simple planes -------------------------------------------------------------


def test_colour_ones_zeros_and_turn_planes() -> None:
    board = setup(
        """
        . X O . .
        . X O . .
        . . . . .
        . . . . .
        . . . . .
        """,
        to_play=WHITE,
    )
    f48, f49 = planes(board), planes(board, "alphago49")
    assert f48.shape == (48, 5, 5) and f49.shape == (49, 5, 5)
    np.testing.assert_array_equal(f49[:48], f48)
    assert at(f48[OWN]) == {"C5", "C4"} and at(f48[OPP]) == {"B5", "B4"}
    assert len(at(f48[EMPTY])) == 21
    assert (f48[ONES] == 1).all() and (f48[ZEROS] == 0).all()
    assert (f49[BLACK_TO_MOVE] == 0).all()
    assert (planes(board.copy(), "alphago49")[BLACK_TO_MOVE] == 0).all()
    board.play(from_gtp("pass", 5))
    assert (planes(board, "alphago49")[BLACK_TO_MOVE] == 1).all()


def test_turns_since_counts_positions_back_passes_included() -> None:
    board = goboard.Board(5)
    for vertex in ("C3", "D3", "pass", "C2", "B2", "B3", "pass", "A1"):
        board.play_gtp(vertex)
    # Played 1 (A1), 3 (B3), 4 (B2), 5 (C2), 7 (D3) and 8 (C3) moves ago; plane
    # index = turns - 1, and 8 or more share the last plane.
    f = planes(board)
    ages = {v: value(f, TURNS, 8, v) for v in ("A1", "B3", "B2", "C2", "D3", "C3")}
    assert ages == {"A1": 0, "B3": 2, "B2": 3, "C2": 4, "D3": 6, "C3": 7}
    assert f[TURNS : TURNS + 8].sum() == 6  # stones only
    board.play_gtp("E5")
    f = planes(board)
    assert value(f, TURNS, 8, "D3") == 7 and value(f, TURNS, 8, "C3") == 7
    assert value(f, TURNS, 8, "E5") == 0 and value(f, TURNS, 8, "A1") == 1


def test_turns_since_after_a_capture_and_replay() -> None:
    board = goboard.Board(5)
    for vertex in ("A4", "A5", "B5", "pass", "A5"):
        board.play_gtp(vertex)
    # B5 took White's A5, and Black then filled A5: a stone 1 move old.
    f = planes(board)
    assert value(f, TURNS, 8, "A5") == 0 and value(f, OWN, 1, "A5") is None
    assert value(f, OPP, 1, "A5") == 0  # White to move: Black's stones are opponent
    assert value(f, TURNS, 8, "B5") == 2 and value(f, TURNS, 8, "A4") == 4


def test_set_up_stones_count_as_old() -> None:
    board = setup(". X .\nO . .\n. . .")
    f = planes(board)
    assert value(f, TURNS, 8, "B3") == 7 and value(f, TURNS, 8, "A2") == 7
    board.play_gtp("C1")
    f = planes(board)
    assert value(f, TURNS, 8, "C1") == 0 and value(f, TURNS, 8, "B3") == 7


def test_liberties_of_strings() -> None:
    board = setup(
        """
        X X O . .
        . O . . .
        . . . . .
        . . . X X
        . . . X .
        """
    )
    f = planes(board)
    assert value(f, LIBS, 8, "A5") == 0 and value(f, LIBS, 8, "B5") == 0  # 1 liberty
    assert value(f, LIBS, 8, "C5") == 1  # D5, C4
    assert value(f, LIBS, 8, "B4") == 2  # A4, C4, B3
    assert value(f, LIBS, 8, "D2") == 4  # D3, C2, E3, E1, C1
    assert value(f, LIBS, 8, "C3") is None  # empty


# ---- move planes ---------------------------------------------------------------------


def test_capture_self_atari_and_liberties_after() -> None:
    board = setup(
        """
        . O X . . . .
        O O X . . . .
        X X . . . . .
        . . . . . . .
        . . . . . . .
        . . . . O O .
        . . . . O X .
        """
    )
    f = planes(board)
    # A7 takes the three white stones and then breathes at B7 and A6.
    assert value(f, CAPTURE, 8, "A7") == 3
    assert value(f, LIBS_AFTER, 8, "A7") == 1
    # G1 joins F1 (in atari at G1): the string F1-G1 has one liberty, G2: self-atari 2.
    assert value(f, CAPTURE, 8, "G1") == 0
    assert value(f, SELF_ATARI, 8, "G1") == 1 and value(f, LIBS_AFTER, 8, "G1") == 0
    # An open point: no capture, 4 liberties, no self-atari.
    assert value(f, CAPTURE, 8, "D4") == 0 and value(f, LIBS_AFTER, 8, "D4") == 3
    assert value(f, SELF_ATARI, 8, "D4") is None
    # Occupied points have no move planes.
    assert f[MOVE_PLANES, 0, 2].sum() == 0


# C7 joins Black's string; of its three empty neighbours, C8 touches that string only
# at C9, two points away from C7 (White's B8 is in the way): a liberty it already has.
FAR_TOUCH = """
    X X X . . . . . .
    X O . . . . . . .
    X X . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


@pytest.mark.parametrize("swap", [False, True], ids=["black", "white"])
@pytest.mark.parametrize("k", range(8))
def test_liberties_after_see_a_neighbour_the_string_reaches_around(k, swap) -> None:
    """The string has 5 liberties (A6, B6, C8, D9 and C7 itself); after C7 it keeps the
    other 4 and gains D7 and C6: 6, not 7. In every orientation the empty neighbour
    the string touches is a different one of the four, so each is checked."""
    stones, to_play = transformed(parse(FAR_TOUCH), k, swap)
    board = goboard.Board.from_stones(stones, to_play=to_play)
    (move,) = vertices({"C7"}, k)
    f = planes(board)
    assert value(f, LIBS_AFTER, 8, move) == 6 - 1
    assert value(f, CAPTURE, 8, move) == 0
    np.testing.assert_array_equal(
        f, alphago_planes([board.stones()], to_play, board.legal_mask(), "alphago48")
    )


def test_capture_sizes_cap_at_seven_and_liberties_at_eight() -> None:
    rows = ["O " * 9, "X " * 8 + ".", *[". " * 9] * 7]
    f = planes(setup("\n".join(rows)))
    # White's top row breathes only at J8: Black J8 takes all 9 stones, and its string
    # (J8 joins A8..H8) then has 18 liberties.
    assert value(f, CAPTURE, 8, "J8") == 7
    assert value(f, LIBS_AFTER, 8, "J8") == 7
    assert value(f, LIBS_AFTER, 8, "E5") == 3


def in_corner(diagram: str, size: int) -> str:
    """A 5x5 diagram in the upper left corner of an empty size x size board (its
    edges stay edges). At 9 lines the writer counts most moves eight points at a
    time; at 5, one point at a time."""
    rows = [row.strip() for row in diagram.strip().splitlines()]
    padding = " ." * (size - len(rows[0].split()))
    empty = " ".join("." * size)
    return "\n".join([row + padding for row in rows] + [empty] * (size - len(rows)))


def vertex(name: str, size: int) -> str:
    """The GTP vertex of the 5x5 diagram's ``name`` once in_corner moved it."""
    return f"{name[0]}{int(name[1:]) + size - 5}"


@pytest.mark.parametrize("size", [5, 9])
def test_illegal_points_have_no_move_planes(size: int) -> None:
    stones = """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
    """
    board = setup(in_corner(stones, size))
    board.play_gtp(vertex("C4", size))  # takes B4: White may not retake there at once
    assert board.ko_point == from_gtp(vertex("B4", size), size)
    f = planes(board)
    row, col = divmod(from_gtp(vertex("B4", size), size), size)
    assert f[MOVE_PLANES, row, col].sum() == 0
    assert f[EMPTY, row, col] == 1
    legal = board.legal_mask()[:-1].reshape(size, size)
    assert (f[SENSIBLE] <= legal).all() and (
        f[CAPTURE : CAPTURE + 8].sum(0) == legal
    ).all()


@pytest.mark.parametrize("size", [5, 9])
@pytest.mark.parametrize("rules", ["tromp-taylor", "chinese"])
def test_multi_stone_suicide_follows_the_rules(rules: str, size: int) -> None:
    board = setup(
        in_corner(
            """
            . X O . .
            X X O . .
            O O O . .
            . . . . .
            . . . . .
            """,
            size,
        ),
        rules=rules,
    )
    f = planes(board)
    corner = vertex("A5", size)
    # A5 kills Black's own three stones: legal under Tromp-Taylor only. It is also a
    # true eye by the playout rule, so never sensible.
    assert corner not in at(f[SENSIBLE])
    if rules == "tromp-taylor":
        assert value(f, CAPTURE, 8, corner) == 0
        assert value(f, LIBS_AFTER, 8, corner) is None  # the string is gone
        assert value(f, SELF_ATARI, 8, corner) is None
    else:
        row, col = divmod(from_gtp(corner, size), size)
        assert f[MOVE_PLANES, row, col].sum() == 0


def superko_position(size: int, seed: int) -> tuple[goboard.Board, int]:
    """A position (Tromp-Taylor) with a move that only superko forbids."""
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        board, _, _ = random_game(size, int(rng.integers(10, 60)), rng, pass_rate=0.0)
        if board.is_over:
            continue
        simple = goboard.Board.from_stones(
            board.stones(), to_play=board.to_play, rules=goboard.Rules(ko="simple")
        )
        forbidden = simple.legal_mask() & ~board.legal_mask()
        forbidden[board.ko_point if board.ko_point is not None else -1] = False
        if forbidden[:-1].any():
            return board, int(np.flatnonzero(forbidden[:-1])[0])
    raise AssertionError("no superko position found")


def quiet_superko_position() -> tuple[goboard.Board, int]:
    """2x2: point 1 is a quiet move (no capture, one stone more) that would bring back
    the position after the fourth move, which only a capture since then allows."""
    board = goboard.Board(2)
    for move in (1, 2, 3, 0, 3, 1, 3, 2):
        board.play(move)
    return board, 1


@pytest.mark.parametrize("quiet", [False, True], ids=["random-game", "quiet-move"])
def test_superko_forbidden_points_have_no_move_planes(quiet: bool) -> None:
    board, point = quiet_superko_position() if quiet else superko_position(4, 5)
    size = board.size
    assert not board.is_legal(point)
    f = planes(board)
    row, col = divmod(point, size)
    assert f[EMPTY, row, col] == 1 and f[MOVE_PLANES, row, col].sum() == 0
    # Without the record the same point is a move like any other.
    fresh = goboard.Board.from_stones(board.stones(), to_play=board.to_play)
    assert fresh.is_legal(point)
    assert planes(fresh)[CAPTURE : CAPTURE + 8, row, col].sum() == 1


RULES = {
    "tromp-taylor": "tromp-taylor",
    "chinese": "chinese",
    "simple": goboard.Rules(ko="simple", suicide=True),
    "situational-suicide": goboard.Rules(ko="situational", suicide=True),
    "positional-no-suicide": goboard.Rules(ko="positional", suicide=False),
}


@pytest.mark.parametrize("rules", sorted(RULES))
@pytest.mark.parametrize(
    ("sizes", "games"), [((3, 6), 40), ((8, 10), 6)], ids=["one-by-one", "lanes"]
)
def test_move_planes_are_on_exactly_the_legal_points(
    rules: str, sizes: tuple[int, int], games: int
) -> None:
    """The move planes follow the game's legality (ko, suicide, superko): at every
    position of long random games, the capture-size planes (one of them is set at
    every legal move) must be the legal mask, and no move plane is set anywhere else.
    On boards of 3-5 lines superko forbids moves now and then; on 8-9 lines the
    writer counts most moves eight points at a time, and after captures decides
    every point by a lookup."""
    rng = np.random.default_rng(11)
    forbidden_by_superko = 0
    for _ in range(games):
        size = int(rng.integers(*sizes))
        board = goboard.Board(size, rules=RULES[rules])
        simple_ko = goboard.Rules(ko="simple", suicide=board.rules.suicide)
        for _ in range(6 * size * size):
            mask = board.legal_mask()
            f = planes(board)
            legal = mask[:-1].reshape(size, size)
            np.testing.assert_array_equal(f[CAPTURE : CAPTURE + 8].sum(0), legal)
            assert (f[MOVE_PLANES].sum(0)[~legal] == 0).all()
            simple = goboard.Board.from_stones(
                board.stones(), to_play=board.to_play, rules=simple_ko
            )
            forbidden = simple.legal_mask() & ~mask
            if board.ko_point is not None:
                forbidden[board.ko_point] = False
            forbidden_by_superko += int(forbidden.sum())
            points = np.flatnonzero(mask[:-1])
            if len(points) == 0:
                break
            board.play(int(rng.choice(points)))
    # The superko branch was exercised (random play without suicide seldom meets
    # situational superko: "situational-suicide" covers the situational keys).
    if rules not in ("simple", "chinese") and sizes[0] < 8:
        assert forbidden_by_superko > 0


@pytest.mark.parametrize("end", ["passes", "resign"])
def test_a_finished_game_has_no_move_planes(end: str) -> None:
    board = goboard.Board(5)
    board.play(from_gtp("C3", 5))
    if end == "passes":
        board.play(5 * 5)
        board.play(5 * 5)
    else:
        board.resign()
    assert board.is_over and not board.legal_mask().any()
    f = planes(board)
    assert f[MOVE_PLANES].sum() == 0
    assert f[EMPTY].sum() == 24 and f[ONES].all()


def test_sensibleness_uses_the_playout_eye_rule() -> None:
    board = setup(
        """
        . X . X O
        X X X X O
        . . . X .
        X X X X O
        . . . . .
        """
    )
    f = planes(board)
    # A5 and C5 are Black's true eyes: not sensible. A3 and B3 are not eyes, E3
    # captures, A1 is open.
    assert board.is_true_eye(from_gtp("A5", 5), BLACK)
    assert at(f[SENSIBLE]) & {"A5", "C5"} == set()
    assert {"A3", "B3", "E3", "A1"} <= at(f[SENSIBLE])
    white = setup(
        """
        . X . X O
        X X X X O
        . . . X .
        X X X X O
        . . . . .
        """,
        to_play=WHITE,
    )
    # For White, A5 and C5 are Black's points (illegal), E3 is no eye of White's.
    assert at(planes(white)[SENSIBLE]) & {"A5", "C5"} == set()
    assert "E3" in at(planes(white)[SENSIBLE])


# ---- ladders -------------------------------------------------------------------------

# White C7 has two liberties. Black B7 drives it down-right across the open board to
# the lower edge (a ladder); Black C6 drives it up-left into the corner. A white stone
# at G3 stands on the down-right path and breaks that ladder.
LADDER = """
    . . . . . . . . .
    . . X . . . . . .
    . . O X . . . . .
    . X . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def ladder_stones(breaker: bool = False, weak_attacker: bool = False) -> np.ndarray:
    stones = parse(LADDER)
    if breaker:
        stones[6, 6] = WHITE  # G3
    if weak_attacker:
        stones[1, 3] = stones[2, 4] = WHITE  # D8, E7: Black D7 is in atari at D6
    return stones


def transformed(stones: np.ndarray, k: int, swap: bool) -> tuple[np.ndarray, int]:
    moved = symmetries.transform_planes(stones, k)
    return (-moved if swap else moved), (WHITE if swap else BLACK)


def vertices(points: set[str], k: int, size: int = 9) -> set[str]:
    return {
        to_gtp(symmetries.transform_point(from_gtp(v, size), size, k), size)
        for v in points
    }


@pytest.mark.parametrize("swap", [False, True], ids=["black-attacks", "white-attacks"])
@pytest.mark.parametrize("k", range(8))
@pytest.mark.parametrize(
    ("breaker", "weak_attacker", "captures"),
    [
        (False, False, {"B7", "C6"}),
        (True, False, {"C6"}),  # the breaker saves the down-right ladder
        # Black D7 in atari: White answers either atari by taking it at D6.
        (False, True, set()),
    ],
    ids=["plain", "breaker", "capture-escape"],
)
def test_ladder_capture_on_every_side(
    k, swap, breaker, weak_attacker, captures
) -> None:
    stones, attacker = transformed(ladder_stones(breaker, weak_attacker), k, swap)
    board = goboard.Board.from_stones(stones, to_play=attacker)
    f = planes(board)
    assert at(f[LADDER_CAPTURE]) == vertices(captures, k)
    # Black's only string in atari is D7 (weak_attacker); D6 gives it 3 liberties.
    escapes = {"D6"} if weak_attacker else set()
    assert at(f[LADDER_ESCAPE]) == vertices(escapes, k)
    np.testing.assert_array_equal(
        f, alphago_planes([stones], attacker, board.legal_mask())
    )


@pytest.mark.parametrize("swap", [False, True], ids=["white-escapes", "black-escapes"])
@pytest.mark.parametrize("k", range(8))
@pytest.mark.parametrize("breaker", [False, True], ids=["no-breaker", "breaker"])
def test_ladder_escape_on_every_side(k, swap, breaker) -> None:
    stones = ladder_stones(breaker)
    stones[2, 1] = BLACK  # B7: White C7 in atari, its liberty is C6
    stones, attacker = transformed(stones, k, swap)
    board = goboard.Board.from_stones(stones, to_play=-attacker)
    f = planes(board)
    # Extending at C6 leaves two liberties; the ladder then works unless broken.
    assert at(f[LADDER_ESCAPE]) == (vertices({"C6"}, k) if breaker else set())
    assert value(f, LIBS_AFTER, 8, next(iter(vertices({"C6"}, k)))) == 1
    np.testing.assert_array_equal(
        f, alphago_planes([stones], -attacker, board.legal_mask())
    )


def test_ladder_escape_with_many_liberties_is_one() -> None:
    board = setup(
        """
        . . . . .
        . . . . .
        . X O X .
        . . X . .
        . . . . .
        """,
        to_play=WHITE,
    )
    # White C3 is in atari at C4; extending there gives 3 liberties: no ladder.
    f = planes(board)
    assert at(f[LADDER_ESCAPE]) == {"C4"}
    assert value(f, LIBS_AFTER, 8, "C4") == 2


# ---- against the slow definitions ----------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(5, 19),
    seed=st.integers(0, 2**32 - 1),
    fill=st.floats(0.0, 1.3),
    rules=st.sampled_from(["tromp-taylor", "chinese", "simple-ko"]),
    kind=st.sampled_from(["alphago48", "alphago49"]),
)
def test_every_plane_equals_the_slow_definitions(size, seed, fill, rules, kind) -> None:
    rng = np.random.default_rng(seed)
    start = goboard.Board(
        size, rules=goboard.Rules(ko="simple") if rules == "simple-ko" else rules
    )
    board, _, record = random_game(
        size, int(fill * size * size), rng, pass_rate=0.03, start=start
    )
    expected = alphago_planes(record, board.to_play, board.legal_mask(), kind)
    for dtype in (np.uint8, np.float32):
        got = board.features(kind, dtype=dtype)
        for plane in range(len(expected)):
            np.testing.assert_array_equal(
                got[plane], expected[plane], err_msg=str(plane)
            )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([7, 9, 13, 19]))
def test_playout_endings_equal_the_slow_definitions(seed, size) -> None:
    """Crowded boards from the C playouts (many strings short of liberties)."""
    rng = np.random.default_rng(seed)
    board, _, record = random_game(size, size * size // 3, rng, pass_rate=0.0)
    # Finish with playout-style moves: no filling of own true eyes.
    for _ in range(size * size):
        legal = [
            p
            for p in board.legal_moves()[:-1]
            if not board.is_true_eye(p, board.to_play)
        ]
        if not legal:
            break
        board.play(int(rng.choice(legal)))
        record.append(board.stones())
    expected = alphago_planes(record, board.to_play, board.legal_mask(), "alphago49")
    np.testing.assert_array_equal(board.features("alphago49", dtype=np.uint8), expected)


#: Debian's goban-original-games: professional 19x19 games (CI installs the package).
PRO_GAMES = Path("/usr/share/goban")


def pro_game_paths(every: int) -> list[Path]:
    """Every ``every``-th professional game file, in name order; skips without them."""
    paths = sorted(
        p for p in PRO_GAMES.glob("*") if p.suffix.lower() in (".sgf", ".mgt")
    )
    if not paths:
        pytest.skip(f"no professional games in {PRO_GAMES} (goban-original-games)")
    return paths[::every]


def test_professional_games_equal_the_slow_definitions() -> None:
    """Real middle games, where ladders and short liberties come from play, not chance:
    every 7th position of every 60th game file, all 49 planes. The environment
    variables GOBOARD_PRO_GAMES_EVERY and GOBOARD_PRO_MOVES_EVERY widen the check
    (README: 1 and 3 gave 42,811 positions and no difference)."""
    games_every = int(os.environ.get("GOBOARD_PRO_GAMES_EVERY", "60"))
    moves_every = int(os.environ.get("GOBOARD_PRO_MOVES_EVERY", "7"))
    sgf = pytest.importorskip("alphago.sgf")
    checked = 0
    for path in pro_game_paths(every=games_every):
        record = sgf.read_sgf(path.read_bytes())
        board = sgf.start_board(record, "chinese")
        if board.size != 19:
            continue
        # The positions the board's own history holds: play_as inserts a pass before a
        # move out of turn, and a rebuilt board (a move after the game ended) has none.
        history = [board.stones()]
        for number, (colour, point) in enumerate(record.moves, 1):
            before, moves_before = board, board.move_number
            stones_before = board.stones()
            try:
                board = sgf.play_as(board, colour, point)
            except goboard.IllegalMoveError:
                break  # a record with a wrong move is checked up to it
            if board is not before:
                history = [stones_before]
            elif board.move_number == moves_before + 2:
                history.append(stones_before)
            history.append(board.stones())
            if number % moves_every == 0:
                expected = alphago_planes(
                    history, board.to_play, board.legal_mask(), "alphago49"
                )
                got = board.features("alphago49", dtype=np.uint8)
                for plane in range(len(expected)):
                    np.testing.assert_array_equal(
                        got[plane], expected[plane], err_msg=f"{path.name} {number}"
                    )
                checked += 1
    # About 267 at the defaults; a wider check holds proportionally more.
    assert checked >= 200 * 60 * 7 // (games_every * moves_every), checked


def test_batch_and_pool_agree_with_single_boards(rng) -> None:
    boards = [random_game(9, n, rng)[0] for n in (0, 10, 40, 70)]
    batch = goboard.features_batch(boards, "alphago48", dtype=np.uint8)
    for board, f in zip(boards, batch, strict=True):
        np.testing.assert_array_equal(f, planes(board))
    pool = goboard.Pool(boards, 4)
    slots = [g * 4 for g in range(len(boards))]
    np.testing.assert_array_equal(
        pool.features(slots, "alphago48", dtype=np.uint8), batch
    )


@pytest.mark.parametrize("kind", ["alphago48", "alphago49"])
def test_wrong_out_buffers_are_refused(kind: str) -> None:
    board = goboard.Board(5)
    planes_count = 48 if kind == "alphago48" else 49
    for shape in [(1, 17, 5, 5), (1, planes_count + 1, 5, 5), (1, planes_count, 5, 6)]:
        out = np.full(shape, 7, dtype=np.float32)
        with pytest.raises(ValueError):
            goboard.features_batch([board], kind, out=out)
        assert (out == 7).all()
    out = np.zeros((1, planes_count, 5, 5), dtype=np.float64)
    with pytest.raises(TypeError):
        goboard.features_batch([board], kind, out=out)
    with pytest.raises(ValueError, match="unknown feature kind"):
        goboard.features_batch([board], kind.upper())


def long_ladder(breaker: bool) -> np.ndarray:
    """The ladder shape of LADDER in the top-left corner of 19x19: from B17 it runs
    down-right across the whole board (a read some 60 plies deep)."""
    stones = np.zeros((19, 19), dtype=np.int8)
    stones[:9, :9] = ladder_stones()
    if breaker:
        stones[16, 16] = WHITE  # Q3, near the end of the path
    return stones


@pytest.mark.parametrize("breaker", [False, True])
def test_a_ladder_across_the_whole_board(breaker: bool) -> None:
    stones = long_ladder(breaker)
    board = goboard.Board.from_stones(stones)
    f = planes(board)
    assert ("B17" in at(f[LADDER_CAPTURE])) is not breaker
    np.testing.assert_array_equal(
        f, alphago_planes([stones], BLACK, board.legal_mask())
    )


def test_a_read_that_hits_the_cap_is_no_ladder(monkeypatch) -> None:
    """The slow reader's caps (the C reader has the same at 2000 moves / 160 plies)."""
    from goboard import reference_planes

    stones = long_ladder(breaker=False)
    board = goboard.Board.from_stones(stones)
    legal = board.legal_mask()
    assert alphago_planes([stones], BLACK, legal)[LADDER_CAPTURE, 2, 1] == 1
    monkeypatch.setattr(reference_planes, "LADDER_NODES", 10)
    assert alphago_planes([stones], BLACK, legal)[LADDER_CAPTURE, 2, 1] == 0
    stones[2, 1] = BLACK  # B17 played: White's C17 is in atari, escape at C16
    white = goboard.Board.from_stones(stones, to_play=WHITE)
    assert alphago_planes([stones], WHITE, white.legal_mask())[LADDER_ESCAPE, 3, 2] == 1
    monkeypatch.setattr(reference_planes, "LADDER_NODES", 2000)
    monkeypatch.setattr(reference_planes, "LADDER_DEPTH", 8)
    assert alphago_planes([stones], WHITE, white.legal_mask())[LADDER_ESCAPE, 3, 2] == 1
    monkeypatch.undo()
    assert alphago_planes([stones], WHITE, white.legal_mask())[LADDER_ESCAPE, 3, 2] == 0
    assert planes(white)[LADDER_ESCAPE, 3, 2] == 0


def test_ataris_that_surely_fail_cost_the_slow_reader_no_node() -> None:
    """Inside a read, as at its start, an atari after which the other liberty surely
    gives 3 is judged without being played (the C reader's rule): a read counts the
    same moves in both, so both meet the 2000-move cap at the same place."""
    from goboard import reference_planes

    stones = parse(
        """
        .........
        .........
        .........
        .........
        ...XOX...
        .........
        .........
        .........
        .........
        """
    )
    geo = reference_planes._Geometry(9)
    flat = [int(v) for v in stones.flatten()]
    reader = reference_planes._Reader(geo)
    target = 4 * 9 + 4  # E5: liberties E4 and E6, each extension has 3 more
    assert not reader.attack((flat, None, BLACK), 1, target)
    assert reader.nodes == 0


# Found by fuzz/fuzz_goboard.py: Black's B11 starts a ladder along the left edge that
# the readers settle in about 1,155 moves. When the slow reader also played the ataris
# that surely fail, the same read passed 2,000 moves there: it met the cap and called
# the ladder a failure where the C reader found the capture.
EDGE_LADDER = """
    ..........O......X.
    ....X..............
    .............X....O
    .........O.........
    ................O..
    X.............X....
    ...................
    XO.................
    O......X...........
    ..X.O..............
    .....X.............
    ...O...X..........X
    ...........O.......
    .....X.....O......O
    ...................
    .......O.......X..X
    .............X.....
    .........X........O
    OO.................
    """


def test_a_long_edge_ladder_read_near_the_cap() -> None:
    board = setup(EDGE_LADDER)
    f = planes(board)
    assert "B11" in at(f[LADDER_CAPTURE])
    np.testing.assert_array_equal(
        f, alphago_planes([parse(EDGE_LADDER)], BLACK, board.legal_mask())
    )
