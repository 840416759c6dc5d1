"""Self-play reinforcement learning (``alphago train rl``), AlphaGo Zero's loop.

One *iteration* has three phases, each ending in a checkpoint so a killed run resumes
at the phase it was in:

1. **self-play**: the current best network plays ``games_per_iteration`` games
   (:mod:`alphago.train.workers`: local processes, or Ray tasks with ``ray_address``),
   PUCT with Dirichlet noise, temperature 1 for the opening moves, tree reuse, and
   optionally playout cap randomisation (only a fraction of the moves get a full search
   and become examples; :mod:`alphago.train.selfplay`). Their examples join the
   replay window, which keeps the ``replay_window`` most recent.
2. **training**: ``updates_per_iteration`` rounds. A round samples a batch from the
   window (random symmetries; with ``anchor_data``, ``anchor_fraction`` of it from
   those fixed shards instead, e.g. the supervised games the run started from, which
   hold the value head to real results) and takes up to ``epochs`` optimiser steps on
   it, measuring after each step the KL divergence of the new policy from the policy
   before the round (on the batch, eval mode); it stops early once the KL exceeds
   ``4 * kl_target``. Then the learning-rate multiplier adapts: divided by 1.5 when the
   KL was above ``2 * kl_target``, multiplied by 1.5 below ``kl_target / 2``, kept in
   [0.1, 10]. Every round logs the losses (with the ownership and score losses when
   their weights are on), the KL, the learning rate and multiplier, the policy
   entropy and the value head's explained variance (those of its first step), and
   under fp16 the round's skipped steps, the run's total and the loss scale after
   it. A batch is drawn the same way with the auxiliary losses on or off, so runs
   that differ only in them train on the same positions.
3. **evaluation**: the trained network (candidate) plays the best one
   (:mod:`alphago.train.arena`, colours alternated); it becomes the best when it scores
   at least ``gate_threshold``. Every ``baseline_every`` iterations the best network
   plays pure UCT with ``10x`` its simulations, and every ``gnugo_every`` iterations
   GNU Go through GTP (``alphago gtp`` processes refereed by ``alphago.match``); all
   results go to the metrics log with Elo estimates.

Run directory: ``checkpoint.pt`` (learner, configs, counters, random states, phase),
``replay-*.npz`` (the window; the checkpoint names its file), ``best.pt`` and
``candidate.pt`` (weights files), ``metrics.jsonl``, ``games/`` (SGF of the GNU Go
evaluations). Each phase's randomness comes from (seed, iteration, phase), and the
learner's sampling generator is in the
checkpoint, so a killed and resumed run ends in the same state as an uninterrupted one.

Devices: the learner trains on ``device``; self-play and the evaluation games run
their networks on ``selfplay_device`` (default the CPU; ``"cuda"`` puts every
self-play worker's evaluator on the GPU). ``precision`` applies to both (None: each
device's default: bf16 on CUDA; on the CPU, fp32 for the learner and, for the games'
evaluators, bf16 where the CPU has AMX or AVX512-BF16, else fp32). None of these is
stored in the checkpoint: a run may resume on another machine.

CPU budget: the checkpoint keeps the CPU seconds the run has used so far (this process
and the worker processes it waited for, user and system time; Ray tasks on other
machines are not counted), and every self-play metrics line logs them as
``cpu_hours``. ``cpu_hours`` stops the run at the end of the first iteration that
reaches that many CPU hours (not stored either: a rerun with a larger budget goes on),
so that runs differing in one switch can be compared at equal cost.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from tqdm import tqdm

from ..atomic import remove_stale_temporaries
from ..data.examples import Examples, load_shards, sample_aux_batch, sample_batch
from ..nets.model import NetConfig, PolicyValueNet
from ..nets.weights import load_weights, save_weights, weights_bytes
from .arena import Contestant, play_arena
from .checkpoint import (
    checkpoint_entries,
    load_checkpoint,
    metrics_lines,
    random_states,
    restore_random_states,
    save_checkpoint,
    truncate_metrics,
)
from .evaluation import gnugo_match, log_eval
from .learner import Learner, TrainConfig
from .metrics import MetricsLog
from .selfplay import SelfPlayConfig
from .start import load_start, start_network
from .workers import run_selfplay

__all__ = ["RLConfig", "train_rl"]

PHASES = ("selfplay", "train", "evaluate")


def process_cpu_seconds() -> float:
    """User + system CPU seconds of this process and its waited-for children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


