"""KataGo's auxiliary targets (final ownership and score): the examples that carry
them, the losses, self-play and SGF targets, the CLI switches, and files written
before they existed (made here the way main's code wrote them)."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import numpy as np
import pytest
from records_helpers import random_examples, random_record

torch = pytest.importorskip("torch")


import goboard  # noqa: E402
from alphago.cli import main  # noqa: E402
from alphago.data.dataset import game_examples, played_out, result_margin  # noqa: E402
from alphago.data.examples import (  # noqa: E402
    Examples,
    sample_aux_batch,
    sample_batch,
)
from alphago.nets.model import NetConfig, PolicyValueNet  # noqa: E402
from alphago.nets.weights import load_weights, state_digest  # noqa: E402
from alphago.sgf import GameRecord  # noqa: E402
from alphago.train.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from alphago.train.learner import (  # noqa: E402
    STATS,
    TERMS,
    Learner,
    TrainConfig,
    aux_losses,
)
from alphago.train.metrics import read_metrics  # noqa: E402
from alphago.train.rl import RLConfig, train_rl  # noqa: E402
from alphago.train.selfplay import SelfPlayConfig, play_games  # noqa: E402

torch.set_num_threads(1)

SIZE = 5
AUX_NET = NetConfig(
    board_size=SIZE, blocks=1, filters=8, ownership_head=True, score_head=True
)


@pytest.fixture(scope="module")
def examples() -> Examples:
    return random_examples(6)


def old_shard_bytes(ex: Examples) -> bytes:
    """A shard as main's ``Examples.save`` wrote it: no ownership, no score."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        planes=ex.planes,
        policy=ex.policy,
        value=ex.value,
        kind=np.array(ex.kind),
    )
    return buffer.getvalue()


# -- examples ---------------------------------------------------------------------


def test_examples_carry_the_targets_through_save_take_and_concat(
    tmp_path: Path, examples: Examples
) -> None:
    assert examples.has_aux
    assert examples.ownership is not None and examples.score is not None
    examples.save(tmp_path / "new.npz")
    back = Examples.load(tmp_path / "new.npz")
    assert back.ownership is not None and back.score is not None
    np.testing.assert_array_equal(back.ownership, examples.ownership)
    np.testing.assert_array_equal(back.score, examples.score)
    # An old shard loads without the targets; beside new examples its rows are
    # masked (NaN score, zero ownership), the new rows keep theirs.
    (tmp_path / "old.npz").write_bytes(old_shard_bytes(examples.take(slice(0, 5))))
    old = Examples.load(tmp_path / "old.npz")
    assert not old.has_aux and old.ownership is None
    mixed = Examples.concat([old, examples.take(slice(0, 3))])
    assert mixed.score is not None and mixed.ownership is not None
    assert np.isnan(mixed.score[:5]).all() and not mixed.ownership[:5].any()
    np.testing.assert_array_equal(mixed.score[5:], examples.score[:3])
    with pytest.raises(ValueError, match="together"):
        Examples(old.planes, old.policy, old.value, old.kind, None, old.value)
    with pytest.raises(ValueError, match="ownership must be int8"):
        Examples(
            old.planes,
            old.policy,
            old.value,
            old.kind,
            np.zeros((5, SIZE, SIZE), np.float32),
            old.value,
        )


def test_aux_batches_draw_as_plain_batches_and_turn_ownership_with_the_planes(
    examples: Examples,
) -> None:
    # Plant ownership = own stones - opponent stones of the current position, so
    # it must come out of every symmetry equal to the transformed planes' version.
    planted = examples.planes[:, 0].astype(np.int8) - examples.planes[:, 8].astype(
        np.int8
    )
    ex = Examples(
        examples.planes,
        examples.policy,
        examples.value,
        examples.kind,
        planted,
        examples.score,
    )
    planes, policy, value, owner, score = sample_aux_batch(
        ex, np.random.default_rng(3), 64
    )
    np.testing.assert_array_equal(owner, planes[:, 0] - planes[:, 8])
    p2, pi2, v2 = sample_batch(ex, np.random.default_rng(3), 64)
    np.testing.assert_array_equal(planes, p2)
    np.testing.assert_array_equal(policy, pi2)
    np.testing.assert_array_equal(value, v2)
    assert score.dtype == np.float32 and score.shape == (64,)
    # Without targets: every row masked.
    plain = Examples(ex.planes, ex.policy, ex.value, ex.kind)
    *_, owner0, score0 = sample_aux_batch(plain, np.random.default_rng(3), 8)
    assert np.isnan(score0).all() and not owner0.any()


