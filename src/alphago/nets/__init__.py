"""alphago.nets: torch networks behind search's Evaluator protocol, and weights files.

- :class:`NetConfig`, :class:`PolicyValueNet`: the AlphaGo Zero residual network.
- :class:`NetEvaluator`: batches positions into the net (implements
  ``search.Evaluator``), with symmetry sampling or averaging.
- :func:`save_weights`, :func:`load_weights`: our weights file (config + state_dict,
  atomic writes, ``weights_only`` loading).
- :func:`export_leela_zero`, :func:`import_leela_zero`: Leela Zero's text format.
- :func:`load_network`: either kind of file, told apart by its first bytes.
- :class:`WeightsError`: a weights file refused (a ValueError naming the file).
"""

import torch

# Flush denormal floats to zero (FTZ/DAZ) on the CPU. Trained weights and Adam's
# moments drift into the denormal range (the shipped nets hold thousands of such
# values), and x86 arithmetic on them is slow enough that a 19x19 policy's training
# step took 2.6 s instead of 0.11 s on two threads. The flag is per thread and
# torch's worker threads copy it when they start, so it is set here, on import,
# before any torch operation starts them; no network here needs denormals.
torch.set_flush_denormal(True)

from .evaluator import NetEvaluator  # noqa: E402
from .leelazero import export_leela_zero, import_leela_zero  # noqa: E402
from .model import NetConfig, PolicyValueNet  # noqa: E402
from .weights import (  # noqa: E402
    WeightsError,
    load_network,
    load_weights,
    save_weights,
)

__all__ = [
    "NetConfig",
    "NetEvaluator",
    "PolicyValueNet",
    "WeightsError",
    "export_leela_zero",
    "import_leela_zero",
    "load_network",
    "load_weights",
    "save_weights",
]
