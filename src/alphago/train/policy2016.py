"""Training the AlphaGo 2016 policy networks: P_sigma from records, P_rho by REINFORCE.

``alphago train policy RUN --data SHARDS`` (:func:`train_policy`): supervised
learning of P_sigma from shards of expert positions (``alphago shards --planes
alphago48``): the cross-entropy of the policy against the move played, one random
symmetry per example, the last ``val_fraction`` of the examples (whole games, as for
``train sl``) held out. Logged: ``train`` lines (``loss``, ``policy_loss``, ``l2``,
``lr``, ``accuracy``, ``entropy``) and ``validation`` lines (``val_policy_loss`` and
``val_accuracy``, the held-out top-1 agreement with the move played).

``alphago train policy-rl RUN --init POLICY.pt`` (:func:`train_policy_rl`):
REINFORCE, as the paper trains P_rho. Each iteration the current policy plays
``games`` games (lock-step, colours alternating; see
:mod:`alphago.train.games2016`) against one opponent drawn uniformly from the pool
of its earlier versions (the pool starts with the initial policy, and a snapshot of
the current one joins it every ``snapshot_every`` iterations). Each game's reward is
``z`` = +1 / -1 (0 for a tie) for the current policy; one SGD step follows on

    -(1 / games) * sum over its moves t of log p(a_t | s_t) * (z - b)

with ``b`` the *baseline*: the mean reward of the iteration's games (``"mean"``,
default: it removes the part of ``z`` that says only how strong this opponent is)
or 0 (``"none"``, the paper's first pass). ``p`` is the softmax over the legal moves,
the distribution the moves were drawn from. Every ``eval_every`` iterations the
current policy plays ``eval_games`` games against P_sigma (the initial policy):
``eval`` lines with opponent ``sl``; the training games give ``eval`` lines with
opponent ``pool`` each iteration.

Both commands checkpoint atomically (``RUN/checkpoint.pt``, the current net in
``RUN/weights.pt``), log to ``RUN/metrics.jsonl`` and resume from the checkpoint when
run again, ending where an uninterrupted run ends.
"""

from __future__ import annotations

import math
import shutil
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from ..data.examples import Examples, sample_batch
from ..nets.alphago2016 import (
    POLICY_KIND,
    Net2016Config,
    PolicyNet2016,
    load_net2016,
    net2016_bytes,
    save_net2016,
)
from ..nets.weights import read_capped
from .checkpoint import (
    checkpoint_entries,
    metrics_lines,
    open_run,
    random_states,
    resume_learner,
    save_checkpoint,
)
from .games2016 import GameSettings, RLGames, reinforce_job
from .learner import TrainConfig
from .metrics import MetricsLog
from .sl import SLConfig, best_val, load_split, supervised_loop
from .trainer2016 import Trainer2016
from .workers import run_jobs

__all__ = [
    "PolicyRLConfig",
    "reinforce_loss",
    "reinforce_step",
    "train_policy",
    "train_policy_rl",
]


def _policy(model: Any) -> PolicyNet2016:
    assert isinstance(model, PolicyNet2016)
    return model


def _resume_note(command: str, run: Path, changed: list[str]) -> None:
    if changed:
        print(
            f"train {command}: resuming {run}: its stored settings are used, not the "
            f"given {', '.join(changed)} settings",
            file=sys.stderr,
        )


def _validate(trainer: Trainer2016, examples: Examples) -> dict[str, float]:
    """Held-out cross-entropy and top-1 accuracy (eval mode, no symmetries)."""
    model = trainer.model
    model.eval()
    n = len(examples)
    loss = correct = 0.0
    with torch.inference_mode():
        for start in range(0, n, 1024):
            part = examples.take(slice(start, start + 1024))
            x = trainer.tensor(part.planes)
            pi = trainer.tensor(part.policy)
            with trainer.autocast():
                logits = model(x)
            logp = torch.log_softmax(logits.float(), dim=1)
            loss += float(-(pi * logp).sum())
            correct += float((logits.argmax(1) == pi.argmax(1)).sum())
    return {"val_policy_loss": loss / n, "val_accuracy": correct / n}


