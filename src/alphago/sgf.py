"""Game records: reading and writing SGF (FF[4], GM[1]) through sgfmill.

A :class:`GameRecord` holds what the engine, matches and training need from a game:
board size, komi, setup stones (``AB``/``AW``: handicap or a set-up position), the main
line of moves, the result, the players' names and the rules name. Variations, comments
and other properties are not kept.

Points are our flat indices (``row * N + col``, row 0 at the top, pass = ``N * N``);
sgfmill counts rows from the bottom, and the conversion happens only here.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass, field

from sgfmill import (  # type: ignore[import-untyped]
    sgf,
    sgf_grammar,
    sgf_properties,
)

import goboard
from goboard import coords

from .atomic import atomic_write_bytes

__all__ = [
    "GameRecord",
    "play_as",
    "read_sgf",
    "rebuilt",
    "replay",
    "save_sgf",
    "start_board",
    "to_move",
    "write_sgf",
]

_COLOURS = {goboard.BLACK: "b", goboard.WHITE: "w"}
_FROM_SGF = {"b": goboard.BLACK, "w": goboard.WHITE}


@dataclass
class GameRecord:
    """One game's main line.

    Attributes:
        size: board edge length.
        komi: komi (added to White's score).
        moves: (colour, point) in order; point ``size * size`` is a pass.
        setup: colour -> points of stones on the board before the first move.
        result: SGF result ("B+3.5", "W+R", "0", "Void", "?") or None.
        players: colour -> name.
        rules: the ``RU`` property, if any.
        to_play: who moves first after the setup (``PL``), or None (Black, or White
            after handicap stones).
        comment: the game comment (``GC``), or None.
    """

    size: int = 19
    komi: float = 7.5
    moves: list[tuple[int, int]] = field(default_factory=list)
    setup: dict[int, list[int]] = field(default_factory=dict)
    result: str | None = None
    players: dict[int, str] = field(default_factory=dict)
    rules: str | None = None
    to_play: int | None = None
    comment: str | None = None


def _point(rc: tuple[int, int] | None, size: int) -> int:
    if rc is None:
        return size * size
    row, col = rc
    return (size - 1 - row) * size + col


def _rowcol(point: int, size: int) -> tuple[int, int] | None:
    if point == size * size:
        return None
    if not 0 <= point < size * size:
        raise ValueError(f"point {point} is off a {size}x{size} board")
    row, col = divmod(point, size)
    return size - 1 - row, col


#: ASCII text as SGF files hold it: an SGF charset must encode it unchanged, since
#: the file is parsed as ASCII before the charset is known.
_ASCII_PROBE = "(;FF[4]GM[1]SZ[19]CA[UTF-8]PB[abc XYZ 0123]C[a\\]b];B[dd]) \n\t"


def _charset(raw: bytes) -> str:
    """The CA property's value as written (for messages), or "" if none is found."""
    start = raw.find(b"CA[")
    end = raw.find(b"]", start)
    if start < 0 or end < 0:
        return ""
    return raw[start + 3 : end][:40].decode("ascii", "replace")


def _check_text_encoding(name: str) -> None:
    """Refuse an SGF charset (``CA``) that is not an ASCII-compatible text encoding:
    ``base64``, ``zlib``, ``rot13``, ``hex``, ``uu``, ``bz2`` name Python codecs
    that transform bytes or text, not character sets, and ``utf-16`` cannot hold an
    SGF file that parsed as ASCII.

    Raises:
        ValueError: naming the charset.
    """
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        raise ValueError(f"SGF charset {name!r} is not a known encoding") from None
    # CodecInfo marks the codecs that are not str <-> bytes encodings.
    if not getattr(info, "_is_text_encoding", True):
        raise ValueError(f"SGF charset {name!r} is not a text encoding")
    try:
        compatible = info.encode(_ASCII_PROBE)[0] == _ASCII_PROBE.encode("ascii")
    except (ValueError, TypeError, LookupError):
        compatible = False
    if not compatible:
        raise ValueError(f"SGF charset {name!r} is not ASCII-compatible")


def read_sgf(data: bytes | str) -> GameRecord:
    """Parse an SGF game (the first game of a collection, its main line).

    Raises:
        ValueError: not SGF, not Go, a size we do not support, bad komi or moves, a
            point set up with stones of both colours (``AB`` and ``AW``), setup
            stones after a move, a charset (``CA``) that is not a known
            ASCII-compatible text encoding.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        game = sgf.Sgf_game.from_bytes(raw)
    except LookupError:
        # sgfmill hands the CA property to codecs.lookup: an unknown name.
        raise ValueError(
            f"SGF charset {_charset(raw)!r} is not a known encoding"
        ) from None
    except ValueError as exc:
        raise ValueError(f"malformed SGF: {exc}") from None
    _check_text_encoding(game.get_root().get_encoding())
    root = game.get_root()
    try:
        size = coords.check_size(game.get_size())
    except (TypeError, ValueError) as exc:
        raise ValueError(f"unsupported SGF board: {exc}") from None
    if root.has_property("GM") and root.get("GM") != 1:
        raise ValueError(f"SGF game type GM[{root.get('GM')}] is not Go (GM[1])")
    try:
        komi = game.get_komi()
        black, white, _ = root.get_setup_stones()
        if black & white:
            both = sorted(_point(rc, size) for rc in black & white)
            raise ValueError(f"points {both} hold setup stones of both colours")
        record = GameRecord(size=size, komi=float(komi))
        for colour, stones in ((goboard.BLACK, black), (goboard.WHITE, white)):
            if stones:
                record.setup[colour] = sorted(_point(rc, size) for rc in stones)
        if root.has_property("PL"):
            record.to_play = _FROM_SGF[root.get("PL")]
        for colour, key in ((goboard.BLACK, "PB"), (goboard.WHITE, "PW")):
            if root.has_property(key):
                record.players[colour] = _text(root, key)
        if root.has_property("RE"):
            record.result = _text(root, "RE")
        if root.has_property("RU"):
            record.rules = _text(root, "RU")
        if root.has_property("GC"):
            record.comment = _text(root, "GC")
        # Old files (FF[1], FF[3]) put the first move in the root, beside the game
        # information: dropped, every later position would lack its stone.
        for node in game.get_main_sequence():
            if node is not root:
                _later_setup(node, record, size)
            colour_name, rc = _move(node, size)
            if colour_name is None:
                continue
            record.moves.append((_FROM_SGF[colour_name], _point(rc, size)))
    except (ValueError, LookupError) as exc:  # KeyError is a LookupError
        raise ValueError(f"malformed SGF property: {exc}") from None
    if not (-1000.0 <= record.komi <= 1000.0):
        raise ValueError(f"SGF komi {record.komi} is out of range")
    return record


def _text(node: sgf.Tree_node, key: str) -> str:
    """A text property, bytes its charset cannot decode replaced (U+FFFD): files
    often hold a name or comment in another charset than their ``CA`` says, which
    must not cost the game."""
    try:
        return node.get(key)  # type: ignore[no-any-return]
    except UnicodeDecodeError:
        raw = node.get_raw(key)
        value = sgf_grammar.text_value if key == "GC" else sgf_grammar.simpletext_value
        return value(raw).decode(node.get_encoding(), "replace")  # type: ignore[no-any-return]


def _later_setup(node: sgf.Tree_node, record: GameRecord, size: int) -> None:
    """Setup stones (``AB``, ``AW``, ``AE``) in a node after the root: joined to the
    record's setup while no move has been played (files that keep the game's
    information alone in the root), refused after one, which a record of moves from
    one setup cannot hold (read as moves only, the positions would be wrong)."""
    if not any(node.has_property(key) for key in ("AB", "AW", "AE")):
        return
    if record.moves:
        raise ValueError(
            f"setup stones (AB/AW/AE) after move {len(record.moves)}: a record here "
            "is one setup and then moves"
        )
    black, white, empty = node.get_setup_stones()
    if black & white:
        both = sorted(_point(rc, size) for rc in black & white)
        raise ValueError(f"points {both} hold setup stones of both colours")
    points = {c: set(record.setup.get(c, ())) for c in (goboard.BLACK, goboard.WHITE)}
    for colour, stones in ((goboard.BLACK, black), (goboard.WHITE, white)):
        placed = {_point(rc, size) for rc in stones}
        points[colour] |= placed
        points[-colour] -= placed
    for rc in empty:
        for colour in points:
            points[colour].discard(_point(rc, size))
    record.setup = {c: sorted(p) for c, p in points.items() if p}


def _move(node: sgf.Tree_node, size: int) -> tuple[str | None, tuple[int, int] | None]:
    """The node's move as sgfmill gives it: (``"b"``/``"w"``/None, (row, col) or None).

    Old files wrap their lines inside a move's value (``W[oq<newline>]``: two games of
    Debian's goban-original-games). A point holds no white space in SGF, so it is
    dropped before the value is read again; any other bad value still raises.
    """
    try:
        return node.get_move()  # type: ignore[no-any-return]
    except ValueError:
        for name in ("B", "W"):
            if node.has_property(name):
                raw = b"".join(node.get_raw(name).split())
                try:
                    return name.lower(), sgf_properties.interpret_go_point(raw, size)
                except ValueError:
                    # sgfmill's own error says nothing: name the value.
                    text = node.get_raw(name).decode("ascii", "replace")
                    raise ValueError(
                        f"{name}[{text}] is not a point of a {size}x{size} board"
                    ) from None
        raise


def write_sgf(record: GameRecord) -> bytes:
    """Serialise a record as SGF (UTF-8)."""
    size = coords.check_size(record.size)
    game = sgf.Sgf_game(size)
    root = game.get_root()
    root.set("KM", float(record.komi))
    black = {
        rc for p in record.setup.get(goboard.BLACK, []) if (rc := _rowcol(p, size))
    }
    white = {
        rc for p in record.setup.get(goboard.WHITE, []) if (rc := _rowcol(p, size))
    }
    if black & white:
        raise ValueError("a point cannot hold setup stones of both colours")
    if black or white:
        root.set_setup_stones(black, white)
        if black and not white:
            root.set("HA", len(black))
    if record.to_play is not None:
        root.set("PL", _COLOURS[record.to_play])
    for colour, key in ((goboard.BLACK, "PB"), (goboard.WHITE, "PW")):
        if colour in record.players:
            root.set(key, record.players[colour])
    if record.result is not None:
        root.set("RE", record.result)
    if record.rules is not None:
        root.set("RU", record.rules)
    if record.comment is not None:
        root.set("GC", record.comment)
    node = root  # extend_main_sequence walks the whole line each time: quadratic
    for colour, point in record.moves:
        if colour not in _COLOURS:
            raise ValueError(f"bad colour {colour!r} in a move")
        node = node.new_child()
        node.set_move(_COLOURS[colour], _rowcol(point, size))
    data: bytes = game.serialise()
    return data


def save_sgf(record: GameRecord, path: str | os.PathLike[str]) -> None:
    """Write ``record`` to ``path`` atomically (temp file beside it, then rename).

    Raises:
        alphago.atomic.NotAFileError: ``path`` is a directory, a device, a FIFO or
            another special file (an OSError; nothing is written).
        OSError: the file cannot be written.
    """
    atomic_write_bytes(path, write_sgf(record))


def start_board(
    record: GameRecord, rules: str | goboard.Rules, *, first_from_moves: bool = False
) -> goboard.Board:
    """The position before the first move (setup stones placed).

    Without ``PL``, Black moves first, or White after setup stones of Black alone (a
    handicap); with ``first_from_moves`` the first move's colour moves first instead
    (what training data wants: White opening an empty board, or Black moving after
    stones set up without a handicap, would otherwise be a move out of turn, lost as
    an example and preceded by a pass that never happened).
    """
    first = record.to_play
    if first is None and first_from_moves and record.moves:
        first = record.moves[0][0]
    if not record.setup:
        board = goboard.Board(record.size, record.komi, rules)
        if first == goboard.WHITE:
            board = goboard.Board.from_stones(
                board.stones(), goboard.WHITE, record.komi, rules
            )
        return board
    stones = goboard.Board(record.size).stones()
    flat = stones.reshape(-1)
    for colour, points in record.setup.items():
        for p in points:
            if not 0 <= p < record.size * record.size:
                raise ValueError(f"setup point {p} is off the board")
            flat[p] = colour
    if first is None:
        only_black = goboard.WHITE not in record.setup
        first = goboard.WHITE if only_black else goboard.BLACK
    return goboard.Board.from_stones(stones, first, record.komi, rules)


def play_as(board: goboard.Board, colour: int, point: int) -> goboard.Board:
    """Play ``point`` for ``colour``; returns the board (a new one if rebuilt).

    A move out of turn is preceded by a pass, unless that pass would end the game; then
    (and for any move after the game ended) the position is rebuilt from its stones with
    ``colour`` to move, which forgets the superko history.
    """
    board = to_move(board, colour)
    board.play(point)
    return board


def to_move(board: goboard.Board, colour: int) -> goboard.Board:
    """``board`` (changed in place, or a new one if rebuilt) with ``colour`` to move
    and the game not over: a pass for the other side, unless that pass would end the
    game; then, or when the game is over, :func:`rebuilt`."""
    if board.to_play != colour and not board.is_over and board.passes == 0:
        board.play(board.size * board.size)
    if board.to_play != colour or board.is_over:
        board = rebuilt(board, colour)
    return board


def rebuilt(board: goboard.Board, colour: int) -> goboard.Board:
    """``board``'s stones, komi and rules with ``colour`` to move and no history: a
    game that was over goes on, with no passes counted and no superko history."""
    return goboard.Board.from_stones(board.stones(), colour, board.komi, board.rules)


def replay(record: GameRecord, rules: str | goboard.Rules = "chinese") -> goboard.Board:
    """The final position of the record's main line.

    Raises:
        goboard.IllegalMoveError: a move the rules forbid.
        ValueError: setup stones without liberties, points off the board.
    """
    board = start_board(record, rules)
    for number, (colour, point) in enumerate(record.moves, 1):
        try:
            board = play_as(board, colour, point)
        except goboard.IllegalMoveError as exc:
            raise _illegal_at(exc, number, colour, point, record.size) from None
    return board


def _illegal_at(
    exc: goboard.IllegalMoveError, number: int, colour: int, point: int, size: int
) -> goboard.IllegalMoveError:
    """``exc`` told as a person reads a game: move number, colour and vertex."""
    side = "B" if colour == goboard.BLACK else "W"
    vertex = coords.to_gtp(point, size)
    named = goboard.IllegalMoveError(exc.reason, point)
    named.args = (f"move {number} ({side} {vertex}) is illegal: {exc.reason}",)
    return named
