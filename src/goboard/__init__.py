"""goboard: a compiled Go rules core (C, wrapped with Cython) and its Python helpers."""

from . import pattern_features, symmetries
from ._board import (
    FEATURE_KINDS,
    MAX_PERFT_DEPTH,
    Board,
    PatternPolicy,
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
    "PatternPolicy",
    "Pool",
    "Rules",
    "feature_planes",
    "features_batch",
    "legal_mask_batch",
    "perft",
    "playouts",
    "pattern_features",
    "symmetries",
    "zobrist_keys",
]
