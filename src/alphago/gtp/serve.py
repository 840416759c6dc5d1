"""The GTP loop: read commands from a stream, write responses to another.

A reader thread reads lines and queues the non-empty ones, setting a ``stop`` event
for each, and for a bare newline too (KataGo's analysis stops on one, and tools send
it to stop a stream); comment lines do nothing. The main thread runs one command at a
time. An analysis stream runs until ``stop`` is set, so it ends as soon as the next
command line has arrived, and its closing empty line is written before that command's
response. An engine made with ``ponder=True`` searches on after a ``genmove`` that
played a move, while no command waits, stopped the same way. End of input ends the
loop, as does ``quit``. Lines longer than
:data:`protocol.MAX_LINE` are refused with an error response instead of being
buffered.
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import TextIO

from .engine import Engine
from .protocol import MAX_LINE, error, preprocess

__all__ = ["serve"]

_TOO_LONG = "\x00too long"


def _reader(
    stdin: TextIO,
    lines: queue.Queue[str | None],
    lock: threading.Lock,
    stop: threading.Event,
) -> None:
    def push(item: str | None) -> None:
        with lock:
            lines.put(item)
            stop.set()

    try:
        while True:
            line = stdin.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE and not line.endswith("\n"):
                while True:  # drop the rest of the line
                    rest = stdin.readline(MAX_LINE)
                    if not rest or rest.endswith("\n"):
                        break
                push(_TOO_LONG)
                continue
            if preprocess(line):
                push(line)
            elif not line.strip():
                stop.set()  # a bare newline ends an analysis stream, as in KataGo
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    finally:
        push(None)


def serve(
    engine: Engine, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> None:
    """Run ``engine`` on ``stdin``/``stdout`` (default: the process's) until ``quit``
    or end of input."""
    src = sys.stdin if stdin is None else stdin
    dst = sys.stdout if stdout is None else stdout
    lines: queue.Queue[str | None] = queue.Queue()
    lock = threading.Lock()
    stop = threading.Event()
    reader = threading.Thread(
        target=_reader, args=(src, lines, lock, stop), name="gtp-reader", daemon=True
    )
    reader.start()
    broken = threading.Event()

    def write(text: str) -> None:
        if broken.is_set():
            return
        try:
            dst.write(text)
            dst.flush()
        except (OSError, ValueError):
            broken.set()
            stop.set()

    while not broken.is_set():
        line = lines.get()
        if line is None:
            break
        with lock:
            if lines.empty():
                stop.clear()
        if line == _TOO_LONG:
            write(error("", "line too long"))
            continue
        engine.ponder_pending = False
        engine.execute(line, write, stop, wait=True)
        if engine.quit_requested:
            break
        if engine.ponder_pending:
            with lock:
                idle = lines.empty()
                if idle:
                    stop.clear()  # the next line sets it again and ends the search
            if idle:
                engine.ponder(stop)
