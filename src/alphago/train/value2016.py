"""Training the AlphaGo 2016 value network V_theta (``alphago train value``).

Data, as the paper makes it (:func:`alphago.train.games2016.play_value_games`): each
game contributes one position, the one after a uniformly random move ``U`` (U drawn
from 1..round(450 N^2 / 361)) that follows U-1 moves of P_sigma, labelled with the
final outcome, for the side to move there, of the game P_rho then plays out. One
position per game keeps the examples independent: successive positions of one game
differ by a stone and share the label, and a value net fitted on them memorises games
(the paper's reason).

Generation runs in batches of ``batch_games`` games, each batch one shard
``RUN/data/shard-NNNNN.npz`` written atomically (planes, value, U, the random move),
batch ``i`` seeded from the run's seed and ``i`` alone: a rerun finds the shards
already written and makes only the missing ones, so an interrupted generation
resumes and ends with the shards an uninterrupted one writes. The batches can run in
worker processes or on Ray (:func:`alphago.train.workers.run_jobs`).

Training: MSE between V_theta's output and the outcome (plus L2), random symmetries,
the last ``val_fraction`` of the games held out. To show how the held-out error falls
as games are added, the net is trained ``len(fractions)`` times from the same
initialisation, ``steps`` steps each, on the first 25%, 50% and 100% (by default) of
the training games; steps count on across these phases. Each phase ends with a
``data_curve`` line (``games``, ``train_value_mse`` on up to 4096 of its training
positions, ``val_value_mse`` at the phase's end and ``best_val_value_mse``, the lowest
of its validations: with few games the net overfits before the phase ends), which
``alphago report`` draws against ``games``;
``train`` lines carry ``loss``, ``value_loss``, ``l2``, ``lr`` and ``validation``
lines ``val_value_mse`` and ``train_value_mse``. The last phase's net (all the data)
is ``RUN/weights.pt``; its best held-out checkpoint ``RUN/best.pt``.
"""

from __future__ import annotations

import io
import math
import sys
import zipfile
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from ..atomic import atomic_write_bytes, remove_stale_temporaries
from ..data.examples import sample_batch
from ..nets.alphago2016 import (
    POLICY_KIND,
    VALUE_KIND,
    Net2016Config,
    ValueNet2016,
    load_net2016,
    save_net2016,
)
from ..nets.weights import read_capped
from .checkpoint import (
    checkpoint_entries,
    load_checkpoint,
    metrics_lines,
    open_run,
    random_states,
    resume_learner,
    save_checkpoint,
)
from .games2016 import GameSettings, ValueGames, value_job
from .learner import TrainConfig
from .metrics import MetricsLog
from .trainer2016 import Trainer2016
from .workers import SEED_STRIDE, run_jobs

__all__ = [
    "ValueConfig",
    "ValueData",
    "generate_value_data",
    "load_value_data",
    "train_value",
]


@dataclass(frozen=True, slots=True)
class ValueConfig:
    """The value run (module docstring).

    Attributes:
        games: games (= positions) to generate.
        batch_games: games per generation batch (one shard each).
        size, komi, max_moves, u_max: the games (0: the defaults of
            :class:`~alphago.train.games2016.GameSettings`).
        steps: training steps per data fraction.
        fractions: the fractions of the training games each phase trains on
            (increasing, the last 1.0).
        val_fraction: games held out.
        val_every, checkpoint_every, log_every: in steps.
        seed: fixes the run.
        symmetries: one random symmetry per training example.
        workers, ray_address: where the generation batches run.
    """

    games: int = 10_000
    batch_games: int = 500
    size: int = 9
    komi: float = 7.5
    max_moves: int = 0
    u_max: int = 0
    steps: int = 5_000
    fractions: tuple[float, ...] = (0.25, 0.5, 1.0)
    val_fraction: float = 0.1
    val_every: int = 500
    checkpoint_every: int = 500
    log_every: int = 100
    seed: int = 0
    symmetries: bool = True
    workers: int = 1
    ray_address: str | None = None

    def __post_init__(self) -> None:
        for name in ("games", "batch_games", "steps", "val_every", "log_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, not {getattr(self, name)}")
        if self.checkpoint_every < 1 or self.checkpoint_every % self.log_every:
            raise ValueError("checkpoint_every must be a multiple of log_every")
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, not {self.workers}")
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in (0, 1), not {self.val_fraction}")
        fr = tuple(float(f) for f in self.fractions)
        if not fr or fr[-1] != 1.0 or any(not 0 < f <= 1 for f in fr):
            raise ValueError(f"fractions must be in (0, 1] and end with 1, not {fr}")
        if any(b <= a for a, b in zip(fr, fr[1:], strict=False)):
            raise ValueError(f"fractions must increase, not {fr}")
        object.__setattr__(self, "fractions", fr)
        # Validates the game settings too.
        GameSettings(self.size, self.komi, self.max_moves, self.u_max)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["fractions"] = list(self.fractions)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValueConfig:
        data = dict(data)
        data["fractions"] = tuple(data["fractions"])
        return cls(**data)


