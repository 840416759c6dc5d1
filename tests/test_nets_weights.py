"""Weights files: round trip, atomic writes, refusal of pickled code and bad state."""

from __future__ import annotations

import builtins
import os
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from nets_helpers import tiny_net  # noqa: E402

from alphago.nets import load_weights, save_weights  # noqa: E402
from alphago.nets.weights import FORMAT  # noqa: E402


def _outputs(model: Any, x: Any) -> tuple[Any, ...]:
    with torch.no_grad():
        return tuple(model(x))


@pytest.mark.parametrize("ownership", [False, True])
def test_round_trip_gives_identical_outputs(tmp_path: Path, ownership: bool) -> None:
    model = tiny_net(9, "lz18", blocks=2, ownership=ownership)
    path = tmp_path / "net.pt"
    save_weights(model, path)
    loaded = load_weights(path)
    assert loaded.config == model.config
    assert not loaded.training
    x = torch.rand(2, 18, 9, 9)
    for a, b in zip(_outputs(model, x), _outputs(loaded, x), strict=True):
        if a is None:
            assert b is None
        else:
            assert torch.equal(a, b)


def test_failed_write_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "net.pt"
    save_weights(tiny_net(9, seed=1), path)
    before = path.read_bytes()

    def broken_save(obj: object, f: Any, *args: object, **kwargs: object) -> None:
        f.write(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        save_weights(tiny_net(9, seed=2), path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["net.pt"]  # no temporary file left behind
    monkeypatch.undo()
    assert load_weights(path).config == tiny_net(9, seed=1).config


class _Exploit:
    """Unpickling this would call ``open(marker, "w")``: code run by the loader."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (builtins.open, (self.marker, "w"))


def test_pickled_code_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    model = tiny_net(9)
    payload = {
        "format": FORMAT,
        "config": model.config.to_dict(),
        "state_dict": model.state_dict(),
        "extra": _Exploit(str(marker)),
    }
    torch.save(payload, path)
    with pytest.raises(ValueError, match="refusing"):
        load_weights(path)
    assert not marker.exists()


def test_arbitrary_objects_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    torch.save(tiny_net(9), path)  # a whole pickled module, not a weights file
    with pytest.raises(ValueError, match="refusing"):
        load_weights(path)


def test_a_zip_of_another_kind_is_refused_in_one_short_line(tmp_path: Path) -> None:
    """A rollout .npz is a zip too: torch's many-line C++ error is cut to its start."""
    import numpy as np

    path = tmp_path / "rollout.npz"
    np.savez(path, kind=np.array("rollout"), weights=np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="not a weights file written by alphago") as e:
        load_weights(path)
    message = str(e.value)
    assert "\n" not in message and len(message) < len(str(path)) + 200


def test_not_a_weights_file(tmp_path: Path) -> None:
    path = tmp_path / "junk.pt"
    path.write_bytes(b"this is not a torch file")
    with pytest.raises(ValueError, match="not a weights file"):
        load_weights(path)
    torch.save({"format": "other", "state_dict": {}}, path)
    with pytest.raises(ValueError, match="format"):
        load_weights(path)


def _save_raw(path: Path, config: dict[str, Any], state: dict[str, Any]) -> None:
    torch.save({"format": FORMAT, "config": config, "state_dict": state}, path)


def test_missing_and_extra_keys_are_named(tmp_path: Path) -> None:
    model = tiny_net(9)
    state = dict(model.state_dict())
    del state["value_fc2.bias"]
    state["mystery.weight"] = torch.zeros(3)
    path = tmp_path / "net.pt"
    _save_raw(path, model.config.to_dict(), state)
    with pytest.raises(ValueError, match="value_fc2.bias") as info:
        load_weights(path)
    assert "mystery.weight" in str(info.value)


def test_wrong_shapes_are_named(tmp_path: Path) -> None:
    small, big = tiny_net(9, filters=8), tiny_net(9, filters=16)
    path = tmp_path / "net.pt"
    _save_raw(path, small.config.to_dict(), dict(big.state_dict()))
    with pytest.raises(ValueError, match=r"conv_in.weight has shape \(16, 17, 3, 3\)"):
        load_weights(path)


def test_bad_config_is_a_value_error(tmp_path: Path) -> None:
    model = tiny_net(9)
    path = tmp_path / "net.pt"
    config = dict(model.config.to_dict(), board_size=40)
    _save_raw(path, config, dict(model.state_dict()))
    with pytest.raises(ValueError, match="board_size"):
        load_weights(path)