# -- targets from games -----------------------------------------------------------


def test_sgf_targets_only_for_played_out_games() -> None:
    record = random_record(4, 20, passes=True)
    ex = game_examples(record)
    board = goboard.Board(SIZE, 0.5, "chinese")
    for _, point in record.moves:
        board.play(point)
    assert played_out(record, board)
    assert ex.ownership is not None and ex.score is not None
    black = board.ownership()
    margin = board.score()
    for i, (colour, _) in enumerate(record.moves):
        np.testing.assert_array_equal(ex.ownership[i], colour * black)
        assert ex.score[i] == np.float32(colour * margin)
        # The value target agrees with the score's sign.
        assert np.sign(ex.score[i]) == ex.value[i]
    for result in ("B+R", "W+T", f"B+{abs(margin) + 1:g}"):
        other = game_examples(
            GameRecord(size=SIZE, komi=0.5, moves=record.moves, result=result)
        )
        assert other.score is not None and np.isnan(other.score).all()
        assert other.ownership is not None and not other.ownership.any()
    # Without its two passes the record stops before the end: its area score
    # equals its result by chance (no sign that the dead stones were taken off).
    stopped = game_examples(
        GameRecord(size=SIZE, komi=0.5, moves=record.moves[:-2], result=record.result)
    )
    assert stopped.score is not None and np.isnan(stopped.score).all()
    assert result_margin("W+3.5") == -3.5 and result_margin("0") == 0.0
    assert result_margin("B+R") is None and result_margin("B+nan") is None


def test_selfplay_examples_carry_the_final_ownership_and_score() -> None:
    torch.manual_seed(0)
    model = PolicyValueNet(NetConfig(board_size=SIZE, blocks=1, filters=8))
    config = SelfPlayConfig(
        simulations=4, parallel_games=2, leaves_per_batch=2, size=SIZE, komi=0.5
    )
    result = play_games(model, config, 2, seed=1)
    ex = result.examples
    assert ex.ownership is not None and ex.score is not None
    start = 0
    for record in result.records:
        board = goboard.Board(SIZE, 0.5, "chinese")
        for _, point in record.moves:
            board.play(point)
        n = len(record.moves)
        rows = slice(start, start + n)
        colours = np.array([c for c, _ in record.moves])
        np.testing.assert_array_equal(
            ex.ownership[rows], colours[:, None, None] * board.ownership()
        )
        np.testing.assert_array_equal(
            ex.score[rows], (colours * board.score()).astype(np.float32)
        )
        start += n
    assert start == len(ex)


# -- losses -----------------------------------------------------------------------


def test_aux_losses_match_a_slow_formula() -> None:
    torch.manual_seed(1)
    model = PolicyValueNet(AUX_NET)
    x = torch.rand(6, 17, SIZE, SIZE).round()
    heads = model.heads(x)
    owner = torch.randint(-1, 2, (6, SIZE, SIZE)).float()
    score = torch.tensor([3.5, -10.0, float("nan"), 40.0, 0.0, float("nan")])
    own_loss, score_loss = aux_losses(heads, owner, score)
    want_own, want_score, rows = 0.0, 0.0, 0
    assert heads.ownership_logit is not None and heads.score is not None
    logit = heads.ownership_logit.detach().numpy().astype(np.float64)
    margin = heads.score.detach().numpy().astype(np.float64)
    for b in range(6):
        if not np.isfinite(float(score[b])):
            continue
        rows += 1
        total = 0.0
        for i in range(SIZE):
            for j in range(SIZE):
                p = (1 + np.tanh(logit[b, i, j])) / 2
                t = (1 + float(owner[b, i, j])) / 2
                total -= t * np.log(p) + (1 - t) * np.log(1 - p)
        want_own += total / SIZE**2
        err = abs(margin[b] - float(score[b])) / SIZE
        want_score += 0.5 * err**2 if err < 1 else err - 0.5
    assert float(own_loss.detach()) == pytest.approx(want_own / rows, rel=1e-5)
    assert float(score_loss.detach()) == pytest.approx(want_score / rows, rel=1e-5)
    # No target anywhere: zero, and no NaN leaks into the gradient.
    nothing = torch.full((6,), float("nan"))
    no_own, no_score = aux_losses(model.heads(x), owner, nothing)
    (no_own + no_score).backward()  # type: ignore[no-untyped-call]
    assert float(no_own.detach()) == 0.0 and float(no_score.detach()) == 0.0
    assert all(
        torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None
    )


