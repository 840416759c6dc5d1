"""Self-play + training soak: is memory and the descriptor count flat over a long run?

One process runs the project's own ``train rl`` loop (``alphago.train.rl.train_rl``)
with a tiny network for hours: self-play in this process (``workers=1``: the
``run_selfplay`` -> ``selfplay_job`` -> ``play_games`` path, many games in lock-step in
one ``search.PUCT``), learner rounds, the network promoted every iteration (no gate:
``candidate.pt`` -> ``best.pt``) and the checkpoint, replay window and metrics log
written atomically after every phase. Every ``--resume-every`` iterations the loop
returns and is started again from the checkpoint, as a killed and resumed run would,
so loading the checkpoint, the window and the weights is exercised too.

Between calls it samples, into ``OUT/soak_selfplay.csv`` (one row per sample, flushed):
the games played, the search calls (calls of ``search.PUCT.run``, the search entry
point, counted by a wrapper) and the root searches they returned (one per game per
move), the resident set size (``VmRSS`` of ``/proc/self/status``), its peak
(``VmHWM``), the thread count and the number of open descriptors
(``/proc/self/fd``). ``OUT/soak_selfplay.png`` plots RSS and descriptors against games
(redrawn as it goes; the title says "partial" until the run ends).

The run stops after ``--games`` games or ``--hours`` hours, whichever comes first
(at the end of the iteration that crosses it; SIGINT/SIGTERM stop it the same way).

Growth check (also ``--analyze CSV`` on a CSV this script wrote). Samples before
``--warmup`` games are left out: the replay window fills, torch and the allocator
settle. The run fails (exit status 1) when any of these holds:

- RSS at the end minus RSS at the first sample after the warm-up exceeds
  ``--max-rss-growth-mb`` (default 64 MB);
- the least-squares slope of RSS against games after the warm-up exceeds
  ``--max-rss-slope`` MB per 1000 games (default 1.0: a leak of 1 kB per game);
- open descriptors at the end minus those after the warm-up exceed
  ``--max-fd-growth`` (default 2; a steady process keeps exactly the same number).

The summary (first-vs-last RSS, the slope, descriptors) is printed and written to
``OUT/soak_selfplay.json``. Exit status 0: flat; 1: growth beyond a threshold; 2: bad
arguments or too few samples after the warm-up to judge.

The run of 2026-11-26 (7x7, 8 simulations, 6 games in lock-step: about 11 search
calls and 65 root searches per game, so 10^4 games make about 1.1 x 10^5 calls):

    .venv/bin/python scripts/soak_selfplay.py \
        --out /work/runs/soak-2026-11-26/selfplay --games 10000 --hours 5 \
        --size 7 --simulations 8 --parallel-games 6 --games-per-iteration 96 \
        --resume-every 2

Rates measured here: the defaults (9x9, 16 simulations, 8 in lock-step) make 5.5
games/s with training and checkpoints on a quiet core (64 games per 11.6 s) but 0.65
games/s on the 2-core machine at a load average of 10; the run above made 2 games/s
at that load.

The functions ``read_proc``, ``growth_check``, ``write_plot`` and ``CsvLog`` are shared
with ``scripts/soak_gtp.py``; nothing heavy (torch) is imported at module level.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CsvLog",
    "GrowthSummary",
    "growth_check",
    "least_squares_slope",
    "main",
    "read_proc",
    "write_plot",
]

CSV_NAME = "soak_selfplay.csv"
PNG_NAME = "soak_selfplay.png"
JSON_NAME = "soak_selfplay.json"
COLUMNS = (
    "elapsed_s",
    "iterations",
    "games",
    "search_calls",
    "searches",
    "rss_mb",
    "hwm_mb",
    "threads",
    "fds",
)

# -- sampling --------------------------------------------------------------------------


def read_proc(pid: int | str = "self") -> dict[str, float]:
    """``rss_mb``, ``hwm_mb`` (peak RSS), ``threads`` and ``fds`` of a process, read
    from ``/proc/PID/status`` and ``/proc/PID/fd``. OSError if it is gone."""
    base = Path("/proc") / str(pid)
    fields: dict[str, float] = {}
    for line in (base / "status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key == "VmRSS":
            fields["rss_mb"] = int(value.split()[0]) / 1024.0
        elif key == "VmHWM":
            fields["hwm_mb"] = int(value.split()[0]) / 1024.0
        elif key == "Threads":
            fields["threads"] = int(value)
    fields["fds"] = len(os.listdir(base / "fd"))
    return fields


class CsvLog:
    """Rows appended to a CSV file, each flushed to the disk at once (a soak that is
    killed keeps every sample it took)."""

    def __init__(self, path: Path, columns: Sequence[str]) -> None:
        self.path = path
        self.columns = list(columns)
        self.rows: list[dict[str, float]] = []
        self._file = open(path, "w", newline="")  # noqa: SIM115 - closed in close()
        self._writer = csv.DictWriter(self._file, fieldnames=self.columns)
        self._writer.writeheader()
        self._file.flush()

    def add(self, row: dict[str, float]) -> None:
        self.rows.append(row)
        self._writer.writerow({k: _fmt(row[k]) for k in self.columns})
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def _fmt(value: float) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.3f}"
    return str(int(value))


def read_csv(path: Path) -> list[dict[str, float]]:
    with open(path, newline="") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


# -- the growth check ------------------------------------------------------------------


def least_squares_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Slope of the least-squares line through (xs, ys) (nan with < 2 distinct xs)."""
    n = len(xs)
    if n < 2:
        return math.nan
    mx = sum(xs) / n
    my = sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return math.nan
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


