"""Training the AlphaGo 2016 networks: supervised policy, REINFORCE, value data (the
U scheme) and value training, their resumption, and the CLI commands end to end.

Everything is tiny: 5x5 boards, 3-layer 8-filter nets, a handful of games.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from records_helpers import random_record

torch = pytest.importorskip("torch")

import goboard  # noqa: E402
from alphago.cli import main  # noqa: E402
from alphago.data.dataset import game_examples  # noqa: E402
from alphago.data.examples import Examples  # noqa: E402
from alphago.nets.alphago2016 import (  # noqa: E402
    POLICY_KIND,
    VALUE_KIND,
    Net2016Config,
    PolicyNet2016,
    load_net2016,
    save_net2016,
)
from alphago.train.games2016 import (  # noqa: E402
    GameSettings,
    PolicyRunner,
    RLGames,
    ValueGames,
    default_u_max,
    play_reinforce_games,
    play_value_games,
    sample_moves,
    value_job,
)
from alphago.train.learner import TrainConfig  # noqa: E402
from alphago.train.metrics import read_metrics  # noqa: E402
from alphago.train.policy2016 import (  # noqa: E402
    PolicyRLConfig,
    reinforce_step,
    train_policy,
    train_policy_rl,
)
from alphago.train.sl import SLConfig  # noqa: E402
from alphago.train.trainer2016 import Trainer2016  # noqa: E402
from alphago.train.value2016 import (  # noqa: E402
    ValueConfig,
    load_value_data,
    train_value,
)
from alphago.train.workers import plan_jobs  # noqa: E402

torch.set_num_threads(1)

SIZE = 5
#: The planes the tests build nets on: the paper's.
PLANES = "alphago48"
VALUE_PLANES = "alphago49"
NET = Net2016Config(SIZE, 3, 8, PLANES)


def policy(seed: int = 0) -> PolicyNet2016:
    torch.manual_seed(seed)
    return PolicyNet2016(NET).eval()


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shards")
    examples = Examples.concat(
        [game_examples(random_record(seed, 16), PLANES) for seed in range(8)]
    )
    examples.take(slice(0, 64)).save(out / "shard-00000.npz")
    examples.take(slice(64, None)).save(out / "shard-00001.npz")
    return out


@pytest.fixture(scope="module")
def policies(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("policies")
    save_net2016(policy(1), out / "sl.pt")
    save_net2016(policy(2), out / "rl.pt")
    return out / "sl.pt", out / "rl.pt"


def same_weights(a: Path, b: Path, kind: str = POLICY_KIND) -> bool:
    sa = load_net2016(a, kind).state_dict()
    sb = load_net2016(b, kind).state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def records(path: Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "time"} for r in read_metrics(path)]


# --- sampling ------------------------------------------------------------------------


def test_sampling_follows_the_masked_softmax() -> None:
    rng = np.random.default_rng(0)
    logits = np.log(np.array([[0.5, 0.3, 0.2, 100.0]], np.float32))
    legal = np.array([[True, True, True, False]])
    moves = sample_moves(np.repeat(logits, 20_000, 0), np.repeat(legal, 20_000, 0), rng)
    counts = np.bincount(moves, minlength=4) / 20_000
    np.testing.assert_allclose(counts, [0.5, 0.3, 0.2, 0.0], atol=0.015)


# --- supervised policy ---------------------------------------------------------------


SL = SLConfig(steps=12, val_every=4, checkpoint_every=4, log_every=2, seed=3)
ADAM = TrainConfig(batch_size=16, lr=1e-3)


def test_train_policy_logs_accuracy_and_resumes_exactly(
    tmp_path: Path, shards: Path
) -> None:
    whole = tmp_path / "whole"
    train_policy(whole, [shards], NET, ADAM, SL, progress=False)
    log = records(whole / "metrics.jsonl")
    val = [r for r in log if r["kind"] == "validation"]
    assert [r["step"] for r in val] == [4, 8, 12]
    assert all(0.0 <= r["val_accuracy"] <= 1.0 for r in val)
    assert {"loss", "policy_loss", "accuracy", "lr"} <= set(log[0])
    assert isinstance(load_net2016(whole / "best.pt"), PolicyNet2016)

    part = tmp_path / "part"
    train_policy(part, [shards], NET, ADAM, SL, progress=False, stop_after=6)
    # Killed at step 6: the last checkpoint is step 4; the run goes on from there.
    train_policy(part, progress=False)
    assert same_weights(whole / "weights.pt", part / "weights.pt")
    assert records(whole / "metrics.jsonl") == records(part / "metrics.jsonl")


def test_train_policy_refuses_data_of_other_planes(
    tmp_path: Path, shards: Path
) -> None:
    net = Net2016Config(SIZE, 3, 8, "lz18")
    with pytest.raises(ValueError, match=f"5x5 {PLANES}; the network wants 5x5 lz18"):
        train_policy(tmp_path / "run", [shards], net, ADAM, SL, progress=False)


# --- REINFORCE -----------------------------------------------------------------------


def toy_games(reward: float) -> RLGames:
    """One game: three positions where the current policy moved, and its reward."""
    boards = [goboard.Board(SIZE)]
    for move in (6, 12):
        b = boards[-1].copy()
        b.play(move)
        b.play(move + 1)
        boards.append(b)
    return RLGames(
        goboard.features_batch(boards, PLANES, dtype=np.uint8),
        goboard.legal_mask_batch(boards),
        np.array([0, 18, 24], np.int64),
        np.zeros(3, np.int64),
        np.array([reward], np.float32),
        np.array([True]),
        6,
    )


def log_prob_sum(model: PolicyNet2016, games: RLGames) -> Any:
    x = torch.from_numpy(games.planes).float()
    logits = model(x).masked_fill(~torch.from_numpy(games.legal), -float("inf"))
    logp = torch.log_softmax(logits, dim=1)
    return logp.gather(1, torch.from_numpy(games.actions)[:, None]).sum()


@pytest.mark.parametrize("reward", [1.0, -1.0])
def test_reinforce_moves_the_played_moves_log_probability_with_the_reward(
    reward: float,
) -> None:
    games = toy_games(reward)
    model = policy(5)
    trainer = Trainer2016(
        model, TrainConfig(optimizer="sgd", momentum=0.0, l2=0.0, lr=0.05)
    )
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    model.zero_grad()
    log_prob_sum(model, games).backward()
    grad = {k: v.grad.detach().clone() for k, v in model.named_parameters()}
    with torch.no_grad():
        old = float(log_prob_sum(model, games))
    reinforce_step(trainer, games, baseline="none")
    with torch.no_grad():
        new = float(log_prob_sum(model, games))
    # The update's direction against the gradient of sum_t log p(a_t | s_t).
    dot = sum(
        float(((p.detach() - before[k]) * grad[k]).sum())
        for k, p in model.named_parameters()
    )
    assert np.sign(dot) == np.sign(reward)
    assert np.sign(new - old) == np.sign(reward)


def test_the_mean_baseline_cancels_a_batch_of_equal_rewards() -> None:
    games = toy_games(1.0)
    model = policy(5)
    trainer = Trainer2016(model, TrainConfig(optimizer="sgd", momentum=0.0, l2=0.0))
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    metrics = reinforce_step(trainer, games, baseline="mean")
    assert metrics["baseline"] == 1.0
    for k, p in model.named_parameters():
        assert torch.equal(p.detach(), before[k])


def test_reinforce_games_alternate_colours_and_score_for_the_current_player() -> None:
    settings = GameSettings(SIZE, 0.5, max_moves=40)
    # On agz17 planes, whose last plane says whether Black is to move.
    torch.manual_seed(1)
    current = PolicyRunner(PolicyNet2016(Net2016Config(SIZE, 3, 8, "agz17")))
    opponent = PolicyRunner(PolicyNet2016(Net2016Config(SIZE, 3, 8, "agz17")))
    games = play_reinforce_games(
        current, opponent, 6, np.random.default_rng(0), settings
    )
    assert games.current_black.tolist() == [True, False] * 3
    assert set(np.unique(games.reward)) <= {-1.0, 1.0}
    assert len(games.actions) == len(games.planes) == len(games.game)
    # The current player's positions: its own colour to move (agz17's last plane is
    # all ones exactly when Black is to move).
    black_to_move = games.planes[:, -1].all(axis=(1, 2))
    assert np.array_equal(black_to_move, games.current_black[games.game])
    assert games.legal[np.arange(len(games.actions)), games.actions].all()
    # With 100 points of komi White wins every game: the reward is the current
    # player's, +1 exactly where it played White.
    white_wins = GameSettings(SIZE, 100.5, max_moves=20)
    games = play_reinforce_games(
        current, opponent, 4, np.random.default_rng(1), white_wins
    )
    assert games.reward.tolist() == [-1.0, 1.0, -1.0, 1.0]


def test_train_policy_rl_logs_win_rates_and_resumes_exactly(
    tmp_path: Path, policies: tuple[Path, Path]
) -> None:
    sl, _ = policies
    config = PolicyRLConfig(
        iterations=4, games=6, snapshot_every=2, eval_every=2, eval_games=4, size=SIZE
    )
    sgd = TrainConfig(optimizer="sgd", momentum=0.0, lr=0.01, l2=0.0)
    whole = tmp_path / "whole"
    train_policy_rl(whole, sl, config, sgd, progress=False)
    log = records(whole / "metrics.jsonl")
    evals = [r for r in log if r["kind"] == "eval"]
    assert [r["opponent"] for r in evals].count("pool") == 4
    assert [r["step"] for r in evals if r["opponent"] == "sl"] == [2, 4]
    assert sorted(p.name for p in (whole / "pool").iterdir()) == [
        "000000.pt",
        "000002.pt",
        "000004.pt",
    ]
    assert not same_weights(whole / "weights.pt", sl)

    part = tmp_path / "part"
    train_policy_rl(part, sl, config, sgd, progress=False, stop_after=3)
    train_policy_rl(part, progress=False)
    assert same_weights(whole / "weights.pt", part / "weights.pt")
    assert records(whole / "metrics.jsonl") == records(part / "metrics.jsonl")


# --- value data and training -----------------------------------------------------


def test_value_games_follow_the_u_scheme() -> None:
    settings = GameSettings(SIZE, 0.5, value_planes=VALUE_PLANES)
    sl, rl = PolicyRunner(policy(1)), PolicyRunner(policy(2))
    games = 24
    data = play_value_games(
        sl, rl, games, np.random.default_rng(7), settings, keep_moves=True
    )
    assert default_u_max(SIZE) == 31 and default_u_max(19) == 450
    assert len(data) == games == len(data.planes) == len(data.moves)
    assert data.u.min() >= 1 and data.u.max() <= 31
    area = SIZE * SIZE
    for i in range(games):
        u, moves = int(data.u[i]), data.moves[i]
        assert moves[u - 1] == data.random_move[i]
        board = goboard.Board(SIZE, 0.5, "chinese")
        for ply, move in enumerate(moves):
            if ply < u - 1:  # P_sigma's moves: no pass while another move is legal
                assert move != area or not board.legal_mask()[:area].any()
            if ply == u - 1:
                assert move != area or not board.legal_mask()[:area].any()
            board.play(move)
            if ply == u - 1:  # the kept position, after the random move
                kept = board.features(VALUE_PLANES, dtype=np.uint8)
                to_play = board.to_play
        assert np.array_equal(data.planes[i], kept)
        outcome = float(np.sign(board.score()))
        assert data.value[i] == outcome * to_play
    assert set(np.unique(data.value)) <= {-1.0, 1.0}


def test_value_random_move_is_uniform() -> None:
    # U fixed at 1: the first move is the random one, uniform over the 25 points.
    settings = GameSettings(SIZE, 0.5, max_moves=2, u_max=1, value_planes=VALUE_PLANES)
    sl, rl = PolicyRunner(policy(1)), PolicyRunner(policy(2))
    data = play_value_games(sl, rl, 2000, np.random.default_rng(1), settings)
    counts = np.bincount(data.random_move, minlength=SIZE * SIZE)
    assert counts.min() > 40 and counts.max() < 120  # expected 80 each


VALUE = ValueConfig(
    games=30,
    batch_games=8,
    size=SIZE,
    steps=6,
    fractions=(0.5, 1.0),
    val_every=3,
    checkpoint_every=2,
    log_every=2,
    val_fraction=0.2,
)
VNET = Net2016Config(SIZE, 3, 8, VALUE_PLANES)


def test_train_value_makes_one_position_per_game_and_a_data_curve(
    tmp_path: Path, policies: tuple[Path, Path]
) -> None:
    sl, rl = policies
    run = tmp_path / "run"
    train_value(run, sl, rl, VNET, ADAM, VALUE, progress=False)
    data = load_value_data(run / "data")
    assert len(data) == 30 and len(list((run / "data").glob("shard-*.npz"))) == 4
    log = records(run / "metrics.jsonl")
    curve = [r for r in log if r["kind"] == "data_curve"]
    assert [r["games"] for r in curve] == [12, 24]  # 24 training, 6 held out
    assert [r["step"] for r in curve] == [6, 12]
    assert all(r["val_value_mse"] >= 0 for r in curve)
    for r in curve:  # the lowest of the phase's validations
        phase = [
            v["val_value_mse"]
            for v in log
            if v["kind"] == "validation" and v["games"] == r["games"]
        ]
        assert len(phase) == 2 and r["best_val_value_mse"] == min(phase)
    assert isinstance(load_net2016(run / "weights.pt", VALUE_KIND), torch.nn.Module)


def test_value_data_and_training_resume_exactly(
    tmp_path: Path, policies: tuple[Path, Path]
) -> None:
    sl, rl = policies
    whole = tmp_path / "whole"
    train_value(whole, sl, rl, VNET, ADAM, VALUE, progress=False)
    part = tmp_path / "part"
    train_value(part, sl, rl, VNET, ADAM, VALUE, progress=False, stop_after_batches=2)
    assert len(list((part / "data").glob("shard-*.npz"))) == 2
    train_value(part, progress=False, stop_after=9)  # killed in the second phase
    train_value(part, progress=False)
    a, b = load_value_data(whole / "data"), load_value_data(part / "data")
    assert np.array_equal(a.planes, b.planes) and np.array_equal(a.u, b.u)
    assert np.array_equal(a.value, b.value)
    assert same_weights(whole / "weights.pt", part / "weights.pt", VALUE_KIND)
    assert records(whole / "metrics.jsonl") == records(part / "metrics.jsonl")


def local_jobs(sl: Path, rl: Path, config: ValueConfig) -> Any:
    """The value games of one batch's jobs, each played in this process."""
    settings = asdict(GameSettings(SIZE, config.komi, value_planes=VALUE_PLANES))
    jobs = plan_jobs(config.batch_games, config.workers, config.seed)
    parts = [
        value_job(sl.read_bytes(), rl.read_bytes(), settings, j.games, j.seed)
        for j in jobs
    ]
    return ValueGames.merge(parts)


