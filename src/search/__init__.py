"""search: Monte Carlo tree search over goboard (pure Python + numpy, no torch).

PUCT (AlphaGo Zero), AlphaGo 2016 (lazy expansion, value mixed with rollouts) and plain
UCT, one engine stepping many trees in lock-step; networks reach it only through the
:class:`Evaluator` protocol.
"""

from .config import AlphaGo2016Config, SearchConfig, UCTConfig
from .evaluator import (
    CachedEvaluator,
    Evaluator,
    Positions,
    RolloutEvaluator,
    RolloutPolicy,
    UniformEvaluator,
)
from .filters import MoveFilter
from .mcts import MCTS, PUCT, UCT, AlphaGo2016, Callback, run_search
from .puct import choose_move, dirichlet_mix, puct_scores, ucb1_scores
from .result import SearchResult
from .tree import Tree

__all__ = [
    "MCTS",
    "PUCT",
    "UCT",
    "AlphaGo2016",
    "AlphaGo2016Config",
    "CachedEvaluator",
    "Callback",
    "Evaluator",
    "MoveFilter",
    "Positions",
    "RolloutEvaluator",
    "RolloutPolicy",
    "SearchConfig",
    "SearchResult",
    "Tree",
    "UCTConfig",
    "UniformEvaluator",
    "choose_move",
    "dirichlet_mix",
    "puct_scores",
    "run_search",
    "ucb1_scores",
]
