"""Stub for the compiled goboard._board (checked against it with mypy.stubtest)."""

from collections.abc import Iterable
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

from .rules import Rules

FEATURE_KINDS: tuple[str, ...]
"""("agz17", "lz18", "alphago48", "alphago49"): see planes.h and the README."""

def zobrist_keys(size: int) -> NDArray[np.uint64]:
    """Zobrist keys [2, N*N]: black stones then white stones."""

def feature_planes(kind: str) -> list[tuple[str, str]]: ...
def features_batch(
    boards: Iterable[Board],
    kind: str = "agz17",
    out: NDArray[Any] | None = None,
    dtype: Any = None,
) -> NDArray[Any]:
    """Planes [B, C, N, N], float32 (default) or uint8; C = 17, 18, 48 or 49."""

def legal_mask_batch(
    boards: Iterable[Board], out: NDArray[np.bool_] | None = None
) -> NDArray[np.bool_]:
    """Legal masks [B, N*N + 1]."""

@overload
def playouts(
    board: Board,
    n: int,
    seed: int,
    max_moves: int | None = None,
    ownership: Literal[False] = False,
) -> tuple[NDArray[np.float64], NDArray[np.int32]]: ...
@overload
def playouts(
    board: Board,
    n: int,
    seed: int,
    max_moves: int | None = None,
    *,
    ownership: Literal[True],
) -> tuple[NDArray[np.float64], NDArray[np.int32], NDArray[np.int32]]: ...

MAX_PERFT_DEPTH: int

def perft(board: Board, depth: int) -> int: ...

@disjoint_base
class Board:
    """A Go position with the history its rules need; points are row * size + col."""

    __hash__: None  # type: ignore[assignment]
    def __init__(
        self, size: int = 19, komi: float = 7.5, rules: str | Rules = "tromp-taylor"
    ) -> None: ...
    @classmethod
    def from_stones(
        cls,
        stones: Any,
        to_play: int = 1,
        komi: float = 7.5,
        rules: str | Rules = "tromp-taylor",
    ) -> Self: ...
    @property
    def size(self) -> int: ...
    @property
    def komi(self) -> float: ...
    @komi.setter
    def komi(self, value: float) -> None: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def to_play(self) -> int: ...
    @property
    def move_number(self) -> int: ...
    @property
    def passes(self) -> int: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def resigned(self) -> int | None: ...
    @property
    def zobrist(self) -> int: ...
    @property
    def situation_hash(self) -> int: ...
    @property
    def ko_point(self) -> int | None: ...
    @property
    def captures(self) -> tuple[int, int]: ...
    @property
    def last_move(self) -> int | None: ...
    def play(self, move: int) -> None: ...
    def play_gtp(self, vertex: str) -> None: ...
    def is_legal(self, move: int) -> bool: ...
    def legal_mask(self) -> NDArray[np.bool_]:
        """[N*N + 1]: legal points, then pass."""
    def legal_moves(self) -> list[int]:
        """Sorted legal points, pass (N*N) last; empty once the game is over."""
    def resign(self) -> None: ...
    def set_to_play(self, colour: int) -> None: ...
    def copy(self) -> Board: ...
    def __copy__(self) -> Board: ...
    def __deepcopy__(self, memo: object) -> Board: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> Any: ...
    def stones(self) -> NDArray[np.int8]:
        """[N, N] copy: 1 black, -1 white, 0 empty."""
    def liberties(self, point: int) -> int: ...
    def string(self, point: int) -> NDArray[np.intp]: ...
    def ownership(self) -> NDArray[np.int8]:
        """[N, N]: +1 black area, -1 white area, 0 neutral."""
    def score(self, komi: float | None = None) -> float: ...
    def result(self) -> str: ...
    def random_playout(self, seed: int, max_moves: int | None = None) -> float: ...
    def is_true_eye(self, point: int, colour: int) -> bool: ...
    def features(
        self, kind: str = "agz17", out: NDArray[Any] | None = None, dtype: Any = None
    ) -> NDArray[Any]:
        """Planes [C, N, N] from the side to move's view."""
    def _check_invariants(self) -> None: ...

@disjoint_base
class Pool:
    """Search-tree positions in C: slot g * M is game g's root; see pool.h."""

    def __init__(self, roots: Iterable[Board], slots_per_root: int) -> None: ...
    @property
    def games(self) -> int: ...
    @property
    def slots_per_root(self) -> int: ...
    @property
    def size(self) -> int: ...
    def set_root(self, g: int, board: Board) -> None: ...
    def expand(self, parents: Any, actions: Any, children: Any) -> None: ...
    def legal_masks(
        self, slots: Any, out: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """[n, N*N + 1]."""
    def eye_masks(
        self, slots: Any, out: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """[n, N*N + 1]: true eyes of the side to move."""
    def features(
        self,
        slots: Any,
        kind: str = "agz17",
        out: NDArray[Any] | None = None,
        dtype: Any = None,
    ) -> NDArray[Any]:
        """[n, C, N, N]."""
    def to_play(self, slots: Any) -> NDArray[np.int8]: ...
    def is_over(self, slots: Any) -> NDArray[np.bool_]: ...
    def scores(self, slots: Any) -> NDArray[np.float64]: ...
    def eval_keys(self, slots: Any) -> NDArray[np.uint64]: ...
    def playouts(self, slots: Any, n: int, seed: int) -> NDArray[np.float64]:
        """[len(slots), n] final scores."""
    def parent(self, slot: int) -> int: ...
    def move(self, slot: int) -> int: ...
    def board(self, slot: int) -> Board: ...
    def reroot(self, g: int, new_root: int) -> NDArray[np.int64]: ...

def _pattern_layout() -> dict[str, int]: ...

@disjoint_base
class PatternPolicy:
    """AlphaGo 2016's fast rollout policy; see goboard.pattern_features."""

    def __init__(self, weights: NDArray[np.float32] | None = None) -> None: ...
    @property
    def weights(self) -> NDArray[np.float32]:
        """[NUM_FEATURES], read-only."""
    def features(self, board: Board) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
        """(points, feature indices) of every candidate move."""
    def probabilities(self, board: Board) -> NDArray[np.float32]:
        """[N*N + 1]."""
    def playout(
        self, board: Board, seed: int, max_moves: int | None = None
    ) -> float: ...
    def playouts(
        self, board: Board, n: int, seed: int, max_moves: int | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
        """(scores [n], stones placed [n])."""
    def playouts_batch(
        self, boards: Iterable[Board], n: int, seed: int, max_moves: int | None = None
    ) -> NDArray[np.float64]:
        """[B, n] final scores."""
    def pool_playouts(
        self, pool: Pool, slots: Any, n: int, seed: int, first: int = 0
    ) -> NDArray[np.float64]:
        """[len(slots), n] final scores; slot i plays slot first + i's streams."""
    def playout_moves(
        self, board: Board, seed: int, max_moves: int | None = None
    ) -> NDArray[np.int16]: ...
    def _check_incremental(
        self, board: Board, seed: int, max_moves: int | None = None
    ) -> int: ...
