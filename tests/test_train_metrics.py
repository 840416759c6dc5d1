"""The training metrics log (JSONL, crash-tolerant) and the ``alphago report`` PNG."""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from alphago.train.metrics import MetricsLog, read_metrics
from alphago.train.report import (
    _PANELS,
    _panel_data,
    add_report_arguments,
    draw_report,
    panels,
    run_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _write_all_kinds(path: Path) -> None:
    """A small synthetic run with every known kind."""
    with MetricsLog(path) as log:
        for step in range(0, 50, 5):
            log.log(
                "train",
                step,
                loss=3.0 - step / 50,
                policy_loss=2.5 - step / 60,
                value_loss=0.5,
                l2=0.01,
                lr=0.01 if step < 25 else 0.001,
                kl=0.02,
                entropy=2.0,
                explained_variance=step / 100,
                lr_multiplier=1.0,
            )
        for step in (10, 30, 45):
            log.log(
                "validation",
                step,
                val_policy_loss=2.6,
                val_value_mse=0.3,
                val_accuracy=0.2 + step / 100,
            )
            log.log("selfplay", step, games=step, examples=step * 60, games_per_hour=9)
            for opponent, wr in (("gnugo", 0.3), ("random", 0.9)):
                log.log(
                    "eval",
                    step,
                    opponent=opponent,
                    wins=int(wr * 10),
                    losses=10 - int(wr * 10),
                    ties=0,
                    win_rate=wr,
                    elo=100.0 * wr,
                    elo_low=100.0 * wr - 50,
                    elo_high=100.0 * wr + 50,
                )
            log.log("gate", step, win_rate=0.6, accepted=step != 30)


# --- MetricsLog / read_metrics -------------------------------------------------------


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "run" / "metrics.jsonl"  # parents are created
    before = time.time()
    with MetricsLog(path) as log:
        log.log("train", 1, loss=1.5, lr=0.01)
        log.log("eval", 2, opponent="gnugo", wins=3, accepted=True, elo=None)
    assert log.closed
    records = read_metrics(path)
    assert [r["kind"] for r in records] == ["train", "eval"]
    assert records[0] == {
        "time": records[0]["time"],
        "kind": "train",
        "step": 1,
        "loss": 1.5,
        "lr": 0.01,
    }
    assert before <= records[0]["time"] <= records[1]["time"] <= time.time()
    assert records[1]["opponent"] == "gnugo" and records[1]["accepted"] is True
    assert records[1]["elo"] is None and records[1]["wins"] == 3
    # one object per line, each line complete
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line) for line in lines)


@pytest.mark.parametrize(
    "bad",
    [[1.0], {"a": 1}, (1, 2), np.zeros(3), np.float32(1.0) + 1j, object(), b"x"],
)
def test_unsupported_values_raise_before_writing(tmp_path: Path, bad: object) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log("train", 0, loss=1.0)
        with pytest.raises(TypeError):
            log.log("train", 1, loss=2.0, bad=bad)
        log.log("train", 2, loss=3.0)
    assert [r["step"] for r in read_metrics(path)] == [0, 2]


def test_kind_step_and_names_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        with pytest.raises(TypeError):
            log.log(3, 0)  # type: ignore[arg-type]  # the point of the test
        with pytest.raises(TypeError):
            log.log("train", 1.5)  # type: ignore[arg-type]  # the point of the test
        with pytest.raises(TypeError):
            log.log("train", True)
        with pytest.raises(ValueError, match="reserved"):
            log.log("train", 0, time=1.0)
        log.log("train", np.int64(7))  # type: ignore[arg-type]  # numpy ints pass
    with pytest.raises(ValueError, match="closed"):
        log.log("train", 8)
    records = read_metrics(path)
    assert len(records) == 1 and records[0]["step"] == 7
    assert type(records[0]["step"]) is int


def test_numpy_scalars_are_converted(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log(
            "train",
            0,
            f32=np.float32(0.5),
            f64=np.float64(0.25),
            i32=np.int32(-3),
            u8=np.uint8(200),
            flag=np.bool_(True),
            name=np.str_("gnugo"),
        )
    (r,) = read_metrics(path)
    assert r["f32"] == 0.5 and r["f64"] == 0.25
    assert r["i32"] == -3 and r["u8"] == 200 and type(r["u8"]) is int
    assert r["flag"] is True and r["name"] == "gnugo"


def test_nan_and_inf_are_written_as_null(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log(
            "eval",
            0,
            a=math.nan,
            b=math.inf,
            c=-math.inf,
            d=np.float32("nan"),
            e=np.float64("inf"),
        )
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    (r,) = read_metrics(path)
    assert [r[k] for k in "abcde"] == [None] * 5
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))


