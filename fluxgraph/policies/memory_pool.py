"""The memory-pool policy (``memory-pool``): where a job's local and borrowed memory comes from.

Zacarias et al. §IV-C/§IV-D (disaggregated-memory spec §4.3, §4.4). One policy, three phases,
the phase chosen by the allocator for each match:

``local``
    the Slurm default: candidate nodes by memory *capacity* ascending, then node id, so normal
    nodes come first and large nodes are kept for large jobs (the code's
    ``sched_weight = real_memory``); the traverser's planners check cores and free memory;
``spread``
    the disaggregated pass's compute nodes: only nodes whose memory is entirely free (D1), by
    free memory descending, then node id, so large idle nodes come first and the local share
    of the job grows (``sched_weight = MAX - avail_mem``);
``lend``
    memory pools reached through the ``memnet`` conduit, by vertex order (the node order of
    the lenders: the code's bitmap walk); the request ``memory[D]`` is met greedily, so one
    lender may cover several deficits (D2).

``excluded`` holds the vertices the current match must not use (set by the allocator before
each match): lending nodes in ``local``/``spread`` (a lender never takes new compute work,
§IV-D), the job's own compute nodes' memory in ``lend``; ``only`` (when set) the only nodes and
pools it may use (re-creating an allocation over a new window). With ``want`` set, every chosen
node books ``min(want, free)`` MiB of its memory, whatever the jobspec's memory count: in
``spread``, the local share ``loc_i = min(M, cap_i)`` of spec §4.4 step 3, which differs
between node classes.
``scope`` says which pools a borrower may reach: ``node`` (memory vertices under nodes:
node-to-node lending), ``rack`` or ``system`` (pool vertices directly under a rack or under
the cluster).
"""

from __future__ import annotations

from typing import Any, ClassVar

from fluxgraph.errors import MatchError
from fluxgraph.policies.ids import choose_children, choose_top
from fluxgraph.policies.scoring import ScoringObject

__all__ = ["PHASES", "SCOPES", "MemoryPool"]

PHASES = ("local", "spread", "lend")
SCOPES = ("node", "rack", "system")

#: Scores are ``key * _SHIFT + id + 2``: the key dominates, the id breaks ties (ids < 2**24).
_SHIFT = 1 << 24
#: Above any node's free memory in MiB (the ``spread`` key is ``_MAX_FREE - free``).
_MAX_FREE = 1 << 36
_POOL_PARENT = {"node": "node", "rack": "rack", "system": "cluster"}
#: The vertex types ``only`` restricts.
_PINNED = frozenset(("node", "memory"))


class MemoryPool:
    """Local memory first, then memory lent by other pools (see the module docstring).

    Examples
    --------
    >>> MemoryPool("spread")
    MemoryPool(phase=spread, scope=node)
    >>> MemoryPool("swap")
    Traceback (most recent call last):
    ...
    fluxgraph.errors.MatchError: memory-pool phase 'swap' is not one of local, spread, lend
    """

    __slots__ = ("excluded", "only", "phase", "scope", "want")

    #: Explore every candidate (the order depends on free memory, not only on ids).
    stop_on_k: ClassVar[int] = 0
    #: Exclusivity comes from the jobspec (A-base asks for ``exclusive`` nodes).
    exclusive_types: ClassVar[tuple[str, ...]] = ()
    #: Memory vertices are capacity pools: several jobs hold spans on one at the same time.
    pool_types: ClassVar[tuple[str, ...]] = ("memory",)

    def __init__(self, phase: str = "local", scope: str = "node") -> None:
        if phase not in PHASES:
            raise MatchError(f"memory-pool phase {phase!r} is not one of {', '.join(PHASES)}")
        if scope not in SCOPES:
            raise MatchError(f"memory-pool scope {scope!r} is not one of {', '.join(SCOPES)}")
        self.phase = phase
        self.scope = scope
        self.excluded: frozenset[int] | set[int] = frozenset()
        self.only: frozenset[int] | set[int] | None = None
        self.want = 0

    def __repr__(self) -> str:
        return f"MemoryPool(phase={self.phase}, scope={self.scope})"

    def dom_discover_vtx(self, graph, u: int) -> int:
        """Refuse an excluded vertex (or a node or pool outside ``only``) before its children."""
        if u in self.excluded:
            return -1
        only = self.only
        return -1 if only is not None and u not in only and graph.types[u] in _PINNED else 0

    def dom_finish_vtx(self, graph, dom: str, u: int, requests: Any, dfu: ScoringObject) -> int:
        """Score ``u`` by the phase's key; nodes failing the phase's predicate score 0."""
        utype = graph.types[u]
        key = 0
        if utype == "node" and self.phase != "lend":
            ev = dfu.evals.get((dom, "memory"))
            sizes, dst = graph.sizes, graph.edge_dst
            capacity = free = 0
            if ev is not None:
                for g in ev.groups:
                    capacity += sizes[dst[g.edges[0][3]]]
                    free += g.count
            if self.phase == "local":
                key = capacity
            elif free < capacity or capacity == 0:  # spread: the node's memory is all free
                dfu.overall_score = 0
                return -1
            else:
                key = _MAX_FREE - free
        elif utype == "memory" and self.phase == "lend":
            parent = graph.types[graph.edge_src[_parent_edge(graph, u)]]
            if parent != _POOL_PARENT[self.scope]:
                dfu.overall_score = 0
                return -1
        if not choose_children(dom, utype, requests, dfu, False):
            dfu.overall_score = 0
            return -1
        _take_needed(dfu, dom, self.want)
        # ``lend`` ranks memory vertices by their index: the node order of their parents
        dfu.overall_score = key * _SHIFT + (u if self.phase == "lend" else graph.ids[u]) + 2
        return 0

    def dom_finish_slot(self, graph, dom: str, dfu: ScoringObject) -> int:
        """Order slot members lowest score first."""
        for sub, rtype in list(dfu.evals):
            if sub == dom:
                dfu.choose_accum_all(sub, rtype, False)
        return 0

    def dom_finish_graph(self, graph, dom: str, requests: Any, dfu: ScoringObject) -> int:
        """Choose each top-level request's units lowest score first."""
        if not choose_top(dom, requests, dfu, False):
            return -1
        _take_needed(dfu, dom, 0)
        return 0


def _take_needed(dfu: ScoringObject, dom: str, want: int) -> None:
    """Book only the chosen units of each memory pool, not the pool's whole availability.

    The reference marks a chosen group's edge with the child's full availability (a chosen
    group is taken whole, matching-semantics §6.12); a pool shared by jobs gives each job its
    ``needs`` (set by the best-k choice) instead, or ``min(want, available)`` when ``want``.
    """
    ev = dfu.evals.get((dom, "memory"))
    if ev is None or not ev.best_k:
        return
    for g in ev.groups[: ev.best_i]:
        count, _, excl, e = g.edges[0]
        g.edges[0] = (count, min(want, count) if want else g.needs, excl, e)


def _parent_edge(graph, u: int) -> int:
    """The containment in-edge of ``u`` (memory vertices have exactly one)."""
    for e in graph.in_edges[u]:
        if graph.edge_subsystem[e] == "containment":
            return e
    raise MatchError(f"vertex {u} has no containment parent")