@dataclass
class GrowthSummary:
    """What :func:`growth_check` found (``unit`` is what x counts: games, cycles)."""

    unit: str
    samples: int
    samples_after_warmup: int
    warmup: float
    x_first: float
    x_warm: float
    x_last: float
    rss_first_mb: float
    rss_warm_mb: float
    rss_last_mb: float
    rss_max_mb: float
    rss_growth_mb: float  # last - warm
    rss_slope_mb_per_1000: float  # after the warm-up
    fds_first: int
    fds_warm: int
    fds_last: int
    fds_max: int
    fd_growth: int  # last - warm
    thresholds: dict[str, float]
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        u = self.unit
        return [
            f"samples: {self.samples} ({self.samples_after_warmup} after the warm-up "
            f"of {self.warmup:g} {u}); {u} {self.x_first:g} .. {self.x_last:g}",
            f"RSS: first {self.rss_first_mb:.1f} MB, after warm-up "
            f"{self.rss_warm_mb:.1f} MB ({u} {self.x_warm:g}), last "
            f"{self.rss_last_mb:.1f} MB, max {self.rss_max_mb:.1f} MB",
            f"RSS growth first->last {self.rss_last_mb - self.rss_first_mb:+.1f} MB, "
            f"warm-up->last {self.rss_growth_mb:+.1f} MB "
            f"(limit {self.thresholds['max_rss_growth_mb']:g})",
            f"RSS slope after warm-up: {self.rss_slope_mb_per_1000:+.3f} MB per 1000 "
            f"{u} (limit {self.thresholds['max_rss_slope']:g})",
            f"fds: first {self.fds_first}, after warm-up {self.fds_warm}, last "
            f"{self.fds_last}, max {self.fds_max}; growth {self.fd_growth:+d} "
            f"(limit {self.thresholds['max_fd_growth']:g})",
            "verdict: " + ("flat" if self.ok else "FAIL: " + "; ".join(self.failures)),
        ]


