"""goboard and search without torch; the alphago command without its extra."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import search
from alphago import cli

BLOCK_TORCH = "import sys; sys.modules['torch'] = None; sys.modules['sgfmill'] = None; "


def test_goboard_and_search_import_without_torch() -> None:
    code = BLOCK_TORCH + (
        "import goboard, search; b = goboard.Board(5); "
        "r = search.UCT(b, search.UCTConfig(num_simulations=8), rng=1).search(); "
        "print(int(r.visits.sum()), 'torch' in sys.modules and sys.modules['torch'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["8", "None"]


def test_search_never_imports_alphago_or_torch() -> None:
    root = Path(search.__file__).parent
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top not in ("torch", "alphago"), f"{path.name} imports {name}"


def test_alphago_without_its_extra_prints_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "torch" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert cli.main(["gtp"]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.splitlines()
    assert len(lines) == 1 and 'pip install "goboard-engine[alphago]"' in lines[0]
    assert "torch" in lines[0] and "Traceback" not in out.err
