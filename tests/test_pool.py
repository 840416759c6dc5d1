"""goboard.Pool: search-tree positions in C must equal the same games on Boards."""

from __future__ import annotations

import numpy as np
import pytest

import goboard
from goboard import reference
from goboard.errors import IllegalMoveError

RULES = ["tromp-taylor", "chinese", goboard.Rules(ko="simple", suicide=True)]


def random_root(size: int, rules, moves: int, rng) -> goboard.Board:
    root = goboard.Board(size, rules=rules)
    for _ in range(moves):
        legal = root.legal_moves()
        root.play(
            legal[int(rng.integers(len(legal) - 1))] if len(legal) > 1 else legal[0]
        )
        if root.is_over:
            break
    return root


def grow(pool: goboard.Pool, root: goboard.Board, game: int, steps: int, rng) -> dict:
    """Expand random legal children under game ``game``; mirror them on Boards."""
    m = pool.slots_per_root
    boards = {game * m: root.copy()}
    free = game * m + 1
    for _ in range(steps):
        if free == (game + 1) * m:
            break
        parent = int(rng.choice(list(boards)))
        if boards[parent].is_over:
            continue
        move = int(rng.choice(boards[parent].legal_moves()))
        pool.expand([parent], [move], [free])
        child = boards[parent].copy()
        child.play(move)
        boards[free] = child
        free += 1
    return boards


@pytest.mark.parametrize("rules", RULES, ids=str)
@pytest.mark.parametrize("size", [3, 5, 9])
def test_pool_positions_equal_boards(size: int, rules, rng) -> None:
    root = random_root(size, rules, int(rng.integers(0, 10)), rng)
    if root.is_over:
        pytest.skip("the random opening ended the game")
    pool = goboard.Pool([root.copy(), root], 120)
    boards = grow(pool, root, 1, 110, rng)
    slots = np.array(sorted(boards))
    expected = [boards[s] for s in slots]
    assert all(pool.board(s) == b for s, b in zip(slots, expected, strict=True))
    np.testing.assert_array_equal(
        pool.legal_masks(slots), np.stack([b.legal_mask() for b in expected])
    )
    for kind in goboard.FEATURE_KINDS:
        np.testing.assert_array_equal(
            pool.features(slots, kind), goboard.features_batch(expected, kind)
        )
    assert pool.to_play(slots).tolist() == [b.to_play for b in expected]
    assert pool.is_over(slots).tolist() == [b.is_over for b in expected]
    assert pool.scores(slots).tolist() == [b.score() for b in expected]
    for s in slots:
        pool.board(s)._check_invariants()
        if s != pool.slots_per_root:
            parent = pool.parent(s)
            child = boards[parent].copy()
            child.play(pool.move(s))
            assert child == boards[s]


# On 2x2 under positional superko, after this line the point 0 would repeat a position.
SUPERKO_LINE, SUPERKO_POINT = (0, 1, 2, 3, 0, 2), 0


# The same for a quiet move (no capture, one stone more): point 1 would bring back the
# position after the fourth move. Legal-move generation looks such a move up only
# because a capture since then left fewer stones (keyset.h, most_stones), so the
# bound must cover the record and the path alike.
QUIET_SUPERKO_LINE, QUIET_SUPERKO_POINT = (1, 2, 3, 0, 3, 1, 3, 2), 1


@pytest.mark.parametrize(
    ("line", "point", "in_record"),
    [
        pytest.param(SUPERKO_LINE, SUPERKO_POINT, k, id=f"capture-{k}-moves")
        for k in (0, 3, 6)
    ]
    + [
        pytest.param(QUIET_SUPERKO_LINE, QUIET_SUPERKO_POINT, k, id=f"quiet-{k}-moves")
        for k in (0, 4, 8)
    ],
)
def test_superko_spans_the_record_and_the_path(line, point, in_record) -> None:
    """The repeated position may lie in the game record (``in_record`` moves of
    ``line``), the tree path, or both."""
    root = goboard.Board(2)
    for move in line[:in_record]:
        root.play(move)
    pool = goboard.Pool([root], 16)
    slot = 0
    for i, move in enumerate(line[in_record:], start=1):
        pool.expand([slot], [move], [i])
        slot = i
    board = pool.board(slot)
    assert not pool.legal_masks([slot])[0][point]
    assert not board.is_legal(point)
    assert not goboard.legal_mask_batch([board])[0][point]
    with pytest.raises(IllegalMoveError) as err:
        pool.expand([slot], [point], [15])
    assert err.value.reason == "superko"
    simple = goboard.Pool([goboard.Board(2, rules=goboard.Rules(ko="simple"))], 16)
    for i, move in enumerate(line, start=1):
        simple.expand([i - 1], [move], [i])
    assert simple.legal_masks([len(line)])[0][point]


