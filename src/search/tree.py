"""The search trees of G games as preallocated numpy arrays (struct of arrays, as mctx).

Node ``i`` of game ``g`` is row ``[g, i]`` of every array and position slot
``g * M + i`` of the ``goboard.Pool`` beside the tree (``M`` = capacity, nodes per
game). Node 0 is the root. Nodes are numbered in creation order; ``num_nodes[g]`` is
the next free one.

Node arrays have one extra column, index ``M``, that always holds zeros: unexpanded
children are ``-1``, and ``-1`` indexes that column, so gathering the statistics of a
row of children needs no mask. In flat form a node is ``g * (M + 1) + i``
(:meth:`Tree.flat`); an unexpanded child of game g then lands on game g-1's zero column
(or, for g = 0, the last one): zeros either way.

Glossary of the arrays (``A`` = N*N + 1 actions, pass last):

- ``visits [G, M+1]`` float64: visits of the node (its evaluation(s) plus the visits of
  its children); includes pending virtual visits during a step. Whole numbers, kept as
  floats so the selection arithmetic needs no conversions.
- ``value_sums [G, M+1]`` float64: sum of backed-up values *from the point of view of
  the player who chose the move into the node* (the parent's side to move), so a child's
  ``value_sums / visits`` is its Q for the parent. The root's value for its own side to
  move is ``-value_sums / visits``.
- ``virtual [G, M+1]`` int32: walks currently pending through the node (virtual loss);
  zero between searches.
- ``state [G, M+1]`` int8: :data:`UNEXPANDED` (no priors yet: a new node, or one below
  AlphaGo 2016's expansion threshold), :data:`EXPANDED` (has priors; its children can be
  chosen) or :data:`TERMINAL` (the game is over there).
- ``terminal_value [G, M+1]`` float32: for terminal nodes, the rules value (+1/-1/0 by
  the sign of the score) from the node's side to move.
- ``net_value [G, M+1]`` float64: the evaluator's value of the node from its own side
  to move, kept by the searches that need it apart from the backed-up mean
  (``search.Gumbel``'s completed Q); 0 where none was stored.
- ``margin_sums [G, M+1]`` float64: for searches that keep scores
  (``MCTS(scores=True)``), the sum of the evaluations' expected final margins (area
  less komi, points) below and at the node, from the chooser's view as
  ``value_sums``; ``margin_squares`` the sum of their second moments (variance plus
  squared margin, the same from either side); ``margin_visits`` how many evaluations
  they hold (a collision adds none). Zero in searches that do not keep them.
- ``prior [G, M+1, A]`` float32: renormalised priors over the legal moves; ``-inf``
  marks illegal moves. Valid where ``state`` is ``EXPANDED``.
- ``children [G, M+1, A]`` int32: child node per action, ``-1`` if not created yet.
- ``parent [G, M+1]``, ``action [G, M+1]`` int32: ``-1`` for the root.

Edge statistics, the children's ``visits`` and ``value_sums`` restated per (node,
action) so that selection reads one contiguous row per node instead of gathering
``A`` scattered children (mctx keeps its tree this way). They are derived data:
whoever changes a node's ``visits`` or ``value_sums`` calls :meth:`Tree.sync_edges`.

- ``edge_n [G, M+1, A]`` float64: the child's ``visits`` (0 where there is no child);
  PUCT divides by ``1 + N``. Zero when empty, so a large tree's pages are touched only
  as it fills (a tree sized for a 1 GB analysis budget is allocated in milliseconds).
- ``edge_q [G, M+1, A]`` float64: the child's ``value_sums / max(visits, 1)``, its Q
  for the node (0 where there is no child).
- ``edge [G, M+1]`` int64: each node's own entry in the flat edge arrays,
  ``(g * (M + 1) + parent) * A + action``; a root points into row ``M`` of its game,
  which no node reads (the node arrays' zero column), so its updates land harmlessly.

They triple the memory per (node, action), 8 bytes (prior, children) to 24: about 34 MB
for 64 9x9 trees of 409 nodes, 600 MB for 64 19x19 trees of 1609 nodes. ``edge_n``
stays float64 (not float32) so that it is exact for any visit count.

Two more derived node arrays, PUCT's terms of a node as the parent being chosen from
(``c_puct`` and ``fpu_reduction`` are the tree's constructor arguments):

- ``explore [G, M+1]`` float64: ``c_puct * sqrt(visits)``.
- ``fpu [G, M+1]`` float64: ``value_sums / -visits - fpu_reduction``, the node's mean
  value from its own side to move less the reduction: the Q of its unvisited children
  (first-play urgency; ``max(visits, 1)`` for a node never visited).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["EXPANDED", "TERMINAL", "UNEXPANDED", "Tree"]

UNEXPANDED, EXPANDED, TERMINAL = 0, 1, 2


class Tree:
    """Search trees for ``games`` games, ``capacity`` nodes each (see the module)."""

    def __init__(
        self,
        games: int,
        capacity: int,
        num_actions: int,
        *,
        c_puct: float = 0.0,
        fpu_reduction: float = 0.0,
    ) -> None:
        if games < 1 or capacity < 2 or num_actions < 2:
            raise ValueError("a tree needs games >= 1, capacity >= 2, actions >= 2")
        g, m, a = games, capacity, num_actions
        self.c_puct = float(c_puct)
        self.fpu_reduction = float(fpu_reduction)
        self.games = g
        self.capacity = m
        self.num_actions = a
        self.stride = m + 1
        self.visits = np.zeros((g, m + 1), dtype=np.float64)
        self.value_sums = np.zeros((g, m + 1), dtype=np.float64)
        self.virtual = np.zeros((g, m + 1), dtype=np.int32)
        self.state = np.zeros((g, m + 1), dtype=np.int8)
        self.terminal_value = np.zeros((g, m + 1), dtype=np.float32)
        self.net_value = np.zeros((g, m + 1), dtype=np.float64)
        self.margin_sums = np.zeros((g, m + 1), dtype=np.float64)
        self.margin_squares = np.zeros((g, m + 1), dtype=np.float64)
        self.margin_visits = np.zeros((g, m + 1), dtype=np.float64)
        self.prior = np.zeros((g, m + 1, a), dtype=np.float32)
        self.children = np.full((g, m + 1, a), -1, dtype=np.int32)
        self.parent = np.full((g, m + 1), -1, dtype=np.int32)
        self.action = np.full((g, m + 1), -1, dtype=np.int32)
        self.num_nodes = np.ones(g, dtype=np.int64)
        self.edge_n = np.zeros((g, m + 1, a), dtype=np.float64)
        self.edge_q = np.zeros((g, m + 1, a), dtype=np.float64)
        self._root_edge = (np.arange(g, dtype=np.int64) * (m + 1) + m) * a
        self.edge = np.empty((g, m + 1), dtype=np.int64)
        self.edge[:] = self._root_edge[:, None]
        self.explore = np.zeros((g, m + 1), dtype=np.float64)
        self.fpu = np.full((g, m + 1), -self.fpu_reduction, dtype=np.float64)
        # Flat views for gathers by flat node index (see flat()).
        self.visits_flat = self.visits.reshape(-1)
        self.value_sums_flat = self.value_sums.reshape(-1)
        self.virtual_flat = self.virtual.reshape(-1)
        self.state_flat = self.state.reshape(-1)
        self.terminal_value_flat = self.terminal_value.reshape(-1)
        self.net_value_flat = self.net_value.reshape(-1)
        self.margin_sums_flat = self.margin_sums.reshape(-1)
        self.margin_squares_flat = self.margin_squares.reshape(-1)
        self.margin_visits_flat = self.margin_visits.reshape(-1)
        self.prior_rows = self.prior.reshape(g * (m + 1), a)
        self.children_rows = self.children.reshape(g * (m + 1), a)
        self.parent_flat = self.parent.reshape(-1)
        self.action_flat = self.action.reshape(-1)
        self.edge_n_rows = self.edge_n.reshape(g * (m + 1), a)
        self.edge_q_rows = self.edge_q.reshape(g * (m + 1), a)
        self.edge_n_flat = self.edge_n.reshape(-1)
        self.edge_q_flat = self.edge_q.reshape(-1)
        self.edge_flat = self.edge.reshape(-1)
        self.explore_flat = self.explore.reshape(-1)
        self.fpu_flat = self.fpu.reshape(-1)

    def flat(self, game: int, node: int) -> int:
        """Flat index of a node (row of ``*_rows``, entry of ``*_flat``)."""
        return game * self.stride + node

    def sync_edges(self, pos: NDArray[np.integer[Any]]) -> None:
        """Update the arrays derived from ``visits`` and ``value_sums`` (the module's
        edge statistics, ``explore``, ``fpu``) for the nodes at flat ``pos`` (repeats
        allowed), after those changed."""
        visits = self.visits_flat.take(pos)
        sums = self.value_sums_flat.take(pos)
        edge = self.edge_flat.take(pos)
        self.edge_n_flat[edge] = visits
        at_least_one = np.maximum(visits, 1.0)
        self.edge_q_flat[edge] = sums / at_least_one
        self.explore_flat[pos] = self.c_puct * np.sqrt(visits)
        self.fpu_flat[pos] = sums / -at_least_one - self.fpu_reduction

    def _clear(self, g: int, start: int, stop: int) -> None:
        rows = slice(start, stop)
        self.visits[g, rows] = 0
        self.value_sums[g, rows] = 0.0
        self.virtual[g, rows] = 0
        self.state[g, rows] = UNEXPANDED
        self.terminal_value[g, rows] = 0.0
        self.net_value[g, rows] = 0.0
        self.margin_sums[g, rows] = 0.0
        self.margin_squares[g, rows] = 0.0
        self.margin_visits[g, rows] = 0.0
        self.children[g, rows] = -1
        self.parent[g, rows] = -1
        self.action[g, rows] = -1
        self.edge_n[g, rows] = 0.0
        self.edge_q[g, rows] = 0.0
        self.edge[g, rows] = self._root_edge[g]
        self.explore[g, rows] = 0.0
        self.fpu[g, rows] = -self.fpu_reduction

    def reset(self, g: int) -> None:
        """Empty game g's tree: only an unexpanded root is left."""
        self._clear(g, 0, int(self.num_nodes[g]))
        self.num_nodes[g] = 1

    def compact(self, g: int, mapping: NDArray[np.int64]) -> None:
        """Keep a subtree after ``goboard.Pool.reroot``.

        Args:
            g: the game.
            mapping: int [M], old node -> new node or -1 (dropped); the kept nodes keep
                their order and fill ``0 .. k-1``, node 0 being the new root.
        """
        used = int(self.num_nodes[g])
        old_to_new = np.asarray(mapping, dtype=np.int64)[:used]
        keep = np.flatnonzero(old_to_new >= 0)
        k = int(keep.size)
        if k == 0 or not np.array_equal(old_to_new[keep], np.arange(k)):
            raise ValueError("mapping must keep a subtree in order, new root first")
        # A lookup table with a -1 entry at the end, so -1 children map to -1.
        table = np.append(old_to_new, -1).astype(np.int32)
        for arr in (
            self.visits,
            self.value_sums,
            self.virtual,
            self.state,
            self.terminal_value,
            self.net_value,
            self.margin_sums,
            self.margin_squares,
            self.margin_visits,
            self.prior,
            self.edge_n,
            self.edge_q,
            self.explore,
            self.fpu,
        ):
            arr[g, :k] = arr[g, keep]
        self.children[g, :k] = table[self.children[g, keep]]
        self.parent[g, :k] = table[self.parent[g, keep]]
        self.action[g, :k] = self.action[g, keep]
        self.parent[g, 0] = -1
        self.action[g, 0] = -1
        base = g * self.stride
        parents = self.parent[g, 1:k].astype(np.int64)  # products beyond int32
        self.edge[g, 1:k] = (base + parents) * self.num_actions
        self.edge[g, 1:k] += self.action[g, 1:k]
        self.edge[g, 0] = self._root_edge[g]
        self._clear(g, k, used)
        self.num_nodes[g] = k

    def child_stats(
        self, g: int, node: int = 0
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Visits [A] and value sums [A] (the node's side to move's view) of its
        children; zeros for children not created."""
        pos = self.children[g, node].astype(np.int64) + g * self.stride
        return self.visits_flat[pos], self.value_sums_flat[pos]

    def node_value(self, g: int, node: int = 0) -> float:
        """Mean value of a node from its own side to move (0 if never visited)."""
        n = int(self.visits[g, node])
        return 0.0 if n == 0 else -float(self.value_sums[g, node]) / n

    def principal_variation(self, g: int, max_length: int = 400) -> list[int]:
        """Moves along the most visited children from the root (ties: lowest index)."""
        moves: list[int] = []
        node = 0
        state, edge_n, children = self.state[g], self.edge_n[g], self.children[g]
        while len(moves) < max_length and state[node] == EXPANDED:
            visits = edge_n[node]  # the children's visits
            best = int(visits.argmax())
            if visits[best] <= 0.0:
                break
            moves.append(best)
            node = int(children[node, best])
        return moves

    def check(self, g: int, *, strict: bool = True, scored: bool = False) -> None:
        """Raise AssertionError if game g's tree is inconsistent.

        Always: no pending virtual loss; sentinel column zero; parent/child links agree;
        edge statistics restate the children's; a node's visits (and margin visits)
        are at least the sum of its children's. ``strict`` (searches
        that expand on the first visit): an expanded node's visits are exactly one more
        than its children's. ``scored`` (searches that keep scores): every visit
        carries a margin (``margin_visits == visits``).
        """
        used = int(self.num_nodes[g])
        m = self.capacity
        assert not self.virtual[g].any(), "virtual loss left in the tree"
        assert self.visits[g, m] == 0 and self.value_sums[g, m] == 0.0, "sentinel"
        assert not self.visits[g, used:m].any(), "visits beyond num_nodes"
        assert not self.edge_n[g, used:m].any(), "edges beyond num_nodes"
        if scored:
            assert np.array_equal(self.margin_visits[g, :used], self.visits[g, :used])
        assert self.edge[g, 0] == self._root_edge[g], "root edge"
        v, sums = self.visits[g, :used], self.value_sums[g, :used]
        assert np.array_equal(self.explore[g, :used], self.c_puct * np.sqrt(v))
        fpu = sums / -np.maximum(v, 1.0) - self.fpu_reduction
        assert np.array_equal(self.fpu[g, :used], fpu), "fpu"
        for node in range(used):
            kids = self.children[g, node]
            made = np.flatnonzero(kids >= 0)
            for a in made:
                child = int(kids[a])
                assert 0 < child < used, f"child {child} of node {node} out of range"
                assert self.parent[g, child] == node and self.action[g, child] == a
                assert np.isfinite(self.prior[g, node, a]), "child on an illegal move"
                assert self.edge[g, child] == self.flat(g, node) * self.num_actions + a
            kv = np.where(kids >= 0, self.visits[g, kids], 0.0)
            kq = np.where(kids >= 0, self.value_sums[g, kids], 0.0) / np.maximum(
                kv, 1.0
            )
            assert np.array_equal(self.edge_n[g, node], kv), "edge visits"
            assert np.array_equal(self.edge_q[g, node], kq), f"edge values of {node}"
            total = int(self.visits[g, kids[made]].sum())
            n = int(self.visits[g, node])
            assert n >= total, f"node {node}: visits {n} < children's {total}"
            scored = self.margin_visits[g, kids[made]].sum()
            assert self.margin_visits[g, node] >= scored, f"margin visits of {node}"
            if strict and self.state[g, node] == EXPANDED:
                assert n == total + 1, f"node {node}: visits {n} != 1 + {total}"
