#!/usr/bin/env python3
"""Kill -9 campaign: ``alphago gendata``, ``shards``, ``train sl`` and ``train rl``
killed at random moments, rerun, killed again, until a run finishes (issue 17).

For each command, with a tiny configuration:

1. one uninterrupted run into ``WORKDIR/reference/`` (its wall time ``T`` sets the
   kill delays; the commands feed each other: shards read the reference SGF files,
   ``train sl`` the reference shards, ``train rl`` starts from the reference
   supervised network);
2. *cycles*: in a fresh directory the same command is started in its own process
   group and the whole group (GNU Go and self-play workers included) gets SIGKILL,
   then it is run again in the same directory, killed again, ... until a run
   finishes. Two kinds of kill: ``timer`` (a uniform delay in [0, T]: startup, work,
   the final writes) and ``write`` (after such a delay, the moment the output
   directory changes for the 1st-3rd time: a temporary file appearing, growing or
   being renamed, so the kill lands inside or just after a write). Cycles go on
   until ``--kills`` kills are spent; the last cycle's last run is left to finish.

After every kill every file in the directory must be a finished artefact that the
project's own loader reads (SGF, shard, progress file, checkpoint, weights, replay
window; metrics lines that all parse, a torn last line only) or a recognised
temporary (``.NAME.PID.xxxxxxxx.tmp`` of :mod:`alphago.atomic`, for a NAME the command
writes), finished artefacts must equal the reference's (SGF files and shards byte for
byte; metrics up to the checkpoint's count record for record), and no process of the
group may survive. After a finished run the directory must hold what the reference
holds: the same SGF files and shards byte for byte; for training the configured steps
or iterations, the same metrics records (times aside), no duplicated or missing
step, the same weights (tensor for tensor).

    python scripts/kill_campaign.py --workdir /tmp/kc --kills 25 --seed 1

prints a table (command, cycles, runs, kills, resumes verified, temporaries left,
failures), writes ``WORKDIR/summary.json`` and ``WORKDIR/<command>/kills.jsonl`` (one
line per run), and exits with status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

COMMANDS = ("gendata", "shards", "sl", "rl")
TRIGGERS = ("timer", "write", "early-write")

#: A temporary file of ``alphago.atomic`` beside its target ``NAME``.
TMP_NAME = re.compile(r"^\.(?P<target>.+)\.\d+\.[0-9a-f]{8}\.tmp$")

#: How a child runs ``alphago ARGS...`` (the installed package, whatever its path).
ALPHAGO = [
    sys.executable,
    "-c",
    "import sys\nfrom alphago.cli import main\nsys.exit(main(sys.argv[1:]))",
]


# -- what is on disk -----------------------------------------------------------


@dataclass
class Listing:
    """The entries of a directory sorted out: finished artefacts by name,
    recognised temporaries, and problems (unexpected entries)."""

    finals: dict[str, Path] = field(default_factory=dict)
    temporaries: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def list_dir(out: Path, finals: re.Pattern[str]) -> Listing:
    """Sort the entries of ``out`` (missing: empty) by the names in ``finals``."""
    listing = Listing()
    if not out.exists():
        return listing
    for path in sorted(out.iterdir()):
        tmp = TMP_NAME.match(path.name)
        if tmp and finals.fullmatch(tmp["target"]) and path.is_file():
            listing.temporaries.append(path.name)
        elif finals.fullmatch(path.name) and path.is_file():
            listing.finals[path.name] = path
        else:
            listing.problems.append(f"{path.name}: an unexpected entry")
    return listing


def check_sgf(path: Path) -> str | None:
    """None when ``path`` is a whole game record with a result, else the problem."""
    from alphago.sgf import read_sgf

    try:
        record = read_sgf(path.read_bytes())
    except (OSError, ValueError) as exc:
        return f"{path.name}: not a readable SGF file ({exc})"
    if not record.result or not record.moves:
        return f"{path.name}: a game without a result or moves"
    return None


def check_shard(path: Path) -> str | None:
    from alphago.data.examples import Examples

    try:
        Examples.load(path)
    except (OSError, ValueError) as exc:
        return f"{path.name}: not a readable shard ({exc})"
    return None


def check_progress(path: Path) -> str | None:
    from alphago.data.dataset import _Progress

    try:
        _Progress.load(path)
    except (OSError, ValueError) as exc:
        return f"{path.name}: not a readable progress file ({exc})"
    return None


def check_checkpoint(path: Path, kind: str) -> str | None:
    from alphago.train.checkpoint import load_checkpoint

    try:
        state = load_checkpoint(path)
    except (OSError, ValueError) as exc:
        return f"{path.name}: not a readable checkpoint ({exc})"
    if state.get("kind") != kind:
        return f"{path.name}: a checkpoint of kind {state.get('kind')!r}, not {kind}"
    return None


def check_weights(path: Path) -> str | None:
    from alphago.nets.weights import load_weights

    try:
        load_weights(path)
    except (OSError, ValueError) as exc:
        return f"{path.name}: not a readable weights file ({exc})"
    return None


@dataclass
class Metrics:
    """A metrics log read strictly: every line that ends in a newline must be a JSON
    object; a last piece without its newline is ``torn`` (a write cut short)."""

    records: list[dict[str, Any]]
    torn: bool
    problem: str | None = None


def read_metrics_strict(path: Path) -> Metrics:
    if not path.exists():
        return Metrics([], False)
    *lines, tail = path.read_bytes().split(b"\n")
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
        except ValueError as exc:
            return Metrics(records, False, f"{path.name}:{number}: not JSON ({exc})")
        if not isinstance(record, dict):
            return Metrics(records, False, f"{path.name}:{number}: not an object")
        records.append(record)
    return Metrics(records, bool(tail))


def comparable(record: dict[str, Any], drop: Sequence[str]) -> dict[str, Any]:
    """A metrics record without its time-dependent fields."""
    return {k: v for k, v in record.items() if k not in drop}


def first_difference(
    got: list[dict[str, Any]], want: list[dict[str, Any]], drop: Sequence[str]
) -> str | None:
    """Where two metrics logs part (None: equal, times aside)."""
    for i, (a, b) in enumerate(zip(got, want, strict=False)):
        if comparable(a, drop) != comparable(b, drop):
            return (
                f"metrics record {i + 1} differs from the reference: "
                f"{comparable(a, drop)} != {comparable(b, drop)}"
            )
    if len(got) != len(want):
        return f"{len(got)} metrics records, the reference has {len(want)}"
    return None


def same_weights(a: Path, b: Path) -> bool:
    import torch

    from alphago.nets.weights import load_weights

    sa, sb = load_weights(a).state_dict(), load_weights(b).state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


# -- the commands --------------------------------------------------------------


class Command:
    """One command under test: its arguments, and what its directory may hold."""

    name = ""
    #: Names of the finished files the command writes into its directory.
    finals: re.Pattern[str] = re.compile("")

    def argv(self, out: Path) -> list[str]:
        raise NotImplementedError

    def check_killed(self, out: Path, ref: Path, memory: dict[str, Any]) -> list[str]:
        """Problems of ``out`` right after a kill (``memory``: kept over a cycle)."""
        raise NotImplementedError

    def check_final(self, out: Path, ref: Path) -> list[str]:
        """Problems of ``out`` after a run that finished."""
        raise NotImplementedError

    def listing(self, out: Path) -> Listing:
        return list_dir(out, self.finals)

    def finished(self, out: Path, ref: Path) -> bool:
        """Whether ``out`` (checked after a kill) holds a finished run."""
        return False


@dataclass
class Gendata(Command):
    """``alphago gendata``: GNU Go games, ``game-NNNNNN.sgf``."""

    games: int = 24
    size: int = 9
    level: int = 0
    workers: int = 2
    seed: int = 0
    name = "gendata"
    finals = re.compile(r"game-\d{6}\.sgf")

    def argv(self, out: Path) -> list[str]:
        return ["gendata", str(out), "--games", str(self.games)] + [
            *("--level", str(self.level), "--size", str(self.size)),
            *("--workers", str(self.workers), "--opening-plies", "4"),
            *("--seed", str(self.seed)),
        ]

    def check_killed(self, out: Path, ref: Path, memory: dict[str, Any]) -> list[str]:
        listing = self.listing(out)
        problems = list(listing.problems)
        for name, path in listing.finals.items():
            problem = check_sgf(path)
            if problem is None and path.read_bytes() != (ref / name).read_bytes():
                problem = f"{name}: differs from the reference game"
            if problem:
                problems.append(problem)
        seen: set[str] = memory.setdefault("seen", set())
        lost = seen - set(listing.finals)
        problems += [f"{name}: a finished game was lost" for name in sorted(lost)]
        seen.update(listing.finals)
        return problems

    def check_final(self, out: Path, ref: Path) -> list[str]:
        problems = self.check_killed(out, ref, {})
        names, want = set(self.listing(out).finals), set(self.listing(ref).finals)
        if names != want:
            problems.append(
                f"games {sorted(names ^ want)} are in one of the run and the "
                "reference only"
            )
        return problems


@dataclass
class Shards(Command):
    """``alphago shards``: ``shard-NNNNN.npz``, ``shards.progress`` while
    unfinished and ``shards.done`` once finished (a rerun then finds the work done)."""

    inputs: Path = Path()
    size: int = 9
    shard_size: int = 16
    name = "shards"
    finals = re.compile(r"shard-\d{5,}\.npz|shards\.progress|shards\.done")

    def finished(self, out: Path, ref: Path) -> bool:
        names = set(self.listing(out).finals)
        return "shards.progress" not in names and names == set(self.listing(ref).finals)

    def argv(self, out: Path) -> list[str]:
        return ["shards", str(self.inputs), "--out", str(out)] + [
            *("--size", str(self.size), "--shard-size", str(self.shard_size)),
        ]

    def check_killed(self, out: Path, ref: Path, memory: dict[str, Any]) -> list[str]:
        listing = self.listing(out)
        problems = list(listing.problems)
        shards = {n: p for n, p in listing.finals.items() if n.endswith(".npz")}
        reference = {n: p for n, p in self.listing(ref).finals.items()}
        for name, path in shards.items():
            problem = check_shard(path)
            if problem is None and (
                name not in reference
                or path.read_bytes() != reference[name].read_bytes()
            ):
                problem = f"{name}: differs from the reference shard"
            if problem:
                problems.append(problem)
        done = listing.finals.get("shards.done")
        if (
            done is not None
            and done.read_bytes() != reference["shards.done"].read_bytes()
        ):
            problems.append("shards.done: differs from the reference's")
        progress = listing.finals.get("shards.progress")
        if progress is not None:
            problem = check_progress(progress)
            if problem:
                problems.append(problem)
        elif shards and set(shards) != {n for n in reference if n.endswith(".npz")}:
            problems.append(
                f"{len(shards)} of the reference's shards and no shards.progress:"
                " the directory passes for a finished one (load_shards reads it) and "
                "a rerun refuses it"
            )
        return problems

    def check_final(self, out: Path, ref: Path) -> list[str]:
        problems = self.check_killed(out, ref, {})
        names, want = set(self.listing(out).finals), set(self.listing(ref).finals)
        if names != want:
            problems.append(
                f"{sorted(names ^ want)} are in one of the run and the reference only"
            )
        return problems


class _Training(Command):
    """What ``train sl`` and ``train rl`` share: a checkpoint, weights files and
    a metrics log that must match the reference's up to the checkpoint."""

    kind = ""
    weights: tuple[str, ...] = ()
    #: Metrics fields that depend on the clock.
    timing: tuple[str, ...] = ("time",)

    def _check_files(self, out: Path, ref: Path, final: bool) -> list[str]:
        from alphago.train.checkpoint import load_checkpoint

        listing = self.listing(out)
        problems = list(listing.problems)
        for name, path in listing.finals.items():
            problem = None
            if name == "checkpoint.pt":
                problem = check_checkpoint(path, self.kind)
            elif name.endswith(".pt"):
                problem = check_weights(path)
            elif name.endswith(".npz"):
                problem = check_shard(path)
            if problem:
                problems.append(problem)
        metrics = read_metrics_strict(out / "metrics.jsonl")
        if metrics.problem:
            problems.append(metrics.problem)
        if metrics.torn and final:
            problems.append("metrics.jsonl: a torn last line after a finished run")
        if problems or "checkpoint.pt" not in listing.finals:
            return problems
        state = load_checkpoint(out / "checkpoint.pt")
        for name in self.weights:
            if name not in listing.finals and self._needs(name, state):
                problems.append(f"{name}: missing beside the checkpoint")
        problems += self._check_state(out, state)
        # Nothing the checkpoint counts as done may differ from the reference.
        kept = int(state["metrics_lines"])
        reference = read_metrics_strict(ref / "metrics.jsonl").records
        if len(metrics.records) < kept:
            problems.append(
                f"metrics.jsonl: {len(metrics.records)} records, the checkpoint "
                f"counts {kept}"
            )
        else:
            diff = first_difference(
                metrics.records[:kept], reference[:kept], self.timing
            )
            if diff:
                problems.append(diff)
        return problems

    def _needs(self, name: str, state: dict[str, Any]) -> bool:
        return True

    def _check_state(self, out: Path, state: dict[str, Any]) -> list[str]:
        return []

    def check_killed(self, out: Path, ref: Path, memory: dict[str, Any]) -> list[str]:
        return self._check_files(out, ref, final=False)

    def check_final(self, out: Path, ref: Path) -> list[str]:
        from alphago.train.checkpoint import load_checkpoint

        problems = self._check_files(out, ref, final=True)
        if problems:
            return problems
        got = read_metrics_strict(out / "metrics.jsonl").records
        want = read_metrics_strict(ref / "metrics.jsonl").records
        keys = [(r["kind"], r["step"], r.get("opponent")) for r in got]
        if len(set(keys)) != len(keys):
            problems.append("metrics.jsonl: a (kind, step) logged twice")
        diff = first_difference(got, want, self.timing)
        if diff:
            problems.append(diff)
        a, b = (
            load_checkpoint(out / "checkpoint.pt"),
            load_checkpoint(ref / "checkpoint.pt"),
        )
        for key in self.counters:
            if self._get(a, key) != self._get(b, key):
                problems.append(
                    f"checkpoint {key}: {self._get(a, key)!r}, the reference's "
                    f"{self._get(b, key)!r}"
                )
        if a["random"]["numpy"] != b["random"]["numpy"]:
            problems.append("checkpoint: the numpy random state differs")
        for name in self.weights:
            if not same_weights(out / name, ref / name):
                problems.append(f"{name}: other weights than the reference's")
        return problems

    counters: tuple[str, ...] = ()

    @staticmethod
    def _get(state: dict[str, Any], key: str) -> Any:
        for part in key.split("."):
            state = state[part]
        return state


