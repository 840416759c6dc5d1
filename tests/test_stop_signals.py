"""Stopping a run: an interrupted ``run_jobs`` ends its worker processes at once, and
SIGTERM ends ``alphago`` as an exception (status 143) so that such cleanup runs."""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from alphago.cli import _exit_on_signal, _sigterm_exits
from alphago.train.workers import _stop_now, run_jobs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _job(marker: str, games: int, *_rest: object) -> int:
    """A run_jobs task: the one-game job returns at once, the other takes long
    enough that only a worker left running could finish it and leave ``marker``."""
    if games > 1:
        time.sleep(30)
        Path(marker).write_text("played out")
    return games


def test_an_interrupted_run_ends_its_workers(tmp_path: Path) -> None:
    marker = tmp_path / "finished"
    # Children of earlier tests in this process (pytest-xdist workers run many) are
    # not this run's.
    before = {p.pid for p in multiprocessing.active_children()}

    def interrupt(done: int) -> None:
        raise KeyboardInterrupt  # as Ctrl-C, or SIGTERM made an exception

    # Three games over two workers: jobs of 2 and 1 games.
    with pytest.raises(KeyboardInterrupt):
        run_jobs(_job, (str(marker),), 3, seed=0, workers=2, progress=interrupt)
    # The workers are dead when run_jobs returns; the executor's thread may take a
    # moment to record it. A worker left playing its 30 s job would still be here.
    for _ in range(100):
        if {p.pid for p in multiprocessing.active_children()} <= before:
            break
        time.sleep(0.1)
    assert {p.pid for p in multiprocessing.active_children()} <= before
    assert not marker.exists()  # the long job was stopped, not waited for


def test_stopping_a_pool_before_any_worker_started_returns() -> None:
    # An interruption during the first submit finds no worker to end.
    pool = ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    stopper = threading.Thread(target=_stop_now, args=(pool,), daemon=True)
    stopper.start()
    stopper.join(timeout=30)
    assert not stopper.is_alive()


def test_sigterm_handler_raises_system_exit_143() -> None:
    with pytest.raises(SystemExit) as exc:
        _exit_on_signal(signal.SIGTERM, None)
    assert exc.value.code == 143


def test_sigterm_handler_is_put_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with _sigterm_exits():
        assert signal.getsignal(signal.SIGTERM) is _exit_on_signal
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigterm_ends_the_gtp_engine_with_status_143() -> None:
    code = "import sys; from alphago.cli import main; sys.exit(main())"
    with subprocess.Popen(
        [sys.executable, "-c", code, "gtp", "--size", "9", "--uct"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as engine:
        try:
            assert engine.stdin is not None and engine.stdout is not None
            engine.stdin.write("name\n")
            engine.stdin.flush()
            assert engine.stdout.readline().startswith("= ")  # reading commands
            engine.send_signal(signal.SIGTERM)
            assert engine.wait(timeout=60) == 143  # the default action gives -15
        finally:
            engine.kill()
