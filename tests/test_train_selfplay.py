"""Self-play game production: examples, records, determinism, workers and Ray.

Tiny games (5x5, a 2-block 8-filter net, a dozen simulations) keep the file fast; the
examples are checked against records replayed on fresh boards.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402
from search_helpers import FakeEvaluator  # noqa: E402

import goboard  # noqa: E402
from alphago.nets import (  # noqa: E402
    NetEvaluator,
    PolicyValueNet,
    load_weights,
    save_weights,
)
from alphago.nets.weights import weights_bytes  # noqa: E402
from alphago.rollout_weights import save_rollout_weights  # noqa: E402
from alphago.sgf import GameRecord, start_board  # noqa: E402
from alphago.train import selfplay as selfplay_module  # noqa: E402
from alphago.train.selfplay import (  # noqa: E402
    SelfPlayConfig,
    SelfPlayResult,
    play_games,
    selfplay_job,
)
from alphago.train.workers import SEED_STRIDE, Job, plan_jobs, run_selfplay  # noqa: E402
from goboard import pattern_features  # noqa: E402
from search import (  # noqa: E402
    MCTS,
    PUCT,
    AlphaGo2016,
    AlphaGo2016Config,
    Gumbel,
    PatternRollouts,
    Positions,
    SearchConfig,
    SearchResult,
)

SIZE = 5
CONFIG = SelfPlayConfig(
    simulations=12, parallel_games=3, leaves_per_batch=4, size=SIZE, komi=0.5
)


def net(kind: str = "agz17", seed: int = 0) -> PolicyValueNet:
    return tiny_net(SIZE, kind, blocks=2, filters=8, seed=seed)


def winner_of(record: GameRecord) -> int:
    assert record.result is not None
    if record.result == "0":
        return 0
    return goboard.BLACK if record.result.startswith("B+") else goboard.WHITE


def assert_same(a: SelfPlayResult, b: SelfPlayResult) -> None:
    assert a.examples.kind == b.examples.kind
    np.testing.assert_array_equal(a.examples.planes, b.examples.planes)
    np.testing.assert_array_equal(a.examples.policy, b.examples.policy)
    np.testing.assert_array_equal(a.examples.value, b.examples.value)
    assert a.records == b.records
    assert a.moves == b.moves
    assert a.resign_false_positives == b.resign_false_positives
    assert a.resign_checked == b.resign_checked
    assert a.cheap_moves == b.cheap_moves


def replay_positions(record: GameRecord, kind: str) -> Iterator[tuple[Any, ...]]:
    """(board before the move, colour, move) for each move, played legally."""
    board = start_board(record, "chinese")
    for colour, move in record.moves:
        assert board.to_play == colour
        yield board.copy(), colour, move
        board.play(move)  # raises on an illegal move
    yield board, 0, -1


@pytest.fixture(scope="module", params=["agz17", "lz18"])
def played(request: pytest.FixtureRequest) -> tuple[str, SelfPlayResult]:
    kind: str = request.param
    return kind, play_games(net(kind), CONFIG, 5, seed=7)


def test_shapes_and_dtypes(played: tuple[str, SelfPlayResult]) -> None:
    kind, result = played
    ex = result.examples
    planes = 17 if kind == "agz17" else 18
    n = len(ex)
    assert ex.kind == kind
    assert n == result.moves == sum(len(r.moves) for r in result.records) > 0
    assert ex.planes.dtype == np.uint8 and ex.planes.shape == (n, planes, SIZE, SIZE)
    assert ex.policy.dtype == np.float32 and ex.policy.shape == (n, SIZE * SIZE + 1)
    assert ex.value.dtype == np.float32 and ex.value.shape == (n,)
    assert len(result.records) == 5
    assert result.seconds > 0
    assert result.resign_checked == result.resign_false_positives == 0


def test_examples_match_replayed_records(played: tuple[str, SelfPlayResult]) -> None:
    kind, result = played
    ex = result.examples
    row = 0
    for record in result.records:
        assert record.size == SIZE and record.komi == 0.5
        assert record.players == {goboard.BLACK: "selfplay", goboard.WHITE: "selfplay"}
        winner = winner_of(record)
        for board, colour, move in replay_positions(record, kind):
            if move < 0:  # the final position
                assert record.result == board.result()
                capped = not board.is_over
                assert capped == (record.comment is not None)
                assert (len(record.moves) == CONFIG.move_cap) or not capped
                break
            np.testing.assert_array_equal(
                ex.planes[row], board.features(kind, dtype=np.uint8)
            )
            pi = ex.policy[row]
            assert pi.sum() == pytest.approx(1.0, abs=1e-5)
            assert (pi >= 0).all()
            assert (pi[~board.legal_mask()] == 0).all()
            assert ex.value[row] == winner * colour
            row += 1
    assert row == len(ex)


def test_z_is_zero_on_a_tie() -> None:
    config = dataclasses.replace(CONFIG, komi=0.0, max_moves=2)
    result = play_games(net(), config, 4, seed=3)
    for record in result.records:
        assert len(record.moves) == 2  # one stone each: an even count
        assert record.result == "0"
    assert (result.examples.value == 0).all()


def test_deterministic_for_a_seed() -> None:
    a = play_games(net(), CONFIG, 4, seed=11)
    b = play_games(net(), CONFIG, 4, seed=11)
    c = play_games(net(), CONFIG, 4, seed=12)
    assert_same(a, b)
    assert a.records != c.records


@pytest.mark.parametrize("parallel", [1, 2, 8])
def test_exact_game_count(parallel: int) -> None:
    config = dataclasses.replace(CONFIG, parallel_games=parallel, simulations=6)
    seen: list[int] = []
    result = play_games(net(), config, 5, seed=1, progress=seen.append)
    assert len(result.records) == 5
    assert seen == [1, 2, 3, 4, 5]
    assert len(result.examples) == sum(len(r.moves) for r in result.records)


def test_zero_games() -> None:
    result = play_games(net("lz18"), CONFIG, 0, seed=0)
    assert len(result.examples) == 0 and result.records == []
    assert result.examples.kind == "lz18"


def test_temperature_zero_plays_the_most_visited_move() -> None:
    greedy = dataclasses.replace(CONFIG, temperature_moves=0)
    result = play_games(net(), greedy, 3, seed=5)
    row = 0
    for record in result.records:
        for _, move in record.moves:
            pi = result.examples.policy[row]
            row += 1
            if pi[move] == pi.max():
                continue
            # The only exception: a pass the search preferred, replaced while the
            # game was open.
            assert int(np.argmax(pi)) == SIZE * SIZE and move != SIZE * SIZE
    sampled = dataclasses.replace(CONFIG, temperature_moves=1000)
    result = play_games(net(), sampled, 3, seed=5)
    moves = [m for r in result.records for _, m in r.moves]
    rows = np.arange(len(moves))
    picked = result.examples.policy[rows, moves]
    assert (picked < result.examples.policy.max(axis=1)).any()


def test_no_early_pass() -> None:
    result = play_games(net(), CONFIG, 4, seed=2)
    for record in result.records:
        board = start_board(record, "chinese")
        for colour, move in record.moves:
            if move == SIZE * SIZE and board.last_move != SIZE * SIZE:
                # A pass that does not answer one: only with nothing left to fill.
                points = board.legal_moves()[:-1]
                assert all(board.is_true_eye(p, colour) for p in points)
            board.play(move)


def test_move_cap() -> None:
    config = dataclasses.replace(CONFIG, max_moves=6)
    result = play_games(net(), config, 4, seed=4)
    for record in result.records:
        assert len(record.moves) <= 6
        final = start_board(record, "chinese")
        for _, move in record.moves:
            final.play(move)
        if not final.is_over:
            assert len(record.moves) == 6
            assert record.comment is not None and "move cap" in record.comment
        assert record.result == final.result()
    assert config.move_cap == 6 and CONFIG.move_cap == 2 * SIZE * SIZE


def test_resignation() -> None:
    config = dataclasses.replace(
        CONFIG, resign_threshold=0.0, resign_check_fraction=0.0
    )
    result = play_games(net(), config, 6, seed=8)
    resigned = [r for r in result.records if r.result and r.result.endswith("+R")]
    assert resigned, "expected resignations at threshold 0"
    assert result.resign_checked == 0
    row = 0
    for record in result.records:
        winner = winner_of(record)
        board = start_board(record, "chinese")
        for colour, move in record.moves:
            assert result.examples.value[row] == winner * colour
            board.play(move)
            row += 1
        if record in resigned:
            assert not board.is_over  # the side to move resigned
            assert winner == -board.to_play


def test_resignation_check_games_count_false_positives() -> None:
    config = dataclasses.replace(
        CONFIG, resign_threshold=0.0, resign_check_fraction=1.0
    )
    result = play_games(net(), config, 6, seed=8)
    checked = false_positives = 0
    for record in result.records:
        assert record.result is not None and not record.result.endswith("+R")
        match = re.search(r"([BW]) would have resigned", record.comment or "")
        if match:
            checked += 1
            colour = goboard.BLACK if match.group(1) == "B" else goboard.WHITE
            false_positives += winner_of(record) != -colour
    assert checked > 0
    assert result.resign_checked == checked
    assert result.resign_false_positives == false_positives


def test_config_validation() -> None:
    config = SelfPlayConfig()
    assert config.c_puct == SearchConfig().c_puct
    assert config.max_moves is None and config.move_cap == 162
    assert config.search_config().dirichlet_fraction == 0.25
    assert SelfPlayConfig(resign_threshold=0.9).search_config().resign_threshold == -0.9
    with pytest.raises(TypeError, match="simulations"):
        SelfPlayConfig(simulations=1.5)  # type: ignore[arg-type]
    for bad in (
        {"simulations": 0},
        {"parallel_games": 0},
        {"dirichlet_alpha": 0.0},
        {"dirichlet_epsilon": 1.5},
        {"temperature_moves": -1},
        {"max_moves": 0},
        {"resign_threshold": 1.5},
        {"resign_check_fraction": -0.1},
        {"size": 1},
        {"rules": "japanese"},
    ):
        with pytest.raises(ValueError):
            SelfPlayConfig(**bad)


def test_gumbel_search_trains_on_the_improved_policy() -> None:
    # Four root moves and 12 simulations visit a handful of moves; the improved
    # policy puts weight on every legal move the search may play, and nothing else.
    config = dataclasses.replace(
        CONFIG, search="gumbel", considered_actions=4, temperature_moves=1000
    )
    result = play_games(net(), config, 3, seed=3)
    assert_same(result, play_games(net(), config, 3, seed=3))
    policy = result.examples.policy
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-5)
    row = 0
    for record in result.records:
        for board, colour, move in replay_positions(record, "agz17"):
            if move < 0:
                break
            legal = board.legal_mask()
            points = board.legal_moves()[:-1]
            eyes = [p for p in points if board.is_true_eye(p, colour)]
            searched = legal.copy()
            searched[eyes] = False
            assert ((policy[row] > 0) == searched).all()
            row += 1
    assert row == len(policy)
    puct = play_games(net(), dataclasses.replace(config, search="puct"), 3, seed=3)
    assert (np.count_nonzero(puct.examples.policy, axis=1) <= 12 + 1).any()
    with pytest.raises(ValueError, match="search"):
        SelfPlayConfig(search="ucb")
    with pytest.raises(ValueError, match="considered_actions"):
        SelfPlayConfig(considered_actions=0)
    assert SelfPlayConfig(considered_actions=5).gumbel_config().considered_actions == 5


# -- playout cap randomisation --------------------------------------------------------

CAP = dataclasses.replace(CONFIG, full_search_fraction=0.25, cheap_simulations=3)


def digest(result: SelfPlayResult) -> str:
    h = hashlib.sha256()
    ex = result.examples
    for array in (ex.planes, ex.policy, ex.value):
        h.update(np.ascontiguousarray(array).tobytes())
    h.update(repr([r.moves for r in result.records]).encode())
    return h.hexdigest()[:16]


@pytest.fixture
def fake_net(monkeypatch: pytest.MonkeyPatch) -> None:
    """Self-play's evaluator becomes the search tests' fake: pure numpy, so the games
    are the same on every machine."""
    monkeypatch.setattr(
        selfplay_module, "NetEvaluator", lambda *args, **kwargs: FakeEvaluator()
    )


class Searches:
    """Wraps ``run`` of the search class ``cls``: the budgets and root-noise flags
    each call asked for, and the simulations its searches ran."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cls: type[MCTS]) -> None:
        self.asked: list[int] = []
        self.noise: list[bool] = []
        self.ran: list[int] = []
        self.resign: list[bool] = []
        original = cls.run

        def run(engine: MCTS, *args: Any, **kwargs: Any) -> list[SearchResult]:
            results = original(engine, *args, **kwargs)
            self.asked += np.asarray(kwargs["simulations"]).tolist()
            self.noise += np.asarray(kwargs["root_noise"]).tolist()
            self.ran += [r.num_simulations for r in results]
            self.resign += [r.resign for r in results]
            return results

        monkeypatch.setattr(cls, "run", run)


