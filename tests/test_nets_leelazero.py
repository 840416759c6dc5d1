"""Leela Zero text weights: round trip, refusals, and Leela Zero itself (if installed).

With Debian's ``leela-zero`` installed, Leela Zero loads a net we export and must see
exactly what we see: its ``heatmap`` (policy x 1000 per point, identity symmetry) and
winrate for a position equal ours, which checks the layer order, the batch-norm
folding and the board orientation; and it answers ``genmove`` with a legal move.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nets_helpers import positions_of, tiny_net  # noqa: E402

import goboard  # noqa: E402
from alphago.nets import (  # noqa: E402
    NetEvaluator,
    WeightsError,
    export_leela_zero,
    import_leela_zero,
    load_network,
    save_weights,
)
from goboard.coords import from_gtp  # noqa: E402

MOVES = ["D4", "Q16", "C3", "R3", "K10"]


def _leelaz() -> str | None:
    return shutil.which("leelaz") or shutil.which("leelaz", path="/usr/games")


def _outputs(model: Any, x: Any) -> tuple[Any, Any]:
    with torch.no_grad():
        logits, value, _ = model(x)
    return logits, value


def test_round_trip(tmp_path: Path) -> None:
    model = tiny_net(19, "lz18", blocks=2, filters=8)
    path = tmp_path / "lz.txt"
    export_leela_zero(model, path)
    lines = path.read_text().splitlines()
    assert lines[0] == "1" and len(lines) == 1 + 4 + 8 * 2 + 14
    assert len(lines[1].split()) == 8 * 18 * 9
    assert len(lines[-10].split()) == 362 * 722  # policy fc weights
    loaded = import_leela_zero(path)
    assert loaded.config == model.config
    for key, value in model.state_dict().items():
        if key.endswith("num_batches_tracked"):
            continue
        torch.testing.assert_close(
            loaded.state_dict()[key], value, rtol=1e-6, atol=1e-7
        )
    x = (torch.rand(3, 18, 19, 19) < 0.3).float()
    for a, b in zip(_outputs(model, x), _outputs(loaded, x), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    # Exporting the imported net gives the same numbers (to text precision).
    again = tmp_path / "again.txt"
    export_leela_zero(loaded, again)
    for old, new in zip(lines, again.read_text().splitlines(), strict=True):
        np.testing.assert_allclose(
            np.array(new.split(), float), np.array(old.split(), float), rtol=1e-6
        )


def test_gzipped_import(tmp_path: Path) -> None:
    model = tiny_net(19, "lz18")
    path = tmp_path / "lz.txt"
    export_leela_zero(model, path)
    packed = tmp_path / "lz.txt.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert import_leela_zero(packed).config == model.config


@pytest.mark.parametrize(
    ("args", "match"),
    [((9, "lz18"), "19x19"), ((19, "agz17"), "lz18")],
)
def test_export_refuses_other_nets(
    tmp_path: Path, args: tuple[int, str], match: str
) -> None:
    path = tmp_path / "lz.txt"
    with pytest.raises(ValueError, match=match):
        export_leela_zero(tiny_net(*args), path)
    assert not path.exists()


def test_ownership_head_needs_consent(tmp_path: Path) -> None:
    model = tiny_net(19, "lz18", ownership=True)
    path = tmp_path / "lz.txt"
    with pytest.raises(ValueError, match="ownership"):
        export_leela_zero(model, path)
    export_leela_zero(model, path, drop_ownership=True)
    assert not import_leela_zero(path).config.ownership_head


def test_import_refuses_bad_files(tmp_path: Path) -> None:
    good = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), good)
    lines = good.read_text().splitlines()
    bad = tmp_path / "bad.txt"
    cases = {
        "version": ["2"] + lines[1:],
        "lines": lines[:-1],
        # The right count of values, one of them not a number.
        "numbers": lines[:5] + [" ".join(lines[5].split()[:-1] + ["x"])] + lines[6:],
        "expected": lines[:1] + [" ".join(lines[1].split()[:-9])] + lines[2:],
    }
    for match, content in cases.items():
        bad.write_text("\n".join(content) + "\n")
        with pytest.raises(ValueError, match=match):
            import_leela_zero(bad)


def _gtp(weights: Path, commands: list[str]) -> subprocess.CompletedProcess[str]:
    exe = _leelaz()
    assert exe is not None
    args = [exe, "-w", str(weights), "--cpu-only", "--gtp", "--noponder", "-p", "1"]
    text = "".join(c + "\n" for c in commands + ["quit"])
    return subprocess.run(
        args, input=text, capture_output=True, text=True, timeout=60, check=True
    )


def _board() -> goboard.Board:
    board = goboard.Board(19)
    for vertex in MOVES:
        board.play_gtp(vertex)
    return board


def _plays() -> list[str]:
    return [f"play {'bw'[i % 2]} {v}" for i, v in enumerate(MOVES)]


@pytest.mark.skipif(_leelaz() is None, reason="leela-zero is not installed")
def test_leela_zero_sees_what_we_see(tmp_path: Path) -> None:
    model = tiny_net(19, "lz18", blocks=2, filters=8, seed=4)
    path = tmp_path / "lz.txt"
    export_leela_zero(model, path)
    board = _board()
    proc = _gtp(path, [*_plays(), "heatmap"])
    err = proc.stderr.splitlines()
    start = next(i for i, line in enumerate(err) if line.startswith("pass:")) - 19
    theirs = np.array(
        [[int(t) for t in line.split()] for line in err[start : start + 19]]
    )
    winrate = float(next(ln for ln in err if ln.startswith("winrate:")).split()[1])

    positions = positions_of([board])
    planes = positions.pool.features(positions.slots, "lz18")
    logits, values, _ = NetEvaluator(model, symmetries="none").forward(planes)
    p = np.exp(logits[0] - logits[0].max())
    p /= p.sum()
    ours = (p[:361] * 1000).astype(int).reshape(19, 19)
    ours[board.stones() != 0] = 0
    assert theirs.max() > 100  # a peaked policy: a flipped board would not match
    assert np.abs(theirs - ours).max() <= 1
    assert winrate == pytest.approx((1 + values[0]) / 2, abs=1e-4)


@pytest.mark.skipif(_leelaz() is None, reason="leela-zero is not installed")
def test_leela_zero_genmove_is_legal(tmp_path: Path) -> None:
    path = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18", seed=5), path)
    proc = _gtp(path, [*_plays(), "genmove w"])
    replies = [r for r in proc.stdout.split("\n\n") if r.strip()]
    assert all(r.startswith("=") for r in replies)
    vertex = replies[len(MOVES)].lstrip("= ").strip()
    board = _board()
    assert vertex.lower() == "pass" or board.is_legal(from_gtp(vertex, 19))


def test_load_network_reads_both_formats(tmp_path: Path) -> None:
    model = tiny_net(19, "lz18")
    ours, theirs = tmp_path / "net.pt", tmp_path / "lz.txt"
    save_weights(model, ours)
    export_leela_zero(model, theirs)
    x = torch.rand(2, 18, 19, 19)
    want = _outputs(model, x)
    for path in (ours, theirs):
        got = _outputs(load_network(path), x)
        for a, b in zip(want, got, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_load_network_takes_leela_zero_text_after_white_space(tmp_path: Path) -> None:
    model = tiny_net(19, "lz18")
    plain, padded = tmp_path / "lz.txt", tmp_path / "padded.txt"
    export_leela_zero(model, plain)
    padded.write_bytes(b"\n  " + plain.read_bytes())
    x = torch.rand(1, 18, 19, 19)
    for a, b in zip(_outputs(model, x), _outputs(load_network(padded), x), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("content", [b"", b"garbage", b"\x00\x01PK"])
def test_load_network_names_a_file_of_neither_format(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "junk.pt"
    path.write_bytes(content)
    with pytest.raises(WeightsError, match="junk.pt: not a weights file: neither"):
        load_network(path)


def test_import_refuses_values_beyond_float32(tmp_path: Path) -> None:
    # Found by fuzz/fuzz_weights.py: 1e39 is finite as read (float64) and became
    # inf in the float32 net, as did a large bias divided by sqrt(variance + 1e-5);
    # such a net loaded, and its own weights file was then refused.
    good = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), good)
    lines = good.read_text().splitlines()
    filters = len(lines[2].split())
    bad = tmp_path / "bad.txt"
    cases = {
        "line 2 .*beyond float32": [lines[0], " ".join(["1e39"] * 18 * 9 * filters)],
        "input conv: biases": [lines[0], lines[1], " ".join(["3e38"] * filters)]
        + [lines[3], " ".join(["0.5"] * filters)],
    }
    for match, head in cases.items():
        bad.write_text("\n".join(head + lines[len(head) :]) + "\n")
        with pytest.raises(ValueError, match=match):
            import_leela_zero(bad)


def test_import_refuses_negative_variances(tmp_path: Path) -> None:
    # Found by fuzz/fuzz_weights.py: a variance in (-1e-5, 0) was taken (Leela
    # Zero divides by sqrt(var + 1e-5)), and the net's own weights file, which
    # refuses negative variances, then did not load.
    good = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), good)
    lines = good.read_text().splitlines()
    variances = lines[4].split()
    bad = tmp_path / "bad.txt"
    bad.write_text(
        "\n".join([*lines[:4], " ".join(["-9.9e-06", *variances[1:]])] + lines[5:])
        + "\n"
    )
    with pytest.raises(ValueError, match="negative batch-norm variances"):
        import_leela_zero(bad)
