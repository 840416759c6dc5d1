"""The networks shipped inside the package (``alphago/nets/shipped/*.pt``).

``alphago gtp`` and ``alphago play`` use the shipped network of the board size when
no ``--weights`` are given. README.md ("The shipped 9x9 network") says how each was
trained, with the commands that reproduce it, and how strong it measured.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHIPPED_DIR", "shipped_weights"]

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"


def shipped_weights(size: int) -> Path | None:
    """The shipped weights file for ``size`` x ``size`` boards, or None."""
    path = SHIPPED_DIR / f"alphago-{size}x{size}.pt"
    return path if path.is_file() else None