def test_reopening_appends(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log("train", 0, loss=2.0)
        log.log("train", 1, loss=1.9)
    with MetricsLog(path) as log:  # the run resumes
        log.log("train", 2, loss=1.8)
    assert [r["step"] for r in read_metrics(path)] == [0, 1, 2]


def test_corrupt_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log("train", 0, loss=2.0)
        log.log("train", 1, loss=1.9)
    full = path.read_bytes()
    path.write_bytes(full[: len(full) - 9])  # a crash in the middle of the last line
    with pytest.warns(RuntimeWarning, match=r"metrics.jsonl:2: .*corrupt last line"):
        records = read_metrics(path)
    assert [r["step"] for r in records] == [0]


def test_resuming_after_a_torn_line_drops_it(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log("train", 0, loss=2.0)
        log.log("train", 1, loss=1.9)
    full = path.read_bytes()
    path.write_bytes(full[: len(full) - 9])
    with pytest.warns(RuntimeWarning, match="torn last line"), MetricsLog(path) as log:
        log.log("train", 2, loss=1.8)
    # no corrupt line in the middle: the torn one was cut before appending
    assert [r["step"] for r in read_metrics(path)] == [0, 2]


def test_resuming_after_a_lost_newline_keeps_the_line(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    with MetricsLog(path) as log:
        log.log("train", 0, loss=2.0)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    with MetricsLog(path) as log:
        log.log("train", 1, loss=1.9)
    assert [r["step"] for r in read_metrics(path)] == [0, 1]


@pytest.mark.parametrize("bad", [b'{"kind": "train", "st', b"[1, 2]", b"\xff\xfe"])
def test_corrupt_middle_line_raises_with_its_number(tmp_path: Path, bad: bytes) -> None:
    path = tmp_path / "metrics.jsonl"
    good = b'{"time": 0, "kind": "train", "step": 0}'
    path.write_bytes(b"\n".join([good, b"", good, bad, good]) + b"\n")
    with pytest.raises(ValueError, match=r"metrics.jsonl:4: corrupt"):
        read_metrics(path)


def test_blank_lines_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text('\n{"kind": "gate", "step": 3}\n\n')
    assert read_metrics(path) == [{"kind": "gate", "step": 3}]
    with pytest.raises(FileNotFoundError):
        read_metrics(tmp_path / "missing.jsonl")


# --- report --------------------------------------------------------------------------

ALL_PANELS = [
    "Losses",
    "Accuracy",
    "KL divergence",
    "Learning rate",
    "Policy entropy",
    "Explained variance",
    "Win rate",
    "Elo",
]


def test_report_png_from_all_kinds(tmp_path: Path) -> None:
    import matplotlib.image

    metrics = tmp_path / "metrics.jsonl"
    _write_all_kinds(metrics)
    assert panels(read_metrics(metrics)) == ALL_PANELS
    out = draw_report(metrics, tmp_path / "out" / "report.png")
    assert out == tmp_path / "out" / "report.png"
    assert out.read_bytes()[:8] == PNG_MAGIC
    image = matplotlib.image.imread(out)
    # 2 columns x 4 rows of panels at 6 x 3.4 inches each, 100 dpi
    assert image.shape == (1360, 1200, 4)
    assert float(image[..., :3].std()) > 0.05  # something was drawn
    assert [p.name for p in out.parent.iterdir()] == ["report.png"]  # no temp left


def test_report_replaces_an_existing_png(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    _write_all_kinds(metrics)
    out = tmp_path / "report.png"
    out.write_bytes(b"old")
    draw_report(metrics, out)
    assert out.read_bytes()[:8] == PNG_MAGIC


def _records(*rows: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"time": 0.0, **row} for row in rows]


def test_panels_without_data_are_omitted() -> None:
    supervised = _records(
        {"kind": "train", "step": 0, "loss": 2.0, "policy_loss": 1.8, "lr": 0.1},
        {"kind": "validation", "step": 0, "val_accuracy": 0.3},
        {"kind": "selfplay", "step": 0, "games": 10},  # no panel of its own
    )
    assert panels(supervised) == ["Losses", "Accuracy", "Learning rate"]
    gate_only = _records({"kind": "gate", "step": 5, "win_rate": 0.55})
    assert panels(gate_only) == ["Win rate"]
    assert panels(_records({"kind": "selfplay", "step": 1, "games": 3})) == []


def test_null_and_nonpositive_values_are_no_data() -> None:
    rows = _records(
        # all NaN when logged: no loss panel; lr 0 cannot go on a log axis
        {"kind": "train", "step": 0, "loss": None, "lr": 0.0, "kl": None},
        # a 100% score has no finite Elo, but its win rate plots
        {"kind": "eval", "step": 0, "opponent": "x", "win_rate": 1.0, "elo": None},
    )
    assert panels(rows) == ["Win rate"]


def test_report_with_gaps_and_resumed_steps(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    with MetricsLog(metrics) as log:
        for step in range(10):
            log.log("train", step, loss=1.0 / (step + 1), lr=0.1)
        for step in range(5, 12):  # resumed from step 5: the later values win
            log.log("train", step, loss=math.nan if step == 7 else 0.1, lr=0.01)
        log.log("eval", 11, opponent="best", win_rate=1.0, elo=math.inf)
        log.log("eval", 11, opponent="best2", win_rate=0.5, elo=0.0)
    out = draw_report(metrics, tmp_path / "r.png")
    records = read_metrics(metrics)
    assert panels(records) == ["Losses", "Learning rate", "Win rate", "Elo"]
    (loss,) = dict(_panel_data(records))[_PANELS[0]]
    assert loss.steps == list(range(12))
    assert loss.values[:5] == [1.0 / (s + 1) for s in range(5)]
    assert math.isnan(loss.values[7])
    assert loss.values[5:7] + loss.values[8:] == [0.1] * 6
    (elo,) = dict(_panel_data(records))[_PANELS[-1]]
    assert elo.label == "best2"  # the infinite Elo was logged as null: no series
    assert out.read_bytes()[:8] == PNG_MAGIC


def test_report_of_an_empty_log_raises(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    MetricsLog(metrics).close()
    with pytest.raises(ValueError, match="no metrics"):
        draw_report(metrics, tmp_path / "report.png")
    only_selfplay = tmp_path / "selfplay.jsonl"
    with MetricsLog(only_selfplay) as log:
        log.log("selfplay", 0, games=1)
    with pytest.raises(ValueError, match="no metrics to plot"):
        draw_report(only_selfplay, tmp_path / "report.png")
    assert not (tmp_path / "report.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "metrics.jsonl",
        "selfplay.jsonl",
    ]


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="alphago report")
    add_report_arguments(parser)
    return parser.parse_args(argv)


def test_run_report_on_a_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_all_kinds(tmp_path / "metrics.jsonl")
    assert run_report(_parse([str(tmp_path)])) == 0
    out = tmp_path / "report.png"
    assert capsys.readouterr().out.strip() == str(out)
    assert out.read_bytes()[:8] == PNG_MAGIC


def test_run_report_on_a_file_with_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = tmp_path / "logs" / "sl.jsonl"
    _write_all_kinds(metrics)
    out = tmp_path / "plots" / "sl.png"
    assert run_report(_parse([str(metrics), "--out", str(out)])) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.read_bytes()[:8] == PNG_MAGIC
    # without --out the PNG goes beside the file
    assert run_report(_parse([str(metrics)])) == 0
    assert (metrics.parent / "report.png").is_file()


def test_run_report_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_report(_parse([str(tmp_path)])) == 2  # a directory without the log
    assert "no metrics file" in capsys.readouterr().err
    assert run_report(_parse([str(tmp_path / "nope.jsonl")])) == 2
    assert "nope.jsonl" in capsys.readouterr().err
    MetricsLog(tmp_path / "metrics.jsonl").close()
    assert run_report(_parse([str(tmp_path)])) == 1  # empty log
    captured = capsys.readouterr()
    assert "no metrics" in captured.err and captured.out == ""
    assert not (tmp_path / "report.png").exists()


def test_importing_the_report_module_does_not_import_matplotlib() -> None:
    import subprocess
    import sys

    code = (
        "import sys, alphago.train.report, alphago.train.metrics; "
        "assert 'matplotlib' not in sys.modules; "
        "assert 'numpy' not in sys.modules; "
        "assert 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
