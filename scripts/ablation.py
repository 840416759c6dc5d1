"""Self-play switches compared at equal CPU time: the Elo each buys per CPU hour.

Every variant is one ``alphago train rl`` run from the same start (board size, net
shape or ``--init`` weights, seed, games and updates per iteration, one self-play
worker and one torch thread); only the variant's own flags differ. Each trains until
it has used ``--cpu-hours`` of CPU (``train rl --cpu-hours``: the run's processes,
user + system, over every resume), so a switch that makes games cheaper gets more of
them. Then each variant's ``best.pt`` plays the baseline's (the first variant) and,
with ``--anchor``, a fixed engine, with the same simulations per move, colours
alternated, dead stones settled as ``alphago eval`` does (GNU Go as arbiter where it
is installed).

Output in OUT: one run directory per variant, ``<variant>/match-*.json`` per finished
match, and ``ablation.json`` plus ``ablation.md`` (the table: games and examples made
within the budget, score and Elo against the baseline with the 95% interval, and
against the anchor). "Elo per CPU hour" is the Elo over the baseline divided by the
budget: what the switch buys for the same cost.

Resumable: run the same command again and finished parts are kept (``train rl``
resumes from its checkpoint; a finished match is read back, not replayed). Killing it
loses at most the running iteration or match.

    .venv/bin/python scripts/ablation.py --out /work/runs/ablation-9x9 --cpu-hours 0.5

``--jobs N`` trains N variants at once (one core each: every run has one worker and
one torch thread, and its budget counts its own CPU time, so running beside another
changes its games little); each run's output then goes to ``OUT/<variant>.log``
instead of the terminal. A training that fails is named with its log, the others
finish, and the script stops before the matches (exit 1).

Variants are ``NAME=FLAGS`` (``--variant gumbel16="--search gumbel
--simulations 16"``); the default set is :data:`VARIANTS`. Settings stored in a run's
checkpoint win on resume, as for ``train rl`` itself: a changed variant needs a new
OUT.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from alphago.atomic import atomic_write_bytes
from alphago.match.runner import run_match
from alphago.match.settle import Scoring
from alphago.match.stats import elo_estimate
from alphago.train.checkpoint import load_checkpoint

ALPHAGO = [sys.executable, "-m", "alphago.cli"]

#: Name -> extra ``train rl`` flags. The first is the baseline the others play.
VARIANTS: dict[str, str] = {
    "puct": "--search puct --full-search-fraction 1",
    "playout-cap": "--search puct --full-search-fraction 0.25",
    "gumbel": "--search gumbel --full-search-fraction 1",
    "gumbel-cap": "--search gumbel --full-search-fraction 0.25",
}


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A finished match of a variant (A) against an opponent (B)."""

    opponent: str
    wins: int
    ties: int
    losses: int

    def elo(self) -> tuple[float, float, float]:
        e = elo_estimate(self.wins, self.ties, self.losses)
        return e.elo, e.low, e.high

    def score(self) -> float:
        n = self.wins + self.ties + self.losses
        return (self.wins + 0.5 * self.ties) / n


def parse_variants(items: list[str] | None) -> dict[str, list[str]]:
    """``NAME=FLAGS`` items (or the defaults) as name -> argv list."""
    if not items:
        return {k: shlex.split(v) for k, v in VARIANTS.items()}
    out: dict[str, list[str]] = {}
    for item in items:
        name, sep, flags = item.partition("=")
        if not sep or not name or "/" in name or name in out:
            raise ValueError(f"a variant is NAME=FLAGS with a new NAME, not {item!r}")
        out[name] = shlex.split(flags)
    return out


def train_command(args: argparse.Namespace, run: Path, flags: list[str]) -> list[str]:
    """The ``train rl`` command of one variant: the shared settings, then its flags."""
    argv = [*ALPHAGO, "train", "rl", str(run), "--size", str(args.size)]
    if args.init:
        argv += ["--init", args.init]
    else:
        argv += ["--blocks", str(args.blocks), "--filters", str(args.filters)]
    argv += [
        "--seed", str(args.seed),
        "--iterations", str(args.max_iterations),
        "--games", str(args.games),
        "--simulations", str(args.simulations),
        "--updates", str(args.updates),
        "--workers", "1",
        "--threads", "1",
        "--gate-games", "0",
        "--baseline-every", "0",
        "--cpu-hours", str(args.cpu_hours),
        "--no-progress",
    ]  # fmt: skip
    return argv + flags


def train_all(
    args: argparse.Namespace, variants: dict[str, list[str]], jobs: int
) -> list[str]:
    """Trains every variant to the budget, ``jobs`` at a time; returns the names of
    those whose training failed (their output is in ``OUT/<name>.log`` when
    ``jobs`` > 1, on the terminal otherwise)."""

    def train(name: str) -> bool:
        command = train_command(args, args.out / name, variants[name])
        if jobs == 1:
            print(f"== {name}: training to {args.cpu_hours:g} CPU hours", flush=True)
            return subprocess.run(command).returncode == 0
        log = args.out / f"{name}.log"
        print(
            f"== {name}: training to {args.cpu_hours:g} CPU hours ({log})", flush=True
        )
        with log.open("ab") as sink:
            done = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT)
        print(f"== {name}: training ended (exit {done.returncode})", flush=True)
        return done.returncode == 0

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        ok = dict(zip(variants, pool.map(train, variants), strict=True))
    return [name for name, good in ok.items() if not good]


