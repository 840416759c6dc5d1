"""Supervised training: the loss and its L2 term, learning-rate schedules, the
validation split, and resumable runs (``alphago.train.sl``).

Everything is tiny: 5x5 boards, a 1-block 8-filter net, a fixed data set of 8
seeded random games (about 130 positions) in two shards.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from records_helpers import random_examples, two_shards

torch = pytest.importorskip("torch")

from alphago.data.examples import Examples, load_shards, sample_batch  # noqa: E402
from alphago.nets.model import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.weights import load_weights, save_weights  # noqa: E402
from alphago.train.checkpoint import (  # noqa: E402
    FORMAT,
    git_revision,
    load_checkpoint,
    random_states,
    restore_random_states,
    save_checkpoint,
)
from alphago.train.learner import Learner, TrainConfig  # noqa: E402
from alphago.train.metrics import read_metrics  # noqa: E402
from alphago.train.sl import (  # noqa: E402
    SLConfig,
    split_validation,
    supervised_loop,
    train_sl,
)

torch.set_num_threads(1)

SIZE = 5
NET = NetConfig(board_size=SIZE, blocks=1, filters=8)


@pytest.fixture(scope="module")
def examples() -> Examples:
    return random_examples(8)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory, examples: Examples) -> Path:
    return two_shards(examples, tmp_path_factory.mktemp("shards"), 64)


def assert_same_state(a: Learner, b: Learner) -> None:
    """Weights, batch-norm statistics and optimiser state bit-identical."""
    assert a.step == b.step and a.lr_multiplier == b.lr_multiplier
    sa, sb = a.model.state_dict(), b.model.state_dict()
    assert sa.keys() == sb.keys()
    for key in sa:
        assert torch.equal(sa[key], sb[key]), key
    oa, ob = a.optimizer.state_dict(), b.optimizer.state_dict()
    assert oa["param_groups"] == ob["param_groups"]
    assert oa["state"].keys() == ob["state"].keys()
    for key, slots in oa["state"].items():
        for name, value in slots.items():
            other = ob["state"][key][name]
            if isinstance(value, torch.Tensor):
                assert torch.equal(value, other), (key, name)
            else:
                assert value == other


def without_time(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "time"} for r in records]


# -- the learner ------------------------------------------------------------------


def test_loss_goes_down_on_a_fixed_data_set(tmp_path: Path, shards: Path) -> None:
    train = TrainConfig(lr=1e-2, batch_size=32, l2=1e-4)
    config = SLConfig(
        steps=60, log_every=1, checkpoint_every=60, val_every=30, val_fraction=0.1
    )
    learner = train_sl(tmp_path, [shards], NET, train, config, progress=False)
    assert learner.step == 60
    records = read_metrics(tmp_path / "metrics.jsonl")
    rows = [r for r in records if r["kind"] == "train"]
    assert [r["step"] for r in rows] == list(range(1, 61))
    losses = [r["loss"] for r in rows]
    assert all(math.isfinite(x) for x in losses)
    first, last = np.mean(losses[:5]), np.mean(losses[-5:])
    assert last < first - 0.3, (first, last)
    assert all(r["lr"] == 1e-2 for r in rows)
    for r in rows:
        total = r["policy_loss"] + r["value_loss"] + 1e-4 * r["l2"]
        assert r["loss"] == pytest.approx(total, rel=1e-5)
        assert 0.0 <= r["accuracy"] <= 1.0
    val = [r for r in records if r["kind"] == "validation"]
    assert [r["step"] for r in val] == [30, 60]
    assert val[1]["val_policy_loss"] < val[0]["val_policy_loss"] + 1.0
    assert {"val_policy_loss", "val_value_mse", "val_accuracy"} <= val[0].keys()


def test_l2_covers_conv_and_linear_weights_only(examples: Examples) -> None:
    torch.manual_seed(0)
    model = PolicyValueNet(NET)
    with torch.no_grad():  # non-zero biases and shifts, which must not count
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.uniform_(1.0, 2.0)
    learner = Learner(model, TrainConfig(l2=0.5, value_weight=0.25))
    planes, policy, value = sample_batch(examples, np.random.default_rng(0), 16)
    x, pi, z = (torch.from_numpy(a) for a in (planes, policy, value))
    with torch.no_grad():
        terms, logits, v = learner.losses(x, pi, z)
    want = sum(
        float((m.weight.detach().double() ** 2).sum())
        for m in model.modules()
        if isinstance(m, torch.nn.Conv2d | torch.nn.Linear)
    )
    everything = sum(
        float((p.detach().double() ** 2).sum()) for p in model.parameters()
    )
    assert float(terms["l2"]) == pytest.approx(want, rel=1e-5)
    assert everything > want + 1.0  # the biases would have shown
    policy_loss = float(-(pi * torch.log_softmax(logits, 1)).sum(1).mean())
    value_loss = float(((z - v) ** 2).mean())
    assert float(terms["policy_loss"]) == pytest.approx(policy_loss, rel=1e-5)
    assert float(terms["value_loss"]) == pytest.approx(value_loss, rel=1e-5)
    total = policy_loss + 0.25 * value_loss + 0.5 * want
    assert float(terms["loss"]) == pytest.approx(total, rel=1e-5)


def test_train_step_uses_the_scheduled_rate_and_multiplier(examples: Examples) -> None:
    torch.manual_seed(0)
    config = TrainConfig(lr=0.1, batch_size=8, schedule="step", milestones=(2,))
    learner = Learner(PolicyValueNet(NET), config)
    learner.lr_multiplier = 0.5
    planes, policy, value = sample_batch(examples, np.random.default_rng(1), 8)
    rates = [learner.train_step(planes, policy, value)["lr"] for _ in range(3)]
    assert rates == pytest.approx([0.05, 0.05, 0.005])
    assert learner.step == 3
    assert learner.optimizer.param_groups[0]["lr"] == pytest.approx(0.005)
    out = learner.train_step(planes, policy, value)
    assert {"loss", "policy_loss", "value_loss", "l2", "lr", "entropy"} <= out.keys()
    assert {"accuracy", "explained_variance"} <= out.keys()


def test_sgd_learner_changes_the_weights(examples: Examples) -> None:
    torch.manual_seed(0)
    learner = Learner(
        PolicyValueNet(NET), TrainConfig(optimizer="sgd", lr=0.05, batch_size=8)
    )
    assert isinstance(learner.optimizer, torch.optim.SGD)
    before = {k: v.clone() for k, v in learner.model.state_dict().items()}
    planes, policy, value = sample_batch(examples, np.random.default_rng(2), 8)
    learner.train_step(planes, policy, value)
    after = learner.model.state_dict()
    assert not torch.equal(before["policy_fc.weight"], after["policy_fc.weight"])


# -- schedules and configs ----------------------------------------------------------


def test_constant_schedule() -> None:
    config = TrainConfig(lr=0.3)
    assert [config.rate(s) for s in (0, 1, 10_000)] == [0.3, 0.3, 0.3]


def test_cosine_schedule_reaches_zero_at_total_steps() -> None:
    config = TrainConfig(lr=0.2, schedule="cosine", total_steps=100)
    rates = [config.rate(s) for s in range(0, 151)]
    assert rates[0] == pytest.approx(0.2)
    assert rates[50] == pytest.approx(0.1)
    assert rates[25] == pytest.approx(0.1 * (1 + math.cos(math.pi / 4)))
    assert rates[100] == pytest.approx(0.0, abs=1e-12)
    assert all(r == pytest.approx(0.0, abs=1e-12) for r in rates[100:])
    assert all(a >= b for a, b in zip(rates, rates[1:], strict=False))


def test_step_schedule_divides_by_ten_at_each_milestone() -> None:
    config = TrainConfig(lr=1.0, schedule="step", milestones=(10, 20))
    assert config.rate(0) == config.rate(9) == 1.0
    assert config.rate(10) == config.rate(19) == pytest.approx(0.1)
    assert config.rate(20) == config.rate(10**6) == pytest.approx(0.01)


def test_warmup_ramps_up_linearly() -> None:
    config = TrainConfig(lr=0.4, warmup_steps=4)
    assert [config.rate(s) for s in range(6)] == pytest.approx(
        [0.1, 0.2, 0.3, 0.4, 0.4, 0.4]
    )
    cosine = TrainConfig(lr=0.4, warmup_steps=4, schedule="cosine", total_steps=8)
    assert cosine.rate(0) == pytest.approx(0.1 * 0.5 * (1 + math.cos(0.0)))
    assert cosine.rate(8) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        {"optimizer": "rmsprop"},
        {"schedule": "linear"},
        {"schedule": "cosine"},  # no total_steps
        {"schedule": "step"},  # no milestones: it would be the constant rate
        {"lr": -1.0},
        {"lr": math.nan},
        {"l2": math.inf},
        {"value_weight": -0.5},
        {"momentum": -0.1},
        {"batch_size": 0},
        {"warmup_steps": -1},
        {"total_steps": -1},
    ],
)
def test_train_config_validation(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        TrainConfig(**bad)


def test_train_config_dict_round_trip() -> None:
    config = TrainConfig(schedule="step", milestones=(3, 7), lr=0.5, batch_size=4)
    data = config.to_dict()
    assert data["milestones"] == [3, 7]
    assert TrainConfig.from_dict(data) == config


@pytest.mark.parametrize(
    "bad",
    [
        {"steps": 0},
        {"val_fraction": 1.0},
        {"val_fraction": -0.1},
        {"log_every": 0},
        {"val_every": 0},
        {"checkpoint_every": 150, "log_every": 100},
    ],
)
def test_sl_config_validation(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        SLConfig(**bad)


def test_split_validation_holds_out_the_tail(examples: Examples) -> None:
    n = len(examples)
    train, val = split_validation(examples, 0.25)
    n_val = round(n * 0.25)
    assert len(val) == n_val and len(train) == n - n_val
    np.testing.assert_array_equal(val.planes, examples.planes[n - n_val :])
    np.testing.assert_array_equal(train.policy, examples.policy[: n - n_val])
    np.testing.assert_array_equal(val.value, examples.value[n - n_val :])
    train, val = split_validation(examples, 0.0)
    assert len(train) == n and len(val) == 0


def test_a_logged_line_keeps_the_runs_skipped_step_total(tmp_path: Path) -> None:
    """Under fp16 a step reports ``skipped`` (0 or 1), ``skipped_steps`` (the run's
    total after it) and ``loss_scale``: a line of several steps averages the first,
    but the total and the scale are the run's at the line's step, not means."""
    skips = [0, 1, 1, 0, 0, 0, 1, 0]
    done = {"step": 0, "total": 5}  # a resumed run that had skipped 5 before

    def step() -> tuple[int, dict[str, float]]:
        skipped = skips[done["step"]]
        done["step"] += 1
        done["total"] += skipped
        return done["step"], {
            "loss": 1.0,
            "accuracy": 0.5,
            "skipped": float(skipped),
            "skipped_steps": float(done["total"]),
            "loss_scale": 2.0 ** (16 - (done["total"] - 5)),
        }

    config = SLConfig(steps=8, log_every=4, checkpoint_every=4, val_every=4)
    supervised_loop(
        tmp_path,
        config,
        0,
        math.inf,
        train_step=step,
        validate=None,
        save_best=lambda: None,
        checkpoint=lambda best: None,
        desc="test",
        postfix="loss",
        progress=False,
    )
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [r["step"] for r in rows] == [4, 8]
    assert [r["skipped"] for r in rows] == [0.5, 0.25]
    assert [r["skipped_steps"] for r in rows] == [7, 8]
    assert [r["loss_scale"] for r in rows] == [2.0**14, 2.0**13]


# -- runs, checkpoints, resumption ------------------------------------------------

RESUME_TRAIN = TrainConfig(lr=3e-3, batch_size=16, schedule="cosine", total_steps=12)
RESUME_SL = SLConfig(
    steps=12, val_fraction=0.2, val_every=4, checkpoint_every=4, log_every=2, seed=3
)


def test_stopped_and_resumed_run_equals_an_uninterrupted_one(
    tmp_path: Path, shards: Path
) -> None:
    whole = train_sl(
        tmp_path / "a", [shards], NET, RESUME_TRAIN, RESUME_SL, progress=False
    )
    stopped = train_sl(
        tmp_path / "b",
        [shards],
        NET,
        RESUME_TRAIN,
        RESUME_SL,
        progress=False,
        stop_after=6,
    )
    assert stopped.step == 6
    assert load_checkpoint(tmp_path / "b" / "checkpoint.pt")["learner"]["step"] == 4
    steps = [r["step"] for r in read_metrics(tmp_path / "b" / "metrics.jsonl")]
    assert 6 in steps  # logged after the last checkpoint: the resume drops it
    resumed = train_sl(tmp_path / "b", progress=False)  # data and configs stored
    assert resumed.step == 12
    assert_same_state(whole, resumed)

    a = without_time(read_metrics(tmp_path / "a" / "metrics.jsonl"))
    b = without_time(read_metrics(tmp_path / "b" / "metrics.jsonl"))
    keys = [(r["kind"], r["step"]) for r in b]
    assert len(keys) == len(set(keys))  # no step logged twice
    assert b == a  # the same lines, the same numbers
    assert [r["step"] for r in b if r["kind"] == "train"] == [2, 4, 6, 8, 10, 12]
    for name in ("weights.pt", "best.pt"):
        wa = load_weights(tmp_path / "a" / name).state_dict()
        wb = load_weights(tmp_path / "b" / name).state_dict()
        assert all(torch.equal(wa[k], wb[k]) for k in wa), name

    # A finished run started again does nothing more.
    again = train_sl(tmp_path / "b", progress=False)
    assert again.step == 12
    assert_same_state(whole, again)
    assert without_time(read_metrics(tmp_path / "b" / "metrics.jsonl")) == a


def test_checkpoint_and_weights_files(
    tmp_path: Path, shards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    train = TrainConfig(lr=1e-3, batch_size=8)
    config = SLConfig(steps=4, val_every=2, checkpoint_every=2, log_every=1, seed=1)
    learner = train_sl(tmp_path, [shards], NET, train, config, progress=False)
    raw = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    assert raw["format"] == FORMAT and raw["kind"] == "sl"
    assert isinstance(raw["git_revision"], str) and raw["git_revision"]
    assert raw["git_revision"] == git_revision()
    assert raw["net_config"] == NET.to_dict()
    assert TrainConfig.from_dict(raw["train_config"]) == train
    assert SLConfig(**raw["sl_config"]) == config
    assert raw["data"] == [str(shards.resolve())]
    assert raw["learner"]["step"] == 4
    assert math.isfinite(raw["best_val"])
    assert {"numpy", "python", "torch"} <= raw["random"].keys()

    weights = load_weights(tmp_path / "weights.pt")
    assert weights.config == NET
    current = learner.model.state_dict()
    assert all(torch.equal(v, current[k]) for k, v in weights.state_dict().items())
    assert load_weights(tmp_path / "best.pt").config == NET

    # Started again with other configs: the stored ones win, and it says so.
    other = SLConfig(steps=8, val_every=2, checkpoint_every=2, log_every=1)
    assert train_sl(tmp_path, [shards], NET, train, other, progress=False).step == 4
    assert "not the given sl settings" in capsys.readouterr().err


def test_runs_refuse_what_they_cannot_train(tmp_path: Path, shards: Path) -> None:
    with pytest.raises(ValueError, match="needs training data"):
        train_sl(tmp_path / "new", progress=False)
    with pytest.raises(ValueError, match="7x7"):
        train_sl(
            tmp_path / "size", [shards], NetConfig(board_size=7, blocks=1, filters=8)
        )
    with pytest.raises(ValueError, match="lz18"):
        net = NetConfig(board_size=SIZE, blocks=1, filters=8, input_planes="lz18")
        train_sl(tmp_path / "kind", [shards], net)
    rl = tmp_path / "rl"
    rl.mkdir()
    save_checkpoint(rl / "checkpoint.pt", {"kind": "rl"})
    with pytest.raises(ValueError, match="not a supervised run"):
        train_sl(rl, [shards], NET, progress=False)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="junk"):
        train_sl(tmp_path / "junk", [shards], NET, progress=False)


def test_no_validation_set_writes_no_best(tmp_path: Path, shards: Path) -> None:
    config = SLConfig(steps=2, val_fraction=0.0, checkpoint_every=2, log_every=1)
    train_sl(tmp_path, [shards], NET, TrainConfig(batch_size=8), config, progress=False)
    kinds = {r["kind"] for r in read_metrics(tmp_path / "metrics.jsonl")}
    assert kinds == {"train"}
    assert (tmp_path / "weights.pt").exists() and not (tmp_path / "best.pt").exists()
    assert len(load_shards([shards])) > 100


def test_init_weights_start_a_fine_tuning_run(
    tmp_path: Path, shards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch.manual_seed(7)
    start = PolicyValueNet(NET)
    save_weights(start, tmp_path / "start.pt")
    other_shape = NetConfig(board_size=SIZE, blocks=2, filters=16)
    # With an ownership loss the run adds the head the file lacks.
    train = TrainConfig(lr=1e-3, batch_size=8, ownership_weight=1.0)
    config = SLConfig(steps=4, val_every=2, checkpoint_every=2, log_every=1, seed=1)
    run = tmp_path / "run"

    def the_command(stop_after: int | None = None) -> Learner:
        """The same fine-tuning command each time, as a user reruns it."""
        return train_sl(
            run,
            [shards],
            other_shape,  # the file's shape wins
            train,
            config,
            progress=False,
            init_weights=tmp_path / "start.pt",
            stop_after=stop_after,
        )

    before = the_command(stop_after=0)
    assert before.model.config == dataclasses.replace(NET, ownership_head=True)
    # One Adam step (stop_after stops after it) moves each weight by about lr at
    # most; a fresh initialisation would be ~0.05 away.
    tuned_params = dict(before.model.named_parameters())
    for key, value in start.named_parameters():
        assert torch.allclose(tuned_params[key], value, atol=1.5e-3), key
    # Stopped before its first checkpoint, the run starts again; resumed with the
    # same command after one, it goes on from its own checkpoint, and the net
    # options the file overrode are not reported as changed.
    the_command(stop_after=2)
    capsys.readouterr()
    tuned = the_command()
    assert "not the given" not in capsys.readouterr().err
    assert tuned.step == 4 and tuned.model.config == before.model.config
    assert load_weights(run / "weights.pt").config == before.model.config
    moved = tuned.model.state_dict()
    assert any(not torch.equal(moved[k], v) for k, v in start.state_dict().items())

    # The same seed without --init starts elsewhere.
    fresh = train_sl(
        tmp_path / "fresh",
        [shards],
        before.model.config,
        train,
        config,
        progress=False,
        stop_after=0,
    )
    fresh_params = dict(fresh.model.named_parameters())
    assert not all(
        torch.allclose(fresh_params[k], v, atol=1.5e-3)
        for k, v in start.named_parameters()
    )


def test_init_weights_that_cannot_start_the_run_are_refused(
    tmp_path: Path, shards: Path
) -> None:
    seven = PolicyValueNet(NetConfig(board_size=7, blocks=1, filters=8))
    save_weights(seven, tmp_path / "seven.pt")
    with pytest.raises(ValueError, match="7x7"):
        train_sl(tmp_path / "a", [shards], init_weights=tmp_path / "seven.pt")
    pooled = NetConfig(board_size=SIZE, blocks=1, filters=8, global_pooling=(0,))
    save_weights(PolicyValueNet(NET), tmp_path / "plain.pt")
    with pytest.raises(ValueError, match="global pooling"):
        train_sl(tmp_path / "b", [shards], pooled, init_weights=tmp_path / "plain.pt")
    (tmp_path / "junk.pt").write_bytes(b"not weights")
    with pytest.raises(ValueError, match="junk"):
        train_sl(tmp_path / "c", [shards], init_weights=tmp_path / "junk.pt")
    for run in ("a", "b", "c"):
        assert not (tmp_path / run / "checkpoint.pt").exists()


# Found by fuzz/fuzz_weights.py: damaged checkpoints and learner states.


def _trained_learner(examples: Examples) -> Learner:
    learner = Learner(PolicyValueNet(NET), TrainConfig(optimizer="adam", lr=1e-3))
    planes, policy, value = sample_batch(examples, np.random.default_rng(0), 4)
    learner.train_step(planes, policy, value)
    return learner


def test_a_damaged_checkpoint_is_a_value_error(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "c.pt", {"kind": "sl", "x": torch.ones(6000)})
    data = (tmp_path / "c.pt").read_bytes()
    # torch's zip reader fails on a file cut short in its data with OSError
    # (EINVAL), which escaped as if the file could not be read.
    for i, bad in enumerate([data[: len(data) // 2], data[:100], b"PK\x03\x04"]):
        (tmp_path / f"{i}.pt").write_bytes(bad)
        with pytest.raises(ValueError, match="not a checkpoint"):
            load_checkpoint(tmp_path / f"{i}.pt")
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt")


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.pop("optimizer"),
        lambda s: s.update(step="4"),
        lambda s: s.update(lr_multiplier=float("nan")),
        lambda s: s["model"].update(policy_fc_bias=1),
        lambda s: s["model"]["policy_fc.bias"].fill_(float("inf")),
        lambda s: s["model"].__setitem__("policy_fc.bias", torch.zeros(3)),
        lambda s: s["optimizer"]["state"][0].__setitem__("exp_avg", torch.zeros(2)),
        lambda s: s["optimizer"]["state"][0].pop("exp_avg_sq"),
        lambda s: s["optimizer"]["param_groups"][0].update(betas="x"),
        lambda s: s["optimizer"]["param_groups"][0].update(params=[0]),
    ],
)
def test_a_bad_learner_state_is_refused_and_changes_nothing(
    examples: Examples, damage: Any
) -> None:
    # The net was loaded before the optimiser state failed (KeyError, TypeError,
    # RuntimeError), leaving a half-restored learner; NaN weights were taken.
    saved = _trained_learner(examples).state_dict()
    damage(saved)
    learner = Learner(PolicyValueNet(NET), TrainConfig(optimizer="adam", lr=1e-3))
    before = {k: v.clone() for k, v in learner.model.state_dict().items()}
    optimizer = str(learner.optimizer.state_dict())
    with pytest.raises(ValueError, match="not a learner state"):
        learner.load_state_dict(saved)
    after = learner.model.state_dict()
    assert all(torch.equal(v, after[k]) for k, v in before.items())
    assert str(learner.optimizer.state_dict()) == optimizer and learner.step == 0


def test_a_good_learner_state_still_loads(examples: Examples) -> None:
    trained = _trained_learner(examples)
    learner = Learner(PolicyValueNet(NET), TrainConfig(optimizer="adam", lr=1e-3))
    learner.load_state_dict(trained.state_dict())
    assert learner.step == 1
    assert str(learner.optimizer.state_dict()) == str(trained.optimizer.state_dict())


def test_a_loaded_learner_shares_no_tensor_with_the_state(examples: Examples) -> None:
    # torch's optimiser load keeps the given tensors where device and dtype already
    # fit, so two learners in one process trained the same Adam buffers, each step
    # counted twice (seen on a GPU, where a learner took another's state directly).
    trained = _trained_learner(examples)
    learner = Learner(PolicyValueNet(NET), TrainConfig(optimizer="adam", lr=1e-3))
    learner.load_state_dict(trained.state_dict())

    def storages(x: Learner) -> set[int]:
        tensors = [t for s in x.optimizer.state.values() for t in s.values()]
        tensors += list(x.model.state_dict().values())
        return {t.untyped_storage().data_ptr() for t in tensors}

    assert not storages(learner) & storages(trained)


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.pop("numpy"),
        lambda s: s.update(numpy=3),
        lambda s: s.update(numpy='{"bit_generator": "PCG64"}'),
        lambda s: s.update(torch="x"),
        lambda s: s.update(torch=torch.zeros(3, dtype=torch.uint8)),
        lambda s: s.update(python="[3, [1], null]"),
    ],
)
def test_bad_random_states_are_refused_and_change_nothing(damage: Any) -> None:
    import random

    states = random_states(np.random.default_rng(5))
    damage(states)
    python, generator = random.getstate(), torch.get_rng_state()
    with pytest.raises(ValueError, match="random states"):
        restore_random_states(states)
    assert random.getstate() == python
    assert torch.equal(torch.get_rng_state(), generator)


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.pop("best_val"),
        lambda s: s.update(data=5),
        lambda s: s.update(sl_config={"bogus": 1}),
        lambda s: s.update(metrics_lines=None),
        lambda s: s.pop("random"),
    ],
)
def test_a_checkpoint_with_a_bad_entry_is_a_value_error(
    tmp_path: Path, shards: Path, damage: Any
) -> None:
    # Entries were read with plain indexing: a KeyError or TypeError traceback.
    train = TrainConfig(lr=1e-3, batch_size=8)
    config = SLConfig(steps=2, val_every=2, checkpoint_every=2, log_every=1, seed=1)
    train_sl(tmp_path, [shards], NET, train, config, progress=False)
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    damage(state)
    save_checkpoint(tmp_path / "checkpoint.pt", state)
    with pytest.raises(ValueError, match="checkpoint.pt: a damaged checkpoint"):
        train_sl(tmp_path, progress=False)
