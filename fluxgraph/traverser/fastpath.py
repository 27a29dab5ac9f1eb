"""An exact fast path for whole-node requests on flat machines.

The common simulation request, ``node[p] (exclusive) > slot[1] > {core[c], memory[m], ...}``,
on a machine whose root holds only nodes and whose nodes hold only leaves, has an answer the
selection walk reaches by visiting every candidate node and its leaves: the walk takes the first
``p`` nodes in its candidate order that no job touches during the window (and, for a match made
now, that hold no allocation), and books each one whole with every leaf below it. This module
answers the same select, update and cancel from per-node booking lists, and writes exactly the
planner spans, span ids, tags, job maps, aggregate spans and exploration weights the walk writes,
emitting the same selection to the writer in the same order. Later walks on the same traverser
therefore meet the state they would have met.

Why the answers are the walk's (the differential tests in ``tests/traverser/test_fastpath.py``
check every case below against the walk):

* every vertex's status is up (checked; any status change re-checks), so status prunes nothing;
* a node some job touches during the window fails its exclusivity check (its checker holds that
  job's span); a node no job touches has every leaf free over the window, so its slot forms
  whenever the node holds enough leaves of each requested type (checked once per request shape
  and node kind: a node of a kind that cannot serve it is passed over, as the walk fails its
  slot; where no kind can, the walk decides);
* a match at ``now`` fails a node or a leaf holding any allocation; every allocation below a
  node is recorded with the node (``alloc``);
* the walk ranks candidate nodes by the policy: ``first`` explores the root's out-edges by the
  learned weights (:meth:`~fluxgraph.traverser.explore.Explorer.sorted_out_edges`, the same list
  is read here and re-keyed as the walk re-keys it) and keeps the first ``p`` that pass; the
  other id policies keep the ``p`` passing nodes of lowest (highest) id, node ids being distinct;
* a node taken for an exclusive request is booked whole (every leaf below it, in child-edge
  order), whichever leaves the slot chose;
* where the root aggregate cannot supply the request's units over the window, fewer than ``p``
  nodes can serve it (each must hold its units free over the window): the match fails there
  without a scan, with the walk's errno (ENODEV);
* the root's own leaves of a pool type (one size, distinct ids) asked for whole beside the
  nodes are chosen as the walk's top-level choice chooses them, by id among those no job
  touches during the window (policies that explore every candidate only).

The engine owns a mirror of the bookings below nodes. It is trusted only while the job ids
tagged at the root equal the ones it knows (a job booked or cancelled elsewhere is re-read from
the planners: :meth:`FlatNodes.resync`), the graph and statuses are unchanged, and every vertex
is up; otherwise the request goes to the walk.

Example::

    >>> from fluxgraph.machines import build_machine
    >>> from fluxgraph.matcher import Matcher
    >>> m = Matcher(build_machine("nodes=4,cores=2"), policy="first")
    >>> spec = {"version": 9999, "resources": [{"type": "node", "count": 2, "exclusive": True,
    ...   "with": [{"type": "slot", "count": 1, "label": "t",
    ...             "with": [{"type": "core", "count": 2}]}]}],
    ...   "tasks": [{"command": ["x"], "slot": "t", "count": {"per_slot": 1}}],
    ...   "attributes": {"system": {"duration": 10}}}
    >>> r = m.match(spec)
    >>> [v.name for v in r.resources if v.type == "node"], m.traverser.fastpath.used
    (['node2', 'node3'], 1)
"""

from __future__ import annotations

from errno import ENODEV
from typing import TYPE_CHECKING

from fluxgraph.errors import PlannerError
from fluxgraph.policies.ids import IdOrder
from fluxgraph.traverser.fastpath_order import LearnedOrder
from fluxgraph.traverser.fastpath_shape import Want, node_request
from fluxgraph.traverser.state import (
    ALLOC,
    ALLOC_ORELSE_RESERVE,
    INT64_MAX,
    NO_ALLOC,
    SATISFIABILITY,
    X_CHECKER_NJOBS,
    SmallPlanner,
    put,
)

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from fluxgraph.traverser.core import Traverser
    from fluxgraph.traverser.request import Request
    from fluxgraph.traverser.state import JobMeta

__all__ = ["FlatNodes"]


