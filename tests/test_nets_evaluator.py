"""NetEvaluator: the Evaluator contract, symmetries, batching, caching, search."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import (  # noqa: E402
    manual_average,
    positions_of,
    random_board,
    tiny_net,
)

import goboard  # noqa: E402
from alphago.nets import NetEvaluator  # noqa: E402
from search import (  # noqa: E402
    PUCT,
    CachedEvaluator,
    Evaluator,
    ScoredEvaluator,
    SearchConfig,
)
from search.evaluator import check_output  # noqa: E402


def _boards(size: int = 9) -> list[goboard.Board]:
    boards = [random_board(size, moves, seed) for seed, moves in enumerate([0, 5, 30])]
    over = goboard.Board(size)
    over.play(size * size)
    over.play(size * size)
    return boards + [over]


@pytest.mark.parametrize("symmetries", ["none", "random", "average", 3])
@pytest.mark.parametrize(
    ("size", "kind"), [(9, "agz17"), (19, "lz18"), (9, "alphago49")]
)
def test_output_contract(symmetries: str | int, size: int, kind: str) -> None:
    ev = NetEvaluator(tiny_net(size, kind), symmetries=symmetries, seed=1)
    assert isinstance(ev, Evaluator)
    positions = positions_of(_boards(size))
    priors, values = check_output(ev.evaluate(positions), len(positions), size**2 + 1)
    legal = positions.legal_masks()
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert np.all(priors[~legal] == 0)
    has_moves: np.ndarray = np.asarray(legal.any(axis=1))
    np.testing.assert_allclose(priors[has_moves].sum(axis=1), 1.0, atol=1e-5)
    assert not has_moves[-1] and np.all(priors[-1] == 0)  # the finished game
    assert np.all(np.abs(values) <= 1)


def test_empty_batch() -> None:
    ev = NetEvaluator(tiny_net(9))
    positions = positions_of([goboard.Board(9)]).subset([])
    priors, values = ev.evaluate(positions)
    assert priors.shape == (0, 82) and values.shape == (0,)


@pytest.mark.parametrize("kind", ["lz18", "alphago49"])
def test_average_equals_manual_transforms(kind: str) -> None:
    model = tiny_net(9, kind, blocks=2)
    positions = positions_of(_boards(9)[:3])
    ev = NetEvaluator(model, symmetries="average", precision="fp32")
    priors, values = ev.evaluate(positions)
    want_p, want_v = manual_average(model, positions, kind)
    np.testing.assert_allclose(priors, want_p, atol=1e-5)
    np.testing.assert_allclose(values, want_v, atol=1e-5)


def test_symmetries_matter_and_are_seeded() -> None:
    model = tiny_net(9)
    positions = positions_of(_boards(9)[:3])
    plain = NetEvaluator(model, symmetries="none").evaluate(positions)[0]
    first = NetEvaluator(model, symmetries="random", seed=7).evaluate(positions)[0]
    again = NetEvaluator(model, symmetries="random", seed=7).evaluate(positions)[0]
    np.testing.assert_array_equal(first, again)
    # A random net is not symmetric: eight draws are not all the identity.
    ev = NetEvaluator(model, symmetries="random", seed=7)
    assert any(
        not np.allclose(ev.evaluate(positions)[0], plain, atol=1e-6) for _ in range(8)
    )


@pytest.mark.parametrize("symmetries", ["none", "average"])
def test_batch_equals_single(symmetries: str) -> None:
    # fp32: in bf16 (the default on CPUs with AMX or AVX512-BF16) calls below 4 rows
    # run in fp32.
    ev = NetEvaluator(tiny_net(9), symmetries=symmetries, precision="fp32")
    positions = positions_of(_boards(9))
    priors, values = ev.evaluate(positions)
    for i in range(len(positions)):
        p, v = ev.evaluate(positions.subset([i]))
        np.testing.assert_allclose(p[0], priors[i], atol=1e-5)
        np.testing.assert_allclose(v[0], values[i], atol=1e-5)


def test_behind_cache() -> None:
    ev = NetEvaluator(tiny_net(9), symmetries="average")
    cached = CachedEvaluator(ev)
    positions = positions_of(_boards(9)[:3])
    direct = ev.evaluate(positions)
    first = cached.evaluate(positions)
    second = cached.evaluate(positions)
    assert cached.misses == len(positions) and cached.hits == len(positions)
    for got in (first, second):
        np.testing.assert_allclose(got[0], direct[0], atol=1e-6)
        np.testing.assert_allclose(got[1], direct[1], atol=1e-6)


def test_puct_search_plays_legal_moves() -> None:
    board = goboard.Board(9)
    ev = CachedEvaluator(NetEvaluator(tiny_net(9), symmetries="random", seed=3))
    config = SearchConfig(num_simulations=24, leaves_per_batch=4)
    for _ in range(4):
        result = PUCT(ev, board, config, rng=5).search()
        assert result.visits.sum() >= 24
        assert board.is_legal(result.move)
        board.play(result.move)


def test_threads_are_set() -> None:
    before = torch.get_num_threads()
    try:
        NetEvaluator(tiny_net(9), threads=2)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_bad_arguments() -> None:
    model = tiny_net(9)
    with pytest.raises(ValueError):
        NetEvaluator(model, symmetries="all")
    with pytest.raises(ValueError):
        NetEvaluator(model, symmetries=9)
    with pytest.raises(TypeError):
        NetEvaluator(model, threads=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        NetEvaluator(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="9x9"):
        NetEvaluator(model).evaluate(positions_of([goboard.Board(13)]))


@pytest.mark.parametrize("symmetries", ["none", "average"])
def test_scored_evaluation_sums_the_ownership_of_the_side_to_move(
    symmetries: str,
) -> None:
    model = tiny_net(9, ownership=True)
    ev = NetEvaluator(model, symmetries=symmetries, precision="fp32")
    assert isinstance(ev, ScoredEvaluator)
    boards = _boards(9)[:3]
    positions = positions_of(boards)
    priors, values, areas, variances = ev.evaluate_scored(positions)
    want_p, want_v = ev.evaluate(positions)
    np.testing.assert_allclose(priors, want_p, atol=1e-6)
    np.testing.assert_allclose(values, want_v, atol=1e-6)
    black = ev.ownership(positions).reshape(len(boards), -1).astype(np.float64)
    movers = np.array([b.to_play for b in boards], dtype=np.float64)
    own = black * movers[:, None]  # the side to move's view
    assert areas.dtype == variances.dtype == np.float32
    np.testing.assert_allclose(areas, own.sum(axis=1), atol=1e-4)
    np.testing.assert_allclose(variances, (1 - own**2).sum(axis=1), atol=1e-4)
    empty = ev.evaluate_scored(positions.subset([]))
    assert [a.shape[0] for a in empty] == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="ownership"):
        NetEvaluator(tiny_net(9)).evaluate_scored(positions)


def test_asking_for_ownership_leaves_the_search_transforms_alone() -> None:
    """An analysis asks for each move's ownership between a search's evaluations:
    the search must see the same random transforms as without those calls."""
    model = tiny_net(9, ownership=True)
    positions = positions_of(_boards(9)[:3])
    quiet = NetEvaluator(model, symmetries="random", seed=5, precision="fp32")
    asked = NetEvaluator(model, symmetries="random", seed=5, precision="fp32")
    for _ in range(3):
        asked.ownership(positions)
        np.testing.assert_array_equal(
            asked.evaluate(positions)[0], quiet.evaluate(positions)[0]
        )
        asked.evaluate_scored(positions)  # a scored search draws as evaluate does
        quiet.evaluate(positions)


def test_ownership_is_from_blacks_view() -> None:
    model = tiny_net(9, ownership=True)
    boards = _boards(9)[1:3]  # White to move after 5 moves, Black after 30
    assert [b.to_play for b in boards] == [goboard.WHITE, goboard.BLACK]
    positions = positions_of(boards)
    owner = NetEvaluator(model, symmetries="none", precision="fp32").ownership(
        positions
    )
    planes = positions.pool.features(positions.slots, "agz17")
    with torch.no_grad():
        _, _, raw = model(torch.from_numpy(planes))
    assert raw is not None
    np.testing.assert_allclose(owner[0], -raw[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(owner[1], raw[1].numpy(), atol=1e-6)
    # The average maps each transform back: equal to the slow computation.
    ev = NetEvaluator(model, symmetries="average", precision="fp32")
    average = ev.ownership(positions)
    sym = goboard.symmetries
    want = np.zeros_like(average)
    for s in range(8):
        x = torch.from_numpy(np.ascontiguousarray(sym.transform_planes(planes, s)))
        with torch.no_grad():
            _, _, out = model(x)
        assert out is not None
        back = sym.transform_planes(out.numpy(), sym.inverse(s))
        want += np.asarray(back, dtype=np.float32) / 8
    want *= np.array([-1, 1], dtype=np.float32)[:, None, None]
    np.testing.assert_allclose(average, want, atol=1e-5)
    with pytest.raises(ValueError, match="ownership"):
        NetEvaluator(tiny_net(9)).ownership(positions)


def test_legal_moves_are_worked_out_while_the_network_runs(monkeypatch) -> None:
    """evaluate hands the legal masks to _run to compute once the network's work is
    queued (on a GPU, while it runs); ownership, which needs none, does not."""
    ev = NetEvaluator(tiny_net(9, ownership=True), symmetries="none")
    seen = []
    real = NetEvaluator._run

    def spy(self, x, source, transforms, meanwhile=None):
        cached = positions._legal is not None
        out = real(self, x, source, transforms, meanwhile)
        seen.append((meanwhile is not None, cached, positions._legal is not None))
        return out

    monkeypatch.setattr(NetEvaluator, "_run", spy)
    positions = positions_of([random_board(9, 10, 1)])
    ev.ownership(positions)
    assert seen == [(False, False, False)]
    ev.evaluate(positions)
    assert seen[1] == (True, False, True)