def growth_check(
    rows: Sequence[dict[str, float]],
    x: str,
    warmup: float,
    *,
    max_rss_growth_mb: float,
    max_rss_slope: float,
    max_fd_growth: int,
    unit: str | None = None,
) -> GrowthSummary:
    """Judge a series of samples (``rows`` with ``x``, ``rss_mb`` and ``fds``).

    The warm-up sample is the first with ``x >= warmup``; growth is measured from it
    to the last sample and the slope is fitted over it and everything after.

    Raises:
        ValueError: fewer than 2 samples from the warm-up on.
    """
    rows = sorted(rows, key=lambda r: r[x])
    after = [r for r in rows if r[x] >= warmup]
    if len(after) < 2:
        raise ValueError(
            f"{len(after)} sample(s) at or after the warm-up ({warmup:g} {x}): "
            "need at least 2 to judge growth"
        )
    warm, last = after[0], after[-1]
    slope = least_squares_slope([r[x] for r in after], [r["rss_mb"] for r in after])
    summary = GrowthSummary(
        unit=unit or x,
        samples=len(rows),
        samples_after_warmup=len(after),
        warmup=warmup,
        x_first=rows[0][x],
        x_warm=warm[x],
        x_last=last[x],
        rss_first_mb=rows[0]["rss_mb"],
        rss_warm_mb=warm["rss_mb"],
        rss_last_mb=last["rss_mb"],
        rss_max_mb=max(r["rss_mb"] for r in rows),
        rss_growth_mb=last["rss_mb"] - warm["rss_mb"],
        rss_slope_mb_per_1000=1000.0 * slope,
        fds_first=int(rows[0]["fds"]),
        fds_warm=int(warm["fds"]),
        fds_last=int(last["fds"]),
        fds_max=int(max(r["fds"] for r in rows)),
        fd_growth=int(last["fds"] - warm["fds"]),
        thresholds={
            "max_rss_growth_mb": max_rss_growth_mb,
            "max_rss_slope": max_rss_slope,
            "max_fd_growth": max_fd_growth,
        },
    )
    if summary.rss_growth_mb > max_rss_growth_mb:
        summary.failures.append(
            f"RSS grew {summary.rss_growth_mb:.1f} MB after the warm-up "
            f"(> {max_rss_growth_mb:g})"
        )
    if summary.rss_slope_mb_per_1000 > max_rss_slope:
        summary.failures.append(
            f"RSS slope {summary.rss_slope_mb_per_1000:.3f} MB per 1000 {summary.unit} "
            f"(> {max_rss_slope:g})"
        )
    if summary.fd_growth > max_fd_growth:
        summary.failures.append(
            f"{summary.fd_growth} more open descriptors after the warm-up "
            f"(> {max_fd_growth})"
        )
    return summary


def write_plot(
    rows: Sequence[dict[str, float]],
    x: str,
    path: Path,
    title: str,
    warmup: float | None = None,
    extra: str | None = None,
) -> None:
    """RSS (MB) and open descriptors against ``x``, two panels, to a PNG (written
    beside and renamed, so a reader never sees half a file)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r[x] for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    top.plot(xs, [r["rss_mb"] for r in rows], ".-", ms=3, lw=1, label="RSS")
    if rows and "hwm_mb" in rows[0]:
        top.plot(xs, [r["hwm_mb"] for r in rows], "-", lw=0.8, alpha=0.6, label="peak")
    top.set_ylabel("resident set (MB)")
    top.grid(alpha=0.3)
    bottom.plot(xs, [r["fds"] for r in rows], ".-", ms=3, lw=1, color="C2", label="fds")
    if rows and "threads" in rows[0]:
        bottom.plot(
            xs, [r["threads"] for r in rows], "-", lw=1, color="C3", label="threads"
        )
    bottom.set_ylabel("open descriptors / threads")
    bottom.set_xlabel(x)
    bottom.grid(alpha=0.3)
    if warmup is not None and xs and warmup > xs[0]:
        for ax in (top, bottom):
            ax.axvspan(xs[0], min(warmup, xs[-1]), color="0.9", label="warm-up")
    top.legend(loc="lower right", fontsize=8)
    bottom.legend(loc="lower right", fontsize=8)
    ymax = max((r["fds"] for r in rows), default=1)
    bottom.set_ylim(0, ymax * 1.3 + 2)
    fig.suptitle(title, fontsize=10)
    if extra:
        fig.text(0.01, 0.005, extra, fontsize=7, family="monospace", va="bottom")
    fig.tight_layout(rect=(0, 0.07 if extra else 0, 1, 0.97))
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


# -- the soak --------------------------------------------------------------------------


class _Stop:
    """SIGINT/SIGTERM: finish the current iteration, then summarise."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGINT, self._set)
        signal.signal(signal.SIGTERM, self._set)

    def _set(self, signum: int, frame: object) -> None:
        self.requested = True


