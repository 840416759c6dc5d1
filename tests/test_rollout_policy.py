"""The pattern rollout policy (goboard.PatternPolicy) against its definitions."""

from __future__ import annotations

import numpy as np
import pattern_ref as ref
import pytest
from games import random_game
from hypothesis import given
from hypothesis import strategies as st

import goboard
from goboard import pattern_features as pf

ZERO = goboard.PatternPolicy()
SIMPLE_NO_SUICIDE = goboard.Rules(ko="simple", suicide=False)


def random_weights(seed: int, scale: float = 1.5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, scale, pf.NUM_FEATURES).astype(np.float32)


def position(seed: int, size: int, length: int) -> goboard.Board:
    board, _, _ = random_game(size, length, np.random.default_rng(seed))
    return board


def feature_set(
    policy: goboard.PatternPolicy, board: goboard.Board
) -> set[tuple[int, int]]:
    points, index = policy.features(board)
    assert points.dtype == np.int32 and index.dtype == np.int32
    assert (np.diff(points) >= 0).all()
    return set(zip(points.tolist(), index.tolist(), strict=True))


def candidates(board: goboard.Board) -> set[int]:
    points, _ = ZERO.features(board)
    return set(points.tolist())


def test_layout_matches_the_c_core() -> None:
    c = goboard._board._pattern_layout()
    assert c["capture"] == pf.CAPTURE and c["save_atari"] == pf.SAVE_ATARI
    assert c["self_atari"] == pf.SELF_ATARI and c["near_previous"] == pf.NEAR_PREVIOUS
    assert c["pat3"] == pf.PAT3 and c["pat3_classes"] == pf.PAT3_CLASSES
    assert c["response"] == pf.RESPONSE
    assert c["response_buckets"] == pf.RESPONSE_BUCKETS
    assert c["count"] == pf.NUM_FEATURES
    # The class count is the number of orbits the oracle finds independently.
    assert int(ref.pat3_classes().max()) + 1 == pf.PAT3_CLASSES


@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.sampled_from([2, 3, 5, 7, 9]),
    length=st.integers(0, 150),
)
def test_features_match_the_slow_definition(seed: int, size: int, length: int) -> None:
    board = position(seed, size, length)
    assert feature_set(ZERO, board) == ref.features(board)


def test_features_of_a_known_position() -> None:
    # White's D-stone at (1, 1) is in atari with its last liberty at (1, 2); black's
    # last move was (2, 1).
    stones = np.zeros((5, 5), dtype=np.int8)
    stones[0, 1] = stones[1, 0] = stones[2, 1] = 1
    stones[1, 1] = -1
    board = goboard.Board.from_stones(stones, to_play=-1)
    found = feature_set(ZERO, board)
    # White extending to (1, 2) saves the stone (3 liberties after).
    assert (7, pf.SAVE_ATARI) in found
    assert (7, pf.SELF_ATARI) not in found
    board.play(7)  # white saves; black to move
    board.play(13)  # black (2, 3); white to move
    found = feature_set(ZERO, board)
    # The white string has 2 liberties now, (0, 2) and (1, 3): no save, no capture.
    assert not any(f in (pf.CAPTURE, pf.SAVE_ATARI) for _, f in found)
    assert (8, pf.NEAR_PREVIOUS) in found  # (1, 3) touches black's (2, 3)
    assert (12, pf.NEAR_PREVIOUS) in found  # (2, 2) too
    assert (3, pf.NEAR_PREVIOUS) not in found  # (0, 3) is two rows up: diamond only
    assert any(p == 3 and f >= pf.RESPONSE for p, f in found)


@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.sampled_from([5, 9, 13, 19]),
    length=st.integers(0, 120),
)
def test_incremental_gammas_equal_a_recomputation(
    seed: int, size: int, length: int
) -> None:
    board = position(seed, size, length)
    policy = goboard.PatternPolicy(random_weights(seed))
    # Checked after every move of a whole rollout.
    moves = policy._check_incremental(board, seed)
    assert moves >= 0


def test_incremental_on_long_19x19_games() -> None:
    policy = goboard.PatternPolicy(random_weights(1, scale=3.0))
    board = goboard.Board(19)
    for seed in range(4):
        assert policy._check_incremental(board, seed) > 200


