"""Which player plays which board size: one rule for ``alphago gtp`` and ``play``.

GUIs start an engine with no options and then send ``boardsize``, so the player cannot
be fixed when the process starts. :class:`PlayerChoice` picks one per size, lazily, and
caches it:

- ``--uct``: plain UCT with random playouts at every size;
- ``--weights FILE``: PUCT over that network at its own size; any other size is
  refused (:class:`UnacceptableSize`, GTP's ``? unacceptable size``): the user asked
  for that network, and a silent switch to a much weaker player would mislead;
- neither: the network shipped for the size when there is one, else UCT.

``--search gumbel`` makes the network's search ``search.Gumbel`` instead of PUCT
(``--considered-actions`` root moves, no Gumbel noise unless ``--gumbel-scale``
asks for it); it needs a network, so it and ``--uct`` exclude each other, and a size
with no network plays UCT as without it (the announcement says so). So does
``--mix-lambda`` with the Zero engine at a size where no network ships.

``--engine alphago2016`` plays the original AlphaGo instead: ``search.AlphaGo2016``
with priors from a 2016 policy net (``--policy-net``), leaf values from a value net
(``--value-net``) mixed with the outcomes of pattern-policy rollouts
(``--rollout-weights``) by ``--mix-lambda`` (0: value net only, 1: rollouts only;
default 0.5). Without ``--policy-net`` the files shipped for the size play (a
``--value-net`` or ``--rollout-weights`` given replaces the shipped one), and a size
with no shipped 2016 policy plays UCT; with it, only the files given play, and other
sizes are refused, as for ``--weights``. Without rollout weights the rollouts are
uniform random playouts; a lambda of 0 plays no rollouts, and a lambda of 1 needs no
value net (:mod:`alphago.nets.nets2016`).

``--mix-lambda L`` above 0 with the Zero engine mixes rollouts into the network's own
search the same way: PUCT over the network's priors, leaf values (1 - L) * its value
head + L * a rollout's outcome (``search.AlphaGo2016`` with one net for both parts),
the rollouts by ``--rollout-weights`` or the pattern policy shipped for the size, else
uniform random playouts. The Zero nets' value heads learned from few game results;
the rollouts make up for that as they do for the 2016 value net (README). A shipped
network's PUCT mixes at :data:`SHIPPED_MIX` by default where a rollout policy ships
for the size (9x9, where the mix beat the network alone 80 games in 100; 19x19, whose
value head learned from about a thousand game results and predicts them no better than
chance, not measured there in games); a ``--weights`` network mixes only when asked.

Each choice is announced once on the log stream (stderr), so a GUI's engine log says
what is playing.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import search

if TYPE_CHECKING:
    from alphago.nets import PolicyValueNet
    from alphago.nets.nets2016 import Nets2016
    from alphago.player import Player

__all__ = ["PlayerChoice", "PlayerSpec", "UnacceptableSize"]

#: Bytes of search tree per node beyond the board (search.tree): visits, values,
#: flags, PUCT's per-node terms, the network value Gumbel keeps and the margin sums
#: of searches that keep scores (89 B), plus per action a prior, a child index and
#: the child's visits and Q restated (24 B).
_TREE_BYTES_FIXED = 96
_TREE_BYTES_PER_ACTION = 24
#: goboard.Pool keeps one C board per node (its size does not depend on N).
_POOL_BYTES = 5_900
#: Lambda of a shipped Zero network's PUCT where a rollout policy ships for the size:
#: on 9x9 the mix beat the plain net head to head, and GNU Go too (README).
SHIPPED_MIX = 0.5


class UnacceptableSize(ValueError):
    """The configured player cannot play this board size."""


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """What the command line asked for (see ``alphago gtp --help``).

    ``analysis_memory_mb`` bounds the search tree kept for pondering: the tree holds
    up to that many megabytes of nodes (never fewer than a move's search needs).
    ``considered_actions`` and ``gumbel_scale`` are None unless given (they go with
    ``search="gumbel"`` only); None means 16 and 0. ``early_stop`` ends a move's PUCT
    or UCT search once its move is decided (``search.SearchConfig.early_stop``; a
    Gumbel search always spends its budget, and analyses always search theirs).
    """

    simulations: int = 800
    seed: int = 0
    weights: str | None = None
    uct: bool = False
    device: str = "cpu"
    precision: str | None = None
    threads: int | None = None
    rollout_threads: int = 1
    analysis_memory_mb: int = 1024
    search: str = "puct"
    considered_actions: int | None = None
    gumbel_scale: float | None = None
    engine: str = "zero"
    policy_net: str | None = None
    value_net: str | None = None
    rollout_weights: str | None = None
    mix_lambda: float | None = None
    early_stop: bool = False

    def __post_init__(self) -> None:
        if self.engine not in ("zero", "alphago2016"):
            raise ValueError(
                f"--engine must be zero or alphago2016, not {self.engine!r}"
            )
        if self.engine == "zero" and (
            self.policy_net is not None or self.value_net is not None
        ):
            raise ValueError("--policy-net and --value-net need --engine alphago2016")
        if self.engine == "zero" and self.rollout_weights and not self.mix_lambda:
            raise ValueError(
                "--rollout-weights with --engine zero needs --mix-lambda above 0 "
                "(the Zero search plays no rollouts without it)"
            )
        if self.engine == "zero" and self.mix_lambda and self.uct:
            raise ValueError(
                "--mix-lambda with --engine zero mixes rollouts into the network's "
                "search: it excludes --uct"
            )
        if self.engine == "alphago2016" and (
            self.uct or self.weights is not None or self.search != "puct"
        ):
            raise ValueError(
                "--engine alphago2016 plays its own search over its own nets: it "
                "excludes --uct, --weights and --search gumbel"
            )
        if self.mix_lambda is not None and not 0.0 <= self.mix_lambda <= 1.0:
            raise ValueError(f"--mix-lambda must be in [0, 1], not {self.mix_lambda}")
        if self.uct and self.weights is not None:
            raise ValueError("--uct and --weights exclude each other")
        if self.search not in ("puct", "gumbel"):
            raise ValueError(f"--search must be puct or gumbel, not {self.search!r}")
        if self.search == "gumbel" and self.uct:
            raise ValueError(
                "--search gumbel and --uct exclude each other (Gumbel searches with a "
                "network; --uct plays plain UCT)"
            )
        gumbel_only = (
            self.considered_actions is not None or self.gumbel_scale is not None
        )
        if self.search != "gumbel" and gumbel_only:
            raise ValueError(
                "--considered-actions and --gumbel-scale need --search gumbel"
            )
        if self.considered_actions is not None and self.considered_actions < 1:
            raise ValueError(
                f"--considered-actions must be >= 1, not {self.considered_actions}"
            )
        if self.gumbel_scale is not None and not 0.0 <= self.gumbel_scale < math.inf:
            raise ValueError(f"--gumbel-scale must be >= 0, not {self.gumbel_scale}")
        if self.simulations < 1:
            raise ValueError(f"--simulations must be >= 1, not {self.simulations}")
        if self.rollout_threads < 1:
            raise ValueError(
                f"--rollout-threads must be >= 1, not {self.rollout_threads}"
            )
        if self.analysis_memory_mb < 1:
            raise ValueError(
                f"--analysis-memory must be >= 1 MB, not {self.analysis_memory_mb}"
            )


def tree_nodes(size: int, memory_mb: int, at_least: int) -> int:
    """Nodes of a size x size tree that fit in ``memory_mb`` (at least ``at_least``)."""
    per_node = _POOL_BYTES + _TREE_BYTES_FIXED + _TREE_BYTES_PER_ACTION * (size**2 + 1)
    return max(at_least, memory_mb * 2**20 // per_node)


class PlayerChoice:
    """Players by board size under the rule in the module docstring.

    Args:
        spec: the command line's choices.
        log: where each choice is announced (default: stderr).
    """

    def __init__(
        self, spec: PlayerSpec, log: Callable[[str], None] | None = None
    ) -> None:
        self.spec = spec
        self._log = log if log is not None else _stderr
        self._players: dict[int, Player] = {}
        self._network: PolicyValueNet | None = (
            None  # the --weights network, loaded once
        )
        self._given_2016: Nets2016 | None = None  # the --policy-net files, likewise

    def default_size(self) -> int:
        """The size to start at: the --weights (or --policy-net) network's own; with
        --engine alphago2016 alone, the size its shipped nets play (9: none ship for
        19x19, where it would fall back to plain UCT); else 19."""
        if self.spec.weights is not None:
            return self._weights_network().config.board_size
        if self.spec.policy_net is not None:
            return self._nets_2016().size
        if self.spec.engine == "alphago2016" and not self.spec.uct:
            from alphago.nets.nets2016 import shipped_2016

            if shipped_2016(19) is None and shipped_2016(9) is not None:
                return 9
        return 19

    def player_for(self, size: int) -> Player:
        """The player for size x size boards (made on first use, then cached).

        Raises:
            UnacceptableSize: --weights were given for another size.
            WeightsError, OSError: the network file cannot be loaded.
        """
        if size not in self._players:
            player, what = self._make(size)
            self._log(f"alphago: {size}x{size}: {what}")
            self._players[size] = player
        return self._players[size]

    def check_named_files(self) -> None:
        """Load the files the command line names, so that a bad one stops a server
        that loads players lazily (``alphago analysis``) before its first query.

        Raises:
            WeightsError, ValueError, OSError: as :meth:`player_for`.
        """
        spec = self.spec
        if spec.uct:
            return
        if spec.weights is not None or spec.policy_net is not None:
            self.default_size()  # loads and checks them
        elif self._parts_beside_shipped_policy():
            self.player_for(self.default_size())

    def _parts_beside_shipped_policy(self) -> bool:
        """--engine alphago2016 with a value net or rollout file named but no
        --policy-net: those parts go with the shipped policy of the size."""
        spec = self.spec
        return (
            spec.engine == "alphago2016"
            and spec.policy_net is None
            and bool(spec.value_net or spec.rollout_weights)
        )

    def can_play(self, size: int) -> bool:
        """True if :meth:`player_for` would accept ``size`` (loads nothing new)."""
        spec = self.spec
        if spec.policy_net is not None:
            return self._nets_2016().size == size
        if self._parts_beside_shipped_policy():
            from alphago.nets.nets2016 import shipped_2016

            return shipped_2016(size) is not None
        if spec.weights is None:
            return True
        return self._weights_network().config.board_size == size

    # -- making players ----------------------------------------------------------

    def _make(self, size: int) -> tuple[Player, str]:
        from alphago.nets.shipped import shipped_weights

        spec = self.spec
        if spec.uct:
            return self._uct(size), "plain UCT with random playouts (--uct)"
        if spec.engine == "alphago2016":
            return self._alphago2016(size)
        if spec.weights is not None:
            net = self._weights_network()
            n = net.config.board_size
            if n != size:
                raise UnacceptableSize(
                    f"unacceptable size: --weights {spec.weights} is a {n}x{n} network"
                )
            mix = spec.mix_lambda or 0.0
            what = f"{self._search_name()} over {spec.weights} ({_shape(net)})"
            return self._network_player(net, size, mix), what + self._mixed(size, mix)
        shipped = shipped_weights(size)
        if shipped is None:
            what = "plain UCT with random playouts (no network ships for this size"
            if spec.search == "gumbel":
                what += ", so no Gumbel search"
            if spec.mix_lambda:
                what += ", so no network for --mix-lambda to mix rollouts into"
            return self._uct(size), what + ")"
        net = _load(shipped, spec.device)
        mix = self._shipped_mix(size)
        name = self._search_name()
        what = f"{name} over the shipped network {shipped.name} ({_shape(net)})"
        return self._network_player(net, size, mix), what + self._mixed(size, mix)

    def _nets_2016(self) -> Nets2016:
        """The --policy-net/--value-net/--rollout-weights files, loaded once."""
        if self._given_2016 is None:
            from alphago.nets.nets2016 import load_nets_2016

            spec = self.spec
            assert spec.policy_net is not None
            self._given_2016 = load_nets_2016(
                spec.policy_net,
                spec.value_net,
                spec.rollout_weights,
                device=spec.device,
                mix_lambda=self._mix_lambda(),
            )
        return self._given_2016

    def _mix_lambda(self) -> float:
        return 0.5 if self.spec.mix_lambda is None else self.spec.mix_lambda

    def _alphago2016(self, size: int) -> tuple[Player, str]:
        from alphago.nets.nets2016 import load_nets_2016, shipped_2016
        from alphago.player import SearchPlayer
        from search import PatternRollouts

        spec = self.spec
        mix = self._mix_lambda()
        if spec.policy_net is not None:
            nets = self._nets_2016()
            if nets.size != size:
                raise UnacceptableSize(
                    f"unacceptable size: --policy-net {spec.policy_net} is a "
                    f"{nets.size}x{nets.size} network"
                )
        else:
            files = shipped_2016(size)
            if files is None and self._parts_beside_shipped_policy():
                # Those files would be ignored by the UCT fallback: say so instead.
                raise UnacceptableSize(
                    f"unacceptable size: no AlphaGo 2016 policy ships for "
                    f"{size}x{size}, so --value-net and --rollout-weights need "
                    "--policy-net there"
                )
            if files is None:
                what = "plain UCT with random playouts (no AlphaGo 2016 nets ship for"
                return self._uct(size), what + " this size)"
            nets = load_nets_2016(
                files.policy,
                spec.value_net or files.value,
                spec.rollout_weights or files.rollout,
                device=spec.device,
                mix_lambda=mix,
                board_size=size,
            )
        evaluator = nets.evaluator(spec.threads, spec.seed, spec.precision)
        rollout = None
        if nets.rollout is not None and mix > 0.0:
            rollout = PatternRollouts(
                nets.rollout, 1, spec.seed, threads=spec.rollout_threads
            )
        batch = min(16, spec.simulations)
        nodes = tree_nodes(size, spec.analysis_memory_mb, 2 * spec.simulations + batch)
        config = search.AlphaGo2016Config(
            num_simulations=spec.simulations,
            leaves_per_batch=batch,
            max_nodes=nodes,
            mix_lambda=mix,
            early_stop=spec.early_stop,
        )
        player = SearchPlayer(
            evaluator, config, seed=spec.seed, name="alphago2016", rollout=rollout
        )
        return player, f"AlphaGo 2016 search, lambda {mix:g}: {nets.describe()}"

    def _search_name(self) -> str:
        return "Gumbel search" if self.spec.search == "gumbel" else "PUCT"

    def _weights_network(self) -> PolicyValueNet:
        if self._network is None:
            assert self.spec.weights is not None
            self._network = _load(Path(self.spec.weights), self.spec.device)
        return self._network

    def _uct(self, size: int) -> Player:
        from alphago.player import UCTPlayer

        spec = self.spec
        config = search.UCTConfig(
            num_simulations=spec.simulations,
            max_nodes=tree_nodes(size, spec.analysis_memory_mb, 2 * spec.simulations),
            early_stop=spec.early_stop,
        )
        return UCTPlayer(config, spec.seed)

    def _shipped_mix(self, size: int) -> float:
        """Lambda for a shipped network: --mix-lambda, else SHIPPED_MIX where PUCT
        plays and a rollout policy ships for the size (measured there), else 0."""
        from alphago.nets.nets2016 import shipped_rollout

        spec = self.spec
        if spec.mix_lambda is not None:
            return spec.mix_lambda
        mixes = spec.search == "puct" and shipped_rollout(size) is not None
        return SHIPPED_MIX if mixes else 0.0

    def _network_player(self, net: PolicyValueNet, size: int, mix: float) -> Player:
        from alphago.nets import NetEvaluator
        from alphago.player import SearchPlayer

        spec = self.spec
        evaluator = NetEvaluator(
            net,
            device=spec.device,
            threads=spec.threads,
            seed=spec.seed,
            precision=spec.precision,
        )
        # Several leaves per network call (virtual loss): a batch of 16 doubles
        # positions/s on CPU over single positions, at a small cost in search quality.
        batch = min(16, spec.simulations)
        nodes = tree_nodes(size, spec.analysis_memory_mb, 2 * spec.simulations + batch)
        config: search.SearchConfig | search.GumbelConfig
        if spec.search == "gumbel":
            gumbel = self._gumbel_config(batch, nodes, mix)
            rollout = None
            if mix > 0.0:  # no pattern policy: uniform random playouts, as PUCT's
                rollout = self._zero_rollout(size) or search.RolloutEvaluator(
                    1, spec.seed
                )
            return SearchPlayer(evaluator, gumbel, seed=spec.seed, rollout=rollout)
        elif mix > 0.0:
            config = search.AlphaGo2016Config(
                num_simulations=spec.simulations,
                leaves_per_batch=batch,
                max_nodes=nodes,
                mix_lambda=mix,
                early_stop=spec.early_stop,
            )
            rollout = self._zero_rollout(size)
            return SearchPlayer(evaluator, config, seed=spec.seed, rollout=rollout)
        else:
            config = search.SearchConfig(
                num_simulations=spec.simulations,
                leaves_per_batch=batch,
                max_nodes=nodes,
                early_stop=spec.early_stop,
            )
        return SearchPlayer(evaluator, config, seed=spec.seed)

    def _zero_rollout(self, size: int) -> search.RolloutPolicy | None:
        """The pattern rollouts mixed into the Zero search's leaf values, from
        :meth:`_rollout_file` (None: the search's uniform random playouts)."""
        from alphago.rollout_weights import load_rollout_policy
        from search import PatternRollouts

        path, _ = self._rollout_file(size)
        if path is None:
            return None
        spec = self.spec
        policy = load_rollout_policy(path)
        return PatternRollouts(policy, 1, spec.seed, threads=spec.rollout_threads)

    def _rollout_file(self, size: int) -> tuple[Path | None, str]:
        """The rollout policy a mixed Zero search plays and its description: the
        --rollout-weights file, else the one shipped for the size, else (None)
        uniform random playouts."""
        from alphago.nets.nets2016 import shipped_rollout

        given = self.spec.rollout_weights
        if given is not None:
            return Path(given), f"pattern rollouts {given}"
        shipped = shipped_rollout(size)
        if shipped is not None:
            return shipped, f"the shipped pattern rollouts {shipped.name}"
        return None, "uniform random playouts (no rollout policy ships for this size)"

    def _mixed(self, size: int, mix: float) -> str:
        """What the announcement adds for a Zero search mixed with rollouts."""
        if not mix:
            return ""
        _, source = self._rollout_file(size)
        return f", leaf values mixed with {source} (lambda {mix:g})"

    def _gumbel_config(self, batch: int, nodes: int, mix: float) -> search.GumbelConfig:
        spec = self.spec
        m, scale = spec.considered_actions, spec.gumbel_scale
        return search.GumbelConfig(
            num_simulations=spec.simulations,
            leaves_per_batch=batch,
            max_nodes=nodes,
            considered_actions=16 if m is None else m,
            gumbel_scale=0.0 if scale is None else scale,
            mix_lambda=mix,
        )


def _load(path: Path, device: str) -> PolicyValueNet:
    from alphago.nets import load_network
    from alphago.nets.precision import resolve_device

    return load_network(path, map_location=resolve_device(device))


def _shape(net: PolicyValueNet) -> str:
    c = net.config
    return f"{c.blocks} blocks x {c.filters} filters"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
