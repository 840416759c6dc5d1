"""SGF charsets (``CA``): only ASCII-compatible text encodings are honoured.

Python's codec registry also holds byte and text transforms (base64, zlib, rot13, hex,
uu, bz2, quopri): a file naming one of them used to end in a LookupError (or a
TypeError) from deep inside the decoder. They are now a ValueError naming the charset,
which GTP reports as ``?`` and ``alphago shards`` as one skipped file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gtp_helpers import fails, make_engine, ok

from alphago.sgf import read_sgf

TRANSFORMS = ["base64", "zlib", "rot13", "hex", "uu", "bz2", "quopri", "rot_13"]


def _game(charset: str, name: str = "Honinbo") -> bytes:
    head = f"(;FF[4]GM[1]SZ[9]CA[{charset}]RE[B+R]PB[".encode("ascii")
    return head + name.encode(charset) + b"];B[ee];W[cc])"


def _with_charset(charset: str) -> bytes:
    return f"(;FF[4]GM[1]SZ[9]CA[{charset}]PB[Honinbo]RE[B+R];B[ee];W[cc])".encode()


@pytest.mark.parametrize("charset", TRANSFORMS + [c.upper() for c in TRANSFORMS])
def test_codec_transforms_are_a_clear_value_error(charset: str) -> None:
    with pytest.raises(ValueError, match="is not a text encoding") as info:
        read_sgf(_with_charset(charset))
    assert type(info.value) is ValueError
    assert charset.upper().replace("_", "-")[:3] in str(info.value).upper()


@pytest.mark.parametrize("charset", ["utf-16", "utf-32", "utf-7", "punycode"])
def test_encodings_that_cannot_hold_an_ascii_file_are_refused(charset: str) -> None:
    with pytest.raises(ValueError, match="not ASCII-compatible"):
        read_sgf(_with_charset(charset))


@pytest.mark.parametrize("charset", ["no-such-codec", "", "x" * 300, "utf\x008"])
def test_unknown_charsets_are_a_value_error(charset: str) -> None:
    with pytest.raises(ValueError) as info:
        read_sgf(_with_charset(charset))
    assert type(info.value) is ValueError


@pytest.mark.parametrize(
    ("charset", "name"),
    [
        ("UTF-8", "本因坊"),
        ("utf8", "Honinbō"),
        ("ISO-8859-1", "Müller"),
        ("latin-1", "Müller"),
        ("GB2312", "聂卫平"),
        ("GBK", "聂卫平"),
        ("Shift_JIS", "本因坊"),
        ("EUC-KR", "이창호"),
        ("Big5", "林海峰"),
        ("cp1252", "Müller"),
        ("ascii", "Honinbo"),
    ],
)
def test_text_encodings_still_decode(charset: str, name: str) -> None:
    record = read_sgf(_game(charset, name))
    assert record.players[1] == name
    assert len(record.moves) == 2


def test_gtp_loadsgf_answers_an_error(tmp_path: Path) -> None:
    engine = make_engine(size=9)
    ok(engine, "play b E5")
    for charset in ("base64", "zlib", "rot13"):
        path = tmp_path / f"{charset}.sgf"
        path.write_bytes(_with_charset(charset))
        message = fails(engine, f"loadsgf {path}")
        assert "not a text encoding" in message
    # The position is untouched by the failures.
    assert ok(engine, "printsgf").count(";B[") == 1


def test_text_its_charset_cannot_decode_costs_no_game() -> None:
    """A name or comment in another charset than CA says (common in real
    collections) made the file "malformed": its game was dropped."""
    gbk = "聂卫平".encode("gbk")
    data = b"(;FF[4]GM[1]SZ[9]CA[UTF-8]PB[" + gbk + b"]PW[Ma\\]x]GC[a\xff\\\nb]"
    record = read_sgf(data + b"RU[Chinese]RE[W+R\xff];B[ee];W[cc])")
    assert "\ufffd" in record.players[1] and record.players[-1] == "Ma]x"
    assert record.comment == "a\ufffdb" and record.result == "W+R\ufffd"
    assert len(record.moves) == 2
