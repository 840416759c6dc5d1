"""Batched entry points: features_batch and legal_mask_batch against one-by-one calls,
caller-owned ``out`` arrays, and argument validation."""

from __future__ import annotations

import numpy as np
import pytest
from games import random_game

import goboard
from goboard import BLACK, WHITE, features_batch, legal_mask_batch
from goboard import reference as ref

KINDS = goboard.FEATURE_KINDS
PLANES = {"agz17": 17, "lz18": 18, "alphago48": 48, "alphago49": 49}


def mixed_boards(size: int, rng: np.random.Generator) -> list[goboard.Board]:
    """Boards of one size: games of different lengths, set-ups, copies, both movers."""
    boards = [random_game(size, n, rng, pass_rate=0.1)[0] for n in (0, 1, 5, 8, 13, 60)]
    setup = goboard.Board.from_stones(boards[-1].stones(), to_play=WHITE)
    boards += [
        setup,
        boards[3].copy(),
        random_game(size, 3, rng, start=setup.copy())[0],
    ]
    return boards


@pytest.fixture(params=[5, 9, 19])
def boards(request: pytest.FixtureRequest, rng) -> list[goboard.Board]:
    return mixed_boards(request.param, rng)


def test_feature_kinds_and_plane_names() -> None:
    assert KINDS == ("agz17", "lz18", "alphago48", "alphago49")
    history = [f"{side}_t{k}" for side in ("own", "opp") for k in range(8)]
    agz = [name for name, _ in goboard.feature_planes("agz17")]
    lz = [name for name, _ in goboard.feature_planes("lz18")]
    assert agz == [*history, "black_to_move"]
    assert lz == [*history, "black_to_move", "white_to_move"]
    alphago = [name for name, _ in goboard.feature_planes("alphago49")]
    groups = [
        f"{group}_{k}"
        for group, first in (
            ("turns_since", 1),
            ("liberties", 1),
            ("capture_size", 0),
            ("self_atari", 1),
            ("liberties_after", 1),
        )
        for k in range(first, first + 8)
    ]
    assert alphago == [
        *("own", "opponent", "empty", "ones"),
        *groups,
        *("ladder_capture", "ladder_escape", "sensible", "zeros", "black_to_move"),
    ]
    assert [name for name, _ in goboard.feature_planes("alphago48")] == alphago[:48]
    for kind in KINDS:
        descriptions = [d for _, d in goboard.feature_planes(kind)]
        assert all(isinstance(d, str) and d for d in descriptions)


@pytest.mark.parametrize("kind", KINDS)
def test_shapes_dtypes_and_plane_count(kind: str, boards) -> None:
    size = boards[0].size
    for board in boards:
        planes = board.features(kind)
        assert planes.shape == (PLANES[kind], size, size)
        assert planes.shape[0] == len(goboard.feature_planes(kind))
        assert planes.dtype == np.float32 and planes.flags.c_contiguous
        assert np.isin(planes, (0.0, 1.0)).all()
    batch = features_batch(boards, kind, dtype=np.uint8)
    assert batch.shape == (len(boards), PLANES[kind], size, size)
    assert batch.dtype == np.uint8


@pytest.mark.parametrize("kind", KINDS)
def test_float32_and_uint8_agree(kind: str, boards) -> None:
    as_float = features_batch(boards, kind)
    as_bytes = features_batch(boards, kind, dtype=np.uint8)
    np.testing.assert_array_equal(as_float, as_bytes.astype(np.float32))
    for dtype in ("uint8", np.dtype(np.uint8)):
        np.testing.assert_array_equal(
            boards[-1].features(kind, dtype=dtype), as_bytes[-1]
        )


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("kind", KINDS)
def test_batch_equals_stacked_single_boards(kind: str, dtype, boards) -> None:
    stacked = np.stack([board.features(kind, dtype=dtype) for board in boards])
    np.testing.assert_array_equal(features_batch(boards, kind, dtype=dtype), stacked)
    np.testing.assert_array_equal(
        features_batch(boards[:1], kind, dtype=dtype)[0], stacked[0]
    )
    # Any iterable, in any order, with repeats.
    order = [3, 0, 3, len(boards) - 1]
    picked = features_batch(iter([boards[i] for i in order]), kind, dtype=dtype)
    np.testing.assert_array_equal(picked, stacked[order])


def test_turn_planes_follow_the_mover(boards) -> None:
    planes = features_batch(boards, "lz18", dtype=np.uint8)
    for board, f in zip(boards, planes, strict=True):
        assert (f[16] == (board.to_play == BLACK)).all()
        assert (f[17] == (board.to_play == WHITE)).all()


