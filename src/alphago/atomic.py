"""Atomic file writes: the whole new contents appear at the path, or nothing changes.

:func:`atomic_write` writes to a new temporary file beside the target, flushes and
fsyncs it, then renames it over the target (``os.replace``). A reader sees the old file
or the new one, never half of one; on any failure the temporary file is removed and
the target is untouched.

What the target may be: a regular file (replaced; it keeps its permission bits, as
``open(path, "w")`` would leave them) or a path that does not exist yet (created with
the mode the user's umask gives, ``0o666 & ~umask``, as ``open()`` creates files).
Symbolic links are followed, so the file a link points to is replaced and the link
stays. Anything else is refused with :class:`NotAFileError` before a byte is written:
renaming over a device (``/dev/null``, ``/dev/full``), a FIFO or a socket would replace
the special file with a regular one, and a directory cannot hold the data.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from typing import IO

__all__ = [
    "NotAFileError",
    "atomic_write",
    "atomic_write_bytes",
    "check_target",
    "check_writable",
    "remove_stale_temporaries",
]

PathLike = str | os.PathLike[str]

#: Longest target name kept in a temporary file's name (file names are limited to
#: 255 bytes on most file systems; the prefix and random suffix need room).
_NAME_KEPT = 200

#: A temporary file's name: ``.TARGET.PID.RANDOM.tmp`` (PID: the writing process).
_TEMPORARY = re.compile(r"^\..+\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


class NotAFileError(OSError):
    """The target of a write exists and is not a regular file (a directory, a
    device, a FIFO, a socket): writing there is refused. An OSError, so callers that
    report I/O failures report this one too; ``str()`` names the path."""

    def __init__(self, path: str, what: str) -> None:
        code = errno.EISDIR if what == "a directory" else errno.EINVAL
        super().__init__(
            code, f"{what}, not a regular file: refusing to write there", path
        )

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def check_target(path: PathLike) -> tuple[str, int | None]:
    """Where a write to ``path`` goes: (the real path, symbolic links resolved; the
    permission bits of the regular file there, or None where nothing exists yet).

    Raises:
        NotAFileError: ``path`` is a directory, a device, a FIFO, a socket or another
            special file (or a link to one).
    """
    name = os.fspath(path)
    if not name:
        raise FileNotFoundError(errno.ENOENT, "empty file name", name)
    real = os.path.realpath(name)
    if name.endswith(os.sep) or (os.altsep and name.endswith(os.altsep)):
        # "out/" names a directory even when nothing is there yet.
        raise NotAFileError(name, "a directory")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real, None
    if not stat.S_ISREG(st.st_mode):
        raise NotAFileError(name, _kind(st.st_mode))
    return real, stat.S_IMODE(st.st_mode)


def _create_temporary(real: str) -> tuple[int, str]:
    """A new file beside ``real``, opened for writing: (descriptor, path). The mode
    0o666 passes through the umask (and default ACLs), as ``open()`` does."""
    directory, base = os.path.split(real)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    name = f".{base[:_NAME_KEPT]}.{os.getpid()}"
    for _ in range(100):
        tmp = os.path.join(directory, f"{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
        except OSError as exc:
            # Name the file the caller asked for, not our temporary one.
            raise OSError(exc.errno, exc.strerror, real) from None
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def check_writable(path: PathLike) -> None:
    """Refuse now a ``path`` that :func:`atomic_write` could not write (a missing or
    read-only directory, a directory or device at ``path``), so that a command
    fails before its work rather than losing it at the end: a temporary file is
    created beside ``path`` and removed again; ``path`` itself is untouched.

    Raises:
        NotAFileError, OSError: as :func:`atomic_write` would.
    """
    real, _ = check_target(path)
    fd, tmp = _create_temporary(real)
    os.close(fd)
    os.unlink(tmp)


def atomic_write(path: PathLike, write: Callable[[IO[bytes]], None]) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then move it there.

    On any exception the temporary file is removed and ``path`` is untouched.

    Raises:
        NotAFileError: ``path`` exists and is not a regular file (checked before
            anything is written, and again just before the rename).
        OSError: the directory is missing or not writable, the disk is full, ...
    """
    real, mode = check_target(path)
    directory = os.path.dirname(real)
    fd, tmp = _create_temporary(real)
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), mode)  # an existing file keeps its mode
            write(f)
            f.flush()
            os.fsync(f.fileno())
        check_target(real)  # nothing special appeared there meanwhile
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # Make the rename itself durable where the platform allows it.
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write_bytes(path: PathLike, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""

    def write(f: IO[bytes]) -> None:
        f.write(data)

    atomic_write(path, write)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid < 2**22  # someone else's live process; an absurd pid is not one
    return True


def remove_stale_temporaries(directory: PathLike, min_age: float = 60.0) -> int:
    """Remove the temporary files that killed writers left in ``directory``; how many.

    A process killed mid-write (kill -9, power loss) leaves its temporary file: the
    target is intact, but the file takes disk space (a checkpoint's worth each time).
    Runs call this when they start or resume. A temporary counts as stale when the
    process named in it no longer exists here and it was last written ``min_age``
    seconds ago or more (a writer on another machine sharing the folder keeps
    writing, so its file stays young).
    """
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return 0
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is None or _alive(int(match["pid"])):
            continue
        with contextlib.suppress(OSError):
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= min_age:
                os.unlink(entry.path)
                removed += 1
    return removed
