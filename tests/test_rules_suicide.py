"""Suicide: single-stone (always illegal), multi-stone (by rule set), captures first."""

from __future__ import annotations

from rulecase import Case, cases, run_case

from goboard.rules import Rules

ALL_RULES = {
    "tromp-taylor": "tromp-taylor",
    "chinese": "chinese",
    "simple-suicide-allowed": Rules("simple", True),
    "simple-suicide-forbidden": Rules("simple", False),
    "situational-suicide-allowed": Rules("situational", True),
    "positional-suicide-forbidden": Rules("positional", False),
}
SUICIDE_ALLOWED = {k: v for k, v in ALL_RULES.items() if Rules.coerce(v).suicide}
SUICIDE_FORBIDDEN = {k: v for k, v in ALL_RULES.items() if not Rules.coerce(v).suicide}

EYES = """
    . O . . .
    O . O . .
    . O . . .
    . . . . .
    . . . . .
"""

SINGLE = [
    *[
        Case(
            f"single-stone-suicide-{where}-{name}",
            EYES,
            rules=r,
            moves=(move,),
            error="suicide",
        )
        for name, r in ALL_RULES.items()
        for where, move in (("centre", "B4"), ("corner", "A5"))
    ],
    Case(
        "single-stone-suicide-on-2x2",
        """
        . O
        O .
        """,
        moves=("A2",),
        error="suicide",
        illegal=(("B1", "suicide"),),
        legal=("pass",),
    ),
    Case(
        "filling-own-eye-is-not-suicide",
        EYES,
        to_play=-1,
        moves=("B4",),
        liberties=(("B4", 6),),
        strings=(("B5", "A4", "B4", "C4", "B3"),),
    ),
    Case(
        "self-atari-is-legal",
        """
        X . O . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        rules="chinese",
        moves=("B5",),
        captures=(0, 0),
        liberties=(("A5", 1), ("B5", 1)),
        strings=(("A5", "B5"),),
        legal=("B4",),
    ),
]

MULTI_BOARD = """
    X . O . .
    O O . . .
    . . . . .
    . . . . .
    . . . . .
"""
MULTI_AFTER = """
    . . O . .
    O O . . .
    . . . . .
    . . . . .
    . . . . .
"""

MULTI = [
    *[
        Case(
            f"multi-stone-suicide-allowed-{name}",
            MULTI_BOARD,
            rules=r,
            moves=("B5",),
            expect=MULTI_AFTER,
            captures=(0, 2),  # the suicided stones count for the opponent
            ko_point=None,
            liberties=(("A4", 5), ("C5", 3)),
            legal=("A5", "B5"),
        )
        for name, r in SUICIDE_ALLOWED.items()
    ],
    *[
        Case(
            f"multi-stone-suicide-forbidden-{name}",
            MULTI_BOARD,
            rules=r,
            moves=("B5",),
            error="suicide",
            expect=MULTI_BOARD,
            captures=(0, 0),
        )
        for name, r in SUICIDE_FORBIDDEN.items()
    ],
    Case(
        "three-stone-suicide-tromp-taylor",
        """
        X . O . .
        X O . . .
        O . . . .
        X . . . .
        . . . . .
        """,
        moves=("B5",),
        expect="""
        . . O . .
        . O . . .
        O . . . .
        X . . . .
        . . . . .
        """,
        captures=(0, 3),
        liberties=(("A3", 2), ("B4", 4)),
    ),
]

# Black's A5-A4 has one liberty, B5. Playing there is suicide (chinese) until Black
# captures White's A3, which gives the string a second liberty.
REENABLE = """
    X . O . .
    X O . . .
    O . . . .
    X . . . .
    . . . . .
"""

CAPTURE_FIRST = [
    Case(
        "capture-of-two-strings-beats-suicide",
        """
        . O X . .
        O X . . .
        X . . . .
        . . . . .
        . . . . .
        """,
        rules="chinese",
        moves=("A5",),
        expect="""
        X . X . .
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        """,
        captures=(2, 0),
        ko_point=None,
        liberties=(("A5", 2),),
    ),
    Case(
        "suicide-before-capture-elsewhere",
        REENABLE,
        rules="chinese",
        moves=("B5",),
        error="suicide",
    ),
    Case(
        "capture-re-enables-suicide-point",
        REENABLE,
        rules="chinese",
        moves=("B3", "E1", "B5"),
        expect="""
        X X O . .
        X O . . .
        . X . . .
        X . . . .
        . . . . O
        """,
        captures=(1, 0),
        liberties=(("A5", 1), ("B4", 1)),
        strings=(("A5", "B5", "A4"),),
    ),
]

# Black A5, White passes, Black B5 suicides both stones: the first arrangement comes
# back, with White to move (it was first seen with Black to move).
RECREATE = """
    . . O . .
    O O . . .
    . . . . .
    . . . . .
    . . . . .
"""
RECREATE_MOVES = ("A5", "pass", "B5")

REPETITION = [
    Case(
        "suicide-recreating-first-position-positional",
        RECREATE,
        rules="tromp-taylor",
        moves=RECREATE_MOVES,
        error="superko",
    ),
    Case(
        "suicide-recreating-first-position-situational-allowed",
        RECREATE,
        rules=Rules("situational", True),
        moves=RECREATE_MOVES,
        expect=RECREATE,
        captures=(0, 2),
    ),
    Case(
        "suicide-recreating-first-position-situational-same-player",
        RECREATE,
        to_play=-1,
        rules=Rules("situational", True),
        moves=("pass", *RECREATE_MOVES),
        error="superko",  # the first position was seen with White to move
    ),
    Case(
        "suicide-reason-beats-superko",
        RECREATE,
        rules=Rules("positional", False),
        moves=RECREATE_MOVES,
        error="suicide",
    ),
]


@cases(*SINGLE)
def test_single_stone_suicide(impl, case):
    run_case(impl, case)


@cases(*MULTI)
def test_multi_stone_suicide(impl, case):
    run_case(impl, case)


@cases(*CAPTURE_FIRST)
def test_captures_come_before_suicide(impl, case):
    run_case(impl, case)


@cases(*REPETITION)
def test_suicide_and_repetition(impl, case):
    run_case(impl, case)
