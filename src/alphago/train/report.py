"""``alphago report``: one PNG of a training run's metrics log, panels against ``step``.

The panels (each drawn only when the log has data for it):

- Losses: ``loss``, ``policy_loss``, ``value_loss`` (train), ``val_policy_loss``,
  ``val_value_mse`` (validation).
- Auxiliary losses (KataGo's targets, when a run has them): ``ownership_loss``,
  ``score_loss`` (train), ``val_ownership_loss``, ``val_score_loss`` (validation).
- Accuracy: ``val_accuracy``.
- KL divergence: ``kl``.  Learning rate: ``lr`` and ``lr_multiplier`` (log scale).
- Policy entropy: ``entropy``.  Explained variance: ``explained_variance``.
- Win rate: ``eval`` lines, one series per opponent; ``gate`` lines as their own series,
  accepted candidates marked.
- Value MSE by training games: ``data_curve`` lines (``alphago train value``), train
  and held-out MSE against ``games``, the number of training games.
- Elo: ``eval`` lines, one series per opponent, with the ``elo_low..elo_high`` band.

A series keeps, per step, the last value logged for it (a run resumed from an earlier
checkpoint redraws the overlapping steps), sorted by step. Null values (NaN or infinite
when logged) leave gaps. matplotlib is imported only while drawing, through its Agg
canvas and without pyplot, so importing this module (as ``alphago --help`` does) is
cheap and drawing needs no display.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alphago.atomic import atomic_write
from alphago.train.metrics import read_metrics

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["add_report_arguments", "draw_report", "panels", "run_report"]

METRICS_FILE = "metrics.jsonl"
REPORT_FILE = "report.png"


@dataclass(frozen=True, slots=True)
class _Field:
    """Where a panel's series come from: ``field`` of the records of ``kind``."""

    kind: str
    field: str
    label: str  # the series label; with group_by, a prefix to the group's name
    group_by: str | None = None  # one series per value of this field (eval opponent)
    band: tuple[str, str] | None = None  # low/high fields shaded around the series
    mark: str | None = None  # a bool field; its True points are marked


@dataclass(frozen=True, slots=True)
class _Panel:
    title: str
    fields: tuple[_Field, ...]
    log_y: bool = False
    ylim: tuple[float, float] | None = None
    hline: float | None = None  # a reference level (even odds, zero)
    x: str = "step"  # the records' field on the x axis


_PANELS: tuple[_Panel, ...] = (
    _Panel(
        "Losses",
        (
            _Field("train", "loss", "loss"),
            _Field("train", "policy_loss", "policy_loss"),
            _Field("train", "value_loss", "value_loss"),
            _Field("validation", "val_policy_loss", "val_policy_loss"),
            _Field("validation", "val_value_mse", "val_value_mse"),
        ),
    ),
    _Panel(
        "Auxiliary losses",
        (
            _Field("train", "ownership_loss", "ownership_loss"),
            _Field("train", "score_loss", "score_loss"),
            _Field("validation", "val_ownership_loss", "val_ownership_loss"),
            _Field("validation", "val_score_loss", "val_score_loss"),
        ),
    ),
    _Panel(
        "Accuracy",
        (_Field("validation", "val_accuracy", "val_accuracy"),),
        ylim=(0.0, 1.0),
    ),
    _Panel("KL divergence", (_Field("train", "kl", "kl"),)),
    _Panel(
        "Learning rate",
        (
            _Field("train", "lr", "lr"),
            _Field("train", "lr_multiplier", "lr_multiplier"),
        ),
        log_y=True,
    ),
    _Panel("Policy entropy", (_Field("train", "entropy", "entropy"),)),
    _Panel(
        "Explained variance",
        (_Field("train", "explained_variance", "explained_variance"),),
        hline=0.0,
    ),
    _Panel(
        "Win rate",
        (
            _Field("eval", "win_rate", "", group_by="opponent"),
            _Field("gate", "win_rate", "gate", mark="accepted"),
        ),
        ylim=(0.0, 1.0),
        hline=0.5,
    ),
    _Panel(
        "Value MSE by training games",
        (
            _Field("data_curve", "train_value_mse", "train_value_mse"),
            _Field("data_curve", "val_value_mse", "val_value_mse"),
            _Field("data_curve", "best_val_value_mse", "best_val_value_mse"),
        ),
        x="games",
    ),
    _Panel(
        "Elo",
        (_Field("eval", "elo", "", group_by="opponent", band=("elo_low", "elo_high")),),
        hline=0.0,
    ),
)


@dataclass(slots=True)
class _Series:
    label: str
    steps: list[float]
    values: list[float]  # NaN where missing
    low: list[float] | None = None
    high: list[float] | None = None
    marked: list[bool] | None = None


