"""Ko, ko release and superko (positional, situational) as hand-written cases.

The long cycles here were checked with a separate brute-force rules script: each
move sequence was replayed under all three ko rules, and for the pass case also with
positions after passes left out of the history (then situational allows the move).
"""

from __future__ import annotations

import pytest
from rulecase import Case, cases, run_case

from goboard import BLACK, WHITE
from goboard.coords import from_gtp
from goboard.errors import IllegalMoveError
from goboard.rules import Rules
from goboard.text import parse

KO_RULES = ("simple", "positional", "situational")


def rules(ko: str, suicide: bool = True) -> Rules:
    return Rules(ko=ko, suicide=suicide)


# Black captures at C3, taking White's B3: a ko.
KO = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
"""
KO_TAKEN = """
    . . . . .
    . X O . .
    X . X O .
    . X O . .
    . . . . .
"""

SIMPLE_KO = [
    Case(
        "ko-capture-sets-ko-point",
        KO,
        moves=("C3",),
        expect=KO_TAKEN,
        captures=(1, 0),
        ko_point="B3",
        liberties=(("C3", 1),),
        illegal=(("B3", "ko"),),
        legal=("E1", "pass"),
    ),
    *[
        Case(
            f"ko-immediate-recapture-{ko}",
            KO,
            rules=rules(ko),
            moves=("C3", "B3"),
            error="ko",
            expect=KO_TAKEN,
            ko_point="B3",
        )
        for ko in KO_RULES
    ],
    Case(
        "ko-point-cleared-by-another-move",
        KO,
        moves=("C3", "E1"),
        ko_point=None,
        legal=("E5",),
    ),
    Case(
        "ko-point-cleared-by-pass",
        KO,
        moves=("C3", "pass"),
        expect=KO_TAKEN,
        ko_point=None,
        passes=1,
    ),
    *[
        Case(
            f"ko-released-after-exchange-{ko}",
            KO,
            rules=rules(ko),
            moves=("C3", "E1", "E5", "B3"),
            expect="""
            . . . . X
            . X O . .
            X O . O .
            . X O . .
            . . . . O
            """,
            captures=(1, 1),
            ko_point="C3",  # now Black may not retake at once
            illegal=(("C3", "ko"),),
        )
        for ko in KO_RULES
    ],
    Case(
        "ko-retake-after-two-passes-is-game-over",
        KO,
        moves=("C3", "pass", "pass"),
        is_over=True,
        illegal=(("B3", "game over"),),
    ),
    Case(
        "not-ko-when-capturing-stone-keeps-two-liberties",
        """
        . . . . .
        . X O . .
        X O . . .
        . X O . .
        . . . . .
        """,
        moves=("C3",),
        captures=(1, 0),
        ko_point=None,
        liberties=(("C3", 2),),
        illegal=(("B3", "suicide"),),
    ),
    Case(
        "not-ko-when-two-stones-are-captured",
        """
        . . . . .
        X X O . .
        O O . O .
        X X O . .
        . . . . .
        """,
        moves=("C3", "B3"),
        expect="""
        . . . . .
        X X O . .
        . O . O .
        X X O . .
        . . . . .
        """,
        captures=(2, 1),
        ko_point=None,  # White's B3 keeps liberties A3 and C3
        liberties=(("B3", 2),),
    ),
]

# Two kos: Black can take the top one (C5), White the bottom one (B1).
DOUBLE_KO = """
    X O . O .
    . X O . .
    . . . . .
    . X O . .
    X . X O .
"""
# B takes top, W takes bottom, B passes, W retakes top, B retakes bottom: that
# recreates the first arrangement, but with White (not Black) to move.
DOUBLE_KO_MOVES = ("C5", "B1", "pass", "B5", "C1")

# Both kos takeable by White. The first arrangement comes back after Black's last move
# with White to move, a situation that exists only because Black passed first.
DOUBLE_KO_X = """
    X . X O .
    . X O . .
    . . . . .
    . X O . .
    X . X O .
"""
DOUBLE_KO_X_MOVES = ("pass", "B5", "pass", "B1", "C5", "pass", "C1")

# Three kos on 9x9; six captures in turn (never an immediate retake) bring back the
# first arrangement with the same player to move.
TRIPLE_KO = """
    X O . O . X . X O
    . X O . . . X O .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    X O . O . . . . .
