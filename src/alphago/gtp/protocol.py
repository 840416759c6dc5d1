"""GTP version 2 framing: line preprocessing, command parsing, responses, arguments.

Preprocessing (GTP 2, section 3.1): control characters other than tab and newline are
removed, tabs become spaces, everything from ``#`` on is a comment, and a line that is
then empty is ignored. A command is ``[id] name [args...]``, ``id`` a non-negative
integer. A success is ``=[id] text`` and a failure ``?[id] message``, each ended by an
empty line; a response never contains an empty line of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import goboard
from goboard import coords

__all__ = [
    "Command",
    "GtpError",
    "error",
    "parse_colour",
    "parse_command",
    "parse_float",
    "parse_int",
    "parse_vertex",
    "preprocess",
    "success",
]

#: Longest line we read; anything longer is refused (it is no GTP command).
MAX_LINE = 100_000


class GtpError(Exception):
    """A command failed; the message becomes the ``?`` response."""


@dataclass(frozen=True, slots=True)
class Command:
    """A parsed command line."""

    ident: str  # "" or the digits of the id
    name: str
    args: list[str]


def preprocess(line: str) -> str:
    """The line with control characters, tabs and comments dealt with, stripped."""
    out = []
    for ch in line.split("#", 1)[0]:
        if ch == "\t":
            out.append(" ")
        elif ord(ch) >= 32 and ord(ch) != 127:
            out.append(ch)
    return "".join(out).strip()


def parse_command(line: str) -> Command | None:
    """Parse a raw line; None if it is empty after preprocessing."""
    text = preprocess(line)
    if not text:
        return None
    words = text.split()
    ident = ""
    if words[0].isdigit() and words[0].isascii():
        ident = str(int(words[0])) if len(words[0]) <= 18 else words[0]
        words = words[1:]
    if not words:
        return Command(ident, "", [])
    return Command(ident, words[0], words[1:])


def success(ident: str, text: str = "") -> str:
    """A full success response (text may span lines; empty lines are dropped)."""
    return f"={ident} {_clean(text)}\n\n"


def error(ident: str, message: str) -> str:
    """A full failure response."""
    return f"?{ident} {_clean(message)}\n\n"


def _clean(text: str) -> str:
    """Text without empty lines (a leading newline, as showboard uses, is kept)."""
    lead = "\n" if text.startswith("\n") else ""
    lines = [ln.rstrip() for ln in text.split("\n")]
    return lead + "\n".join(ln for ln in lines if ln)


def parse_int(word: str, what: str, low: int, high: int) -> int:
    """An integer argument in [low, high]."""
    w = word.strip()
    digits = w[1:] if w[:1] in "+-" else w
    if not digits.isdigit() or not digits.isascii() or len(digits) > 12:
        raise GtpError(f"{what} must be an integer, not {word!r}")
    value = int(w)
    if not low <= value <= high:
        raise GtpError(f"{what} must be in {low}..{high}, not {value}")
    return value


def parse_float(word: str, what: str, low: float, high: float) -> float:
    """A finite real argument in [low, high]."""
    try:
        value = float(word)
    except ValueError:
        raise GtpError(f"{what} must be a number, not {word!r}") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise GtpError(f"{what} must be in {low:g}..{high:g}, not {word}")
    return value


def parse_colour(word: str) -> int:
    """``b``/``black`` or ``w``/``white`` (any case) to BLACK/WHITE."""
    w = word.lower()
    if w in ("b", "black"):
        return goboard.BLACK
    if w in ("w", "white"):
        return goboard.WHITE
    raise GtpError(f"invalid color {word!r}")


def parse_vertex(word: str, size: int) -> int:
    """A vertex (or ``pass``) on a size x size board to a point."""
    try:
        return coords.from_gtp(word, size)
    except (TypeError, ValueError):
        raise GtpError(f"invalid vertex {word!r}") from None


def colour_name(colour: int) -> str:
    """``B`` or ``W``."""
    return "B" if colour == goboard.BLACK else "W"
