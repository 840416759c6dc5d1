"""Self-play reinforcement learning (``alphago.train.rl``): the three phases, the KL
rule, the replay window, resumption, initial weights, GNU Go and Ray.

Tiny everywhere: 5x5 boards, a 1-block 8-filter net, 4 games per iteration at 8
simulations, a 2-game gate at 4 simulations. The replay-window and KL tests replace
self-play by a fake that returns numbered examples, which makes them fast and exact.
The GNU Go test runs only where GNU Go is installed (deselect it with ``-k "not
gnugo"``); the Ray test only where Ray is importable.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from records_helpers import random_examples

torch = pytest.importorskip("torch")

import alphago.train.rl as rl_module  # noqa: E402
from alphago.data.examples import Examples  # noqa: E402
from alphago.nets.model import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.weights import (  # noqa: E402
    load_weights,
    save_weights,
    weights_bytes,  # noqa: E402
)
from alphago.sgf import GameRecord, read_sgf  # noqa: E402
from alphago.train.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from alphago.train.learner import Learner, TrainConfig  # noqa: E402
from alphago.train.metrics import read_metrics  # noqa: E402
from alphago.train.rl import (  # noqa: E402
    LR_MULTIPLIER_RANGE,
    RLConfig,
    adapt_multiplier,
    train_rl,
)
from alphago.train.selfplay import (  # noqa: E402
    SelfPlayConfig,
    SelfPlayResult,
    selfplay_job,
)
from alphago.train.workers import plan_jobs  # noqa: E402

torch.set_num_threads(1)

SIZE = 5
NET = NetConfig(board_size=SIZE, blocks=1, filters=8)
SELFPLAY = SelfPlayConfig(
    simulations=8, parallel_games=4, leaves_per_batch=4, size=SIZE, komi=0.5
)
CONFIG = RLConfig(
    iterations=2,
    games_per_iteration=4,
    replay_window=10_000,
    updates_per_iteration=3,
    epochs=2,
    gate_games=2,
    eval_simulations=4,
    baseline_every=1,
    baseline_games=2,
    workers=1,
    seed=5,
    selfplay=SELFPLAY,
)
TRAIN = TrainConfig(lr=1e-3, batch_size=16)


def weights_equal(a: PolicyValueNet, b: PolicyValueNet) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def assert_same_learner(a: Learner, b: Learner) -> None:
    assert a.step == b.step and a.lr_multiplier == b.lr_multiplier
    assert weights_equal(a.model, b.model)
    oa, ob = a.optimizer.state_dict()["state"], b.optimizer.state_dict()["state"]
    assert oa.keys() == ob.keys()
    for key in oa:
        for name, value in oa[key].items():
            assert torch.equal(torch.as_tensor(value), torch.as_tensor(ob[key][name]))


def assert_same_examples(a: Examples, b: Examples) -> None:
    assert a.kind == b.kind
    np.testing.assert_array_equal(a.planes, b.planes)
    np.testing.assert_array_equal(a.policy, b.policy)
    np.testing.assert_array_equal(a.value, b.value)


def load_replay(run: Path) -> Examples:
    """The replay window the run's checkpoint names (the only one on disk)."""
    name = load_checkpoint(run / "checkpoint.pt")["replay_file"]
    assert [p.name for p in run.glob("replay-*.npz")] == [name]
    return Examples.load(run / name)


def kinds_and_steps(run: Path) -> list[tuple[str, int]]:
    return [(r["kind"], r["step"]) for r in read_metrics(run / "metrics.jsonl")]


# -- the KL rule --------------------------------------------------------------------


def test_adapt_multiplier_rule_and_bounds() -> None:
    target = 0.02
    assert adapt_multiplier(1.0, 0.05, target) == pytest.approx(1 / 1.5)
    assert adapt_multiplier(1.0, 0.005, target) == pytest.approx(1.5)
    for kl in (0.01, 0.02, 0.04):  # target / 2 and 2 * target included: kept
        assert adapt_multiplier(1.0, kl, target) == 1.0
    low, high = LR_MULTIPLIER_RANGE
    assert (low, high) == (0.1, 10.0)
    assert adapt_multiplier(0.12, 1.0, target) == low
    assert adapt_multiplier(low, 1.0, target) == low
    assert adapt_multiplier(9.0, 0.0, target) == high
    assert adapt_multiplier(high, 0.0, target) == high


