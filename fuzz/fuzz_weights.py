"""Fuzz the weights and checkpoint loaders: alphago.nets.load_weights / load_network
(our torch weights files), alphago.nets.import_leela_zero (Leela Zero's text format),
alphago.train.checkpoint.load_checkpoint with Learner.load_state_dict and
restore_random_states (resuming a training run).

Inputs start from small valid files made once in-process (a tiny net saved by
weights_bytes, a tiny Leela Zero text file, a training checkpoint) and are varied by the
fuzzer: truncated, bit-flipped, byte-spliced, rebuilt with crafted payloads (wrong
shapes, dtypes, NaN/inf, negative variances, bad configs, stale checksums), pickles
carrying code (a __reduce__ that would call os.system or set a flag here), zip archives
with odd members, Leela Zero text with wrong line and value counts, gzip damage.

Checks: every refusal is the loader's documented error (WeightsError for weights
files, ValueError for checkpoints); pickled code never runs; a failed resume leaves
the Learner (net and optimiser) and the random generators as they were; whatever
loads holds finite values and round-trips through a re-save to equal tensors.

Run: python fuzz/fuzz_weights.py -max_total_time=60 [work-corpus] fuzz/corpus/weights
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import io
import os
import pickle
import random
import shutil
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from fuzzinput import FuzzInput
from harness import instrumented, main

with instrumented():
    from alphago.nets import NetConfig, PolicyValueNet, WeightsError
    from alphago.nets.leelazero import _line_sizes, export_leela_zero, import_leela_zero
    from alphago.nets.weights import (
        check_values,
        load_network,
        load_weights,
        state_digest,
        weights_bytes,
    )
    from alphago.train.checkpoint import (
        load_checkpoint,
        random_states,
        restore_random_states,
        save_checkpoint,
    )
    from alphago.train.learner import Learner, TrainConfig

torch.set_num_threads(1)
_SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None
_MARKER = Path(tempfile.gettempdir()) / f"fuzz-weights-pwned-{os.getpid()}"
PWNED: list[str] = []


def _pwn(*args: object) -> None:
    """What a crafted pickle would call: a loader that runs it has a hole."""
    PWNED.append(repr(args))


class _Evil:
    def __init__(self, how: int) -> None:
        self.how = how

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        if self.how == 0:
            return _pwn, ("reduce",)
        if self.how == 1:
            return os.system, (f"touch {_MARKER}",)
        return eval, (f"__import__('pathlib').Path({str(_MARKER)!r}).touch()",)


def _tiny_net(seed: int, config: NetConfig) -> PolicyValueNet:
    torch.manual_seed(seed)
    net = PolicyValueNet(config)
    with torch.no_grad():
        for name, t in net.state_dict().items():
            if name.endswith("running_var"):
                t.uniform_(0.5, 2.0)
            elif name.endswith("running_mean") or name.endswith("bias"):
                t.uniform_(-0.5, 0.5)
    return net.eval()


CONFIG = NetConfig(board_size=2, blocks=1, filters=1, input_planes="agz17")
NET = _tiny_net(1, CONFIG)
WEIGHTS = weights_bytes(NET)
PAYLOAD: dict[str, Any] = torch.load(io.BytesIO(WEIGHTS), weights_only=True)
TRAIN = TrainConfig(optimizer="adam", lr=0.01)


def _learner() -> Learner:
    return Learner(copy.deepcopy(NET), TRAIN)


def _make_checkpoint() -> bytes:
    learner = _learner()
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (2, 17, 2, 2)).astype(np.float32)
    policy = np.eye(5, dtype=np.float32)[[0, 4]]
    learner.train_step(planes, policy, np.array([1.0, -1.0], np.float32))
    tmp = Path(tempfile.mkdtemp(dir=_SCRATCH))
    try:
        save_checkpoint(
            tmp / "c.pt",
            {
                "kind": "sl",
                "learner": learner.state_dict(),
                "random": random_states(rng),
                "metrics_lines": 1,
            },
        )
        return (tmp / "c.pt").read_bytes()
    finally:
        shutil.rmtree(tmp)


CHECKPOINT = _make_checkpoint()
CKPT: dict[str, Any] = torch.load(io.BytesIO(CHECKPOINT), weights_only=True)
LZ_SIZES = _line_sizes(0, 1)
LZ_LINES = ["1"] + [
    " ".join(("1" if "variances" in what else "0.25") for _ in range(count))
    for count, what in LZ_SIZES
]

ODD_VALUES: list[object] = [
    True,
    None,
    -1,
    0,
    2**31,
    10**30,
    1.5,
    float("nan"),
    "x",
    "19",
    [],
    {},
    (1,),
    b"\x00",
    "agz17",
    "lz18",
]
ODD_TOKENS = [
    "nan",
    "inf",
    "-inf",
    "1e999",
    "-1e999",
    "1e39",
    "-3.5e38",
    "abc",
    "0x1p3",
    "1,5",
    "--1",
    "-1",
    "-0.00001",
    "-0.0000099",
    "1e-45",
    "3.4e38",
    "1e38",
    "٣",
    "1_0",
    "+.5",
    "",
    "\x00",
    "é",
]


# -- variants -------------------------------------------------------------------------


def _mutate_bytes(inp: FuzzInput, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(inp.int(1, 4)):
        op = inp.int(0, 4)
        at = inp.int(0, max(len(buf) - 1, 0))
        if op == 0:
            del buf[at:]
        elif op == 1 and buf:
            buf[at] ^= 1 << inp.int(0, 7)
        elif op == 2:
            chunk = inp.bytes(16)
            buf[at : at + len(chunk)] = chunk
        elif op == 3:
            buf[at:at] = inp.bytes(16)
        else:
            del buf[at : at + inp.int(1, 64)]
    return bytes(buf)


def _odd_tensor(inp: FuzzInput, like: torch.Tensor) -> object:
    try:
        return _odder_tensor(inp, like)
    except (RuntimeError, ValueError, TypeError, OverflowError):  # e.g. nan into int
        return like


def _odder_tensor(inp: FuzzInput, like: torch.Tensor) -> object:
    kind = inp.int(0, 10)
    t = like.clone()
    if kind == 0 and t.numel():
        t.view(-1)[inp.int(0, t.numel() - 1)] = inp.choice(
            [float("nan"), float("inf"), -float("inf"), 3e38]
        )
    elif kind == 1:
        t = t.reshape(-1)
    elif kind == 2:
        t = torch.zeros(tuple(s + 1 for s in t.shape))
    elif kind == 3:
        t = t.to(inp.choice([torch.int64, torch.int8, torch.bool, torch.complex64]))
    elif kind == 4:
        t = t.to(inp.choice([torch.float16, torch.bfloat16, torch.float64]))
    elif kind == 5:
        t = -t.abs() - 1  # a negative variance where it is one
    elif kind == 6:
        return inp.choice(ODD_VALUES)
    elif kind == 7:
        t = torch.tensor(inp.float())
    elif kind == 8:
        t = t.expand(2, *t.shape)[1] if t.dim() else t  # a non-owning view
    elif kind == 9:
        t = torch.empty(0)
    else:
        t = t * inp.float()
    return t


def _crafted(inp: FuzzInput, base: dict[str, Any], weights: bool) -> bytes:
    """torch.save of the base payload with the fuzzer's changes."""
    payload = copy.deepcopy(base)
    for _ in range(inp.int(1, 3)):
        op = inp.int(0, 6)
        if op == 0:
            key = inp.choice(sorted(payload))
            payload[key] = inp.choice(ODD_VALUES) if inp.bool() else None
            if inp.bool():
                del payload[key]
        elif op == 1:
            payload[inp.choice(["extra", "format", "sha256", "config"])] = inp.choice(
                ODD_VALUES
            )
        elif op == 2 and weights and isinstance(payload.get("config"), dict):
            config = payload["config"]
            config[inp.choice([*sorted(config), "depth"])] = inp.choice(ODD_VALUES)
        elif op == 3:
            state = payload.get("state_dict") if weights else None
            if not weights and isinstance(payload.get("learner"), dict):
                state = payload["learner"].get(inp.choice(["model", "optimizer"]))
                if isinstance(state, dict) and "state" in state:
                    state = state["state"].get(inp.int(0, 12), state)
            if isinstance(state, dict) and state:
                key = inp.choice(sorted(state, key=str))
                value = state[key]
                if isinstance(value, torch.Tensor):
                    state[key] = _odd_tensor(inp, value)
                elif inp.bool():
                    del state[key]
                else:
                    state[key] = inp.choice(ODD_VALUES)
        elif op == 4:
            payload["evil"] = _Evil(inp.int(0, 2))
        elif op == 5 and not weights:
            learner = payload.get("learner")
            if isinstance(learner, dict):
                learner[inp.choice(["step", "lr_multiplier", "skipped_steps", "x"])] = (
                    inp.choice(ODD_VALUES)
                )
                if isinstance(learner.get("optimizer"), dict) and inp.bool():
                    groups = learner["optimizer"].get("param_groups") or [{}]
                    groups[0][inp.choice(["params", "lr", "betas"])] = inp.choice(
                        ODD_VALUES
                    )
        elif op == 6 and not weights:
            states = payload.get("random")
            if isinstance(states, dict):
                which = inp.choice(["numpy", "python", "torch"])
                states[which] = inp.choice(
                    [
                        *ODD_VALUES,
                        "[]",
                        '{"bit_generator": "PCG64"}',
                        "[3, [1], null]",
                        torch.zeros(3, dtype=torch.uint8),
                        torch.zeros(5056),
                    ]
                )
    if weights and inp.bool() and isinstance(payload.get("config"), dict):
        state = payload.get("state_dict")
        if isinstance(state, dict) and all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
        ):
            with contextlib.suppress(TypeError, ValueError, RuntimeError):
                payload["sha256"] = state_digest(payload["config"], state)
    buffer = io.BytesIO()
    try:
        torch.save(payload, buffer)
    except (pickle.PicklingError, TypeError, RuntimeError):
        return b""
    return buffer.getvalue()


