"""``alphago train policy | policy-rl | value``: the AlphaGo 2016 networks' training.

- ``train policy RUN --data SHARDS``: supervised P_sigma from expert shards
  (:func:`alphago.train.policy2016.train_policy`).
- ``train policy-rl RUN --init POLICY.pt``: P_rho by REINFORCE against a pool of its
  earlier versions (:func:`alphago.train.policy2016.train_policy_rl`).
- ``train value RUN --sl POLICY.pt --rl RLPOLICY.pt``: V_theta from one position per
  game of P_sigma / random move / P_rho games
  (:func:`alphago.train.value2016.train_value`).

Each resumes RUN when run again (its stored settings win). Modules are imported when
a command runs, as in :mod:`alphago.cli`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alphago.cli_args import board_size, komi

__all__ = ["add_train2016_modes", "run_train2016"]

_PLANES = ("agz17", "lz18", "alphago48", "alphago49")


def _net_options(p: argparse.ArgumentParser, planes: str) -> None:
    p.add_argument("--size", type=board_size, default=9, help="board size (default 9)")
    p.add_argument(
        "--layers",
        type=int,
        default=None,
        help="conv layers of the policy stack (default: 13 on 19x19, 9 on 13x13, "
        "6 on smaller boards)",
    )
    p.add_argument(
        "--filters",
        type=int,
        default=None,
        help="filters (default: 192 on 19x19, 128 on 13x13, 64 on smaller boards)",
    )
    p.add_argument(
        "--planes",
        choices=_PLANES,
        default=planes,
        help=f"input planes (default {planes})",
    )


def _game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--komi", type=komi, default=7.5, help="komi (default 7.5)")
    p.add_argument(
        "--max-moves",
        type=int,
        default=0,
        help="plies after which a game is scored as it stands (default 3 N^2)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="game-playing processes (default 1: in this process)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="play the games as Ray tasks on this cluster (e.g. auto)",
    )
    p.add_argument(
        "--game-device",
        default="cpu",
        help="torch device of the game-playing networks (default cpu)",
    )


def add_train2016_modes(
    modes: Any,
    optimizer_options: Callable[[argparse.ArgumentParser, float], None],
    step_options: Callable[[argparse.ArgumentParser, int, int], None],
) -> None:
    """Add ``policy``, ``policy-rl`` and ``value`` to ``alphago train``'s modes (with
    ``alphago train sl``'s optimiser and step options)."""
    pol = modes.add_parser(
        "policy",
        help="AlphaGo 2016: supervised policy network P_sigma from shards",
        description="Supervised training of the AlphaGo 2016 policy network from "
        "shards (alphago shards --planes alphago48); run again to resume RUN.",
    )
    pol.add_argument("run", metavar="RUN", help="run directory (checkpoints, metrics)")
    pol.add_argument("--data", nargs="+", metavar="SHARDS", help="shard files or dirs")
    _net_options(pol, "alphago48")
    optimizer_options(pol, 1e-3)
    step_options(pol, 20_000, 1000)
    pol.add_argument(
        "--val-fraction",
        type=float,
        default=0.05,
        help="examples held out, whole games (default 0.05)",
    )
    pol.add_argument("--no-progress", action="store_true", help="no progress bar")

    prl = modes.add_parser(
        "policy-rl",
        help="AlphaGo 2016: policy network P_rho by REINFORCE self-play",
        description="REINFORCE training of the AlphaGo 2016 policy network against "
        "a pool of its earlier versions; run again to resume RUN.",
    )
    prl.add_argument("run", metavar="RUN", help="run directory (checkpoints, metrics)")
    prl.add_argument("--init", metavar="POLICY", help="the starting policy (P_sigma)")
    prl.add_argument(
        "--size", type=board_size, default=9, help="board size (default 9)"
    )
    optimizer_options(prl, 1e-3)
    prl.set_defaults(optimizer="sgd", l2=0.0)
    prl.add_argument(
        "--momentum",
        type=float,
        default=0.0,
        help="SGD momentum (default 0: plain SGD, as the paper)",
    )
    prl.add_argument(
        "--iterations", type=int, default=1000, help="updates (default 1000)"
    )
    prl.add_argument(
        "--games", type=int, default=128, help="games per update (default 128)"
    )
    prl.add_argument(
        "--snapshot-every",
        type=int,
        default=50,
        help="iterations between snapshots joining the opponent pool (default 50)",
    )
    prl.add_argument(
        "--eval-every",
        type=int,
        default=50,
        help="iterations between matches against P_sigma (0: none; default 50)",
    )
    prl.add_argument(
        "--eval-games", type=int, default=100, help="games per match (default 100)"
    )
    prl.add_argument(
        "--baseline",
        choices=("mean", "none"),
        default="mean",
        help="reward baseline: the batch's mean reward, or none (default mean)",
    )
    prl.add_argument(
        "--minibatch",
        type=int,
        default=4096,
        help="positions per backward pass of an update (default 4096)",
    )
    _game_options(prl)
    prl.add_argument("--no-progress", action="store_true", help="no progress bar")

    val = modes.add_parser(
        "value",
        help="AlphaGo 2016: value network V_theta from P_sigma / P_rho games",
        description="Generates one position per game (U-1 P_sigma moves, a random "
        "move, P_rho to the end) and trains the AlphaGo 2016 value network on it, "
        "on growing fractions of the games; run again to resume RUN.",
    )
    val.add_argument("run", metavar="RUN", help="run directory (data, checkpoints)")
    val.add_argument("--sl", metavar="POLICY", help="the SL policy P_sigma")
    val.add_argument("--rl", metavar="RLPOLICY", help="the RL policy P_rho")
    _net_options(val, "alphago49")
    optimizer_options(val, 1e-3)
    step_options(val, 5000, 500)
    val.add_argument(
        "--games", type=int, default=10_000, help="games = positions (default 10000)"
    )
    val.add_argument(
        "--batch-games",
        type=int,
        default=500,
        help="games per generation batch and shard (default 500)",
    )
    val.add_argument(
        "--u-max",
        type=int,
        default=0,
        help="the random move's ply U is drawn from 1..U_MAX (default "
        "round(450 N^2 / 361))",
    )
    val.add_argument(
        "--fractions",
        default="0.25,0.5,1",
        help="fractions of the games trained on in turn, for the held-out MSE "
        "curve (default 0.25,0.5,1; the last must be 1)",
    )
    val.add_argument(
        "--val-fraction",
        type=float,
        default=0.1,
        help="games held out (default 0.1)",
    )
    _game_options(val)
    val.add_argument("--no-progress", action="store_true", help="no progress bar")


