"""A-base and A-dis: where a job's nodes and memory come from on a memory machine.

Zacarias et al. §IV-C, §IV-D and Fig. 3 (disaggregated-memory spec §4.3-§4.6). Every placement
is a real match of the graph matcher with the ``memory-pool`` policy
(:mod:`fluxgraph.policies.memory_pool`) on a machine of
:mod:`fluxgraph.papers.disagg.machines`; the allocator only chooses the policy's phase and what it
must avoid, and keeps the one fact the planners cannot hold: which nodes are *lending* over a
window (a lender never takes new compute work, §IV-D; lending is allowed on busy nodes, so the
rule is not a capacity).
The request and placement types, the options and the rules this allocator shares with the
span-table one live in :mod:`fluxgraph.papers.disagg.placement` (re-exported here).

``base`` (A-base, §4.3)
    ``node[N] (exclusive) > {core[C], memory[M]}`` in the ``local`` phase: normal nodes first,
    whole nodes held; a node is usable only if its own memory covers ``M``.
``dis`` (A-dis, §4.4)
    1. the local pass (non-exclusive nodes, ``core[C]`` and ``memory[M]`` booked, lenders
       excluded); failing that
    2. the disaggregated pass: ``N`` compute nodes with entirely free memory, most free memory
       first (``spread``), each booking ``loc_i = min(M, cap_i)``; then the deficit
       ``D = sum(M - loc_i)`` as one ``memory[D]`` request through the ``memnet`` conduit
       (``lend``: lenders in node order, the job's own nodes excluded, one lender covering
       several deficits, D2).

Two model options (spec amendment A.1, A.2):

``lending`` (D17)
    ``shared`` (default, the paper's text): any other node with free memory over the window
    lends (busy nodes, idle nodes, existing lenders), greedily as above. ``dedicated`` (the
    authors' code): only nodes with no span at all over the window lend, in node order, each
    covering the deficit of one compute node (a deficit larger than a lender's memory takes
    the next lenders too); such a lender serves no other job while it lends.
``lender_compute`` (D1)
    ``never`` (default): a lender takes no compute work. ``if-memory-fits`` (ablation, shared
    lending only): the local pass may use a lender whose free memory over the window still
    covers ``M``.

Examples
--------
>>> from fluxgraph.papers.disagg.machines import build_memory_machine
>>> alloc = MemoryAllocator(build_memory_machine(4, 1), "dis")
>>> p = alloc.allocate(MemoryRequest(2, 40000), at=0, duration=10)
>>> p.nodes, p.local, p.lent, round(p.remote_fraction, 4)
((0, 3), (32768, 40000), ((1, 0, 7232),), 0.0904)
>>> alloc.allocate(MemoryRequest(1, 1000), at=0, duration=10).nodes   # node 1 is lending
(2,)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.jobspec.model import Attributes, Jobspec, Resource, SystemAttributes, Task
from fluxgraph.matcher import Matcher
from fluxgraph.papers.disagg.placement import (
    ALLOCATORS,
    LENDER_COMPUTE,
    LENDING,
    MemoryPlacement,
    MemoryRequest,
    check_options,
    never_fits,
    split_deficits,
)
from fluxgraph.policies.memory_pool import MemoryPool
from fluxgraph.writers.sink import SelectionCollector

__all__ = [
    "ALLOCATORS",
    "LENDER_COMPUTE",
    "LENDING",
    "MemoryAllocator",
    "MemoryPlacement",
    "MemoryRequest",
    "check_options",
    "never_fits",
    "split_deficits",
]

_TASK = (Task(("fluxgraph-sim",), "task", None),)


def _jobspec(top: tuple[Resource, ...], duration: int) -> Jobspec:
    return Jobspec(1, top, _TASK, Attributes(SystemAttributes(duration=float(duration))))


class MemoryAllocator:
    """Book placements of :class:`MemoryRequest` on a memory machine (module docstring).

    Parameters
    ----------
    graph : a machine of :func:`~fluxgraph.papers.disagg.machines.build_memory_machine` (its
        scheduling state is owned by this allocator).
    kind : ``base`` (A-base) or ``dis`` (A-dis).
    lending : ``shared`` (default) or ``dedicated`` (D17, module docstring).
    lender_compute : ``never`` (default) or ``if-memory-fits`` (D1).
    scope : the pools a borrower reaches (see :class:`~fluxgraph.policies.MemoryPool`).
    """

    def __init__(
        self,
        graph: ResourceGraph,
        kind: str = "dis",
        lending: str = "shared",
        lender_compute: str = "never",
        scope: str = "node",
    ) -> None:
        check_options(kind, lending, lender_compute)
        nodes = graph.by_type.get("node", [])
        if not nodes or "memnet" not in graph.roots:
            raise SimulationError("a memory machine needs node vertices and a memnet root")
        self.graph = graph
        self.kind = kind
        self.lending = lending
        self.lender_compute = lender_compute
        self._compute_policy = MemoryPool("local", scope)
        self._lend_policy = MemoryPool("lend", scope)
        self._compute = Matcher(graph, ("containment",), self._compute_policy, prune="ALL:core")
        self._lend = Matcher(graph, ("memnet",), self._lend_policy, prune="")
        self.cores = graph.sizes[graph.by_type["core"][0]]
        self._rank = {v: graph.ranks[v] for v in nodes}
        self._node_vertex = {r: v for v, r in self._rank.items()}
        self._core_vertices = [
            next(graph.edge_dst[e] for e in graph.out_edges[self._node_vertex[r]]
                 if graph.types[graph.edge_dst[e]] == "core")
            for r in range(len(nodes))
        ]  # fmt: skip
        self._memory_rank: dict[int, int] = {}
        self._memory_of: dict[int, int] = {}
        for v in graph.by_type["memory"]:
            for e in graph.in_edges[v]:
                src = graph.edge_src[e]
                if graph.edge_subsystem[e] == "containment" and src in self._rank:
                    self._memory_rank[v] = self._rank[src]
                    self._memory_of[self._rank[src]] = v
        self.capacity = [graph.sizes[self._memory_of[r]] for r in range(len(nodes))]
        self._lendings: dict[int, list[tuple[int, int, int]]] = {}  # id -> (lender, start, end)
        self._parked: set[int] = set()  # booking ids of placements parked (cancelled)
        self._next_id = 1
        self._specs: dict[tuple, Jobspec] = {}

    # -- the public operations -------------------------------------------------------------

    def allocate(
        self, req: MemoryRequest, at: int, duration: int, now: int | None = None
    ) -> MemoryPlacement | None:
        """Book ``req`` over ``[at, at + duration)``, or None if it does not fit there.

        ``now`` (default ``at``) is the current time; ``at > now`` books a reservation.
        """
        now = at if now is None else now
        lenders = self.lending_nodes(at, at + duration)
        computing = lenders if self.lender_compute == "never" else set()
        placed = self._local(req, at, duration, now, computing)
        if placed is None and self.kind == "dis":
            placed = self._disaggregated(req, at, duration, now, lenders)
        return placed

    def could_fit(self, req: MemoryRequest, at: int, duration: int) -> bool:
        """Whether :meth:`allocate` can place ``req`` over the window, from the planners alone.

        The pruning of spec §4.5: each pass's predicates read off the core and memory
        planners of every node (no walk, nothing booked), so a candidate time that cannot work
        costs no match. True is necessary for a placement (exact for the default options).
        """
        lenders = self.lending_nodes(at, at + duration)
        plans, cores, capacity = self.graph.schedule.plans, self.cores, self.capacity
        memory_of, need, mib = self._memory_of, req.nodes, req.mib
        local = 0
        whole: list[int] = []
        if self.lender_compute != "never":
            lenders = set()  # (a lender's memory over the window is never entirely free)
        for rank, v in enumerate(self._core_vertices):
            if rank in lenders:
                continue
            plan = plans[v]  # cores first: most nodes fail there and skip the memory query
            if plan is not None and plan.avail_resources_during(at, duration) != cores:
                continue
            plan = plans[memory_of[rank]]
            mem = capacity[rank] if plan is None else plan.avail_resources_during(at, duration)
            if mem >= mib:
                local += 1
                if local >= need:
                    return True
            if mem == capacity[rank]:
                whole.append(rank)
        if self.kind == "base" or len(whole) < need:
            return False
        chosen = sorted(whole, key=lambda r: (-capacity[r], r))[:need]
        deficit = sum(max(0, mib - capacity[r]) for r in chosen)
        taken = set(chosen)
        spare = 0
        for rank in range(len(capacity)):
            if rank not in taken:
                plan = plans[memory_of[rank]]
                spare += (
                    capacity[rank] if plan is None else plan.avail_resources_during(at, duration)
                )
                if spare >= deficit:
                    return True
        return spare >= deficit

    def earliest(
        self, req: MemoryRequest, duration: int, times: Sequence[int]
    ) -> MemoryPlacement | None:
        """Book ``req`` at the first of ``times`` (ascending; the first is the current time)
        where it fits, or None (the earliest start of spec §4.5 over the candidate times)."""
        for t in times:
            if self.could_fit(req, t, duration):
                placed = self.allocate(req, at=t, duration=duration, now=times[0])
                if placed is not None:
                    return placed
        return None

    def place(
        self, req: MemoryRequest, at: int, duration: int, now: int | None = None
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int, int], ...]] | None:
        """``(nodes, local, lent)`` :meth:`allocate` would book over the window at ``now``
        (nothing booked), or None."""
        placed = self.allocate(req, at=at, duration=duration, now=now)
        if placed is None:
            return None
        self.release(placed)
        return placed.nodes, placed.local, placed.lent

    def rebook(
        self, placement: MemoryPlacement, *, check: bool = True, now: int | None = None
    ) -> MemoryPlacement:
        """Book ``placement``'s nodes, shares and lent pieces again over its window at ``now``
        (default its start), pinned (``check`` changes nothing here: the planners check as
        they book).

        Raises
        ------
        SimulationError
            If the machine no longer holds it; nothing is booked.
        """
        now = placement.start if now is None else now
        booked = self._pinned(placement, placement.end, now)
        if booked is None:
            raise SimulationError(f"cannot book {placement} again: its window is taken")
        return booked

    def park(self, placement: MemoryPlacement) -> None:
        """Cancel ``placement`` until :meth:`unpark` books it again or :meth:`release` forgets
        it (the span table hides it instead)."""
        self.release(placement)
        self._parked.update(placement.ids)

    def unpark(
        self, placement: MemoryPlacement, *, check: bool = True, now: int | None = None
    ) -> MemoryPlacement:
        """Book a parked ``placement`` again (:meth:`rebook`); the placement booked."""
        self._parked.difference_update(placement.ids)
        return self.rebook(placement, check=check, now=now)

    def starts_within(self, ranks: Sequence[int], lo: int, hi: int) -> bool:
        """Whether a span held on one of ``ranks`` (cores or memory) starts in ``[lo, hi)``."""
        plans = self.graph.schedule.plans
        for rank in ranks:
            for v in (self._core_vertices[rank], self._memory_of[rank]):
                plan = plans[v]
                if plan is not None and any(
                    lo <= plan.span_start_time(sid) < hi for sid in plan.span_ids()
                ):
                    return True
        return False

    def release(self, placement: MemoryPlacement) -> None:
        """Cancel every span of ``placement`` (a parked one is only forgotten)."""
        if self._parked.intersection(placement.ids):
            self._parked.difference_update(placement.ids)
            return
        for mid in placement.ids:
            self._matcher_of(mid).cancel(mid)
            self._lendings.pop(mid, None)

    def resize(self, placement: MemoryPlacement, end: int) -> MemoryPlacement:
        """The same resources and amounts over ``[placement.start, end)`` (a running job's
        planned end moved, spec §4.2 step 4): each piece is cancelled and matched again with the
        policy pinned to its vertices.

        Raises
        ------
        SimulationError
            If the planners cannot hold the new window (the caller extended into booked time).
        """
        for mid in placement.ids:
            self._matcher_of(mid).cancel(mid)
            self._lendings.pop(mid, None)
        booked = self._pinned(placement, end, placement.start)
        if booked is None:
            raise SimulationError(f"cannot hold {placement} until {end}")
        return booked

    def _pinned(self, placement: MemoryPlacement, end: int, now: int) -> MemoryPlacement | None:
        """``placement``'s nodes, shares and lent pieces booked at ``now`` over
        ``[placement.start, end)`` with the policy pinned to their vertices, or None (nothing
        booked) if the planners cannot hold them."""
        start, duration = placement.start, end - placement.start
        compute = self._compute_policy
        compute.phase, compute.want, compute.excluded = "local", placement.mib, frozenset()
        nodes = {self._node_vertex[r] for r in placement.nodes}
        compute.only = nodes | {self._memory_of[r] for r in placement.nodes}
        kind = "base" if self.kind == "base" else "local"
        mib = placement.mib if kind == "base" else 1
        booked = self._book(self._compute, self._spec(kind, len(nodes), mib, duration), start, now)
        compute.only, compute.want = None, 0
        ids = [] if booked is None else [booked[0]]
        lend = self._lend_policy
        lend.excluded = frozenset()
        given: dict[int, int] = {}
        for lender, _, mib in placement.lent:
            given[lender] = given.get(lender, 0) + mib
        for lender, mib in sorted(given.items()):
            lend.only = {self._memory_of[lender]}
            piece = self._book(self._lend, self._spec("lend", 1, mib, duration), start, now)
            if piece is not None:
                ids.append(piece[0])
                self._lendings[piece[0]] = [(lender, start, end)]
            booked = booked and piece
        lend.only = None
        if booked is None:
            for mid in ids:
                self._matcher_of(mid).cancel(mid)
                self._lendings.pop(mid, None)
            return None
        return replace(placement, end=end, ids=tuple(ids))

    @property
    def memory_owner(self) -> dict[int, int]:
        """Node rank of each node's memory vertex (``vertex -> rank``)."""
        return dict(self._memory_rank)

    def held(self, placement: MemoryPlacement) -> tuple[tuple[int, str, int], ...]:
        """``(memory vertex, "memory", MiB)`` of every local share and lent piece."""
        mem = self._memory_of
        local = [
            (mem[r], "memory", m) for r, m in zip(placement.nodes, placement.local, strict=True)
        ]
        return (*local, *((mem[lender], "memory", m) for lender, _, m in placement.lent))

    def lending_nodes(self, start: int, end: int) -> set[int]:
        """Ranks lending memory at some time in ``[start, end)``."""
        return {
            lender
            for pieces in self._lendings.values()
            for lender, s, e in pieces
            if s < end and start < e
        }

    def never_fits(self, req: MemoryRequest) -> str:
        """Why ``req`` can never run on the empty machine (spec §4.6), or ``""``."""
        return never_fits(self.capacity, self.kind, req, self.lending)

    # -- the two passes ----------------------------------------------------------------------

    def _check(self) -> None:
        """Assert every node planner's invariants and that at no time a node's cores or memory
        hold more than it has, nor a recorded lending more than its lender's memory holds
        (brute force over the planners' spans; for tests, as the span table's)."""
        plans = self.graph.schedule.plans
        held: dict[int, list[tuple[int, int, int]]] = {}
        for rank, core in enumerate(self._core_vertices):
            memory = self._memory_of[rank]
            for v, total in ((core, self.cores), (memory, self.capacity[rank])):
                plan = plans[v]
                if plan is None:  # (a planner is made at its first booking)
                    continue
                plan._check()
                spans = []
                for sid in plan.span_ids():
                    start = plan.span_start_time(sid)
                    end = start + plan.span_duration(sid)
                    spans.append((start, end, plan.span_resource_count(sid)))
                for t, _, _ in spans:
                    used = sum(n for s, e, n in spans if s <= t < e)
                    assert used <= total, f"node {rank} holds {used} of {total} at {t}"
                held[v] = spans
        for pieces in self._lendings.values():
            for lender, start, end in pieces:
                spans = held.get(self._memory_of[lender], [])
                assert any(s <= start and end <= e for s, e, _ in spans), (
                    f"lender {lender} holds no memory over [{start}, {end})"
                )

    def _spec(self, kind: str, count: int, mib: int, duration: int) -> Jobspec:
        key = (kind, count, mib, duration)
        js = self._specs.get(key)
        if js is None:
            if kind == "lend":
                top = (Resource("memory", mib, exclusive=True),)
            else:
                children = (
                    Resource("core", self.cores, exclusive=True),
                    Resource("memory", mib, exclusive=True),
                )
                excl = True if kind == "base" else None
                top = (Resource("node", count, exclusive=excl, with_=children),)
            js = self._specs[key] = _jobspec(top, duration)
        return js

    def _matcher_of(self, mid: int) -> Matcher:
        return self._lend if mid in self._lendings else self._compute

    def _book(self, matcher: Matcher, js: Jobspec, at: int, now: int) -> tuple[int, list] | None:
        mid = self._next_id
        self._next_id += 1
        out = SelectionCollector()
        result = matcher.run(js, "allocate", mid, out, now, at if at > now else None)
        return (mid, out.vertices) if result.rc == 0 else None

    def _local(
        self, req: MemoryRequest, at: int, duration: int, now: int, lenders: set[int]
    ) -> MemoryPlacement | None:
        policy = self._compute_policy
        policy.phase, policy.want = "local", 0
        policy.excluded = {self._node_vertex[r] for r in lenders}
        kind = "base" if self.kind == "base" else "local"
        booked = self._book(self._compute, self._spec(kind, req.nodes, req.mib, duration), at, now)
        if booked is None:
            return None
        mid, _ = booked
        nodes = self._nodes_of(booked[1])
        return MemoryPlacement(
            nodes, (req.mib,) * len(nodes), (), at, at + duration, (mid,), req.mib
        )

    def _disaggregated(
        self, req: MemoryRequest, at: int, duration: int, now: int, lenders: set[int]
    ) -> MemoryPlacement | None:
        policy = self._compute_policy
        policy.phase, policy.want = "spread", req.mib
        policy.excluded = {self._node_vertex[r] for r in lenders}
        booked = self._book(self._compute, self._spec("local", req.nodes, 1, duration), at, now)
        if booked is None:
            return None
        mid, selected = booked
        mem_rank = self._memory_rank
        local = {mem_rank[v.vid]: v.needs for v in selected if v.type == "memory"}
        # P's order (spec §4.4 step 2): most free memory first, then node index
        order = sorted(local, key=lambda r: (-self.capacity[r], r))
        deficits = [(r, req.mib - local[r]) for r in order if local[r] < req.mib]
        lend = self._lend_policy
        lend.excluded = {self._memory_of[r] for r in local}
        pieces: list[tuple[int, int, int]] = []
        ids = [mid]
        if self.lending == "dedicated":
            got = self._dedicated(deficits, at, duration, now, pieces, ids)
        else:
            got = self._borrow(deficits, at, duration, now, pieces, ids)
        if not got:
            for i in ids:
                self._matcher_of(i).cancel(i)
                self._lendings.pop(i, None)
            return None
        nodes = tuple(sorted(local))
        return MemoryPlacement(
            nodes,
            tuple(local[r] for r in nodes),
            tuple(pieces),
            at,
            at + duration,
            tuple(ids),
            req.mib,
        )

    def _borrow(self, deficits, at, duration, now, pieces, ids) -> bool:
        """Book ``sum(deficits)`` through memnet; split it over the borrowers (D2's greedy)."""
        total = sum(d for _, d in deficits)
        if total == 0:
            return True
        booked = self._book(self._lend, self._spec("lend", 1, total, duration), at, now)
        if booked is None:
            return False
        mid, selected = booked
        ids.append(mid)
        given = sorted((self._memory_rank[v.vid], v.needs) for v in selected if v.type == "memory")
        self._lendings[mid] = [(lender, at, at + duration) for lender, _ in given]
        pieces += split_deficits(deficits, given)
        return True

    def _dedicated(self, deficits, at, duration, now, pieces, ids) -> bool:
        """Cover each deficit from nodes with no span over the window, in node order, a lender
        covering one deficit (D17's ``dedicated``); each piece booked through memnet, pinned."""
        if not deficits:
            return True
        plans, cores, capacity = self.graph.schedule.plans, self.cores, self.capacity
        idle = []
        for rank, v in enumerate(self._core_vertices):
            plan, mem = plans[v], plans[self._memory_of[rank]]
            if (plan is None or plan.avail_resources_during(at, duration) == cores) and (
                mem is None or mem.avail_resources_during(at, duration) == capacity[rank]
            ):
                idle.append(rank)
        lend = self._lend_policy
        lend.excluded = frozenset()
        lenders = iter(idle)
        ok = True
        for borrower, need in deficits:
            while ok and need > 0:
                lender = next(lenders, None)
                if lender is None:
                    ok = False
                    break
                take = min(capacity[lender], need)
                lend.only = {self._memory_of[lender]}
                booked = self._book(self._lend, self._spec("lend", 1, take, duration), at, now)
                if booked is None:  # (an idle node holds its whole memory)
                    raise SimulationError(f"internal error: idle node {lender} cannot lend {take}")
                ids.append(booked[0])
                self._lendings[booked[0]] = [(lender, at, at + duration)]
                pieces.append((lender, borrower, take))
                need -= take
        lend.only = None
        return ok

    def _nodes_of(self, selected) -> tuple[int, ...]:
        rank = self._rank
        return tuple(sorted(rank[v.vid] for v in selected if v.type == "node"))
