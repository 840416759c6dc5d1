"""``alphago.train.checkpoint.open_run``: how every training command opens its run."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from alphago.train.checkpoint import (
    FORMAT,
    load_checkpoint,
    open_run,
    save_checkpoint,
)


def test_a_new_run_is_made_and_has_no_state(tmp_path: Path) -> None:
    run, path, state = open_run(tmp_path / "a" / "run", "sl", "supervised run")
    assert run.is_dir() and path == run / "checkpoint.pt"
    assert state is None and not path.exists()


def test_a_run_of_its_kind_resumes(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "settings.pt", {"kind": "value2016", "step": 7})
    run, path, state = open_run(tmp_path, "value2016", "value run", "settings.pt")
    assert (run, path) == (tmp_path, tmp_path / "settings.pt")
    assert state is not None and state["step"] == 7


@pytest.mark.parametrize("stored", ["rollout", None])
def test_another_kind_of_run_is_refused_and_kept(
    tmp_path: Path, stored: str | None
) -> None:
    path = tmp_path / "checkpoint.pt"
    save_checkpoint(path, {"kind": stored, "step": 3})
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"checkpoint\.pt is not a supervised run's"):
        open_run(tmp_path, "sl", "supervised run's checkpoint")
    assert path.read_bytes() == before
    assert load_checkpoint(path)["step"] == 3


def test_a_damaged_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a checkpoint") as caught:
        open_run(tmp_path, "sl", "supervised run's checkpoint")
    # Not torch's long story about pickled objects: garbage is named as such.
    assert "not a torch zip archive" in str(caught.value)
    assert "pickled" not in str(caught.value)


class _Payload:
    """Not plain data: a weights-only load must refuse it."""


def test_a_checkpoint_carrying_objects_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.pt"
    torch.save({"format": FORMAT, "kind": "sl", "x": _Payload()}, path)
    with pytest.raises(ValueError, match="refusing to load pickled objects"):
        open_run(tmp_path, "sl", "supervised run's checkpoint")