def test_with_the_weights_at_zero_the_loss_is_todays(examples: Examples) -> None:
    """Weights 0: the learner never reads the targets and computes AlphaGo Zero's
    loss, bit for bit the formula, on a net with or without the extra heads."""
    for net in (NetConfig(board_size=SIZE, blocks=1, filters=8), AUX_NET):
        torch.manual_seed(2)
        learner = Learner(PolicyValueNet(net), TrainConfig(batch_size=8))
        assert not learner.aux and learner.terms == TERMS
        planes, policy, value, owner, score = sample_aux_batch(
            examples, np.random.default_rng(0), 8
        )
        x, pi, z = (torch.from_numpy(a) for a in (planes, policy, value))
        terms, _, _ = learner.losses(x, pi, z)
        logits, v, _ = learner.model(x)
        pl = -(pi * torch.log_softmax(logits, dim=1)).sum(1).mean()
        vl = torch.mean((z - v) ** 2)
        l2 = sum(
            (w * w).sum()
            for name, w in learner.model.named_parameters()
            if name.endswith("weight") and w.dim() > 1
        )
        assert torch.equal(terms["loss"], pl + 1.0 * vl + 1e-4 * l2)
        out = learner.train_step(planes, policy, value, owner, score)
        assert set(out) == set(TERMS + STATS) | {"lr"}


def test_aux_weights_need_the_heads() -> None:
    net = NetConfig(board_size=SIZE, blocks=1, filters=8)
    with pytest.raises(ValueError, match="ownership head"):
        Learner(PolicyValueNet(net), TrainConfig(ownership_weight=1.5))
    with pytest.raises(ValueError, match="score head"):
        Learner(PolicyValueNet(net), TrainConfig(score_weight=0.5))
    with pytest.raises(ValueError, match="score_weight"):
        TrainConfig(score_weight=-1.0)


def test_a_tiny_net_learns_a_planted_ownership_and_score() -> None:
    """Ownership: the stones on the board (+1 ours, -1 theirs, 0 empty); score:
    ours minus theirs. Both are in the planes, so a 1-block net must learn them
    far below the losses of knowing nothing; rows with a NaN score carry garbage
    ownership that must not be learned."""
    rng = np.random.default_rng(0)
    n = 512
    stones = rng.choice([-1, 0, 1], size=(n, SIZE, SIZE), p=[0.3, 0.4, 0.3])
    planes = np.zeros((n, 17, SIZE, SIZE), np.uint8)
    planes[:, 0] = stones == 1
    planes[:, 8] = stones == -1
    planes[:, 16] = 1
    owner = stones.astype(np.int8)
    score = stones.sum(axis=(1, 2)).astype(np.float32)
    masked = rng.random(n) < 0.25
    owner[masked] = -owner[masked]  # garbage, masked out
    score[masked] = np.nan
    policy = np.full((n, SIZE * SIZE + 1), 1 / (SIZE * SIZE + 1), np.float32)
    ex = Examples(planes, policy, np.zeros(n, np.float32), "agz17", owner, score)
    torch.manual_seed(0)
    config = TrainConfig(lr=3e-3, batch_size=64, ownership_weight=1.5, score_weight=1.0)
    learner = Learner(PolicyValueNet(AUX_NET), config)
    sample_rng = np.random.default_rng(1)
    first = learner.train_step(*sample_aux_batch(ex, sample_rng, 64))
    for _ in range(300):
        out = learner.train_step(*sample_aux_batch(ex, sample_rng, 64))
    assert set(out) >= {"ownership_loss", "score_loss"}
    # An empty point's target is 1/2, which costs log 2 even when learned: the
    # floor is log 2 times the empty share. Knowing nothing costs log 2 everywhere.
    floor = np.log(2) * float((stones[~masked] == 0).mean())
    assert out["ownership_loss"] < floor + 0.05
    assert first["ownership_loss"] > floor + 0.2
    learner.model.eval()
    with torch.no_grad():
        heads = learner.model.heads(torch.from_numpy(planes[:64]).float())
    assert heads.ownership_logit is not None and heads.score is not None
    good = ~masked[:64]
    guess = np.sign(np.round(np.tanh(heads.ownership_logit.numpy())))
    assert (guess[good] == stones[:64][good]).mean() > 0.95
    err = np.abs(heads.score.numpy() - stones[:64].sum(axis=(1, 2)))
    # The margin spreads about +-4.5 points here; learned to about a point.
    assert np.median(err[good]) < 1.5


