"""Hostile weights files: size bombs, damaged and truncated files, impossible values.

Every refusal is a WeightsError (a ValueError) naming the file, raised before a
network of the file's size is built: the tests replace the network class with a spy
that fails if a real (not ``meta``) network is constructed.
"""

from __future__ import annotations

import builtins
import gzip
import io
import os
import struct
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402

from alphago.nets import (  # noqa: E402
    export_leela_zero,
    import_leela_zero,
    leelazero,
    load_network,
    load_weights,
    save_weights,
    weights,
)
from alphago.nets.weights import FORMAT, WeightsError, weights_bytes  # noqa: E402


@pytest.fixture
def no_real_net(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a loader builds a real network (a meta one is free)."""
    for module in (weights, leelazero):
        real = module.PolicyValueNet

        def spy(config: Any, real: Any = real) -> Any:
            if torch.empty(0).device.type != "meta":
                raise AssertionError(f"a real network was built for {config}")
            return real(config)

        monkeypatch.setattr(module, "PolicyValueNet", spy)


def _save_raw(path: Path, payload: dict[str, Any]) -> None:
    torch.save(payload, path)


def _payload(model: Any, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "format": FORMAT,
        "config": model.config.to_dict(),
        "state_dict": dict(model.state_dict()),
    }
    payload.update(changes)
    return payload


@pytest.mark.usefixtures("no_real_net")
@pytest.mark.parametrize(("blocks", "filters"), [(1000, 4096), (200, 512), (0, 4096)])
def test_a_config_bomb_is_refused_before_building(
    tmp_path: Path, blocks: int, filters: int
) -> None:
    model = tiny_net(9)
    path = tmp_path / "bomb.pt"
    config = dict(model.config.to_dict(), blocks=blocks, filters=filters)
    _save_raw(path, _payload(model, config=config, state_dict={}))
    assert path.stat().st_size < 5_000
    with pytest.raises(WeightsError, match=str(path)):
        load_weights(path)


@pytest.mark.usefixtures("no_real_net")
def test_shapes_are_checked_before_building(tmp_path: Path) -> None:
    model = tiny_net(9, filters=8)
    path = tmp_path / "net.pt"
    config = dict(model.config.to_dict(), filters=16)
    _save_raw(path, _payload(model, config=config))
    with pytest.raises(WeightsError, match=r"conv_in.weight has shape \(8, 17, 3, 3\)"):
        load_weights(path)


def test_a_config_beyond_the_parameter_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "net.pt"
    save_weights(tiny_net(9), path)
    monkeypatch.setattr(weights, "MAX_PARAMETERS", 1000)
    with pytest.raises(WeightsError, match="parameters; the limit is 1000"):
        load_weights(path)


def test_wrong_dtypes_are_refused(tmp_path: Path) -> None:
    model = tiny_net(9)
    state = dict(model.state_dict())
    state["conv_in.weight"] = state["conv_in.weight"].to(torch.int32)
    path = tmp_path / "net.pt"
    _save_raw(path, _payload(model, state_dict=state))
    with pytest.raises(WeightsError, match="conv_in.weight has dtype torch.int32"):
        load_weights(path)


def _rezip(data: bytes, compress: int, extra: bytes = b"") -> bytes:
    """The archive rewritten with ``compress`` and an ``extra`` entry."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w", compression=compress) as dst,
    ):
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
        if extra:
            prefix = src.namelist()[0].split("/")[0]
            dst.writestr(f"{prefix}/padding", extra)
    return out.getvalue()


def test_a_zip_bomb_is_refused_before_unpickling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = weights_bytes(tiny_net(9))
    # torch inflates deflated entries: 4 MB of zeros pack into a few KB.
    bomb = _rezip(data, zipfile.ZIP_DEFLATED, bytes(4 << 20))
    path = tmp_path / "bomb.pt"
    path.write_bytes(bomb)
    assert len(bomb) < len(data) + 50_000
    monkeypatch.setattr(weights, "MAX_WEIGHTS_BYTES", 1 << 20)
    loads: list[object] = []
    monkeypatch.setattr(torch, "load", lambda *a, **k: loads.append(a))
    with pytest.raises(WeightsError, match=f"{path}: the archive unpacks to"):
        load_weights(path)
    assert loads == []


def test_a_big_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "net.pt"
    save_weights(tiny_net(9), path)
    monkeypatch.setattr(weights, "MAX_WEIGHTS_BYTES", path.stat().st_size - 1)
    with pytest.raises(WeightsError, match=f"{path}: larger than"):
        load_weights(path)
    with pytest.raises(WeightsError, match="larger than"):
        load_weights(path.read_bytes())


def test_compressed_archives_within_the_limit_still_load(tmp_path: Path) -> None:
    model = tiny_net(9)
    path = tmp_path / "net.pt"
    path.write_bytes(_rezip(weights_bytes(model), zipfile.ZIP_DEFLATED))
    assert load_weights(path).config == model.config


