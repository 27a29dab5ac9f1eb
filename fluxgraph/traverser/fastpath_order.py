"""The learned candidate order of the ``first`` policies, as the fast path keeps it.

Booking a node under a ``first`` policy re-keys its root edge by what the node's aggregate has
free at ``now`` (the walk's ``Booker._upd_by_outedges``); the walk explores candidates by those
weights. :class:`LearnedOrder` (a base of :class:`~fluxgraph.traverser.fastpath.FlatNodes`)
reads the order, re-keys it as a booking does, skips nodes already re-keyed at this time with
no aggregate written since, and tells whether the order moved since a booking chose its nodes.

>>> from fluxgraph.machines import build_machine
>>> from fluxgraph.sched.allocator import MatcherAllocator
>>> from fluxgraph.sched.shapes import JobShape
>>> from fluxgraph.workload import Job
>>> a = MatcherAllocator(build_machine("nodes=2"), JobShape("node", 1))
>>> fast = a.matcher.traverser.fastpath
>>> a.allocate(Job(1, 0, 10, 10, procs=1), 1, now=0, reserve=False).nodes
(1,)
>>> fast.unmoved(1)   # booking node 1 moved its weight (busy now: nothing free)
False
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fluxgraph.traverser.fastpath_defer import Deferral
from fluxgraph.traverser.state import learned_weight

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fluxgraph.traverser.core import Traverser

__all__ = ["LearnedOrder"]


class LearnedOrder(Deferral):
    """The ``first`` policies' learned order on the fast path's mirror (see the module
    docstring)."""

    def __init__(self, tr: Traverser) -> None:
        super().__init__(tr)
        #: nodes whose weight was re-keyed at time ``_keyed_at`` with no write to a node
        #: aggregate since (only deferred reservations booked, which write none): booking one
        #: again at that time gives it the same weight
        self._keyed: set[int] = set()
        self._keyed_at = -1
        #: job id -> ``tr.weight_moves`` when its booking chose its nodes
        self._chosen_at: dict[int, int] = {}

    def flush(self) -> None:
        self._keyed_at = -1
        super().flush()

    def _order(self) -> Iterable[int]:
        """The node positions in the walk's candidate order: the learned edge order for the
        ``first`` policies (lazily), else by node id."""
        shape = self.shape
        policy = self.tr.policy
        if policy.stop_on_k:
            return shape.learned(self.tr.sorted_out_edges(shape.root))
        return shape.by_id_high if policy.prefer_high else shape.by_id_low

    def _relearn(self, positions: list[int], now: int) -> None:
        """Re-key the root edges of the nodes at ``positions`` as booking them re-keys the
        walk's learned order (``first`` policies)."""
        shape = self.shape
        edges = shape.edges
        if self.pending:
            self.settle(now)
        keyed = None
        if self.defer:  # (see :attr:`Deferral._keyed`)
            if now != self._keyed_at:
                self._keyed, self._keyed_at = set(), now
            keyed = self._keyed
        moved = []
        for i in positions:
            v = shape.nodes[i]
            if keyed is not None:
                if v in keyed:
                    continue
                keyed.add(v)
            weight = self._weight(v, edges[i], now)
            if weight is not None:
                moved.append((edges[i], weight))
        if moved:
            self._rekey(moved)

    def _weight(self, v: int, e: int, now: int) -> int | None:
        """The walk's new exploration weight of root edge ``e`` after booking node ``v`` for
        the ``first`` policies (``Booker._upd_by_outedges``): what the node's aggregate has
        free of its last type at ``now``; ``None`` where the walk leaves the weight as it is."""
        tr = self.tr
        subplans = tr.graph.schedule.subplans[v]
        sp = subplans.get(tr.dom) if subplans else None
        weight = learned_weight(sp, now)
        if weight is None and self.pending and sp is not None and sp.resource_types:
            self.flush()  # (nothing free and no span held: the node's unwritten spans count)
            weight = learned_weight(sp, now)
        return None if weight is None or tr.e_weight[e] == weight else weight

    def _rekey(self, moved: list[tuple[int, int]]) -> None:
        """Give the root edges their new weights, as the walk's one-by-one re-keying leaves
        them: the learned order is the edges sorted by (weight, id) descending whatever the
        order of the changes, so many changes are applied by re-sorting once."""
        tr = self.tr
        root = self.shape.root
        if len(moved) * 8 <= len(self.shape.nodes):
            for e, weight in moved:
                tr.rekey_edge(root, e, weight)
            return
        w = tr.e_weight
        for e, weight in moved:
            w[e] = weight
        tr.weight_moves += 1
        tr._sorted_out[root] = None  # rebuilt from the weights on next use
        tr._sorted_keys[root] = None

    def unmoved(self, jobid: int) -> bool:
        """Whether no learned exploration weight changed since booking ``jobid`` chose its
        nodes (or :meth:`reselects` last confirmed them): a ``first`` policy's order is then
        the one it chose in."""
        return self._chosen_at.get(jobid, -1) == self.tr.weight_moves
