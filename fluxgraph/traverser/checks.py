"""The per-vertex checks of the selection walk (matching-semantics §6.8): a vertex is rejected
early by its status, the request's constraint, its own availability over the window, its
exclusivity checker or its pruning aggregates, each with the reference's errno.

:class:`VertexChecks` is a part of :class:`~fluxgraph.traverser.dfu.Selector` (it reads the
selector's graph, subsystem, pool types and errno).
"""

from __future__ import annotations

from errno import EBUSY, EINVAL
from typing import TYPE_CHECKING

from fluxgraph.errors import PlannerError
from fluxgraph.graph import STATUS_UP
from fluxgraph.traverser.state import (
    ALLOC,
    CONSTRAINED_TYPES,
    NO_ALLOC,
    SATISFIABILITY,
    X_CHECKER_NJOBS,
    JobMeta,
)

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph
    from fluxgraph.traverser.request import Request

__all__ = ["VertexChecks"]


class VertexChecks:
    """Status, constraint, availability, exclusivity and aggregate checks of one vertex."""

    graph: ResourceGraph
    dom: str
    errno: int
    pool_types: frozenset[str]
    pruned_avail: int

    def prune(
        self, meta: JobMeta, x_in: bool, s: str, u: int, utype: str, requests: list[Request]
    ) -> int:
        """Reject ``u`` early by status, constraint, availability, exclusivity or aggregates."""
        if self.own_checks(meta, u, utype) == 0:
            return -1
        for r in requests:
            rtype = r.type
            if rtype != utype and rtype != "slot":
                continue
            if (
                rtype != "slot"
                and (x_in or r.exclusive is True)
                and self.by_excl(meta, u, x_in, r) < 0
            ):
                return -1
            if r.user_data and self.by_subplan(meta, s, u, r) < 0:
                return -1
        return 0

    def own_checks(self, meta: JobMeta, u: int, utype: str) -> int:
        """``u``'s own availability over the request's window (kept in ``pruned_avail``), or 0
        with errno EBUSY when its status, the constraint or its planner rules it out."""
        g = self.graph
        if meta.alloc_type != SATISFIABILITY and g.status[u] != STATUS_UP:
            self.errno = EBUSY
            return 0
        if (
            meta.constraint is not None
            and utype in CONSTRAINED_TYPES
            and not meta.constraint.matches(g.vertex(u))
        ):
            self.errno = EBUSY
            return 0
        p = g.schedule.plans[u]
        a = self.pruned_avail = (
            g.sizes[u] if p is None else p.avail_resources_during(meta.at, meta.duration)
        )
        if a == 0:
            self.errno = EBUSY
        return a

    def by_subplan(self, meta: JobMeta, s: str, u: int, r: Request) -> int:
        """Whether ``u``'s ``s`` aggregate can supply one instance of ``r`` (-1: EBUSY)."""
        ud = r.user_data
        if not ud:
            return 0
        subplans = self.graph.schedule.subplans[u]
        sp = subplans.get(s) if subplans else None
        if sp is None:
            return 0
        try:
            ok = sp.avail_during(meta.at, meta.duration, [ud.get(t, 0) for t in sp.resource_types])
        except PlannerError:  # a request over the total: busy, as the reference
            ok = False
        if not ok:
            self.errno = EBUSY
            return -1
        return 0

    def by_excl(self, meta: JobMeta, u: int, x_in: bool, r: Request) -> int:
        if x_in and r.exclusive is False:
            self.errno = EINVAL
            return -1
        if x_in or r.exclusive is True:
            if r.type in self.pool_types:
                return 0  # a shared capacity pool: its planner alone limits the request
            sched = self.graph.schedule
            if (
                meta.at == meta.now
                and meta.alloc_type in (ALLOC, NO_ALLOC)
                and sched.allocations[u]
            ):
                self.errno = EBUSY
                return -1
            xc = sched.x_checkers[u]
            if (
                xc is not None
                and xc.avail_resources_during(meta.at, meta.duration) < X_CHECKER_NJOBS
            ):
                self.errno = EBUSY
                return -1
        return 0
