"""The ``alphago`` command: ``gtp``, ``play``, ``bench``, ``eval``, and training.

Every subcommand imports what it needs when it runs, so ``alphago --help`` (and every
command that does not use a network) starts without importing torch.

- ``alphago gtp``: a GTP engine on stdin/stdout for Go GUIs and match runners.
- ``alphago analysis``: KataGo's JSON analysis engine (:mod:`alphago.analysis`).
- ``alphago play``: play the engine yourself in the terminal.
- ``alphago bench``: board, search and network speed on this machine.
- ``alphago eval``: a refereed match between two GTP engine command lines.
- ``alphago gendata``, ``shards``, ``train sl|rl``, ``validate``, ``report``: see
  :mod:`alphago.cli_train`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from alphago.cli_args import (
    MAX_BATCH,
    MAX_BLOCKS,
    MAX_FILTERS,
    MAX_SIMULATIONS,
    at_least,
    board_size,
    in_range,
    komi,
    memory_mb,
    positive,
    seed,
    threads,
)
from alphago.cli_train import TRAINING_COMMANDS, add_training_commands
from alphago.resign import winrate_argument

if TYPE_CHECKING:
    from alphago.match import MatchGame
    from alphago.player import Player
    from alphago.player_choice import PlayerChoice

__all__ = ["build_parser", "main"]


def _add_device_options(p: argparse.ArgumentParser, device: str = "cpu") -> None:
    p.add_argument(
        "--device",
        default=device,
        help="torch device for the network: cpu, cuda, cuda:N or auto (CUDA when "
        "present; default %(default)s)",
    )
    p.add_argument(
        "--precision",
        choices=("auto", "fp32", "bf16", "fp16", "int8"),
        default="auto",
        help="network arithmetic: auto (bf16 on CUDA and on CPUs with AMX or "
        "AVX512-BF16, else fp32), fp32, bf16 (autocast), fp16 (CUDA only) or int8 "
        "(CPUs with AVX512-VNNI: an int8 copy of the net, calibrated at start-up)",
    )


def check_device_options(args: argparse.Namespace) -> None:
    """Refuse, with one line (ValueError), a --device this machine lacks or a
    --precision that device cannot run, before anything is loaded."""
    from alphago.nets.precision import resolve_device, resolve_precision

    device = resolve_device(args.device)
    resolve_precision(args.precision, device, inference=True)


def _add_resign_option(p: argparse.ArgumentParser, who: str) -> None:
    p.add_argument(
        "--resign-below",
        type=winrate_argument,
        default=None,
        metavar="P",
        help=f"{who} once the search has rated its winning chances below P (e.g. "
        "0.05) for 3 of its moves in a row, after the first quarter of the board's "
        "points in moves (default: never resign)",
    )


def _add_engine_options(
    p: argparse.ArgumentParser, size: int | None, *, board: bool = True
) -> None:
    """The player options; ``board=False`` leaves out --size and --komi (the
    analysis engine's queries carry them)."""
    if board:
        _add_board_options(p, size)
    _add_player_options(p)


def _add_board_options(p: argparse.ArgumentParser, size: int | None) -> None:
    p.add_argument(
        "--size",
        type=board_size,
        default=size,
        help="board size (default: %(default)s)"
        if size is not None
        else "board size at start (default: the --weights network's, else 19); "
        "GTP boardsize picks the player for each size",
    )
    p.add_argument("--komi", type=komi, default=7.5, help="komi (default %(default)s)")


def _add_player_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--simulations",
        type=in_range(1, MAX_SIMULATIONS),
        default=800,
        help="search simulations per move (default %(default)s)",
    )
    p.add_argument(
        "--weights",
        metavar="FILE",
        help="network weights (alphago.nets or Leela Zero file); default: the shipped "
        "network of the board size (9x9, 19x19), else UCT with random playouts",
    )
    p.add_argument(
        "--uct",
        action="store_true",
        help="plain UCT with random playouts, no network",
    )
    p.add_argument(
        "--search",
        choices=("puct", "gumbel"),
        default="puct",
        help="the network's search: puct (AlphaGo Zero) or gumbel (sequential halving "
        "over the prior's best moves, Danihelka et al. 2022; default %(default)s)",
    )
    p.add_argument(
        "--considered-actions",
        type=int,
        default=None,
        metavar="M",
        help="with --search gumbel: root moves sequential halving starts from "
        "(default 16)",
    )
    p.add_argument(
        "--gumbel-scale",
        type=float,
        default=None,
        metavar="S",
        help="with --search gumbel: weight of the Gumbel noise at the root (default "
        "0: the same move every time; 1 samples the move as self-play does)",
    )
    p.add_argument(
        "--engine",
        choices=("zero", "alphago2016"),
        default="zero",
        help="zero: AlphaGo Zero's search over one policy-value net (--weights); "
        "alphago2016: the original AlphaGo, a policy net's priors and leaf values "
        "mixing a value net with pattern rollouts (default %(default)s)",
    )
    p.add_argument(
        "--policy-net",
        metavar="FILE",
        help="with --engine alphago2016: the policy net (alphago train policy or "
        "policy-rl); default: the one shipped for the board size",
    )
    p.add_argument(
        "--value-net",
        metavar="FILE",
        help="with --engine alphago2016: the value net (alphago train value)",
    )
    p.add_argument(
        "--rollout-weights",
        metavar="FILE",
        help="the pattern rollout policy (alphago train rollout) whose outcomes "
        "--mix-lambda mixes into leaf values; default: the one shipped for the "
        "board size, else uniform random playouts",
    )
    p.add_argument(
        "--mix-lambda",
        type=float,
        default=None,
        metavar="L",
        help="leaf value (1 - L) * value net + L * rollout outcome; 0: value net "
        "only, 1: rollouts only (default 0.5 with --engine alphago2016; with zero, "
        "0.5 for a shipped network's PUCT where a rollout policy ships for the size "
        "(9x9, 19x19), else 0; --search gumbel mixes only when asked)",
    )
    p.add_argument(
        "--early-stop",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="end a move's PUCT or UCT search once the simulations left could no "
        "longer change its move: faster, but on 9x9 it lost strength (README); a "
        "Gumbel search and analyses always spend their budget (default off)",
    )
    p.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    p.add_argument(
        "--threads",
        type=threads,
        default=None,
        help="torch threads for the network",
    )
    p.add_argument(
        "--rollout-threads",
        type=threads,
        default=1,
        metavar="N",
        help="threads that play a batch of leaves' pattern rollouts at once where "
        "they are mixed in (--mix-lambda above 0 with a pattern rollout policy; "
        "uniform random playouts and --uct stay on one); the moves do not depend "
        "on N (default 1)",
    )
    _add_device_options(p)
    p.add_argument(
        "--analysis-memory",
        type=memory_mb,
        default=1024,
        metavar="MB",
        help="memory for the search tree kept while analysing and between moves "
        "(default %(default)s MB)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``alphago`` (all subcommands)."""
    parser = argparse.ArgumentParser(
        prog="alphago",
        description="A Python AlphaGo: GTP engine, terminal play, benchmarks, matches, "
        "training data and training.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    gtp = sub.add_parser("gtp", help="run the GTP engine on stdin/stdout")
    _add_engine_options(gtp, None)
    gtp.add_argument(
        "--rules", default="chinese", help="rules preset (default %(default)s)"
    )
    gtp.add_argument(
        "--gtp-version",
        "--override-version",
        dest="gtp_version",
        metavar="TEXT",
        default=None,
        help="what GTP 'version' answers (default: 0.17.0+alphago.<version>, which "
        "Lizzie accepts)",
    )
    gtp.add_argument(
        "--analysis-visits",
        type=at_least(1),
        default=None,
        metavar="N",
        help="stop lz-analyze/kata-analyze searches at N simulations (default: "
        "search until the next command, within --analysis-memory)",
    )
    gtp.add_argument(
        "--settle-before-pass",
        action="store_true",
        help="keep playing (capture dead stones, fill neutral points) instead of "
        "passing while the board is unsettled: for GUIs that count territory",
    )
    gtp.add_argument(
        "--ponder",
        action="store_true",
        help="after each genmove, search on in the opponent's turn until the next "
        "command (thinking on the opponent's time; the next genmove reuses the "
        "tree, within --analysis-memory); off by default, as matches on shared "
        "cores need",
    )
    _add_resign_option(gtp, "genmove answers resign")

    _add_analysis_parser(sub)

    play = sub.add_parser("play", help="play the engine in the terminal")
    _add_engine_options(play, 9)
    play.add_argument(
        "--color",
        "--colour",
        dest="color",
        choices=("black", "white"),
        default="black",
        help="your colour (default black)",
    )
    _add_resign_option(play, "the engine resigns")
    play.add_argument("--sgf", metavar="FILE", help="save the game here at the end")
    play.add_argument(
        "--time", type=positive, default=None, help="engine seconds per move (optional)"
    )

    bench = sub.add_parser("bench", help="measure board, search and network speed")
    count = at_least(1)
    bench.add_argument(
        "--size", type=board_size, default=19, help="board size (default 19)"
    )
    bench.add_argument(
        "--playouts", type=in_range(1, 2**31 - 1), default=2000, help="board playouts"
    )
    bench.add_argument(
        "--simulations",
        type=in_range(1, MAX_SIMULATIONS),
        default=800,
        help="simulations per search",
    )
    bench.add_argument(
        "--blocks", type=in_range(0, MAX_BLOCKS), default=6, help="network blocks"
    )
    bench.add_argument(
        "--filters", type=in_range(1, MAX_FILTERS), default=64, help="network filters"
    )
    bench.add_argument("--threads", type=threads, default=None, help="torch threads")
    bench.add_argument(
        "--batch",
        type=in_range(1, MAX_BATCH),
        default=32,
        help="leaves per network call (default 32)",
    )
    _add_device_options(bench)
    bench.add_argument(
        "--no-net", action="store_true", help="skip the network measurements"
    )

    ev = sub.add_parser(
        "eval",
        help="a match between two GTP engines",
        description="Play a match between two GTP engine command lines, e.g. "
        "'alphago gtp --size 9 --simulations 200' and "
        "'/usr/games/gnugo --mode gtp --chinese-rules --level 10'. Colours alternate "
        "(A is Black in even games), every move is checked by our rules, dead stones "
        "are settled (--scoring) and the area counted; an illegal move, crash or "
        "timeout loses.",
    )
    ev.add_argument("engine_a", metavar="ENGINE_A", help="command line of engine A")
    ev.add_argument("engine_b", metavar="ENGINE_B", help="command line of engine B")
    ev.add_argument("--games", type=count, default=10, help="games (default 10)")
    ev.add_argument("--size", type=board_size, default=9, help="board size (default 9)")
    ev.add_argument("--komi", type=komi, default=7.5, help="komi (default 7.5)")
    ev.add_argument("--parallel", type=count, default=1, help="games at once")
    ev.add_argument(
        "--sgf-dir",
        metavar="DIR",
        help="save each game's SGF here, with the match's journal (for --resume)",
    )
    ev.add_argument(
        "--resume",
        action="store_true",
        help="go on with the match journalled in --sgf-dir: its finished games "
        "count, only the missing ones are played (same engines, board and scoring)",
    )
    ev.add_argument(
        "--max-moves", type=count, default=None, help="move cap (default 3 * size^2)"
    )
    ev.add_argument(
        "--move-timeout",
        type=positive,
        default=60.0,
        help="seconds per move before an engine forfeits (default 60)",
    )
    ev.add_argument(
        "--scoring",
        choices=("auto", "arbiter", "agree", "tromp-taylor"),
        default="auto",
        help="how dead stones are settled before the area count: arbiter (GNU Go's "
        "final_status_list dead on the replayed game), agree (both engines must name "
        "the same dead stones; the arbiter decides disputes), tromp-taylor (every "
        "stone counts: only fair when both engines capture dead stones before "
        "passing); auto: arbiter when GNU Go is installed, else agree",
    )
    ev.add_argument(
        "--arbiter",
        metavar="COMMAND",
        default=None,
        help="the arbiter's command line (default: GNU Go with --chinese-rules)",
    )
    ev.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (each game's result line is still printed)",
    )
    add_training_commands(sub)
    return parser


def _add_analysis_parser(sub: argparse._SubParsersAction[Any]) -> None:
    an = sub.add_parser(
        "analysis",
        help="KataGo's JSON analysis engine on stdin/stdout (KaTrain, review tools)",
        description="KataGo's analysis protocol: one JSON query per line on stdin, "
        "one JSON result per line on stdout. Board size, komi and rules come with "
        "each query; --simulations is the maxVisits of queries that name none.",
    )
    _add_engine_options(an, None, board=False)
    an.add_argument(
        "--report-as",
        "--reportAnalysisWinratesAs",
        dest="report_as",
        type=str.upper,
        choices=("BLACK", "WHITE", "SIDETOMOVE"),
        default="BLACK",
        help="whose view winrates, scores and ownership take unless a query's "
        "overrideSettings say otherwise (default %(default)s, as KaTrain expects)",
    )
    # KataGo's own flags, accepted so a command line written for katago still runs:
    # there is no config file or KataGo model to read here.
    for flag in ("-config", "-model", "-human-model", "-override-config"):
        an.add_argument(
            flag, dest="katago" + flag.replace("-", "_"), help=argparse.SUPPRESS
        )
    an.add_argument(
        "-quit-without-waiting", action="store_true", help=argparse.SUPPRESS
    )


def player_choice(args: argparse.Namespace) -> PlayerChoice:
    """The command line's rule for which player plays each board size."""
    from alphago.player_choice import PlayerChoice, PlayerSpec

    spec = PlayerSpec(
        simulations=args.simulations,
        seed=args.seed,
        weights=args.weights,
        uct=args.uct,
        device=args.device,
        precision=None if args.precision == "auto" else args.precision,
        threads=args.threads,
        rollout_threads=args.rollout_threads,
        analysis_memory_mb=args.analysis_memory,
        search=args.search,
        considered_actions=args.considered_actions,
        gumbel_scale=args.gumbel_scale,
        engine=args.engine,
        policy_net=args.policy_net,
        value_net=args.value_net,
        rollout_weights=args.rollout_weights,
        mix_lambda=args.mix_lambda,
        early_stop=args.early_stop,
    )
    if not args.uct:
        check_device_options(args)
    return PlayerChoice(spec)


def make_player(args: argparse.Namespace) -> Player:
    """The player for ``--size``: see :mod:`alphago.player_choice`."""
    choice = player_choice(args)
    return choice.player_for(choice.default_size() if args.size is None else args.size)


def _tolerant_stdio() -> None:
    """Standard streams that never fail on a character: input bytes the locale's
    encoding cannot decode (a file name in another encoding; strict decoding is
    Python's default under UTF-8 locales and Windows code pages) come through as
    surrogates and fail only their command or query, where strict decoding ended
    the session; output echoing them backslash-escapes them."""
    for stream, errors in (
        (sys.stdin, "surrogateescape"),
        (sys.stdout, "backslashreplace"),
    ):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            reconfigure(errors=errors)


def _cmd_gtp(args: argparse.Namespace) -> int:
    from alphago.gtp import DEFAULT_VERSION, Engine, serve

    choice = player_choice(args)
    size = choice.default_size() if args.size is None else args.size
    engine = Engine(
        choice.player_for(size),
        board_size=size,
        komi=args.komi,
        rules=args.rules,
        version=args.gtp_version or DEFAULT_VERSION,
        players=choice.player_for,
        analysis_visits=args.analysis_visits,
        settle_before_pass=args.settle_before_pass,
        resign_below=args.resign_below,
        ponder=args.ponder,
    )
    _tolerant_stdio()
    serve(engine, sys.stdin, sys.stdout)
    return 0


def _cmd_analysis(args: argparse.Namespace) -> int:
    from alphago.analysis import AnalysisServer

    for flag in ("config", "model", "human_model", "override_config"):
        if getattr(args, "katago_" + flag) is not None:
            print(
                f"alphago analysis: -{flag.replace('_', '-')} ignored", file=sys.stderr
            )
    choice = player_choice(args)
    choice.check_named_files()
    server = AnalysisServer(
        choice,
        sys.stdout,
        args.simulations,
        args.report_as,
        finish_at_eof=not args.quit_without_waiting,
    )
    _tolerant_stdio()
    return server.serve(sys.stdin)


def _cmd_play(args: argparse.Namespace) -> int:
    import goboard
    from alphago.match.human import play_human
    from alphago.match.records import save_outcome_sgf

    if args.sgf:  # refused before the game, not after it
        from alphago.atomic import check_writable

        check_writable(args.sgf)
    human = goboard.BLACK if args.color == "black" else goboard.WHITE
    outcome = play_human(
        make_player(args),
        size=args.size,
        komi=args.komi,
        human=human,
        stdin=sys.stdin,
        stdout=sys.stdout,
        time_budget=args.time,
        resign_below=args.resign_below,
    )
    if args.sgf:
        save_outcome_sgf(outcome, args.sgf)
        print(f"saved {args.sgf}")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    import goboard
    from alphago.match import EngineSetupError, EngineStopped, run_match
    from alphago.match.settle import Scoring, missing_capture_all_dead

    bar = tqdm(
        total=args.games,
        desc="games",
        unit="game",
        file=sys.stderr,
        disable=args.no_progress,
    )

    def progress(game: MatchGame, done: int) -> None:
        out = game.outcome
        a_side = "black" if game.a_colour == goboard.BLACK else "white"
        bar.write(
            f"game {game.index} ({done}/{args.games}): A {a_side}: {out.result} "
            f"after {len(out.moves)} moves ({out.reason})",
            file=sys.stderr,
        )
        if out.result.endswith("+F"):  # show why the forfeiting engine failed
            for line in out.stderr.get(-out.winner, "").strip().splitlines()[-5:]:
                bar.write(f"    stderr: {line}", file=sys.stderr)
        bar.update(done - bar.n)  # resumed games count as done

    scoring = Scoring.auto(args.scoring, args.arbiter)
    if scoring.kind == "tromp-taylor":
        for command in (args.engine_a, args.engine_b):
            if missing_capture_all_dead(command):
                print(
                    "alphago eval: warning: GNU Go without --capture-all-dead passes "
                    "with dead stones on the board, which Tromp-Taylor counts as "
                    f"alive: {command}",
                    file=sys.stderr,
                )
    try:
        result = run_match(
            args.engine_a,
            args.engine_b,
            args.games,
            size=args.size,
            komi=args.komi,
            parallel=args.parallel,
            sgf_dir=args.sgf_dir,
            max_moves=args.max_moves,
            move_timeout=args.move_timeout,
            on_game=progress,
            scoring=scoring,
            resume=args.resume,
            stop_on_setup_failure=True,
        )
    except EngineStopped as exc:
        again = " (the same command with --resume goes on)" if args.sgf_dir else ""
        print(
            f"alphago eval: stopped: an engine was stopped from outside ({exc}); "
            f"the game it was playing is not recorded{again}",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        if args.sgf_dir:  # the games that finished are journalled
            print(
                f"alphago eval: interrupted; the finished games are in {args.sgf_dir} "
                "(the same command with --resume goes on)",
                file=sys.stderr,
            )
        return 130
    except EngineSetupError as exc:
        # A broken command line: every game would be its forfeit. Not recorded.
        print(f"alphago eval: error: {exc}", file=sys.stderr)
        return 1
    finally:
        bar.close()
    print(result.report())
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from alphago.match.bench import run_bench

    if not args.no_net:
        check_device_options(args)
    for line in run_bench(
        size=args.size,
        playouts=args.playouts,
        simulations=args.simulations,
        net=not args.no_net,
        blocks=args.blocks,
        filters=args.filters,
        threads=args.threads,
        batch=args.batch,
        device=args.device,
        precision=None if args.precision == "auto" else args.precision,
    ):
        print(line, flush=True)
    return 0


_COMMANDS = {
    "gtp": _cmd_gtp,
    "analysis": _cmd_analysis,
    "play": _cmd_play,
    "eval": _cmd_eval,
    "bench": _cmd_bench,
    **TRAINING_COMMANDS,
}


#: The commands that run networks: they flush denormal floats (``denormals_flushed``).
TORCH_COMMANDS = frozenset({"gtp", "analysis", "play", "bench", "train", "validate"})

#: What the ``alphago`` command needs beyond goboard and search: the [alphago] extra.
EXTRA_MODULES = ("torch", "sgfmill", "tqdm")
EXTRA_HINT = 'pip install "goboard-engine[alphago]"'


def missing_extra() -> list[str]:
    """The modules of the ``[alphago]`` extra that are not installed."""
    return [m for m in EXTRA_MODULES if importlib.util.find_spec(m) is None]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``alphago`` with ``argv`` (default: the process arguments); the exit code."""
    missing = missing_extra()
    if missing:
        print(
            f"alphago: the alphago command needs its extra ({', '.join(missing)} "
            f"missing): {EXTRA_HINT}",
            file=sys.stderr,
        )
        return 1
    parser = build_parser()
    args = parser.parse_args(argv)
    flushed: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if args.command in TORCH_COMMANDS:
        from alphago.nets.precision import denormals_flushed

        flushed = denormals_flushed()  # before the first torch operation
    with _sigterm_exits(), flushed:
        try:
            return _COMMANDS[args.command](args)
        except KeyboardInterrupt:
            return 130
        except (ValueError, OSError) as exc:
            print(f"alphago {args.command}: error: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:
            # An engine stopped from outside (train rl's GNU Go matches, say): one
            # line, as for Ctrl-C; anything else is a bug and keeps its traceback.
            from alphago.match.gtp_client import EngineStopped

            if not isinstance(exc, EngineStopped):
                raise
            print(f"alphago {args.command}: stopped: {exc}", file=sys.stderr)
            return 1


def _exit_on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def _sigterm_exits() -> Iterator[None]:
    """SIGTERM (``kill``, a GUI closing its engine, a batch system's time limit) ends
    the command as an exception, exit status 143: cleanup runs (a training run's
    worker processes are stopped, not left playing) where the default action would
    end this process alone. The previous handler comes back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers
        return
    previous = signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
