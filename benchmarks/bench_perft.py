"""Perft: leaves of the legal-move tree (pass included), timed and checked.

Each case is read by name from ``tests/data/perft.json`` (position = its GTP ``moves``
from the empty board under its ``ko``/``suicide`` rules) and the returned leaf count is
asserted against the pinned ``leaves``, so this is a correctness check as well as a
benchmark. A case missing from the file is skipped, never guessed. Rate: leaves/s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import goboard

PERFT_JSON = Path(__file__).resolve().parent.parent / "tests" / "data" / "perft.json"
CASES = [
    "5x5-empty",  # depth 3
    "9x9-empty",  # depth 2
    "9x9-middle",  # depth 2
    "9x9-middle-depth3",
    "19x19-empty",  # depth 2
]

pytestmark = pytest.mark.benchmark(group="perft")


def load_case(name):
    if not PERFT_JSON.exists():
        pytest.skip(f"{PERFT_JSON} does not exist (pinned perft counts)")
    cases = {case["name"]: case for case in json.loads(PERFT_JSON.read_text())["cases"]}
    if name not in cases:
        pytest.skip(f"perft case {name!r} is not pinned in {PERFT_JSON.name}")
    return cases[name]


@pytest.mark.parametrize("name", CASES)
def test_perft(bench, name):
    case = load_case(name)
    rules = goboard.Rules(ko=case["ko"], suicide=case["suicide"])
    board = goboard.Board(case["size"], rules=rules)
    for vertex in case["moves"]:
        board.play_gtp(vertex)
    leaves = bench(goboard.perft, board, case["depth"])
    assert leaves == case["leaves"]
    bench.rates(leaves=leaves)