def train_policy(
    run_dir: str | Path,
    data: Sequence[str | Path] | None = None,
    net_config: Net2016Config | None = None,
    train_config: TrainConfig | None = None,
    config: SLConfig | None = None,
    device: str = "cpu",
    progress: bool = True,
    stop_after: int | None = None,
    *,
    precision: str | None = None,
) -> Trainer2016:
    """Train (or continue) the supervised policy run in ``run_dir`` (module
    docstring); ``stop_after`` stops after that step without a final checkpoint
    (as a crash would). A resumed run uses its stored data and settings."""
    run, ckpt_path, state = open_run(
        run_dir, "policy2016", "train policy run's checkpoint"
    )
    if state is not None:
        asked = {"net": net_config, "train": train_config, "policy": config}
        with checkpoint_entries(ckpt_path):
            data = [Path(p) for p in state["data"]]
            net_config = Net2016Config.from_dict(state["net_config"])
            train_config = TrainConfig.from_dict(state["train_config"])
            config = SLConfig(**state["sl_config"])
        stored = {"net": net_config, "train": train_config, "policy": config}
        _resume_note(
            "policy",
            run,
            [k for k, v in asked.items() if v is not None and v != stored[k]],
        )
    if not data:
        raise ValueError("a new run needs training data (--data)")
    net_config = net_config or Net2016Config.for_board(9)
    train_config = train_config or TrainConfig()
    config = config or SLConfig()
    data_paths = [str(Path(p).resolve()) for p in data]
    train, val = load_split(
        data_paths, net_config.board_size, net_config.input_planes, config.val_fraction
    )
    torch.manual_seed(config.seed)
    trainer = Trainer2016(PolicyNet2016(net_config), train_config, device, precision)
    rng = resume_learner(run, state, "trainer", trainer.load_state_dict, config.seed)
    best = best_val(ckpt_path, state)
    model = _policy(trainer.model)

    def checkpoint(best: float) -> None:
        save_net2016(model, run / "weights.pt")
        save_checkpoint(
            ckpt_path,
            {
                "kind": "policy2016",
                "data": data_paths,
                "net_config": net_config.to_dict(),
                "train_config": train_config.to_dict(),
                "sl_config": asdict(config),
                "trainer": trainer.state_dict(),
                "random": random_states(rng),
                "best_val": best,
                "metrics_lines": metrics_lines(run / "metrics.jsonl"),
            },
        )

    def train_step() -> tuple[int, dict[str, float]]:
        planes, policy, _ = sample_batch(
            train, rng, train_config.batch_size, config.symmetries
        )
        lr = trainer.begin()
        x, pi = trainer.tensor(planes), trainer.tensor(policy)
        with trainer.autocast():
            logits = model(x)
        logp = torch.log_softmax(logits.float(), dim=1)
        loss = -(pi * logp).sum(1).mean()
        l2 = trainer.finish(loss)
        with torch.no_grad():
            accuracy = float((logits.argmax(1) == pi.argmax(1)).float().mean())
            entropy = float(-(logp.exp() * logp).sum(1).mean())
        policy_loss = float(loss.detach())
        return trainer.step, {
            "loss": policy_loss + train_config.l2 * l2,
            "policy_loss": policy_loss,
            "l2": l2,
            "lr": lr,
            "accuracy": accuracy,
            "entropy": entropy,
        }

    def validate() -> tuple[dict[str, float], float]:
        metrics = _validate(trainer, val)
        return metrics, metrics["val_policy_loss"]

    supervised_loop(
        run,
        config,
        trainer.step,
        best,
        train_step=train_step,
        validate=validate if len(val) else None,
        save_best=lambda: save_net2016(model, run / "best.pt"),
        checkpoint=checkpoint,
        desc="train policy",
        postfix="policy_loss",
        progress=progress,
        stop_after=stop_after,
    )
    return trainer


# --- REINFORCE -------------------------------------------------------------------

BASELINES = ("mean", "none")


