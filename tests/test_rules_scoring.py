"""Tromp-Taylor area scoring: score(), result() and ownership() on hand-written boards.

Area = stones + empty regions that reach only that colour; score = Black's area -
White's area - komi. In the colour-swapped runs komi is negated, so score and result
swap exactly.
"""

from __future__ import annotations

import pytest
from rulecase import Case, cases, run_case

from goboard.text import parse

EMPTY5 = """
    . . . . .
    . . . . .
    . . . . .
    . . . . .
    . . . . .
"""
# Black 15 (stones and the two left columns), White 10.
SPLIT = """
    . . X O .
    . . X O .
    . . X O .
    . . X O .
    . . X O .
"""
SPLIT_OWNER = """
    X X X O O
    X X X O O
    X X X O O
    X X X O O
    X X X O O
"""
# The middle column touches both colours: dame. Black 10, White 10.
DAME = """
    . X . O .
    . X . O .
    . X . O .
    . X . O .
    . X . O .
"""
# Black's A5-B3 string and White's C5-A2 string share B5 and B4 and have no other
# liberties: seki. B5-B4 is neutral. Black 17, White 6, neutral 2.
SEKI = """
    X . O X .
    X . O X .
    X X O X .
    O O O X .
    X X X X .
"""
SEKI_OWNER = """
    X . O X X
    X . O X X
    X X O X X
    O O O X X
    X X X X X
"""
# A White stone left inside Black's side is not removed: the region it touches is
# neutral. Black 5 stones + 10 on the right, White 1.
INVADER = """
    . . X . .
    . O X . .
    . . X . .
    . . X . .
    . . X . .
"""

SCORES = [
    Case("empty-board", EMPTY5, komi=7.5, score=-7.5, result="W+7.5", ownership=EMPTY5),
    Case("empty-board-no-komi", EMPTY5, komi=0, score=0, result="0", ownership=EMPTY5),
    *[
        Case(
            f"split-komi-{komi:g}",
            SPLIT,
            komi=komi,
            score=5 - komi,
            result=result,
            ownership=SPLIT_OWNER,
        )
        for komi, result in [
            (0, "B+5"),
            (0.5, "B+4.5"),
            (1.5, "B+3.5"),
            (5, "0"),
            (5.5, "W+0.5"),
            (7.5, "W+2.5"),
            (-2, "B+7"),
        ]
    ],
    Case(
        "dame-is-neutral",
        DAME,
        komi=0,
        score=0,
        result="0",
        ownership="""
        X X . O O
        X X . O O
        X X . O O
        X X . O O
        X X . O O
        """,
    ),
    Case("dame-with-komi", DAME, komi=7.5, score=-7.5, result="W+7.5"),
    Case(
        "seki-shared-liberties-neutral",
        SEKI,
        komi=7.5,
        score=3.5,
        result="B+3.5",
        ownership=SEKI_OWNER,
    ),
    Case(
        "invading-stone-makes-region-neutral",
        INVADER,
        komi=7.5,
        score=6.5,
        result="B+6.5",
        ownership="""
        . . X X X
        . O X X X
        . . X X X
        . . X X X
        . . X X X
        """,
    ),
    Case(
        "size2-one-stone-owns-the-board",
        """
        . X
        . .
        """,
        komi=0.5,
        score=3.5,
        result="B+3.5",
        ownership="""
        X X
        X X
        """,
    ),
    Case(
        "size9-territories-and-dame",
        """
        . . . X O . . . .
        . . . X O . . . .
        . . X X O . . . .
        X X X . O O O O O
        . . . X . . . . .
        X X X X X X X X X
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        komi=6.5,
        # Black 17 stones + 8 + 3 + 27 empty, White 8 stones + 12 empty, 6 neutral.
        score=55 - 20 - 6.5,
        result="B+28.5",
        ownership="""
        X X X X O O O O O
        X X X X O O O O O
        X X X X O O O O O
        X X X . O O O O O
        X X X X . . . . .
        X X X X X X X X X
        X X X X X X X X X
        X X X X X X X X X
        X X X X X X X X X
        """,
    ),
]

EMPTY19 = "\n".join([" ".join(["."] * 19)] * 19)
SCORES_19 = [
    Case("size19-empty", EMPTY19, komi=7.5, score=-7.5, result="W+7.5"),
    Case(
        "size19-one-black-stone",
        EMPTY19,
        komi=7.5,
        moves=("K10",),
        score=353.5,
        result="B+353.5",
    ),
    Case(
        "size19-one-stone-each",
        EMPTY19,
        komi=7.5,
        moves=("K10", "D4"),
        score=-7.5,
        result="W+7.5",
    ),
]


@cases(*SCORES, *SCORES_19)
def test_area_scoring(impl, case):
    run_case(impl, case)


@cases(SCORES[2 + 2])  # split board, komi 1.5
def test_score_komi_argument_overrides_without_changing_komi(impl, case):
    board = run_case(impl, case)
    black_minus_white = case.score + case.komi  # +5 or -5
    assert board.score(komi=0) == pytest.approx(black_minus_white)
    assert board.score(0.5) == pytest.approx(black_minus_white - 0.5)
    assert board.komi == case.komi  # unchanged
    assert board.score() == pytest.approx(case.score)


@cases(SCORES[2])  # split board, komi 0
def test_komi_setter_changes_score_and_result(impl, case):
    board = run_case(impl, case)
    sign = -1 if case.swapped else 1
    board.komi = sign * 5.5
    assert board.komi == sign * 5.5
    assert board.score() == pytest.approx(sign * -0.5)
    assert board.result() == ("B+0.5" if case.swapped else "W+0.5")
    board.komi = sign * 5
    assert board.result() == "0"
    with pytest.raises(ValueError):
        board.komi = float("nan")
    assert board.komi == sign * 5


@cases(SCORES[-1])
def test_ownership_agrees_with_score(impl, case):
    board = run_case(impl, case)
    owner = board.ownership()
    area = int((owner == 1).sum()) - int((owner == -1).sum())
    assert board.score() == pytest.approx(area - case.komi)
    assert isinstance(board.score(), float)
    assert owner.shape == (board.size, board.size)
    # Every stone owns its own point.
    stones = parse(case.board)
    assert (owner[stones != 0] == stones[stones != 0]).all()


@cases(SCORES[0])
def test_scoring_does_not_change_the_board(impl, case):
    board = run_case(impl, case)
    before = board.copy()
    board.score()
    board.ownership()
    board.result()
    assert board == before
    assert board.move_number == 0 and board.to_play == case.to_play
