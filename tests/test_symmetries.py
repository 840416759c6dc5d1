"""The eight board symmetries: directions, inverses, the group, and argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from goboard.symmetries import (
    COUNT,
    inverse,
    point_maps,
    transform_planes,
    transform_point,
    transform_policy,
)

KS = range(COUNT)
GRID = np.arange(1, 10).reshape(3, 3)  # 1 2 3 / 4 5 6 / 7 8 9, row 0 on top

# Transform k rotates k % 4 quarter turns counter-clockwise, then mirrors for k >= 4.
IMAGES = {
    0: [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    1: [[3, 6, 9], [2, 5, 8], [1, 4, 7]],
    2: [[9, 8, 7], [6, 5, 4], [3, 2, 1]],
    3: [[7, 4, 1], [8, 5, 2], [9, 6, 3]],
    4: [[3, 2, 1], [6, 5, 4], [9, 8, 7]],
    5: [[9, 6, 3], [8, 5, 2], [7, 4, 1]],
    6: [[7, 8, 9], [4, 5, 6], [1, 2, 3]],
    7: [[1, 4, 7], [2, 5, 8], [3, 6, 9]],
}

sizes = st.integers(2, 19)
ks = st.integers(0, COUNT - 1)


def planes_strategy(max_lead: int = 2) -> st.SearchStrategy[np.ndarray]:
    """Arrays of shape (..., N, N) with up to ``max_lead`` batch axes."""

    def build(lead: tuple[int, ...], n: int) -> st.SearchStrategy[np.ndarray]:
        return hnp.arrays(np.int16, (*lead, n, n), elements=st.integers(-9, 9))

    leads = st.lists(st.integers(1, 3), max_size=max_lead).map(tuple)
    return st.tuples(leads, st.integers(1, 7)).flatmap(lambda t: build(*t))


def test_directions_are_as_documented() -> None:
    for k in KS:
        assert transform_planes(GRID, k).tolist() == IMAGES[k], k
    assert sorted(map(str, IMAGES.values())) == sorted(set(map(str, IMAGES.values())))


def test_rotation_then_mirror_and_point_examples() -> None:
    for k in range(4):
        np.testing.assert_array_equal(
            transform_planes(GRID, k + 4), transform_planes(GRID, k)[:, ::-1]
        )
    # 5x5: the top-left corner (0) goes bottom-left under a counter-clockwise turn.
    assert [transform_point(0, 5, k) for k in KS] == [0, 20, 24, 4, 4, 24, 20, 0]
    assert [transform_point(12, 5, k) for k in KS] == [12] * 8  # the centre stays


@given(planes=planes_strategy(), k=ks)
def test_planes_inverse_round_trip(planes: np.ndarray, k: int) -> None:
    moved = transform_planes(planes, k)
    assert moved.shape == planes.shape and moved.dtype == planes.dtype
    assert moved.flags.c_contiguous
    np.testing.assert_array_equal(transform_planes(moved, inverse(k)), planes)
    np.testing.assert_array_equal(transform_planes(planes, 0), planes)
    # Batch axes are independent: each item transforms on its own.
    for index in np.ndindex(planes.shape[:-2]):
        np.testing.assert_array_equal(moved[index], transform_planes(planes[index], k))


@given(size=sizes, lead=st.lists(st.integers(1, 3), max_size=2), k=ks, data=st.data())
def test_policy_inverse_round_trip_keeps_pass_last(size, lead, k, data) -> None:
    shape = (*lead, size * size + 1)
    policy = data.draw(
        hnp.arrays(np.float32, shape, elements=st.floats(0, 1, width=32))
    )
    moved = transform_policy(policy, k)
    assert moved.shape == policy.shape and moved.dtype == policy.dtype
    np.testing.assert_array_equal(moved[..., -1], policy[..., -1])
    board = policy[..., :-1].reshape((*lead, size, size))
    np.testing.assert_array_equal(
        moved[..., :-1], transform_planes(board, k).reshape((*lead, size * size))
    )
    np.testing.assert_array_equal(transform_policy(moved, inverse(k)), policy)


@given(size=sizes, k=ks, data=st.data())
def test_point_inverse_round_trip(size: int, k: int, data) -> None:
    point = data.draw(st.integers(0, size * size))
    moved = transform_point(point, size, k)
    assert 0 <= moved <= size * size
    assert (moved == size * size) == (point == size * size)  # pass stays pass
    assert transform_point(moved, size, inverse(k)) == point
    marker = np.zeros(size * size + 1, dtype=np.int8)
    marker[point] = 1
    assert transform_policy(marker, k)[moved] == 1  # a policy's mass moves with it


def test_inverse_table() -> None:
    assert [inverse(k) for k in KS] == [0, 3, 2, 1, 4, 5, 6, 7]
    for k in KS:
        assert inverse(inverse(k)) == k


def test_transforms_are_distinct_on_a_generic_board(rng) -> None:
    board = rng.permutation(81).reshape(9, 9)
    images = {transform_planes(board, k).tobytes() for k in KS}
    assert len(images) == COUNT
    maps = point_maps(9)
    assert len({row.tobytes() for row in maps}) == COUNT


def compose_index(i: int, j: int, size: int = 4) -> int:
    """The m with transform m == transform j after transform i (on a generic board)."""
    board = np.arange(size * size).reshape(size, size)
    twice = transform_planes(transform_planes(board, i), j)
    found = [m for m in KS if np.array_equal(transform_planes(board, m), twice)]
    assert len(found) == 1, (i, j, found)
    return found[0]


def test_the_transforms_form_a_group() -> None:
    table = np.array([[compose_index(i, j) for j in KS] for i in KS])
    for row in (*table, *table.T):  # a Latin square: every product exactly once
        assert sorted(row) == list(KS)
    np.testing.assert_array_equal(table[0], list(KS))  # 0 is the identity
    np.testing.assert_array_equal(table[:, 0], list(KS))
    for k in KS:
        assert table[k, inverse(k)] == table[inverse(k), k] == 0
    for i in KS:  # associativity, checked on the table
        for j in KS:
            for m in KS:
                assert table[table[i, j], m] == table[i, table[j, m]]
    assert table[1, 1] == 2 and table[1, 4] != table[4, 1]  # not commutative


def test_composition_matches_point_maps() -> None:
    maps = point_maps(5)
    for i in KS:
        for j in KS:
            np.testing.assert_array_equal(maps[j][maps[i]], maps[compose_index(i, j)])


@pytest.mark.parametrize("size", [2, 3, 4, 5, 9, 19])
def test_point_maps_agree_with_transform_point(size: int) -> None:
    maps = point_maps(size)
    n = size * size
    assert maps.shape == (COUNT, n + 1) and maps.dtype.kind == "i"
    for k in KS:
        assert sorted(maps[k]) == list(range(n + 1)) and maps[k][n] == n
        assert maps[k].tolist() == [transform_point(p, size, k) for p in range(n + 1)]
        values = np.arange(n + 1)
        np.testing.assert_array_equal(transform_policy(values, k)[maps[k]], values)


def test_outputs_are_new_arrays() -> None:
    for k in KS:
        planes = np.arange(9).reshape(3, 3)
        moved = transform_planes(planes, k)
        moved[...] = -1
        np.testing.assert_array_equal(planes, np.arange(9).reshape(3, 3))
        policy = np.arange(10)
        transform_policy(policy, k)[...] = -1
        np.testing.assert_array_equal(policy, np.arange(10))


def test_accepts_lists_and_numpy_ints() -> None:
    assert transform_planes(GRID.tolist(), np.int64(1)).tolist() == IMAGES[1]
    assert transform_point(np.int32(0), 5, np.uint8(1)) == 20
    assert inverse(np.int16(1)) == 3
    assert transform_policy(list(range(5)), 1).tolist() == [1, 3, 0, 2, 4]


# ---- errors -------------------------------------------------------------------------

BAD_KS = [
    (8, ValueError),
    (-1, ValueError),
    (100, ValueError),
    (np.int64(8), ValueError),
    (True, TypeError),
    (False, TypeError),
    (1.0, TypeError),
    (np.float64(2.0), TypeError),
    ("1", TypeError),
    (None, TypeError),
]


@pytest.mark.parametrize(("k", "error"), BAD_KS)
def test_bad_transform_index(k, error) -> None:
    with pytest.raises(error):
        inverse(k)
    with pytest.raises(error):
        transform_planes(GRID, k)
    with pytest.raises(error):
        transform_policy(np.zeros(10), k)
    with pytest.raises(error):
        transform_point(0, 3, k)


@pytest.mark.parametrize("shape", [(), (3,), (3, 4), (2, 4, 3), (9, 1)])
def test_planes_must_end_in_a_square(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        transform_planes(np.zeros(shape), 1)


@pytest.mark.parametrize("shape", [(), (9,), (25,), (27,), (3, 25), (5, 6)])
def test_policy_length_must_be_n_squared_plus_one(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        transform_policy(np.zeros(shape), 1)


@pytest.mark.parametrize(
    ("point", "error"),
    [
        (-1, ValueError),
        (26, ValueError),
        (True, TypeError),
        (1.0, TypeError),
        (1.5, TypeError),
        ("3", TypeError),
        (None, TypeError),
    ],
)
def test_bad_points(point, error) -> None:
    with pytest.raises(error):
        transform_point(point, 5, 1)


@pytest.mark.parametrize(
    ("size", "error"),
    [(1, ValueError), (20, ValueError), (5.0, TypeError), (True, TypeError)],
)
def test_bad_sizes(size, error) -> None:
    with pytest.raises(error):
        transform_point(0, size, 1)
    with pytest.raises(error):
        point_maps(size)
