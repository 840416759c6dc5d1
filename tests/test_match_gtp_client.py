"""The subprocess GTP client: answers, failures, timeouts, shutdown, stderr."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from match_fakes import fake_engine

from alphago.match import EngineDied, EngineStopped, EngineTimeout, GTPClient, GTPError


def test_answers_and_errors(tmp_path: Path) -> None:
    with GTPClient(fake_engine(tmp_path, "pass"), timeout=10) as engine:
        assert engine.alive()
        assert engine.send("name") == "fake-pass"
        assert engine.send("protocol_version") == "2"
        assert engine.send("genmove b") == "pass"
        assert engine.send("multi") == "first\nsecond"  # id stripped, lines kept
        assert engine.send("chatter") == ""  # text outside an answer is skipped
        with pytest.raises(GTPError, match="unknown command"):
            engine.send("frobnicate")
        with pytest.raises(ValueError, match="one line"):
            engine.send("name\nname")
        assert engine.send("version") == "1.0"  # still in step after the errors
    assert not engine.alive()
    assert engine.close() == ""  # twice is fine


def test_crash_is_engine_died_and_stderr_is_kept(tmp_path: Path) -> None:
    engine = GTPClient(fake_engine(tmp_path, "crash"), timeout=10)
    with pytest.raises(EngineDied, match="exit code 3"):
        engine.send("genmove b")
    with pytest.raises(EngineDied):
        engine.send("name")
    assert "boom: fake crash" in engine.close()


@pytest.mark.parametrize(
    ("mode", "how"), [("sigterm", "killed by signal 15"), ("exit143", "exit code 143")]
)
def test_an_engine_stopped_from_outside_is_told_apart(
    tmp_path: Path, mode: str, how: str
) -> None:
    engine = GTPClient(fake_engine(tmp_path, mode), timeout=10)
    with pytest.raises(EngineStopped, match=how):
        engine.send("genmove b")
    engine.close()


def test_a_crash_or_our_own_kill_is_not_a_stop(tmp_path: Path) -> None:
    crash = GTPClient(fake_engine(tmp_path, "crash"), timeout=10)
    with pytest.raises(EngineDied) as died:
        crash.send("genmove b")
    assert not isinstance(died.value, EngineStopped)
    crash.close()
    slow = GTPClient(fake_engine(tmp_path, "slow"), timeout=60)
    killer = threading.Timer(0.3, slow.kill)  # SIGKILL: how a timed-out engine ends
    killer.start()
    with pytest.raises(EngineDied) as died:
        slow.send("genmove b")
    killer.join()
    assert not isinstance(died.value, EngineStopped)
    slow.close()


def test_timeout_then_close_kills(tmp_path: Path) -> None:
    engine = GTPClient(fake_engine(tmp_path, "slow"), timeout=10)
    with pytest.raises(EngineTimeout):
        engine.send("genmove b", timeout=0.3)
    with pytest.raises(EngineTimeout, match="earlier command"):
        engine.send("name")  # a late answer must not pair with a new command
    engine.close(timeout=0.5)  # the engine is busy sleeping: terminated
    assert not engine.alive()


def test_kill_from_another_thread_ends_a_waiting_command(tmp_path: Path) -> None:
    engine = GTPClient(fake_engine(tmp_path, "slow"), timeout=60)
    killer = threading.Timer(0.3, engine.kill)  # as an interrupted caller does
    killer.start()
    with pytest.raises(EngineDied, match="killed by signal"):
        engine.send("genmove b")  # the engine sleeps 30 s before answering
    killer.join()
    engine.close()
    assert not engine.alive()


def test_missing_program() -> None:
    with pytest.raises(EngineDied, match="cannot start"):
        GTPClient("/nonexistent/engine --mode gtp")
    with pytest.raises(ValueError, match="empty"):
        GTPClient("  ")


def test_argument_list(tmp_path: Path) -> None:
    fake_engine(tmp_path, "pass")
    argv = [sys.executable, str(tmp_path / "fake_gtp_engine.py"), "pass"]
    with GTPClient(argv) as engine:
        assert engine.send("name") == "fake-pass"