def _number(value: object, positive: bool) -> float:
    """A plottable float, or NaN for null, non-numbers and (on log axes) values <= 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    f = float(value)
    if not math.isfinite(f) or (positive and f <= 0):
        return math.nan
    return f


def _series(
    records: Sequence[Mapping[str, Any]], field: _Field, log_y: bool, x: str = "step"
) -> list[_Series]:
    """The series of one field, one per group, each sorted by step (or by the field
    ``x``; last value wins)."""
    groups: dict[str, dict[float, Mapping[str, Any]]] = {}
    for r in records:
        step = r.get(x)
        if r.get("kind") != field.kind or field.field not in r:
            continue
        if isinstance(step, bool) or not isinstance(step, int | float):
            continue
        name = field.label
        if field.group_by is not None:
            name = f"{field.label}{r.get(field.group_by, '?')}"
        groups.setdefault(name, {})[float(step)] = r
    out = []
    for name, by_step in groups.items():
        steps = sorted(by_step)
        rows = [by_step[s] for s in steps]
        s = _Series(name, steps, [_number(r[field.field], log_y) for r in rows])
        if all(math.isnan(v) for v in s.values):
            continue
        if field.band is not None:
            lo, hi = field.band
            s.low = [_number(r.get(lo), log_y) for r in rows]
            s.high = [_number(r.get(hi), log_y) for r in rows]
        if field.mark is not None:
            s.marked = [r.get(field.mark) is True for r in rows]
        out.append(s)
    return out


def _panel_data(
    records: Sequence[Mapping[str, Any]],
) -> list[tuple[_Panel, list[_Series]]]:
    """The panels that have data, in display order, with their series."""
    out = []
    for panel in _PANELS:
        series = [
            s for f in panel.fields for s in _series(records, f, panel.log_y, panel.x)
        ]
        if series:
            out.append((panel, series))
    return out


def panels(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The titles of the panels ``draw_report`` would draw for ``records``, in order."""
    return [panel.title for panel, _ in _panel_data(records)]


def _draw_panel(ax: Axes, panel: _Panel, series: list[_Series]) -> None:
    for s in series:
        marker = "o" if len(s.steps) < 30 else None
        (line,) = ax.plot(s.steps, s.values, label=s.label, marker=marker, ms=3)
        if s.low is not None and s.high is not None:
            ax.fill_between(s.steps, s.low, s.high, color=line.get_color(), alpha=0.2)
        if s.marked is not None and any(s.marked):
            xs = [x for x, m in zip(s.steps, s.marked, strict=True) if m]
            ys = [y for y, m in zip(s.values, s.marked, strict=True) if m]
            ax.plot(
                xs, ys, "*", ms=10, color=line.get_color(), label=f"{s.label} accepted"
            )
    if panel.hline is not None:
        ax.axhline(panel.hline, color="0.6", lw=0.8, ls="--")
    if panel.log_y:
        ax.set_yscale("log")
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
    ax.set_title(panel.title)
    ax.set_xlabel(panel.x)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")


def draw_report(
    metrics_path: str | os.PathLike[str], out_png: str | os.PathLike[str]
) -> Path:
    """Draw the metrics log at ``metrics_path`` into the PNG ``out_png``.

    The PNG is written to a temporary file beside ``out_png`` and renamed over it, so a
    viewer never sees half a file.

    Returns:
        ``out_png`` as a Path.

    Raises:
        FileNotFoundError: no file at ``metrics_path``.
        ValueError: the log has no records, or none that any panel plots (or a corrupt
            line, see ``read_metrics``).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    metrics_path = Path(metrics_path)
    records = read_metrics(metrics_path)
    if not records:
        raise ValueError(f"no metrics in {metrics_path}")
    data = _panel_data(records)
    if not data:
        kinds = sorted({str(r.get("kind")) for r in records})
        raise ValueError(f"no metrics to plot in {metrics_path} (kinds: {kinds})")

    cols = 2 if len(data) > 1 else 1
    rows = math.ceil(len(data) / cols)
    fig = Figure(figsize=(6.0 * cols, 3.4 * rows), layout="constrained")
    FigureCanvasAgg(fig)
    fig.suptitle(str(metrics_path))
    axes = fig.subplots(rows, cols, squeeze=False)
    for i, (panel, series) in enumerate(data):
        _draw_panel(axes[i // cols][i % cols], panel, series)
    for j in range(len(data), rows * cols):
        axes[j // cols][j % cols].set_visible(False)

    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, lambda f: fig.savefig(f, format="png", dpi=100))
    return out


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``alphago report`` arguments (``RUN``, ``--out FILE``) to ``parser``."""
    parser.add_argument(
        "run",
        metavar="RUN",
        help=f"a run directory holding {METRICS_FILE}, or a .jsonl metrics file",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help=f"the PNG to write (default: {REPORT_FILE} in the run directory)",
    )


def run_report(args: argparse.Namespace) -> int:
    """``alphago report``: draw ``args.run``'s metrics to a PNG, print its path.

    Returns:
        0 on success; 2 when there is no metrics file (message on stderr); 1 when the
        log cannot be plotted (empty, nothing plottable, corrupt).
    """
    run = Path(args.run)
    metrics = run / METRICS_FILE if run.is_dir() else run
    run_dir = run if run.is_dir() else run.parent
    if not metrics.is_file():
        print(f"alphago report: no metrics file {metrics}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out is not None else run_dir / REPORT_FILE
    try:
        written = draw_report(metrics, out)
    except ValueError as e:
        print(f"alphago report: {e}", file=sys.stderr)
        return 1
    print(written)
    return 0