def test_rl_config_validation_and_dict_round_trip() -> None:
    for bad in (
        {"iterations": 0},
        {"games_per_iteration": 0},
        {"epochs": 0},
        {"workers": 0},
        {"updates_per_iteration": -1},
        {"kl_target": 0.0},
        {"gate_threshold": 1.5},
        {"gnugo_level": 11},
    ):
        with pytest.raises(ValueError):
            RLConfig(**bad)
    assert RLConfig.from_dict(CONFIG.to_dict()) == CONFIG


# -- with a fake self-play ----------------------------------------------------------


class FakeSelfPlay:
    """Stands in for ``run_selfplay``: ``per_game`` examples per game, numbered in
    their ``value`` (scaled to stay in [-1, 1]) in the order they were produced."""

    def __init__(self, per_game: int = 3) -> None:
        self.per_game = per_game
        self.made = 0
        self.calls: list[dict[str, Any]] = []

    def __call__(
        self,
        weights: bytes,
        net_config: dict[str, Any],
        config: SelfPlayConfig,
        games: int,
        seed: int,
        **kwargs: Any,
    ) -> SelfPlayResult:
        self.calls.append(dict(kwargs, games=games, seed=seed))
        n = games * self.per_game
        rng = np.random.default_rng(seed)
        planes = rng.integers(0, 2, (n, 17, SIZE, SIZE), dtype=np.uint8)
        policy = rng.random((n, SIZE * SIZE + 1), dtype=np.float32)
        policy /= policy.sum(1, keepdims=True)
        value = (np.arange(self.made, self.made + n) / 1000.0).astype(np.float32)
        self.made += n
        records = [GameRecord(size=SIZE, result="B+1") for _ in range(games)]
        return SelfPlayResult(Examples(planes, policy, value), records, n, 0.5)


def fake_config(**changes: Any) -> RLConfig:
    base = dataclasses.replace(
        CONFIG, gate_games=0, baseline_every=0, updates_per_iteration=0
    )
    return dataclasses.replace(base, **changes)


def test_selfplay_metrics_count_moves_and_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeSelfPlay(per_game=3)  # 12 examples an iteration

    def with_cheap_moves(*args: Any, **kwargs: Any) -> SelfPlayResult:
        result = fake(*args, **kwargs)
        return dataclasses.replace(result, moves=result.moves + 5, cheap_moves=5)

    monkeypatch.setattr(rl_module, "run_selfplay", with_cheap_moves)
    config = fake_config(iterations=2)
    train_rl(tmp_path, config, NET, TRAIN, progress=False, stop_after=(0, "selfplay"))
    # A checkpoint from before moves were counted: every move was an example.
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    assert (state.pop("moves"), state["examples"]) == (17, 12)
    save_checkpoint(tmp_path / "checkpoint.pt", state)
    train_rl(tmp_path, progress=False)
    lines = [r for r in read_metrics(tmp_path / "metrics.jsonl")]
    selfplay = [(r["moves"], r["examples"]) for r in lines if r["kind"] == "selfplay"]
    assert selfplay == [(17, 12), (12 + 17, 24)]
    assert load_checkpoint(tmp_path / "checkpoint.pt")["moves"] == 29


def test_a_cpu_budget_ends_the_run_after_the_iteration_that_reaches_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fake CPU clock that only self-play advances, by 1000 s a call.
    clock = [0.0]
    fake = FakeSelfPlay(per_game=3)

    def costly(*args: Any, **kwargs: Any) -> SelfPlayResult:
        clock[0] += 1000.0
        return fake(*args, **kwargs)

    monkeypatch.setattr(rl_module, "run_selfplay", costly)
    monkeypatch.setattr(rl_module, "process_cpu_seconds", lambda: clock[0])
    config = fake_config(iterations=10)

    def run(hours: float) -> tuple[int, float]:
        train_rl(tmp_path, config, NET, TRAIN, progress=False, cpu_hours=hours)
        state = load_checkpoint(tmp_path / "checkpoint.pt")
        assert state["phase"] == "selfplay"
        return state["iteration"], state["cpu_seconds"]

    assert run(0.5) == (2, 2000.0)  # 1000 s < 1800 s: one more iteration
    assert run(0.5) == (2, 2000.0)  # spent: a rerun plays nothing
    clock[0] += 5.0  # a new process's own start-up does not count for the run
    assert run(1.0) == (4, 4000.0)  # the budget is not stored: more goes on
    hours = [
        r["cpu_hours"]
        for r in read_metrics(tmp_path / "metrics.jsonl")
        if r["kind"] == "selfplay"
    ]
    assert hours == pytest.approx([1000 / 3600, 2000 / 3600, 3000 / 3600, 4000 / 3600])
    with pytest.raises(ValueError, match="cpu_hours must be > 0"):
        train_rl(tmp_path, config, NET, TRAIN, progress=False, cpu_hours=0.0)


