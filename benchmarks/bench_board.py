"""Single-board operations from Python on fixed-seed positions (see conftest.py).

- ``play``: the middle game's move list (N*N // 2 moves) replayed on a fresh copy of the
  empty board (the copy is made in an untimed per-round setup); rate: moves/s.
- ``copy``: ``Board.copy()`` of the middle-game position.
- ``legal_mask`` / ``legal_moves``: one board's [N*N + 1] mask / list of legal points,
  on the opening, middle-game and endgame positions.
- ``legal_mask_batch``: masks of 64 positions of the game in one C loop, into a
  preallocated array; ``legal_mask_each``: the same 64 masks, one ``legal_mask()`` call
  each; rate: boards/s.
- ``is_legal``: one Python call per point (N*N + 1 calls per body), to compare with
  ``legal_mask`` which checks every point in one C call; rate: calls/s.
- ``score``: Tromp-Taylor area score (a flood fill of the empty regions), on the three
  positions.

The single-position benchmarks repeat one position, so the CPU's caches and branch
predictor are as warm as they can be: read them as best cases. The 64-position ones
are closer to a search or self-play stream (here a 19x19 mask cost ~2.2 us on one
repeated position but ~5.5 us per position over 64 different ones).
"""

from __future__ import annotations

import numpy as np
import pytest

import goboard

SIZES = [9, 19]
PHASES = ["opening", "middle", "endgame"]
BATCH = 64

pytestmark = pytest.mark.benchmark(group="board")


def replay(board, moves):
    for move in moves:
        board.play(move)
    return board


@pytest.mark.parametrize("size", SIZES)
def test_play(bench, positions, size):
    pos = positions(size)
    moves = pos.middle_moves
    rounds = 4000 // size  # ~0.1 s of 9x9 rounds; fixed rounds because of the setup

    def setup():
        return (pos.opening.copy(), moves), {}

    board = bench(replay, setup=setup, rounds=rounds)
    assert board == pos.middle
    bench.rates(moves=len(moves))


@pytest.mark.parametrize("size", SIZES)
def test_copy(bench, positions, size):
    middle = positions(size).middle
    assert bench(middle.copy) == middle
    bench.rates(copies=1)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("size", SIZES)
def test_legal_mask(bench, positions, size, phase):
    board = positions(size).phase(phase)
    mask = bench(board.legal_mask)
    assert mask.shape == (size * size + 1,)
    bench.rates(masks=1, points=size * size + 1)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("size", SIZES)
def test_legal_moves(bench, positions, size, phase):
    board = positions(size).phase(phase)
    legal = bench(board.legal_moves)
    assert list(legal) == np.flatnonzero(board.legal_mask()).tolist()
    bench.rates(calls=1, points=size * size + 1)


@pytest.mark.parametrize("size", SIZES)
def test_legal_mask_batch(bench, positions, size):
    boards = positions(size).batch(BATCH)
    out = np.empty((BATCH, size * size + 1), dtype=np.bool_)
    masks = bench(goboard.legal_mask_batch, boards, out)
    assert masks is out
    assert (masks[0] == boards[0].legal_mask()).all()
    bench.rates(boards=BATCH, points=BATCH * (size * size + 1))


def each_legal_mask(boards):
    return [board.legal_mask() for board in boards]


@pytest.mark.parametrize("size", SIZES)
def test_legal_mask_each(bench, positions, size):
    boards = positions(size).batch(BATCH)
    masks = bench(each_legal_mask, boards)
    assert len(masks) == BATCH
    bench.rates(boards=BATCH, points=BATCH * (size * size + 1))


def all_is_legal(board, points):
    is_legal = board.is_legal
    return [is_legal(p) for p in points]


@pytest.mark.parametrize("size", SIZES)
def test_is_legal(bench, positions, size):
    board = positions(size).middle
    points = range(size * size + 1)
    legal = bench(all_is_legal, board, points)
    assert legal == board.legal_mask().tolist()
    bench.rates(calls=len(points))


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("size", SIZES)
def test_score(bench, positions, size, phase):
    board = positions(size).phase(phase)
    score = bench(board.score)
    assert score == board.score()
    bench.rates(scores=1)