@dataclass(slots=True)
class ValueData:
    """Generated positions: uint8 planes [G, C, N, N], float32 values [G] (the
    outcome for the side to move), int64 ``u`` [G] and ``random_move`` [G]."""

    planes: np.ndarray
    value: np.ndarray
    u: np.ndarray
    random_move: np.ndarray
    kind: str

    def __len__(self) -> int:
        return int(self.value.shape[0])

    def save(self, path: Path) -> None:
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            planes=self.planes,
            value=self.value,
            u=self.u,
            random_move=self.random_move,
            kind=np.array(self.kind),
        )
        atomic_write_bytes(path, buffer.getbuffer())

    @classmethod
    def load(cls, path: Path) -> ValueData:
        try:
            with open(path, "rb") as f, np.load(f, allow_pickle=False) as data:
                return cls(
                    data["planes"],
                    data["value"],
                    data["u"],
                    data["random_move"],
                    str(data["kind"]),
                )
        except (KeyError, OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: not a value-data shard ({exc})") from None
        except zlib.error as exc:
            raise ValueError(f"{path}: not a value-data shard ({exc})") from None

    @staticmethod
    def concat(parts: list[ValueData]) -> ValueData:
        return ValueData(
            np.concatenate([p.planes for p in parts]),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.u for p in parts]),
            np.concatenate([p.random_move for p in parts]),
            parts[0].kind,
        )

    def examples(self) -> Any:
        """As :class:`~alphago.data.examples.Examples` (an all-zero policy)."""
        from ..data.examples import Examples

        n, size = len(self), int(self.planes.shape[-1])
        policy = np.zeros((n, size * size + 1), np.float32)
        return Examples(self.planes, policy, self.value.astype(np.float32), self.kind)


def _shard(data_dir: Path, index: int) -> Path:
    return data_dir / f"shard-{index:05d}.npz"


def generate_value_data(
    data_dir: str | Path,
    sl_bytes: bytes,
    rl_bytes: bytes,
    config: ValueConfig,
    value_planes: str,
    progress: bool = True,
    *,
    device: str = "cpu",
    precision: str | None = None,
    stop_after: int | None = None,
) -> ValueData:
    """Make the missing shards of ``data_dir`` (module docstring); all the data.
    ``stop_after`` stops after that many batches of this call (tests)."""
    out = Path(data_dir)
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    batches = math.ceil(config.games / config.batch_games)
    settings = asdict(
        GameSettings(
            config.size, config.komi, config.max_moves, config.u_max, value_planes
        )
    )
    bar = tqdm(total=config.games, desc="value data", disable=not progress, unit="game")
    parts: list[ValueData] = []
    made = 0
    for index in range(batches):
        path = _shard(out, index)
        games = min(config.batch_games, config.games - index * config.batch_games)
        if path.exists():
            part = ValueData.load(path)
            if len(part) != games or part.kind != value_planes:
                raise ValueError(f"{path}: a shard of another run")
        else:
            if stop_after is not None and made >= stop_after:
                break
            results: list[ValueGames] = run_jobs(
                value_job,
                (sl_bytes, rl_bytes, settings),
                games,
                config.seed + index * SEED_STRIDE * config.workers,
                config.workers,
                config.ray_address,
                device=device,
                precision=precision,
            )
            merged = ValueGames.merge(results)
            part = ValueData(
                merged.planes, merged.value, merged.u, merged.random_move, value_planes
            )
            part.save(path)
            made += 1
        parts.append(part)
        bar.update(games)
    bar.close()
    return ValueData.concat(parts)


