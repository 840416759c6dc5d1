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

from .evaluator import NetEvaluator
from .leelazero import export_leela_zero, import_leela_zero
from .model import NetConfig, PolicyValueNet
from .weights import WeightsError, load_network, load_weights, save_weights

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