def assert_data_of_jobs(run: Path, want: Any) -> None:
    data = load_value_data(run / "data")
    assert np.array_equal(data.planes, want.planes)
    assert np.array_equal(data.value, want.value)
    assert np.array_equal(data.u, want.u)


def test_value_data_in_worker_processes(
    tmp_path: Path, policies: tuple[Path, Path]
) -> None:
    sl, rl = policies
    config = ValueConfig(
        games=6,
        batch_games=6,
        size=SIZE,
        steps=1,
        workers=2,
        val_fraction=0.5,
        fractions=(1.0,),
    )
    train_value(tmp_path / "run", sl, rl, VNET, ADAM, config, progress=False)
    # Two processes played exactly the jobs this process plays.
    assert_data_of_jobs(tmp_path / "run", local_jobs(sl, rl, config))


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()


def test_value_data_on_ray(
    tmp_path: Path, policies: tuple[Path, Path], ray_address: str
) -> None:
    sl, rl = policies
    config = ValueConfig(
        games=6,
        batch_games=6,
        size=SIZE,
        steps=1,
        workers=2,
        val_fraction=0.5,
        fractions=(1.0,),
        ray_address=ray_address,
    )
    train_value(tmp_path / "run", sl, rl, VNET, ADAM, config, progress=False)
    assert_data_of_jobs(tmp_path / "run", local_jobs(sl, rl, config))


