"""The traverser: initialisation and the match operations (§6.1-§6.16).

:class:`Traverser` extends the selection walk of :mod:`fluxgraph.traverser.dfu` and the booking of
:mod:`fluxgraph.traverser.booking` with what happens around them: priming pruning-filter
aggregates, the node pre-check, and the allocate / reserve / satisfiability operations.
"""

from __future__ import annotations

from errno import EBUSY, EINVAL, ENODEV, ENOENT, ENOTSUP, ERANGE

from fluxgraph.errors import PlannerError
from fluxgraph.graph import STATUS_UP
from fluxgraph.planner import PlannerMulti
from fluxgraph.traverser.booking import Booker
from fluxgraph.traverser.dfu import (
    ALLOC_ORELSE_RESERVE,
    NO_ALLOC,
    SATISFIABILITY,
    JobMeta,
)
from fluxgraph.traverser.request import Request, prime_requests
from fluxgraph.traverser.state import (
    INT64_MAX,
    avail_during,
)

__all__ = ["OPS", "Traverser"]

#: Match operations, as ``resource-query`` names them.
OPS = (
    "allocate",
    "allocate_with_satisfiability",
    "allocate_orelse_reserve",
    "satisfiability",
    "without_allocating",
    "without_allocating_future",
)
_AT_NOW_OPS = ("allocate", "without_allocating")
_SAT_OPS = ("allocate_with_satisfiability", "satisfiability")