@pytest.mark.usefixtures("fake_net")
@pytest.mark.parametrize(
    ("search", "pinned"), [("puct", "702c5b9a7372c58d"), ("gumbel", "68cb853daf88c5e2")]
)
def test_without_the_playout_cap_the_games_are_as_before(
    search: str, pinned: str
) -> None:
    # Digests of the examples and moves of the code before the playout cap existed.
    config = dataclasses.replace(CONFIG, search=search)
    assert digest(play_games(net(), config, 4, seed=11)) == pinned
    unused = dataclasses.replace(config, cheap_simulations=3)
    assert digest(play_games(net(), unused, 4, seed=11)) == pinned


@pytest.mark.usefixtures("fake_net")
def test_a_quarter_of_the_moves_become_examples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searches = Searches(monkeypatch, PUCT)
    result = play_games(net(), CAP, 6, seed=5)
    moves = sum(len(r.moves) for r in result.records)
    assert result.moves == moves == 212 == len(searches.ran)  # no resignation here
    # Pinned for this seed (the draws come from the seed alone). Why 59 is right: a
    # Binomial(212, 0.25) count is within 4 standard deviations (6.3 each) of
    # 212 / 4 = 53 but for a chance of about 6e-5.
    examples = len(result.examples)
    assert examples == result.full_moves == 59
    assert result.cheap_moves == moves - examples
    assert abs(examples - moves / 4) <= 4 * (moves * 0.25 * 0.75) ** 0.5
    # Full searches ran the full budget with root noise, cheap ones 3 without.
    full = np.array(searches.asked) == CAP.simulations
    assert set(searches.asked) == {12, 3} and int(full.sum()) == examples
    assert searches.noise == full.tolist()
    assert searches.ran == searches.asked
    assert_same(result, play_games(net(), CAP, 6, seed=5))
    twice = SelfPlayResult.merge([result, result])
    assert (twice.cheap_moves, twice.full_moves) == (2 * (moves - 59), 2 * 59)


