"""``python -m alphago``: the ``alphago`` command (for environments whose scripts
folder is not on PATH)."""

import sys

from alphago.cli import main

sys.exit(main())
