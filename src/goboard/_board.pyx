"""The compiled board: a thin wrapper that validates, calls the C core, maps errors."""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t
from libc.string cimport memcpy

from . cimport cboard as cb

import operator

import numpy as np

from .coords import check_size, from_gtp
from .errors import IllegalMoveError
from .rules import Rules, check_komi
from .text import check_stones

_KO_RULES = {"simple": cb.GB_KO_SIMPLE, "positional": cb.GB_KO_POSITIONAL,
             "situational": cb.GB_KO_SITUATIONAL}
_ILLEGAL = {cb.GB_ERR_OFF_BOARD, cb.GB_ERR_OCCUPIED, cb.GB_ERR_KO, cb.GB_ERR_SUICIDE,
            cb.GB_ERR_SUPERKO, cb.GB_ERR_GAME_OVER}


# Superko key slots a new board starts with (doubled when half full).
DEF _INITIAL_SLOTS = 128


cdef int _check(int rc, object move=None) except -1:
    """Raise the exception that a C return code stands for."""
    if rc == cb.GB_OK:
        return 0
    message = cb.gb_strerror(rc).decode()
    if rc in _ILLEGAL:
        raise IllegalMoveError(message, move)
    raise ValueError(message)


def zobrist_keys(size):
    """The Zobrist keys of a size x size board: uint64 array [2, N*N], black then white.

    ``Board.zobrist`` is the XOR of the keys of the stones on the board; an empty board
    hashes to 0. The table is fixed, so hashes are equal across runs and machines.
    """
    cdef int n = check_size(size)
    cdef cb.gb_board b
    cb.gb_board_init(&b, n)
    keys = np.empty((2, n * n), dtype=np.uint64)
    cdef uint64_t[:, ::1] k = keys
    for p in range(n * n):
        k[0, p] = cb.gb_zobrist_stone(cb.GB_BLACK, cb.gb_board_loc(&b, p))
        k[1, p] = cb.gb_zobrist_stone(cb.GB_WHITE, cb.gb_board_loc(&b, p))
    return keys


