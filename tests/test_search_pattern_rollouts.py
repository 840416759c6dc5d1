"""search.PatternRollouts: the pattern rollout policy behind search's RolloutPolicy."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import goboard
from goboard import pattern_features as pf
from goboard.coords import from_gtp
from goboard.text import parse_board
from search import (
    AlphaGo2016,
    AlphaGo2016Config,
    ConcurrentRollouts,
    PatternRollouts,
    Positions,
    RolloutPolicy,
    UniformEvaluator,
)

# White to move: C3 takes D3 and wins (a position of test_search_play.py, where 300
# random playouts rate C3 0.72 and the runner-up -0.13).
CAPTURE = """
    O X . . .
    . . X O X
    X X . X O
    . O O O .
    X X . . O
"""


def test_values_are_mean_outcomes_from_the_side_to_move() -> None:
    policy = goboard.PatternPolicy()
    rollouts = PatternRollouts(policy, playouts=8, seed=3)
    assert isinstance(rollouts, RolloutPolicy)
    board = goboard.Board(5, komi=0.5)
    board.play(12)  # black tengen; white to move
    pool = goboard.Pool([board], 4)
    values = rollouts.values(Positions(pool, [0]))
    assert values.dtype == np.float32 and values.shape == (1,)
    # The same rollouts by hand: komi and the side to move applied.
    seed = int(np.random.default_rng(3).integers(0, 2**63))
    scores = policy.pool_playouts(pool, [0], 8, seed)
    assert values[0] == pytest.approx(-np.sign(scores).mean())
    assert rollouts.values(Positions(pool, [])).shape == (0,)


def test_a_finished_position_scores_its_result() -> None:
    stones = np.zeros((5, 5), dtype=np.int8)
    stones[:, 1] = 1  # black owns columns 0-1, white 3-4, column 2 is neutral
    stones[:, 3] = -1
    board = goboard.Board.from_stones(stones, to_play=1, komi=0.5)
    board.play(25)
    board.play(25)
    pool = goboard.Pool([board], 2)
    values = PatternRollouts(goboard.PatternPolicy(), 4, seed=0).values(
        Positions(pool, [0])
    )
    assert values[0] == -1.0  # black to move after two passes, and komi beat black


def test_alphago2016_with_pattern_rollouts_finds_the_capture() -> None:
    w = np.zeros(pf.NUM_FEATURES, dtype=np.float32)
    w[pf.CAPTURE] = 3.0
    w[pf.SAVE_ATARI] = 2.0
    policy = goboard.PatternPolicy(w)
    board = parse_board(CAPTURE, to_play=goboard.WHITE, komi=0.5)
    search = AlphaGo2016(
        UniformEvaluator(),
        board,
        AlphaGo2016Config(num_simulations=200, mix_lambda=1.0),
        rng=1,
        rollout=PatternRollouts(policy, playouts=2, seed=1),
    )
    result = search.search()
    assert result.move == from_gtp("C3", 5)


def test_threads_give_the_values_of_one_thread() -> None:
    policy = goboard.PatternPolicy()
    boards = []
    for seed in range(7):
        board = goboard.Board(7, komi=0.5)
        rng = np.random.default_rng(seed)
        for _ in range(12):
            legal = np.flatnonzero(board.legal_mask()[:-1])
            board.play(int(rng.choice(legal)))
        boards.append(board)
    pool = goboard.Pool(boards, 2)
    positions = Positions(pool, np.arange(0, 14, 2))
    one = PatternRollouts(policy, playouts=4, seed=5)
    expected = [one.values(positions) for _ in range(3)]
    # Parts of 3/4, 2/2/3, 1 each, and more threads than slots.
    for threads in (2, 3, 7, 16):
        many = PatternRollouts(policy, playouts=4, seed=5, threads=threads)
        for want in expected:  # call after call: the seed sequence is the same too
            np.testing.assert_array_equal(many.values(positions), want)
    # Over many calls the values are not all equal: the rollouts are not constant.
    assert len({v.tobytes() for v in expected}) > 1


def test_threads_play_the_parts_at_once() -> None:
    # Equal values cannot show that a batch was split: record the calls.
    class Recorder:
        def __init__(self, policy: goboard.PatternPolicy) -> None:
            self.policy = policy
            self.calls: list[tuple[int, int, int]] = []

        def pool_playouts(
            self, pool: goboard.Pool, slots: Any, n: int, seed: int, first: int = 0
        ) -> Any:
            self.calls.append((threading.get_ident(), first, len(slots)))
            return self.policy.pool_playouts(pool, slots, n, seed, first)

    boards = [goboard.Board(5, komi=0.5) for _ in range(7)]
    positions = Positions(goboard.Pool(boards, 1), np.arange(7))
    rollouts = PatternRollouts(goboard.PatternPolicy(), playouts=2, seed=1, threads=3)
    recorder = Recorder(rollouts.policy)
    rollouts.policy = recorder  # type: ignore[assignment]
    rollouts.values(positions)
    parts = sorted((first, n) for _, first, n in recorder.calls)
    assert parts == [(0, 2), (2, 2), (4, 3)]
    # Worker threads play every part, so the caller is free for the network.
    assert threading.get_ident() not in {ident for ident, _, _ in recorder.calls}


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        PatternRollouts(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        PatternRollouts(goboard.PatternPolicy(), playouts=0)
    with pytest.raises(ValueError, match="threads"):
        PatternRollouts(goboard.PatternPolicy(), threads=0)
    with pytest.raises(TypeError, match="threads"):
        PatternRollouts(goboard.PatternPolicy(), threads=2.0)  # type: ignore[arg-type]


def test_the_search_starts_rollouts_before_the_network_and_always_waits() -> None:
    events: list[str] = []

    class Later:
        def values(self, positions: Positions) -> Any:
            raise AssertionError("a ConcurrentRollouts is asked through values_later")

        def values_later(self, positions: Positions) -> Any:
            events.append("start")

            def done() -> Any:
                events.append("wait")
                return np.zeros(len(positions), dtype=np.float32)

            return done

    class Network(UniformEvaluator):
        fail = False

        def evaluate(self, positions: Positions) -> Any:
            events.append("network")
            if self.fail:
                raise RuntimeError("the network failed")
            return super().evaluate(positions)

    assert isinstance(Later(), ConcurrentRollouts)
    network = Network()
    config = AlphaGo2016Config(num_simulations=8, mix_lambda=0.5)
    board = goboard.Board(5, komi=0.5)
    AlphaGo2016(network, board, config, rng=1, rollout=Later()).search()
    assert len(events) >= 6 and events == ["start", "network", "wait"] * (
        len(events) // 3
    )
    # A failing network still waits for the rollouts it started.
    events.clear()
    network.fail = True
    with pytest.raises(RuntimeError, match="the network failed"):
        AlphaGo2016(network, board, config, rng=1, rollout=Later()).search()
    assert events == ["start", "network", "wait"]


class GatedPolicy:
    """A PatternPolicy whose rollouts start playing only once ``gate`` is set."""

    def __init__(self, policy: goboard.PatternPolicy, gate: threading.Event) -> None:
        self.policy = policy
        self.gate = gate

    def pool_playouts(
        self, pool: goboard.Pool, slots: Any, n: int, seed: int, first: int = 0
    ) -> Any:
        assert self.gate.wait(timeout=10), "the caller never let the parts finish"
        return self.policy.pool_playouts(pool, slots, n, seed, first)


def test_values_later_returns_while_the_parts_still_play() -> None:
    gate = threading.Event()
    boards = [goboard.Board(5, komi=0.5) for _ in range(4)]
    positions = Positions(goboard.Pool(boards, 1), np.arange(4))
    policy = goboard.PatternPolicy()
    want = PatternRollouts(policy, playouts=2, seed=9).values(positions)
    rollouts = PatternRollouts(policy, playouts=2, seed=9, threads=2)
    rollouts.policy = GatedPolicy(policy, gate)  # type: ignore[assignment]
    later = rollouts.values_later(positions)  # returns with both parts blocked
    gate.set()
    np.testing.assert_array_equal(later(), want)


def test_an_interrupt_while_waiting_still_waits_for_every_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ctrl-C inside the wait: the interrupt goes on only once no part reads the pool.
    from search import pattern_rollouts

    gate = threading.Event()
    real_wait = pattern_rollouts.wait
    calls: list[list[bool]] = []
    seen: list[Any] = []

    def interrupted_once(parts: Any) -> Any:
        seen[:] = parts
        calls.append([f.done() for f in parts])
        if len(calls) == 1:
            gate.set()  # the parts may finish now, after the interrupt
            raise KeyboardInterrupt
        return real_wait(parts)

    monkeypatch.setattr(pattern_rollouts, "wait", interrupted_once)
    boards = [goboard.Board(5, komi=0.5) for _ in range(4)]
    positions = Positions(goboard.Pool(boards, 1), np.arange(4))
    rollouts = PatternRollouts(goboard.PatternPolicy(), playouts=2, seed=9, threads=2)
    rollouts.policy = GatedPolicy(rollouts.policy, gate)  # type: ignore[assignment]
    later = rollouts.values_later(positions)
    with pytest.raises(KeyboardInterrupt):
        later()
    assert calls[0] == [False, False]  # both parts were still playing at the interrupt
    assert len(calls) == 2  # waited again before the interrupt went on
    assert len(seen) == 2 and all(f.done() for f in seen)
