"""Players: what the GTP engine, matches and the CLI ask for a move.

A :class:`Player` searches a position and returns a ``search.SearchResult``; it also
estimates the final owner of every point (for dead stones and analysis output). Two
implementations share one base:

- :class:`SearchPlayer`: ``search.PUCT`` or ``search.Gumbel`` over any
  ``search.Evaluator`` (a network).
- :class:`UCTPlayer`: ``search.UCT`` with random C playouts, the default engine until a
  trained network ships.

Both keep their search tree between moves of one game: when the position asked for is
the previous root after our move and the opponent's reply (or after one move, or the
same position), the subtree below is reused. Any other position starts a fresh tree.

Glossary:

- *time budget*: seconds the search may take for this move (the search also stops at
  the config's ``num_simulations``, whichever comes first).
- *candidate*: one root move with its visits, winrate, prior, lower confidence bound
  and principal variation, as the analysis commands print them.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

import goboard
import search

from .player_rounds import search_in_rounds

__all__ = [
    "Candidate",
    "Player",
    "SearchPlayer",
    "UCTPlayer",
    "candidates_from_result",
    "pass_rules",
]

OnResult = Callable[[search.SearchResult], None]


@runtime_checkable
class Player(Protocol):
    """Anything that can choose moves for the GTP engine."""

    name: str

    def genmove(
        self,
        board: goboard.Board,
        *,
        time_budget: float | None = None,
        stop: threading.Event | None = None,
        on_result: OnResult | None = None,
        every_seconds: float | None = None,
        simulations: int | None = None,
        filters: Sequence[search.MoveFilter] = (),
        early_stop: bool | None = None,
    ) -> search.SearchResult:
        """Search ``board`` (not modified) and return the result.

        ``on_result`` receives intermediate results every ``every_seconds``; setting
        ``stop`` ends the search early (the result is then the best so far).
        ``simulations`` replaces the configured budget for this search (analysis);
        ``filters`` restrict the moves searched (``avoid``/``allow``); ``early_stop``
        False spends the whole budget even where the configuration would stop once
        the move is decided (an analysis), True stops where it would not (a PUCT or
        UCT search; a Gumbel configuration refuses it), None keeps the
        configuration's choice. When the search raises (its network's error, say),
        the player is left ready for the next call.
        """
        ...

    def ownership(self, board: goboard.Board) -> NDArray[np.float64]:
        """float64 [N, N] in [-1, 1], Black's view: expected final owner per point."""
        ...

    def new_game(self) -> None:
        """Forget trees and caches."""
        ...


@dataclass(frozen=True, slots=True)
class Candidate:
    """One root move as analysis output shows it (winrates for the side to move)."""

    move: int
    visits: int
    winrate: float  # in [0, 1]
    prior: float  # in [0, 1]
    lcb: float  # in [0, 1]
    pv: list[int]
    #: visits of each node along ``pv`` (KataGo's ``pvVisits``); shorter than ``pv``
    #: where the player cannot say, as for a variation read off the result alone.
    pv_visits: list[int] = field(default_factory=list)


def _lcb(winrate: float, visits: int) -> float:
    """A normal-approximation lower confidence bound (about 95%) of a winrate."""
    if visits <= 0:
        return 0.0
    spread = 1.96 * math.sqrt(max(winrate * (1.0 - winrate), 0.01) / visits)
    return min(max(winrate - spread, 0.0), 1.0)