cdef class Board:
    """A Go position with the history its rules need.

    Points are flat indices ``row * size + col`` (row 0 at the top); ``size * size`` is
    pass. See ``goboard.coords`` for GTP vertices.
    """

    cdef cb.gb_board b
    cdef cb.gb_rules crules
    cdef object _rules
    cdef double _komi
    # Superko keys of every position of the game so far; slots owned by this object.
    cdef cb.gb_keyset seen
    # The last 8 stone arrays, for the feature planes.
    cdef cb.gb_stone_history past

    __hash__ = None

    def __cinit__(self):
        self.seen.slots = NULL

    def __init__(self, size=19, komi=7.5, rules="tromp-taylor"):
        _check(cb.gb_board_init(&self.b, check_size(size)))
        self._komi = check_komi(komi)
        self._set_rules(rules)
        self._start_record()

    def __dealloc__(self):
        PyMem_Free(self.seen.slots)

    cdef int _start_record(self) except -1:
        """Forget the game so far: the current position is the first of the record."""
        if self.seen.slots == NULL:
            self.seen.slots = <uint64_t *>PyMem_Malloc(_INITIAL_SLOTS * sizeof(uint64_t))
            if self.seen.slots == NULL:
                raise MemoryError()
            self.seen.mask = _INITIAL_SLOTS - 1
        cb.gb_keyset_init(&self.seen, self.seen.slots, self.seen.mask + 1)
        cb.gb_history_reset(&self.past, &self.b)
        return self._record()

    cdef _set_rules(self, rules):
        self._rules = Rules.coerce(rules)
        self.crules.ko = _KO_RULES[self._rules.ko]
        self.crules.suicide = self._rules.suicide

    cdef int _record(self) except -1:
        """Add the current position's superko key to the set, growing it when half full."""
        cdef int32_t capacity = self.seen.mask + 1, i
        cdef uint64_t *old = self.seen.slots
        cdef uint64_t *grown
        cdef bint has_zero = self.seen.has_zero
        if 2 * (self.seen.count + 1) > capacity:
            grown = <uint64_t *>PyMem_Malloc(2 * capacity * sizeof(uint64_t))
            if grown == NULL:
                raise MemoryError()
            cb.gb_keyset_init(&self.seen, grown, 2 * capacity)
            if has_zero:
                cb.gb_keyset_insert(&self.seen, 0)
            for i in range(capacity):
                if old[i] != 0:
                    cb.gb_keyset_insert(&self.seen, old[i])
            PyMem_Free(old)
        cb.gb_keyset_insert(&self.seen, cb.gb_board_superko_key(&self.b, self.crules.ko))
        return 0

    @classmethod
    def from_stones(cls, stones, to_play=1, komi=7.5, rules="tromp-taylor"):
        """A position from an N x N array of 1 (black), -1 (white), 0 (empty).

        Raises:
            ValueError: not square, size out of range, other values, a string without
                liberty, or ``to_play`` not 1 or -1.
        """
        arr = check_stones(stones)
        if to_play not in (1, -1) or isinstance(to_play, bool):
            raise ValueError(f"to_play must be 1 (black) or -1 (white), not {to_play!r}")
        cdef Board board = cls(arr.shape[0], komi, rules)
        cdef const int8_t[::1] flat = np.ascontiguousarray(arr).ravel()
        _check(cb.gb_board_setup(&board.b, &flat[0], <int8_t>to_play))
        board._start_record()
        return board

    # ---- properties ----------------------------------------------------------------

    @property
    def size(self):
        return self.b.size

    @property
    def komi(self):
        return self._komi

    @komi.setter
    def komi(self, value):
        self._komi = check_komi(value)

    @property
    def rules(self):
        return self._rules

    @property
    def to_play(self):
        return self.b.to_play

    @property
    def move_number(self):
        return self.b.move_number

    @property
    def passes(self):
        return self.b.passes

    @property
    def is_over(self):
        return cb.gb_board_is_over(&self.b)

    @property
    def resigned(self):
        return self.b.resigned if self.b.resigned != cb.GB_EMPTY else None

    @property
    def zobrist(self):
        """XOR of the Zobrist keys of the stones (see ``zobrist_keys``)."""
        return self.b.hash

    @property
    def situation_hash(self):
        """Hash of stones, side to move and ko point: a key for evaluation caches."""
        return cb.gb_board_situation_hash(&self.b)

    @property
    def ko_point(self):
        if self.b.ko_loc == cb.GB_NULL_LOC:
            return None
        return cb.gb_board_point(&self.b, self.b.ko_loc)

    @property
    def captures(self):
        """(stones captured by black, stones captured by white)."""
        return (self.b.captures[0], self.b.captures[1])

    @property
    def last_move(self):
        if self.b.last_move == cb.GB_NULL_LOC:
            return None
        if self.b.last_move == cb.GB_PASS_LOC:
            return self.b.size * self.b.size
        return cb.gb_board_point(&self.b, self.b.last_move)

    # ---- moves ---------------------------------------------------------------------

    cdef cb.gb_loc _loc(self, move) except -1:
        """Mailbox loc of a move, or GB_NULL_LOC (off-board) for out-of-range ints."""
        if isinstance(move, bool):
            raise TypeError("a move must be an int point, not bool")
        try:
            m = operator.index(move)
        except TypeError:
            raise TypeError(
                f"a move must be an int point, not {type(move).__name__}") from None
        cdef int n = self.b.size * self.b.size
        if m == n:
            return cb.GB_PASS_LOC
        if 0 <= m < n:
            return cb.gb_board_loc(&self.b, m)
        return cb.GB_NULL_LOC

    def play(self, move):
        """Play ``move`` for the side to move.

        Raises:
            IllegalMoveError: with ``reason`` off-board, game over, occupied, ko,
                suicide or superko; the board is unchanged.
            TypeError: ``move`` is not an int.
        """
        cdef cb.gb_loc loc = self._loc(move)
        _check(cb.gb_board_play(&self.b, loc, &self.crules, &self.seen), move)
        cb.gb_history_push(&self.past, &self.b)
        self._record()

    def play_gtp(self, vertex):
        """Play a GTP vertex such as "D4" or "pass"."""
        self.play(from_gtp(vertex, self.b.size))

    def is_legal(self, move):
        """True if ``play(move)`` would succeed (False for out-of-range points)."""
        cdef cb.gb_loc loc = self._loc(move)
        return cb.gb_board_legality(&self.b, loc, &self.crules, &self.seen) == cb.GB_OK

    def legal_mask(self):
        """Bool array [N*N + 1]: which points (and pass, last) are legal."""
        mask = np.empty(self.b.size * self.b.size + 1, dtype=np.uint8)
        cdef uint8_t[::1] out = mask
        cb.gb_board_legal_mask(&self.b, &self.crules, &self.seen, &out[0])
        return mask.view(np.bool_)

    def legal_moves(self):
        """Sorted int array of the legal points, pass included while the game goes on."""
        return np.flatnonzero(self.legal_mask())

    def resign(self):
        """The side to move resigns; the game is over."""
        _check(cb.gb_board_resign(&self.b))

    # ---- copies and comparison -----------------------------------------------------

    def copy(self):
        """An independent copy: struct copies plus the superko key set."""
        cdef Board other = Board.__new__(Board)
        cdef size_t nbytes = (self.seen.mask + 1) * sizeof(uint64_t)
        other.b = self.b
        other.crules = self.crules
        other._rules = self._rules
        other._komi = self._komi
        other.past = self.past
        other.seen = self.seen
        other.seen.slots = <uint64_t *>PyMem_Malloc(nbytes)
        if other.seen.slots == NULL:
            raise MemoryError()
        memcpy(other.seen.slots, self.seen.slots, nbytes)
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __eq__(self, other):
        if not isinstance(other, Board):
            return NotImplemented
        cdef Board o = other
        if (self.b.size != o.b.size or self.b.to_play != o.b.to_play
                or self.b.ko_loc != o.b.ko_loc or self.b.hash != o.b.hash):
            return False
        return bool((self.stones() == o.stones()).all())

    def __reduce__(self):
        raise TypeError("pickle the move list instead (pickling is not supported yet)")

    # ---- position queries ----------------------------------------------------------

    cdef cb.gb_loc _point_loc(self, point) except -1:
        if isinstance(point, bool):
            raise TypeError("a point must be an int, not bool")
        p = operator.index(point)
        if not 0 <= p < self.b.size * self.b.size:
            raise ValueError(f"point {p} is off a {self.b.size}x{self.b.size} board")
        return cb.gb_board_loc(&self.b, p)

    def stones(self):
        """int8 array [N, N] of 1 (black), -1 (white), 0 (empty): a copy."""
        cdef int n = self.b.size
        arr = np.empty((n, n), dtype=np.int8)
        cdef int8_t[:, ::1] out = arr
        for r in range(n):
            for c in range(n):
                out[r, c] = self.b.color[cb.gb_board_loc(&self.b, r * n + c)]
        return arr

    def liberties(self, point):
        """Liberties of the string at ``point`` (0 for an empty point)."""
        cdef cb.gb_loc v = self._point_loc(point)
        if self.b.color[v] == cb.GB_EMPTY:
            return 0
        return self.b.libs[self.b.head[v]]

    def string(self, point):
        """Sorted int array of the points of the string at ``point`` (empty if none)."""
        cdef cb.gb_loc v = self._point_loc(point)
        if self.b.color[v] == cb.GB_EMPTY:
            return np.empty(0, dtype=np.intp)
        points = []
        cdef cb.gb_loc s = v
        while True:
            points.append(cb.gb_board_point(&self.b, s))
            s = self.b.next[s]
            if s == v:
                break
        return np.array(sorted(points), dtype=np.intp)

    def ownership(self):
        """int8 array [N, N]: +1 black area, -1 white area, 0 neutral (Tromp-Taylor)."""
        cdef int n = self.b.size
        arr = np.empty((n, n), dtype=np.int8)
        cdef int8_t[:, ::1] out = arr
        cb.gb_board_ownership(&self.b, &out[0, 0])
        return arr

    def score(self, komi=None):
        """Tromp-Taylor area score from Black's view, minus komi (the board's if None)."""
        cdef double k = self._komi if komi is None else check_komi(komi)
        return cb.gb_board_score(&self.b, k)

    def result(self):
        """SGF/GTP result: "B+3.5", "W+0.5", "0" for a tie, "B+R"/"W+R" on resignation."""
        if self.b.resigned != cb.GB_EMPTY:
            return "W+R" if self.b.resigned == cb.GB_BLACK else "B+R"
        s = self.score()
        if s == 0:
            return "0"
        return f"{'B' if s > 0 else 'W'}+{abs(s):g}"

    def _check_invariants(self):
        """Recount everything from scratch; AssertionError naming a broken invariant."""
        cdef int rc = cb.gb_board_check(&self.b)
        if rc != cb.GB_OK:
            raise AssertionError(cb.gb_strerror(rc).decode())
        if not cb.gb_keyset_contains(
                &self.seen, cb.gb_board_superko_key(&self.b, self.crules.ko)):
            raise AssertionError("invariant broken: superko history")

    def __repr__(self):
        return (f"<goboard.Board size={self.b.size} to_play="
                f"{'B' if self.b.to_play == 1 else 'W'} move={self.b.move_number}>")

    def __str__(self):
        from .text import render
        return render(self)