def _release_fifo_later(fifo: Path) -> threading.Thread:
    """Open the FIFO for writing after a while, so a reader blocked in open() (the
    bug) returns and the test fails instead of hanging."""

    def release() -> None:
        fd = os.open(fifo, os.O_RDWR)  # never blocks on Linux
        threading.Event().wait(3.0)
        os.close(fd)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("loader", [load_weights, load_network, import_leela_zero])
def test_special_files_are_refused(
    tmp_path: Path, loader: Callable[[Path], object]
) -> None:
    with pytest.raises(WeightsError, match="/dev/zero: not a regular file"):
        loader(Path("/dev/zero"))
    with pytest.raises(WeightsError, match="/dev/null: not a regular file"):
        loader(Path("/dev/null"))
    with pytest.raises(WeightsError, match=f"{tmp_path}: not a regular file"):
        loader(tmp_path)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        _release_fifo_later(fifo)
        with pytest.raises(WeightsError, match=f"{fifo}: not a regular file"):
            loader(fifo)


def _bn_key(model: Any) -> str:
    return next(k for k in model.state_dict() if k.endswith("running_var"))


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("conv_in.weight", float("nan"), "conv_in.weight holds 1 non-finite"),
        ("policy_fc.bias", float("inf"), "policy_fc.bias holds 1 non-finite"),
        ("value_fc2.weight", -float("inf"), "non-finite"),
        ("bn_in.running_mean", float("nan"), "non-finite"),
        ("bn_in.running_var", -0.5, "bn_in.running_var holds a negative"),
        ("tower.0.bn2.running_var", -1e-7, "negative batch-norm variance"),
    ],
)
def test_impossible_values_are_refused(
    tmp_path: Path, key: str, value: float, match: str
) -> None:
    model = tiny_net(9)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    state[key].view(-1)[3 % state[key].numel()] = value
    path = tmp_path / "net.pt"
    _save_raw(path, _payload(model, state_dict=state))
    with pytest.raises(WeightsError, match=match) as info:
        load_weights(path)
    assert str(path) in str(info.value)
    # The same values with a valid checksum are refused all the same.
    model.load_state_dict(state)
    save_weights(model, path)
    with pytest.raises(WeightsError, match=match):
        load_weights(path)


def test_new_files_carry_a_checksum_that_is_verified(tmp_path: Path) -> None:
    path = tmp_path / "net.pt"
    model = tiny_net(9)
    save_weights(model, path)
    payload = torch.load(path, weights_only=True)
    assert isinstance(payload["sha256"], str) and len(payload["sha256"]) == 64
    assert load_weights(path).config == model.config
    payload["sha256"] = "0" * 64
    _save_raw(path, payload)
    with pytest.raises(WeightsError, match=f"{path}: checksum mismatch"):
        load_weights(path)
    payload["sha256"] = 12345
    _save_raw(path, payload)
    with pytest.raises(WeightsError, match="checksum mismatch"):
        load_weights(path)


def test_files_without_a_checksum_still_load(tmp_path: Path) -> None:
    model = tiny_net(9)
    path = tmp_path / "old.pt"
    _save_raw(path, _payload(model))
    loaded = load_weights(path)
    for key, value in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)
    # The first shipped 9x9 net, written before the checksum existed.
    first = Path(__file__).parent / "data" / "alphago-9x9-bn-v1.pt"
    assert "sha256" not in torch.load(first, weights_only=True)
    assert load_network(first).config.board_size == 9


def _stored_data_ranges(data: bytes) -> list[tuple[int, int]]:
    """(start, end) in the file of every tensor storage's bytes (stored entries)."""
    ranges = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if "/data/" not in info.filename or info.file_size == 0:
                continue
            offset = info.header_offset
            name_len, extra_len = struct.unpack("<HH", data[offset + 26 : offset + 30])
            start = offset + 30 + name_len + extra_len
            ranges.append((start, start + info.compress_size))
    return ranges


def test_bit_flipped_tensors_are_refused(tmp_path: Path) -> None:
    data = weights_bytes(tiny_net(9, blocks=2))
    ranges = _stored_data_ranges(data)
    assert ranges
    path = tmp_path / "flipped.pt"
    positions = [
        start + (end - start) * k // 7 for start, end in ranges for k in (0, 3, 6)
    ]
    for i, position in enumerate(positions):
        damaged = bytearray(data)
        damaged[position] ^= 1 << (i % 8)
        path.write_bytes(bytes(damaged))
        with pytest.raises(WeightsError, match=str(path)):
            load_weights(path)