def replay_checked(board: goboard.Board, moves: np.ndarray) -> goboard.Board:
    """Replay a rollout's moves from ``board`` (no ko point, by the caller) with the
    rollout's rules (simple ko, no suicide), checking each is a candidate: legal and
    not an own true eye, and that pass comes only when there is none."""
    assert board.ko_point is None
    game = goboard.Board.from_stones(
        board.stones(), board.to_play, board.komi, SIMPLE_NO_SUICIDE
    )
    n = board.size
    for move in moves.tolist():
        if move == n * n:
            assert not candidates(game)
        else:
            assert game.is_legal(move)
            assert not game.is_true_eye(move, game.to_play)
        game.play(move)
    return game


@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([5, 9, 19]))
def test_rollout_moves_are_legal_and_sensible(seed: int, size: int) -> None:
    policy = goboard.PatternPolicy(random_weights(seed))
    board = goboard.Board(size)
    moves = policy.playout_moves(board, seed)
    final = replay_checked(board, moves)
    # The rollout ran to the end (two passes) or to its move limit.
    assert final.is_over or len(moves) == 3 * size * size
    # Its score is the one playouts() reports for stream 0 of the seed.
    assert policy.playout(board, seed) == final.score()


def test_rollouts_are_reproducible_per_seed() -> None:
    policy = goboard.PatternPolicy(random_weights(3))
    board = position(3, 9, 20)
    a = policy.playouts(board, 16, 99)
    b = policy.playouts(board, 16, 99)
    c = policy.playouts(board, 16, 100)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])
    # Stream i does not depend on how many rollouts the call asked for.
    np.testing.assert_array_equal(policy.playouts(board, 4, 99)[0], a[0][:4])
    np.testing.assert_array_equal(
        policy.playout_moves(board, 7), policy.playout_moves(board, 7)
    )


def test_batched_and_pool_rollouts_agree() -> None:
    policy = goboard.PatternPolicy(random_weights(4))
    boards = [position(s, 7, 10 + s) for s in range(3)]
    batch = policy.playouts_batch(boards, 5, 11)
    assert batch.shape == (3, 5)
    pool = goboard.Pool(boards, 4)
    from_pool = policy.pool_playouts(pool, [0, 4, 8], 5, 11)
    np.testing.assert_array_equal(batch, from_pool)
    assert policy.pool_playouts(pool, [4], 0, 1).shape == (1, 0)


def test_pool_rollouts_split_with_first_score_as_one_call() -> None:
    # How search.PatternRollouts spreads a batch over threads: part [a, b) with first=a.
    policy = goboard.PatternPolicy(random_weights(5))
    boards = [position(s, 9, 20 + s) for s in range(4)]
    pool = goboard.Pool(boards, 3)
    slots = [0, 3, 6, 9]
    whole = policy.pool_playouts(pool, slots, 6, 21)
    part = policy.pool_playouts(pool, [6, 9], 6, 21, 2)
    np.testing.assert_array_equal(part, whole[2:])
    part = policy.pool_playouts(pool, [3], 6, 21, first=1)
    np.testing.assert_array_equal(part, whole[1:2])
    # Another offset plays other streams: the offset is not ignored.
    assert not np.array_equal(policy.pool_playouts(pool, [6, 9], 6, 21, 0), whole[2:])
    with pytest.raises(ValueError, match="first"):
        policy.pool_playouts(pool, slots, 6, 21, -1)
    with pytest.raises(TypeError, match="first"):
        policy.pool_playouts(pool, slots, 6, 21, 1.5)  # type: ignore[arg-type]


def test_zero_weights_are_uniform_over_candidates() -> None:
    for seed in range(10):
        board = position(seed, 9, 10 * seed)
        probs = ZERO.probabilities(board)
        assert probs.dtype == np.float32 and probs.shape == (82,)
        cand = sorted(candidates(board) & set(np.flatnonzero(board.legal_mask())))
        if cand:
            np.testing.assert_allclose(probs[cand], 1.0 / len(cand), rtol=1e-5)
            assert probs.sum() == pytest.approx(1.0, abs=1e-5)
            assert np.count_nonzero(probs) == len(cand)
        else:
            assert probs[-1] == 1.0


