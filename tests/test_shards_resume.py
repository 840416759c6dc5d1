"""SGF files to shards: bad sizes refused up front, bad files skipped with one line,
and an interrupted run resumed by running it again (ending with exactly the shards of
an uninterrupted run)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from records_helpers import random_record

pytest.importorskip("torch")

from alphago.cli import main  # noqa: E402
from alphago.data import dataset  # noqa: E402
from alphago.data.dataset import DONE_FILE, PROGRESS_FILE, build_shards  # noqa: E402
from alphago.data.examples import Examples, load_shards  # noqa: E402
from alphago.data.gendata import GenConfig  # noqa: E402
from alphago.sgf import save_sgf  # noqa: E402

SIZE = 5


BASE64 = b"(;FF[4]GM[1]SZ[5]CA[base64]RE[B+R];B[cc];W[dd])"


@pytest.fixture
def sgf_dir(tmp_path: Path) -> Path:
    """Nine games of 5 to 13 moves, with bad files among them (in name order)."""
    out = tmp_path / "sgf"
    out.mkdir()
    for seed in range(9):
        save_sgf(random_record(seed, 5 + seed), out / f"g{seed}.sgf")
    (out / "g2b-base64.sgf").write_bytes(BASE64)
    (out / "g4b-malformed.sgf").write_text("(;GM[1]SZ[5];B[cc")
    save_sgf(random_record(3, 8), out / "g6b-duplicate.sgf")
    return out


class Stop(Exception):
    """Stands for Ctrl-C or a crash in the middle of a run."""


def _arrays(out: Path) -> list[tuple[str, bytes, bytes, bytes]]:
    """Each shard's name and contents."""
    result = []
    for path in sorted(out.glob("*.npz")):
        e = Examples.load(path)
        result.append(
            (path.name, e.planes.tobytes(), e.policy.tobytes(), e.value.tobytes())
        )
    return result