LR_MULTIPLIER_RANGE = (0.1, 10.0)


@dataclass(frozen=True, slots=True)
class RLConfig:
    """The self-play run (module docstring); JSON-able through :meth:`to_dict`."""

    iterations: int = 100
    games_per_iteration: int = 64
    replay_window: int = 100_000
    updates_per_iteration: int = 100
    epochs: int = 4
    kl_target: float = 0.02
    gate_games: int = 40
    gate_threshold: float = 0.55
    eval_simulations: int = 100
    baseline_every: int = 5
    baseline_games: int = 20
    gnugo_every: int = 0
    gnugo_games: int = 20
    gnugo_level: int = 1
    workers: int = 2
    ray_address: str | None = None
    seed: int = 0
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    #: Shards (files or directories) whose examples make up ``anchor_fraction`` of
    #: every training batch, e.g. the supervised games the run started from: they
    #: keep the value head tied to results self-play alone drifts from. A run stores
    #: them as absolute paths and reads them again when it resumes: keep them as
    #: they were, or the resumed run trains on other data.
    anchor_data: tuple[str, ...] = ()
    anchor_fraction: float = 0.25

    def __post_init__(self) -> None:
        for name in (
            "iterations",
            "games_per_iteration",
            "replay_window",
            "epochs",
            "workers",
            "eval_simulations",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, not {getattr(self, name)}")
        for name in (
            "updates_per_iteration",
            "gate_games",
            "baseline_every",
            "baseline_games",
            "gnugo_every",
            "gnugo_games",
            "seed",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, not {getattr(self, name)}")
        if not self.kl_target > 0:
            raise ValueError(f"kl_target must be > 0, not {self.kl_target}")
        if not 0.0 <= self.gate_threshold <= 1.0:
            raise ValueError(
                f"gate_threshold must be in [0, 1], not {self.gate_threshold}"
            )
        if not 0 <= self.gnugo_level <= 10:
            raise ValueError(f"gnugo_level must be in 0..10, not {self.gnugo_level}")
        if not 0.0 < self.anchor_fraction < 1.0:
            raise ValueError(
                f"anchor_fraction must be in (0, 1), not {self.anchor_fraction}"
            )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        rules = self.selfplay.rules
        if not isinstance(rules, str):
            raise ValueError("only a rules preset name can be stored in a checkpoint")
        data["selfplay"]["rules"] = rules
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RLConfig:
        data = dict(data)
        data["selfplay"] = SelfPlayConfig(**data["selfplay"])
        data["anchor_data"] = tuple(data.get("anchor_data", ()))
        return cls(**data)


def load_anchor(config: RLConfig, net_config: NetConfig) -> Examples | None:
    """The examples of ``config.anchor_data`` (None without any), checked against
    the network's planes and board size.

    Raises:
        ValueError: unreadable shards, or shards of other planes or another size.
    """
    if not config.anchor_data:
        return None
    anchor = load_shards(config.anchor_data)
    want = (net_config.input_planes, net_config.board_size)
    if (anchor.kind, anchor.size) != want:
        raise ValueError(
            f"anchor data: {anchor.kind} planes of {anchor.size}x{anchor.size} "
            f"boards; the network takes {want[0]} planes of {want[1]}x{want[1]}"
        )
    return anchor


def adapt_multiplier(multiplier: float, kl: float, target: float) -> float:
    """The KL rule: slower above ``2 * target``, faster below ``target / 2``."""
    low, high = LR_MULTIPLIER_RANGE
    if kl > 2.0 * target:
        return max(low, multiplier / 1.5)
    if kl < target / 2.0:
        return min(high, multiplier * 1.5)
    return multiplier


def _kl(old_logp: torch.Tensor, new_logp: torch.Tensor) -> float:
    return float((old_logp.exp() * (old_logp - new_logp)).sum(1).mean())


def _sample(
    learner: Learner, examples: Examples, rng: np.random.Generator, count: int
) -> tuple[NDArray[np.float32], ...]:
    if learner.aux:
        return sample_aux_batch(examples, rng, count)
    return sample_batch(examples, rng, count)


def train_round(
    learner: Learner,
    replay: Examples,
    rng: np.random.Generator,
    config: RLConfig,
    anchor: Examples | None = None,
) -> dict[str, float]:
    """One KL-controlled round (module docstring); returns the metrics to log.
    With ``anchor``, ``config.anchor_fraction`` of the batch (at least one example,
    and one fewer than the batch at most) comes from it, the rest from ``replay``."""
    batch = learner.config.batch_size
    parts = _sample(learner, replay, rng, batch)
    if anchor is not None:
        fixed = min(batch - 1, max(1, round(config.anchor_fraction * batch)))
        parts = tuple(
            np.concatenate([own[: batch - fixed], other])
            for own, other in zip(
                parts, _sample(learner, anchor, rng, fixed), strict=True
            )
        )
    planes, policy, value = parts[:3]
    owner = parts[3] if learner.aux else None
    score = parts[4] if learner.aux else None
    old = learner.policy_logp(planes)
    skipped_before = learner.skipped_steps
    first: dict[str, float] | None = None
    kl = 0.0
    epochs = 0
    for _ in range(config.epochs):
        out = learner.train_step(planes, policy, value, owner, score)
        first = first or out
        epochs += 1
        kl = _kl(old, learner.policy_logp(planes))
        if kl > 4.0 * config.kl_target:
            break  # the policy moved too far on this batch
    assert first is not None
    learner.lr_multiplier = adapt_multiplier(
        learner.lr_multiplier, kl, config.kl_target
    )
    metrics = dict(first)
    metrics.update(kl=kl, epochs=epochs, lr_multiplier=learner.lr_multiplier)
    if learner.scaler is not None:  # fp16: the round's skipped steps, not its first's
        metrics.update(
            skipped=float(learner.skipped_steps - skipped_before),
            skipped_steps=float(learner.skipped_steps),
            loss_scale=float(learner.scaler.get_scale()),
        )
    return metrics


def _phase_seed(seed: int, iteration: int, phase: str) -> int:
    seq = np.random.SeedSequence([seed, iteration, PHASES.index(phase)])
    return int(seq.generate_state(1)[0] % (2**31))


class _Run:
    """The state of a run between phases (what the checkpoint holds)."""

    def __init__(
        self,
        run: Path,
        config: RLConfig,
        net_config: NetConfig,
        train_config: TrainConfig,
        device: str,
        precision: str | None = None,
        selfplay_device: str = "cpu",
    ) -> None:
        self.dir = run
        self.config = config
        self.net_config = net_config
        self.train_config = train_config
        torch.manual_seed(config.seed)
        self.learner = Learner(
            PolicyValueNet(net_config), train_config, device, precision
        )
        self.precision = precision
        self.selfplay_device = selfplay_device
        self.rng = np.random.default_rng(config.seed)
        self.iteration = 0
        self.phase = "selfplay"
        self.games = 0
        self.moves = 0
        self.examples = 0
        self.replay = Examples.empty(net_config.board_size, net_config.input_planes)
        self.replay_file = ""
        self.metrics_lines = 0
        #: CPU seconds of earlier processes of this run; this one's since _cpu_mark.
        self.cpu_before = 0.0
        self._cpu_mark = process_cpu_seconds()
        #: CPU seconds the checkpoint holds: the budget is judged on this figure, the
        #: one a report reads back (the live figure also counts the checkpoint write).
        self.saved_cpu_seconds = 0.0
        #: The gate's decision in this iteration's evaluation phase, once made (None
        #: before): saved before best.pt changes, so a rerun replays neither.
        self.accepted: bool | None = None

    def cpu_seconds(self) -> float:
        """CPU seconds the run has used, over all its processes so far."""
        return self.cpu_before + process_cpu_seconds() - self._cpu_mark

    def save(self) -> None:
        # The window changes only in the self-play phase: the new one goes to a new
        # file (named by the examples count) that the checkpoint then names, and older
        # files go once the checkpoint is safe, so a crash between the writes leaves a
        # checkpoint and its own window.
        replay_file = f"replay-{self.examples:012d}.npz"
        if replay_file != self.replay_file:
            self.replay.save(self.dir / replay_file)
            self.replay_file = replay_file
        cpu_seconds = self.cpu_seconds()
        save_checkpoint(
            self.dir / "checkpoint.pt",
            {
                "kind": "rl",
                "net_config": self.net_config.to_dict(),
                "train_config": self.train_config.to_dict(),
                "rl_config": self.config.to_dict(),
                "learner": self.learner.state_dict(),
                "random": random_states(self.rng),
                "iteration": self.iteration,
                "phase": self.phase,
                "games": self.games,
                "moves": self.moves,
                "examples": self.examples,
                "replay_file": self.replay_file,
                "metrics_lines": metrics_lines(self.dir / "metrics.jsonl"),
                "accepted": self.accepted,
                "cpu_seconds": cpu_seconds,
            },
        )
        self.saved_cpu_seconds = cpu_seconds
        for old in self.dir.glob("replay-*.npz"):
            if old.name != self.replay_file:
                old.unlink()

    @classmethod
    def load(
        cls,
        run: Path,
        device: str,
        precision: str | None = None,
        selfplay_device: str = "cpu",
    ) -> _Run:
        state = load_checkpoint(run / "checkpoint.pt")
        if state.get("kind") != "rl":
            raise ValueError(
                f"{run / 'checkpoint.pt'} is not a self-play run's checkpoint"
            )
        with checkpoint_entries(run / "checkpoint.pt"):
            configs = (
                RLConfig.from_dict(state["rl_config"]),
                NetConfig.from_dict(state["net_config"]),
                TrainConfig.from_dict(state["train_config"]),
            )
            saved_learner, saved_random = state["learner"], state["random"]
            counters = [int(state[k]) for k in ("iteration", "games", "examples")]
            # Absent from older checkpoints, where every move was an example.
            moves = int(state.get("moves", counters[2]))
            phase, replay_file = str(state["phase"]), str(state["replay_file"])
            lines = int(state["metrics_lines"])
            accepted = state.get("accepted")  # absent from older checkpoints
            cpu_before = float(state.get("cpu_seconds", 0.0))  # likewise
        self = cls(run, *configs, device, precision, selfplay_device)
        self.learner.load_state_dict(saved_learner)
        self.rng = restore_random_states(saved_random)
        self.iteration, self.games, self.examples = counters
        self.moves = moves
        self.phase, self.replay_file = phase, replay_file
        self.replay = Examples.load(run / self.replay_file)
        self.metrics_lines = lines
        self.accepted = None if accepted is None else bool(accepted)
        self.cpu_before = self.saved_cpu_seconds = cpu_before
        return self

    def best(self) -> PolicyValueNet:
        return load_weights(self.dir / "best.pt")


def train_rl(
    run_dir: str | Path,
    config: RLConfig | None = None,
    net_config: NetConfig | None = None,
    train_config: TrainConfig | None = None,
    init_weights: str | Path | None = None,
    device: str = "cpu",
    progress: bool = True,
    stop_after: tuple[int, str] | None = None,
    *,
    precision: str | None = None,
    selfplay_device: str = "cpu",
    cpu_hours: float | None = None,
) -> Learner:
    """Run (or resume) the self-play loop in ``run_dir``; returns the learner.

    A new run starts from ``init_weights`` (e.g. a supervised network; its shape
    replaces ``net_config``, with freshly initialised ownership and score heads
    added when ``train_config`` weights those losses and the network lacks them)
    or from random weights. An existing run resumes from its checkpoint with its
    stored configs. ``stop_after=(iteration, phase)`` stops once
    that phase of that iteration is done (as a crash would): the tests use it.
    ``device``, ``precision`` and ``selfplay_device``: module docstring ("Devices");
    each is checked before anything runs (ValueError, one line). ``cpu_hours``: stop
    after the iteration that reaches this CPU budget (module docstring).
    """
    from ..nets.precision import resolve_device, resolve_precision

    resolve_precision(precision, resolve_device(device))
    resolve_precision(precision, resolve_device(selfplay_device))
    if cpu_hours is not None and not cpu_hours > 0:
        raise ValueError(f"cpu_hours must be > 0, not {cpu_hours}")
    budget = float("inf") if cpu_hours is None else 3600.0 * cpu_hours
    run = Path(run_dir)
    if (run / "checkpoint.pt").exists():
        remove_stale_temporaries(run)  # left by a killed run
        state = _Run.load(run, device, precision, selfplay_device)
        anchor = load_anchor(state.config, state.net_config)
        truncate_metrics(run / "metrics.jsonl", state.metrics_lines)
    else:
        config = config or RLConfig()
        train_config = train_config or TrainConfig()
        if init_weights is not None:
            net_config, start = start_network(init_weights, net_config, train_config)
        net_config = net_config or NetConfig(board_size=config.selfplay.size)
        if net_config.board_size != config.selfplay.size:
            raise ValueError("the network's board size differs from self-play's")
        if config.anchor_data and train_config.batch_size < 2:
            raise ValueError("anchor data needs a batch of at least 2 examples")
        # Stored absolute, so that a resume from another directory finds them.
        paths = tuple(str(Path(p).resolve()) for p in config.anchor_data)
        config = dataclasses.replace(config, anchor_data=paths)
        anchor = load_anchor(config, net_config)  # before the run directory is made
        run.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(run)
        state = _Run(
            run, config, net_config, train_config, device, precision, selfplay_device
        )
        if init_weights is not None:
            load_start(state.learner.model, start)
        save_weights(state.learner.model, run / "best.pt")
        state.save()
    cfg = state.config
    with MetricsLog(run / "metrics.jsonl") as log:
        while state.iteration < cfg.iterations:
            if state.phase == "selfplay" and state.saved_cpu_seconds >= budget:
                break
            phase = state.phase
            if phase == "selfplay":
                _selfplay(state, log, progress)
            elif phase == "train":
                _train(state, log, progress, anchor)
            else:
                _evaluate(state, log)
            state.phase = PHASES[(PHASES.index(phase) + 1) % len(PHASES)]
            if phase == "evaluate":
                state.iteration += 1
                state.accepted = None
            state.save()
            if stop_after == (state.iteration - (phase == "evaluate"), phase):
                break
    return state.learner


def _advance(bar: tqdm[Any], done: int) -> None:
    bar.update(done - bar.n)


def _selfplay(state: _Run, log: MetricsLog, progress: bool) -> None:
    cfg = state.config
    best = state.best()
    with tqdm(
        total=cfg.games_per_iteration,
        desc=f"self-play {state.iteration}",
        disable=not progress,
        unit="game",
    ) as bar:
        result = run_selfplay(
            weights_bytes(best),
            best.config.to_dict(),
            cfg.selfplay,
            cfg.games_per_iteration,
            _phase_seed(cfg.seed, state.iteration, "selfplay"),
            workers=cfg.workers,
            ray_address=cfg.ray_address,
            progress=lambda done: _advance(bar, done),
            device=state.selfplay_device,
            precision=state.precision,
        )
    merged = Examples.concat([state.replay, result.examples])
    state.replay = merged.take(slice(max(0, len(merged) - cfg.replay_window), None))
    state.games += len(result.records)
    state.moves += result.moves
    state.examples += len(result.examples)
    log.log(
        "selfplay",
        state.learner.step,
        games=state.games,
        moves=state.moves,
        examples=state.examples,
        games_per_hour=3600.0 * len(result.records) / max(result.seconds, 1e-9),
        replay=len(state.replay),
        cpu_hours=state.cpu_seconds() / 3600.0,
        resign_false_positives=result.resign_false_positives,
    )


def _train(
    state: _Run, log: MetricsLog, progress: bool, anchor: Examples | None
) -> None:
    cfg = state.config
    for _ in tqdm(
        range(cfg.updates_per_iteration),
        desc=f"train {state.iteration}",
        disable=not progress,
        unit="round",
    ):
        metrics = train_round(state.learner, state.replay, state.rng, cfg, anchor)
        log.log("train", state.learner.step, **metrics)
    save_weights(state.learner.model, state.dir / "candidate.pt")


def _evaluate(state: _Run, log: MetricsLog) -> None:
    cfg = state.config
    sp = cfg.selfplay
    step = state.learner.step
    seed = _phase_seed(cfg.seed, state.iteration, "evaluate")
    dev, prec = state.selfplay_device, state.precision  # as self-play's evaluators
    best = state.best()
    if state.accepted is not None:
        pass  # decided before a crash (and logged): best.pt may be the candidate now
    elif cfg.gate_games:
        candidate = load_weights(state.dir / "candidate.pt")
        arena = play_arena(
            Contestant.net(
                "candidate", candidate, cfg.eval_simulations, device=dev, precision=prec
            ),
            Contestant.net(
                "best", best, cfg.eval_simulations, device=dev, precision=prec
            ),
            cfg.gate_games,
            sp.size,
            sp.komi,
            seed,
        )
        accepted = arena.win_rate >= cfg.gate_threshold
        log.log(
            "gate",
            step,
            win_rate=arena.win_rate,
            accepted=accepted,
            wins=arena.wins,
            losses=arena.losses,
            ties=arena.ties,
        )
        # The decision is checkpointed before best.pt is replaced: a run killed from
        # here on resumes with it rather than playing the gate again, against a
        # best.pt that may already be the candidate.
        state.accepted = accepted
        state.save()
    else:
        state.accepted = True  # no gate: AlphaZero's always-replace variant
    if state.accepted:
        best = load_weights(state.dir / "candidate.pt")
        save_weights(best, state.dir / "best.pt")
    due = state.iteration + 1
    if cfg.baseline_every and cfg.baseline_games and due % cfg.baseline_every == 0:
        uct_sims = 10 * cfg.eval_simulations
        arena = play_arena(
            Contestant.net(
                "best", best, cfg.eval_simulations, device=dev, precision=prec
            ),
            Contestant.uct(f"uct-{uct_sims}", uct_sims),
            cfg.baseline_games,
            sp.size,
            sp.komi,
            seed + 1,
        )
        log_eval(log, step, f"uct-{uct_sims}", arena.wins, arena.losses, arena.ties)
    if cfg.gnugo_every and cfg.gnugo_games and due % cfg.gnugo_every == 0:
        wins, losses, ties = gnugo_match(
            state.dir / "best.pt",
            sp.size,
            sp.komi,
            cfg.eval_simulations,
            cfg.gnugo_level,
            cfg.gnugo_games,
            parallel=cfg.workers,
            sgf_dir=state.dir / "games" / f"gnugo-{state.iteration:04d}",
        )
        log_eval(log, step, f"gnugo-{cfg.gnugo_level}", wins, losses, ties)
