"""alphago: everything around the search: networks, game records, GTP, the command line.

Only this package imports torch, and only in the modules that need it (``alphago.nets``
and the commands that use a network), so ``import alphago`` and ``alphago --help`` stay
fast and work without torch.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

try:
    __version__ = _distribution_version("goboard-engine")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.1.0"

__all__ = ["__version__"]
