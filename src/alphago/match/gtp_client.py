"""A GTP client for engines running as subprocesses (the controller side of GTP).

One :class:`GTPClient` owns one engine process: the command line is split with
:func:`shlex.split` (no shell), commands go to its stdin, a reader thread collects its
stdout lines into a queue so that every command can wait with a timeout, and its stderr
goes to an unnamed temporary file (a pipe nobody reads could fill up and block the
engine) which :meth:`GTPClient.close` returns.

Failures are exceptions, so the game loop can charge them to the engine:

- :class:`GTPError`: the engine answered ``? message`` (a refusal, not a crash).
- :class:`EngineTimeout`: no complete answer within the timeout.
- :class:`EngineDied`: the process exited, or could not be started.
- :class:`EngineStopped`, a kind of EngineDied: someone stopped the process (a signal
  from outside), which is not the engine's fault: the game loop must not charge it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import IO

__all__ = [
    "EngineDied",
    "EngineFailure",
    "EngineStopped",
    "EngineTimeout",
    "GTPClient",
    "GTPError",
]

#: Bytes of an engine's stderr kept by :meth:`GTPClient.close` (the tail).
STDERR_TAIL = 4000


class EngineFailure(Exception):
    """An engine broke the protocol: it died or did not answer in time."""


class EngineDied(EngineFailure):
    """The engine process exited (or never started)."""


class EngineStopped(EngineDied):
    """The engine was stopped from outside: ended by SIGHUP, SIGINT or SIGTERM (a
    closing terminal, Ctrl-C, which reaches every process of the terminal, ``kill``),
    or exited with the status a shell reports for those (128 + the signal's number),
    as programs that turn them into an orderly exit do (``alphago`` among them).
    SIGKILL is not among them: :meth:`GTPClient.kill` ends a timed-out engine with it.
    """


#: Signals that mean "stop" from outside rather than a crash.
STOP_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)


class EngineTimeout(EngineFailure):
    """The engine did not answer within the timeout."""


class GTPError(Exception):
    """The engine answered a command with a GTP failure (``? message``)."""


class GTPClient:
    """Drive one GTP engine process.

    Args:
        command: The engine's command line, a string (split like a POSIX shell would,
            without running one) or an argument list.
        timeout: Default seconds to wait for each answer.
        cwd: Working directory of the engine.

    Raises:
        EngineDied: The program could not be started.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        timeout: float = 30.0,
        cwd: str | None = None,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("empty engine command")
        self.argv = argv
        self.timeout = timeout
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                cwd=cwd,
            )
        except OSError as exc:
            self._stderr.close()
            raise EngineDied(f"cannot start {argv[0]!r}: {exc}") from exc
        self._lines: queue.Queue[str | None] = queue.Queue()
        assert self._proc.stdout is not None
        self._reader = threading.Thread(
            target=_read_lines, args=(self._proc.stdout, self._lines), daemon=True
        )
        self._reader.start()
        self._closed = False
        # After a timeout a late answer would pair with the next command: the client
        # refuses further commands and close() does not wait for a polite quit.
        self._out_of_step = False
        self.stderr_text = ""

    @property
    def pid(self) -> int:
        """Process id of the engine."""
        return self._proc.pid

    def alive(self) -> bool:
        """Whether the engine process is still running."""
        return self._proc.poll() is None

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command and return the answer's text (without ``=`` and id).

        Raises:
            GTPError: The engine answered ``? message``.
            EngineTimeout: No full answer within ``timeout`` (default: the client's).
            EngineDied: The engine exited before answering.
            ValueError: The command contains a newline.
        """
        if "\n" in command or "\r" in command:
            raise ValueError(f"a GTP command is one line: {command!r}")
        if self._closed:
            raise EngineDied("the engine was closed")
        if self._out_of_step:
            raise EngineTimeout("the engine did not answer an earlier command")
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(command.encode() + b"\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise self._died() from exc
        try:
            ok, text = self._read_answer(self.timeout if timeout is None else timeout)
        except EngineTimeout:
            self._out_of_step = True
            raise
        if not ok:
            raise GTPError(text)
        return text

    def _read_answer(self, timeout: float) -> tuple[bool, str]:
        """Collect lines up to the blank line that ends an answer."""
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeout(f"no answer within {timeout:g} s")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                raise EngineTimeout(f"no answer within {timeout:g} s") from None
            if line is None:
                self._lines.put(None)  # later reads see the end too
                raise self._died()
            line = line.replace("\t", " ").rstrip()
            if not lines and not line:
                continue  # blank lines between answers
            if not lines and line[:1] not in ("=", "?"):
                continue  # chatter outside an answer; GTP engines should not, some do
            if not line:
                break
            lines.append(line)
        first = lines[0]
        ok = first[0] == "="
        head = first[1:].lstrip("0123456789").strip()
        text = "\n".join([head, *lines[1:]]).strip()
        return ok, text

    def _died(self) -> EngineDied:
        """The exception for an engine that is gone: EngineStopped when a stop signal
        ended it, else EngineDied."""
        # Give the process a moment to be reaped so the exit code is known.
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=1.0)
        code = self._proc.poll()
        stops = {-int(s) for s in STOP_SIGNALS} | {128 + int(s) for s in STOP_SIGNALS}
        kind = EngineStopped if code in stops else EngineDied
        return kind(f"engine exited ({self._exit_text()})")

    def _exit_text(self) -> str:
        code = self._proc.poll()
        if code is None:
            return "still running"
        if code < 0:
            return f"killed by signal {-code}"
        return f"exit code {code}"

    def kill(self) -> None:
        """End the engine process at once; safe from any thread. A command waiting for
        its answer fails with EngineDied, and ``close()`` still tidies up after it."""
        with contextlib.suppress(OSError):
            self._proc.kill()

    def close(self, timeout: float = 2.0) -> str:
        """Ask the engine to quit, make sure it is gone, return its stderr's tail.

        Sends ``quit`` (if the engine is alive and not stuck on an earlier command),
        waits ``timeout`` seconds, then terminates and finally kills it. Safe to call
        twice.
        """
        if self._closed:
            return self.stderr_text
        if self.alive() and not self._out_of_step:
            with contextlib.suppress(EngineFailure, GTPError, ValueError):
                self.send("quit", timeout=timeout)
        self._closed = True
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        try:
            self._proc.wait(timeout=0.0 if self._out_of_step else timeout)
        except subprocess.TimeoutExpired:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=timeout)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self.stderr_text = _tail(self._stderr)
        self._stderr.close()
        return self.stderr_text

    def __enter__(self) -> GTPClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_lines(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    """Reader thread: decoded stdout lines, then None at end of file."""
    try:
        for raw in stream:
            lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    lines.put(None)


def _tail(file: IO[bytes]) -> str:
    size = file.seek(0, os.SEEK_END)
    file.seek(max(0, size - STDERR_TAIL))
    return file.read().decode("utf-8", errors="replace")
