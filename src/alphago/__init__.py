"""alphago: everything around the search: networks, game records, GTP, the command line.

Only this package imports torch, and only in the modules that need it (``alphago.nets``
and the commands that use a network), so ``import alphago`` and ``alphago --help`` stay
fast and work without torch.
"""