@pytest.mark.parametrize(("search", "cls"), [("puct", PUCT), ("gumbel", Gumbel)])
def test_only_full_searches_become_examples(
    monkeypatch: pytest.MonkeyPatch, search: str, cls: type[MCTS]
) -> None:
    # One game at a time: the searches come in the order of the records' moves.
    config = dataclasses.replace(CAP, parallel_games=1, search=search)
    searches = Searches(monkeypatch, cls)
    result = play_games(net(), config, 3, seed=2)
    full = iter(np.array(searches.asked) == config.simulations)
    ex = result.examples
    row = 0
    for record in result.records:
        winner = winner_of(record)
        for board, colour, move in replay_positions(record, "agz17"):
            if move < 0:
                break
            if not next(full):
                continue
            np.testing.assert_array_equal(
                ex.planes[row], board.features("agz17", dtype=np.uint8)
            )
            assert ex.value[row] == winner * colour
            row += 1
    assert row == len(ex) == result.full_moves > 0
    assert next(full, None) is None
    assert set(searches.asked) == {config.simulations, config.cheap_budget}
    # A full tree ends a search early (a reused subtree may nearly fill one).
    assert (np.array(searches.ran) <= searches.asked).all()


@pytest.mark.usefixtures("fake_net")
def test_resignation_after_either_kind_of_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = dataclasses.replace(
        CAP,
        full_search_fraction=0.5,
        resign_threshold=0.0,
        resign_check_fraction=0.0,
    )
    searches = Searches(monkeypatch, PUCT)
    result = play_games(net(), config, 6, seed=8)
    resigned = sum(r.result.endswith("+R") for r in result.records if r.result)
    # Every game may resign: its first search that says so ends it, full or cheap.
    assert resigned == sum(searches.resign) > 0
    assert len(searches.ran) == result.moves + resigned
    kinds = {n for n, r in zip(searches.asked, searches.resign, strict=True) if r}
    assert kinds == {config.simulations, config.cheap_budget}
    assert result.full_moves == len(result.examples)