"""
TRIPLE_KO_MOVES = ("C9", "G9", "C1", "B9", "H9", "B1")

SUPERKO = [
    Case(
        "double-ko-positional-forbids-repeat-with-other-player-to-move",
        DOUBLE_KO,
        rules=rules("positional"),
        moves=DOUBLE_KO_MOVES,
        error="superko",
        ko_point="C5",
        captures=(1, 2),
    ),
    *[
        Case(
            f"double-ko-{ko}-allows-repeat-with-other-player-to-move",
            DOUBLE_KO,
            rules=rules(ko),
            moves=DOUBLE_KO_MOVES,
            expect=DOUBLE_KO,
            captures=(2, 2),
            ko_point="B1",
            illegal=(("B1", "ko"),),
        )
        for ko in ("situational", "simple")
    ],
    *[
        Case(
            f"situation-recorded-after-pass-{ko}",
            DOUBLE_KO_X,
            rules=rules(ko),
            moves=DOUBLE_KO_X_MOVES,
            error="superko",
            captures=(1, 2),
            ko_point=None,  # White's pass cleared it
        )
        for ko in ("positional", "situational")
    ],
    Case(
        "situation-recorded-after-pass-simple-allows",
        DOUBLE_KO_X,
        rules=rules("simple"),
        moves=DOUBLE_KO_X_MOVES,
        expect=DOUBLE_KO_X,
        captures=(2, 2),
        ko_point="B1",
    ),
    *[
        Case(
            f"triple-ko-cycle-{ko}-forbids",
            TRIPLE_KO,
            rules=rules(ko),
            moves=TRIPLE_KO_MOVES,
            error="superko",
            captures=(3, 2),
            ko_point="G9",
        )
        for ko in ("positional", "situational")
    ],
    Case(
        "triple-ko-cycle-simple-allows",
        TRIPLE_KO,
        rules=rules("simple"),
        moves=TRIPLE_KO_MOVES,
        expect=TRIPLE_KO,
        captures=(3, 3),
        ko_point="C1",
        illegal=(("C1", "ko"),),
        legal=("C9", "E5"),
    ),
    Case(
        "triple-ko-cycle-chinese-preset-forbids",
        TRIPLE_KO,
        rules="chinese",
        moves=TRIPLE_KO_MOVES,
        error="superko",
    ),
    Case(
        "triple-ko-cycle-tromp-taylor-preset-forbids",
        TRIPLE_KO,
        rules="tromp-taylor",
        moves=TRIPLE_KO_MOVES,
        error="superko",
    ),
]


@cases(*SIMPLE_KO)
def test_simple_ko(impl, case):
    run_case(impl, case)


@cases(*SUPERKO)
def test_superko(impl, case):
    run_case(impl, case)


@cases(SUPERKO[0])
def test_superko_refusal_is_repeatable_and_the_game_goes_on(impl, case):
    """A refused superko move stays refused; the game then continues normally."""
    board = run_case(impl, case)
    n = board.size
    c1, c3 = 4 * n + 2, 2 * n + 2
    with pytest.raises(ValueError, match="superko"):
        board.play(c1)
    board.play(c3)  # Black plays elsewhere instead
    board.play(n * n)  # White passes
    board.play(c1)  # the bottom ko capture is new now: the C3 stone is on the board
    assert board.captures == (2, 2)
    assert board.ko_point == 4 * n + 1  # B1
    assert board.move_number == len(case.moves) + 2


# ---- the turn handed over without a move (Board.set_to_play) ----------------------


@pytest.mark.parametrize("ko", KO_RULES)
def test_set_to_play_lifts_the_ko_ban_but_not_superko(impl, ko):
    """White may not retake the ko at once; with the turn handed to Black and back,
    the ban is gone, so simple ko lets White retake, while the superkos still refuse
    the position before Black's capture, which has come round again."""
    board = impl.from_stones(parse(KO), BLACK, rules=rules(ko))
    board.play(from_gtp("C3", 5))
    assert board.ko_point == from_gtp("B3", 5)
    board.set_to_play(BLACK)
    assert board.ko_point is None and board.to_play == BLACK
    board.set_to_play(WHITE)
    assert board.ko_point is None and board.passes == 0
    retake = from_gtp("B3", 5)
    if ko == "simple":
        board.play(retake)
        assert board.stones()[2, 2] == 0  # Black's C3 captured again
    else:
        with pytest.raises(IllegalMoveError) as info:
            board.play(retake)
        assert info.value.reason == "superko"