def pass_rules(
    board: goboard.Board, result: search.SearchResult
) -> search.SearchResult:
    """When to pass, whatever the search says (area scoring as it stands).

    - Before the opponent has passed, a pass is replaced by the best other move: with
      few simulations a pass can win its place by noise, and an early pass throws the
      game. Like the playout policy, we pass only when every other legal move would
      fill one of our own true eyes.
    - After the opponent's pass: pass if passing wins the game as it stands (the
      count of the board now, komi included). Otherwise passing loses for sure: play
      a move after which the board as it stands wins (capturing dead stones), so that
      the opponent's next pass ends the game in our favour; failing that, the best
      move by visits. Never one of our own true eyes.
    """
    area = board.size * board.size
    me = board.to_play
    opponent_passed = board.last_move == area
    if opponent_passed and board.score() * me > 0:
        return dataclasses.replace(result, move=area)
    if result.move != area and not opponent_passed:
        return result
    moves = [m for m in board.legal_moves()[:-1] if not board.is_true_eye(m, me)]
    if not moves:
        return result
    if opponent_passed:
        winning = {}
        for m in moves:
            after = board.copy()
            after.play(m)
            if after.score() * me > 0:
                winning[m] = after.score() * me
        if winning:
            best = max(winning, key=lambda m: (int(result.visits[m]), winning[m], -m))
            return dataclasses.replace(result, move=best)
        if result.move != area:
            return result
    best = max(moves, key=lambda m: (int(result.visits[m]), float(result.pi[m]), -m))
    return dataclasses.replace(result, move=best)


def candidates_from_result(
    result: search.SearchResult,
    priors: NDArray[np.float64] | None = None,
    pvs: dict[int, list[int]] | None = None,
    pv_visits: dict[int, list[int]] | None = None,
) -> list[Candidate]:
    """The visited root moves, most visited first (the move played first among
    equals); a Gumbel search's move first.

    Without ``priors`` the visit distribution stands in; without ``pvs`` a move's
    variation is the move alone (the most visited one gets ``result.pv``); without
    ``pv_visits`` only the move's own visits are known.
    """
    visits = result.visits
    # Gumbel's move is the halving winner by score; the finalists share the last
    # phase's visits, so it is often not the most visited: it leads as the move
    # the engine plays.
    first = result.move if result.improved_policy is not None else -1
    # Among moves of equal visits the one played leads: GUIs show the first
    # candidate as the engine's choice.
    played = int(result.move)
    order = sorted(
        (int(m) for m in np.flatnonzero(visits > 0)),
        key=lambda m: (m != first, -int(visits[m]), m != played, m),
    )
    out: list[Candidate] = []
    for m in order:
        q = float(result.q[m])
        winrate = (np.clip(q, -1.0, 1.0) + 1.0) / 2.0 if math.isfinite(q) else 0.5
        prior = float(result.pi[m] if priors is None else priors[m])
        if pvs is not None and m in pvs:
            pv = pvs[m]
        elif result.pv and result.pv[0] == m:
            pv = list(result.pv)
        else:
            pv = [m]
        n = int(visits[m])
        known = pv_visits[m] if pv_visits is not None and m in pv_visits else [n]
        lcb = _lcb(float(winrate), n)
        out.append(Candidate(m, n, float(winrate), prior, lcb, pv, known))
    return out


def _playout_ownership(board: goboard.Board, n: int, seed: int) -> NDArray[np.float64]:
    if board.is_over:
        return board.ownership().astype(np.float64)
    _, _, owners = goboard.playouts(board, n, seed, ownership=True)
    return owners.astype(np.float64) / n


def _one_game(on_result: OnResult | None) -> search.Callback | None:
    """The engine's callback (results of all games) for a one-game ``on_result``."""
    if on_result is None:
        return None
    sink = on_result

    def callback(results: list[search.SearchResult]) -> None:
        sink(results[0])

    return callback


