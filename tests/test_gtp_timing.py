"""Time management arithmetic: budgets from clocks, byo-yomi, never overrunning."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alphago.gtp.timing import LAG, MIN_BUDGET, SAFETY, TimeManager

B, W = 1, -1


def expect(raw: float) -> float:
    return max(MIN_BUDGET, raw * (1 - SAFETY) - LAG)


def test_no_settings_means_no_budget() -> None:
    t = TimeManager()
    assert t.budget(B, 19, 0) is None
    t.set_gtp(0, 5, 0)  # byo-yomi time with no stones: no limit (GTP)
    assert t.budget(B, 19, 0) is None


def test_absolute_spreads_main_time_over_expected_moves() -> None:
    t = TimeManager()
    t.set_absolute(300)
    # 9x9: 81 // 3 = 27 moves expected at move 0, 27 - 20 = 7 -> at least 10 at move 40.
    assert t.budget(B, 9, 0) == pytest.approx(expect(300 / 27))
    assert t.budget(B, 9, 40) == pytest.approx(expect(300 / 10))
    t.time_left(B, 20, 0)
    assert t.budget(B, 9, 0) == pytest.approx(expect(20 / 27))
    assert t.budget(W, 9, 0) == pytest.approx(expect(300 / 27))  # White's clock


def test_canadian_byo_yomi_divides_the_period_by_stones_left() -> None:
    t = TimeManager()
    t.set_canadian(0, 60, 10)
    assert t.budget(B, 19, 0) == pytest.approx(expect(6.0))
    t.time_left(B, 30, 5)
    assert t.budget(B, 19, 0) == pytest.approx(expect(6.0))
    t.time_left(B, 4, 1)
    assert t.budget(B, 19, 0) == pytest.approx(expect(4.0))


def test_japanese_byo_yomi_uses_the_period() -> None:
    t = TimeManager()
    t.set_japanese(0, 10, 3)
    assert t.budget(B, 19, 0) == pytest.approx(expect(10.0))
    t.time_left(B, 7, 2)  # 7 s left in the current period, 2 periods
    assert t.budget(B, 19, 0) == pytest.approx(expect(7.0))


def test_main_time_with_byo_yomi_adds_one_moves_share() -> None:
    t = TimeManager()
    t.set_canadian(100, 30, 10)
    assert t.budget(B, 19, 0) == pytest.approx(expect(100 / (361 // 3) + 3.0))


def test_tiny_clock_gives_the_minimum() -> None:
    t = TimeManager()
    t.set_absolute(0.1)
    assert t.budget(B, 19, 0) == MIN_BUDGET


def test_spent_moves_the_clock_into_byo_yomi() -> None:
    t = TimeManager()
    t.set_canadian(10, 30, 3)
    t.spent(B, 4)
    assert t.clock(B).main == pytest.approx(6)
    t.spent(B, 8)  # 6 s of main, then 2 s into the period
    c = t.clock(B)
    assert c.in_byo and c.main == 0
    assert c.byo_left == pytest.approx(28) and c.stones == 2
    t.spent(B, 1)
    t.spent(B, 1)  # period done: a fresh one
    assert (c.byo_left, c.stones) == (30, 3)


def test_spent_japanese_overrun_loses_a_period() -> None:
    t = TimeManager()
    t.set_japanese(0, 5, 3)
    t.spent(B, 1)
    c = t.clock(B)
    assert c.in_byo and c.stones == 3
    t.spent(B, 6)
    assert c.stones == 2 and c.byo_left == 5


@given(
    main=st.floats(0, 10_000),
    byo=st.floats(0, 600),
    stones=st.integers(0, 50),
    left=st.floats(0, 10_000),
    left_stones=st.integers(0, 50),
    size=st.sampled_from([5, 9, 13, 19]),
    move=st.integers(0, 1000),
    kind=st.sampled_from(["gtp", "japanese"]),
)
def test_budget_never_exceeds_the_time_that_is_left(
    main: float,
    byo: float,
    stones: int,
    left: float,
    left_stones: int,
    size: int,
    move: int,
    kind: str,
) -> None:
    t = TimeManager()
    if kind == "gtp":
        t.set_gtp(main, byo, stones)
    else:
        t.set_japanese(main, byo, max(stones, 1))
    t.time_left(B, left, left_stones)
    budget = t.budget(B, size, move)
    if t.system == "none":
        assert budget is None
        return
    assert budget is not None and budget >= MIN_BUDGET
    if left_stones == 0:
        share = 0.0
        if t.system == "canadian":
            share = byo / max(stones, 1)
        elif t.system == "japanese":
            share = byo
        available = left + share if left > 0 or share == 0 else share
    elif t.system == "canadian":
        available = left
    elif t.system == "japanese":
        available = left if left > 0 else byo
    else:
        available = left
    assert budget <= max(available * (1 - SAFETY), MIN_BUDGET) + 1e-9
