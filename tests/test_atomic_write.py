"""Atomic writes: only regular files or new paths are written; special files are
refused before anything is written; new files get the mode the umask gives.

Special files are made under the test's temporary directory (a FIFO, a socket, a
character device when running as root), never by writing at ``/dev``: a regression
there would replace the system's device node.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from gtp_helpers import fails, make_engine, ok

from alphago import sgf
from alphago.atomic import (
    NotAFileError,
    atomic_write,
    atomic_write_bytes,
    check_target,
    remove_stale_temporaries,
)


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0o027])
def test_new_files_get_the_umask_mode(tmp_path: Path, mask: int) -> None:
    path = tmp_path / "new.bin"
    with umask(mask):
        atomic_write_bytes(path, b"data")
        expected = 0o666 & ~mask
        with open(tmp_path / "by_open.bin", "wb"):
            pass
    assert path.read_bytes() == b"data"
    assert _mode(path) == expected == _mode(tmp_path / "by_open.bin")


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "old.bin"
    path.write_bytes(b"old")
    path.chmod(0o640)
    with umask(0o077):
        atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new"
    assert _mode(path) == 0o640


def _special_files(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(path, what) of special files made here: a directory, a FIFO, a socket and,
    as root, a character device (the numbers of /dev/null)."""
    directory = tmp_path / "dir"
    directory.mkdir()
    yield directory, "a directory"
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        yield fifo, "a FIFO"
    if hasattr(socket, "AF_UNIX"):
        sock_path = tmp_path / "sock"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(sock_path))
            yield sock_path, "a socket"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        device = tmp_path / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        yield device, "a character device"


def test_special_files_are_refused_before_writing(tmp_path: Path) -> None:
    seen = 0
    calls: list[int] = []

    def write(f: IO[bytes]) -> None:
        calls.append(1)
        f.write(b"data")

    for path, what in _special_files(tmp_path):
        seen += 1
        before = path.lstat()
        with pytest.raises(NotAFileError, match=f"{what}, not a regular file") as info:
            atomic_write(path, write)
        assert str(path) in str(info.value)
        assert isinstance(info.value, OSError)
        assert calls == []
        after = path.lstat()
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
        link = tmp_path / f"link-to-{path.name}"
        link.symlink_to(path)
        with pytest.raises(NotAFileError, match=what):
            atomic_write_bytes(link, b"data")
        assert link.is_symlink()
    assert seen >= 2
    # Nothing else was left behind (no temporary files).
    names = sorted(p.name for p in tmp_path.iterdir())
    assert all(not n.startswith(".") for n in names), names


def test_system_devices_are_refused() -> None:
    # Only the check, never a write at /dev (see the module docstring).
    for device in ("/dev/null", "/dev/full"):
        if os.path.exists(device):
            with pytest.raises(NotAFileError, match="a character device"):
                check_target(device)


def test_a_trailing_slash_names_a_directory(tmp_path: Path) -> None:
    with pytest.raises(NotAFileError, match="a directory"):
        atomic_write_bytes(f"{tmp_path / 'new'}{os.sep}", b"data")
    assert not (tmp_path / "new").exists()


def test_links_are_followed_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_bytes(b"old")
    target.chmod(0o604)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write_bytes(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert _mode(target) == 0o604
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "created.txt")
    atomic_write_bytes(dangling, b"made")
    assert dangling.is_symlink() and (tmp_path / "created.txt").read_bytes() == b"made"


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "file.bin"
    path.write_bytes(b"old")

    def broken(f: IO[bytes]) -> None:
        f.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(path, broken)
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["file.bin"]


def test_long_names_still_get_a_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / ("n" * 250)
    atomic_write_bytes(path, b"data")
    assert path.read_bytes() == b"data"


def test_save_sgf_refuses_special_files(tmp_path: Path) -> None:
    record = sgf.GameRecord(size=9)
    for path, what in _special_files(tmp_path):
        with pytest.raises(NotAFileError, match=what):
            sgf.save_sgf(record, path)
    new = tmp_path / "game.sgf"
    with umask(0o022):
        sgf.save_sgf(record, new)
    assert _mode(new) == 0o644
    assert sgf.read_sgf(new.read_bytes()).size == 9


def test_gtp_printsgf_answers_an_error_for_special_files(tmp_path: Path) -> None:
    engine = make_engine(size=5)
    ok(engine, "play b C3")
    for path, what in _special_files(tmp_path):
        before = path.lstat()
        message = fails(engine, f"printsgf {path}")
        assert "cannot save file" in message and what in message
        after = path.lstat()
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    ok(engine, f"printsgf {tmp_path / 'game.sgf'}")
    assert sgf.read_sgf((tmp_path / "game.sgf").read_bytes()).moves


def dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    gone, old = dead_pid(), 1_000_000_000.0  # a 2001 mtime
    stale = tmp_path / f".checkpoint.pt.{gone}.0123abcd.tmp"
    live = tmp_path / f".checkpoint.pt.{os.getpid()}.89abcdef.tmp"  # being written
    young = tmp_path / f".weights.pt.{gone}.fedcba98.tmp"  # another machine's, say
    others = [tmp_path / n for n in ("checkpoint.pt", ".hidden", "x.1.0123abcd.tmp")]
    for path in (stale, live, young, *others):
        path.write_bytes(b"x")
    for path in (stale, live, *others):
        os.utime(path, (old, old))
    assert remove_stale_temporaries(tmp_path) == 1
    assert not stale.exists()
    assert live.exists() and young.exists() and all(p.exists() for p in others)
    assert remove_stale_temporaries(tmp_path / "missing") == 0


def test_temporaries_name_their_writer(tmp_path: Path) -> None:
    seen: list[str] = []

    def write(f: IO[bytes]) -> None:
        seen.extend(p.name for p in tmp_path.iterdir())
        f.write(b"data")

    atomic_write(tmp_path / "weights.pt", write)
    assert len(seen) == 1 and seen[0].startswith(f".weights.pt.{os.getpid()}.")
    assert remove_stale_temporaries(tmp_path, min_age=0) == 0  # we are alive


def test_a_resumed_command_clears_what_a_killed_one_left(tmp_path: Path) -> None:
    from alphago.data.dataset import build_shards

    left = tmp_path / f".shard-00000.npz.{dead_pid()}.0123abcd.tmp"
    left.write_bytes(b"half a shard")
    os.utime(left, (1_000_000_000.0, 1_000_000_000.0))
    build_shards([], tmp_path)
    assert not left.exists()
