"""scripts/ablation.py: variants differ only in their own flags, the table, and a
tiny end-to-end run that resumes instead of replaying."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from scripts_helpers import load_script

pytest.importorskip("torch")

ablation = load_script("ablation")
TINY = [
    "--size", "5", "--blocks", "1", "--filters", "8", "--games", "4",
    "--simulations", "8", "--updates", "2", "--eval-games", "2",
    "--eval-simulations", "4", "--scoring", "tromp-taylor", "--parallel", "1",
]  # fmt: skip


def test_variants_parse_and_bad_ones_are_refused() -> None:
    assert list(ablation.parse_variants(None)) == list(ablation.VARIANTS)
    got = ablation.parse_variants(["a=--search gumbel --simulations 16", "b="])
    assert got == {"a": ["--search", "gumbel", "--simulations", "16"], "b": []}
    for bad in (["noflags"], ["=x"], ["a=", "a=--x"], ["a/b=--x"]):
        with pytest.raises(ValueError, match="NAME=FLAGS"):
            ablation.parse_variants(bad)


def test_train_commands_differ_only_in_the_variant_flags(tmp_path: Path) -> None:
    ns = argparse.Namespace(
        size=9, init=None, blocks=2, filters=16, seed=3, max_iterations=50,
        games=8, simulations=32, updates=5, cpu_hours=0.25,
    )  # fmt: skip
    a = ablation.train_command(ns, tmp_path / "a", ["--search", "gumbel"])
    b = ablation.train_command(ns, tmp_path / "b", [])
    assert a[: a.index(str(tmp_path / "a"))] == b[: b.index(str(tmp_path / "b"))]
    assert a[-2:] == ["--search", "gumbel"] and a[len(b) :] == ["--search", "gumbel"]
    rest_a, rest_b = a[a.index("--size") :], b[b.index("--size") :]
    assert rest_a[: len(rest_b)] == rest_b
    flags = dict(zip(rest_b[::2], rest_b[1::2], strict=False))
    assert flags["--cpu-hours"] == "0.25" and flags["--workers"] == "1"
    assert flags["--threads"] == "1" and flags["--gate-games"] == "0"
    ns.init = "start.pt"
    c = ablation.train_command(ns, tmp_path / "c", [])
    assert "--init" in c and "--blocks" not in c


def test_a_tiny_ablation_runs_and_a_rerun_replays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "abl"
    variants = ["--variant", "base=--search puct", "--variant", "gum=--search gumbel"]
    argv = ["--out", str(out), "--cpu-hours", "0.0002", *TINY, *variants]
    assert ablation.main(argv) == 0
    report = json.loads((out / "ablation.json").read_text())
    rows = {r["name"]: r for r in report["rows"]}
    assert set(rows) == {"base", "gum"}
    for row in rows.values():
        assert row["iterations"] >= 1 and row["games"] == 4 * row["iterations"]
        # seconds / 3600 may round a hair below the budget it reached
        assert row["cpu_hours"] >= 0.0002 * (1 - 1e-9)
    assert "vs_baseline" not in rows["base"]
    match = json.loads((out / "gum" / "match-baseline.json").read_text())
    assert match["wins"] + match["ties"] + match["losses"] == 2
    assert rows["gum"]["vs_baseline"]["score"] == pytest.approx(
        (match["wins"] + 0.5 * match["ties"]) / 2
    )
    table = (out / "ablation.md").read_text()
    assert "| base | `--search puct` |" in table and "(baseline)" in table
    # A rerun keeps the finished match (a planted result is read back, not replayed)
    # and trains no further.
    planted = {"opponent": "baseline", "wins": 0, "ties": 2, "losses": 0}
    (out / "gum" / "match-baseline.json").write_text(json.dumps(planted))
    assert ablation.main(argv) == 0
    again = {
        r["name"]: r for r in json.loads((out / "ablation.json").read_text())["rows"]
    }
    assert again["gum"]["vs_baseline"]["score"] == 0.5
    assert again["base"]["iterations"] == rows["base"]["iterations"]


def test_jobs_train_side_by_side_and_a_failed_training_stops_before_the_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "abl"
    variants = ["--variant", "base=--search puct", "--variant", "bad=--no-such-flag"]
    argv = ["--out", str(out), "--cpu-hours", "0.0002", "--jobs", "2", *TINY, *variants]
    assert ablation.main(argv) == 1
    err = capsys.readouterr().err
    assert "training failed for bad" in err and "<variant>.log" in err
    # The failure stopped neither the other training nor left a half report.
    assert "--no-such-flag" in (out / "bad.log").read_text()
    assert (out / "base" / "checkpoint.pt").exists() and (out / "base.log").exists()
    assert not (out / "ablation.json").exists()
    assert ablation.main(["--out", str(out), "--jobs", "0", *TINY]) == 2


def test_match_engines_get_a_seed_per_game() -> None:
    ns = argparse.Namespace(size=5, eval_simulations=4)
    command = ablation.engine(ns, Path("/x/best.pt"))
    assert command.endswith("--seed {game}") and "--weights /x/best.pt" in command
