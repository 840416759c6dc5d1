"""The networks shipped inside the package (``alphago/nets/shipped/*.pt``).

``alphago gtp`` and ``alphago play`` use the shipped network of the board size when
no ``--weights`` are given. README.md ("The shipped 9x9 network") says how each was
trained, with the commands that reproduce it, and how strong it measured.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["SHIPPED_DIR", "SHIPPED_SHA256", "shipped_weights"]

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"

#: sha256 of each shipped file, pinned so that an installed file that is not the one
#: README describes (damaged, or swapped for another net) is refused, whatever checksum
#: it carries inside.
SHIPPED_SHA256 = {
    9: "1752444d251ab9d8905eb2d7c146bafe9e9e9a7ec4131b0544dcd4a090156fc6",
    19: "19b7bc883cb82b5ce5bdd682883563e38daeb0735ae005884e9ef2985adab22e",
}


def shipped_weights(size: int) -> Path | None:
    """The shipped weights file for ``size`` x ``size`` boards, or None.

    Raises:
        WeightsError: the installed file does not match its pinned checksum.
    """
    path = SHIPPED_DIR / f"alphago-{size}x{size}.pt"
    if not path.is_file():
        return None
    expected = SHIPPED_SHA256.get(size)
    if expected is not None:
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != expected:
            from .weights import WeightsError

            raise WeightsError(
                f"{path}: the shipped network is damaged (sha256 {actual[:12]}..., "
                f"expected {expected[:12]}...); reinstall goboard-engine"
            )
    return path