class Traverser(Booker):
    """Match, update and cancel on one graph with one policy (see module docstring)."""

    #: The exact fast path for whole-node requests on flat machines
    #: (:class:`~fluxgraph.traverser.fastpath.FlatNodes`), set by the matcher; ``None``: off.
    fastpath = None
    #: Bumped by every status change (:func:`~fluxgraph.traverser.status.mark`).
    status_epoch = 0
    _fast_want: tuple[int, str, int] | None = None
    _fast_agg: list[int] | None = None
    _fast_chosen: list[int] | None = None

    def initialize(self) -> int:
        """Build the pruning-filter aggregates of every subsystem; 0, or -1 (missing root)."""
        self.colors.reset()
        g = self.graph
        for s in self.subsystems:
            root = g.roots.get(s)
            if root is None:
                self.errno = ENOTSUP
                return -1
            self._prime(s, root, {})
        self.nodes_up = sum(1 for v in g.by_type.get("node", ()) if g.status[v] == STATUS_UP)
        return 0

    def _prime(self, s: str, u: int, to_parent: dict[str, int]) -> None:
        """Aggregate each vertex's pruning-type totals below it into its ``s`` subplan; a leaf
        whose type nothing tracks becomes tracked at the root (``cluster``)."""
        g = self.graph
        pruning = self.pruning
        marks = self.colors.marks[s]
        base = self.colors.base
        types, sizes, out_edges = g.types, g.sizes, g.out_edges
        children, dst = g.child_edges(s), g.edge_dst
        subplans = g.schedule.subplans
        tracked: dict[str, bool] = {}  # (set_pruning_type only ever adds a type)
        mine: dict[str, tuple[int, list[str]]] = {}  # type -> (pruning version, its types)

        def is_tracked(t: str) -> bool:
            known = tracked.get(t)
            if known is None:
                known = tracked[t] = pruning.is_pruning_type(s, t)
            return known

        def add_leaf(v: int, to_parent: dict[str, int]) -> None:
            vtype = types[v]
            if not is_tracked(vtype):
                pruning.set_pruning_type(s, "cluster", vtype)
                tracked[vtype] = True
            to_parent[vtype] = to_parent.get(vtype, 0) + sizes[v]
            marks[v] = base + 2

        def prime(u: int, to_parent: dict[str, int]) -> None:
            marks[u] = base + 1
            utype = types[u]
            if is_tracked(utype):
                to_parent[utype] = to_parent.get(utype, 0) + sizes[u]
            dfv: dict[str, int] = {}
            for e in children[u]:
                tgt = dst[e]
                if marks[tgt] <= base:
                    if out_edges[tgt]:
                        prime(tgt, dfv)
                    elif tracked.get(ttype := types[tgt]):  # (most vertices: leaves, inline)
                        dfv[ttype] = dfv.get(ttype, 0) + sizes[tgt]
                        marks[tgt] = base + 2
                    else:
                        add_leaf(tgt, dfv)
            for t, c in dfv.items():
                if is_tracked(t):
                    to_parent[t] = to_parent.get(t, 0) + c
            got = mine.get(utype)
            if got is None or got[0] != pruning.version:
                got = mine[utype] = (pruning.version, pruning.my_pruning_types(s, utype))
            own = got[1]
            if own:
                totals = [dfv.get(t, 0) for t in own]
                if subplans[u] is None:
                    subplans[u] = {}
                sp = subplans[u].get(s)
                if sp is not None:
                    # spans of running jobs must keep pointing at their types' planners when a
                    # graph change reshapes the aggregate (e.g. a removal makes a new leaf type)
                    sp.update(totals, own, remap=True)
                else:
                    subplans[u][s] = PlannerMulti(0, INT64_MAX, totals, own)
            marks[u] = base + 2

        try:
            if out_edges[u]:
                prime(u, to_parent)
            else:
                add_leaf(u, to_parent)
        finally:
            prime = None  # (the closure refers to itself: leave no garbage)

    # -- operations ----------------------------------------------------------------------------

    def run(
        self,
        requests: list[Request],
        op: str,
        jobid: int,
        at: int,
        duration: int,
        writer,
        constraint=None,
        queue: str = "",
        now: int | None = None,
    ) -> tuple[int, int, int]:
        """Match ``requests`` with operation ``op``; returns ``(rc, at, duration)``.

        ``rc`` is 0 on success or -1 with ``self.errno`` set. ``duration`` is the job's
        duration after the reference's defaulting (see :func:`job_duration`). A failed run
        changes nothing; if it took the early-termination shortcut it is repeated with full
        walks, so that the error reported is the one the reference's walk leaves behind.

        ``now`` (default ``at``) earlier than ``at`` makes ``allocate`` / ``without_allocating``
        one select at ``at``: one iteration of the reservation loop, so the overrun check is
        off and ``allocate`` books a reservation.
        """
        self.shortcut_used = False
        args = (requests, op, jobid, at, duration, writer, constraint, queue, now)
        result = self._run(*args)
        if result[0] != 0 and self.shortcut_used:
            self.shortcuts = False
            try:
                result = self._run(*args)
            finally:
                self.shortcuts = True
        return result

    def _run(self, requests, op, jobid, at, duration, writer, constraint, queue, now=None):
        self.errno = 0
        self.total_preorder = self.total_postorder = 0
        g = self.graph
        dom = self.dom
        root = g.roots.get(dom)
        if root is None or not requests:
            self.errno = EINVAL
            return -1, at, duration
        rtype = g.types[root]
        x = any(r.type == rtype and r.exclusive is True for r in requests)
        saved = set(self.exclusive_types)
        dfv = self._prime_cached(requests)
        self._fast_want = self._fast_accept(requests, jobid, at, duration, constraint, root, dfv)
        if not self._fast_want and self.fastpath is not None:
            self.fastpath.flush()  # (the walk reads what the fast path deferred)
        meta = JobMeta(jobid, at, duration, constraint, queue)
        if now is not None and now < at:
            meta.now = now
            meta.alloc_type = ALLOC_ORELSE_RESERVE
        if op in ("without_allocating", "without_allocating_future"):
            meta.alloc_type = NO_ALLOC
        if op == "satisfiability":
            rc = self._sat_select(requests, root, meta, x)
            if rc == 0:
                self.colors.reset()
        else:
            rc = self._schedule(requests, meta, x, op, root, dfv)
            if rc == 0:
                graph_end = self.graph_end
                if meta.at == graph_end:
                    self.exclusive_types = saved
                    self.errno = EBUSY
                    return -1, meta.at, meta.duration
                if meta.at < 0 or meta.at > graph_end:
                    self.exclusive_types = saved
                    self.errno = EINVAL
                    return -1, meta.at, meta.duration
                if meta.at + meta.duration > graph_end:
                    meta.duration = graph_end - meta.at
                if self._fast_want:
                    rc = self.fastpath.book(self._fast_chosen, meta, writer)
                else:
                    rc = self.update(root, writer, meta)
                    if rc == 0 and self.fastpath is not None and meta.alloc_type != NO_ALLOC:
                        self.fastpath.adopt(jobid)
        self.exclusive_types = saved
        return rc, meta.at, meta.duration

    def _fast_accept(self, requests, jobid, at, duration, constraint, root, dfv):
        """What the fast path answers of this match (``(nodes, pool type, pool leaves)``), or
        ``None``; keeps the request's need in the root aggregate's types for its pre-check."""
        fast = self.fastpath
        if fast is None or not self.shortcuts or constraint is not None:
            return None
        want = fast.accept(requests, jobid, at, duration)
        if want:
            subplans = self.graph.schedule.subplans[root]
            rootagg = subplans.get(self.dom) if subplans else None
            self._fast_agg = (
                None if rootagg is None else [dfv.get(t, 0) for t in rootagg.resource_types]
            )
        return want

    def cancel(self, jobid: int) -> int:
        """Remove every span and tag of ``jobid``; 0, or -1 with ``self.errno`` (the fast
        path's own jobs are removed by it, in the cancel walk's order)."""
        fast = self.fastpath
        if fast is not None and fast.owns(jobid):
            return fast.cancel(jobid)
        if fast is not None:
            fast.flush()
        rc = super().cancel(jobid)
        if fast is not None:
            fast.forget(jobid)
        return rc

    def prime(self, requests: list[Request], dfv: dict[str, int]) -> None:
        """Fill each request's ``user_data`` and the request-wide totals ``dfv`` (§6.4)."""
        dom = self.dom
        prime_requests(
            requests, dfv, lambda t: self.pruning.is_pruning_type(dom, t), self.exclusive_types
        )

    def _prime_cached(self, requests: list[Request]) -> dict[str, int]:
        """:meth:`prime` ``requests``; the request-wide totals ``dfv``.

        The same request objects primed again under the same pruning configuration get the
        same ``user_data`` and totals: then only the exclusive types are added again (a
        :class:`~fluxgraph.matcher.Matcher` hands the same objects for the same jobspec).
        """
        cached = self._primed
        version = self.pruning.version
        if (
            cached is not None
            and cached[1] == version
            and len(cached[0]) == len(requests)
            and all(a is b for a, b in zip(cached[0], requests, strict=True))
            and type(self) is Traverser
        ):
            self.exclusive_types.update(cached[3])
            return dict(cached[2])
        dfv: dict[str, int] = {}
        self.prime(requests, dfv)
        excl: set[str] = set()
        todo = list(requests)
        while todo:
            r = todo.pop()
            if r.exclusive is True:
                excl.add(r.type)
            todo.extend(r.with_)
        self._primed = (tuple(requests), version, dict(dfv), frozenset(excl))
        return dfv

    def _select(self, requests, root, meta, x) -> int:
        if self._fast_want:
            chosen = self.fastpath.select(self._fast_want, meta, self._fast_agg)
            if chosen is not False:
                self._fast_chosen = chosen
                self.preorder = self.postorder = 0
                return -1 if chosen is None else 0
            self._fast_want = None  # the walk decides this select and the rest of the match
            self.fastpath.flush()
        rc = self.select(requests, root, meta, x)
        self.total_preorder += self.preorder
        self.total_postorder += self.postorder
        return rc

    def _sat_select(self, requests, root, meta: JobMeta, x: bool) -> int:
        meta.alloc_type = SATISFIABILITY
        meta.at = self.far_future(meta.duration)
        rc = self._select(requests, root, meta, x)
        if rc != 0 and self.errno in (EBUSY, ERANGE):
            self.errno = ENODEV
        self.colors.reset()
        return rc

    def _schedule(self, requests, meta: JobMeta, x: bool, op: str, root: int, dfv) -> int:
        if not self._request_feasible(meta, op, dfv):
            return -1
        if op in _AT_NOW_OPS:
            rc = self._select(requests, root, meta, x)
            if rc != 0:
                self.errno = EBUSY
            return rc
        if op == "allocate_with_satisfiability":
            rc = self._select(requests, root, meta, x)
            if rc != 0:
                self.errno = EBUSY
                if self._sat_select(requests, root, meta, x) == 0:
                    self.errno = EBUSY
                return -1
            return rc
        # allocate_orelse_reserve / without_allocating_future
        rc = self._select(requests, root, meta, x)
        if rc == 0:
            return 0
        if op == "allocate_orelse_reserve":
            meta.alloc_type = ALLOC_ORELSE_RESERVE
        return self._reserve(requests, meta, x, root, dfv)

    def _reserve(self, requests, meta: JobMeta, x: bool, root: int, dfv) -> int:
        subplans = self.graph.schedule.subplans[root]
        rootagg = subplans.get(self.dom) if subplans else None
        if rootagg is None:
            self.errno = EINVAL
            return -1
        agg = [dfv.get(t, 0) for t in rootagg.resource_types]
        rc = -1
        try:
            t = rootagg.avail_time_first(meta.at + 1, meta.duration, agg)
        except PlannerError as err:
            self.errno = err.errno or EINVAL
            if self.errno == EINVAL:
                return -1
            t = None
        else:  # ENOENT when nothing fits, EBUSY when another type rejected a candidate
            if rootagg.search_errno:
                self.errno = rootagg.search_errno
        while t is not None and rc != 0:
            meta.at = t
            rc = self._select(requests, root, meta, x)
            # The reference's loop advances the search after every select, the successful one
            # included: its errno is the stale errno of an update that then fails (§6.13), e.g.
            # ENOENT ("Unsatisfiable", job counter kept) when no later candidate exists.
            t = rootagg.avail_time_next()
            if rootagg.search_errno:
                self.errno = rootagg.search_errno
        if rc < 0 and self.errno in (ENOENT, ERANGE):
            self.errno = EBUSY
            self._sat_select(requests, root, meta, x)
        return rc

    def _request_feasible(self, meta: JobMeta, op: str, dfv: dict[str, int]) -> bool:
        """The node-count pre-check (§6.5)."""
        target = dfv.get("node", 0)
        sat = op in _SAT_OPS
        constraint = meta.constraint
        if constraint is None and target <= self.nodes_up:
            return True
        if target > self.nodes_up:
            self.errno = ENODEV if sat else EBUSY
            return False
        g = self.graph
        nodes = g.by_type.get("node", ())
        if not nodes:
            return True
        t = meta.at if op in _AT_NOW_OPS else self.graph_end - 1
        plans = g.schedule.plans
        feasible = 0
        for v in nodes:
            if (
                (constraint is None or constraint.matches(g.vertex(v)))
                and (sat or g.status[v] == STATUS_UP)
                and avail_during(plans[v], g.sizes[v], t, meta.duration) == 1
            ):
                feasible += 1
                if feasible >= target:
                    break
        if feasible < target:
            self.errno = ENODEV if sat else EBUSY
            return False
        return True
