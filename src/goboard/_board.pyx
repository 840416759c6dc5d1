"""The compiled board: a thin wrapper that validates, calls the C core, maps errors."""

from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from . cimport cboard as cb

import operator

import numpy as np

from .coords import check_size, from_gtp
from .errors import IllegalMoveError
from .pattern_features import check_weights as check_pattern_weights
from .pattern_features import renormalise_legal as _renormalise_legal
from .rules import TROMP_TAYLOR, Rules, check_komi
from .text import check_stones

_KO_RULES = {"simple": cb.GB_KO_SIMPLE, "positional": cb.GB_KO_POSITIONAL,
             "situational": cb.GB_KO_SITUATIONAL}
_ILLEGAL = {cb.GB_ERR_OFF_BOARD, cb.GB_ERR_OCCUPIED, cb.GB_ERR_KO, cb.GB_ERR_SUICIDE,
            cb.GB_ERR_SUPERKO, cb.GB_ERR_GAME_OVER}


# Python ints of every point, so legal_moves() allocates no int objects.
cdef tuple _POINTS = tuple(range(cb.GB_MAX_POINTS + 1))

# Passed to Board.__new__ by the module's own copies, which set every field themselves.
cdef object _BARE = object()

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


cdef int _keyset_add(cb.gb_keyset *keys, uint64_t key, int stones) except -1:
    """Insert the key of a position with ``stones`` stones into a Python-owned key set,
    doubling its slots when half full."""
    cdef int32_t capacity = keys.mask + 1, i
    cdef uint64_t *old = keys.slots
    cdef uint64_t *grown
    cdef bint has_zero = keys.has_zero
    cdef int most = keys.most_stones
    if 2 * (keys.count + 1) > capacity:
        grown = <uint64_t *>PyMem_Malloc(2 * capacity * sizeof(uint64_t))
        if grown == NULL:
            raise MemoryError()
        cb.gb_keyset_init(keys, grown, 2 * capacity)
        if has_zero:
            cb.gb_keyset_insert(keys, 0, most)
        for i in range(capacity):
            if old[i] != 0:
                cb.gb_keyset_insert(keys, old[i], most)
        PyMem_Free(old)
    cb.gb_keyset_insert(keys, key, stones)
    return 0


cdef int _keyset_copy(cb.gb_keyset *dst, const cb.gb_keyset *src) except -1:
    """Make dst an independent copy of src (dst's old slots are not freed)."""
    cdef size_t nbytes = (src.mask + 1) * sizeof(uint64_t)
    cdef uint64_t *slots = <uint64_t *>PyMem_Malloc(nbytes)
    if slots == NULL:
        raise MemoryError()
    memcpy(slots, src.slots, nbytes)
    dst[0] = src[0]
    dst.slots = slots
    return 0


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

    def __cinit__(self, *args, **kwargs):
        # Every object is a valid board from birth, even one made by Board.__new__
        # whose __init__ never runs: the empty 19x19 board of Board(). Only the
        # module's own copies (_BARE) skip this, as they overwrite every field.
        self.seen.slots = NULL
        if args and args[0] is _BARE:
            return
        cb.gb_board_init(&self.b, 19)
        self._komi = 7.5
        self._set_rules(TROMP_TAYLOR)
        self._start_record()

    def __init__(self, size=19, komi=7.5, rules="tromp-taylor"):
        # Check everything before changing anything: a second __init__ with a bad
        # argument leaves the board as it was.
        cdef int n = check_size(size)
        cdef double k = check_komi(komi)
        rules = Rules.coerce(rules)
        _check(cb.gb_board_init(&self.b, n))
        self._komi = k
        self._set_rules(rules)
        self._start_record()

    def __dealloc__(self):
        PyMem_Free(self.seen.slots)

    cdef int _start_record(self) except -1:
        """Forget the game so far: the current position is the first of the record."""
        if self.seen.slots == NULL:
            self.seen.slots = <uint64_t *>PyMem_Malloc(
                _INITIAL_SLOTS * sizeof(uint64_t))
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
        """Add the current position's superko key to the record."""
        return _keyset_add(&self.seen, cb.gb_board_superko_key(&self.b, self.crules.ko),
                           cb.gb_board_stone_count(&self.b))

    @classmethod
    def from_stones(cls, stones, to_play=1, komi=7.5, rules="tromp-taylor"):
        """A position from an N x N array of 1 (black), -1 (white), 0 (empty).

        Raises:
            ValueError: not square, size out of range, other values, a string without
                liberty, or ``to_play`` not 1 or -1.
        """
        arr = check_stones(stones)
        if to_play not in (1, -1) or isinstance(to_play, bool):
            raise ValueError(
                f"to_play must be 1 (black) or -1 (white), not {to_play!r}")
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
        cdef int n = self.b.size * self.b.size
        cdef int overflow = 0
        cdef long m
        if type(move) is not int:  # bool is a subclass, so it takes this path too
            if isinstance(move, bool):
                raise TypeError("a move must be an int point, not bool")
            try:
                move = operator.index(move)
            except TypeError:
                raise TypeError(
                    f"a move must be an int point, not {type(move).__name__}") from None
        m = PyLong_AsLongAndOverflow(move, &overflow)
        if overflow or m < 0 or m > n:
            return cb.GB_NULL_LOC
        return cb.GB_PASS_LOC if m == n else cb.gb_board_loc(&self.b, <int>m)

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
        """Sorted list of the legal points, pass (N*N) last; empty once it is over."""
        cdef int16_t points[cb.GB_MAX_POINTS + 1]
        cdef int count = cb.gb_board_legal_points(&self.b, &self.crules, &self.seen,
                                                  points)
        cdef list moves = PyList_New(count)
        cdef object point
        for i in range(count):
            point = <object>PyTuple_GET_ITEM(_POINTS, points[i])
            Py_INCREF(point)  # PyList_SET_ITEM steals the reference
            PyList_SET_ITEM(moves, i, point)
        return moves

    def resign(self):
        """The side to move resigns; the game is over."""
        _check(cb.gb_board_resign(&self.b))

    def set_to_play(self, colour):
        """Make ``colour`` the side to move without a move (a GTP genmove out of turn,
        a position being edited): no pass is counted and the passes so far are
        forgotten; the ko ban and the last move, the other side's, go; the game's
        record (superko, feature history) carries on. Nothing changes if ``colour`` is
        already to move.

        Raises:
            ValueError: ``colour`` is not 1 or -1.
            IllegalMoveError: the game is over (reason "game over").
        """
        if colour not in (1, -1) or isinstance(colour, bool):
            raise ValueError(f"colour must be 1 (black) or -1 (white), not {colour!r}")
        cdef int8_t before = self.b.to_play
        _check(cb.gb_board_set_to_play(&self.b, <int8_t>colour))
        if self.b.to_play != before:
            self._record()

    # ---- playouts and features -----------------------------------------------------

    def random_playout(self, seed, max_moves=None):
        """Final Tromp-Taylor score of one random playout from here (board unchanged).

        The policy and its simple-ko-only rule are described in ``playouts``.
        """
        scores, _ = playouts(self, 1, seed, max_moves)
        return float(scores[0])

    def is_true_eye(self, point, colour):
        """True if the empty ``point`` is a true eye of ``colour`` (playout rule)."""
        cdef cb.gb_loc v = self._point_loc(point)
        if colour not in (1, -1) or isinstance(colour, bool):
            raise ValueError(f"colour must be 1 (black) or -1 (white), not {colour!r}")
        return cb.gb_board_is_true_eye(&self.b, v, <cb.gb_color>colour)

    def features(self, kind="agz17", out=None, dtype=None):
        """Input planes [C, N, N] of this position, from the side to move's view.

        ``out`` (float32 or uint8, C-contiguous) is filled and returned if given.
        """
        if out is None:
            return features_batch([self], kind, None, dtype)[0]
        features_batch([self], kind, _with_batch_axis(out), dtype)
        return out

    # ---- copies and comparison -----------------------------------------------------

    def copy(self):
        """An independent copy: struct copies plus the superko key set."""
        cdef Board other = Board.__new__(Board, _BARE)
        other.b = self.b
        other.crules = self.crules
        other._rules = self._rules
        other._komi = self._komi
        other.past = self.past
        _keyset_copy(&other.seen, &self.seen)
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
        """Tromp-Taylor area from Black's view minus komi (the board's if None)."""
        cdef double k = self._komi if komi is None else check_komi(komi)
        return cb.gb_board_score(&self.b, k)

    def result(self):
        """SGF/GTP result: "B+3.5", "W+0.5", "0" (tie), "B+R"/"W+R" (resignation)."""
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


