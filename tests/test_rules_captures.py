"""Captures, merges and liberties, as hand-written ASCII-board cases.

Every case runs on both implementations and colour-swapped (see rulecase.py). On
5x5 boards the columns are A..E and the rows 5 (top) .. 1 (bottom).
"""

from __future__ import annotations

from rulecase import Case, cases, run_case

CAPTURES = [
    Case(
        "single-capture-centre",
        """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """,
        moves=("D3",),
        expect="""
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
        """,
        captures=(1, 0),
        ko_point=None,
        liberties=(("D3", 4), ("C4", 4)),
        illegal=(("C3", "suicide"), ("D3", "occupied")),
    ),
    Case(
        "corner-capture",
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        O X . . .
        """,
        moves=((3, 0),),  # A2
        expect="""
        . . . . .
        . . . . .
        . . . . .
        X . . . .
        . X . . .
        """,
        captures=(1, 0),
        ko_point=None,
        liberties=(("A2", 3), ("B1", 3)),
    ),
    Case(
        "edge-capture",
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . X O X .
        """,
        moves=("C2",),
        expect="""
        . . . . .
        . . . . .
        . . . . .
        . . X . .
        . X . X .
        """,
        captures=(1, 0),
        liberties=(("C2", 4),),
    ),
    Case(
        "three-stone-capture",
        """
        . X X X .
        X O O O .
        . X X X .
        . . . . .
        . . . . .
        """,
        moves=("E4",),
        expect="""
        . X X X .
        X . . . X
        . X X X .
        . . . . .
        . . . . .
        """,
        captures=(3, 0),
        ko_point=None,
        liberties=(("E4", 3), ("B5", 5)),
    ),
    Case(
        "two-strings-captured-at-once",
        """
        X O . O X
        X O X X .
        . X . . .
        . . . . .
        . . . . .
        """,
        moves=("C5",),
        expect="""
        X . X . X
        X . X X .
        . X . . .
        . . . . .
        . . . . .
        """,
        captures=(3, 0),
        ko_point=None,
        liberties=(("C5", 6), ("A5", 3), ("E5", 2)),
        strings=(("C5", "C4", "D4"),),
    ),
    Case(
        "same-string-touched-twice-captured-once",
        """
        . X X . .
        X O O X .
        X O . X .
        . X X . .
        . . . . .
        """,
        moves=("C3",),
        expect="""
        . X X . .
        X . . X .
        X . X X .
        . X X . .
        . . . . .
        """,
        captures=(3, 0),
        ko_point=None,
        liberties=(("C3", 9),),
        strings=(("C3", "D3", "D4", "C2", "B2"),),
    ),
    Case(
        "same-opponent-string-touched-twice-loses-one-liberty",
        """
        . . . . .
        . O O . .
        . O . . .
        . . . . .
        . . . . .
        """,
        moves=("C3",),
        captures=(0, 0),
        liberties=(("B4", 6), ("C3", 2)),
        strings=(("B4", "C4", "B3"), ("C3",)),
    ),
    Case(
        "capture-and-merge-in-one-move",
        """
        X O X . .
        X . X . .
        . . . . .
        . . . . .
        . . . . .
        """,
        moves=("B4",),
        expect="""
        X . X . .
        X X X . .
        . . . . .
        . . . . .
        . . . . .
        """,
        captures=(1, 0),
        ko_point=None,
        liberties=(("B4", 6),),
        strings=(("A5", "A4", "B4", "C4", "C5"),),
    ),
    Case(
        "capture-needs-last-liberty",
        """
        . . . . .
        . X O . .
        . X O . .
        . . X . .
        . . . . .
        """,
        moves=("D3",),
        expect="""
        . . . . .
        . X O . .
        . X O X .
        . . X . .
        . . . . .
        """,
        captures=(0, 0),
        liberties=(("C4", 2), ("D3", 3)),
    ),
]

MERGES = [
    Case(
        "merge-one-string-touched-twice",
        """
        . . . . .
        . X X . .
        . X . . .
        . . . . .
        . . . . .
        """,
        moves=("C3",),
        liberties=(("C3", 8), ("B4", 8)),
        strings=(("B4", "C4", "B3", "C3"),),
    ),
    Case(
        "merge-two-strings",
        """
        . . . . .
        . . . . .
        . X . X .
        . . . . .
        . . . . .
        """,
        moves=("C3",),
        liberties=(("B3", 8), ("C3", 8), ("D3", 8)),
        strings=(("B3", "C3", "D3"),),
    ),
    Case(
        "merge-three-strings",
        """
        . . . . .
        . . X . .
        . X . X .
        . . . O .
        . . . . .
        """,
        moves=("C3",),
        liberties=(("C4", 7), ("D2", 3)),
        strings=(("C4", "B3", "C3", "D3"), ("D2",)),
    ),
    Case(
        "merge-four-strings-sharing-liberties",
        """
        . . . . .
        . O X . .
        . X . X .
        . . X . .
        . . . . .
        """,
        moves=("C3",),
        # C5 D4 A3 E3 B2 D2 C1: each counted once, B4 is White's.
        liberties=(("C3", 7), ("C2", 7), ("B4", 2)),
        strings=(("C4", "B3", "C3", "D3", "C2"), ("B4",)),
    ),
    Case(
        "merge-of-two-strings-in-atari-saves-both",
        """
        . . . . .
        O O . O O
        X X . X X
        O O . O O
        . . . . .
        """,
        moves=("C3",),
        liberties=(("A3", 2),),
        strings=(("A3", "B3", "C3", "D3", "E3"),),
    ),
]

SNAPBACK_BOARD = """
    . . . . .
    . . . . .
    X X X X .
    O O O X .
    . . O X .
"""

SNAPBACK = [
    Case(
        "snapback-throw-in-captured-not-ko",
        SNAPBACK_BOARD,
        moves=("B1", "A1"),
        expect="""
        . . . . .
        . . . . .
        X X X X .
        O O O X .
        O . O X .
        """,
        captures=(0, 1),
        # White's capturing stone joined a string: no ko, Black may retake at once.
        ko_point=None,
        liberties=(("A1", 1),),
        legal=("B1",),
    ),
    Case(
        "snapback-retake-captures-five",
        SNAPBACK_BOARD,
        moves=("B1", "A1", "B1"),
        expect="""
        . . . . .
        . . . . .
        X X X X .
        . . . X .
        . X . X .
        """,
        captures=(5, 1),
        ko_point=None,
        liberties=(("B1", 3),),
    ),
]


@cases(*CAPTURES)
def test_captures(impl, case):
    run_case(impl, case)


@cases(*MERGES)
def test_merges(impl, case):
    run_case(impl, case)


@cases(*SNAPBACK)
def test_snapback(impl, case):
    run_case(impl, case)


@cases(CAPTURES[3])
def test_captured_points_are_empty_and_playable_again(impl, case):
    """The points of a captured string become ordinary empty points again."""
    board = run_case(impl, case)  # three stones captured on B4, C4, D4
    for col in (1, 2, 3):
        p = 1 * board.size + col
        assert board.stones()[1, col] == 0
        assert board.liberties(p) == 0
        assert board.string(p).tolist() == []
        assert board.is_legal(p)
    board.play(1 * board.size + 2)  # the loser plays back into the hole, at C4
    assert board.liberties(1 * board.size + 2) == 2  # B4 and D4
    assert board.captures == case.captures