def test_replay_window_keeps_the_most_recent_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeSelfPlay(per_game=3)  # 12 examples an iteration
    monkeypatch.setattr(rl_module, "run_selfplay", fake)
    config = fake_config(iterations=3, replay_window=20)
    train_rl(tmp_path, config, NET, TRAIN, progress=False)
    replay = load_replay(tmp_path)
    assert fake.made == 36
    np.testing.assert_array_equal(
        replay.value, (np.arange(16, 36) / 1000.0).astype(np.float32)
    )
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    assert (state["games"], state["examples"]) == (12, 36)
    assert (state["iteration"], state["phase"]) == (3, "selfplay")
    lines = [r for r in read_metrics(tmp_path / "metrics.jsonl")]
    assert [r["replay"] for r in lines if r["kind"] == "selfplay"] == [12, 20, 20]
    assert [r["games"] for r in lines if r["kind"] == "selfplay"] == [4, 8, 12]
    # Each iteration's self-play has its own seed; the same worker settings.
    assert len({c["seed"] for c in fake.calls}) == 3
    assert all(c["workers"] == 1 and c["ray_address"] is None for c in fake.calls)


def test_kl_above_the_target_stops_a_round_after_one_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rl_module, "run_selfplay", FakeSelfPlay())
    config = fake_config(
        iterations=1, updates_per_iteration=8, epochs=4, kl_target=1e-9
    )
    learner = train_rl(tmp_path, config, NET, TRAIN, progress=False)
    rows = [r for r in read_metrics(tmp_path / "metrics.jsonl") if r["kind"] == "train"]
    assert len(rows) == 8
    assert [r["epochs"] for r in rows] == [1] * 8
    assert all(r["kl"] > 4e-9 for r in rows)
    assert learner.step == 8 == rows[-1]["step"]
    # The multiplier falls by 1.5 a round down to its floor; the rate follows it.
    want = [max(0.1, 1.5 ** -(i + 1)) for i in range(8)]
    assert [r["lr_multiplier"] for r in rows] == pytest.approx(want)
    assert [r["lr"] for r in rows] == pytest.approx(
        [1e-3] + [1e-3 * m for m in want[:-1]]
    )
    assert learner.lr_multiplier == pytest.approx(0.1)


def test_kl_below_the_target_runs_every_epoch_and_speeds_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rl_module, "run_selfplay", FakeSelfPlay())
    config = fake_config(iterations=1, updates_per_iteration=3, epochs=3, kl_target=1e3)
    learner = train_rl(tmp_path, config, NET, TRAIN, progress=False)
    rows = [r for r in read_metrics(tmp_path / "metrics.jsonl") if r["kind"] == "train"]
    assert [r["epochs"] for r in rows] == [3, 3, 3]
    assert [r["step"] for r in rows] == [3, 6, 9] and learner.step == 9
    assert [r["lr_multiplier"] for r in rows] == pytest.approx([1.5, 2.25, 3.375])
    # No gate: the candidate (the trained net) became the best.
    best = load_weights(tmp_path / "best.pt")
    assert weights_equal(best, load_weights(tmp_path / "candidate.pt"))
    assert weights_equal(best, learner.model)


class SkippingScaler:
    """A stand-in for fp16's ``GradScaler`` (which needs CUDA here) that skips the
    optimiser steps flagged in ``skips``, halving its scale on each, as the real one
    does on an overflow."""

    def __init__(self, skips: list[bool]) -> None:
        self.skips = skips
        self.scale_now = 2.0**16
        self.calls = 0

    def get_scale(self) -> float:
        return self.scale_now

    def scale(self, loss: torch.Tensor) -> torch.Tensor:
        return loss

    def step(self, optimizer: torch.optim.Optimizer) -> None:
        if not self.skips[self.calls]:
            optimizer.step()

    def update(self) -> None:
        if self.skips[self.calls]:
            self.scale_now /= 2
        self.calls += 1