def test_playout_cap_config() -> None:
    assert SelfPlayConfig().full_search_fraction == 1.0
    assert SelfPlayConfig(simulations=200).cheap_budget == 40
    assert SelfPlayConfig(simulations=3).cheap_budget == 1
    assert SelfPlayConfig(cheap_simulations=7).cheap_budget == 7
    for bad in (0.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="full_search_fraction"):
            SelfPlayConfig(full_search_fraction=bad)
    with pytest.raises(TypeError, match="full_search_fraction"):
        SelfPlayConfig(full_search_fraction="0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cheap_simulations must be >= 1"):
        SelfPlayConfig(cheap_simulations=0)
    with pytest.raises(ValueError, match="cheap_simulations must be < simulations"):
        SelfPlayConfig(simulations=12, cheap_simulations=12, full_search_fraction=0.5)
    with pytest.raises(ValueError, match="cheap_simulations must be < simulations"):
        SelfPlayConfig(simulations=1, full_search_fraction=0.5)  # default 1
    # Unused at fraction 1, so any budget will do.
    assert SelfPlayConfig(simulations=12, cheap_simulations=50).cheap_budget == 50


def _uniform_rollouts(tmp_path: Path) -> str:
    """A rollout policy file with every weight 0: uniform random rollouts."""
    path = tmp_path / "rollout.npz"
    save_rollout_weights(np.zeros(pattern_features.NUM_FEATURES, np.float32), path)
    return str(path)