def test_streamed_float_batch_equals_the_bytes() -> None:
    """A float batch of more than 4 MB (alphago_planes.c's STREAM_BYTES) is written with
    streaming stores; they equal the uint8 planes, in an output array that starts on a
    64-byte boundary and in one that starts a float past it (each board's stores then
    begin after a scalar prefix and end with a scalar tail)."""
    rng = np.random.default_rng(11)
    boards = [random_game(19, n, rng)[0] for n in range(0, 320, 5)]
    expected = features_batch(boards, "alphago48", dtype=np.uint8).astype(np.float32)
    assert expected.nbytes > 4 << 20
    raw = np.full(expected.size + 32, 7, dtype=np.float32)
    aligned = (-raw.ctypes.data % 64) // 4
    for start in (aligned, aligned + 1):
        raw[...] = 7
        out = raw[start : start + expected.size].reshape(expected.shape)
        assert features_batch(boards, "alphago48", out=out) is out
        np.testing.assert_array_equal(out, expected)
        assert (raw[:start] == 7).all() and (raw[start + expected.size :] == 7).all()


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("kind", KINDS)
def test_out_is_filled_in_place_and_returned(kind: str, dtype, boards) -> None:
    size = boards[0].size
    expected = features_batch(boards, kind, dtype=dtype)
    out = np.full((len(boards), PLANES[kind], size, size), 7, dtype=dtype)
    assert features_batch(boards, kind, out=out) is out
    np.testing.assert_array_equal(out, expected)
    out[...] = 7
    assert features_batch(boards, kind, out=out, dtype=dtype) is out
    np.testing.assert_array_equal(out, expected)
    single = np.full((PLANES[kind], size, size), 7, dtype=dtype)
    assert np.shares_memory(boards[-1].features(kind, out=single), single)
    np.testing.assert_array_equal(single, expected[-1])
    # A C-contiguous view into a bigger buffer is written through.
    buffer = np.full((len(boards) + 2,) + expected.shape[1:], 7, dtype=dtype)
    assert np.shares_memory(features_batch(boards, kind, out=buffer[1:-1]), buffer)
    np.testing.assert_array_equal(buffer[1:-1], expected)
    assert (buffer[0] == 7).all() and (buffer[-1] == 7).all()


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_board_features_returns_out_itself(dtype) -> None:
    board = goboard.Board(5)
    out = np.full((17, 5, 5), 7, dtype=dtype)
    assert board.features(out=out) is out


def bad_outs(shape: tuple[int, ...]) -> list[tuple[object, type[Exception]]]:
    wrong_order = np.zeros(shape, dtype=np.float32, order="F")
    read_only = np.zeros(shape, dtype=np.float32)
    read_only.flags.writeable = False
    strided = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=np.float32)[..., ::2]
    return [
        (np.zeros(shape, dtype=np.float64), TypeError),
        (np.zeros(shape, dtype=np.int32), TypeError),
        (np.zeros(shape, dtype=np.bool_), TypeError),
        (np.zeros(shape, dtype=np.int8), TypeError),
        (np.zeros(shape, dtype=np.float32).tolist(), TypeError),
        (np.zeros((shape[0] + 1, *shape[1:]), dtype=np.float32), ValueError),
        (
            np.zeros((*shape[:-2], shape[-2] + 1, shape[-1]), dtype=np.float32),
            ValueError,
        ),
        (np.zeros(shape[1:], dtype=np.float32), ValueError),
        (np.zeros((shape[0], shape[1] + 1, *shape[2:]), dtype=np.float32), ValueError),
        (wrong_order, ValueError),
        (read_only, ValueError),
        (strided, ValueError),
    ]


def test_bad_out_arrays_are_refused_untouched(rng) -> None:
    boards = mixed_boards(5, rng)[:3]
    shape = (3, 17, 5, 5)
    for out, error in bad_outs(shape):
        before = np.array(out, copy=True)
        with pytest.raises(error):
            features_batch(boards, "agz17", out=out)
        np.testing.assert_array_equal(np.asarray(out), before)
    for out, error in bad_outs((17, 5, 5)):
        with pytest.raises(error):
            boards[0].features(out=out)


@pytest.mark.parametrize(
    ("out_dtype", "dtype"),
    [
        (np.float32, np.uint8),
        (np.uint8, np.float32),
        (np.float64, np.float64),
        (np.int8, np.int8),
        (np.bool_, np.bool_),
    ],
)
def test_out_and_dtype_must_both_be_supported_and_agree(out_dtype, dtype, rng) -> None:
    board = random_game(5, 4, rng)[0]
    out = np.zeros((1, 17, 5, 5), dtype=out_dtype)
    with pytest.raises(TypeError):
        features_batch([board], out=out, dtype=dtype)
    assert not out.any()