@dataclass
class TrainSL(_Training):
    """``alphago train sl``: checkpoint.pt, weights.pt, best.pt, metrics.jsonl."""

    data: Path = Path()
    size: int = 9
    steps: int = 200
    seed: int = 0
    name = "sl"
    kind = "sl"
    finals = re.compile(r"checkpoint\.pt|weights\.pt|best\.pt|metrics\.jsonl")
    weights = ("weights.pt", "best.pt")
    counters = ("learner.step", "best_val", "metrics_lines")

    def argv(self, out: Path) -> list[str]:
        return ["train", "sl", str(out), "--data", str(self.data)] + [
            *("--size", str(self.size), "--blocks", "1", "--filters", "8"),
            *("--batch", "32", "--steps", str(self.steps), "--checkpoint-every", "20"),
            *("--log-every", "10", "--val-every", "30", "--threads", "1"),
            *("--device", "cpu", "--no-progress", "--seed", str(self.seed)),
        ]

    def _needs(self, name: str, state: dict[str, Any]) -> bool:
        # best.pt is written at a validation, which may come after the checkpoint.
        return name == "weights.pt" or (
            name == "best.pt" and state["best_val"] != float("inf")
        )

    def _check_state(self, out: Path, state: dict[str, Any]) -> list[str]:
        step = int(state["learner"]["step"])
        if not 0 < step <= self.steps or (step % 20 and step != self.steps):
            return [f"checkpoint.pt: step {step} is not a checkpoint step"]
        return []