def _count_search_calls() -> dict[str, int]:
    """Wrap ``search.PUCT.run`` (the search entry point) to count calls and roots."""
    import search

    counts = {"calls": 0, "roots": 0}
    original = search.PUCT.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        results = original(self, *args, **kwargs)
        counts["calls"] += 1
        counts["roots"] += len(results)
        return results

    search.PUCT.run = run  # type: ignore[method-assign]
    return counts


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, help="directory for the run, CSV, PNG, JSON")
    p.add_argument("--games", type=int, default=10_000, help="stop after these games")
    p.add_argument("--hours", type=float, default=None, help="stop after these hours")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--blocks", type=int, default=2)
    p.add_argument("--filters", type=int, default=16)
    p.add_argument("--simulations", type=int, default=16)
    p.add_argument("--parallel-games", type=int, default=8)
    p.add_argument("--leaves-per-batch", type=int, default=4)
    p.add_argument("--games-per-iteration", type=int, default=64)
    p.add_argument("--updates", type=int, default=4, help="learner rounds/iteration")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--replay-window", type=int, default=8192)
    p.add_argument(
        "--resume-every",
        type=int,
        default=4,
        help="iterations per train_rl call (and per sample); each call resumes "
        "from the checkpoint",
    )
    p.add_argument("--plot-every", type=int, default=10, help="samples per redraw")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument(
        "--warmup", type=float, default=1000, help="games left out of the check"
    )
    p.add_argument("--max-rss-growth-mb", type=float, default=64.0)
    p.add_argument("--max-rss-slope", type=float, default=1.0, help="MB/1000 games")
    p.add_argument("--max-fd-growth", type=int, default=2)
    p.add_argument(
        "--analyze",
        type=Path,
        default=None,
        help="only judge a CSV this script wrote (no run)",
    )
    return p


def _thresholds(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "max_rss_growth_mb": args.max_rss_growth_mb,
        "max_rss_slope": args.max_rss_slope,
        "max_fd_growth": args.max_fd_growth,
    }