# ---- batched entry points: one C loop each, without the GIL --------------------------

FEATURE_KINDS = ("agz17", "lz18", "alphago48", "alphago49")
_FEATURE_SETS = {"agz17": cb.GB_FEATURES_AGZ17, "lz18": cb.GB_FEATURES_LZ18,
                 "alphago48": cb.GB_FEATURES_ALPHAGO48,
                 "alphago49": cb.GB_FEATURES_ALPHAGO49}


cdef int _feature_set(kind) except -1:
    try:
        return _FEATURE_SETS[kind]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown feature kind {kind!r}; kinds are {FEATURE_KINDS}") from None


def feature_planes(kind):
    """[(name, description)] of the planes of ``kind``, in plane order."""
    cdef int fs = _feature_set(kind)
    cdef const cb.gb_plane_info *info
    planes = []
    for i in range(cb.gb_features_count(fs)):
        info = cb.gb_features_plane(fs, i)
        planes.append((info.name.decode(), info.description.decode()))
    return planes


def _with_batch_axis(out):
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    return out[np.newaxis]


cdef list _same_size_boards(boards):
    """The boards as a list (which keeps them alive while C reads them), checked."""
    try:
        batch = list(boards)
    except TypeError:
        raise TypeError("boards must be an iterable of goboard.Board") from None
    if not batch:
        raise ValueError("the batch is empty")
    for board in batch:
        if not isinstance(board, Board):
            raise TypeError(f"boards must be goboard.Board, not {type(board).__name__}")
        if (<Board>board).b.size != (<Board>batch[0]).b.size:
            raise ValueError("all boards of a batch must have the same size")
    return batch