# --- the commands --------------------------------------------------------------------


def test_commands_end_to_end(
    tmp_path: Path, shards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--size", "5", "--device", "cpu", "--no-progress"]
    small = ["--layers", "3", "--filters", "8"]
    pol, rl, val = tmp_path / "pol", tmp_path / "rl", tmp_path / "val"
    assert (
        main(
            ["train", "policy", str(pol), "--data", str(shards), *common, *small]
            + ["--planes", PLANES]
            + ["--steps", "4", "--batch", "8", "--val-every", "2"]
            + ["--checkpoint-every", "2", "--log-every", "2"]
        )
        == 0
    )
    assert (
        main(
            ["train", "policy-rl", str(rl), "--init", str(pol / "weights.pt"), *common]
            + ["--iterations", "2", "--games", "4", "--eval-every", "1"]
            + ["--eval-games", "2", "--snapshot-every", "1"]
        )
        == 0
    )
    assert (
        main(
            ["train", "value", str(val), "--sl", str(pol / "weights.pt"), *common]
            + ["--rl", str(rl / "weights.pt"), *small, "--games", "10"]
            + ["--planes", VALUE_PLANES]
            + ["--batch-games", "5", "--steps", "2", "--val-every", "2"]
            + ["--checkpoint-every", "2", "--log-every", "2", "--batch", "4"]
        )
        == 0
    )
    for run in (pol, rl, val):
        assert main(["report", str(run)]) == 0
        assert (run / "report.png").stat().st_size > 0
    capsys.readouterr()
    # A value net where a policy is wanted: one line naming what was expected.
    code = main(
        ["train", "policy-rl", str(tmp_path / "bad"), "--init"]
        + [str(val / "weights.pt"), *common]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "expected alphago2016-policy weights, not alphago2016-value" in err
    assert len(err.strip().splitlines()) == 1
