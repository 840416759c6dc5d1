"""The training metrics log: one JSON object per line (JSONL), appended as a run goes.

Every part of training (the supervised learner, the self-play learner, self-play
workers, evaluation matches, the gate) writes its numbers through ``MetricsLog`` into
one file per run, ``RUN/metrics.jsonl``; ``alphago report`` (``alphago.train.report``)
draws it. Appending line by line, fsync'd, means a crash loses at most the line being
written, a resumed run keeps its history, and ``tail -f`` shows progress live.

Every line is ``{"time": <unix seconds>, "kind": <str>, "step": <int>, ...metrics}``.
``step`` is the learner's update count (the x axis of every plot), also on lines that
other processes write (self-play, evaluation): they log the step of the network they
used. A value is a JSON number, string, bool or null; NaN and infinities are written
as null (e.g. the Elo of a 100% score).

Known kinds and their fields (the report plots these; more fields are allowed):

==============  ========================================================================
kind            fields
==============  ========================================================================
``train``       ``loss``, ``policy_loss``, ``value_loss``, ``l2``, ``lr``: one line per
                learner update or per N updates. Self-play (RL) training adds ``kl``
                (policy change of the update), ``entropy`` (of the policy),
                ``explained_variance`` (of the value head), ``lr_multiplier``.
``validation``  ``val_policy_loss``, ``val_value_mse``, ``val_accuracy`` (top-1 move
                agreement) on held-out data.
``selfplay``    ``games``, ``moves``, ``examples`` (totals so far; fewer examples than
                moves with playout cap randomisation), ``games_per_hour``.
``eval``        ``opponent`` (str, a name), ``wins``, ``losses``, ``ties``, ``win_rate``
                (ties count half), ``elo``, ``elo_low``, ``elo_high`` (the confidence
                interval, see ``alphago.match.elo_estimate``).
``gate``        ``win_rate`` (candidate against the current best), ``accepted`` (bool).
``data``        ``games``, ``examples``, ``skipped``, ``train_examples``,
                ``val_examples``: what a rollout-policy run (``train rollout``) read.
==============  ========================================================================
"""

from __future__ import annotations

import json
import math
import os
import time
import warnings
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

__all__ = ["MetricsLog", "read_metrics"]

#: JSON-compatible value of one metric.
MetricValue = float | int | str | bool | None

_RESERVED = frozenset({"time", "kind", "step"})


def _json_value(name: str, value: object) -> MetricValue:
    """``value`` as a plain JSON value (numpy scalars unwrapped, NaN/inf -> None)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)  # a numpy str_ becomes a plain str
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    import numpy as np  # only reached for values that are not builtins

    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    raise TypeError(
        f"metric {name!r}: {type(value).__name__} is not a JSON number, string, "
        "bool or None (call .item() on tensors and 0-d arrays)"
    )


def _repair_tail(path: Path) -> None:
    """Make ``path`` end at a line boundary before a resumed run appends to it.

    A crash mid-write leaves a last line without its newline; appending after it would
    glue the next record onto it and turn a harmless torn last line into a corrupt
    middle line. A torn line that is still a whole JSON object gets its newline back;
    any other torn line is cut off (with a warning: it was unreadable anyway).
    """
    with path.open("r+b") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        f.seek(max(0, size - (1 << 20)))  # a metrics line is far shorter than 1 MiB
        chunk = f.read()
        start = size - len(chunk) + chunk.rfind(b"\n") + 1
        tail = chunk[chunk.rfind(b"\n") + 1 :]
        try:
            whole = isinstance(json.loads(tail), dict)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError
            whole = False
        if whole:
            f.write(b"\n")
        else:
            warnings.warn(
                f"{path}: dropping a torn last line ({len(tail)} bytes) before "
                "appending",
                RuntimeWarning,
                stacklevel=3,
            )
            f.truncate(start)
        f.flush()
        os.fsync(f.fileno())


class MetricsLog:
    """Appends metric records to a JSONL file, one fsync'd line per ``log`` call.

    ``MetricsLog(path)`` creates ``path`` and its parent directories, or reopens an
    existing log to append to it (lines already there are kept: runs resume). One
    writer per file: concurrent writers would need one file each. The fsync per line
    costs about a millisecond, so log every update only while updates are slower
    than that (otherwise every N updates).

    Example::

        with MetricsLog(run_dir / "metrics.jsonl") as log:
            log.log("train", step, loss=loss.item(), lr=lr)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            _repair_tail(self.path)
        self._file: BinaryIO | None = self.path.open("ab")

    def log(self, kind: str, step: int, **metrics: object) -> None:
        """Append ``{"time", "kind", "step", **metrics}`` as one line and fsync it.

        Args:
            kind: the record kind (``"train"``, ``"eval"``, ... see the module doc).
            step: the learner update count the record belongs to (an int, numpy ints
                accepted).
            **metrics: the values; JSON numbers, strings, bools or None, numpy scalars
                accepted; NaN and infinities are written as null.

        Raises:
            TypeError: ``kind`` is not a str, ``step`` not an int, or a value is of
                another type (a list, an array, a tensor); nothing is written.
            ValueError: the log is closed, or a metric is named ``time``.
        """
        if self._file is None:
            raise ValueError(f"{self.path}: metrics log is closed")
        if not isinstance(kind, str):
            raise TypeError(f"kind must be a str, not {type(kind).__name__}")
        step_value = _json_value("step", step)
        if not isinstance(step_value, int) or isinstance(step_value, bool):
            raise TypeError(f"step must be an int, not {type(step).__name__}")
        clash = _RESERVED.intersection(metrics)
        if clash:
            raise ValueError(f"metric names reserved for the record: {sorted(clash)}")
        record: dict[str, MetricValue] = {
            "time": time.time(),
            "kind": kind,
            "step": step_value,
        }
        for name, value in metrics.items():
            record[name] = _json_value(name, value)
        line = json.dumps(record, allow_nan=False) + "\n"
        self._file.write(line.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called."""
        return self._file is None

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> MetricsLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"MetricsLog({str(self.path)!r}, {state})"


def read_metrics(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a metrics log, in file order.

    Blank lines are ignored. A last line that is not a JSON object (a crash while it
    was being written) is skipped with a ``RuntimeWarning``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: a line other than the last is not a JSON object; the message names
            the file and the 1-based line number.
    """
    path = Path(path)
    lines = path.read_bytes().split(b"\n")
    numbered = [(i + 1, line) for i, line in enumerate(lines) if line.strip()]
    records: list[dict[str, Any]] = []
    for pos, (lineno, line) in enumerate(numbered):
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError(f"a JSON {type(record).__name__}, not an object")
        except ValueError as e:  # JSONDecodeError and UnicodeDecodeError too
            if pos == len(numbered) - 1:
                warnings.warn(
                    f"{path}:{lineno}: skipping a corrupt last line (an interrupted "
                    f"write?): {e}",
                    RuntimeWarning,
                    stacklevel=2,
                )
                break
            raise ValueError(f"{path}:{lineno}: corrupt metrics line: {e}") from e
        records.append(record)
    return records