@pytest.mark.parametrize(("search", "cls"), [("puct", AlphaGo2016), ("gumbel", Gumbel)])
def test_rollouts_mixed_into_every_leaf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, search: str, cls: type[MCTS]
) -> None:
    weights = _uniform_rollouts(tmp_path)
    config = dataclasses.replace(
        CONFIG, search=search, mix_lambda=0.5, rollout_weights=weights
    )
    counts = {"net": 0, "rollouts": 0, "mix": []}
    # The search asks PatternRollouts through values_later (see ConcurrentRollouts).
    evaluate, values = NetEvaluator.evaluate, PatternRollouts.values_later
    init = cls.__init__

    def counted_evaluate(self: NetEvaluator, positions: Positions) -> Any:
        counts["net"] += len(positions)
        return evaluate(self, positions)

    def counted_values(self: PatternRollouts, positions: Positions) -> Any:
        counts["rollouts"] += len(positions)
        return values(self, positions)

    def recorded_init(self: MCTS, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        counts["mix"].append(self.mix_lambda)

    monkeypatch.setattr(NetEvaluator, "evaluate", counted_evaluate)
    monkeypatch.setattr(PatternRollouts, "values_later", counted_values)
    monkeypatch.setattr(cls, "__init__", recorded_init)
    result = play_games(net(), config, 3, seed=4)
    # The play engine's leaf evaluation: every position the net saw was played out.
    assert counts["mix"] == [0.5]
    assert counts["rollouts"] == counts["net"] > 0
    assert_same(result, play_games(net(), config, 3, seed=4))  # reproducible
    counts["rollouts"] = 0
    plain = dataclasses.replace(config, mix_lambda=0.0)
    assert plain.search_config().__class__ is SearchConfig
    play_games(net(), plain, 1, seed=4)
    assert counts["rollouts"] == 0


def test_mix_config(tmp_path: Path) -> None:
    path = _uniform_rollouts(tmp_path)
    config = SelfPlayConfig(size=SIZE, mix_lambda=0.25, rollout_weights=path)
    puct = config.search_config()
    assert isinstance(puct, AlphaGo2016Config) and puct.mix_lambda == 0.25
    assert puct.c_puct == config.c_puct and puct.dirichlet_fraction == 0.25
    assert config.gumbel_config().mix_lambda == 0.25
    assert config.rollout_path() == Path(path)
    shipped = SelfPlayConfig(size=9, mix_lambda=0.5).rollout_path()
    assert shipped.name == "rollout-9x9.npz"
    with pytest.raises(ValueError, match="no rollout policy ships for 5x5"):
        SelfPlayConfig(size=SIZE, mix_lambda=0.5)
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="mix_lambda"):
            SelfPlayConfig(mix_lambda=bad)
    with pytest.raises(TypeError, match="rollout_weights"):
        SelfPlayConfig(mix_lambda=0.5, rollout_weights=Path(path))  # type: ignore[arg-type]