class _TreePlayer:
    """Shared machinery: tree reuse, time budget, streaming, ownership."""

    def __init__(
        self,
        config: search.SearchConfig | search.GumbelConfig | search.UCTConfig,
        seed: int,
        ownership_playouts: int,
        name: str,
    ) -> None:
        if isinstance(ownership_playouts, bool) or not isinstance(
            ownership_playouts, int
        ):
            raise TypeError("ownership_playouts must be an int")
        if ownership_playouts < 1:
            raise ValueError(
                f"ownership_playouts must be >= 1, not {ownership_playouts}"
            )
        self.name = name
        self.config = config
        self.seed = int(seed)
        self.ownership_playouts = ownership_playouts
        self._rng = np.random.default_rng(self.seed)
        self._mcts: search.MCTS | None = None
        self._root: goboard.Board | None = None
        self._our_move: int | None = None
        self._lock = threading.Lock()

    # -- to override -----------------------------------------------------------

    def _make_search(self, board: goboard.Board) -> search.MCTS:
        raise NotImplementedError

    # -- Player ----------------------------------------------------------------

    def new_game(self) -> None:
        self._mcts = None
        self._root = None
        self._our_move = None

    def ownership(self, board: goboard.Board) -> NDArray[np.float64]:
        seed = int(self._rng.integers(2**62))
        return _playout_ownership(board, self.ownership_playouts, seed)

    def genmove(
        self,
        board: goboard.Board,
        *,
        time_budget: float | None = None,
        stop: threading.Event | None = None,
        on_result: OnResult | None = None,
        every_seconds: float | None = None,
        simulations: int | None = None,
        filters: Sequence[search.MoveFilter] = (),
        early_stop: bool | None = None,
    ) -> search.SearchResult:
        if not isinstance(board, goboard.Board):
            raise TypeError("board must be a goboard.Board")
        if board.is_over:
            raise ValueError("the game is over; there is no move to search")
        if time_budget is not None and not (
            math.isfinite(time_budget) and time_budget > 0
        ):
            raise ValueError(
                f"time_budget must be a positive number, not {time_budget}"
            )
        if simulations is not None and (
            isinstance(simulations, bool)
            or not isinstance(simulations, int)
            or simulations < 1
        ):
            raise ValueError(f"simulations must be an int >= 1, not {simulations!r}")
        filters = tuple(filters)
        with self._lock:
            mcts = self._tree_for(board, reuse=not filters)
            mcts.set_move_filters(filters)
            config = self.config
            if time_budget is not None:
                config = dataclasses.replace(config, time_limit=float(time_budget))
            if simulations is not None:
                config = dataclasses.replace(config, num_simulations=simulations)
            if early_stop is not None and config.early_stop != early_stop:
                config = dataclasses.replace(config, early_stop=early_stop)
            if config.early_stop and board.last_move == board.size * board.size:
                # After the opponent's pass, pass_rules may play any winning move by
                # its visits, not only the search's choice: search them all.
                config = dataclasses.replace(config, early_stop=False)
            try:
                result = self._search(mcts, config, on_result, every_seconds, stop)
            except BaseException:
                # A step that raised left the tree half-updated (search refuses it
                # until its root is set again): the next search starts afresh.
                self.new_game()
                raise
            if not filters:  # a pass inside an allow list stays a pass
                result = pass_rules(board, result)
            self._our_move = result.move
            return result

    def _search(
        self,
        mcts: search.MCTS,
        config: search.SearchConfig | search.GumbelConfig | search.UCTConfig,
        on_result: OnResult | None,
        every_seconds: float | None,
        stop: threading.Event | None,
    ) -> search.SearchResult:
        """One search of ``mcts``'s root under ``config``."""
        mcts.config = config
        return mcts.search(
            callback=_one_game(on_result), every_seconds=every_seconds, stop_event=stop
        )

    def candidates(self, result: search.SearchResult) -> list[Candidate]:
        """Root moves of the latest search with priors and per-move variations.

        Call it from ``on_result`` or right after :meth:`genmove` (it reads the tree).
        """
        mcts = self._mcts
        if mcts is None:
            return candidates_from_result(result)
        tree = mcts.tree
        prior = tree.prior[0, 0].astype(np.float64)
        prior = np.where(np.isfinite(prior), prior, 0.0)
        pvs: dict[int, list[int]] = {}
        pv_visits: dict[int, list[int]] = {}
        for m in np.flatnonzero(result.visits > 0).tolist():
            pvs[m], pv_visits[m] = self._variation(tree, int(m))
            pv_visits[m][0] = int(result.visits[m])  # with a reused subtree's
        return candidates_from_result(result, prior, pvs, pv_visits)

    # -- helpers ---------------------------------------------------------------

    @staticmethod
    def _variation(
        tree: search.Tree, move: int, limit: int = 30
    ) -> tuple[list[int], list[int]]:
        """The most visited line from the root's ``move``, and each node's visits."""
        pv = [move]
        node = int(tree.children[0, 0, move])
        counted = [int(tree.visits[0, node]) if node > 0 else 0]
        while node > 0 and len(pv) < limit:
            kids = tree.children[0, node]
            visited = kids >= 0
            if not visited.any():
                break
            counts = np.where(visited, tree.visits[0, np.maximum(kids, 0)], -1.0)
            best = int(np.argmax(counts))
            if counts[best] <= 0:
                break
            pv.append(best)
            node = int(kids[best])
            counted.append(int(counts[best]))
        return pv, counted

    def tree_capacity(self) -> int:
        """Nodes the search tree can hold (an analysis runs until it is full)."""
        return self.config.capacity()

    def _tree_for(self, board: goboard.Board, *, reuse: bool = True) -> search.MCTS:
        """A search whose root is ``board``, reusing the old tree where it can.

        Trees searched under move filters are not reused: their nodes' moves were
        filtered for their depth below the old root.
        """
        mcts, root = self._mcts, self._root
        if mcts is not None and root is not None and root.size == board.size:
            path = self._path(root, board)
            if not reuse or mcts.move_filters():
                path = None
            if path is not None:
                try:
                    for move in path:
                        mcts.advance(move)
                except ValueError:
                    mcts.set_root(board)
                self._root = board.copy()
                return mcts
            mcts.set_root(board)
            self._root = board.copy()
            return mcts
        self._mcts = self._make_search(board)
        self._root = board.copy()
        return self._mcts

    def _path(self, root: goboard.Board, board: goboard.Board) -> list[int] | None:
        """Moves leading from ``root`` to ``board`` (at most two), or None."""
        if board.komi != root.komi or board.rules != root.rules:
            return None
        step = board.move_number - root.move_number
        last = board.last_move
        if step == 0:
            return [] if board == root else None
        if last is None or step not in (1, 2):
            return None
        path = [last] if step == 1 else [self._our_move, last]
        probe = root.copy()
        try:
            for move in path:
                if move is None:
                    return None
                probe.play(move)
        except ValueError:
            return None
        return [m for m in path if m is not None] if probe == board else None