# A 4x4 game (positional superko, suicide allowed) long enough that the Board's key set
# doubles its slots; afterwards point 10 is a quiet move that would repeat a position
# from before the growth. Found by a review: a regrowth that dropped the stone bound
# passed everything else.
GROWN_RULES = goboard.Rules(ko="positional", suicide=True)
GROWN_LINE = (
    1, 4, 14, 15, 16, 2, 16, 11, 6, 13, 16, 3, 16, 12, 8, 9, 7, 16, 0, 5, 3, 16, 10, 15,
    16, 2, 0, 8, 1, 12, 5, 8, 16, 9, 16, 11, 15, 13, 16, 4, 13, 12, 9, 8, 16, 4, 11, 4,
    8, 16, 4, 16, 2, 12, 11, 15, 5, 16, 2, 0, 16, 9, 14, 16, 8, 16, 15, 6, 13, 7, 1, 4,
    16, 10, 16, 0, 16, 3, 7, 10, 4, 6, 16, 9, 16,
)  # fmt: skip
GROWN_POINT = 10


@pytest.mark.parametrize("in_record", [len(GROWN_LINE), 40, 0])
def test_quiet_superko_after_the_key_set_grows(in_record: int) -> None:
    slow = reference.Board(4, rules=GROWN_RULES)
    root = goboard.Board(4, rules=GROWN_RULES)
    for move in GROWN_LINE:
        slow.play(move)
    for move in GROWN_LINE[:in_record]:
        root.play(move)
    assert not slow.is_legal(GROWN_POINT)
    pool = goboard.Pool([root], 128)
    for i, move in enumerate(GROWN_LINE[in_record:], start=1):
        pool.expand([i - 1], [move], [i])
    slot = len(GROWN_LINE) - in_record
    board = pool.board(slot)
    assert not board.is_legal(GROWN_POINT)
    assert not board.legal_mask()[GROWN_POINT]
    assert not pool.legal_masks([slot])[0][GROWN_POINT]
    np.testing.assert_array_equal(board.legal_mask(), slow.legal_mask())
    moves = goboard.features_batch([board], "alphago48")[0, 20:47, 2, 2]
    assert not moves.any()  # point 10 is row 2, column 2: no move planes


def test_eval_keys_see_history_turn_and_position(rng) -> None:
    root = goboard.Board(5)
    pool = goboard.Pool([root], 32)
    # Same stones by transposition, different move order: the last positions differ.
    pool.expand([0, 0], [6, 18], [1, 2])
    pool.expand([1, 2], [24, 24], [3, 4])
    pool.expand([3, 4], [18, 6], [5, 6])
    assert pool.board(5).zobrist == pool.board(6).zobrist
    keys = pool.eval_keys([5, 6, 5])
    assert keys[0] == keys[2] and keys[0] != keys[1]
    # Two passes from one position: same stones, the history planes differ.
    pool.expand([0], [25], [7])
    assert pool.eval_keys([0])[0] != pool.eval_keys([7])[0]


def test_reroot_keeps_the_subtree(rng) -> None:
    root = random_root(5, "tromp-taylor", 4, rng)
    pool = goboard.Pool([root], 64)
    boards = grow(pool, root, 0, 60, rng)
    child = next(s for s in sorted(boards) if pool.parent(s) == 0)
    mapping = pool.reroot(0, child)
    assert mapping[child] == 0 and mapping[0] == -1
    for old, new in enumerate(mapping):
        if new >= 0:
            assert pool.board(new) == boards[old]
            np.testing.assert_array_equal(
                pool.features([new])[0], boards[old].features()
            )
            np.testing.assert_array_equal(
                pool.legal_masks([new])[0], boards[old].legal_mask()
            )
    assert pool.parent(0) == -1
    kept = int((mapping >= 0).sum())
    with pytest.raises(ValueError):
        pool.legal_masks([kept])  # freed slots hold no position


