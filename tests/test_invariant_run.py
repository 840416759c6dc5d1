"""scripts/invariant_run.py: one round robin covers every size and rule set."""

from __future__ import annotations

import json
from pathlib import Path

from scripts_helpers import load_script

import goboard


def test_one_round_covers_every_size_and_rule_set(tmp_path: Path) -> None:
    module = load_script("invariant_run")
    out = tmp_path / "summary.json"
    assert module.main(["--moves", "1", "--seed", "3", "--out", str(out)]) == 0
    summary = json.loads(out.read_text())
    sizes = range(goboard.MIN_SIZE, goboard.MAX_SIZE + 1)
    assert len(summary["per_case"]) == len(sizes) * 6
    assert all(case["games"] == 1 for case in summary["per_case"].values())
    totals = summary["totals"]
    assert (
        totals["moves"] > 0 and totals["refusals"] > 0 and totals["playout_moves"] > 0
    )
    assert totals["moves"] == sum(c["moves"] for c in summary["per_case"].values())
