"""Colours and board-size limits shared by every goboard module."""

from __future__ import annotations

BLACK = 1
WHITE = -1
EMPTY = 0
MIN_SIZE = 2
MAX_SIZE = 19
