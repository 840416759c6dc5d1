"""Importing ``alphago.nets`` flushes denormal floats to zero (FTZ/DAZ): arithmetic on
denormals, which trained weights and Adam's moments drift into, made CPU training
steps about 20 times slower. Checked in fresh interpreters, since the flag is
process state that other tests' imports already set."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("torch")

# A two-thread convolution over denormal inputs: nonzero outputs unless the threads
# that run it treat denormals as zero.
_CONV = """
import torch
{before}
torch.set_num_threads(2)
x = torch.full((8, 16, 19, 19), 1e-39)
y = torch.nn.functional.conv2d(x, torch.ones(16, 16, 3, 3), padding=1)
print(int((y != 0).sum()), y.numel())
"""


def nonzero_outputs(before: str) -> tuple[int, int]:
    out = subprocess.run(
        [sys.executable, "-c", _CONV.format(before=before)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.split()
    return int(out[0]), int(out[1])


def test_importing_the_nets_flushes_denormals_in_torch_threads() -> None:
    plain, total = nonzero_outputs("")
    if plain == 0:
        pytest.skip("this CPU or torch build flushes denormals already")
    assert plain == total  # the control: denormals survive without the import
    assert nonzero_outputs("import alphago.nets") == (0, total)