def load_value_data(data_dir: str | Path) -> ValueData:
    """Every shard in ``data_dir``, in order."""
    files = sorted(Path(data_dir).glob("shard-*.npz"))
    if not files:
        raise ValueError(f"no value-data shards in {data_dir}")
    return ValueData.concat([ValueData.load(f) for f in files])


def _mse(trainer: Trainer2016, planes: np.ndarray, value: np.ndarray) -> float:
    model = trainer.model
    model.eval()
    total = 0.0
    with torch.inference_mode():
        for start in range(0, len(value), 1024):
            x = trainer.tensor(planes[start : start + 1024])
            z = trainer.tensor(value[start : start + 1024])
            with trainer.autocast():
                v = model(x)
            total += float(((v.float() - z) ** 2).sum())
    return total / max(len(value), 1)


def train_value(
    run_dir: str | Path,
    sl: str | Path | None = None,
    rl: str | Path | None = None,
    net_config: Net2016Config | None = None,
    train_config: TrainConfig | None = None,
    config: ValueConfig | None = None,
    device: str = "cpu",
    progress: bool = True,
    stop_after: int | None = None,
    *,
    precision: str | None = None,
    game_device: str = "cpu",
    stop_after_batches: int | None = None,
) -> Trainer2016:
    """Generate the data and train V_theta in ``run_dir`` (module docstring), or
    continue the run there. ``stop_after`` stops training after that global step
    and ``stop_after_batches`` generation after that many new batches, as a crash
    would (tests)."""
    run, settings_path, stored = open_run(
        run_dir, "value2016", "train value run's settings", "settings.pt"
    )
    ckpt_path = run / "checkpoint.pt"
    if stored is not None:
        with checkpoint_entries(settings_path):
            net_stored = Net2016Config.from_dict(stored["net_config"])
            train_stored = TrainConfig.from_dict(stored["train_config"])
            config_stored = ValueConfig.from_dict(stored["value_config"])
        asked = {"net": net_config, "train": train_config, "value": config}
        now = {"net": net_stored, "train": train_stored, "value": config_stored}
        changed = [k for k, v in asked.items() if v is not None and v != now[k]]
        if changed:
            print(
                f"train value: resuming {run}: its stored settings are used, not the "
                f"given {', '.join(changed)} settings",
                file=sys.stderr,
            )
        net_config, train_config, config = net_stored, train_stored, config_stored
    else:
        if sl is None or rl is None:
            raise ValueError("a new run needs the policies (--sl and --rl)")
        config = config or ValueConfig()
        net_config = net_config or Net2016Config.for_board(config.size, VALUE_KIND)
        train_config = train_config or TrainConfig()
        if net_config.board_size != config.size:
            raise ValueError(
                f"the value net is for {net_config.board_size}x"
                f"{net_config.board_size}, the games {config.size}x{config.size}"
            )
        for name, path in (("sl.pt", sl), ("rl.pt", rl)):
            save_net2016(
                load_net2016(path, POLICY_KIND, board_size=config.size), run / name
            )
        save_checkpoint(
            settings_path,
            {
                "kind": "value2016",
                "net_config": net_config.to_dict(),
                "train_config": train_config.to_dict(),
                "value_config": config.to_dict(),
            },
        )

    def phase_trainer() -> Trainer2016:
        torch.manual_seed(config.seed)
        model = ValueNet2016(net_config)
        return Trainer2016(model, train_config, device, precision)

    data = generate_value_data(
        run / "data",
        read_capped(run / "sl.pt"),
        read_capped(run / "rl.pt"),
        config,
        net_config.input_planes,
        progress,
        device=game_device,
        precision=precision,
        stop_after=stop_after_batches,
    )
    if len(data) < config.games:  # stopped on request (stop_after_batches)
        return phase_trainer()
    n_val = max(1, int(round(len(data) * config.val_fraction)))
    cut = len(data) - n_val
    if cut < 1:
        raise ValueError("too few games to hold some out: generate more")
    val_planes, val_value = data.planes[cut:], data.value[cut:]
    everything = data.examples()

    trainer = phase_trainer()
    # best: the last phase's lowest held-out MSE (best.pt); phase_best: this
    # phase's, for its data_curve line.
    phase, best, phase_best = 0, math.inf, math.inf
    state = load_checkpoint(ckpt_path) if ckpt_path.exists() else None
    if state is not None:
        with checkpoint_entries(ckpt_path):
            if state["kind"] != "value2016":
                raise ValueError(f"{ckpt_path} is not a train value run's checkpoint")
            phase, best = int(state["phase"]), float(state["best_val"])
            phase_best = float(state["phase_best"])
    rng = resume_learner(run, state, "trainer", trainer.load_state_dict, config.seed)
    phases = len(config.fractions)
    total = phases * config.steps

    def checkpoint() -> None:
        assert isinstance(trainer.model, ValueNet2016)
        save_net2016(trainer.model, run / "weights.pt")
        save_checkpoint(
            ckpt_path,
            {
                "kind": "value2016",
                "phase": phase,
                "best_val": best,
                "phase_best": phase_best,
                "trainer": trainer.state_dict(),
                "random": random_states(rng),
                "metrics_lines": metrics_lines(run / "metrics.jsonl"),
            },
        )

    bar = tqdm(
        total=total,
        initial=phase * config.steps + trainer.step,
        desc="train value",
        disable=not progress,
        unit="step",
    )
    rows: list[dict[str, float]] = []
    with MetricsLog(run / "metrics.jsonl") as log:
        while True:
            last = phase == phases - 1
            if trainer.step >= config.steps:
                if last:
                    break
                phase += 1  # the next phase starts afresh on more of the data
                trainer = phase_trainer()
                phase_best = math.inf
                continue
            games = max(1, int(round(cut * config.fractions[phase])))
            train = everything.take(slice(0, games))
            probe = slice(0, min(games, 4096))
            while trainer.step < config.steps:
                planes, _, z = sample_batch(
                    train, rng, train_config.batch_size, config.symmetries
                )
                lr = trainer.begin()
                x, zt = trainer.tensor(planes), trainer.tensor(z)
                with trainer.autocast():
                    v = trainer.model(x)
                loss = torch.mean((v.float() - zt) ** 2)
                l2 = trainer.finish(loss)
                mse = float(loss.detach())
                rows.append(
                    {
                        "loss": mse + train_config.l2 * l2,
                        "value_loss": mse,
                        "l2": l2,
                        "lr": lr,
                    }
                )
                step = phase * config.steps + trainer.step
                bar.update(1)
                end = trainer.step == config.steps
                if trainer.step % config.log_every == 0 or end:
                    mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
                    rows.clear()
                    log.log("train", step, games=games, **mean)
                    bar.set_postfix(mse=f"{mean['value_loss']:.3f}", games=games)
                if trainer.step % config.val_every == 0 or end:
                    val_mse = _mse(trainer, val_planes, val_value)
                    train_mse = _mse(trainer, train.planes[probe], train.value[probe])
                    curve = {
                        "games": games,
                        "val_value_mse": val_mse,
                        "train_value_mse": train_mse,
                    }
                    log.log("validation", step, **curve)
                    phase_best = min(phase_best, val_mse)
                    if end:
                        log.log(
                            "data_curve", step, best_val_value_mse=phase_best, **curve
                        )
                    if last and val_mse < best:
                        best = val_mse
                        assert isinstance(trainer.model, ValueNet2016)
                        save_net2016(trainer.model, run / "best.pt")
                if trainer.step % config.checkpoint_every == 0 or end:
                    checkpoint()
                if stop_after is not None and step >= stop_after:
                    bar.close()
                    return trainer
    bar.close()
    return trainer
