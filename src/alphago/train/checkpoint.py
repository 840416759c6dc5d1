"""Checkpoints: everything a training run needs to continue, written atomically.

A checkpoint is one torch file (``RUN/checkpoint.pt``) holding plain data and tensors
only, so it loads with ``weights_only=True`` (no pickled code runs on load): the
learner's state (weights, optimiser, step, learning-rate multiplier), the run's
configuration, the random states (numpy, Python, torch) and counters, plus the git
revision of the code that wrote it and the time. Bulk data a run keeps (the self-play
replay window) lives beside it in its own atomically written file.

A checkpoint records how many lines ``metrics.jsonl`` had when it was written; on
resume the lines after those (logged by the work the crash lost, which is done again)
are dropped, so that the log reads as one uninterrupted run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import random
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..atomic import remove_stale_temporaries
from ..nets.weights import atomic_write_bytes, open_regular
from .metrics import read_metrics

__all__ = [
    "checkpoint_entries",
    "FORMAT",
    "git_revision",
    "load_checkpoint",
    "metrics_lines",
    "open_run",
    "random_states",
    "restore_random_states",
    "resume_learner",
    "save_checkpoint",
    "truncate_metrics",
]

FORMAT = "alphago.checkpoint/1"


def git_revision() -> str:
    """The git commit of the code (with ``-dirty`` for local changes), or "unknown"."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=40"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def random_states(rng: np.random.Generator) -> dict[str, Any]:
    """The states of ``rng``, Python's ``random`` and torch's CPU generator."""
    return {
        "numpy": json.dumps(rng.bit_generator.state),
        "python": json.dumps(random.getstate()),
        "torch": torch.get_rng_state(),
    }


def restore_random_states(states: dict[str, Any]) -> np.random.Generator:
    """Restore Python's and torch's generators; returns the numpy generator.

    Raises:
        ValueError: ``states`` is not :func:`random_states`' output; no generator
            is changed.
    """
    try:
        version, internal, gauss = json.loads(states["python"])
        python = (version, tuple(internal), gauss)
        random.Random().setstate(python)  # checks it
        torch_state = states["torch"]
        torch.Generator().set_state(torch_state)  # checks it
        rng = np.random.default_rng()
        rng.bit_generator.state = json.loads(states["numpy"])
    except (KeyError, TypeError, ValueError, RuntimeError, OverflowError) as exc:
        raise ValueError(f"not the random states of a checkpoint ({exc})") from None
    random.setstate(python)
    torch.set_rng_state(torch_state)
    return rng


def save_checkpoint(path: str | os.PathLike[str], state: dict[str, Any]) -> None:
    """Write ``state`` (plain data and tensors) with the format tag, git revision and
    time, atomically."""
    payload = dict(
        state, format=FORMAT, git_revision=git_revision(), saved_at=time.time()
    )
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    atomic_write_bytes(path, buffer.getbuffer())


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a checkpoint.

    Raises:
        ValueError: not a checkpoint (a damaged or truncated one included), or one
            carrying pickled objects other than tensors and plain data.
        OSError: the file cannot be opened or read.
    """
    with open_regular(path) as f:
        data = f.read()
    # torch reads a file that is no zip archive as a bare pickle and then reports
    # any garbage as "pickled objects": say what it is instead.
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ValueError(f"{path}: not a checkpoint (not a torch zip archive)")
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise ValueError(f"{path}: refusing to load pickled objects ({exc})") from exc
    except Exception as exc:  # a damaged file can fail anywhere in the unpickler
        raise ValueError(f"{path}: not a checkpoint ({exc!r})") from exc
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{path}: not a checkpoint of format {FORMAT!r}")
    return payload


def open_run(
    run_dir: str | os.PathLike[str], kind: str, what: str, name: str = "checkpoint.pt"
) -> tuple[Path, Path, dict[str, Any] | None]:
    """(the run directory, made if new and cleared of a killed run's temporaries;
    its file ``name``; that file loaded, or None when the run is new). A file of
    another kind of run is a ValueError: "PATH is not a WHAT"."""
    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(run)
    path = run / name
    if not path.exists():
        return run, path, None
    state = load_checkpoint(path)
    if state.get("kind") != kind:
        raise ValueError(f"{path} is not a {what}")
    return run, path, state


@contextlib.contextmanager
def checkpoint_entries(path: str | os.PathLike[str]) -> Iterator[None]:
    """Around the reading of a loaded checkpoint's entries: one missing or of the
    wrong type (a file of ours that was damaged, or crafted) is a ValueError naming
    the file, as for any other bad checkpoint, not a KeyError from deep inside."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        kind = type(exc).__name__
        raise ValueError(f"{path}: a damaged checkpoint ({kind}: {exc})") from None


def resume_learner(
    run: Path,
    state: dict[str, Any] | None,
    entry: str,
    load: Callable[[dict[str, Any]], None],
    seed: int,
) -> np.random.Generator:
    """Where a run's learner goes on from; returns the run's random stream.

    With a checkpoint's ``state`` (loaded from ``RUN/checkpoint.pt``): ``load`` gets
    its ``entry`` (the learner's or trainer's state), ``metrics.jsonl`` keeps the
    lines the checkpoint had seen and the stream comes back. Without one: a new
    stream from ``seed``, and the lines of a run killed before its first checkpoint
    are dropped (that work is done, and logged, again)."""
    metrics = run / "metrics.jsonl"
    if state is None:
        truncate_metrics(metrics, 0)
        return np.random.default_rng(seed)
    with checkpoint_entries(run / "checkpoint.pt"):
        saved, saved_random = state[entry], state["random"]
        lines = int(state["metrics_lines"])
    load(saved)
    truncate_metrics(metrics, lines)
    return restore_random_states(saved_random)


def metrics_lines(path: str | os.PathLike[str]) -> int:
    """How many records ``path`` holds (0 if it does not exist)."""
    return len(read_metrics(path)) if Path(path).exists() else 0


def truncate_metrics(path: str | os.PathLike[str], keep: int) -> int:
    """Keep the first ``keep`` records of ``path`` (atomically); returns how many
    were dropped."""
    target = Path(path)
    if not target.exists():
        return 0
    records = read_metrics(target)
    kept = records[:keep]
    if len(kept) == len(records):
        return 0
    text = "".join(json.dumps(r, allow_nan=False) + "\n" for r in kept)
    atomic_write_bytes(target, text.encode())
    return len(records) - len(kept)