def test_playouts_from_slots_are_reproducible() -> None:
    pool = goboard.Pool([goboard.Board(9)], 8)
    pool.expand([0], [40], [1])
    a = pool.playouts([0, 1], 16, seed=5)
    b = pool.playouts([0, 1], 16, seed=5)
    assert a.shape == (2, 16)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a[0], a[1])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda p: p.expand([0], [0], [0]), ValueError),  # child is a root
        (lambda p: p.expand([0], [0], [9]), ValueError),  # child in another game
        (lambda p: p.expand([0], [0, 1], [1]), ValueError),  # lengths differ
        (lambda p: p.expand([2], [0], [3]), ValueError),  # parent holds no position
        (lambda p: p.expand([0, 0], [0, 1], [1, 1]), ValueError),  # repeated child
        (lambda p: p.expand([0, 1], [0, 1], [1, 2]), ValueError),  # child is a parent
        (lambda p: p.expand([0], [0], [-1]), ValueError),  # outside the pool
        (
            lambda p: p.expand([0, 0], [0, 0], [1, 2]) or p.expand([1], [0], [3]),
            IllegalMoveError,
        ),  # occupied
        (lambda p: p.expand([0], [26], [1]), IllegalMoveError),  # off-board
        (lambda p: p.expand([0], [1.5], [1]), TypeError),
        (lambda p: p.legal_masks([99]), ValueError),
        (lambda p: p.features([0], "nope"), ValueError),
        (lambda p: p.reroot(3, 0), ValueError),
        (lambda p: p.reroot(0, 8), ValueError),  # a slot of game 1
        (lambda p: p.set_root(0, "board"), TypeError),
        (lambda p: p.set_root(0, goboard.Board(9)), ValueError),
    ],
)
def test_pool_bad_arguments(call, error) -> None:
    pool = goboard.Pool([goboard.Board(5), goboard.Board(5)], 8)
    with pytest.raises(error):
        call(pool)
    np.testing.assert_array_equal(
        pool.legal_masks([0])[0], goboard.Board(5).legal_mask()
    )


def test_pool_constructor_errors() -> None:
    with pytest.raises(ValueError):
        goboard.Pool([], 4)
    with pytest.raises(ValueError):
        goboard.Pool([goboard.Board(5), goboard.Board(7)], 4)
    with pytest.raises(ValueError):
        goboard.Pool([goboard.Board(5)], 0)


def test_child_that_is_an_ancestor_of_its_parent_is_refused() -> None:
    # Writing slot 1 below its own descendant would make the parent links a cycle
    # that every walk up the tree follows forever (it segfaulted).
    pool = goboard.Pool([goboard.Board(9)], 8)
    pool.expand([0], [0], [1])
    pool.expand([1], [1], [2])
    with pytest.raises(ValueError, match="ancestor"):
        pool.expand([2], [2], [1])
    assert pool.parent(1) == 0 and pool.parent(2) == 1
    assert pool.legal_masks([1, 2]).sum() == 81 + 80  # 80 and 79 empty points + pass


def test_two_children_that_are_each_others_ancestors_are_refused() -> None:
    # No single entry writes its own ancestor, but together they would close a cycle.
    pool = goboard.Pool([goboard.Board(9)], 8)
    pool.expand([0, 0], [0, 1], [1, 2])
    pool.expand([1, 2], [5, 6], [3, 4])
    with pytest.raises(ValueError, match="ancestor"):
        pool.expand([3, 4], [7, 8], [2, 1])
    assert [pool.parent(s) for s in (1, 2, 3, 4)] == [0, 0, 1, 2]


def test_empty_expand_is_a_no_op() -> None:
    # It read actions[0] of the empty array after the call (found by fuzz_goboard.py:
    # IndexError on the bounds-checked debug build, a read past the buffer otherwise).
    pool = goboard.Pool([goboard.Board(9)], 4)
    pool.expand([0], [40], [1])
    for empty in ([], np.empty(0, np.int64), np.empty(0, np.int32)):
        pool.expand(empty, empty, empty)
    assert pool.parent(1) == 0 and pool.move(1) == 40
    assert pool.board(1).stones().sum() == 1


def test_failed_allocation_is_a_memory_error_and_frees_nothing_twice() -> None:
    board = goboard.Board(9)
    with pytest.raises(MemoryError):
        goboard.Pool([board] * 3, 2**29)  # ~9 TB of boards
    assert board.legal_moves() == list(range(82))  # the heap is intact


def test_second_init_failing_leaves_the_pool_as_it_was() -> None:
    pool = goboard.Pool([goboard.Board(9)], 8)
    pool.expand([0], [40], [1])
    with pytest.raises(ValueError):
        pool.__init__([goboard.Board(9)], 2**40)
    with pytest.raises(MemoryError):
        pool.__init__([goboard.Board(9)] * 3, 2**29)
    assert pool.slots_per_root == 8 and pool.move(1) == 40
    assert not pool.legal_masks([1])[0, 40]
    pool.__init__([goboard.Board(5)] * 2, 4)  # a good one replaces everything
    assert (pool.games, pool.slots_per_root, pool.size) == (2, 4, 5)


@pytest.mark.parametrize(
    "call",
    [
        lambda p: p.size,
        lambda p: p.legal_masks([]),
        lambda p: p.features([]),
        lambda p: p.playouts([], 1, 0),
        lambda p: p.expand([0], [0], [1]),
        lambda p: p.board(0),
        lambda p: p.reroot(0, 0),
        lambda p: p.set_root(0, goboard.Board(9)),
    ],
)
def test_pool_whose_init_never_ran_raises(call) -> None:
    pool = goboard.Pool.__new__(goboard.Pool)
    with pytest.raises(ValueError):
        call(pool)