def engine(args: argparse.Namespace, weights: Path) -> str:
    """GTP command line of a trained variant for the matches."""
    argv = [
        *ALPHAGO, "gtp",
        "--size", str(args.size),
        "--weights", str(weights),
        "--simulations", str(args.eval_simulations),
        "--threads", "1",
    ]  # fmt: skip
    return shlex.join(argv) + " --seed {game}"


def play(
    args: argparse.Namespace, out: Path, name: str, label: str, a: str, b: str
) -> MatchScore:
    """A's match against B, read back if it was finished before."""
    path = out / name / f"match-{label}.json"
    if path.exists():
        return MatchScore(**json.loads(path.read_text()))
    scoring = Scoring.auto(args.scoring, None)
    result = run_match(
        a,
        b,
        args.eval_games,
        size=args.size,
        komi=args.komi,
        parallel=args.parallel,
        scoring=scoring,
    )
    wins = sum(g.a_points == 1.0 for g in result.games)
    ties = sum(g.a_points == 0.5 for g in result.games)
    score = MatchScore(label, wins, ties, len(result.games) - wins - ties)
    atomic_write_bytes(path, (json.dumps(asdict(score)) + "\n").encode())
    return score


def run_stats(run: Path) -> dict[str, Any]:
    """Games, examples, iterations and CPU hours a finished run reports."""
    state = load_checkpoint(run / "checkpoint.pt")
    return {
        "iterations": int(state["iteration"]),
        "games": int(state["games"]),
        "examples": int(state["examples"]),
        "cpu_hours": float(state["cpu_seconds"]) / 3600.0,
    }


def table(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    """The markdown table of ``ablation.md``."""
    head = (
        f"Budget {args.cpu_hours:g} CPU hours per variant, {args.size}x{args.size}, "
        f"matches of {args.eval_games} games at {args.eval_simulations} "
        "simulations.\n\n"
        "| variant | flags | iterations | games | examples | vs baseline "
        "| Elo (95% CI) | Elo per CPU hour | vs anchor |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    )
    lines = []
    for r in rows:
        base = r.get("vs_baseline")
        if base is None:
            vs, elo, rate = "(baseline)", "0", "0"
        else:
            e, lo, hi = base["elo"]
            vs = f"{base['score']:.2f}"
            elo = f"{e:+.0f} ({lo:+.0f} .. {hi:+.0f})"
            rate = f"{e / args.cpu_hours:+.0f}"
        anchor = r.get("vs_anchor")
        anc = (
            "" if anchor is None else f"{anchor['score']:.2f}, {anchor['elo'][0]:+.0f}"
        )
        lines.append(
            f"| {r['name']} | `{' '.join(r['flags'])}` | {r['iterations']} | "
            f"{r['games']} | {r['examples']} | {vs} | {elo} | {rate} | {anc} |"
        )
    return head + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="results folder")
    parser.add_argument("--variant", action="append", help="NAME=FLAGS (repeat)")
    parser.add_argument("--cpu-hours", type=float, default=0.5)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--init", help="start weights (default: random)")
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--filters", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=64, help="per iteration")
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--updates", type=int, default=50, help="per iteration")
    parser.add_argument("--max-iterations", type=int, default=10_000)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--eval-simulations", type=int, default=64)
    parser.add_argument("--parallel", type=int, default=2, help="games at once")
    parser.add_argument(
        "--jobs", type=int, default=1, help="variants trained at once (default 1)"
    )
    parser.add_argument("--anchor", help="GTP command line every variant also plays")
    parser.add_argument(
        "--scoring", default="auto", choices=("auto", "arbiter", "tromp-taylor")
    )
    args = parser.parse_args(argv)
    try:
        variants = parse_variants(args.variant)
    except ValueError as exc:
        print(f"ablation: {exc}", file=sys.stderr)
        return 2
    if not args.cpu_hours > 0:
        print("ablation: --cpu-hours must be > 0", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("ablation: --jobs must be >= 1", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    failed = train_all(args, variants, args.jobs)
    if failed:
        where = f" (see {args.out}/<variant>.log)" if args.jobs > 1 else ""
        print(
            f"ablation: training failed for {', '.join(failed)}{where}", file=sys.stderr
        )
        return 1
    names = list(variants)
    baseline = engine(args, args.out / names[0] / "best.pt")
    rows = []
    for name in names:
        row: dict[str, Any] = {"name": name, "flags": variants[name]}
        row.update(run_stats(args.out / name))
        me = engine(args, args.out / name / "best.pt")
        matches = [("baseline", baseline)] if name != names[0] else []
        if args.anchor:
            matches.append(("anchor", args.anchor))
        for label, other in matches:
            print(f"== {name} vs {label}", flush=True)
            score = play(args, args.out, name, label, me, other)
            row[f"vs_{label}"] = {"score": score.score(), "elo": score.elo()}
        rows.append(row)
    report = {"settings": {k: str(v) for k, v in vars(args).items()}, "rows": rows}
    text = json.dumps(report, indent=1) + "\n"
    atomic_write_bytes(args.out / "ablation.json", text.encode())
    atomic_write_bytes(args.out / "ablation.md", table(rows, args).encode())
    print(table(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