@dataclass
class TrainRL(_Training):
    """``alphago train rl``: checkpoint.pt, best.pt, candidate.pt, replay-*.npz,
    metrics.jsonl."""

    init: Path = Path()
    size: int = 9
    iterations: int = 3
    seed: int = 0
    name = "rl"
    kind = "rl"
    finals = re.compile(
        r"checkpoint\.pt|best\.pt|candidate\.pt|replay-\d{12}\.npz|metrics\.jsonl"
    )
    weights = ("best.pt", "candidate.pt")
    timing = ("time", "games_per_hour", "cpu_hours")
    counters = (
        "iteration",
        "phase",
        "games",
        "examples",
        "learner.step",
        "learner.lr_multiplier",
        "replay_file",
        "metrics_lines",
    )

    def argv(self, out: Path) -> list[str]:
        return ["train", "rl", str(out), "--init", str(self.init)] + [
            *("--size", str(self.size), "--blocks", "1", "--filters", "8"),
            *("--iterations", str(self.iterations), "--games", "4"),
            *("--simulations", "8", "--parallel-games", "4", "--updates", "4"),
            *("--epochs", "2", "--batch", "16", "--gate-games", "2"),
            # Every candidate is accepted: best.pt is replaced every iteration.
            *("--gate-threshold", "0", "--eval-simulations", "4"),
            *("--baseline-every", "2", "--baseline-games", "2", "--workers", "1"),
            *("--threads", "1", "--device", "cpu", "--no-progress"),
            *("--seed", str(self.seed)),
        ]

    def _needs(self, name: str, state: dict[str, Any]) -> bool:
        if name == "candidate.pt":  # written by the first training phase
            return state["iteration"] > 0 or state["phase"] == "evaluate"
        return True

    def _check_state(self, out: Path, state: dict[str, Any]) -> list[str]:
        replay = out / str(state["replay_file"])
        if not replay.is_file():
            return [f"{replay.name}: the checkpoint's replay window is missing"]
        return []

    def check_final(self, out: Path, ref: Path) -> list[str]:
        problems = super().check_final(out, ref)
        replays = sorted(out.glob("replay-*.npz"))
        want = sorted(ref.glob("replay-*.npz"))
        if [p.name for p in replays] != [p.name for p in want]:
            problems.append(f"replay windows {[p.name for p in replays]}")
        elif replays[0].read_bytes() != want[0].read_bytes():
            problems.append(f"{replays[0].name}: differs from the reference's")
        return problems