def _check_out(out, shape, dtypes):
    """Validate a caller-owned output array: type, dtype, shape, layout."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.dtype not in dtypes:
        names = " or ".join(str(np.dtype(d)) for d in dtypes)
        raise TypeError(f"out must have dtype {names}, not {out.dtype}")
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape}, not {out.shape}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be a writeable C-contiguous array")


def features_batch(boards, kind="agz17", out=None, dtype=None):
    """Input planes [B, C, N, N] for a batch of same-size boards, in one C loop.

    Args:
        boards: the positions (goboard.Board), all of one size.
        kind: a plane set of ``FEATURE_KINDS`` (see ``feature_planes``).
        out: optional float32 or uint8 C-contiguous array to fill and return.
        dtype: float32 (default) or uint8, for a new array when ``out`` is None.

    Raises:
        TypeError: a non-board, or ``out``/``dtype`` of the wrong type.
        ValueError: an empty batch, mixed sizes, unknown kind, wrong ``out`` shape.
    """
    cdef list batch = _same_size_boards(boards)
    cdef int fs = _feature_set(kind)
    cdef int64_t n = len(batch), i
    cdef int size = (<Board>batch[0]).b.size
    cdef Board board
    out = _planes_out(out, (n, cb.gb_features_count(fs), size, size), dtype)
    cdef const cb.gb_board **bp = <const cb.gb_board **>PyMem_Malloc(
        n * sizeof(cb.gb_board *))
    cdef const cb.gb_stone_history **hp = <const cb.gb_stone_history **>PyMem_Malloc(
        n * sizeof(cb.gb_stone_history *))
    # Move planes need each board's legal moves under its own rules; the writer finds
    # them board by board, from the rules and the superko keys.
    cdef const cb.gb_rules **rp = <const cb.gb_rules **>PyMem_Malloc(
        n * sizeof(cb.gb_rules *))
    cdef const cb.gb_keyset **kp = <const cb.gb_keyset **>PyMem_Malloc(
        n * sizeof(cb.gb_keyset *))
    cdef cb.gb_legal_source legal
    try:
        if bp == NULL or hp == NULL or rp == NULL or kp == NULL:
            raise MemoryError()
        for i in range(n):
            board = batch[i]
            bp[i] = &board.b
            hp[i] = &board.past
            rp[i] = &board.crules
            kp[i] = &board.seen
        legal.mask = NULL
        legal.rules = rp
        legal.keys = kp
        _write_planes(bp, hp, &legal, n, fs, out)
    finally:
        PyMem_Free(bp)
        PyMem_Free(hp)
        PyMem_Free(rp)
        PyMem_Free(kp)
    return out


def _planes_out(out, shape, dtype):
    """A new planes array of ``shape``, or ``out`` checked against it."""
    dt = np.dtype(np.float32 if dtype is None else dtype)
    if dt not in (np.float32, np.uint8):
        raise TypeError(f"dtype must be float32 or uint8, not {dt}")
    if out is None:
        return np.empty(shape, dtype=dt)
    _check_out(out, shape, (np.float32, np.uint8) if dtype is None else (dt,))
    return out


cdef int _write_planes(const cb.gb_board **bp, const cb.gb_stone_history **hp,
                       const cb.gb_legal_source *legal, int64_t n, int fs,
                       out) except -1:
    """Fill the checked C-contiguous ``out`` (float32 or uint8) without the GIL.

    ``legal`` says where the move planes find each board's legal moves; the other
    kinds ignore it.
    """
    cdef float[::1] f32
    cdef uint8_t[::1] u8
    cdef int64_t stride_b = out.shape[1] * out.shape[2] * out.shape[3]
    cdef cb.gb_board *scratch = NULL
    if cb.gb_features_need_moves(fs):
        scratch = <cb.gb_board *>PyMem_Malloc(cb.GB_LADDER_DEPTH * sizeof(cb.gb_board))
        if scratch == NULL:
            raise MemoryError()
    try:
        if out.dtype == np.float32:
            f32 = out.reshape(-1)
            with nogil:
                cb.gb_features_write_f32(bp, hp, legal, n, fs, scratch, &f32[0],
                                         stride_b)
        else:
            u8 = out.reshape(-1)
            with nogil:
                cb.gb_features_write_u8(bp, hp, legal, n, fs, scratch, &u8[0], stride_b)
    finally:
        PyMem_Free(scratch)
    return 0


def legal_mask_batch(boards, out=None):
    """Legal masks [B, N*N + 1] (bool) of a batch of same-size boards, in one C loop."""
    cdef list batch = _same_size_boards(boards)
    cdef int64_t n = len(batch), i
    cdef int size = (<Board>batch[0]).b.size
    cdef int64_t width = size * size + 1
    shape = (n, width)
    if out is None:
        out = np.empty(shape, dtype=np.bool_)
    else:
        _check_out(out, shape, (np.bool_,))
    cdef uint8_t[::1] flat = out.reshape(-1).view(np.uint8)
    cdef Board board
    for i in range(n):
        board = batch[i]
        with nogil:
            cb.gb_board_legal_mask(&board.b, &board.crules, &board.seen,
                                   &flat[i * width])
    return out


cdef uint64_t _seed(seed) except? 0:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    return int(seed) % (1 << 64)


cdef int64_t _count(value, what) except -1:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < (1 << 31):
        raise ValueError(f"{what} must be in 0..2**31 - 1, not {value}")
    return value


def playouts(board, n, seed, max_moves=None, ownership=False):
    """Run ``n`` random playouts from ``board`` in one C loop without the GIL.

    Each playout plays, for the side to move, a uniformly random legal move that does
    not fill one of its own true eyes (see ``Board.is_true_eye``), passes when none is
    left, and stops after two passes in a row or ``max_moves`` moves (default 3 N^2).
    Playouts use simple ko and forbid suicide whatever the board's rules: superko needs
    the game record, which they do not carry. Playout i draws from stream i of ``seed``,
    so the results are reproducible and independent of how a batch is split.

    Returns:
        (scores, stones): float64 [n] Tromp-Taylor scores of the final positions (black
        minus white minus komi) and int32 [n] stones each playout placed; with
        ``ownership=True`` also int32 [N, N], the sum over playouts of each point's
        final owner (+1 black, -1 white), so ``ownership / n`` is the mean.
    """
    if not isinstance(board, Board):
        raise TypeError(f"board must be a goboard.Board, not {type(board).__name__}")
    cdef Board start = board
    cdef int64_t count = _count(n, "n")
    cdef uint64_t s = _seed(seed)
    cdef int size = start.b.size
    cdef int moves = 3 * size * size
    if max_moves is not None:
        moves = _count(max_moves, "max_moves")
    scores = np.zeros(count, dtype=np.float64)
    placed = np.zeros(count, dtype=np.int32)
    owners = np.zeros((size, size), dtype=np.int32)
    cdef double[::1] sc = scores
    cdef int32_t[::1] pl = placed
    cdef int32_t[:, ::1] ow = owners
    cdef int32_t *own = &ow[0, 0] if ownership else NULL
    if count > 0:
        with nogil:
            cb.gb_playouts(&start.b, count, s, moves, start._komi, &sc[0], &pl[0], own)
    return (scores, placed, owners) if ownership else (scores, placed)


#: The deepest perft: bounds gb_perft's recursion (its C stack).
MAX_PERFT_DEPTH = 64


def perft(board, depth):
    """Leaves of the legal-move tree ``depth`` moves deep (pass included) under the
    board's own rules and superko history; a finished game has no moves."""
    if not isinstance(board, Board):
        raise TypeError(f"board must be a goboard.Board, not {type(board).__name__}")
    cdef Board start = board
    cdef int64_t d = _count(depth, "depth")
    # gb_perft recurses once per ply with a board on the stack (~7 kB a frame); no
    # position has a tree this deep that could be counted in a lifetime anyway.
    if d > MAX_PERFT_DEPTH:
        raise ValueError(f"depth must be in 0..{MAX_PERFT_DEPTH}, not {d}")
    # A private key set with room for the keys the search adds along a line.
    cdef int64_t capacity = 2
    while capacity < 2 * (start.seen.count + d + 1):
        capacity *= 2
    cdef uint64_t *slots = <uint64_t *>PyMem_Malloc(capacity * sizeof(uint64_t))
    if slots == NULL:
        raise MemoryError()
    cdef cb.gb_keyset keys
    cdef uint64_t leaves
    cb.gb_keyset_init(&keys, slots, capacity)
    if start.seen.has_zero:
        cb.gb_keyset_insert(&keys, 0, start.seen.most_stones)
    for i in range(start.seen.mask + 1):
        if start.seen.slots[i] != 0:
            cb.gb_keyset_insert(&keys, start.seen.slots[i], start.seen.most_stones)
    try:
        with nogil:
            leaves = cb.gb_perft(&start.b, &start.crules, &keys, <int>d)
    finally:
        PyMem_Free(slots)
    return leaves