def test_a_rounds_line_counts_the_skipped_steps_of_all_its_epochs() -> None:
    torch.manual_seed(0)
    learner = Learner(PolicyValueNet(NET), TRAIN)
    learner.scaler = SkippingScaler([False, True, True, False, False, True])
    replay = random_examples(4)
    rng = np.random.default_rng(0)
    config = dataclasses.replace(CONFIG, epochs=3, kl_target=1e3)  # every epoch
    rows = [rl_module.train_round(learner, replay, rng, config) for _ in range(2)]
    assert [r["epochs"] for r in rows] == [3, 3] and learner.step == 6
    assert learner.skipped_steps == 3
    assert [r["skipped"] for r in rows] == [2, 1]
    assert [r["skipped_steps"] for r in rows] == [2, 3]
    assert [r["loss_scale"] for r in rows] == [2.0**14, 2.0**13]


def test_init_weights_start_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rl_module, "run_selfplay", FakeSelfPlay())
    torch.manual_seed(123)
    start = PolicyValueNet(NET)
    save_weights(start, tmp_path / "start.pt")
    other_shape = NetConfig(board_size=SIZE, blocks=2, filters=16)
    learner = train_rl(
        tmp_path / "run",
        fake_config(iterations=1),
        other_shape,  # the file's shape wins
        TRAIN,
        init_weights=tmp_path / "start.pt",
        progress=False,
        stop_after=(0, "selfplay"),
    )
    assert learner.model.config == NET
    assert weights_equal(learner.model, start)
    assert weights_equal(load_weights(tmp_path / "run" / "best.pt"), start)
    state = load_checkpoint(tmp_path / "run" / "checkpoint.pt")
    assert state["net_config"] == NET.to_dict()
    assert (state["iteration"], state["phase"]) == (0, "train")
    # The same seed without init weights starts elsewhere.
    fresh = train_rl(
        tmp_path / "fresh",
        fake_config(iterations=1),
        NET,
        TRAIN,
        progress=False,
        stop_after=(0, "selfplay"),
    )
    assert not weights_equal(fresh.model, start)
    with pytest.raises(ValueError, match="board size"):
        seven = NetConfig(board_size=7, blocks=1, filters=8)
        train_rl(tmp_path / "seven", fake_config(), seven, TRAIN, progress=False)


def test_resuming_another_kind_of_run_fails(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "checkpoint.pt", {"kind": "sl"})
    with pytest.raises(ValueError, match="not a self-play run"):
        train_rl(tmp_path, CONFIG, NET, TRAIN, progress=False)


# -- real self-play ------------------------------------------------------------------


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Learner]:
    """Two uninterrupted iterations of CONFIG."""
    run = tmp_path_factory.mktemp("whole")
    return run, train_rl(run, CONFIG, NET, TRAIN, progress=False)


def test_two_iterations_write_every_file_and_metric(
    whole_run: tuple[Path, Learner],
) -> None:
    run, learner = whole_run
    for name in ("checkpoint.pt", "best.pt", "candidate.pt"):
        assert (run / name).is_file(), name
    state = load_checkpoint(run / "checkpoint.pt")
    assert state["kind"] == "rl"
    assert (state["iteration"], state["phase"]) == (2, "selfplay")
    assert state["games"] == 8
    replay = load_replay(run)
    assert state["examples"] == len(replay) > 8
    assert replay.size == SIZE and set(np.unique(replay.value)) <= {-1.0, 0.0, 1.0}
    np.testing.assert_allclose(replay.policy.sum(1), 1.0, rtol=1e-5)

    records = read_metrics(run / "metrics.jsonl")
    kinds = [r["kind"] for r in records]
    one = ["selfplay", "train", "train", "train", "gate", "eval"]
    assert kinds == one + one
    train = [r for r in records if r["kind"] == "train"]
    for r in train:
        for key in ("loss", "policy_loss", "value_loss", "kl", "lr", "lr_multiplier"):
            assert isinstance(r[key], float), key
        assert "entropy" in r and "explained_variance" in r
        assert 1 <= r["epochs"] <= 2 and r["kl"] >= 0.0
    assert learner.step == sum(r["epochs"] for r in train) == train[-1]["step"]
    selfplay = [r for r in records if r["kind"] == "selfplay"]
    assert [r["games"] for r in selfplay] == [4, 8]
    assert selfplay[1]["examples"] == state["examples"]
    gates = [r for r in records if r["kind"] == "gate"]
    for gate in gates:
        assert gate["wins"] + gate["losses"] + gate["ties"] == 2
        assert gate["accepted"] == (gate["win_rate"] >= CONFIG.gate_threshold)
    evals = [r for r in records if r["kind"] == "eval"]
    assert [r["opponent"] for r in evals] == ["uct-40", "uct-40"]
    assert all(r["wins"] + r["losses"] + r["ties"] == 2 for r in evals)
    # best.pt is the last candidate exactly when the last gate accepted it.
    best, candidate = load_weights(run / "best.pt"), load_weights(run / "candidate.pt")
    assert weights_equal(best, candidate) == gates[-1]["accepted"]
    assert weights_equal(candidate, learner.model)


