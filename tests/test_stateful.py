"""A Hypothesis state machine driving compiled and reference boards in pairs."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
)
from pairs import ALL_RULES, assert_same, new_pair, play_both

from goboard.errors import IllegalMoveError


class PairMachine(RuleBasedStateMachine):
    """Each pair is (compiled board, reference board) that must always agree."""

    pairs = Bundle("pairs")

    def __init__(self) -> None:
        super().__init__()
        self.live: list[tuple] = []

    @rule(
        target=pairs,
        size=st.sampled_from([2, 3, 4, 5, 7]),
        rules=st.sampled_from(ALL_RULES),
        komi=st.sampled_from([0.0, 0.5, 7.5, -3.0]),
    )
    def new_board(self, size: int, rules, komi: float):
        pair = new_pair(size, rules, komi)
        self.live.append(pair)
        return pair

    @rule(pair=pairs, draw=st.integers(0, 2**31))
    def play_legal(self, pair, draw: int) -> None:
        fast, _ = pair
        legal = fast.legal_moves()
        if len(legal) > 1:
            play_both(*pair, int(legal[draw % (len(legal) - 1)]))

    @rule(pair=pairs, point=st.integers(-2, 50))
    def play_any(self, pair, point: int) -> None:
        play_both(*pair, point)

    @rule(pair=pairs)
    def play_pass(self, pair) -> None:
        play_both(*pair, pair[0].size ** 2)

    @rule(pair=pairs)
    def resign(self, pair) -> None:
        outcomes = []
        for board in pair:
            try:
                board.resign()
                outcomes.append(None)
            except IllegalMoveError as err:
                outcomes.append(err.reason)
        assert outcomes[0] == outcomes[1]

    @rule(target=pairs, pair=pairs)
    def copy(self, pair):
        twin = (pair[0].copy(), pair[1].copy())
        self.live.append(twin)
        return twin

    @rule(pair=consumes(pairs))
    def drop(self, pair) -> None:
        self.live = [p for p in self.live if p is not pair]

    @invariant()
    def pairs_agree(self) -> None:
        for fast, ref in self.live:
            assert_same(fast, ref)


PairMachine.TestCase.settings = settings(
    settings.get_profile(settings.get_current_profile_name()),
    stateful_step_count=60,
)
test_pair_machine = PairMachine.TestCase
