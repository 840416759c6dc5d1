"""Board sizes 2 and 19: corners, edges and long strings, as hand-written cases.

Every case runs on both implementations and colour-swapped (see rulecase.py).
"""

from __future__ import annotations

from rulecase import Case, cases, edit, run_case

# A 19x19 board with a White stone in each corner, each already touched by Black.
CORNERS_19 = """
O X . . . . . . . . . . . . . . . X O
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . X . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
O X . . . . . . . . . . . . . . . X O
"""

SIZES = [
    Case(
        "size2-capture-leaves-only-suicide-points",
        """
        X .
        O .
        """,
        moves=("B1",),
        expect="""
        X .
        . X
        """,
        captures=(1, 0),
        ko_point=None,
        illegal=(("A1", "suicide"), ("B2", "suicide"), ("A2", "occupied")),
    ),
    Case(
        "size2-snapback",
        """
        . X
        O O
        """,
        to_play=-1,
        moves=("A2", "B2"),
        expect="""
        . X
        . .
        """,
        captures=(3, 1),
        ko_point=None,
        liberties=(("B2", 2),),
    ),
    *[
        Case(
            f"size19-corner-{corner}",
            CORNERS_19,
            moves=(move,),
            expect=edit(CORNERS_19, {move: "X", captured: "."}),
            captures=(1, 0),
            ko_point=None,
            liberties=((move, 3), ("K10", 4)),
            illegal=((captured, "suicide"),),  # the loser can't play back into it
        )
        for corner, move, captured in [
            ("top-left", "A18", "A19"),
            ("top-right", "T18", "T19"),
            ("bottom-left", "A2", "A1"),
            ("bottom-right", "T2", "T1"),
        ]
    ],
    Case(
        "size19-nineteen-stone-edge-string-captured",
        """
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        X X X X X X X X X . X X X X X X X X X
        O O O O O O O O O O O O O O O O O O O
        """,
        moves=("K2",),
        expect="""
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        X X X X X X X X X X X X X X X X X X X
        . . . . . . . . . . . . . . . . . . .
        """,
        captures=(19, 0),
        ko_point=None,
        liberties=(("A2", 38), ("T2", 38)),
        strings=(tuple(f"{c}2" for c in "ABCDEFGHJKLMNOPQRST"),),
        legal=("A1", "T1", "K1"),
    ),
]


@cases(*SIZES)
def test_board_sizes_edges_and_corners(impl, case):
    run_case(impl, case)