def _quiet_build(*args: object, **kwargs: object) -> tuple[tuple[int, int], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build_shards(*args, **kwargs)  # type: ignore[arg-type]
    return result, [str(w.message) for w in caught]


@pytest.fixture
def reference(sgf_dir: Path, tmp_path: Path) -> tuple[tuple[int, int], list[object]]:
    out = tmp_path / "reference"
    result, messages = _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    assert len(messages) == 3  # base64, malformed, duplicate: one line each
    assert any(
        "g2b-base64.sgf: skipped" in m and "text encoding" in m for m in messages
    )
    assert not (out / PROGRESS_FILE).exists()
    return result, list(_arrays(out))


@pytest.mark.parametrize("stop_after", [1, 3, 5, 8, 11])
def test_an_interrupted_run_resumes(
    sgf_dir: Path,
    tmp_path: Path,
    reference: tuple[tuple[int, int], list[object]],
    stop_after: int,
) -> None:
    out = tmp_path / "shards"

    def interrupt(done: int) -> None:
        if done == stop_after:
            raise Stop

    with pytest.raises(Stop):
        _quiet_build([sgf_dir], out, SIZE, shard_size=7, progress=interrupt)
    if (out / PROGRESS_FILE).exists():
        with pytest.raises(ValueError, match="unfinished"):
            load_shards([out])
    done: list[int] = []
    result, messages = _quiet_build(
        [sgf_dir], out, SIZE, shard_size=7, progress=done.append
    )
    assert done[-1] == 12 and done == sorted(done)
    assert (result, _arrays(out)) == (reference[0], reference[1])
    assert not (out / PROGRESS_FILE).exists()
    # Files read before the last shard of the first run are not read again.
    assert len(messages) <= 3


def test_a_crash_between_a_shard_and_its_progress_record(
    sgf_dir: Path,
    tmp_path: Path,
    reference: tuple[tuple[int, int], list[object]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "shards"
    real_save = dataset._Progress.save
    calls: list[int] = []

    def save_then_crash(self: dataset._Progress, path: Path) -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Stop  # the shard before it is on disk, its record is not
        real_save(self, path)

    monkeypatch.setattr(dataset._Progress, "save", save_then_crash)
    with pytest.raises(Stop):
        _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    monkeypatch.undo()
    assert len(list(out.glob("shard-*.npz"))) == 3  # one more than recorded
    result, _ = _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    assert (result, _arrays(out)) == (reference[0], reference[1])


def test_a_crash_while_writing_a_shard(
    sgf_dir: Path,
    tmp_path: Path,
    reference: tuple[tuple[int, int], list[object]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "shards"
    real_save = Examples.save
    calls: list[int] = []

    def crash_on_third(self: Examples, path: str | Path) -> None:
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        real_save(self, path)

    monkeypatch.setattr(Examples, "save", crash_on_third)
    with pytest.raises(OSError, match="disk full"):
        _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    monkeypatch.undo()
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([PROGRESS_FILE, "shard-00000.npz", "shard-00001.npz"])
    result, _ = _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    assert (result, _arrays(out)) == (reference[0], reference[1])


def _interrupted(sgf_dir: Path, out: Path) -> None:
    def interrupt(done: int) -> None:
        if done == 8:
            raise Stop

    with pytest.raises(Stop):
        _quiet_build([sgf_dir], out, SIZE, shard_size=7, progress=interrupt)
    assert (out / PROGRESS_FILE).exists()


def test_a_resume_with_other_settings_or_inputs_is_refused(
    sgf_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "shards"
    _interrupted(sgf_dir, out)
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(FileExistsError, match="unfinished run with other settings"):
        build_shards([sgf_dir], out, SIZE, shard_size=8)
    with pytest.raises(FileExistsError, match="other settings"):
        build_shards([sgf_dir], out, SIZE, kind="lz18", shard_size=7)
    save_sgf(random_record(99), sgf_dir / "g9-new.sgf")
    with pytest.raises(FileExistsError, match="other input files"):
        build_shards([sgf_dir], out, SIZE, shard_size=7)
    assert sorted(p.name for p in out.iterdir()) == before


def test_the_same_command_on_its_finished_directory_finds_the_work_done(
    sgf_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A kill after the last shard but before the process ended made the rerun fail
    # ("already holds shards"): every rerun must resume, and this one has nothing to do.
    out = tmp_path / "shards"
    counts, _ = _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert DONE_FILE in before and PROGRESS_FILE not in before
    assert build_shards([sgf_dir], out, SIZE, shard_size=7) == counts
    assert "already holds this run's shards" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_finished_directory_of_another_run_is_refused(
    sgf_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "shards"
    _quiet_build([sgf_dir], out, SIZE, shard_size=7)
    with pytest.raises(FileExistsError, match="already holds shards of another run"):
        build_shards([sgf_dir], out, SIZE, shard_size=5)
    (out / "shard-00000.npz").unlink()  # the record no longer matches the shards
    with pytest.raises(FileExistsError, match="already holds shards of another run"):
        build_shards([sgf_dir], out, SIZE, shard_size=7)
    (out / DONE_FILE).write_text("{not json")
    with pytest.raises(FileExistsError, match="already holds shards of another run"):
        build_shards([sgf_dir], out, SIZE, shard_size=7)


def test_a_damaged_progress_file_is_a_clear_error(
    sgf_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "shards"
    _interrupted(sgf_dir, out)
    (out / PROGRESS_FILE).write_bytes(b"garbage")
    with pytest.raises(ValueError, match="damaged progress file"):
        build_shards([sgf_dir], out, SIZE, shard_size=7)


def _no_endless_saving(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the old endless loop of empty shards into a failure, not a hang."""
    real_save = Examples.save
    calls: list[int] = []

    def save(self: Examples, path: str | Path) -> None:
        calls.append(1)
        if len(calls) > 50:
            raise AssertionError("shards without end")
        real_save(self, path)

    monkeypatch.setattr(Examples, "save", save)


@pytest.mark.parametrize(
    ("shard_size", "error"),
    [
        (0, ValueError),
        (-1, ValueError),
        (-50_000, ValueError),
        (True, TypeError),
        (2.5, TypeError),
        ("7", TypeError),
    ],
)
def test_bad_shard_sizes_are_refused_up_front(
    sgf_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shard_size: object,
    error: type[Exception],
) -> None:
    _no_endless_saving(monkeypatch)
    out = tmp_path / "shards"
    with pytest.raises(error, match="shard_size"):
        build_shards([sgf_dir], out, SIZE, shard_size=shard_size)  # type: ignore[arg-type]
    assert not out.exists()


@pytest.mark.parametrize(("size", "kind"), [(0, "agz17"), (20, "agz17"), (5, "x")])
def test_bad_sizes_and_kinds_are_refused_up_front(
    sgf_dir: Path, tmp_path: Path, size: int, kind: str
) -> None:
    out = tmp_path / "shards"
    with pytest.raises(ValueError):
        build_shards([sgf_dir], out, size, kind=kind)
    assert not out.exists()


@pytest.mark.parametrize("value", ["0", "-1", "x", "1e3"])
def test_cli_refuses_bad_shard_sizes(
    sgf_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    value: str,
) -> None:
    _no_endless_saving(monkeypatch)
    out = tmp_path / "shards"
    with pytest.raises(SystemExit) as info:
        main(["shards", str(sgf_dir), "--out", str(out), "--shard-size", value])
    assert info.value.code == 2
    assert "--shard-size" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "option",
    [
        ["--games", "-1"],
        ["--workers", "0"],
        ["--workers", "-3"],
        ["--top-k", "0"],
        ["--opening-plies", "-1"],
        ["--seed", "-1"],
        ["--komi", "nan"],
        ["--komi", "inf"],
    ],
)
def test_cli_refuses_bad_gendata_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["gendata", str(tmp_path / "games")] + option)
    assert info.value.code == 2
    assert option[0] in capsys.readouterr().err
    assert not (tmp_path / "games").exists()


@pytest.mark.parametrize(
    "bad",
    [
        {"games": 10**12},
        {"workers": 10**6},
        {"komi": float("nan")},
        {"komi": 1e400},
        {"opening_plies": 10**9},
        {"seed": -1},
        {"seed": 2**31 - 5, "games": 10},
        {"move_timeout": 0.0},
        {"move_timeout": float("nan")},
        {"games": 1.5},
        {"workers": True},
    ],
)
def test_gen_config_limits(bad: dict[str, object]) -> None:
    with pytest.raises((ValueError, TypeError)):
        GenConfig(**bad)  # type: ignore[arg-type]


def test_gendata_cli_refuses_absurd_counts_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Within argparse's lower bounds, beyond GenConfig's limits: one error line.
    games = tmp_path / "games"
    assert main(["gendata", str(games), "--games", str(10**12), "--gnugo", "x"]) == 1
    assert "games must be in" in capsys.readouterr().err


def test_cli_shards_skips_a_bad_encoding_with_one_line(
    sgf_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reference: tuple[tuple[int, int], list[object]],
) -> None:
    out = tmp_path / "shards"
    args = ["shards", str(sgf_dir), "--out", str(out), "--size", "5"]
    assert main(args + ["--shard-size", "7"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "g2b-base64.sgf" in line]
    assert len(lines) == 1 and lines[0].startswith("alphago shards: ")
    assert "Traceback" not in err
    assert not (out / PROGRESS_FILE).exists()
    assert len(load_shards([out])) == reference[0][1] == sum(5 + s for s in range(9))


def test_cli_shards_resumes(
    sgf_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reference: tuple[tuple[int, int], list[object]],
) -> None:
    out = tmp_path / "shards"
    args = ["shards", str(sgf_dir), "--out", str(out), "--size", "5"]
    args += ["--shard-size", "7"]
    real: Callable[..., tuple[int, int]] = dataset.build_shards

    def interrupted(*a: object, **k: object) -> tuple[int, int]:
        progress = k["progress"]
        assert callable(progress)

        def stop(done: int) -> None:
            progress(done)
            if done == 9:
                raise KeyboardInterrupt

        return real(*a, **dict(k, progress=stop))

    monkeypatch.setattr(dataset, "build_shards", interrupted)
    assert main(args) != 0
    monkeypatch.undo()
    assert (out / PROGRESS_FILE).exists()
    capsys.readouterr()
    assert main(args) == 0
    games, examples = reference[0]
    assert f"{games} games, {examples} examples" in capsys.readouterr().out
    assert _arrays(out) == reference[1]