def test_truncated_files_name_the_file(tmp_path: Path) -> None:
    data = weights_bytes(tiny_net(9))
    path = tmp_path / "cut.pt"
    for i in range(40):
        path.write_bytes(data[: len(data) * i // 40])
        for loader in (load_weights, load_network):
            with pytest.raises(WeightsError, match=str(path)):
                loader(path)


def test_damaged_bytes_never_escape_as_other_errors(tmp_path: Path) -> None:
    data = weights_bytes(tiny_net(9))
    path = tmp_path / "damaged.pt"
    for i in range(0, len(data), max(1, len(data) // 150)):
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            load_network(path)
        except WeightsError as exc:
            assert str(path) in str(exc)


class _Exploit:
    """Unpickling this would call ``open(marker, "w")``: code run by the loader."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (builtins.open, (self.marker, "w"))


@pytest.mark.parametrize("where", ["config", "state_dict", "sha256"])
def test_crafted_pickles_never_run(tmp_path: Path, where: str) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    payload = _payload(tiny_net(9), **{where: _Exploit(str(marker))})
    torch.save(payload, path)
    for load in (load_weights, load_network, lambda p: load_weights(p.read_bytes())):
        with pytest.raises(WeightsError, match="refusing"):
            load(path)
    assert not marker.exists()


# Leela Zero's text format.


def _lz_lines(blocks: int, filters: int) -> list[str]:
    """A file with the line count of ``blocks`` blocks and ``filters`` values on
    the input biases line, every other line short: tiny, but describing a giant."""
    lines = ["1"] + ["0"] * (4 + 8 * blocks + 14)
    lines[2] = " ".join(["1"] * filters)
    return lines


@pytest.mark.usefixtures("no_real_net")
@pytest.mark.parametrize(("blocks", "filters"), [(1000, 4096), (40, 256), (1, 8)])
def test_lz_absurd_counts_are_refused_before_building(
    tmp_path: Path, blocks: int, filters: int
) -> None:
    path = tmp_path / "lz.txt"
    path.write_text("\n".join(_lz_lines(blocks, filters)) + "\n")
    assert path.stat().st_size < 50_000
    with pytest.raises(WeightsError, match=str(path)):
        import_leela_zero(path)
    with pytest.raises(WeightsError, match=str(path)):
        load_network(path)


def test_lz_beyond_the_parameter_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), path)
    monkeypatch.setattr(weights, "MAX_PARAMETERS", 1000)
    with pytest.raises(WeightsError, match="the limit is 1000"):
        import_leela_zero(path)


def test_lz_gzip_bomb_is_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bomb.txt.gz"
    path.write_bytes(gzip.compress(b"1\n" + b" " * (8 << 20)))
    assert path.stat().st_size < 100_000
    monkeypatch.setattr(leelazero, "MAX_WEIGHTS_BYTES", 1 << 20)
    read: list[int] = []
    real_read = gzip.GzipFile.read

    def counting_read(self: gzip.GzipFile, size: int = -1) -> bytes:
        chunk = real_read(self, size)
        read.append(len(chunk))
        return chunk

    monkeypatch.setattr(gzip.GzipFile, "read", counting_read)
    with pytest.raises(WeightsError, match=f"{path}: decompresses to more than"):
        import_leela_zero(path)
    assert max(read) <= 1 << 20 and sum(read) <= (1 << 20) + 1


def test_lz_big_plain_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), path)
    monkeypatch.setattr(leelazero, "MAX_WEIGHTS_BYTES", path.stat().st_size - 1)
    with pytest.raises(WeightsError, match=f"{path}: larger than"):
        import_leela_zero(path)


def test_lz_truncated_and_damaged_files_name_the_file(tmp_path: Path) -> None:
    good = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), good)
    text = good.read_bytes()
    for name, data in (("cut.txt", text), ("cut.txt.gz", gzip.compress(text))):
        path = tmp_path / name
        for i in range(1, 20):
            path.write_bytes(data[: len(data) * i // 20])
            with pytest.raises(WeightsError, match=str(path)):
                load_network(path)


def test_lz_impossible_values(tmp_path: Path) -> None:
    good = tmp_path / "lz.txt"
    export_leela_zero(tiny_net(19, "lz18"), good)
    lines = good.read_text().splitlines()
    path = tmp_path / "bad.txt"
    for line, word, match in ((1, "nan", "non-finite"), (4, "-1", "variances")):
        values = lines[line].split()
        damaged = lines[:line] + [" ".join(values[:-1] + [word])] + lines[line + 1 :]
        path.write_text("\n".join(damaged) + "\n")
        with pytest.raises(WeightsError, match=match) as info:
            import_leela_zero(path)
        assert str(path) in str(info.value)


def test_a_damaged_shipped_network_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alphago.nets import shipped

    original = shipped.shipped_weights(9)
    assert original is not None  # the installed file matches its pinned checksum
    data = bytearray(original.read_bytes())
    data[len(data) // 2] ^= 0x10  # one bit inside the tensors
    (tmp_path / "alphago-9x9.pt").write_bytes(bytes(data))
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    with pytest.raises(WeightsError, match="damaged"):
        shipped.shipped_weights(9)
    assert shipped.shipped_weights(13) is None