@dataclass(frozen=True, slots=True)
class PolicyRLConfig:
    """The REINFORCE run (module docstring).

    Attributes:
        iterations: SGD steps (one per batch of games).
        games: games per iteration (colours alternate within each worker's job:
            a multiple of 2 x workers gives each colour half the games).
        snapshot_every: iterations between snapshots joining the opponent pool.
        eval_every: iterations between evaluation matches against P_sigma (0: none).
        eval_games: games of each evaluation match.
        baseline: ``"mean"`` (the batch's mean reward) or ``"none"``.
        size, komi, max_moves: the games (max_moves 0: 3 N^2 plies).
        minibatch: positions per forward/backward pass of the update (gradients
            accumulate; bounds memory, not the result).
        seed: fixes the run.
        workers: game-playing jobs (processes; 1: in this process).
        ray_address: play the games as Ray tasks on this cluster.
    """

    iterations: int = 1000
    games: int = 128
    snapshot_every: int = 50
    eval_every: int = 50
    eval_games: int = 100
    baseline: str = "mean"
    size: int = 9
    komi: float = 7.5
    max_moves: int = 0
    minibatch: int = 4096
    seed: int = 0
    workers: int = 1
    ray_address: str | None = None

    def __post_init__(self) -> None:
        for name in ("iterations", "games", "snapshot_every", "minibatch", "workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, not {getattr(self, name)}")
        if self.eval_every < 0 or self.eval_games < 0 or self.max_moves < 0:
            raise ValueError("eval_every, eval_games and max_moves must be >= 0")
        if self.baseline not in BASELINES:
            raise ValueError(
                f"baseline must be one of {BASELINES}, not {self.baseline!r}"
            )
        if not math.isfinite(self.komi):
            raise ValueError(f"komi must be finite, not {self.komi}")

    @property
    def settings(self) -> dict[str, Any]:
        """The :class:`GameSettings` of the games, as a dict."""
        return asdict(GameSettings(self.size, self.komi, self.max_moves))


def reinforce_loss(
    model: PolicyNet2016,
    games: RLGames,
    baseline: float,
    device: torch.device,
    minibatch: int = 4096,
) -> float:
    """Accumulate into ``model``'s gradients the gradient of
    ``-(1/G) sum_t log p(a_t|s_t) (z - b)`` (module docstring); returns its value.
    ``p`` is the softmax over each position's legal moves."""
    total = 0.0
    count = max(games.games, 1)
    advantage = games.reward[games.game] - np.float32(baseline)
    for start in range(0, len(games.actions), minibatch):
        end = start + minibatch
        x = torch.from_numpy(games.planes[start:end]).to(device).float()
        legal = torch.from_numpy(games.legal[start:end]).to(device)
        action = torch.from_numpy(games.actions[start:end]).to(device)
        adv = torch.from_numpy(advantage[start:end]).to(device)
        logits = model(x).float().masked_fill(~legal, -math.inf)
        logp = torch.log_softmax(logits, dim=1).gather(1, action[:, None])[:, 0]
        loss = -(logp * adv).sum() / count
        loss.backward()  # type: ignore[no-untyped-call]
        total += float(loss.detach())
    return total


def reinforce_step(
    trainer: Trainer2016, games: RLGames, baseline: str = "mean", minibatch: int = 4096
) -> dict[str, float]:
    """One REINFORCE update of ``trainer``'s policy from ``games``; the metrics."""
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {BASELINES}, not {baseline!r}")
    b = float(games.reward.mean()) if baseline == "mean" and games.games else 0.0
    lr = trainer.begin()
    model = _policy(trainer.model)
    loss = reinforce_loss(model, games, b, trainer.device, minibatch)
    l2 = trainer.finish(torch.zeros((), device=trainer.device))
    return {
        "loss": loss,
        "policy_loss": loss,
        "l2": l2,
        "lr": lr,
        "baseline": b,
        "moves": float(len(games.actions)),
    }


def _wins(games: RLGames) -> dict[str, Any]:
    wins = int((games.reward > 0).sum())
    losses = int((games.reward < 0).sum())
    ties = games.games - wins - losses
    rate = (wins + 0.5 * ties) / games.games if games.games else math.nan
    return {"wins": wins, "losses": losses, "ties": ties, "win_rate": rate}


