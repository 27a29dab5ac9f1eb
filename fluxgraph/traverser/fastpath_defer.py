"""The fast path's deferred reservations: recorded now, written into the planners on demand.

A simulator's backfilling pass cancels and re-makes its reservations at nearly every event
(conservative backfilling re-makes every one), and each reservation's writes below the nodes --
a span in every leaf's and node's planner, exclusivity spans, job maps, the node aggregates --
cost far more than choosing it. Only the fast path reads a reservation's nodes while it is
held, and it reads them from its mirror; so with ``defer`` on, a reservation's writes below the
root are recorded instead (:meth:`Deferral._take`) and made by :meth:`Deferral.flush` before
anything else reads the planners: a match the walk makes or decides, a cancel the walk makes,
the matcher's other operations, the verify mode's comparison and :meth:`Mirror._check`. A
reservation cancelled before that is never written. The root's writes (its tag, exclusivity
span and aggregate span, which every later match reads) and the root pool leaves' are made at
once.

Why the written state is the one the eager writes leave: the span ids are taken when the
reservation is recorded (:mod:`fluxgraph.planner.ids`), so every span written meanwhile gets its
eager id, and a reservation cancelled unwritten leaves the gap an added and removed span
leaves; the spans, job maps and aggregates written are the eager ones (the order of entries in
a vertex's job maps may differ; nothing reads it). While a reservation is unwritten, the fast
path reads below the root only the node aggregates' availability at ``now`` (to re-key the
``first`` order), which a reservation starting after ``now`` does not change; one starting at
or before ``now`` is written first.

>>> from fluxgraph.machines import build_machine
>>> from fluxgraph.matcher import Matcher
>>> m = Matcher(build_machine("nodes=2,cores=1"), defer_reservations=True)
>>> spec = {"version": 9999, "resources": [{"type": "node", "count": 2, "exclusive": True,
...   "with": [{"type": "slot", "count": 1, "label": "t",
...             "with": [{"type": "core", "count": 1}]}]}],
...   "tasks": [{"command": ["x"], "slot": "t", "count": {"per_slot": 1}}],
...   "attributes": {"system": {"duration": 10}}}
>>> m.match(spec).at, m.match(spec, op="allocate_orelse_reserve").at
(0, 10)
>>> fast = m.traverser.fastpath
>>> list(fast.pending), m.graph.schedule.reservations[m.graph.by_type["node"][0]]
([2], None)
>>> fast.flush(); m.graph.schedule.reservations[m.graph.by_type["node"][0]]
{2: 2}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fluxgraph.planner import INT64_MAX
from fluxgraph.planner.ids import add_multi_span_id, take_multi_id
from fluxgraph.traverser.fastpath_mirror import Mirror
from fluxgraph.traverser.state import X_CHECKER_NJOBS, SmallPlanner, put

if TYPE_CHECKING:
    from fluxgraph.traverser.core import Traverser

__all__ = ["Deferral"]

#: One node's recorded writes: [position, the node aggregate's count vector (``None``: no
#: aggregate span), k, first, multi]. Filled in when the node is synced: the booking's span
#: ids are ``k`` past ``first`` (the first ids taken then, of each leaf's and the node's
#: planner and exclusivity checker in turn) and past ``multi`` (the aggregate's)
NodeWrites = list

#: A node is synced at the latest when this many of its bookings wait for their ids.
_SYNC_EVERY = 256


class Deferral(Mirror):
    """The mirror with deferred reservations (the base of
    :class:`~fluxgraph.traverser.fastpath.FlatNodes`; see the module docstring)."""

    def __init__(self, tr: Traverser) -> None:
        super().__init__(tr)
        #: record reservations instead of writing them (set by the matcher)
        self.defer = False
        #: job id -> (start, duration, the writes of each node), in booking order
        self.pending: dict[int, tuple[int, int, list[NodeWrites]]] = {}
        self._pending_from = INT64_MAX  # no pending reservation starts before this
        #: node position -> the bookings recorded there whose span ids are not taken yet
        self._unsynced: dict[int, list[NodeWrites]] = {}

    def _take(self, i: int, vector: list[int] | None) -> NodeWrites:
        """Record the writes of booking node position ``i`` whole, with aggregate ``vector``;
        its span ids are taken when the node is next synced (:meth:`_sync`)."""
        record = [i, vector, 0, None, None]
        taken = self._unsynced.get(i)
        if taken is None:
            self._unsynced[i] = [record]
        else:
            taken.append(record)
            if len(taken) >= _SYNC_EVERY:  # (the cancelled ones' records are then let go)
                self._sync(i)
        return record

    def _sync(self, i: int) -> None:
        """Take the span ids of the bookings recorded on node position ``i`` since it was last
        synced, in booking order: each of its planners advances by their number at once (the
        node's planners are written by nothing else meanwhile: an eager booking of the node
        syncs it first, and anything else flushes)."""
        records = self._unsynced.pop(i, None)
        if not records:
            return
        shape = self.shape
        assert shape is not None
        g = self.tr.graph
        sched = g.schedule
        plans, x_checkers = sched.plans, sched.x_checkers
        count = len(records)
        v = shape.nodes[i]
        first = []
        for c in (*(g.edge_dst[e] for e in shape.node_edges[i]), v):
            p = plans[c]
            if p is None:
                p = plans[c] = SmallPlanner(g.sizes[c], g.types[c])
            x = x_checkers[c]
            if x is None:
                x = x_checkers[c] = SmallPlanner(X_CHECKER_NJOBS, "jobs")
            first.append(p.take_id(count))
            first.append(x.take_id(count))
        multi = None
        if records[0][1] is not None:
            multi = take_multi_id(sched.subplans[v][self.tr.dom], count)
        for k, record in enumerate(records):
            record[2] = k
            record[3] = first
            record[4] = multi

    def _record(self, jobid: int, at: int, duration: int, writes: list[NodeWrites]) -> None:
        self.pending[jobid] = (at, duration, writes)
        if at < self._pending_from:
            self._pending_from = at

    def flush(self) -> None:
        """Write every pending reservation into the planners, in booking order (called
        before anything but the fast path reads or writes them)."""
        for i in list(self._unsynced):
            self._sync(i)
        if not self.pending:
            return
        pending, self.pending = self.pending, {}
        self._pending_from = INT64_MAX
        shape = self.shape
        assert shape is not None
        g = self.tr.graph
        sched = g.schedule
        sizes, dst, dom = g.sizes, g.edge_dst, self.tr.dom
        for jobid, (at, duration, writes) in pending.items():
            for i, vector, k, first, multi in writes:
                v = shape.nodes[i]
                ids = iter(first)
                for c in (*(dst[e] for e in shape.node_edges[i]), v):
                    sid = next(ids) + k
                    sched.plans[c].add_span_id(sid, at, duration, sizes[c])
                    put(sched.reservations, c, jobid, sid)
                    put(sched.tags, c, jobid, jobid)
                    sid = next(ids) + k
                    sched.x_checkers[c].add_span_id(sid, at, duration, 1)
                    put(sched.x_spans, c, jobid, sid)
                if multi is not None:
                    mids = (multi[0] + k, [sid + k for sid in multi[1]])
                    add_multi_span_id(sched.subplans[v][dom], mids, at, duration, vector)
                    put(sched.job2span, v, jobid, mids[0])

    def invalidate(self) -> None:
        self.flush()
        super().invalidate()

    def resync(self) -> bool:
        self.flush()
        return super().resync()

    def settle(self, now: int) -> None:
        """Write the pending reservations if one starts at or before ``now`` (the node
        aggregates are about to be read at ``now``)."""
        if now >= self._pending_from:
            self._pending_from = min((at for at, _, _ in self.pending.values()), default=INT64_MAX)
            if now >= self._pending_from:
                self.flush()