cdef _int_array(values, dtype, what):
    """``values`` as a contiguous 1-D integer array of ``dtype`` (a scalar becomes one
    element); floats, bools and other kinds raise TypeError."""
    if type(values) is np.ndarray and values.dtype == dtype and values.ndim == 1 \
            and values.flags.c_contiguous:
        return values  # the search's own arrays: no copy, no checks to repeat
    arr = np.asarray(values)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"{what} must be a 1-D sequence of ints")
    limits = np.iinfo(dtype)
    if arr.size and (arr.min() < limits.min or arr.max() > limits.max):
        raise ValueError(f"{what} out of range")
    return np.ascontiguousarray(arr, dtype=dtype)


# ---- search-tree positions ----------------------------------------------------------

cdef void _pool_free(cb.gb_pool *p, uint64_t *path) noexcept:
    """Free what a pool struct owns (NULL pointers are fine) and zero it."""
    if p.record != NULL:
        for i in range(p.games):
            PyMem_Free(p.record[i].slots)
    PyMem_Free(p.boards)
    PyMem_Free(p.parent)
    PyMem_Free(p.move)
    PyMem_Free(p.key)
    PyMem_Free(p.valid)
    PyMem_Free(p.stamp)
    PyMem_Free(p.rules)
    PyMem_Free(p.komi)
    PyMem_Free(p.record)
    PyMem_Free(p.past)
    PyMem_Free(path)
    memset(p, 0, sizeof(p[0]))