class FlatNodes(LearnedOrder):
    """The fast path's engine on one traverser (see the module docstring).

    ``used`` counts the matches it answered; :meth:`_check` compares its mirror with the
    planners.
    """

    def __init__(self, tr: Traverser) -> None:
        super().__init__(tr)
        self.used = 0
        self._serving: list[bool] | None = None  # the last select's (see :data:`Want`)

    # -- the match operations ------------------------------------------------------------------

    def accept(self, requests: list[Request], jobid: int, at: int, duration: int) -> Want | None:
        """What this engine answers of the match (see :func:`node_request`), else ``None``:
        whole leaves of the root's pool only under the policies that explore every candidate
        (``first`` stops early, in an order that mixes nodes and leaves)."""
        tr = self.tr
        if type(tr.policy) is not IdOrder or tr.policy.stop_on_k > 1:
            return None
        if at < 0 or duration < 1 or at + duration > INT64_MAX:
            return None
        shape = self.ready()
        if shape is None or jobid in self._known_root:
            return None
        return node_request(requests, shape.kinds, None if tr.policy.stop_on_k else shape.pool)

    def select(self, want: Want, meta: JobMeta, agg: list[int] | None) -> list[int] | bool | None:
        """The positions the walk selects (nodes in its candidate order, then pool leaves by
        id), or ``None`` with the walk's errno, or ``False`` when the walk must decide (a
        shared node whose leaves hold allocations outside the window, for a match made now).
        ``agg`` is the request's need in the root aggregate's types: where the aggregate cannot
        supply it over the window, fewer than ``p`` nodes can serve it (each must hold its units
        free over the window) or fewer than ``q`` leaves are free, so the scan is skipped."""
        tr = self.tr
        shape = self.shape
        assert shape is not None
        root = shape.root
        g = tr.graph
        if tr.own_checks(meta, root, g.types[root]) == 0:
            return None  # the root's own visit fails (EBUSY)
        at, end = meta.at, meta.at + meta.duration
        if agg is not None:
            subplans = g.schedule.subplans[root]
            rootagg = subplans.get(tr.dom) if subplans else None
            if rootagg is not None:
                try:
                    ok = rootagg.avail_during(at, meta.duration, agg)
                except PlannerError:
                    ok = True
                if not ok:
                    tr.errno = ENODEV
                    return None
        now_check = meta.at == meta.now and meta.alloc_type in (ALLOC, NO_ALLOC)
        if meta.alloc_type == SATISFIABILITY:
            now_check = False
        p, pool, q, serving = want
        self._serving = serving
        busy, nalloc, npartial = self.busy, self.nalloc, self.npartial
        kind_of = shape.kind_of
        chosen = []
        for i in self._order():
            if (now_check and nalloc[i]) or (serving is not None and not serving[kind_of[i]]):
                continue
            for s, e, _, _ in busy[i]:
                if s < end and e > at:
                    break
            else:
                if now_check and npartial[i]:
                    return False
                chosen.append(i)
                if len(chosen) == p:
                    break
        else:
            tr.errno = ENODEV
            return None
        if q:
            leaves = self._first_free(self._pool_order(pool), q, at, end, now_check)
            if leaves is None:
                tr.errno = ENODEV
                return None
            chosen += leaves
        return chosen

    def book(self, chosen: list[int], meta: JobMeta, writer) -> int:
        """Apply the selection as the update walk does (same writes, same order, same
        emission); 0.

        Each chosen node (in child-edge order) is taken whole: every leaf gets a span of its
        size, the job's table entry, tag and exclusivity span, then the node the same and an
        aggregate span of its leaves; the root gets the tag, exclusivity span and aggregate span.
        """
        tr = self.tr
        shape = self.shape
        assert shape is not None
        g = tr.graph
        dom = tr.dom
        sched = g.schedule
        types, sizes, dst = g.types, g.sizes, g.edge_dst
        ptypes = tr.pruning.pruning_types(dom)
        jobid, at, duration, alloc_type = meta.jobid, meta.at, meta.duration, meta.alloc_type
        end = at + duration
        allocating = alloc_type != NO_ALLOC
        if alloc_type == ALLOC:
            table = sched.allocations
        elif alloc_type == ALLOC_ORELSE_RESERVE:
            table = sched.reservations
        else:
            table = None
        plans, x_checkers, tags, x_spans = sched.plans, sched.x_checkers, sched.tags, sched.x_spans
        subplans, job2span = sched.subplans, sched.job2span
        emit_vtx, emit_edg = writer.emit_vtx, writer.emit_edg
        root = shape.root
        root_edges = shape.edges
        chosen = sorted(chosen)
        holding = SmallPlanner.holding
        # what the walk accumulates below one node of each kind taken whole (its leaves of
        # pruning types), and that as a node aggregate's span (by kind: alike nodes' aggregates
        # have the same types)
        below = [{t: n * size for t, (n, size) in kd.items() if t in ptypes} for kd in shape.kinds]
        vectors: list[list[int] | None] = [None] * len(below)
        kind_of = shape.kind_of
        n = len(shape.nodes)
        pooled: dict[str, int] = {}  # pool units of pruning types taken at the root
        deferred = self.defer and alloc_type == ALLOC_ORELSE_RESERVE
        writes: list = []
        unsynced = self._unsynced
        if allocating and not deferred:
            self._keyed_at = -1
        for i in shape.emission(chosen):
            if i >= n:  # a leaf of the root's pool, taken whole
                e, c = shape.extra[i - n]
                if allocating:
                    self._hold(c, sizes[c], table, meta)
                if types[c] in ptypes:
                    pooled[types[c]] = pooled.get(types[c], 0) + sizes[c]
                emit_vtx(g, c, 2, sizes[c], True, False)
                emit_edg(g, e, False)
                continue
            v = shape.nodes[i]
            edges = shape.node_edges[i]
            if allocating:
                sp = subplans[v]
                sp = None if sp is None else sp.get(dom)
                kind = kind_of[i]
                vector = None
                if sp is not None and below[kind]:
                    vector = vectors[kind]
                    if vector is None:
                        vector = vectors[kind] = [below[kind].get(t, 0) for t in sp.resource_types]
            if deferred:
                writes.append(self._take(i, vector))
            elif allocating:  # _hold of each leaf (whole) and of the node, inline: the hot loop
                if i in unsynced:
                    self._sync(i)
                for c in (*(dst[e] for e in edges), v):
                    size = sizes[c]
                    p = plans[c]
                    if p is None:
                        plans[c] = holding(size, types[c], at, end, size)
                        span = 1
                    else:
                        span = p.add_span(at, duration, size)
                    if table is not None:
                        d = table[c]
                        if d is None:
                            d = table[c] = {}
                        d[jobid] = span
                    d = tags[c]
                    if d is None:
                        d = tags[c] = {}
                    d[jobid] = jobid
                    p = x_checkers[c]
                    if p is None:
                        x_checkers[c] = holding(X_CHECKER_NJOBS, "jobs", at, end, 1)
                        span = 1
                    else:
                        span = p.add_span(at, duration, 1)
                    d = x_spans[c]
                    if d is None:
                        d = x_spans[c] = {}
                    d[jobid] = span
                if vector is not None:
                    d = job2span[v]
                    if d is None:
                        d = job2span[v] = {}
                    d[jobid] = sp.add_span(at, duration, vector)
            for e in edges:
                c = dst[e]
                emit_vtx(g, c, 3, sizes[c], True, True)
                emit_edg(g, e, True)
            emit_vtx(g, v, 2, sizes[v], True, False)
            emit_edg(g, root_edges[i], False)
        if tr.policy.stop_on_k:  # (each weight reads only its own node's aggregate)
            if allocating:
                self._chosen_at[jobid] = tr.weight_moves
            self._relearn(chosen, meta.now)  # (no pool leaves under these policies)
        if deferred:
            self._record(jobid, at, duration, writes)
        if allocating:
            self._hold(root, -1, None, meta)
            sp = subplans[root]
            if sp is not None:
                sp = sp.get(dom)
            k = len(chosen) - sum(i >= n for i in chosen)
            acc = pooled
            for i in chosen[:k]:
                for t, units in below[kind_of[i]].items():
                    acc[t] = acc.get(t, 0) + units
            if "node" in ptypes:
                acc["node"] = k * sizes[shape.nodes[0]]
            if sp is not None and acc:
                d = job2span[root]
                if d is None:
                    d = job2span[root] = {}
                d[jobid] = sp.add_span(at, duration, [acc.get(t, 0) for t in sp.resource_types])
        emit_vtx(g, root, 1, 1, False, False)
        writer.emit_tm(at, end)
        if meta.queue:
            writer.emit_attrs("queue", meta.queue)
        if allocating:
            alloc = int(alloc_type == ALLOC)
            busy, nalloc = self.busy, self.nalloc
            for i in chosen:
                busy[i].append((at, end, jobid, alloc))
                nalloc[i] += alloc
            self.jobs[jobid] = chosen
            if self._serving is not None:
                self.serving[jobid] = self._serving
            self._known_root.add(jobid)
        self.used += 1
        return 0

    def _hold(self, v: int, amount: int, table: list | None, meta: JobMeta) -> None:
        """Book ``amount`` units of ``v`` for the job (none when ``amount < 0``: the vertex is
        only crossed), its table entry, tag and exclusivity span, as the update walk does."""
        sched = self.tr.graph.schedule
        jobid, at, duration = meta.jobid, meta.at, meta.duration
        end = at + duration
        if amount >= 0:
            plans = sched.plans
            p = plans[v]
            if p is None:
                g = self.tr.graph
                plans[v] = SmallPlanner.holding(g.sizes[v], g.types[v], at, end, amount)
                span = 1
            else:
                span = p.add_span(at, duration, amount)
            if table is not None:
                put(table, v, jobid, span)
        put(sched.tags, v, jobid, jobid)
        p = sched.x_checkers[v]
        if p is None:
            sched.x_checkers[v] = SmallPlanner.holding(X_CHECKER_NJOBS, "jobs", at, end, 1)
            span = 1
        else:
            span = p.add_span(at, duration, 1)
        put(sched.x_spans, v, jobid, span)

    def reselects(self, jobid: int, now: int, ignore: Collection[int] = ()) -> bool:
        """Whether cancelling reservation ``jobid`` and re-booking its request at its own start
        (the match made at ``now``, with the bookings ``ignore`` cancelled too) would select
        the same nodes; if so, the exploration weights are re-keyed as that booking would
        re-key them, and the reservation stands for it.

        The caller vouches that the start cannot move (the earliest start is not this method's
        question) and that the reservation was booked by this engine for a request it accepts.
        The selection is the one :meth:`select` makes at the reservation's window with the
        reservation itself not counted: the first ``p`` candidates no other job touches.

            >>> from fluxgraph.machines import build_machine
            >>> from fluxgraph.sched.allocator import MatcherAllocator
            >>> from fluxgraph.sched.shapes import JobShape
            >>> from fluxgraph.workload import Job
            >>> a = MatcherAllocator(build_machine("nodes=2"), JobShape("node", 1))
            >>> a.allocate(Job(1, 0, 10, 10, procs=2), 1, now=0, reserve=False).at
            0
            >>> a.allocate(Job(2, 0, 5, 5, procs=1), 2, now=0, reserve=True).at
            10
            >>> a.matcher.traverser.fastpath.reselects(2, now=3)
            True
        """
        if not self.owns(jobid):
            return False
        tr = self.tr
        policy = tr.policy
        if type(policy) is not IdOrder or policy.stop_on_k > 1:
            return False
        mine = self.jobs.get(jobid)
        if not mine:
            return False
        busy = self.busy
        at = end = -1
        for s, e, j, alloc in busy[mine[0]]:
            if j == jobid:
                if alloc:
                    return False  # an allocation, not a reservation
                at, end = s, e
                break
        if at <= now:
            return False
        shape = self.shape
        assert shape is not None
        n = len(shape.nodes)
        nodes = [i for i in mine if i < n]
        leaves = mine[len(nodes) :]
        if not nodes:
            return False
        serving = self.serving.get(jobid)
        if serving is None and len(shape.kinds) > 1:
            return False  # (which kinds serve the job's request is not known)
        but = {jobid, *ignore}
        chosen = self._first_free(self._order(), len(nodes), at, end, but=but, kinds=serving)
        if chosen is None or sorted(chosen) != nodes:
            return False
        if leaves:
            pool = {tr.graph.types[shape.extra[i - n][1]] for i in leaves}
            if policy.stop_on_k or len(pool) != 1 or next(iter(pool)) not in shape.pool:
                return False
            got = self._first_free(self._pool_order(pool.pop()), len(leaves), at, end, but=but)
            if got is None or sorted(got) != leaves:
                return False
        if policy.stop_on_k:
            self._chosen_at[jobid] = tr.weight_moves
            self._relearn(mine, now)
        return True

    def _first_free(
        self,
        order: Iterable[int],
        count: int,
        at: int,
        end: int,
        now: bool = False,
        but: Collection[int] = (),
        kinds: list[bool] | None = None,
    ) -> list[int] | None:
        """The first ``count`` positions of ``order`` that no job but those in ``but`` touches
        during ``[at, end)`` (nor, for a match made ``now``, allocates at all), among nodes of
        the ``kinds`` marked (default all); ``None`` if fewer."""
        busy, nalloc, kind_of = self.busy, self.nalloc, self.shape.kind_of
        chosen = []
        for i in order:
            if (now and nalloc[i]) or (kinds is not None and not kinds[kind_of[i]]):
                continue
            for s, e, j, _ in busy[i]:
                if s < end and e > at and j not in but:
                    break
            else:
                chosen.append(i)
                if len(chosen) == count:
                    return chosen
        return None

    def _pool_order(self, pool: str) -> list[int]:
        """The positions of the root's ``pool`` leaves in the walk's candidate order (by id)."""
        leaves = self.shape.pool[pool][1]
        return leaves[::-1] if self.tr.policy.prefer_high else leaves

    def cancel(self, jobid: int) -> int:
        """Remove every span and tag of ``jobid`` in the cancel walk's order; 0 (the walk's
        visit counts are left in ``preorder``/``postorder``)."""
        tr = self.tr
        shape = self.shape
        assert shape is not None
        g = tr.graph
        sched = g.schedule
        dom = tr.dom
        positions = self.jobs.pop(jobid, [])
        self._chosen_at.pop(jobid, None)
        unwritten = self.pending.pop(jobid, None) is not None
        if not unwritten:
            self._keyed_at = -1
        self.serving.pop(jobid, None)
        self._known_root.discard(jobid)
        tags, x_spans, x_checkers = sched.tags, sched.x_spans, sched.x_checkers
        subplans, job2span, plans = sched.subplans, sched.job2span, sched.plans
        allocations, reservations = sched.allocations, sched.reservations

        def remove(u: int) -> None:
            # what the cancel walk removes at one vertex tagged with the job
            del tags[u][jobid]
            xs = x_spans[u]
            if xs and jobid in xs:
                x_checkers[u].rem_span(xs.pop(jobid))
            sp = subplans[u]
            sp = sp.get(dom) if sp else None
            j2s = job2span[u]
            if sp is not None and j2s and jobid in j2s:
                sp.rem_span(j2s.pop(jobid))
            span = None
            a, r = allocations[u], reservations[u]
            if a and jobid in a:
                span = a.pop(jobid)
            elif r and jobid in r:
                span = r.pop(jobid)
            if span is not None:
                plans[u].rem_span(span)

        remove(shape.root)
        dst = g.edge_dst
        pre = post = 0  # the walk's visits below the nodes (an untagged leaf: a visit only)
        n = len(shape.nodes)
        for i in positions:
            if i >= n:  # a leaf of the root's pool
                post += 1
                remove(shape.extra[i - n][1])
                self._drop(i, jobid)
                continue
            if unwritten:  # (the walk would visit and untag every leaf of the node)
                pre += len(shape.node_edges[i])
                post += len(shape.node_edges[i])
                self._drop(i, jobid)
                continue
            v = shape.nodes[i]
            remove(v)
            for e in shape.node_edges[i]:
                c = dst[e]
                pre += 1
                t = tags[c]
                if not t or jobid not in t:
                    continue
                post += 1
                if subplans[c] is not None:
                    remove(c)
                    continue
                # remove(c) of a leaf (no aggregate), inline: the hot loop of every cancel
                del t[jobid]
                xs = x_spans[c]
                if xs and jobid in xs:
                    x_checkers[c].rem_span(xs.pop(jobid))
                a = allocations[c]
                if a and jobid in a:
                    plans[c].rem_span(a.pop(jobid))
                else:
                    r = reservations[c]
                    if r and jobid in r:
                        plans[c].rem_span(r.pop(jobid))
            self._drop(i, jobid)
        tr.preorder = 1 + len(shape.nodes) + len(shape.extra) + pre
        tr.postorder = 1 + sum(i < n for i in positions) + post
        return 0