# -- files from before: weights, shards, checkpoints ------------------------------


def test_a_weights_file_of_mains_format_loads(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = PolicyValueNet(NetConfig(board_size=SIZE, blocks=1, filters=8))
    state = {k: v.clone() for k, v in model.state_dict().items()}
    config = {  # main's NetConfig.to_dict(): no score_head, no global_pooling
        "board_size": SIZE,
        "blocks": 1,
        "filters": 8,
        "input_planes": "agz17",
        "ownership_head": False,
    }
    payload = {
        "format": "alphago.nets/1",
        "config": config,
        "state_dict": state,
        "sha256": state_digest(config, state),
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    (tmp_path / "old.pt").write_bytes(buffer.getvalue())
    loaded = load_weights(tmp_path / "old.pt")
    assert loaded.config == model.config
    assert not loaded.config.score_head and loaded.config.global_pooling == ()
    # And a net without the new parts writes main's config exactly.
    assert model.config.to_dict() == config
    assert json.loads(model.config.to_json()) == config


RL_SELFPLAY = SelfPlayConfig(
    simulations=6,
    parallel_games=2,
    leaves_per_batch=2,
    size=SIZE,
    komi=0.5,
    dirichlet_alpha=0.5,
)
RL = RLConfig(
    iterations=2,
    games_per_iteration=2,
    updates_per_iteration=2,
    epochs=1,
    gate_games=0,
    baseline_every=0,
    workers=1,
    seed=3,
    selfplay=RL_SELFPLAY,
)


def test_an_old_run_resumes_with_its_checkpoint_and_window(tmp_path: Path) -> None:
    """A run whose checkpoint and replay window were written before the switches
    (no forced_playouts, no aux weights, a window without targets) resumes."""
    run = tmp_path / "old"
    net = NetConfig(board_size=SIZE, blocks=1, filters=8)
    train_rl(
        run,
        RL,
        net,
        TrainConfig(batch_size=8),
        progress=False,
        stop_after=(0, "selfplay"),
    )
    state = load_checkpoint(run / "checkpoint.pt")
    del state["rl_config"]["selfplay"]["forced_playouts"]
    del state["train_config"]["ownership_weight"]
    del state["train_config"]["score_weight"]
    save_checkpoint(run / "checkpoint.pt", state)
    window = run / state["replay_file"]
    window.write_bytes(old_shard_bytes(Examples.load(window)))
    learner = train_rl(run, progress=False)
    assert learner.step == 2 * 2
    assert not learner.aux


def test_rl_with_every_switch_logs_each_loss_and_resumes(tmp_path: Path) -> None:
    """``train rl --ownership-weight --score-weight --global-pooling
    --forced-playouts``: the configs are stored, each loss part is logged, and a
    killed run resumes to the uninterrupted one's weights."""
    base = ["train", "rl"]
    args = ["--size", str(SIZE), "--blocks", "2", "--filters", "8", "--planes", "agz17"]
    args += ["--iterations", "1", "--games", "2", "--simulations", "6"]
    args += ["--parallel-games", "2", "--updates", "2", "--epochs", "1"]
    args += ["--batch", "8", "--gate-games", "0", "--baseline-every", "0"]
    args += ["--workers", "1", "--threads", "1", "--no-progress", "--seed", "4"]
    args += ["--ownership-weight", "1.5", "--score-weight", "0.25"]
    args += ["--global-pooling", "--search", "puct", "--forced-playouts"]
    args += ["--device", "cpu"]
    assert main(base + [str(tmp_path / "a")] + args) == 0
    state = load_checkpoint(tmp_path / "a" / "checkpoint.pt")
    assert state["rl_config"]["selfplay"]["forced_playouts"] is True
    assert state["train_config"]["ownership_weight"] == 1.5
    assert state["train_config"]["score_weight"] == 0.25
    net = NetConfig.from_dict(state["net_config"])
    assert net.ownership_head and net.score_head and net.global_pooling == (1,)
    train = [
        r
        for r in read_metrics(tmp_path / "a" / "metrics.jsonl")
        if r["kind"] == "train"
    ]
    assert len(train) == 2
    for row in train:
        assert {"policy_loss", "value_loss", "ownership_loss", "score_loss"} <= set(row)
        assert np.isfinite(row["ownership_loss"]) and row["ownership_loss"] > 0
    best = load_weights(tmp_path / "a" / "best.pt")
    assert best.config == net


def test_cli_refuses_bad_pooling_blocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "rl", str(tmp_path / "r"), "--size", "5", "--blocks", "2"]
    assert main(args + ["--global-pooling", "7"]) == 1
    assert "global_pooling" in capsys.readouterr().err
    assert main(args + ["--global-pooling", "x"]) == 1
    assert "block indices" in capsys.readouterr().err


def test_gnugo_capture_all_dead_switch() -> None:
    from alphago.data.gendata import GenConfig, gnugo_command

    fair = gnugo_command(1, 0, "gnugo", capture_all_dead=True)
    teacher = gnugo_command(1, 0, "gnugo", capture_all_dead=False)
    assert "--capture-all-dead" in fair and "--capture-all-dead" not in teacher
    with pytest.raises(TypeError, match="capture_all_dead"):
        gnugo_command(1, 0, "gnugo")  # type: ignore[call-arg]  # every caller chooses
    assert not GenConfig().capture_all_dead


def test_init_weights_without_the_heads_get_fresh_ones(tmp_path: Path) -> None:
    """``train rl --init SL.pt --ownership-weight 1.5``: the supervised net's
    weights, plus new ownership and score heads."""
    from alphago.nets.weights import save_weights

    torch.manual_seed(5)
    start = PolicyValueNet(NetConfig(board_size=SIZE, blocks=1, filters=8))
    save_weights(start, tmp_path / "sl.pt")
    train = TrainConfig(batch_size=8, ownership_weight=1.5, score_weight=0.25)
    learner = train_rl(
        tmp_path / "run",
        RL,
        None,
        train,
        init_weights=tmp_path / "sl.pt",
        progress=False,
        stop_after=(0, "selfplay"),
    )
    config = learner.model.config
    assert config.ownership_head and config.score_head
    best = load_weights(tmp_path / "run" / "best.pt")
    for key, value in start.state_dict().items():
        assert torch.equal(best.state_dict()[key], value), key
    with pytest.raises(ValueError, match="global pooling changes"):
        train_rl(
            tmp_path / "pooled",
            RL,
            NetConfig(board_size=SIZE, blocks=1, filters=8, global_pooling=(0,)),
            train,
            init_weights=tmp_path / "sl.pt",
            progress=False,
        )


def test_report_draws_the_auxiliary_losses_when_logged() -> None:
    from alphago.train.report import panels

    rows = [
        {"kind": "train", "step": 1, "time": 0.0, "loss": 3.0, "ownership_loss": 0.6},
        {"kind": "train", "step": 2, "time": 0.0, "loss": 2.9, "score_loss": 0.4},
    ]
    assert panels(rows)[:2] == ["Losses", "Auxiliary losses"]
    assert "Auxiliary losses" not in panels([{**rows[0], "ownership_loss": None}])


def test_selfplay_forced_playouts_switch() -> None:
    config = SelfPlayConfig(
        simulations=24,
        parallel_games=2,
        leaves_per_batch=2,
        size=SIZE,
        komi=0.5,
        dirichlet_alpha=0.5,
        forced_playouts=True,
        temperature_moves=0,
    )
    assert config.search_config().forced_playouts
    assert not SelfPlayConfig(size=SIZE).search_config().forced_playouts
    with pytest.raises(ValueError, match="PUCT search only"):
        SelfPlayConfig(size=SIZE, search="gumbel", forced_playouts=True)
    torch.manual_seed(0)
    model = PolicyValueNet(NetConfig(board_size=SIZE, blocks=1, filters=8))
    forced = play_games(model, config, 2, seed=2).examples
    plain = play_games(
        model, dataclasses.replace(config, forced_playouts=False), 2, seed=2
    ).examples
    np.testing.assert_allclose(forced.policy.sum(axis=1), 1.0, rtol=1e-5)
    # Pruning drops children: the targets are sparser than plain visit counts.
    assert (forced.policy > 0).sum(axis=1).mean() < (plain.policy > 0).sum(
        axis=1
    ).mean()


def test_train_sl_with_the_aux_losses_from_shards(
    tmp_path: Path, examples: Examples
) -> None:
    """``train sl --ownership-weight --score-weight`` on shards built from played
    out records (plus one old shard, masked): both parts are logged in training
    and validation, and the run resumes with them."""
    data = tmp_path / "shards"
    data.mkdir()
    # The old shard first: validation (the last 5%) is then new examples.
    (data / "shard-00000.npz").write_bytes(old_shard_bytes(examples.take(slice(0, 20))))
    examples.save(data / "shard-00001.npz")
    run = tmp_path / "sl"
    args = ["train", "sl", str(run), "--data", str(data), "--size", str(SIZE)]
    args += ["--blocks", "1", "--filters", "8", "--batch", "16", "--threads", "1"]
    args += ["--log-every", "2", "--checkpoint-every", "2", "--val-every", "2"]
    args += ["--ownership-weight", "1.5", "--score-weight", "0.25", "--no-progress"]
    assert main(args + ["--steps", "2"]) == 0
    assert main(args + ["--steps", "4"]) == 0  # resumes; stored steps (2) win
    state = load_checkpoint(run / "checkpoint.pt")
    assert state["train_config"]["ownership_weight"] == 1.5
    lines = read_metrics(run / "metrics.jsonl")
    train = [r for r in lines if r["kind"] == "train"]
    val = [r for r in lines if r["kind"] == "validation"]
    assert train and val
    assert train[0]["ownership_loss"] > 0 and train[0]["score_loss"] > 0
    assert val[0]["val_ownership_loss"] > 0 and val[0]["val_score_loss"] > 0


def test_validation_reports_aux_losses_only_over_rows_with_targets(
    examples: Examples,
) -> None:
    torch.manual_seed(0)
    config = TrainConfig(batch_size=8, ownership_weight=1.5, score_weight=0.25)
    learner = Learner(PolicyValueNet(AUX_NET), config)
    with_targets = learner.validate(examples)
    assert with_targets["val_ownership_loss"] > 0
    plain = Examples(examples.planes, examples.policy, examples.value, examples.kind)
    assert "val_ownership_loss" not in learner.validate(plain)
    # Masked rows change nothing.
    half = Examples.concat([plain, examples])
    assert learner.validate(half)["val_ownership_loss"] == pytest.approx(
        with_targets["val_ownership_loss"], rel=1e-5
    )


def test_only_the_weighted_parts_are_logged(examples: Examples) -> None:
    torch.manual_seed(0)
    config = TrainConfig(batch_size=8, ownership_weight=1.5)
    learner = Learner(PolicyValueNet(AUX_NET), config)
    assert learner.terms == (*TERMS, "ownership_loss")
    out = learner.train_step(*sample_aux_batch(examples, np.random.default_rng(0), 8))
    assert "ownership_loss" in out and "score_loss" not in out
    val = learner.validate(examples)
    assert "val_ownership_loss" in val and "val_score_loss" not in val