def test_killed_and_resumed_run_equals_the_uninterrupted_one(
    tmp_path: Path, whole_run: tuple[Path, Learner]
) -> None:
    whole, learner = whole_run
    stopped = train_rl(
        tmp_path, CONFIG, NET, TRAIN, progress=False, stop_after=(0, "train")
    )
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    assert (state["iteration"], state["phase"]) == (0, "evaluate")
    assert stopped.step == state["learner"]["step"] > 0
    resumed = train_rl(tmp_path, progress=False)  # the stored configs
    assert_same_learner(learner, resumed)
    a, b = (
        load_checkpoint(whole / "checkpoint.pt"),
        load_checkpoint(tmp_path / "checkpoint.pt"),
    )
    for key in ("iteration", "phase", "games", "examples"):
        assert a[key] == b[key], key
    assert a["random"]["numpy"] == b["random"]["numpy"]
    assert_same_examples(load_replay(whole), load_replay(tmp_path))
    assert weights_equal(
        load_weights(whole / "best.pt"), load_weights(tmp_path / "best.pt")
    )
    assert kinds_and_steps(whole) == kinds_and_steps(tmp_path)
    keys = kinds_and_steps(tmp_path)
    assert len([k for k in keys if k[0] == "gate"]) == 2  # nothing logged twice