@pytest.mark.parametrize(
    "dtype", [np.float64, np.int32, np.bool_, np.int8, "f2", object]
)
def test_unsupported_dtype_is_type_error(dtype) -> None:
    board = goboard.Board(5)
    with pytest.raises(TypeError):
        features_batch([board], dtype=dtype)
    with pytest.raises(TypeError):
        board.features(dtype=dtype)


@pytest.mark.parametrize("kind", ["AGZ17", "agz", "", "lz17", None, 0, 17, b"agz17"])
def test_unknown_kind_is_value_error(kind) -> None:
    board = goboard.Board(5)
    with pytest.raises(ValueError, match="unknown feature kind"):
        features_batch([board], kind)
    with pytest.raises(ValueError, match="unknown feature kind"):
        board.features(kind)
    with pytest.raises(ValueError, match="unknown feature kind"):
        goboard.feature_planes(kind)


def test_bad_batches() -> None:
    five, nine = goboard.Board(5), goboard.Board(9)
    for call in (features_batch, legal_mask_batch):
        for empty in ([], (), iter([])):
            with pytest.raises(ValueError, match="empty"):
                call(empty)
        with pytest.raises(ValueError, match="same size"):
            call([five, five, nine])
        for stranger in (ref.Board(5), None, 5, "board", five.stones()):
            with pytest.raises(TypeError):
                call([five, stranger])
        for not_iterable in (None, 5, five):
            with pytest.raises(TypeError):
                call(not_iterable)


# ---- legal masks -------------------------------------------------------------------


def test_legal_mask_batch_equals_stacked_masks(boards) -> None:
    size = boards[0].size
    over = boards[-1].copy()
    over.play(size * size)
    if not over.is_over:
        over.play(size * size)
    resigned = boards[2].copy()
    resigned.resign()
    batch = [*boards, over, resigned]
    masks = legal_mask_batch(batch)
    assert masks.shape == (len(batch), size * size + 1) and masks.dtype == np.bool_
    np.testing.assert_array_equal(masks, np.stack([b.legal_mask() for b in batch]))
    assert not masks[-1].any() and not masks[-2].any()  # finished games: no moves


def test_legal_mask_batch_sees_ko_and_superko() -> None:
    ko = goboard.Board.from_stones(
        np.array(
            [[0, 1, -1, 0, 0], [1, -1, 0, -1, 0], [0, 1, -1, 0, 0], [0] * 5, [0] * 5]
        )
    )
    ko.play(7)  # Black takes the ko; White may not retake at 6 at once
    masks = legal_mask_batch([goboard.Board(5), ko])
    assert masks[0].all() and not masks[1][6] and masks[1][25]
    np.testing.assert_array_equal(masks[1], ko.legal_mask())


def test_legal_mask_out_in_place(boards) -> None:
    size = boards[0].size
    expected = legal_mask_batch(boards)
    out = np.ones((len(boards), size * size + 1), dtype=np.bool_)
    assert legal_mask_batch(boards, out=out) is out
    np.testing.assert_array_equal(out, expected)
    buffer = np.zeros((len(boards) + 1, size * size + 1), dtype=np.bool_)
    legal_mask_batch(boards, out=buffer[1:])
    np.testing.assert_array_equal(buffer[1:], expected)
    assert not buffer[0].any()


def test_legal_mask_bad_out() -> None:
    boards = [goboard.Board(5), goboard.Board(5)]
    shape = (2, 26)
    read_only = np.zeros(shape, dtype=np.bool_)
    read_only.flags.writeable = False
    cases = [
        (np.zeros(shape, dtype=np.uint8), TypeError),
        (np.zeros(shape, dtype=np.float32), TypeError),
        (np.zeros(shape, dtype=np.bool_).tolist(), TypeError),
        (np.zeros((2, 25), dtype=np.bool_), ValueError),
        (np.zeros((3, 26), dtype=np.bool_), ValueError),
        (np.zeros((52,), dtype=np.bool_), ValueError),
        (np.zeros((2, 52), dtype=np.bool_)[:, ::2], ValueError),
        (np.zeros(shape, dtype=np.bool_, order="F"), ValueError),
        (read_only, ValueError),
    ]
    for out, error in cases:
        before = np.array(out, copy=True)
        with pytest.raises(error):
            legal_mask_batch(boards, out=out)
        np.testing.assert_array_equal(np.asarray(out), before)