# -- running and killing -------------------------------------------------------


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of process group ``pgid``."""
    proc = Path("/proc")
    if not proc.is_dir():  # not Linux: ask the kernel about the whole group
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            return [pgid]
        return [pgid]
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def snapshot(out: Path) -> dict[str, tuple[int, int]]:
    """Names, sizes and modification times in ``out`` (missing: empty)."""
    result = {}
    try:
        entries = list(os.scandir(out))
    except OSError:
        return {}
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        result[entry.name] = (st.st_size, st.st_mtime_ns)
    return result


@dataclass
class Run:
    """One start of a command: how it ended."""

    returncode: int
    killed: bool
    seconds: float
    trigger: str | None = None
    delay: float | None = None
    changes: int | None = None
    changes_seen: int = 0
    timed_out: bool = False
    survivors: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Kill:
    """When to kill a run: ``delay`` seconds after its start, then at the
    ``changes``-th change of its output directory (0: at once; None: never, only
    count the changes)."""

    trigger: str
    delay: float
    changes: int | None


def run_once(
    argv: list[str], out: Path, log: Path, kill: Kill | None, timeout: float
) -> Run:
    """Run ``alphago argv`` (own process group, output appended to ``log``),
    SIGKILL its group as ``kill`` says (or after ``timeout`` seconds)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    with log.open("ab") as sink:
        sink.write(f"\n$ alphago {' '.join(argv)}\n".encode())
        sink.flush()
        start = time.monotonic()
        proc = subprocess.Popen(
            ALPHAGO + argv,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            env=env,
        )
    deadline = start + timeout
    seen = 0
    try:
        if kill is not None:
            try:
                proc.wait(timeout=kill.delay)
            except subprocess.TimeoutExpired:
                before = snapshot(out)
                while proc.poll() is None and time.monotonic() < deadline:
                    if kill.changes is not None and seen >= kill.changes:
                        break
                    now = snapshot(out)
                    if now != before:
                        seen += 1
                        before = now
                        continue
                    time.sleep(0.001)
        if proc.poll() is None and (kill is None or kill.changes is None):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    seconds = time.monotonic() - start
    timed_out = time.monotonic() >= deadline and proc.returncode == -signal.SIGKILL
    survivors = group_members(proc.pid)
    for _ in range(100):  # SIGKILLed processes take a moment to go
        if not survivors:
            break
        time.sleep(0.05)
        survivors = group_members(proc.pid)
    if survivors:
        os.killpg(proc.pid, signal.SIGKILL)
    return Run(
        proc.returncode,
        proc.returncode == -signal.SIGKILL,
        seconds,
        kill.trigger if kill else None,
        kill.delay if kill else None,
        kill.changes if kill else None,
        seen,
        timed_out,
        survivors,
    )