def _fractions(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"--fractions: not numbers: {text!r}") from None


def run_train2016(args: argparse.Namespace, device: str, precision: str | None) -> int:
    """Run ``alphago train policy|policy-rl|value`` (``args.mode``)."""
    from alphago.nets.alphago2016 import POLICY_KIND, VALUE_KIND, Net2016Config
    from alphago.nets.precision import resolve_device, resolve_precision
    from alphago.train.learner import TrainConfig

    game_device = getattr(args, "game_device", "cpu")
    resolve_precision(precision, resolve_device(game_device))
    run = Path(args.run)
    schedule: dict[str, Any] = {}
    if args.mode != "policy-rl":
        schedule = {
            "schedule": args.schedule,
            "total_steps": args.steps,
            "milestones": args.milestones,
        }
    train = TrainConfig(
        optimizer=args.optimizer,
        lr=args.lr,
        momentum=getattr(args, "momentum", 0.9),
        l2=args.l2,
        batch_size=args.batch,
        **schedule,
    )
    progress = not args.no_progress
    if args.mode == "policy":
        from alphago.train.policy2016 import train_policy
        from alphago.train.sl import SLConfig

        if not (run / "checkpoint.pt").exists() and not args.data:
            raise ValueError("a new run needs --data")
        net = Net2016Config.for_board(
            args.size, POLICY_KIND, args.layers, args.filters, args.planes
        )
        config = SLConfig(
            steps=args.steps,
            val_fraction=args.val_fraction,
            val_every=args.val_every,
            checkpoint_every=args.checkpoint_every,
            log_every=args.log_every,
            seed=args.seed,
        )
        trainer = train_policy(
            run,
            args.data,
            net,
            train,
            config,
            device=device,
            progress=progress,
            precision=precision,
        )
        print(f"step {trainer.step}: policy weights in {run / 'weights.pt'}")
        return 0
    if args.mode == "policy-rl":
        from alphago.train.policy2016 import PolicyRLConfig, train_policy_rl

        rl = PolicyRLConfig(
            iterations=args.iterations,
            games=args.games,
            snapshot_every=args.snapshot_every,
            eval_every=args.eval_every,
            eval_games=args.eval_games,
            baseline=args.baseline,
            size=args.size,
            komi=args.komi,
            max_moves=args.max_moves,
            minibatch=args.minibatch,
            seed=args.seed,
            workers=args.workers,
            ray_address=args.ray,
        )
        trainer = train_policy_rl(
            run,
            args.init,
            rl,
            train,
            device=device,
            progress=progress,
            precision=precision,
            game_device=game_device,
        )
        print(f"iteration {trainer.step}: policy weights in {run / 'weights.pt'}")
        return 0
    from alphago.train.value2016 import ValueConfig, train_value

    net = Net2016Config.for_board(
        args.size, VALUE_KIND, args.layers, args.filters, args.planes
    )
    value = ValueConfig(
        games=args.games,
        batch_games=args.batch_games,
        size=args.size,
        komi=args.komi,
        max_moves=args.max_moves,
        u_max=args.u_max,
        steps=args.steps,
        fractions=_fractions(args.fractions),
        val_fraction=args.val_fraction,
        val_every=args.val_every,
        checkpoint_every=args.checkpoint_every,
        log_every=args.log_every,
        seed=args.seed,
        workers=args.workers,
        ray_address=args.ray,
    )
    trainer = train_value(
        run,
        args.sl,
        args.rl,
        net,
        train,
        value,
        device=device,
        progress=progress,
        precision=precision,
        game_device=game_device,
    )
    print(f"step {trainer.step}: value weights in {run / 'weights.pt'}")
    return 0
