"""goboard: a compiled Go rules core (C, wrapped with Cython) and its Python helpers."""

from ._board import Board, zobrist_keys
from .constants import BLACK, EMPTY, MAX_SIZE, MIN_SIZE, WHITE
from .errors import IllegalMoveError
from .rules import CHINESE, TROMP_TAYLOR, Rules

__all__ = [
    "BLACK",
    "CHINESE",
    "EMPTY",
    "MAX_SIZE",
    "MIN_SIZE",
    "TROMP_TAYLOR",
    "WHITE",
    "Board",
    "IllegalMoveError",
    "Rules",
    "zobrist_keys",
]