def test_a_crash_between_window_and_checkpoint_writes_loses_nothing_twice(
    tmp_path: Path, whole_run: tuple[Path, Learner], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first save after self-play writes the new window, then dies before the
    # checkpoint: the old checkpoint must still name the old window, and the log line
    # of the lost self-play must not survive the resume.
    whole, learner = whole_run
    real = rl_module.save_checkpoint
    calls = {"n": 0}

    def dying(path: Path, state: dict[str, Any]) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("killed")
        real(path, state)

    monkeypatch.setattr(rl_module, "save_checkpoint", dying)
    with pytest.raises(KeyboardInterrupt):
        train_rl(tmp_path, CONFIG, NET, TRAIN, progress=False)
    assert load_checkpoint(tmp_path / "checkpoint.pt")["phase"] == "selfplay"
    assert [r["kind"] for r in read_metrics(tmp_path / "metrics.jsonl")] == ["selfplay"]
    monkeypatch.setattr(rl_module, "save_checkpoint", real)
    resumed = train_rl(tmp_path, progress=False)
    assert_same_learner(learner, resumed)
    assert_same_examples(load_replay(whole), load_replay(tmp_path))
    assert kinds_and_steps(whole) == kinds_and_steps(tmp_path)


# -- GNU Go and Ray ---------------------------------------------------------------

GNUGO = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed")
def test_gnugo_evaluation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Fair scoring: GNU Go captures its dead stones before passing and an arbiter
    # settles the rest (this loop once ran GNU Go without --capture-all-dead and
    # counted by Tromp-Taylor: our net got the dead stones left in GNU Go's area).
    import alphago.match as match

    commands: list[str] = []
    real = match.run_match

    def spy(engine_a: str, engine_b: str, *args: Any, **kwargs: Any) -> Any:
        commands.append(engine_b)
        return real(engine_a, engine_b, *args, **kwargs)

    monkeypatch.setattr(match, "run_match", spy)
    config = dataclasses.replace(
        CONFIG,
        iterations=1,
        updates_per_iteration=1,
        epochs=1,
        gate_games=0,
        baseline_every=0,
        gnugo_every=1,
        gnugo_games=2,
        gnugo_level=0,
    )
    train_rl(tmp_path, config, NET, TRAIN, progress=False)
    evals = [r for r in read_metrics(tmp_path / "metrics.jsonl") if r["kind"] == "eval"]
    assert len(evals) == 1 and evals[0]["opponent"] == "gnugo-0"
    assert evals[0]["wins"] + evals[0]["losses"] + evals[0]["ties"] == 2
    games = sorted((tmp_path / "games" / "gnugo-0000").glob("*.sgf"))
    assert len(games) == 2
    for path in games:
        record = read_sgf(path.read_bytes())
        assert record.size == SIZE and record.result
        assert "scoring: arbiter (dead stones named by" in path.read_text()
    assert len(commands) == 1 and "--capture-all-dead" in commands[0].split()
    # A run killed after the match resumes it from its journal: nothing is replayed.
    from alphago.train.evaluation import gnugo_match

    stamps = [path.stat().st_mtime_ns for path in games]
    again = gnugo_match(
        tmp_path / "best.pt",
        SIZE,
        config.selfplay.komi,
        config.eval_simulations,
        0,
        2,
        sgf_dir=tmp_path / "games" / "gnugo-0000",
    )
    assert again == (evals[0]["wins"], evals[0]["losses"], evals[0]["ties"])
    assert [path.stat().st_mtime_ns for path in games] == stamps


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()


def test_one_iteration_on_ray(tmp_path: Path, ray_address: str) -> None:
    config = dataclasses.replace(
        CONFIG,
        iterations=1,
        workers=2,
        ray_address=ray_address,
        updates_per_iteration=1,
        baseline_every=0,
    )
    train_rl(tmp_path, config, NET, TRAIN, progress=False, stop_after=(0, "selfplay"))
    # The Ray tasks played exactly the jobs a local run plays.
    best = load_weights(tmp_path / "best.pt")
    seed = rl_module._phase_seed(config.seed, 0, "selfplay")
    jobs = plan_jobs(config.games_per_iteration, 2, seed)
    assert len(jobs) == 2
    want = SelfPlayResult.merge(
        [
            selfplay_job(weights_bytes(best), NET.to_dict(), SELFPLAY, j.games, j.seed)
            for j in jobs
        ]
    )
    assert_same_examples(load_replay(tmp_path), want.examples)
    # The rest of the iteration, resumed (Ray still up, its address stored).
    train_rl(tmp_path, progress=False)
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    assert (state["iteration"], state["phase"]) == (1, "selfplay")
    assert state["games"] == 4
    assert [k for k, _ in kinds_and_steps(tmp_path)] == ["selfplay", "train", "gate"]


@pytest.mark.parametrize("entry", ["iteration", "replay_file", "learner", "rl_config"])
def test_a_checkpoint_with_a_missing_entry_is_a_value_error(
    tmp_path: Path, whole_run: tuple[Path, Learner], entry: str
) -> None:
    # Entries were read with plain indexing: a KeyError traceback.
    run = tmp_path / "run"
    shutil.copytree(whole_run[0], run)
    state = load_checkpoint(run / "checkpoint.pt")
    del state[entry]
    save_checkpoint(run / "checkpoint.pt", state)
    with pytest.raises(ValueError, match="checkpoint.pt: a damaged checkpoint"):
        train_rl(run, progress=False)


# -- anchor data ----------------------------------------------------------------------


def anchor_examples(n: int, kind: str = "agz17", size: int = SIZE) -> Examples:
    """``n`` examples whose values are all -0.75 (self-play's fakes are >= 0)."""
    rng = np.random.default_rng(1)
    planes = rng.integers(0, 2, (n, 17 if kind == "agz17" else 49, size, size))
    policy = np.full((n, size * size + 1), 1.0 / (size * size + 1), np.float32)
    value = np.full(n, -0.75, np.float32)
    return Examples(planes.astype(np.uint8), policy, value, kind)


def test_anchor_settings_are_checked_and_stored() -> None:
    for bad in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="anchor_fraction"):
            RLConfig(anchor_data=("x",), anchor_fraction=bad)
    config = dataclasses.replace(CONFIG, anchor_data=("a", "b"), anchor_fraction=0.5)
    assert RLConfig.from_dict(config.to_dict()) == config
    # A checkpoint written before anchors existed loads without any.
    old = CONFIG.to_dict()
    del old["anchor_data"], old["anchor_fraction"]
    assert RLConfig.from_dict(old).anchor_data == ()