def test_board_size_mismatch() -> None:
    with pytest.raises(ValueError, match="5x5"):
        play_games(net(), SelfPlayConfig(size=9), 1, seed=0)


def test_merge() -> None:
    a = play_games(net(), CONFIG, 2, seed=1)
    b = play_games(net(), CONFIG, 1, seed=2)
    merged = SelfPlayResult.merge([a, b])
    assert merged.records == a.records + b.records
    assert merged.moves == a.moves + b.moves == len(merged.examples)
    assert merged.seconds == pytest.approx(a.seconds + b.seconds)
    with pytest.raises(ValueError):
        SelfPlayResult.merge([])


# -- weights as bytes, jobs, workers -----------------------------------------------


def test_net_bytes_round_trip(tmp_path: Path) -> None:
    model = net("lz18", seed=3)
    data = weights_bytes(model)
    save_weights(model, tmp_path / "net.pt")
    assert (tmp_path / "net.pt").read_bytes() == data
    loaded = load_weights(data)
    assert loaded.config == model.config and not loaded.training
    for key, value in model.state_dict().items():
        assert torch.equal(value, loaded.state_dict()[key])
    other = dataclasses.replace(model.config, filters=4).to_dict()
    with pytest.raises(ValueError, match="weights are for"):
        selfplay_job(data, other, SelfPlayConfig(size=5), 1, 0)
    with pytest.raises(ValueError, match="^weights: "):
        load_weights(b"not a weights file")


def test_plan_jobs() -> None:
    assert plan_jobs(5, 2, 3) == [Job(3, 3), Job(2, 3 + SEED_STRIDE)]
    assert plan_jobs(1, 3, 0) == [Job(1, 0)]
    assert plan_jobs(0, 2, 0) == []
    with pytest.raises(ValueError):
        plan_jobs(1, 0, 0)


@pytest.fixture(scope="module")
def weights() -> tuple[bytes, dict[str, Any]]:
    model = net()
    return weights_bytes(model), model.config.to_dict()


def in_process(
    weights: tuple[bytes, dict[str, Any]], games: int, workers: int, seed: int
) -> SelfPlayResult:
    data, config = weights
    jobs = plan_jobs(games, workers, seed)
    return SelfPlayResult.merge(
        [selfplay_job(data, config, CONFIG, j.games, j.seed) for j in jobs]
    )


def test_selfplay_job_restores_threads(weights: tuple[bytes, dict[str, Any]]) -> None:
    before = torch.get_num_threads()
    seen: list[int] = []

    def threads_now(games: int) -> None:
        seen.append(torch.get_num_threads())

    selfplay_job(weights[0], weights[1], CONFIG, 1, 0, before + 1, threads_now)
    assert seen == [before + 1]
    assert torch.get_num_threads() == before


def test_one_worker_runs_in_process(weights: tuple[bytes, dict[str, Any]]) -> None:
    seen: list[int] = []
    result = run_selfplay(*weights, CONFIG, 3, seed=5, workers=1, progress=seen.append)
    assert seen == [1, 2, 3]
    assert_same(result, in_process(weights, 3, 1, 5))


def test_two_processes_equal_the_same_jobs_in_process(
    weights: tuple[bytes, dict[str, Any]],
) -> None:
    seen: list[int] = []
    result = run_selfplay(*weights, CONFIG, 5, seed=9, workers=2, progress=seen.append)
    assert sorted(seen)[-1] == 5 and len(seen) == 2
    assert len(result.records) == 5
    assert_same(result, in_process(weights, 5, 2, 9))


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()


def test_ray_tasks_equal_the_same_jobs_in_process(
    ray_address: str, weights: tuple[bytes, dict[str, Any]]
) -> None:
    seen: list[int] = []
    result = run_selfplay(
        *weights,
        CONFIG,
        4,
        seed=2,
        workers=2,
        ray_address=ray_address,
        progress=seen.append,
    )
    assert sorted(seen) == [2, 4]
    assert_same(result, in_process(weights, 4, 2, 2))