@dataclass
class Result:
    """A command's campaign."""

    command: str
    reference_seconds: float = 0.0
    reference_changes: int = 0
    cycles: int = 0
    runs: int = 0
    kills: int = 0
    kills_by_trigger: dict[str, int] = field(default_factory=dict)
    kills_leaving_temporaries: int = 0
    kills_leaving_torn_metrics: int = 0
    #: Kills after the work was done (the next run then has nothing to do).
    finished_before_kill: int = 0
    resumes_verified: int = 0
    temporaries_left: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_reference(command: Command, out: Path, log: Path) -> tuple[float, int]:
    """The uninterrupted run: (its wall time, the changes of its directory seen).
    Raises RuntimeError if it fails."""
    run = run_once(command.argv(out), out, log, Kill("watch", 0.0, None), 3600)
    if run.returncode != 0:
        raise RuntimeError(
            f"the reference run of {command.name} failed ({run.returncode}); see {log}"
        )
    listing = command.listing(out)
    if listing.problems or listing.temporaries:
        raise RuntimeError(
            f"the reference run of {command.name} left "
            f"{listing.problems + listing.temporaries}"
        )
    return run.seconds, run.changes_seen


def campaign(
    command: Command,
    ref: Path,
    workdir: Path,
    kills: int,
    rng: random.Random,
    reference: tuple[float, int],
    say: Callable[[str], None] = print,
) -> Result:
    """Cycles of runs killed and rerun (module docstring) until ``kills`` kills.

    ``reference``: the reference run's wall time and directory changes. A kill is
    ``timer`` (a third of them: a uniform delay up to the wall time) or ``write``
    (at a uniform number of directory changes up to the reference's count)."""
    seconds, changes = reference
    result = Result(command.name, seconds, changes)
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    record = (workdir / "kills.jsonl").open("a")
    timeout = max(120.0, 20 * seconds)
    while result.kills < kills or result.cycles == 0:
        result.cycles += 1
        cycle = workdir / f"cycle-{result.cycles:03d}"
        out = cycle / "out"
        log = cycle / "output.log"
        cycle.mkdir(parents=True)
        memory: dict[str, Any] = {}
        cycle_kills = 0
        while True:
            plan = None
            if result.kills < kills:
                draw = rng.random()
                if draw < 1 / 3 or changes < 1:
                    plan = Kill("timer", rng.uniform(0.0, seconds), 0)
                elif draw < 2 / 3:
                    plan = Kill("write", 0.0, rng.randint(1, changes))
                else:  # early in a run, where starting and resuming write
                    early = math.exp(rng.uniform(0.0, math.log(changes + 1)))
                    plan = Kill("early-write", 0.0, max(1, int(early)))
            run = run_once(command.argv(out), out, log, plan, timeout)
            result.runs += 1
            line: dict[str, Any] = {"cycle": result.cycles, **asdict(run)}
            problems: list[str] = []
            if run.survivors:
                problems.append(f"processes {run.survivors} outlived the kill")
            if run.timed_out:
                problems.append(f"no end after {timeout:.0f} s")
            elif run.killed:
                result.kills += 1
                cycle_kills += 1
                assert run.trigger is not None
                by = result.kills_by_trigger
                by[run.trigger] = by.get(run.trigger, 0) + 1
                listing = command.listing(out)
                line["temporaries"] = listing.temporaries
                result.kills_leaving_temporaries += bool(listing.temporaries)
                torn = read_metrics_strict(out / "metrics.jsonl").torn
                result.kills_leaving_torn_metrics += torn
                line["torn_metrics"] = torn
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    problems += command.check_killed(out, ref, memory)
                # The kill came after the work (the rerun must then find it done).
                result.finished_before_kill += command.finished(out, ref)
            elif run.returncode != 0:
                problems.append(f"exit status {run.returncode} (see {log})")
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    problems += command.check_final(out, ref)
                left = command.listing(out).temporaries
                result.temporaries_left += len(left)
                line["temporaries_left"] = left
            line["problems"] = problems
            record.write(json.dumps(line) + "\n")
            record.flush()
            if problems:
                what = "kill" if run.killed else "finished run"
                result.failures += [
                    f"cycle {result.cycles}, run {result.runs} ({what}): {p}"
                    for p in problems
                ]
                say(f"{command.name}: cycle {result.cycles} FAILED: {problems[0]}")
                break
            if not run.killed:
                result.resumes_verified += cycle_kills
                say(
                    f"{command.name}: cycle {result.cycles} finished after "
                    f"{cycle_kills} kills ({result.kills}/{kills})"
                )
                break
        if len(result.failures) >= 20:
            say(f"{command.name}: too many failures, stopping")
            break
    record.close()
    result.seconds = time.monotonic() - started
    return result