@pytest.mark.parametrize("aux", [False, True])
def test_a_round_draws_the_anchor_share_of_its_batch(aux: bool) -> None:
    weight = 1.0 if aux else 0.0
    train = dataclasses.replace(TRAIN, ownership_weight=weight, score_weight=weight)
    net = dataclasses.replace(NET, ownership_head=aux, score_head=aux)
    learner = Learner(PolicyValueNet(net), train, "cpu")
    seen: list[np.ndarray] = []
    step = learner.train_step

    def spy(planes: Any, policy: Any, value: Any, *rest: Any) -> Any:
        seen.append(np.asarray(value).copy())
        if aux:  # the anchor rows carry no auxiliary targets: masked, not zero
            assert np.isnan(rest[1][value == -0.75]).all()
            assert not np.isnan(rest[1][value != -0.75]).any()
        return step(planes, policy, value, *rest)

    learner.train_step = spy  # type: ignore[method-assign]
    replay = FakeSelfPlay()(b"", {}, SELFPLAY, 20, 0).examples
    if aux:
        replay = dataclasses.replace(
            replay,
            ownership=np.zeros((len(replay), SIZE, SIZE), np.int8),
            score=np.zeros(len(replay), np.float32),
        )
    rng = np.random.default_rng(3)
    for fraction, anchored in ((0.25, 4), (0.01, 1), (0.99, 15)):
        config = dataclasses.replace(CONFIG, epochs=1, anchor_fraction=fraction)
        rl_module.train_round(learner, replay, rng, config, anchor_examples(7))
        assert len(seen[-1]) == 16
        assert int((seen[-1] == -0.75).sum()) == anchored
    rl_module.train_round(learner, replay, rng, CONFIG, None)
    assert not (seen[-1] == -0.75).any()


def test_anchor_data_of_another_kind_or_size_stops_a_new_run_first(
    tmp_path: Path,
) -> None:
    for examples, wanted in (
        (anchor_examples(4, kind="alphago49"), "alphago49 planes"),
        (anchor_examples(4, size=7), "7x7"),
    ):
        examples.save(tmp_path / "anchor.npz")
        config = dataclasses.replace(
            CONFIG, anchor_data=(str(tmp_path / "anchor.npz"),)
        )
        with pytest.raises(ValueError, match=wanted):
            train_rl(tmp_path / "run", config, NET, TRAIN, progress=False)
        assert not (tmp_path / "run").exists()  # nothing was made
    config = dataclasses.replace(CONFIG, anchor_data=(str(tmp_path / "none.npz"),))
    with pytest.raises(ValueError, match="none.npz"):
        train_rl(tmp_path / "run", config, NET, TRAIN, progress=False)
    config = dataclasses.replace(CONFIG, anchor_data=(str(tmp_path / "anchor.npz"),))
    one = dataclasses.replace(TRAIN, batch_size=1)  # no room for both kinds of rows
    with pytest.raises(ValueError, match="a batch of at least 2"):
        train_rl(tmp_path / "run", config, NET, one, progress=False)
    assert not (tmp_path / "run").exists()


def test_an_anchored_run_trains_on_its_shards_and_resumes_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rl_module, "run_selfplay", FakeSelfPlay())
    (tmp_path / "shards").mkdir()
    anchor_examples(9).save(tmp_path / "shards" / "a.npz")
    config = fake_config(
        iterations=2,
        updates_per_iteration=2,
        epochs=1,
        anchor_data=(str(tmp_path / "shards"),),
        anchor_fraction=0.5,
    )
    run = tmp_path / "run"
    monkeypatch.chdir(tmp_path)
    relative = dataclasses.replace(config, anchor_data=("shards",))
    train_rl(run, relative, NET, TRAIN, progress=False, stop_after=(1, "selfplay"))
    stored = load_checkpoint(run / "checkpoint.pt")["rl_config"]
    assert tuple(stored["anchor_data"]) == (str(tmp_path / "shards"),)  # absolute
    monkeypatch.chdir(run)  # a resume from elsewhere finds them
    resumed = train_rl(run, progress=False)  # trains iteration 1 on the stored shards
    monkeypatch.setattr(rl_module, "run_selfplay", FakeSelfPlay())
    whole = train_rl(tmp_path / "whole", config, NET, TRAIN, progress=False)
    assert_same_learner(resumed, whole)
    unanchored = dataclasses.replace(config, anchor_data=())
    monkeypatch.setattr(rl_module, "run_selfplay", FakeSelfPlay())
    plain = train_rl(tmp_path / "plain", unanchored, NET, TRAIN, progress=False)
    assert not weights_equal(plain.model, whole.model)  # the shards were trained on