def _evil_pickle(inp: FuzzInput) -> bytes:
    """A pickle naming a callable, bare or as a torch archive's data.pkl."""
    target = inp.choice(
        [
            b"posix\nsystem\n",
            b"builtins\neval\n",
            b"__main__\n_pwn\n",
            b"fuzz_weights\n_pwn\n",
            b"torch\nload\n",
            b"collections\nOrderedDict\n",
        ]
    )
    arg = f"touch {_MARKER}" if b"system" in target else "1"
    body = b"\x80\x02c" + target + pickle.dumps((arg,), 2)[2:-1] + b"R."
    if inp.bool():
        return body
    names = ["archive/data.pkl", "archive/version", "archive/byteorder"]
    contents = [body, b"3\n", b"little"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content in zip(names, contents, strict=True):
            zf.writestr(name, content)
    return buffer.getvalue()


def _odd_zip(inp: FuzzInput, data: bytes) -> bytes:
    """The archive rebuilt with odd members."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = [(i.filename, zf.read(i)) for i in zf.infolist()]
    except (zipfile.BadZipFile, ValueError, OSError):
        return data
    out = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if inp.int(0, 3) == 3 else zipfile.ZIP_STORED
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w", method) as zf:
        warnings.simplefilter("ignore")  # "Duplicate name": wanted here
        for _ in range(inp.int(0, 3)):
            i = inp.int(0, len(members) - 1)
            name, content = members[i]
            op = inp.int(0, 5)
            if op == 0:
                members.pop(i)
            elif op == 1:
                members.append((name, content))  # a duplicate name
            elif op == 2:
                members[i] = (
                    inp.choice(
                        ["../x", "/abs", "other/data.pkl", "a/b/c", name.upper(), ""]
                    )
                    or name,
                    content,
                )
            elif op == 3:
                members[i] = (name, content[: inp.int(0, len(content))])
            elif op == 4:
                members.insert(0, (inp.choice(["z/data.pkl", "x"]), inp.bytes(32)))
            else:
                members[i] = (name, b"\0" * inp.int(0, 1 << 20))  # a big member
            if not members:
                break
        for name, content in members:
            zf.writestr(name, content)
    return out.getvalue()


def _variant(inp: FuzzInput, base: bytes, payload: dict[str, Any], w: bool) -> bytes:
    how = inp.int(0, 5)
    if how == 0:
        return base
    if how == 1:
        return _mutate_bytes(inp, base)
    if how == 2:
        return _crafted(inp, payload, w)
    if how == 3:
        return _evil_pickle(inp)
    if how == 4:
        return _odd_zip(inp, _crafted(inp, payload, w) if inp.bool() else base)
    return inp.bytes(512)


def _lz_text(inp: FuzzInput) -> bytes:
    lines = list(LZ_LINES)
    for _ in range(inp.int(0, 4)):
        op = inp.int(0, 6)
        i = inp.int(0, len(lines) - 1)
        if op == 0:
            lines.pop(i)
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            lines[i] += " " + inp.choice(ODD_TOKENS[:4] + ["0", "1"])
        elif op == 3:
            lines[i] = lines[i].rpartition(" ")[0]
        elif op == 4:
            values = lines[i].split(" ")
            values[inp.int(0, len(values) - 1)] = inp.choice(ODD_TOKENS)
            lines[i] = " ".join(values)
        elif op == 5:
            lines.insert(i, inp.choice(["", "  ", "\t", "2", "1 2", "#"]))
        else:
            lines[0] = inp.choice(["2", "01", " 1", "1.0", "v1", "", "1e0"])
    data = ("\r\n" if inp.int(0, 7) == 7 else "\n").join(lines).encode("utf-8")
    if inp.int(0, 3) == 3:
        data = gzip.compress(data, mtime=0)
        if inp.bool():
            data = _mutate_bytes(inp, data)
    return data


# -- checks ----------------------------------------------------------------------------


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(
        a[k].dtype == b[k].dtype and torch.equal(a[k], b[k]) for k in a
    )


def _check_net(model: PolicyValueNet) -> None:
    state = model.state_dict()
    check_values(state)  # what loaded is finite, variances not negative
    again = load_weights(weights_bytes(model))
    assert _same(state, again.state_dict())


def _weights(inp: FuzzInput, tmp: Path) -> None:
    data = _variant(inp, WEIGHTS, PAYLOAD, True)
    try:
        if inp.bool():
            model = load_weights(data)
        else:
            (tmp / "w.pt").write_bytes(data)
            model = load_network(tmp / "w.pt")
    except WeightsError:
        return
    _check_net(model)


def _leela(inp: FuzzInput, tmp: Path) -> None:
    (tmp / "lz.txt").write_bytes(_lz_text(inp))
    try:
        model = (
            import_leela_zero(tmp / "lz.txt")
            if inp.bool()
            else load_network(tmp / "lz.txt")
        )
    except WeightsError:
        return
    _check_net(model)
    if inp.int(0, 3) != 3:
        return  # the text round trip takes a quarter second
    export_leela_zero(model, tmp / "again.txt")
    again = import_leela_zero(tmp / "again.txt")
    for key, value in model.state_dict().items():
        other = again.state_dict()[key]
        assert torch.allclose(value, other, rtol=1e-5, atol=1e-6), key


def _generators() -> tuple[object, ...]:
    return random.getstate(), torch.get_rng_state()


def _checkpoint(inp: FuzzInput, tmp: Path) -> None:
    (tmp / "c.pt").write_bytes(_variant(inp, CHECKPOINT, CKPT, False))
    try:
        state = load_checkpoint(tmp / "c.pt")
    except ValueError:
        return
    learner = _learner()
    before = copy.deepcopy(learner.state_dict())
    try:
        learner.load_state_dict(state.get("learner"))  # type: ignore[arg-type]
    except ValueError:
        after = learner.state_dict()
        assert _same(before["model"], after["model"]), "a failed load changed the net"
        assert str(before["optimizer"]) == str(after["optimizer"]), "and the optimiser"
        assert (learner.step, learner.lr_multiplier) == (before["step"], 1.0)
    else:
        _check_net(learner.model)
        again = _learner()
        again.load_state_dict(copy.deepcopy(learner.state_dict()))
        assert str(again.state_dict()) == str(learner.state_dict())
    generators = _generators()
    try:
        restore_random_states(state.get("random"))  # type: ignore[arg-type]
    except ValueError:
        now = _generators()
        assert now[0] == generators[0], "a failed restore changed random"
        assert torch.equal(now[1], generators[1]), "a failed restore changed torch"  # type: ignore[arg-type]
    finally:
        random.setstate(generators[0])  # type: ignore[arg-type]
        torch.set_rng_state(generators[1])  # type: ignore[arg-type]


def one_input(data: bytes) -> None:
    inp = FuzzInput(data)
    tmp = Path(tempfile.mkdtemp(prefix="fuzz-weights-", dir=_SCRATCH))
    try:
        surface = inp.int(0, 2)
        if surface == 0:
            _weights(inp, tmp)
        elif surface == 1:
            _leela(inp, tmp)
        else:
            _checkpoint(inp, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        assert not PWNED, f"a loader ran pickled code: {PWNED}"
        assert not _MARKER.exists(), "a loader ran os.system from a pickle"


if __name__ == "__main__":
    main(one_input, "weights")
