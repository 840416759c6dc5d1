"""Typed values read off a fuzzer's byte string, for the harnesses in this folder.

Our own reader rather than atheris.FuzzedDataProvider so that the test suite can replay
the harnesses (tests/test_fuzz_harnesses.py) where atheris is not installed. Reads never
fail: once the bytes run out every read returns its smallest value, so any byte string
is a valid input and small mutations make small changes.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class FuzzInput:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    @property
    def remaining(self) -> int:
        return len(self._data) - self._pos

    def take(self, n: int) -> bytes:
        chunk = self._data[self._pos : self._pos + n]
        self._pos += len(chunk)
        return chunk

    def uint(self, nbytes: int = 1) -> int:
        return int.from_bytes(self.take(nbytes), "little")

    def int(self, lo: int, hi: int) -> int:
        """Uniform-ish in [lo, hi], both ends included."""
        if hi <= lo:
            return lo
        span = hi - lo + 1
        nbytes = max(1, (span.bit_length() + 7) // 8)
        return lo + self.uint(nbytes) % span

    def bool(self) -> bool:
        return bool(self.uint() & 1)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.int(0, len(options) - 1)]

    def float(self) -> float:
        """Any double, NaN and the infinities included."""
        raw = self.take(8).ljust(8, b"\0")
        return float(struct.unpack("<d", raw)[0])

    def bytes(self, max_len: int) -> bytes:
        return self.take(self.int(0, max_len))

    def text(self, max_len: int) -> str:
        """Up to max_len bytes as text; undecodable bytes become U+FFFD."""
        return self.bytes(max_len).decode("utf-8", errors="replace")

    def rest(self) -> bytes:
        return self.take(self.remaining)
