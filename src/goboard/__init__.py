"""goboard: a compiled Go rules core (C, wrapped with Cython) and its Python helpers."""

from . import symmetries
from ._board import (
    FEATURE_KINDS,
    MAX_PERFT_DEPTH,
    Board,
    Pool,
    feature_planes,
    features_batch,
    legal_mask_batch,
    perft,
    playouts,
    zobrist_keys,
)
from .constants import BLACK, EMPTY, MAX_SIZE, MIN_SIZE, WHITE
from .errors import IllegalMoveError
from .rules import CHINESE, TROMP_TAYLOR, Rules

__all__ = [
    "BLACK",
    "CHINESE",
    "EMPTY",
    "FEATURE_KINDS",
    "MAX_PERFT_DEPTH",
    "MAX_SIZE",
    "MIN_SIZE",
    "TROMP_TAYLOR",
    "WHITE",
    "Board",
    "IllegalMoveError",
    "Pool",
    "Rules",
    "feature_planes",
    "features_batch",
    "legal_mask_batch",
    "perft",
    "playouts",
    "symmetries",
    "zobrist_keys",
]