class SearchPlayer(_TreePlayer):
    """A network's search: ``search.PUCT`` for a ``search.SearchConfig``,
    ``search.Gumbel`` for a ``search.GumbelConfig``, ``search.AlphaGo2016`` for a
    ``search.AlphaGo2016Config`` (leaf values mixed with ``rollout``'s outcomes; the
    search's uniform random playouts when it is None; a GumbelConfig with
    ``mix_lambda`` > 0 mixes them the same way and needs ``rollout``), over any
    evaluator: a network, or a fake one in tests.

    Sequential halving plans its phases for a known budget, so a Gumbel search asked
    for more simulations than ``config.num_simulations`` (an analysis searching until
    the next command) runs as rounds of at most that many
    (:func:`alphago.player_rounds.search_in_rounds`).
    """

    def __init__(
        self,
        evaluator: search.Evaluator,
        config: search.SearchConfig | search.GumbelConfig | None = None,
        seed: int = 0,
        ownership_playouts: int = 64,
        name: str = "alphago",
        rollout: search.RolloutPolicy | None = None,
    ) -> None:
        config = search.SearchConfig() if config is None else config
        if type(config) not in (
            search.SearchConfig,
            search.AlphaGo2016Config,
        ) and not isinstance(config, search.GumbelConfig):
            raise TypeError(
                "SearchPlayer needs a search.SearchConfig, GumbelConfig or "
                "AlphaGo2016Config"
            )
        mixes = isinstance(config, search.AlphaGo2016Config) or (
            isinstance(config, search.GumbelConfig) and config.mix_lambda > 0
        )
        if rollout is not None and not mixes:
            raise ValueError(
                "a rollout policy needs a search.AlphaGo2016Config or a GumbelConfig "
                "with mix_lambda > 0"
            )
        super().__init__(config, seed, ownership_playouts, name)
        self.evaluator = evaluator
        self.rollout = rollout

    def _ownership_head(
        self,
    ) -> Callable[[search.Positions], NDArray[np.float32]] | None:
        """The evaluator's ownership head, if it has one (``config.ownership_head``,
        as ``NetEvaluator``)."""
        head = getattr(self.evaluator, "ownership", None)
        config = getattr(self.evaluator, "config", None)
        if callable(head) and getattr(config, "ownership_head", False) is True:
            return head  # type: ignore[no-any-return]
        return None

    @property
    def ownership_from_net(self) -> bool:
        """Whether :meth:`ownership` reads the network's ownership head."""
        return self._ownership_head() is not None

    def ownership(self, board: goboard.Board) -> NDArray[np.float64]:
        """[N, N] in [-1, 1], Black's view: the network's ownership head when the
        evaluator has one (:attr:`ownership_from_net`), else random playouts."""
        head = self._ownership_head()
        if head is not None:
            positions = search.Positions(goboard.Pool([board], 1), [0])
            own = np.asarray(head(positions), dtype=np.float64)
            return own.reshape(board.size, board.size)
        return super().ownership(board)

    def _make_search(self, board: goboard.Board) -> search.MCTS:
        seed = int(self._rng.integers(2**62))
        # With an ownership head the tree averages final scores for analyses
        # (SearchResult.scores); the moves are the same either way.
        scores = self.ownership_from_net and isinstance(
            self.evaluator, search.ScoredEvaluator
        )
        ev, config, rollout = self.evaluator, self.config, self.rollout
        if isinstance(config, search.GumbelConfig):
            return search.Gumbel(ev, board, config, seed, rollout, scores=scores)
        if isinstance(config, search.AlphaGo2016Config):
            return search.AlphaGo2016(ev, board, config, seed, rollout, scores=scores)
        assert isinstance(config, search.SearchConfig)
        return search.PUCT(ev, board, config, seed, scores=scores)

    def _search(
        self,
        mcts: search.MCTS,
        config: search.SearchConfig | search.GumbelConfig | search.UCTConfig,
        on_result: OnResult | None,
        every_seconds: float | None,
        stop: threading.Event | None,
    ) -> search.SearchResult:
        if not isinstance(config, search.GumbelConfig):
            return super()._search(mcts, config, on_result, every_seconds, stop)
        round_size = self.config.num_simulations
        return search_in_rounds(
            mcts, config, round_size, on_result, every_seconds, stop
        )


class UCTPlayer(_TreePlayer):
    """``search.UCT`` with random C playouts: the default engine."""

    def __init__(
        self,
        config: search.UCTConfig | None = None,
        seed: int = 0,
        ownership_playouts: int = 64,
        name: str = "alphago-uct",
    ) -> None:
        config = search.UCTConfig() if config is None else config
        if not isinstance(config, search.UCTConfig):
            raise TypeError("UCTPlayer needs a search.UCTConfig")
        super().__init__(config, seed, ownership_playouts, name)

    def _make_search(self, board: goboard.Board) -> search.MCTS:
        assert isinstance(self.config, search.UCTConfig)
        seed = int(self._rng.integers(2**62))
        return search.UCT(board, self.config, seed)
