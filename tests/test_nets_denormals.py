"""Denormal floats are flushed to zero (FTZ/DAZ) wherever the ``alphago`` command runs
networks: arithmetic on denormals, which trained weights and Adam's moments drift
into, made CPU training steps about 20 times slower. The flag is per-thread process
state, so the torch side is checked in fresh interpreters."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from alphago import cli  # noqa: E402
from alphago.nets.precision import flushing_denormals  # noqa: E402

# A two-thread convolution over denormal inputs: nonzero outputs unless the threads
# that run it treat denormals as zero.
_CONV = """
import torch
from alphago.nets.precision import denormals_flushed, flushing_denormals
torch.set_num_threads(2)
def conv():
    x = torch.full((8, 16, 19, 19), 1e-39)
    y = torch.nn.functional.conv2d(x, torch.ones(16, 16, 3, 3), padding=1)
    return int((y != 0).sum())
{body}
"""


def run(body: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _CONV.format(body=body)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return out.stdout.split()


def test_the_scope_flushes_torch_threads_and_restores_the_thread() -> None:
    (plain,) = run("print(conv())")
    if int(plain) == 0:
        pytest.skip("this CPU or torch build flushes denormals already")
    inside, flushed, after = run(
        "with denormals_flushed():\n"
        "    print(conv(), flushing_denormals())\n"
        "print(flushing_denormals())"
    )
    assert (int(inside), flushed, after) == (0, "True", "False")


def test_the_command_flushes_for_network_commands_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if flushing_denormals():
        pytest.skip("this process flushes denormals already")
    seen: dict[str, bool] = {}

    def record(args: argparse.Namespace) -> int:
        seen[args.command] = flushing_denormals()
        return 0

    for command in ("bench", "eval"):
        monkeypatch.setitem(cli._COMMANDS, command, record)
    assert cli.main(["bench", "--no-net"]) == 0
    assert cli.main(["eval", "a", "b"]) == 0
    assert seen == {"bench": True, "eval": False}
    assert not flushing_denormals()  # restored for the rest of the process
