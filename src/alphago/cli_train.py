"""The training half of the ``alphago`` command: data, training runs and their report.

- ``alphago gendata OUT``: GNU Go plays itself; SGF files in OUT (resumable).
- ``alphago shards SGF... --out DIR``: SGF files become training shards.
- ``alphago train sl RUN --data DIR``: supervised training (resumes RUN).
- ``alphago train rl RUN``: self-play reinforcement learning (resumes RUN).
- ``alphago train policy|policy-rl|value RUN``: the AlphaGo 2016 networks
  (:mod:`alphago.cli_train2016`).
- ``alphago report RUN``: the run's curves as a PNG.
- ``alphago validate WEIGHTS... --data DIR``: networks scored on the same held-out
  positions (:mod:`alphago.train.holdout`).

Like :mod:`alphago.cli`, every command imports its modules when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from alphago.cli_args import at_least, board_size, finite, komi, seed, threads

if TYPE_CHECKING:
    from alphago.nets.model import NetConfig
    from alphago.train.learner import TrainConfig

__all__ = ["TRAINING_COMMANDS", "add_training_commands"]


def _add_net_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--size", type=board_size, default=9, help="board size (default 9)")
    p.add_argument("--blocks", type=int, default=6, help="residual blocks (default 6)")
    p.add_argument("--filters", type=int, default=64, help="filters (default 64)")
    p.add_argument(
        "--planes",
        default="agz17",
        choices=("agz17", "lz18", "alphago49"),
        help="input planes (default agz17; alphago49 adds liberties, ladders and "
        "move trials, with eight turns-since planes in place of the history)",
    )
    p.add_argument(
        "--global-pooling",
        nargs="?",
        const="auto",
        default=None,
        metavar="BLOCKS",
        help="KataGo's global pooling biases in some residual blocks: a comma "
        "list of block indices (from 0), or no value for every third block "
        "(2, 5, 8, ...; the last block when there are fewer than 3); default off",
    )


def _pooling_blocks(text: str | None, blocks: int) -> tuple[int, ...]:
    """The blocks of ``--global-pooling`` (ValueError, one line, if bad)."""
    if text is None:
        return ()
    if text == "auto":
        chosen = tuple(range(2, blocks, 3))
        return chosen or ((blocks - 1,) if blocks else ())
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(
            f"--global-pooling takes block indices like 2,5, not {text!r}"
        ) from None


def _add_aux_options(p: argparse.ArgumentParser, ownership: float = 0.0) -> None:
    p.add_argument(
        "--ownership-weight",
        type=finite,
        default=ownership,
        help="weight of the final-ownership loss (KataGo's auxiliary target; adds an "
        "ownership head; KataGo used 1.5; 0: off; default %(default)s)",
    )
    p.add_argument(
        "--score-weight",
        type=finite,
        default=0.0,
        help="weight of the final-score loss (adds a score head; we suggest 0.25; "
        "default 0: off)",
    )


def _add_step_options(p: argparse.ArgumentParser, steps: int, every: int) -> None:
    p.add_argument(
        "--steps",
        type=at_least(1),
        default=steps,
        help="training steps (default %(default)s)",
    )
    p.add_argument(
        "--schedule",
        choices=("constant", "cosine", "step"),
        default="cosine",
        help="learning-rate schedule (default cosine over --steps; step divides "
        "the rate by 10 at each of --milestones)",
    )
    p.add_argument(
        "--milestones",
        type=_milestones,
        default=(),
        metavar="STEPS",
        help="steps where --schedule step divides the rate by 10 (comma list, "
        "e.g. 15000,18000; needed by step)",
    )
    p.add_argument(
        "--val-every",
        type=at_least(1),
        default=every,
        help="steps between validations (default %(default)s)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=at_least(1),
        default=every,
        help="steps between checkpoints (a multiple of --log-every)",
    )
    p.add_argument(
        "--log-every", type=at_least(1), default=100, help="steps per metrics line"
    )


def _milestones(text: str) -> tuple[int, ...]:
    """The steps of ``--milestones`` (a comma list of ints >= 1)."""
    try:
        return tuple(at_least(1)(part) for part in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"steps >= 1 like 15000,18000, not {text!r}"
        ) from None


def _add_optimizer_options(p: argparse.ArgumentParser, lr: float) -> None:
    p.add_argument(
        "--optimizer",
        choices=("adam", "sgd"),
        default="adam",
        help="optimiser (default adam; sgd uses Nesterov momentum 0.9)",
    )
    p.add_argument(
        "--lr", type=float, default=lr, help="learning rate (default %(default)s)"
    )
    p.add_argument("--batch", type=int, default=256, help="batch size (default 256)")
    p.add_argument(
        "--l2", type=float, default=1e-4, help="L2 coefficient (default 1e-4)"
    )
    p.add_argument(
        "--value-weight",
        type=float,
        default=1.0,
        help="weight of the value loss (default 1)",
    )
    p.add_argument(
        "--device",
        default="auto",
        help="torch device of the learner: cpu, cuda, cuda:N or auto (default: cuda "
        "when present, else cpu)",
    )
    p.add_argument(
        "--precision",
        choices=("auto", "fp32", "bf16", "fp16"),
        default="auto",
        help="network arithmetic: auto (bf16 on CUDA; on the CPU fp32 for "
        "training, bf16 for games' network calls where the CPU has AMX or "
        "AVX512-BF16), fp32, bf16 (autocast) or fp16 (CUDA only; loss scaling, "
        "skipped steps in the metrics)",
    )
    p.add_argument("--threads", type=threads, default=None, help="torch threads")
    p.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")


def add_training_commands(sub: Any) -> None:
    """Add gendata, shards, train, validate and report to the ``alphago`` subparsers."""
    gen = sub.add_parser("gendata", help="GNU Go self-play games as SGF teacher data")
    gen.add_argument("out", metavar="OUT", help="directory for the SGF files")
    gen.add_argument(
        "--games", type=at_least(0), default=1000, help="games (default 1000)"
    )
    gen.add_argument(
        "--level", type=int, default=10, help="GNU Go level 0..10 (default 10)"
    )
    gen.add_argument(
        "--size", type=board_size, default=9, help="board size (default 9)"
    )
    gen.add_argument("--komi", type=komi, default=7.5, help="komi (default 7.5)")
    gen.add_argument(
        "--workers", type=at_least(1), default=2, help="GNU Go processes (default 2)"
    )
    gen.add_argument(
        "--seed", type=at_least(0), default=0, help="game i uses seed + i (default 0)"
    )
    gen.add_argument(
        "--opening-plies",
        type=at_least(0),
        default=8,
        help="plies drawn among GNU Go's best moves (default 8)",
    )
    gen.add_argument(
        "--top-k",
        type=at_least(1),
        default=4,
        help="how many best moves the opening draws from (default 4)",
    )
    gen.add_argument("--gnugo", default=None, help="GNU Go's path (default: found)")
    gen.add_argument(
        "--capture-all-dead",
        action="store_true",
        help="GNU Go captures every dead stone before passing, so the final position "
        "counts as the result (shards then carry final ownership and score targets)",
    )
    gen.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (for runs whose stderr goes to a log file)",
    )

    sh = sub.add_parser("shards", help="SGF files to training shards")
    sh.add_argument("sgf", nargs="+", metavar="SGF", help="SGF files or directories")
    sh.add_argument("--out", required=True, metavar="DIR", help="shard directory")
    sh.add_argument(
        "--size", type=board_size, default=9, help="board size kept (default 9)"
    )
    sh.add_argument(
        "--planes",
        default="agz17",
        choices=("agz17", "lz18", "alphago48", "alphago49"),
        help="input planes (default agz17; alphago48 for train policy; alphago49 "
        "for a Zero net trained with --planes alphago49)",
    )
    sh.add_argument(
        "--shard-size",
        type=at_least(1),
        default=50_000,
        help="examples per shard (default 50000)",
    )
    sh.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (skipped files are still reported)",
    )

    train = sub.add_parser(
        "train",
        help="train a network (sl, rl; AlphaGo 2016: policy, policy-rl, value) or "
        "the rollout policy (rollout)",
    )
    modes = train.add_subparsers(dest="mode", metavar="MODE", required=True)
    sl = modes.add_parser(
        "sl",
        help="supervised learning from shards",
        description="Supervised training; run again to resume RUN.",
    )
    sl.add_argument("run", metavar="RUN", help="run directory (checkpoints, metrics)")
    sl.add_argument("--data", nargs="+", metavar="SHARDS", help="shard files or dirs")
    _add_net_options(sl)
    _add_optimizer_options(sl, 1e-3)
    _add_aux_options(sl)
    _add_step_options(sl, 20_000, 1000)
    sl.add_argument(
        "--val-fraction",
        type=float,
        default=0.05,
        help="examples held out (default 0.05)",
    )
    sl.add_argument(
        "--init",
        metavar="WEIGHTS",
        help="start from this network instead of random weights (fine-tuning); "
        "its shape replaces --blocks, --filters and --planes",
    )
    sl.add_argument("--no-progress", action="store_true", help="no progress bar")

    rl = modes.add_parser(
        "rl",
        help="self-play reinforcement learning",
        description="AlphaGo Zero self-play training; run again to "
        "resume RUN (its stored settings win over these options).",
    )
    rl.add_argument("run", metavar="RUN", help="run directory (checkpoints, metrics)")
    rl.add_argument(
        "--init", metavar="WEIGHTS", help="start from this network (e.g. sl)"
    )
    _add_net_options(rl)
    _add_optimizer_options(rl, 1e-3)
    # Self-play learns the ownership target by default: at equal CPU time it beat the
    # same runs without it on two seeds (README, "KataGo's training switches").
    _add_aux_options(rl, ownership=1.5)
    rl.add_argument(
        "--iterations", type=int, default=100, help="iterations (default 100)"
    )
    rl.add_argument(
        "--games", type=int, default=64, help="self-play games per iteration"
    )
    rl.add_argument(
        "--simulations",
        type=int,
        default=200,
        help="self-play simulations per move (default 200)",
    )
    rl.add_argument(
        "--search",
        choices=("puct", "gumbel"),
        default="gumbel",
        help="self-play search: puct (AlphaGo Zero) or gumbel (sequential halving, "
        "trains on the improved policy; default gumbel, which with "
        "--full-search-fraction 0.25 won the equal-CPU ablation in README)",
    )
    rl.add_argument(
        "--full-search-fraction",
        type=finite,
        default=0.25,
        help="playout cap randomisation (KataGo): the fraction of moves searched with "
        "--simulations that become examples; the others get a cheap search and only "
        "speed the games up (default 0.25, KataGo's; 1: every move)",
    )
    rl.add_argument(
        "--cheap-simulations",
        type=at_least(1),
        default=None,
        help="simulations of the cheap searches (default: --simulations / 5)",
    )
    rl.add_argument(
        "--forced-playouts",
        action="store_true",
        help="KataGo's forced playouts and policy target pruning in self-play's "
        "full searches (PUCT only; default off)",
    )
    rl.add_argument(
        "--mix-lambda",
        type=finite,
        default=0.0,
        metavar="L",
        help="self-play leaf value (1 - L) * value net + L * rollout outcome, as the "
        "play engine mixes them (AlphaGo 2016); default 0: the network alone",
    )
    rl.add_argument(
        "--rollout-weights",
        metavar="FILE",
        default=None,
        help="the pattern rollout policy that --mix-lambda mixes in (alphago train "
        "rollout); default: the one shipped for the board size",
    )
    rl.add_argument(
        "--parallel-games",
        type=int,
        default=32,
        help="games searched in lock-step per worker (default 32; raise it to fill a "
        "GPU with --selfplay-device cuda)",
    )
    rl.add_argument(
        "--selfplay-device",
        default="cpu",
        help="torch device of the self-play workers' and evaluation games' networks: "
        "cpu, cuda, cuda:N or auto (default cpu)",
    )
    rl.add_argument(
        "--window", type=int, default=100_000, help="replay window (examples)"
    )
    rl.add_argument(
        "--anchor-data",
        nargs="+",
        default=[],
        metavar="SHARDS",
        help="shard files or directories mixed into every training batch (e.g. the "
        "supervised games the run starts from), so the value head keeps their results",
    )
    rl.add_argument(
        "--anchor-fraction",
        type=float,
        default=0.25,
        help="share of each batch drawn from --anchor-data (default 0.25)",
    )
    rl.add_argument(
        "--updates",
        type=int,
        default=100,
        help="training rounds per iteration (default 100)",
    )
    rl.add_argument(
        "--epochs", type=int, default=4, help="steps per round's batch (default 4)"
    )
    rl.add_argument(
        "--kl-target", type=float, default=0.02, help="KL target (default 0.02)"
    )
    rl.add_argument(
        "--gate-games", type=int, default=40, help="gating games (0: no gate)"
    )
    rl.add_argument(
        "--gate-threshold",
        type=float,
        default=0.55,
        help="score the candidate needs (default 0.55)",
    )
    rl.add_argument(
        "--eval-simulations",
        type=int,
        default=100,
        help="simulations per move in evaluation games (default 100)",
    )
    rl.add_argument(
        "--baseline-every",
        type=int,
        default=5,
        help="iterations between games against UCT with 10x simulations",
    )
    rl.add_argument("--baseline-games", type=int, default=20, help="games per UCT test")
    rl.add_argument(
        "--gnugo-every",
        type=int,
        default=0,
        help="iterations between GNU Go tests (default 0: never)",
    )
    rl.add_argument("--gnugo-games", type=int, default=20, help="games per GNU Go test")
    rl.add_argument(
        "--gnugo-level", type=int, default=1, help="GNU Go level (default 1)"
    )
    rl.add_argument(
        "--workers", type=int, default=2, help="self-play workers (default 2)"
    )
    rl.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="run self-play as Ray tasks on this cluster (e.g. auto)",
    )
    rl.add_argument(
        "--cpu-hours",
        type=float,
        default=None,
        metavar="H",
        help="stop after the iteration in which the run's CPU time (all its "
        "processes, over every resume) reaches H hours; not stored, so a rerun "
        "with more goes on (default: no budget)",
    )
    rl.add_argument("--no-progress", action="store_true", help="no progress bars")

    _add_rollout_parser(modes)

    from alphago.cli_train2016 import add_train2016_modes

    add_train2016_modes(modes, _add_optimizer_options, _add_step_options)

    va = sub.add_parser(
        "validate",
        help="held-out figures of networks on the same shards",
        description="Score each network on the same positions: top-1 agreement, "
        "policy loss, value MSE (and the ownership and score losses where the net "
        "has the heads and the shards the targets), as a Markdown table.",
    )
    va.add_argument("weights", nargs="+", metavar="WEIGHTS", help="network files")
    va.add_argument(
        "--data", nargs="+", required=True, metavar="SHARDS", help="shard files or dirs"
    )
    va.add_argument(
        "--holdout",
        type=finite,
        default=1.0,
        metavar="F",
        help="score the last fraction F of the examples, the split of train sl "
        "--val-fraction F (default 1: all of them)",
    )
    va.add_argument("--device", default="cpu", help="torch device (default cpu)")
    va.add_argument("--threads", type=threads, default=None, help="torch threads")

    from alphago.train.report import add_report_arguments

    rep = sub.add_parser("report", help="plot a training run's metrics to PNG")
    add_report_arguments(rep)


def _add_rollout_parser(modes: Any) -> None:
    ro = modes.add_parser(
        "rollout",
        help="the fast pattern rollout policy from SGF games",
        description="Train AlphaGo 2016's linear softmax rollout policy "
        "(goboard.PatternPolicy) on the moves of SGF game records; run again to "
        "resume RUN. Writes RUN/rollout.npz, RUN/best.npz, RUN/metrics.jsonl.",
    )
    ro.add_argument("run", metavar="RUN", help="run directory (checkpoints, metrics)")
    ro.add_argument("--data", nargs="+", metavar="SGF", help="SGF files or dirs")
    ro.add_argument("--size", type=board_size, default=9, help="board size (default 9)")
    ro.add_argument(
        "--steps", type=at_least(1), default=2000, help="steps (default 2000)"
    )
    ro.add_argument(
        "--batch", type=at_least(1), default=256, help="positions per step (256)"
    )
    ro.add_argument("--lr", type=finite, default=0.01, help="Adam step (0.01)")
    ro.add_argument("--l2", type=finite, default=1e-4, help="L2 weight (1e-4)")
    ro.add_argument(
        "--val-fraction",
        type=finite,
        default=0.1,
        help="games held out (default 0.1)",
    )
    ro.add_argument(
        "--val-every", type=at_least(1), default=200, help="steps between validations"
    )
    ro.add_argument(
        "--checkpoint-every",
        type=at_least(1),
        default=200,
        help="steps between checkpoints (a multiple of --log-every)",
    )
    ro.add_argument(
        "--log-every", type=at_least(1), default=50, help="steps per metrics line"
    )
    ro.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    ro.add_argument("--no-progress", action="store_true", help="no progress bar")


def _train_rollout(args: argparse.Namespace) -> int:
    from pathlib import Path

    from alphago.train.rollout import RolloutTrainConfig, train_rollout

    resuming = (Path(args.run) / "checkpoint.pt").exists()
    if not resuming and not args.data:
        print("alphago train rollout: a new run needs --data", file=sys.stderr)
        return 2
    try:
        config = RolloutTrainConfig(
            size=args.size,
            steps=args.steps,
            batch_size=args.batch,
            lr=args.lr,
            l2=args.l2,
            val_fraction=args.val_fraction,
            val_every=args.val_every,
            checkpoint_every=args.checkpoint_every,
            log_every=args.log_every,
            seed=args.seed,
        )
        with warnings.catch_warnings():
            # Skipped files are reported one line each.
            warnings.simplefilter("always")
            warnings.showwarning = lambda message, *_: print(
                f"alphago train rollout: {message}", file=sys.stderr
            )
            _, summary = train_rollout(
                args.run, args.data, config, progress=not args.no_progress
            )
    except (ValueError, FileNotFoundError) as exc:
        print(f"alphago train rollout: {exc}", file=sys.stderr)
        return 2
    accuracy = summary.get("val_accuracy")
    held_out = "" if accuracy is None else f", held-out top-1 {accuracy:.3f}"
    print(
        f"step {summary['step']}: {summary['train_examples']} training positions"
        f"{held_out}; weights in {Path(args.run) / 'rollout.npz'}"
    )
    return 0


def _devices(args: argparse.Namespace) -> tuple[str, str | None]:
    """The learner's device and the precision, checked (ValueError, one line) with
    the self-play device where there is one, before any work starts."""
    from alphago.nets.precision import resolve_device, resolve_precision

    device = resolve_device(args.device)
    precision = None if args.precision == "auto" else args.precision
    resolve_precision(precision, device)
    selfplay = getattr(args, "selfplay_device", None)
    if selfplay is not None:
        resolve_precision(precision, resolve_device(selfplay))
    return str(device), precision


def _cmd_gendata(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from alphago.data.gendata import GenConfig, generate

    config = GenConfig(
        games=args.games,
        level=args.level,
        size=args.size,
        komi=args.komi,
        workers=args.workers,
        seed=args.seed,
        opening_plies=args.opening_plies,
        top_k=args.top_k,
        gnugo=args.gnugo,
        capture_all_dead=args.capture_all_dead,
    )
    with tqdm(
        total=args.games,
        desc="gendata",
        unit="game",
        file=sys.stderr,
        disable=args.no_progress,
    ) as bar:
        missing = len(_missing(args.out, args.games))
        bar.update(args.games - missing)
        written = generate(args.out, config, progress=lambda i, r: _tick(bar))
    print(f"{written} games written to {args.out}")
    if missing and not written:  # GNU Go failed every game (each one said why)
        print("alphago gendata: error: no game could be played", file=sys.stderr)
        return 1
    return 0


def _tick(bar: Any) -> None:
    bar.update(1)


def _advance(bar: Any, done: int) -> None:
    """Move ``bar`` to ``done`` (a resumed shards run starts past the beginning)."""
    bar.update(done - bar.n)


def _missing(out: str, games: int) -> list[int]:
    from pathlib import Path

    return [i for i in range(games) if not (Path(out) / f"game-{i:06d}.sgf").exists()]


def _cmd_shards(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from alphago.data.dataset import build_shards, sgf_files

    files = sgf_files(args.sgf)
    with (
        tqdm(
            total=len(files),
            desc="shards",
            unit="file",
            file=sys.stderr,
            disable=args.no_progress,
        ) as bar,
        warnings.catch_warnings(),
    ):
        # Skipped files are reported one line each, above the progress bar.
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *_: bar.write(
            f"alphago shards: {message}", file=sys.stderr
        )
        games, examples = build_shards(
            files,
            args.out,
            size=args.size,
            kind=args.planes,
            shard_size=args.shard_size,
            progress=lambda done: _advance(bar, done),
        )
    print(f"{games} games, {examples} examples in {args.out}")
    return 0 if games else 1


def _cmd_train(args: argparse.Namespace) -> int:
    if args.mode == "rollout":
        return _train_rollout(args)
    import torch

    device, precision = _devices(args)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.mode == "sl":
        return _train_sl(args, device, precision)
    if args.mode == "rl":
        return _train_rl(args, device, precision)
    from alphago.cli_train2016 import run_train2016

    return run_train2016(args, device, precision)


def _net_and_optimizer(
    args: argparse.Namespace, **schedule: Any
) -> tuple[NetConfig, TrainConfig]:
    """The network and optimiser settings of the options both train modes share."""
    from alphago.nets.model import NetConfig
    from alphago.train.learner import TrainConfig

    net = NetConfig(
        board_size=args.size,
        blocks=args.blocks,
        filters=args.filters,
        input_planes=args.planes,
        ownership_head=args.ownership_weight > 0,
        score_head=args.score_weight > 0,
        global_pooling=_pooling_blocks(args.global_pooling, args.blocks),
    )
    train = TrainConfig(
        optimizer=args.optimizer,
        lr=args.lr,
        l2=args.l2,
        value_weight=args.value_weight,
        batch_size=args.batch,
        ownership_weight=args.ownership_weight,
        score_weight=args.score_weight,
        **schedule,
    )
    return net, train


def _train_sl(args: argparse.Namespace, device: str, precision: str | None) -> int:
    from pathlib import Path

    from alphago.train.sl import SLConfig, train_sl

    resuming = (Path(args.run) / "checkpoint.pt").exists()
    if not resuming and not args.data:
        print("alphago train sl: a new run needs --data", file=sys.stderr)
        return 2
    net, train = _net_and_optimizer(
        args,
        schedule=args.schedule,
        total_steps=args.steps,
        milestones=args.milestones,
    )
    sl = SLConfig(
        steps=args.steps,
        val_fraction=args.val_fraction,
        val_every=args.val_every,
        checkpoint_every=args.checkpoint_every,
        log_every=args.log_every,
        seed=args.seed,
    )
    learner = train_sl(
        args.run,
        args.data,
        net,
        train,
        sl,
        device=device,
        progress=not args.no_progress,
        precision=precision,
        init_weights=args.init,
    )
    print(f"step {learner.step}: weights in {Path(args.run) / 'weights.pt'}")
    return 0


def _train_rl(args: argparse.Namespace, device: str, precision: str | None) -> int:
    from pathlib import Path

    from alphago.train.rl import RLConfig, train_rl
    from alphago.train.selfplay import SelfPlayConfig

    selfplay = SelfPlayConfig(
        simulations=args.simulations,
        parallel_games=args.parallel_games,
        size=args.size,
        search=args.search,
        full_search_fraction=args.full_search_fraction,
        cheap_simulations=args.cheap_simulations,
        forced_playouts=args.forced_playouts,
        mix_lambda=args.mix_lambda,
        rollout_weights=args.rollout_weights,
    )
    if selfplay.mix_lambda > 0.0:  # a file that is not there fails now, not in a worker
        from alphago.rollout_weights import load_rollout_policy

        load_rollout_policy(selfplay.rollout_path())
    config = RLConfig(
        iterations=args.iterations,
        games_per_iteration=args.games,
        replay_window=args.window,
        updates_per_iteration=args.updates,
        epochs=args.epochs,
        kl_target=args.kl_target,
        gate_games=args.gate_games,
        gate_threshold=args.gate_threshold,
        eval_simulations=args.eval_simulations,
        baseline_every=args.baseline_every,
        baseline_games=args.baseline_games,
        gnugo_every=args.gnugo_every,
        gnugo_games=args.gnugo_games,
        gnugo_level=args.gnugo_level,
        workers=args.workers,
        ray_address=args.ray,
        seed=args.seed,
        selfplay=selfplay,
        anchor_data=tuple(args.anchor_data),
        anchor_fraction=args.anchor_fraction,
    )
    net, train = _net_and_optimizer(args)
    learner = train_rl(
        args.run,
        config,
        net,
        train,
        init_weights=args.init,
        device=device,
        progress=not args.no_progress,
        precision=precision,
        selfplay_device=args.selfplay_device,
        cpu_hours=args.cpu_hours,
    )
    print(f"step {learner.step}: best network in {Path(args.run) / 'best.pt'}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    import torch

    from alphago.train.holdout import table, validate_networks

    if args.threads:
        torch.set_num_threads(args.threads)
    positions, results = validate_networks(
        args.weights, args.data, args.holdout, args.device
    )
    print(f"{positions} positions held out")
    print(table(args.weights, results))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from alphago.train.report import run_report

    return run_report(args)


def _leaves_no_empty_folder(
    option: str, command: Callable[[argparse.Namespace], int]
) -> Callable[[argparse.Namespace], int]:
    """``command``, which makes the folder ``args.<option>``: when it fails (an
    error, or a nonzero status) before writing anything there, a folder it made is
    removed again (its parents are not), so that a refused command line leaves no
    empty run folder behind."""

    def run(args: argparse.Namespace) -> int:
        from pathlib import Path

        folder = Path(getattr(args, option))
        made = not folder.exists()
        status = 1
        try:
            status = command(args)
        finally:
            if made and status != 0 and folder.is_dir() and not any(folder.iterdir()):
                with contextlib.suppress(OSError):  # written meanwhile: keep it
                    folder.rmdir()
        return status

    return run


TRAINING_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "gendata": _leaves_no_empty_folder("out", _cmd_gendata),
    "shards": _leaves_no_empty_folder("out", _cmd_shards),
    "train": _leaves_no_empty_folder("run", _cmd_train),
    "report": _cmd_report,
    "validate": _cmd_validate,
}
