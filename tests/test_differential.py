"""The compiled Board against the pure-Python reference, move by move."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pairs import ALL_RULES, assert_same, new_pair, pick_move, play_both

SIZES = [2, 3, 4, 5, 7, 9]


@given(
    size=st.sampled_from(SIZES),
    rules=st.sampled_from(ALL_RULES),
    draws=st.lists(st.integers(0, 2**31), min_size=1, max_size=120),
)
def test_random_sequences_agree(size: int, rules, draws: list[int]) -> None:
    fast, ref = new_pair(size, rules)
    for draw in draws:
        if fast.is_over:
            break
        play_both(fast, ref, pick_move(fast.legal_mask().nonzero()[0], size, draw))
        assert_same(fast, ref)


@given(
    size=st.sampled_from([3, 4, 5, 7]),
    rules=st.sampled_from(ALL_RULES),
    draws=st.lists(st.integers(0, 2**31), min_size=1, max_size=120),
)
def test_turns_handed_over_agree(size: int, rules, draws: list[int]) -> None:
    """Moves mixed with ``set_to_play`` (a GTP genmove out of turn, an edited
    position): both boards agree on the state and on what the superko record then
    refuses."""
    fast, ref = new_pair(size, rules)
    for draw in draws:
        if fast.is_over:
            break
        if draw % 5 == 0:
            colour = 1 if draw % 2 else -1
            fast.set_to_play(colour)
            ref.set_to_play(colour)
        else:  # passes often, so that handing over meets a pass to forget
            legal = fast.legal_mask().nonzero()[0]
            play_both(fast, ref, pick_move(legal, size, draw, pass_weight=5))
        assert_same(fast, ref)


@given(
    size=st.sampled_from([3, 4, 5]),
    rules=st.sampled_from(ALL_RULES),
    stones=st.data(),
)
def test_from_stones_agrees(size: int, rules, stones: st.DataObject) -> None:
    """Setup positions: both accept or refuse the same arrays and agree afterwards."""
    import goboard
    from goboard import reference

    cells = stones.draw(
        st.lists(
            st.sampled_from([-1, 0, 0, 1]), min_size=size * size, max_size=size * size
        )
    )
    array = np.array(cells, dtype=np.int8).reshape(size, size)
    to_play = stones.draw(st.sampled_from([1, -1]))
    outcomes = []
    for cls in (goboard.Board, reference.Board):
        try:
            outcomes.append(cls.from_stones(array, to_play=to_play, rules=rules))
        except ValueError:
            outcomes.append(None)
    fast, ref = outcomes
    assert (fast is None) == (ref is None)
    if fast is not None:
        assert_same(fast, ref)
        for draw in stones.draw(st.lists(st.integers(0, 2**31), max_size=30)):
            if fast.is_over:
                break
            play_both(fast, ref, pick_move(fast.legal_mask().nonzero()[0], size, draw))
            assert_same(fast, ref)


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@pytest.mark.parametrize("size", [4, 5, 9])
def test_seeded_long_games_agree(size: int, rules, rng) -> None:
    """Whole games, with captures, ko fights and refused moves, stay in lock step."""
    for _ in range(3):
        fast, ref = new_pair(size, rules)
        while not fast.is_over and fast.move_number < 4 * size * size:
            legal = fast.legal_mask().nonzero()[0]
            play_both(fast, ref, pick_move(legal, size, int(rng.integers(2**31))))
            assert_same(fast, ref)


def test_copies_stay_independent(rng) -> None:
    fast, ref = new_pair(5, ALL_RULES[0])
    for _ in range(12):
        play_both(fast, ref, int(rng.choice(fast.legal_moves()[:-1])))
    twin = fast.copy()
    assert twin == fast
    fast.play(int(fast.legal_moves()[0]))
    assert twin != fast
    twin._check_invariants()
    ref_twin = ref.copy()
    for draw in rng.integers(2**31, size=20):
        if twin.is_over:
            break
        legal = twin.legal_mask().nonzero()[0]
        play_both(twin, ref_twin, pick_move(legal, 5, int(draw)))
        assert_same(twin, ref_twin)


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_every_refusal_reason_agrees_on_tiny_boards(rules, rng) -> None:
    """On 2x2..4x4 boards repetitions are frequent: try every point at every move.

    Counting the reasons proves the test reached superko cycles, not just open play.
    """
    reasons: dict[str | None, int] = {}
    for size in (2, 3, 4):
        for _ in range(8):
            fast, ref = new_pair(size, rules)
            while not fast.is_over and fast.move_number < 4 * size * size:
                for point in range(size * size):
                    reason = play_both(fast.copy(), ref.copy(), point)
                    reasons[reason] = reasons.get(reason, 0) + 1
                legal = fast.legal_mask().nonzero()[0]
                draw = int(rng.integers(2**31))
                play_both(fast, ref, pick_move(legal, size, draw, 100))
                assert_same(fast, ref)
    expected = {"occupied", "suicide", "ko"}
    if rules.ko != "simple":
        expected.add("superko")
    assert expected <= set(reasons), reasons
    assert "superko" not in reasons or rules.ko != "simple"