cdef class Pool:
    """Positions of search trees, one C board per node (see pool.h and the README).

    ``Pool(roots, slots_per_root)`` holds one tree per root board; slot ``g * M`` is
    game g's root and slots ``g * M + 1 .. g * M + M - 1`` are for its nodes, filled
    by ``expand``. Slot arguments are absolute slot numbers.
    """

    cdef cb.gb_pool p
    cdef list _rules
    cdef uint64_t *path  # scratch: superko keys along a path (slots_per_root)

    def __cinit__(self):
        memset(&self.p, 0, sizeof(self.p))
        self.path = NULL

    def __init__(self, roots, slots_per_root):
        cdef list games = _same_size_boards(roots)
        cdef int64_t g = len(games)
        cdef int64_t m = _count(slots_per_root, "slots_per_root")
        if m < 1 or g * m >= (1 << 31):
            raise ValueError(f"slots_per_root must be in 1..2**31 / games, not {m}")
        # Allocate into a fresh struct and only then let go of the old one: a failed
        # allocation (or a second __init__) never leaves a half-built pool behind.
        cdef cb.gb_pool fresh
        cdef uint64_t *path = NULL
        memset(&fresh, 0, sizeof(fresh))
        n = g * m
        fresh.boards = <cb.gb_board *>PyMem_Malloc(n * sizeof(cb.gb_board))
        fresh.parent = <int32_t *>PyMem_Malloc(n * sizeof(int32_t))
        fresh.move = <int16_t *>PyMem_Malloc(n * sizeof(int16_t))
        fresh.key = <uint64_t *>PyMem_Malloc(n * sizeof(uint64_t))
        fresh.valid = <uint8_t *>PyMem_Malloc(n * sizeof(uint8_t))
        fresh.stamp = <uint32_t *>PyMem_Malloc(n * sizeof(uint32_t))
        fresh.rules = <cb.gb_rules *>PyMem_Malloc(g * sizeof(cb.gb_rules))
        fresh.komi = <double *>PyMem_Malloc(g * sizeof(double))
        fresh.record = <cb.gb_keyset *>PyMem_Malloc(g * sizeof(cb.gb_keyset))
        fresh.past = <cb.gb_stone_history *>PyMem_Malloc(
            g * sizeof(cb.gb_stone_history))
        path = <uint64_t *>PyMem_Malloc(m * sizeof(uint64_t))
        if fresh.record != NULL:
            memset(fresh.record, 0, g * sizeof(cb.gb_keyset))  # slots NULL until set
        fresh.games = <int32_t>g
        if (fresh.boards == NULL or fresh.parent == NULL or fresh.move == NULL
                or fresh.key == NULL or fresh.valid == NULL or fresh.stamp == NULL
                or fresh.rules == NULL or fresh.komi == NULL or fresh.record == NULL
                or fresh.past == NULL or path == NULL):
            _pool_free(&fresh, path)
            raise MemoryError(f"no memory for a pool of {g} x {m} positions")
        memset(fresh.valid, 0, n)
        memset(fresh.stamp, 0, n * sizeof(uint32_t))
        fresh.epoch = 0
        fresh.slots_per_root = <int32_t>m
        _pool_free(&self.p, self.path)
        self.p = fresh
        self.path = path
        self._rules = [None] * g
        for i in range(g):
            self.set_root(i, games[i])

    def __dealloc__(self):
        _pool_free(&self.p, self.path)

    cdef int _ready(self) except -1:
        if self.p.boards == NULL:
            raise ValueError("this Pool was never initialised: call Pool(roots, slots)")
        return 0

    @property
    def games(self):
        return self.p.games

    @property
    def slots_per_root(self):
        return self.p.slots_per_root

    @property
    def size(self):
        self._ready()
        return self.p.boards[0].size

    def set_root(self, g, board):
        """Slot ``g * M`` becomes a copy of ``board``; game g's other slots free up."""
        cdef int32_t game = self._game(g)
        if not isinstance(board, Board):
            raise TypeError(
                f"board must be a goboard.Board, not {type(board).__name__}")
        cdef Board root = board
        if self.p.valid[0] and root.b.size != self.p.boards[0].size:
            raise ValueError("all roots of a pool must have the same size")
        cdef int64_t base = <int64_t>game * self.p.slots_per_root
        cdef uint64_t *old = self.p.record[game].slots
        _keyset_copy(&self.p.record[game], &root.seen)
        PyMem_Free(old)
        self.p.boards[base] = root.b
        self.p.rules[game] = root.crules
        self.p.komi[game] = root._komi
        self.p.past[game] = root.past
        self._rules[game] = root._rules
        memset(&self.p.valid[base], 0, self.p.slots_per_root)
        for i in range(self.p.slots_per_root):
            self.p.parent[base + i] = -1
        self.p.move[base] = -1
        self.p.key[base] = cb.gb_board_superko_key(&root.b, root.crules.ko)
        self.p.valid[base] = 1

    cdef int32_t _game(self, g) except -1:
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)):
            raise TypeError(f"a game index must be an int, not {type(g).__name__}")
        if not 0 <= g < self.p.games:
            raise ValueError(f"game {g} is not in 0..{self.p.games - 1}")
        return g

    cdef _slots(self, slots):
        """Slots as a contiguous int64 array, each in the pool, holding a position."""
        self._ready()
        arr = _int_array(slots, np.int64, "slots")
        cdef const int64_t[::1] view = arr
        cdef int64_t failed = 0
        if arr.shape[0]:
            rc = cb.gb_pool_check_slots(&self.p, &view[0], arr.shape[0], &failed)
            if rc != cb.GB_OK:
                raise ValueError(f"slot {view[failed]}: {cb.gb_strerror(rc).decode()}")
        return arr

    cdef int64_t _slot(self, slot) except -1:
        """One slot (an int) in the pool that holds a position."""
        if isinstance(slot, bool) or not isinstance(slot, (int, np.integer)):
            raise TypeError(f"a slot must be an int, not {type(slot).__name__}")
        return self._slots(slot)[0]

    def expand(self, parents, actions, children):
        """Play ``actions[i]`` in a copy of slot ``parents[i]`` into ``children[i]``.

        Raises:
            ValueError: slots outside the pool or the parent's game, a child that is a
                root, repeated or a parent of this call, or an empty parent.
            goboard.IllegalMoveError: an illegal action (superko along the path
                included); nothing is changed.
        """
        self._ready()
        cdef const int64_t[::1] pv = _int_array(parents, np.int64, "parents")
        cdef const int64_t[::1] cv = _int_array(children, np.int64, "children")
        cdef const int32_t[::1] av = _int_array(actions, np.int32, "actions")
        cdef int64_t failed = 0, n = pv.shape[0]
        cdef int rc = cb.GB_OK
        if not (n == cv.shape[0] == av.shape[0]):
            raise ValueError("parents, actions and children must have the same length")
        if n == 0:
            return  # nothing to do (and av[failed] below would read past the end)
        with nogil:
            rc = cb.gb_pool_expand(&self.p, &pv[0], &av[0], &cv[0], n, self.path,
                                   &failed)
        if rc == cb.GB_ERR_SLOT or rc == cb.GB_ERR_EMPTY_SLOT:
            raise ValueError(f"expand entry {failed} (parent {pv[failed]}, child "
                             f"{cv[failed]}): {cb.gb_strerror(rc).decode()}")
        _check(rc, av[failed])

    def legal_masks(self, slots, out=None):
        """Legal masks [n, N*N + 1] of the slots' positions."""
        return self._point_masks(slots, out, False)

    def eye_masks(self, slots, out=None):
        """bool [n, N*N + 1]: the true eyes (``Board.is_true_eye``) of the side to
        move at each slot; pass is False."""
        return self._point_masks(slots, out, True)

    cdef _point_masks(self, slots, out, bint eyes):
        """bool [n, N*N + 1] per slot: its legal moves, or the mover's true eyes."""
        s = self._slots(slots)
        cdef int64_t n = len(s), width = self.p.boards[0].size ** 2 + 1
        if out is None:
            out = np.empty((n, width), dtype=np.bool_)
        else:
            _check_out(out, (n, width), (np.bool_,))
        if n == 0:
            return out
        cdef const int64_t[::1] sv = s
        cdef uint8_t[::1] flat = out.reshape(-1).view(np.uint8)
        with nogil:
            if eyes:
                cb.gb_pool_eye_masks(&self.p, &sv[0], n, &flat[0])
            else:
                cb.gb_pool_legal_masks(&self.p, &sv[0], n, &flat[0], self.path)
        return out

    def features(self, slots, kind="agz17", out=None, dtype=None):
        """Input planes [n, C, N, N] of the slots' positions (``features_batch``)."""
        s = self._slots(slots)
        cdef int fs = _feature_set(kind)
        cdef int64_t n = len(s), i
        cdef int size = self.p.boards[0].size
        shape = (n, cb.gb_features_count(fs), size, size)
        out = _planes_out(out, shape, dtype)
        if n == 0:
            return out
        cdef const int64_t[::1] sv = s
        cdef int64_t width = size * size + 1
        cdef cb.gb_stone_history *hist = <cb.gb_stone_history *>PyMem_Malloc(
            n * sizeof(cb.gb_stone_history))
        cdef const cb.gb_board **bp = <const cb.gb_board **>PyMem_Malloc(
            n * sizeof(cb.gb_board *))
        cdef const cb.gb_stone_history **hp = (
            <const cb.gb_stone_history **>PyMem_Malloc(
                n * sizeof(cb.gb_stone_history *)))
        cdef uint8_t *masks = NULL
        cdef const uint8_t **lp = NULL
        cdef cb.gb_legal_source legal
        cdef bint moves = cb.gb_features_need_moves(fs)
        try:
            if moves:
                masks = <uint8_t *>PyMem_Malloc(n * width)
                lp = <const uint8_t **>PyMem_Malloc(n * sizeof(uint8_t *))
            if hist == NULL or bp == NULL or hp == NULL or (
                    moves and (masks == NULL or lp == NULL)):
                raise MemoryError()
            with nogil:
                for i in range(n):
                    cb.gb_pool_stone_history(&self.p, sv[i], &hist[i])
                    bp[i] = &self.p.boards[sv[i]]
                    hp[i] = &hist[i]
                if moves:  # legality with superko along each slot's path
                    cb.gb_pool_legal_masks(&self.p, &sv[0], n, masks, self.path)
                    for i in range(n):
                        lp[i] = &masks[i * width]
            legal.mask = lp
            legal.rules = NULL
            legal.keys = NULL
            _write_planes(bp, hp, &legal, n, fs, out)
        finally:
            PyMem_Free(hist)
            PyMem_Free(bp)
            PyMem_Free(hp)
            PyMem_Free(masks)
            PyMem_Free(lp)
        return out

    def to_play(self, slots):
        """int8 [n]: 1 if black is to move at each slot, -1 if white."""
        cdef const int64_t[::1] sv = self._slots(slots)
        return np.array([self.p.boards[sv[i]].to_play for i in range(sv.shape[0])],
                        dtype=np.int8)

    def is_over(self, slots):
        """bool [n]: the game at each slot has ended (two passes in a row)."""
        cdef const int64_t[::1] sv = self._slots(slots)
        return np.array([cb.gb_board_is_over(&self.p.boards[sv[i]])
                         for i in range(sv.shape[0])], dtype=np.bool_)

    def scores(self, slots):
        """float64 [n]: Tromp-Taylor score, Black's view, minus the game's komi."""
        cdef const int64_t[::1] sv = self._slots(slots)
        cdef int64_t m = self.p.slots_per_root
        return np.array([cb.gb_board_score(&self.p.boards[sv[i]],
                                           self.p.komi[sv[i] // m])
                         for i in range(sv.shape[0])], dtype=np.float64)

    def eval_keys(self, slots):
        """uint64 [n]: hash of what a network sees (8 positions, turn, ko point)."""
        cdef const int64_t[::1] sv = self._slots(slots)
        keys = np.empty(sv.shape[0], dtype=np.uint64)
        cdef uint64_t[::1] kv = keys
        for i in range(sv.shape[0]):
            kv[i] = cb.gb_pool_eval_key(&self.p, sv[i])
        return keys

    def playouts(self, slots, n, seed):
        """float64 [len(slots), n]: final scores (Black's view, minus komi) of random
        playouts from each slot (the policy of ``goboard.playouts``)."""
        cdef const int64_t[::1] sv = self._slots(slots)
        cdef int64_t count = _count(n, "n"), k = sv.shape[0], i
        cdef uint64_t s = _seed(seed)
        cdef int64_t m = self.p.slots_per_root
        cdef int moves = 3 * self.p.boards[0].size * self.p.boards[0].size
        scores = np.zeros((k, count), dtype=np.float64)
        placed = np.zeros(max(count, 1), dtype=np.int32)
        cdef double[:, ::1] sc = scores
        cdef int32_t[::1] pl = placed
        if count == 0:
            return scores
        with nogil:
            for i in range(k):
                # Each slot of a call gets its own streams.
                cb.gb_playouts(&self.p.boards[sv[i]], count,
                               s ^ (<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL), moves,
                               self.p.komi[sv[i] // m], &sc[i, 0], &pl[0], NULL)
        return scores

    def parent(self, slot):
        """Parent slot of ``slot`` (-1 for a root)."""
        return self.p.parent[self._slot(slot)]

    def move(self, slot):
        """The point played from the parent to reach ``slot`` (-1 for a root)."""
        return self.p.move[self._slot(slot)]

    def board(self, slot):
        """A goboard.Board of the slot's position, its superko record including the
        path from the root."""
        cdef int64_t s = self._slot(slot)
        cdef int32_t g = s // self.p.slots_per_root
        cdef Board board = Board.__new__(Board, _BARE)
        board.b = self.p.boards[s]
        board.crules = self.p.rules[g]
        board._rules = self._rules[g]
        board._komi = self.p.komi[g]
        cb.gb_pool_stone_history(&self.p, s, &board.past)
        _keyset_copy(&board.seen, &self.p.record[g])
        while s >= 0:
            _keyset_add(&board.seen, self.p.key[s],
                        cb.gb_board_stone_count(&self.p.boards[s]))
            s = self.p.parent[s]
        return board

    def reroot(self, g, new_root):
        """Keep only the subtree of ``new_root`` (tree reuse); see pool.h.

        Returns:
            int64 [M]: the new offset in game g's block of each old one (-1: dropped).
        """
        cdef int32_t game = self._game(g)
        cdef int64_t root = self._slot(new_root)
        cdef int64_t base = <int64_t>game * self.p.slots_per_root
        if root // self.p.slots_per_root != game:
            raise ValueError(f"slot {root} is not in game {game}")
        # The positions between the roots join the game's superko record.
        cdef int64_t s = root
        while s >= 0 and s != base:
            _keyset_add(&self.p.record[game], self.p.key[s],
                        cb.gb_board_stone_count(&self.p.boards[s]))
            s = self.p.parent[s]
        if s != base:
            raise ValueError(f"slot {root} does not descend from game {game}'s root")
        mapping = np.empty(self.p.slots_per_root, dtype=np.int32)
        cdef int32_t[::1] mv = mapping
        cb.gb_pool_reroot(&self.p, game, root, &mv[0])
        return mapping.astype(np.int64)


# ---- the pattern rollout policy (rollout.h; layout in pattern_features.py) ----------

def _pattern_layout():
    """The C core's feature layout, for the tests that pin pattern_features.py to it."""
    return {"capture": cb.GB_RF_CAPTURE, "save_atari": cb.GB_RF_SAVE_ATARI,
            "self_atari": cb.GB_RF_SELF_ATARI, "near_previous": cb.GB_RF_NEAR_PREV,
            "pat3": cb.GB_RF_PAT3, "pat3_classes": cb.GB_PAT3_CLASSES,
            "response": cb.GB_RF_RESPONSE, "response_buckets": cb.GB_RESPONSE_BUCKETS,
            "count": cb.GB_RF_COUNT, "max_active": cb.GB_RF_MAX_ACTIVE}


cdef class PatternPolicy:
    """AlphaGo 2016's fast rollout policy: a softmax over local pattern features.

    ``PatternPolicy(weights=None)`` takes a float32 array of
    ``goboard.pattern_features.NUM_FEATURES`` weights (all zero if None: uniform over
    the candidate moves). See ``goboard.pattern_features`` for the features.
    """

    cdef cb.gb_rollout_policy *p
    cdef cb.gb_rollout *scratch
    cdef object _weights

    def __cinit__(self, *args, **kwargs):
        self.p = <cb.gb_rollout_policy *>PyMem_Malloc(sizeof(cb.gb_rollout_policy))
        self.scratch = <cb.gb_rollout *>PyMem_Malloc(sizeof(cb.gb_rollout))
        if self.p == NULL or self.scratch == NULL:
            raise MemoryError()
        self._weights = None

    def __init__(self, weights=None):
        if weights is None:
            weights = np.zeros(cb.GB_RF_COUNT, dtype=np.float32)
        w = check_pattern_weights(weights)
        cdef const float[::1] wv = w
        cb.gb_rollout_policy_set(self.p, &wv[0])
        self._weights = w

    def __dealloc__(self):
        PyMem_Free(self.p)
        PyMem_Free(self.scratch)

    cdef int _ready(self) except -1:
        if self._weights is None:
            raise ValueError("this PatternPolicy was never initialised")
        return 0

    @property
    def weights(self):
        """The weights (a read-only float32 array)."""
        return self._weights

    def features(self, board):
        """Active features of every candidate move of the side to move.

        Returns:
            (points, indices): int32 arrays of equal length, one row per (move,
            feature) pair, points ascending. Every candidate appears (it has a 3x3
            feature); illegal, eye-filling and ko moves and pass do not, nor any
            move once the game is over.
        """
        cdef Board bd = _board_arg(board)
        if cb.gb_board_is_over(&bd.b):
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
        cdef int cap = cb.GB_RF_MAX_ACTIVE * bd.b.size * bd.b.size
        points = np.empty(cap, dtype=np.int16)
        index = np.empty(cap, dtype=np.int32)
        cdef int16_t[::1] pv = points
        cdef int32_t[::1] iv = index
        cdef int count = cb.gb_rollout_features(&bd.b, &pv[0], &iv[0])
        return points[:count].astype(np.int32), index[:count].copy()

    def probabilities(self, board):
        """float32 [N*N + 1]: the policy's move distribution (pass last).

        Moves the board's own rules forbid (superko) are dropped and the rest
        renormalised; pass gets 1 when no candidate is left.
        """
        self._ready()
        cdef Board bd = _board_arg(board)
        cdef int width = bd.b.size * bd.b.size + 1
        probs = np.zeros(width, dtype=np.float32)
        if cb.gb_board_is_over(&bd.b):
            return probs
        cdef float[::1] out = probs
        cb.gb_rollout_start(self.scratch, &bd.b, self.p)
        cb.gb_rollout_probabilities(self.scratch, self.p, &out[0])
        return _renormalise_legal(probs, bd.legal_mask())

    def playout(self, board, seed, max_moves=None):
        """Final Tromp-Taylor score (Black's view, minus komi) of one rollout."""
        scores, _ = self.playouts(board, 1, seed, max_moves)
        return float(scores[0])

    def playouts(self, board, n, seed, max_moves=None):
        """``n`` rollouts from ``board`` (streams 0..n-1 of ``seed``), GIL released.

        Like ``goboard.playouts``: simple ko only, no suicide, at most ``max_moves``
        moves (default 3 N^2), stop after two passes.

        Returns:
            (scores, stones): float64 [n] final scores (Black's view, minus komi) and
            int32 [n] stones placed.
        """
        self._ready()
        cdef Board start = _board_arg(board)
        cdef int64_t count = _count(n, "n")
        cdef uint64_t s = _seed(seed)
        cdef int moves = _max_moves(max_moves, start.b.size)
        scores = np.zeros(count, dtype=np.float64)
        placed = np.zeros(count, dtype=np.int32)
        cdef double[::1] sc = scores
        cdef int32_t[::1] pl = placed
        if count > 0:
            with nogil:
                cb.gb_rollouts(&start.b, self.p, count, s, moves, start._komi, &sc[0],
                               &pl[0])
        return scores, placed

    def playouts_batch(self, boards, n, seed, max_moves=None):
        """float64 [B, n]: rollout scores from each board (each board gets its own
        streams of ``seed``), in one C loop without the GIL."""
        self._ready()
        cdef list batch = _same_size_boards(boards)
        cdef int64_t count = _count(n, "n"), k = len(batch), i
        cdef uint64_t s = _seed(seed)
        cdef int moves = _max_moves(max_moves, (<Board>batch[0]).b.size)
        scores = np.zeros((k, count), dtype=np.float64)
        if count == 0:
            return scores
        placed = np.zeros(count, dtype=np.int32)
        cdef double[:, ::1] sc = scores
        cdef int32_t[::1] pl = placed
        cdef const cb.gb_board **bp = <const cb.gb_board **>PyMem_Malloc(
            k * sizeof(cb.gb_board *))
        cdef double *komi = <double *>PyMem_Malloc(k * sizeof(double))
        try:
            if bp == NULL or komi == NULL:
                raise MemoryError()
            for i in range(k):
                bp[i] = &(<Board>batch[i]).b
                komi[i] = (<Board>batch[i])._komi
            with nogil:
                for i in range(k):
                    cb.gb_rollouts(bp[i], self.p, count,
                                   s ^ (<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL),
                                   moves, komi[i], &sc[i, 0], &pl[0])
        finally:
            PyMem_Free(bp)
            PyMem_Free(komi)
        return scores

    def pool_playouts(self, pool, slots, n, seed, first=0):
        """float64 [len(slots), n]: rollout scores from slots of a ``goboard.Pool``
        (the search's positions), seeded as ``Pool.playouts`` seeds its playouts.
        Slot i of this call plays the streams of slot ``first + i`` of a longer call,
        so a batch split into parts (threads: the GIL is released) scores the same."""
        self._ready()
        if not isinstance(pool, Pool):
            raise TypeError(f"pool must be a goboard.Pool, not {type(pool).__name__}")
        cdef Pool pl_ = pool
        cdef const int64_t[::1] sv = pl_._slots(slots)
        cdef int64_t count = _count(n, "n"), k = sv.shape[0], i
        cdef int64_t offset = _count(first, "first")
        cdef uint64_t s = _seed(seed)
        cdef int64_t m = pl_.p.slots_per_root
        cdef int moves = 3 * pl_.p.boards[0].size * pl_.p.boards[0].size
        scores = np.zeros((k, count), dtype=np.float64)
        placed = np.zeros(max(count, 1), dtype=np.int32)
        cdef double[:, ::1] sc = scores
        cdef int32_t[::1] pv = placed
        if count == 0:
            return scores
        with nogil:
            for i in range(k):
                cb.gb_rollouts(&pl_.p.boards[sv[i]], self.p, count,
                               s ^ (<uint64_t>(offset + i + 1) * 0x9E3779B97F4A7C15ULL),
                               moves,
                               pl_.p.komi[sv[i] // m], &sc[i, 0], &pv[0])
        return scores

    def playout_moves(self, board, seed, max_moves=None):
        """int16 array of the moves (pass = N*N) of the rollout ``playouts(board, 1,
        seed)`` plays: for replaying and checking."""
        self._ready()
        cdef Board start = _board_arg(board)
        cdef int moves = _max_moves(max_moves, start.b.size)
        cdef cb.gb_rng rng
        cdef int played = 0
        out = np.empty(max(moves, 1), dtype=np.int16)
        cdef int16_t[::1] ov = out
        # Not self.scratch: another thread may use the policy while the GIL is free.
        cdef cb.gb_rollout *r = <cb.gb_rollout *>PyMem_Malloc(sizeof(cb.gb_rollout))
        if r == NULL:
            raise MemoryError()
        cb.gb_rng_seed(&rng, _seed(seed), 0)
        try:
            with nogil:
                cb.gb_rollout_start(r, &start.b, self.p)
                cb.gb_rollout_run(r, self.p, &rng, moves, &ov[0], &played)
        finally:
            PyMem_Free(r)
        return out[:played].copy()

    def _check_incremental(self, board, seed, max_moves=None):
        """Play a rollout move by move and compare the kept gammas with a from-scratch
        recomputation after each; returns the moves checked, AssertionError on the
        first difference."""
        self._ready()
        cdef Board start = _board_arg(board)
        cdef int moves = _max_moves(max_moves, start.b.size), k, where = 0
        cdef cb.gb_rng rng
        cdef cb.gb_loc v
        cb.gb_rng_seed(&rng, _seed(seed), 0)
        cb.gb_rollout_start(self.scratch, &start.b, self.p)
        for k in range(moves):
            if self.scratch.board.passes >= 2:
                return k
            v = cb.gb_rollout_choose(self.scratch, self.p, &rng)
            cb.gb_rollout_play(self.scratch, self.p, v)
            if cb.gb_rollout_check(self.scratch, self.p, &where) != cb.GB_OK:
                raise AssertionError(f"after move {k + 1}: point {where} differs")
        return moves


cdef Board _board_arg(board):
    if not isinstance(board, Board):
        raise TypeError(f"board must be a goboard.Board, not {type(board).__name__}")
    return board


cdef int _max_moves(max_moves, int size) except -1:
    return 3 * size * size if max_moves is None else _count(max_moves, "max_moves")
