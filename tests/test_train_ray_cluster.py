"""``alphago train rl --ray ADDRESS`` on a cluster started the way users start one.

``ray start --head`` in its own process, a second ``ray start --address ...`` joining
it (two nodes of one CPU each on this machine, all on the loopback address), then the
``alphago`` command in a third process with the head's address, as README's Training
section says. Both ``ray start`` run with ``--block`` so the test stops exactly the
processes it started (``ray stop`` would stop every Ray on the machine). Ray's token
authentication is on, with the token in the environment as a cluster's users set it.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

RAY = Path(sys.executable).with_name("ray")
pytestmark = pytest.mark.skipif(not RAY.exists(), reason="no ray command")

TINY = ["--size", "5", "--blocks", "1", "--filters", "8", "--iterations", "1"]
TINY += ["--games", "2", "--simulations", "4", "--parallel-games", "1"]
TINY += ["--updates", "2", "--epochs", "1", "--batch", "8", "--gate-games", "2"]
TINY += ["--eval-simulations", "2", "--baseline-every", "0", "--workers", "2"]
TINY += ["--threads", "1", "--no-progress", "--seed", "4"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(32),
        RAY_USAGE_STATS_ENABLED="0",
        PYTHONUNBUFFERED="1",
    )
    return env


def _nodes(address: str, env: dict[str, str]) -> int:
    code = (
        f"import ray; ray.init(address={address!r}, log_to_driver=False); "
        "print(sum(1 for n in ray.nodes() if n['Alive']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return int(done.stdout.split()[-1]) if done.returncode == 0 else 0


@pytest.fixture
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    env = _env()
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # socket paths must stay short
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--block"]
    common += ["--disable-usage-stats"]
    started: list[subprocess.Popen[bytes]] = []
    try:
        head = [
            str(RAY),
            "start",
            "--head",
            f"--port={port}",
            "--include-dashboard=false",
        ]
        started.append(
            subprocess.Popen(
                head + [f"--temp-dir={temp}"] + common,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        deadline = time.monotonic() + 60
        while _nodes(address, env) < 1:
            assert time.monotonic() < deadline, "the head node did not start"
            assert started[0].poll() is None, "ray start --head exited"
            time.sleep(1)
        started.append(
            subprocess.Popen(
                [str(RAY), "start", f"--address={address}"] + common,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        while _nodes(address, env) < 2:
            assert time.monotonic() < deadline, "the second node did not join"
            assert started[1].poll() is None, "ray start --address exited"
            time.sleep(1)
        yield address, env
    finally:
        for proc in reversed(started):  # --block: SIGTERM stops that node's daemons
            proc.terminate()
        for proc in reversed(started):
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(temp, ignore_errors=True)


def test_train_rl_on_a_two_node_cluster(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    address, env = cluster
    run = tmp_path / "rl"
    command = [sys.executable, "-m", "alphago.cli", "train", "rl", str(run)]
    done = subprocess.run(
        command + TINY + ["--ray", address],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    kinds = [
        json.loads(line)["kind"]
        for line in (run / "metrics.jsonl").read_text().splitlines()
    ]
    assert kinds == ["selfplay", "train", "train", "gate"]
    selfplay = json.loads((run / "metrics.jsonl").read_text().splitlines()[0])
    assert selfplay["games"] == 2
    assert (run / "best.pt").exists()
