"""scripts/invariant_run.py: one round robin covers every size and rule set."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import goboard

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "invariant_run.py"


def test_one_round_covers_every_size_and_rule_set(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("invariant_run", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
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