# -- the campaign --------------------------------------------------------------


def plan_commands(
    workdir: Path, seed: int, names: Sequence[str]
) -> list[tuple[Command, Path, bool]]:
    """The four commands in pipeline order, each with its reference directory and
    whether it is under test (the others only feed those that are)."""
    ref = workdir / "reference"
    gendata = Gendata(seed=seed)
    shards = Shards(inputs=ref / "gendata")
    sl = TrainSL(data=ref / "shards", seed=seed)
    rl = TrainRL(init=ref / "sl" / "weights.pt", seed=seed)
    chain: list[Command] = [gendata, shards, sl, rl]
    last = max(COMMANDS.index(n) for n in names)
    return [(c, ref / c.name, c.name in names) for c in chain[: last + 1]]


def summary_table(results: Sequence[Result]) -> str:
    head = (
        "command",
        "cycles",
        "runs",
        "kills",
        "/".join(TRIGGERS),
        "after finish",
        "resumes verified",
        "tmp left",
        "failures",
    )
    rows = [head] + [
        (
            r.command,
            str(r.cycles),
            str(r.runs),
            str(r.kills),
            "/".join(str(r.kills_by_trigger.get(t, 0)) for t in TRIGGERS),
            str(r.finished_before_kill),
            str(r.resumes_verified),
            str(r.temporaries_left),
            str(len(r.failures)),
        )
        for r in results
    ]
    total = (
        "total",
        str(sum(r.cycles for r in results)),
        str(sum(r.runs for r in results)),
        str(sum(r.kills for r in results)),
        "",
        str(sum(r.finished_before_kill for r in results)),
        str(sum(r.resumes_verified for r in results)),
        str(sum(r.temporaries_left for r in results)),
        str(sum(len(r.failures) for r in results)),
    )
    rows.append(total)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True, help="empty or new")
    parser.add_argument("--kills", type=int, default=25, help="kills per command")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument(
        "--commands",
        default=",".join(COMMANDS),
        help=f"comma-separated, of {','.join(COMMANDS)} (default all)",
    )
    parser.add_argument(
        "--summary", type=Path, help="JSON (default WORKDIR/summary.json)"
    )
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.commands.split(",") if n.strip()]
    unknown = sorted(set(names) - set(COMMANDS))
    if unknown or not names:
        parser.error(f"unknown commands {unknown}; choose from {','.join(COMMANDS)}")
    if args.kills < 1:
        parser.error("--kills must be >= 1")
    workdir: Path = args.workdir.resolve()
    if workdir.exists() and any(workdir.iterdir()):
        parser.error(f"{workdir} is not empty")
    workdir.mkdir(parents=True, exist_ok=True)

    def say(text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)

    started = time.monotonic()
    results: list[Result] = []
    for command, ref, tested in plan_commands(workdir, args.seed, names):
        log = workdir / f"reference-{command.name}.log"
        reference = run_reference(command, ref, log)
        say(
            f"{command.name}: reference run in {reference[0]:.1f} s, "
            f"{reference[1]} changes of its directory"
        )
        if not tested:
            continue
        rng = random.Random(f"{args.seed}:{command.name}")
        result = campaign(
            command, ref, workdir / command.name, args.kills, rng, reference, say
        )
        results.append(result)
        say(f"{command.name}: {result.kills} kills, {len(result.failures)} failures")
    table = summary_table(results)
    wall = time.monotonic() - started
    print(table)
    print(f"wall time {wall:.0f} s")
    summary = {
        "argv": sys.argv if argv is None else list(argv),
        "seed": args.seed,
        "kills_per_command": args.kills,
        "wall_seconds": wall,
        "commands": [asdict(r) for r in results],
        "total_kills": sum(r.kills for r in results),
        "total_failures": sum(len(r.failures) for r in results),
    }
    path = args.summary or workdir / "summary.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if summary["total_failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