def _judge(
    rows: list[dict[str, float]], args: argparse.Namespace
) -> GrowthSummary | None:
    try:
        return growth_check(rows, "games", args.warmup, **_thresholds(args))
    except ValueError as exc:
        print(f"soak_selfplay: cannot judge: {exc}", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.analyze is not None:
        summary = _judge(read_csv(args.analyze), args)
        if summary is None:
            return 2
        print("\n".join(summary.lines()))
        return 0 if summary.ok else 1
    if args.out is None:
        print("soak_selfplay: --out is required", file=sys.stderr)
        return 2
    if args.games < 1 or (args.hours is not None and args.hours <= 0):
        print("soak_selfplay: --games and --hours must be positive", file=sys.stderr)
        return 2

    import torch

    from alphago.nets import NetConfig
    from alphago.train.learner import TrainConfig
    from alphago.train.rl import RLConfig, train_rl
    from alphago.train.selfplay import SelfPlayConfig

    torch.set_num_threads(args.threads)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    run_dir = out / "run"
    if (run_dir / "checkpoint.pt").exists():
        print(f"soak_selfplay: {run_dir} holds a run already", file=sys.stderr)
        return 2
    counts = _count_search_calls()
    config = RLConfig(
        iterations=10**9,
        games_per_iteration=args.games_per_iteration,
        replay_window=args.replay_window,
        updates_per_iteration=args.updates,
        epochs=args.epochs,
        gate_games=0,  # always replace: no arena games beside self-play
        baseline_every=0,
        baseline_games=0,
        workers=1,  # self-play in this process
        seed=args.seed,
        selfplay=SelfPlayConfig(
            simulations=args.simulations,
            parallel_games=args.parallel_games,
            leaves_per_batch=args.leaves_per_batch,
            size=args.size,
            dirichlet_alpha=0.03 * 361 / args.size**2,
        ),
    )
    net = NetConfig(board_size=args.size, blocks=args.blocks, filters=args.filters)
    train = TrainConfig(batch_size=args.batch, lr=1e-3)
    settings = {
        "net": net.to_dict(),
        "simulations": args.simulations,
        "parallel_games": args.parallel_games,
        "games_per_iteration": args.games_per_iteration,
        "updates": args.updates,
        "epochs": args.epochs,
        "batch": args.batch,
        "replay_window": args.replay_window,
        "resume_every": args.resume_every,
        "threads": args.threads,
        "goal_games": args.games,
        "goal_hours": args.hours,
        "pid": os.getpid(),
    }
    (out / "soak_selfplay.settings.json").write_text(json.dumps(settings, indent=1))
    print(f"soak_selfplay: pid {os.getpid()}, {json.dumps(settings)}", flush=True)
    stop = _Stop()
    log = CsvLog(out / CSV_NAME, COLUMNS)
    start = time.monotonic()
    deadline = None if args.hours is None else start + 3600.0 * args.hours
    label = (
        f"{args.size}x{args.size}, net {args.blocks}x{args.filters}, "
        f"{args.simulations} sims, {args.parallel_games} games in lock-step, "
        f"{args.games_per_iteration} games + {args.updates} learner rounds "
        f"per iteration, resume every {args.resume_every}"
    )

    def sample(iterations: int) -> None:
        row: dict[str, float] = {
            "elapsed_s": time.monotonic() - start,
            "iterations": iterations,
            "games": iterations * args.games_per_iteration,
            "search_calls": counts["calls"],
            "searches": counts["roots"],
        }
        row.update(read_proc())
        log.add(row)
        print(
            f"[{row['elapsed_s']:8.0f}s] games {row['games']:.0f} calls "
            f"{row['search_calls']:.0f} searches {row['searches']:.0f} "
            f"rss {row['rss_mb']:.1f} MB fds {row['fds']:.0f}",
            flush=True,
        )

    def plot(final: bool) -> None:
        rows = log.rows
        games = rows[-1]["games"] if rows else 0
        state = "complete" if final else f"partial, still running ({games:.0f} games)"
        write_plot(
            rows,
            "games",
            out / PNG_NAME,
            f"self-play + training soak ({state})\n{label}",
            warmup=args.warmup,
            extra=(
                f"{games:.0f} games, {rows[-1]['search_calls']:.0f} PUCT.run calls, "
                f"{rows[-1]['searches']:.0f} root searches, "
                f"{rows[-1]['elapsed_s'] / 60:.0f} min"
                if rows
                else None
            ),
        )

    # matplotlib keeps the font files of its first figure open (its font cache: 4
    # descriptors here). Draw a figure before the first sample, so that those are
    # open from the start and not counted as growth of the process under test.
    write_plot(
        [{"games": 0.0, "rss_mb": 0.0, "fds": 0.0}],
        "games",
        out / PNG_NAME,
        "starting",
        extra="starting",
    )
    iteration = 0
    sample(0)
    first_call = True
    while True:
        stop_at = iteration + args.resume_every - 1
        train_rl(
            run_dir,
            config if first_call else None,
            net if first_call else None,
            train if first_call else None,
            progress=False,
            stop_after=(stop_at, "evaluate"),
        )
        first_call = False
        iteration = stop_at + 1
        sample(iteration)
        if len(log.rows) % args.plot_every == 0:
            plot(final=False)
        games = iteration * args.games_per_iteration
        if games >= args.games or stop.requested:
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
    log.close()
    plot(final=True)
    summary = _judge(log.rows, args)
    result: dict[str, Any] = {"settings": settings, "stopped_by_signal": stop.requested}
    if summary is not None:
        result["summary"] = asdict(summary) | {"ok": summary.ok}
        print("\n".join(summary.lines()), flush=True)
    (out / JSON_NAME).write_text(json.dumps(result, indent=1))
    if summary is None:
        return 2
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
