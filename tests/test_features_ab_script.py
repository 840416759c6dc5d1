"""scripts/features_ab.py: two builds of the plane writers timed in one process."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scripts_helpers import load_script

import goboard

ab = load_script("features_ab")
INSTALLED = Path(goboard.__file__).parent


def pro_games_or_skip() -> None:
    if not any(ab.PRO_GAMES.glob("*.sgf")) and not any(ab.PRO_GAMES.glob("*.mgt")):
        pytest.skip(f"no professional games in {ab.PRO_GAMES} (goban-original-games)")


def build_folder(root: Path) -> Path:
    """A folder holding a copy of the installed (built) goboard package."""
    shutil.copytree(INSTALLED, root / "goboard")
    return root


def test_one_build_against_itself(tmp_path: Path, capsys) -> None:
    pro_games_or_skip()
    a = build_folder(tmp_path / "a")
    b = build_folder(tmp_path / "b")
    assert ab.main([str(a), str(b), "--rounds", "3", "--boards", "8"]) == 0
    out = capsys.readouterr().out
    assert "alphago48 float32, 8 boards, 3 rounds" in out
    assert "B/A time, paired: " in out and "planes: the same" in out
    assert not any(m.startswith("goboard_") for m in sys.modules)  # a rerun reloads


def test_positions_replay_the_same_moves_in_each_build() -> None:
    pro_games_or_skip()
    boards = ab.pro_positions(goboard, 16)
    assert len(boards) == 16 and all(b.size == 19 for b in boards)
    assert all(61 <= b.move_number <= 169 for b in boards)
    again = ab.pro_positions(goboard, 16)
    for x, y in zip(boards, again, strict=True):
        np.testing.assert_array_equal(x.stones(), y.stones())
    with pytest.raises(ValueError, match="positions in"):
        ab.pro_positions(goboard, 10**6)


def test_different_planes_and_the_ratio_are_reported() -> None:
    pro_games_or_skip()

    def off_by_one(boards, kind, out):
        goboard.features_batch(boards, kind, out)
        out[0, 0, 0, 0] = 1 - out[0, 0, 0, 0]
        return out

    other = SimpleNamespace(
        Board=goboard.Board,
        BLACK=goboard.BLACK,
        feature_planes=goboard.feature_planes,
        features_batch=off_by_one,
    )
    r = ab.compare({"a": goboard, "b": other}, "agz17", 2, 4, np.float32)
    assert r["same"] is False
    assert r["us_a"] > 0 and r["us_b"] > 0 and r["q25"] <= r["ratio"] <= r["q75"]


def test_folders_without_a_built_package_are_refused(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert ab.main([str(empty), str(empty)]) == 2
    assert "holds no goboard package" in capsys.readouterr().err
    unbuilt = tmp_path / "unbuilt" / "goboard"
    unbuilt.mkdir(parents=True)
    (unbuilt / "__init__.py").write_text("")
    assert ab.main([str(unbuilt.parent), str(unbuilt.parent)]) == 2
    assert "is not built" in capsys.readouterr().err
    assert ab.main([str(empty), str(empty), "--rounds", "0"]) == 2
    assert "--rounds and --boards must be >= 1" in capsys.readouterr().err