@pytest.mark.parametrize(
    "feature", [pf.CAPTURE, pf.SAVE_ATARI, pf.SELF_ATARI, pf.NEAR_PREVIOUS, "pat3"]
)
def test_one_weight_raises_exactly_the_moves_that_have_it(feature: object) -> None:
    checked = 0
    for seed in range(40):
        board = position(seed, 9, 25 + seed)
        pairs = feature_set(ZERO, board)
        if feature == "pat3":
            index = min(f for _, f in pairs if pf.PAT3 <= f < pf.RESPONSE)
        else:
            assert isinstance(feature, int)
            index = feature
        having = {p for p, f in pairs if f == index}
        others = {p for p, _ in pairs} - having
        if not having or not others:
            continue
        w = np.zeros(pf.NUM_FEATURES, dtype=np.float32)
        w[index] = 1.5
        probs = goboard.PatternPolicy(w).probabilities(board)
        base = ZERO.probabilities(board)
        # Moves with the feature are e^1.5 times as likely as moves without it.
        ratio = probs[sorted(having)] / probs[sorted(others)].mean()
        np.testing.assert_allclose(ratio, np.exp(1.5), rtol=1e-4)
        np.testing.assert_allclose(probs[sorted(others)], probs[min(others)], rtol=1e-5)
        assert (probs[sorted(having)] > base[sorted(having)]).all()
        checked += 1
    assert checked >= 3


def test_sampling_follows_the_probabilities() -> None:
    # The first move of many rollouts is drawn from probabilities(): compare the
    # empirical distribution, response and near-previous factors included.
    w = random_weights(8, scale=1.0)
    w[pf.NEAR_PREVIOUS] = 1.0
    policy = goboard.PatternPolicy(w)
    board = position(5, 5, 9)
    assert board.last_move is not None and board.last_move < 25
    probs = policy.probabilities(board)
    draws = 6000
    counts = np.zeros(26)
    for seed in range(draws):
        counts[policy.playout_moves(board, seed, max_moves=1)[0]] += 1
    total_variation = 0.5 * np.abs(counts / draws - probs).sum()
    assert total_variation < 0.05


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (np.zeros(10, dtype=np.float32), "shape"),
        (np.zeros(pf.NUM_FEATURES, dtype=np.float64), "float32"),
        (np.full(pf.NUM_FEATURES, np.nan, dtype=np.float32), "finite"),
        (np.full(pf.NUM_FEATURES, np.inf, dtype=np.float32), "finite"),
        (np.full(pf.NUM_FEATURES, 60.0, dtype=np.float32), "within"),
        ([0.0] * pf.NUM_FEATURES, "numpy"),
    ],
)
def test_bad_weights_are_refused(weights: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        goboard.PatternPolicy(weights)  # type: ignore[arg-type]


def test_weights_are_a_private_read_only_copy() -> None:
    w = np.zeros(pf.NUM_FEATURES, dtype=np.float32)
    policy = goboard.PatternPolicy(w)
    w[0] = 5.0
    assert policy.weights[0] == 0.0
    with pytest.raises(ValueError):
        policy.weights[0] = 1.0


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        ZERO.features("board")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ZERO.playouts(goboard.Board(9), 1, 1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ZERO.playouts(goboard.Board(9), -1, 1)
    with pytest.raises(TypeError):
        ZERO.pool_playouts([goboard.Board(9)], [0], 1, 1)  # type: ignore[arg-type]


def test_finished_game_and_feature_names() -> None:
    board = goboard.Board(5)
    board.play(25)
    board.play(25)
    assert not ZERO.probabilities(board).any()
    points, index = ZERO.features(board)
    assert points.shape == index.shape == (0,)
    assert ZERO.playouts(board, 2, 1)[1].tolist() == [0, 0]
    assert pf.feature_name(0) == "capture"
    assert pf.feature_name(pf.PAT3 + 3) == "pat3:3"
    assert pf.feature_name(pf.RESPONSE) == "response:0"
    with pytest.raises(ValueError):
        pf.feature_name(pf.NUM_FEATURES)