def train_policy_rl(
    run_dir: str | Path,
    init: str | Path | None = None,
    config: PolicyRLConfig | None = None,
    train_config: TrainConfig | None = None,
    device: str = "cpu",
    progress: bool = True,
    stop_after: int | None = None,
    *,
    precision: str | None = None,
    game_device: str = "cpu",
) -> Trainer2016:
    """Train (or continue) the REINFORCE run in ``run_dir`` from the policy file
    ``init`` (module docstring). ``stop_after`` stops after that iteration, as a
    crash would (tests). The games run on ``game_device``."""
    run, ckpt_path, state = open_run(
        run_dir, "policy_rl2016", "train policy-rl run's checkpoint"
    )
    pool_dir = run / "pool"
    sl_path = run / "sl.pt"
    if state is not None:
        asked = {"train": train_config, "policy-rl": config}
        with checkpoint_entries(ckpt_path):
            train_config = TrainConfig.from_dict(state["train_config"])
            config = PolicyRLConfig(**state["rl_config"])
            pool = [str(p) for p in state["pool"]]
        stored = {"train": train_config, "policy-rl": config}
        _resume_note(
            "policy-rl",
            run,
            [k for k, v in asked.items() if v is not None and v != stored[k]],
        )
    else:
        if init is None:
            raise ValueError("a new run needs the initial policy (--init POLICY.pt)")
        config = config or PolicyRLConfig()
        train_config = train_config or TrainConfig(
            optimizer="sgd", momentum=0.0, l2=0.0
        )
        first = load_net2016(init, POLICY_KIND, board_size=config.size)
        save_net2016(first, sl_path)
        pool_dir.mkdir(exist_ok=True)
        shutil.copyfile(sl_path, pool_dir / "000000.pt")
        pool = ["000000.pt"]
    start = _policy(load_net2016(sl_path, POLICY_KIND))
    torch.manual_seed(config.seed)
    trainer = Trainer2016(start, train_config, device, precision)
    rng = resume_learner(run, state, "trainer", trainer.load_state_dict, config.seed)
    model = _policy(trainer.model)
    sl_bytes = read_capped(sl_path)
    settings = config.settings

    def play(opponent: bytes, games: int, seed: int) -> RLGames:
        parts = run_jobs(
            reinforce_job,
            (net2016_bytes(model), opponent, settings),
            games,
            seed,
            config.workers,
            config.ray_address,
            device=game_device,
            precision=precision,
        )
        return RLGames.merge(parts)

    def checkpoint() -> None:
        save_net2016(model, run / "weights.pt")
        save_checkpoint(
            ckpt_path,
            {
                "kind": "policy_rl2016",
                "init": str(init) if init is not None else None,
                "train_config": train_config.to_dict(),
                "rl_config": asdict(config),
                "trainer": trainer.state_dict(),
                "random": random_states(rng),
                "pool": pool,
                "metrics_lines": metrics_lines(run / "metrics.jsonl"),
            },
        )

    bar = tqdm(
        total=config.iterations,
        initial=trainer.step,
        desc="train policy-rl",
        disable=not progress,
        unit="it",
    )
    with MetricsLog(run / "metrics.jsonl") as log:
        while trainer.step < config.iterations:
            pick = int(rng.integers(len(pool)))
            seed = int(rng.integers(2**31))
            opponent = read_capped(pool_dir / pool[pick])
            games = play(opponent, config.games, seed)
            metrics = reinforce_step(trainer, games, config.baseline, config.minibatch)
            step = trainer.step
            result = _wins(games)
            log.log("train", step, **metrics, pool_size=len(pool))
            log.log("eval", step, opponent="pool", pick=pool[pick], **result)
            bar.update(1)
            bar.set_postfix(win=f"{result['win_rate']:.2f}", pool=len(pool))
            if step % config.snapshot_every == 0:
                name = f"{step:06d}.pt"
                save_net2016(model, pool_dir / name)
                pool.append(name)
            if (
                config.eval_every
                and config.eval_games
                and (step % config.eval_every == 0 or step == config.iterations)
            ):
                seed = int(rng.integers(2**31))
                match = play(sl_bytes, config.eval_games, seed)
                log.log("eval", step, opponent="sl", **_wins(match))
            checkpoint()
            if stop_after is not None and step >= stop_after:
                break
    bar.close()
    return trainer
