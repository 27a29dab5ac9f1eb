"""The FM allocator (spec §4.5 A5, §4.6 A6): nodes plus rack-pool chunks, booked on planners.

An :class:`~fluxgraph.sched.allocator.Allocator` for the shared simulator. Standard jobspec
cannot say "each node gets ``k`` GB from a memnode of its own rack", so the placement rule
(:mod:`fluxgraph.papers.fm.placement`) does not go through the matcher: the allocator keeps
planners of its own (the graph's planners are never touched), one per ``node`` of the graph
(1 unit) and one per pool ``memory`` vertex (its GB). Every booking, a
start or the EASY head's reservation, is a span on each of its nodes' and pools' planners, and
a planner refuses any span it cannot hold, so nothing is ever over-allocated.

To choose quickly the allocator keeps an index of those spans: which nodes are held by running
bookings (all started at or before ``now``) and how many GB of each pool they hold, plus the
few future reservations. A job fits at ``T >= now`` if the rule finds nodes free of running
bookings that end after ``T`` and of reservations overlapping ``[T, T + walltime)``, and pool
capacity left at the window's peak (running bookings only give memory back, so the peak is at
``T`` or where a reservation starts).
The earliest start of a job (spec §4.3 step 2) is the first of ``now`` and the distinct ends
of running bookings where it fits. The booked length is the exact stretched runtime ``d'`` of
the placement found (spec §5).

Scopes: ``rack`` (``rack_balance``), ``system`` (``system_local_first``, or with
``system_alloc="balance"`` the public simulator's locality-blind ``system_balance``), ``nodes``
(the baseline: ``k = 0`` for every job that fits the local memory).

>>> from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
>>> from fluxgraph.workload import Job
>>> alloc = FmAllocator(build_fm_machine(FmMachineSpec(2, 4, pool_tb=1)), "rack")
>>> a = alloc.allocate(Job(0, 0, 100, 100, procs=3, memory=400), 1, now=0, reserve=False)
>>> a.at, a.nodes, a.held
(0, (0, 1, 2), ((21, 'memory', 1008),))
>>> alloc.check(Job(1, 0, 100, 100, procs=7, memory=600))
'never fits: 7 nodes of 536 GB remote each, at most 2 on the empty machine'
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass
from itertools import filterfalse

import numpy as np

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.papers.fm.invariants import check_allocator
from fluxgraph.papers.fm.machine import FmLayout
from fluxgraph.papers.fm.placement import (
    Chunk,
    chunk_capacity,
    rack_balance,
    system_balance,
    system_local_first,
)
from fluxgraph.papers.fm.slowdown import SlowdownModel
from fluxgraph.papers.fm.snapshot import FitSnapshot
from fluxgraph.planner import GRAPH_END, Planner, PlannerInvalidError
from fluxgraph.sched.allocator import Allocation
from fluxgraph.workload import Job

__all__ = ["SCOPES", "SYSTEM_ALLOCS", "FmAllocator"]

SCOPES = ("rack", "system", "nodes")
#: System-scope placement rules (spec §9 D7 and its amendment): own rack first, or the code's.
SYSTEM_ALLOCS = {"local_first": system_local_first, "balance": system_balance}
#: A booking released before its end, in the allocator's log of changes.
_EARLY = -1
#: Earliest-start answers kept before they are dropped at once.
_ANSWERS_KEPT = 4096
#: Snapshots kept per state of the running bookings (one per set of overlapping reservations).
_SNAPSHOTS_KEPT = 16


#: A span on one planner: ``(kind, index, start, duration, amount)``, kind 0 a node, 1 a pool.
_SpanKey = tuple[int, int, int, int, int]


@dataclass(slots=True)
class _Booking:
    at: int
    end: int
    chunks: list[Chunk]
    racks: list[tuple[int, int]]  # (rack, nodes held there)
    pools: list[tuple[int, int]]  # (pool, GB held there)
    spans: list[tuple[_SpanKey, int]] | None  # (key, span id); None: not on the planners yet
    token: int  # unique per booking (snapshot keys)
    nodes: frozenset[int] | None = None  # its nodes, once a snapshot asked


def _order(booking: _Booking) -> tuple[int, int]:
    return booking.end, booking.token


def _end(booking: _Booking) -> int:
    return booking.end


class FmAllocator:
    """Nodes and pool chunks of ``graph`` (an FM machine) booked per job; see the module doc.

    ``durations`` (job id -> ``(d', f_cross, chunks)`` of the job's latest booking) is what
    :class:`~fluxgraph.papers.fm.slowdown.FmRuntime` reads when the job starts.
    """

    def __init__(
        self,
        graph: ResourceGraph,
        scope: str = "rack",
        model: SlowdownModel | None = None,
        system_alloc: str = "local_first",
    ) -> None:
        if scope not in SCOPES:
            raise SimulationError(f"unknown FM scope {scope!r} (valid: {', '.join(SCOPES)})")
        if system_alloc not in SYSTEM_ALLOCS:
            valid = ", ".join(SYSTEM_ALLOCS)
            raise SimulationError(f"unknown system_alloc {system_alloc!r} (valid: {valid})")
        self.layout = lay = FmLayout.of(graph)
        self.scope = scope
        self.model = model if model is not None else SlowdownModel("paper")
        self.rule = SYSTEM_ALLOCS[system_alloc] if scope == "system" else rack_balance
        self.total_nodes = self.total_cores = lay.nodes
        self.node_planners = [Planner(0, GRAPH_END, 1, "node") for _ in range(lay.nodes)]
        self.pool_planners = [
            Planner(0, GRAPH_END, lay.pool_capacity, "memory") for _ in range(lay.pools)
        ]
        self._free = [
            set(range(r * lay.nodes_per_rack, (r + 1) * lay.nodes_per_rack))
            for r in range(lay.racks)
        ]
        self._used = [0] * lay.pools  # GB held by running bookings
        self._sorted_free: list[list[int] | None] = [None] * lay.racks  # cache of sorted(_free)
        self._running: dict[int, _Booking] = {}
        self._by_end: list[_Booking] = []  # the running bookings by (end, token)
        self._reserved: dict[int, _Booking] = {}
        self.durations: dict[int, tuple[int, float, list[Chunk]]] = {}
        self._state = 0  # bumped whenever a running booking starts or ends
        self._tokens = 0  # bookings made so far (each booking's token)
        # derived from the running bookings, valid while _state is _cached_state
        self._cached_state = -1
        self._snaps: dict[tuple, FitSnapshot] = {}
        self._caps_now: list[list[int]] | None = None  # free GB per pool of _used, by rack
        # what is free at each later time: changed when a booking starts or ends early
        self._changes: list[int] = []  # ends of the bookings started, _EARLY: released early
        self._released: list[int] = []  # ends of the running bookings released since
        # (job id, reservations) -> (len(_changes) then, the answer), see _earliest
        self._earliest_found: dict[tuple, tuple[int, tuple[int, list[Chunk]] | None]] = {}
        self._stale: list[_Booking] = []  # released reservations, their spans still booked
        self._remote: dict[int, int] = {}

    # -- Allocator protocol ----------------------------------------------------------------

    def check(self, job: Job) -> str:
        """Spec §4.6 (A6): ``""`` unless ``job`` can never run on the empty machine."""
        lay = self.layout
        n, k = job.procs, self.remote_gb(job)
        if n > lay.nodes:
            return f"never fits: {n} nodes, the machine has {lay.nodes}"
        if k <= 0:
            return ""
        per_rack = chunk_capacity([lay.pool_capacity] * lay.pools_per_rack, k)
        if self.scope == "system":
            most = min(lay.nodes, lay.racks * per_rack)
        else:
            most = lay.racks * min(lay.nodes_per_rack, per_rack)
        if most < n:
            return (
                f"never fits: {n} nodes of {k} GB remote each, at most {most} on the empty machine"
            )
        return ""

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        placed = self._place(job, now, self._free, self._used)
        if placed is not None:
            return self._book(job, jobid, now, placed, running=True)
        if not reserve:
            return None
        found = self._earliest(job, now)
        if found is None:
            return None
        return self._book(job, jobid, found[0], found[1], running=False)

    def release(self, jobid: int) -> None:
        booking = self._running.pop(jobid, None)
        if booking is not None:
            self._state += 1
            del self._by_end[bisect_left(self._by_end, (booking.end, booking.token), key=_order)]
            self._released.append(booking.end)
            per_rack = self.layout.nodes_per_rack
            for g, _, _ in booking.chunks:
                self._free[g // per_rack].add(g)
            for r, _ in booking.racks:
                self._sorted_free[r] = None
            for m, gb in booking.pools:
                self._used[m] -= gb
            for key, span in booking.spans:
                self._planner(key).rem_span(span)
            return
        booking = self._reserved.pop(jobid, None)
        if booking is None:
            raise SimulationError(f"FM allocator: no booking {jobid} to release")
        if booking.spans is not None:
            # its spans are removed at the next booking, which keeps those it would add again
            self._stale.append(booking)

    def family(self, job: Job) -> None:
        return None

    def free_nodes(self) -> int:
        """Nodes not held by a running booking now."""
        return sum(map(len, self._free))

    def startable(
        self, procs: np.ndarray, remote: np.ndarray, walltime: np.ndarray, now: int
    ) -> np.ndarray:
        """Which of many jobs (their nodes, :meth:`remote_gb` and walltimes) pass the counts
        :meth:`allocate` checks before placing at ``now``: every job it would start now does,
        and in rack and nodes scope exactly those (``rack_balance`` places what the counts
        allow). Nothing is booked.

        The reservations starting after ``now`` overlap a job's window from some walltime on,
        so the jobs fall into groups that see the same snapshot.
        """
        reserved = self._reserved.values()
        bounds = np.array(sorted({r.at - now for r in reserved if r.at > now}), dtype=np.int64)
        group = np.searchsorted(bounds, walltime, side="left")  # reservations it overlaps
        ok = np.zeros(len(procs), dtype=bool)
        for g in range(len(bounds) + 1):
            sel = np.flatnonzero(group == g) if len(bounds) else np.arange(len(procs))
            if not len(sel):
                continue
            snap = self._snapshot(now, int(walltime[sel[0]]), self._free, self._used)
            ok[sel] = snap.counts_fit(procs[sel], remote[sel], self.scope == "system")
        return ok

    def fits_now(self, job: Job, now: int) -> bool:
        """Whether :meth:`allocate` would start ``job`` at ``now`` (nothing is booked)."""
        return self._place(job, now, self._free, self._used) is not None

    def _check(self) -> None:
        """Its index of bookings and its planners agree; nothing is over-allocated at any time
        (:func:`~fluxgraph.papers.fm.invariants.check_allocator`)."""
        check_allocator(self)

    # -- placement -------------------------------------------------------------------------

    def remote_gb(self, job: Job) -> int:
        """``k = max(0, M - L)`` GB per node (spec §3.2 step 5)."""
        k = self._remote.get(job.id)
        if k is None:
            k = self._remote[job.id] = max(0, int(job.memory) - self.layout.local_gb)
        return k

    def stretched(self, job: Job, f_cross: float) -> int:
        """``d'`` of ``job`` for a cross-rack share ``f_cross`` (spec §5; the latency class by
        the model's latency scope, §9 D8); a job without the mapping's ``extra`` (``d``,
        ``u``) stretches its runtime with ``u = 0``."""
        d, u = job.extra.get("d", job.runtime), job.extra.get("u", 0.0)
        share = self.model.latency_share(f_cross, self.scope)
        return self.model.stretch(d, int(job.memory), self.layout.local_gb, u, share)

    def _place(
        self, job: Job, at: int, free: list[set[int]], used: list[int]
    ) -> list[Chunk] | None:
        n, k = job.procs, self.remote_gb(job)
        snap = self._snapshot(at, job.walltime, free, used)
        if snap.free < n:
            return None
        if k > 0:
            count = snap.fit_counts.get(k)
            if count is None:
                count = snap.fit_counts[k] = snap.fit_count(k, self.scope == "system")
            if count < n:
                return None
        if self.rule is rack_balance:  # counted above
            return rack_balance(snap.nodes, snap.caps, n, k, counted=True)
        return self.rule(snap.nodes, snap.caps, n, k)

    def _derived(self) -> None:
        """Drop the snapshots and free GB once the running bookings changed."""
        if self._cached_state != self._state:
            self._cached_state = self._state
            self._snaps.clear()
            self._caps_now = None

    def _earliest(self, job: Job, now: int) -> tuple[int, list[Chunk]] | None:
        """The first end of a running booking after ``now`` where ``job`` fits, with its
        placement (spec §4.3 step 2); ``None`` if it fits at none.

        The answer is kept per job (and reservations) while it lies after ``now`` and what is
        free from its time on is unchanged: a booking released at its end gave back what the
        scan would have released then; one that starts only takes resources (no earlier time
        becomes a fit, and "fits nowhere" stays so) and, ending by the answer's time, leaves
        that time as it was. A booking released before its end drops every answer.
        """
        if any(end > now for end in self._released):
            self._changes.append(_EARLY)
        self._released.clear()
        key = (job.id, *(r.token for r in self._reserved.values()))
        kept = self._earliest_found.get(key)
        if kept is not None:
            seen, found = kept
            if found is None or found[0] > now:
                until = GRAPH_END if found is None else found[0]
                if all(_EARLY < end <= until for end in self._changes[seen:]):
                    return found
        found = self._scan(job, now, self._by_end)
        if len(self._earliest_found) >= _ANSWERS_KEPT:
            self._earliest_found.clear()
        self._earliest_found[key] = (len(self._changes), found)
        return found

    def _scan(self, job: Job, now: int, ending: list[_Booking]) -> tuple[int, list[Chunk]] | None:
        """:meth:`_earliest` over ``ending`` (running bookings by end): releases them in turn,
        keeping free nodes and ``k`` GB chunks per rack up to date, and places ``job`` where
        enough nodes could get a chunk from their own rack (a necessary condition of
        :meth:`_place`, exact for ``rack_balance`` when no reservation overlaps)."""
        lay = self.layout
        n, k = job.procs, self.remote_gb(job)
        per_rack, per_pool, cap = lay.nodes_per_rack, lay.pools_per_rack, lay.pool_capacity
        system = self.scope == "system"
        used = list(self._used)
        nodes = [len(f) for f in self._free]
        count = sum(nodes)
        chunks = [0] * lay.racks
        fit = 0  # nodes that can get a chunk (own rack, or any in system scope), kept up to date
        if k > 0:
            chunks = [
                sum((cap - u) // k for u in used[r * per_pool : (r + 1) * per_pool] if u < cap)
                for r in range(lay.racks)
            ]
            fit = sum(chunks) if system else sum(map(min, nodes, chunks))
        free: list[set[int]] | None = None
        added = 0  # bookings of ``ending`` whose nodes are in ``free``
        i = 0
        while i < len(ending):
            at = ending[i].end
            while i < len(ending) and ending[i].end == at:
                booking = ending[i]
                count += len(booking.chunks)
                i += 1
                for m, gb in booking.pools:
                    u = used[m]
                    used[m] = u - gb
                    if k > 0:
                        more = (cap - u + gb) // k - ((cap - u) // k if u < cap else 0)
                        if more:
                            r = m // per_pool
                            if system:
                                fit += more
                            else:
                                fit -= min(nodes[r], chunks[r])
                                fit += min(nodes[r], chunks[r] + more)
                            chunks[r] += more
                if k > 0 and not system:
                    for r, c in booking.racks:
                        fit += min(nodes[r] + c, chunks[r]) - min(nodes[r], chunks[r])
                        nodes[r] += c
            if at <= now or count < n or (k > 0 and fit < n):
                continue
            if free is None:
                free = [set(f) for f in self._free]
            for booking in ending[added:i]:
                for g, _, _ in booking.chunks:
                    free[g // per_rack].add(g)
            added = i
            placed = self._place(job, at, free, used)
            if placed is not None:
                return at, placed
        return None

    def _snapshot(
        self, at: int, walltime: int, free: list[set[int]], used: list[int]
    ) -> FitSnapshot:
        """Free nodes and pool GB over ``[at, at + walltime)`` (cached for the current state,
        per overlapping reservations)."""
        active = [r for r in self._reserved.values() if r.at < at + walltime and at < r.end]
        current = free is self._free
        # without an overlapping reservation the window sees the running bookings alone
        key = (at, *(r.token for r in active)) if active else ()
        if current:
            self._derived()
            snap = self._snaps.get(key)
            if snap is not None:
                return snap
        busy: set[int] = set()
        lay = self.layout
        per = lay.pools_per_rack
        if current:
            caps = self._caps_now
            if caps is None:
                caps = self._caps_now = self._caps(used)
        else:
            caps = self._caps(used)
        if active:
            for res in active:
                if res.nodes is None:
                    res.nodes = frozenset(g for g, _, _ in res.chunks)
                busy |= res.nodes
            peak = self._peak(at, used, active)
            caps = list(caps)  # the rows of the racks whose pools peak higher are copied
            for r in {m // per for m in peak}:
                caps[r] = list(caps[r])
            for m, gb in peak.items():
                caps[m // per][m % per] = lay.pool_capacity - gb
        sizes = [len(f) - len(f & busy) for f in free] if busy else [len(f) for f in free]
        if current:  # listed from the sorted free nodes, which stay while the state does

            def lister() -> list[list[int]]:
                nodes = [self._sorted(r) for r in range(lay.racks)]
                if busy:
                    nodes = [list(filterfalse(busy.__contains__, f)) for f in nodes]
                return nodes

        else:  # the caller's sets change after it placed: listed now
            listed = [sorted(f - busy) if busy else sorted(f) for f in free]

            def lister() -> list[list[int]]:
                return listed

        snap = FitSnapshot(sizes, caps, lister)
        if current:
            if len(self._snaps) >= _SNAPSHOTS_KEPT:
                self._snaps.clear()
            self._snaps[key] = snap
        return snap

    def _caps(self, used: list[int]) -> list[list[int]]:
        """Free GB per pool, by rack, given ``used`` GB per pool."""
        lay = self.layout
        per, cap = lay.pools_per_rack, lay.pool_capacity
        return [[cap - u for u in used[r * per : (r + 1) * per]] for r in range(lay.racks)]

    def _sorted(self, rack: int) -> list[int]:
        """The free nodes of ``rack`` in ascending order (cached while they do not change)."""
        nodes = self._sorted_free[rack]
        if nodes is None:
            nodes = self._sorted_free[rack] = sorted(self._free[rack])
        return nodes

    def _peak(self, at: int, used: list[int], active: list[_Booking]) -> dict[int, int]:
        """Pool GB in use at the busiest time from ``at`` on of each pool the ``active``
        reservations use, given ``used`` at ``at``: running bookings only end (those ending in
        ``(at, t]`` have given theirs back by ``t``), active reservations add theirs over their
        span; so a pool no reservation uses peaks at ``at``, the others at ``at`` or where a
        reservation starts."""
        touched = sorted({m for res in active for m, _ in res.pools})
        peak = {m: used[m] for m in touched}
        released = dict.fromkeys(touched, 0)  # by running bookings ending in (at, t]
        by_end = self._by_end
        done = bisect_right(by_end, at, key=_end)
        for t in sorted({at} | {r.at for r in active if r.at > at}):
            upto = bisect_right(by_end, t, lo=done, key=_end)
            for booking in by_end[done:upto]:
                for m, gb in booking.pools:
                    if m in released:
                        released[m] += gb
            done = upto
            usage = {m: used[m] - released[m] for m in touched}
            for res in active:
                if res.at <= t < res.end:
                    for m, gb in res.pools:
                        usage[m] += gb
            for m, gb in usage.items():
                if gb > peak[m]:
                    peak[m] = gb
        return peak

    # -- bookings on the planners ----------------------------------------------------------

    def _planner(self, key: _SpanKey) -> Planner:
        return self.node_planners[key[1]] if key[0] == 0 else self.pool_planners[key[1]]

    def _add_spans(self, keys: list[_SpanKey], what: str) -> list[tuple[_SpanKey, int]]:
        """Book ``keys``: spans of released reservations that equal one are kept for it, the
        other released ones are removed first, then the rest are added (a planner refuses
        what it cannot hold)."""
        spans: list[tuple[_SpanKey, int]] = []
        missing = keys
        if self._stale:
            stale: dict[_SpanKey, list[int]] = {}
            for booking in self._stale:
                for key, span in booking.spans or ():
                    stale.setdefault(key, []).append(span)
            self._stale.clear()
            missing = []
            for key in keys:
                ids = stale.get(key)
                if ids:
                    spans.append((key, ids.pop()))
                else:
                    missing.append(key)
            for key, ids in stale.items():
                planner = self._planner(key)
                for span in ids:
                    planner.rem_span(span)
        try:
            for key in missing:
                spans.append((key, self._planner(key).add_span(key[2], key[3], key[4])))
        except PlannerInvalidError as err:
            raise SimulationError(f"FM allocator: a planner refused {what}: {err}") from err
        return spans

    @staticmethod
    def _keys(booking: _Booking) -> list[_SpanKey]:
        at, duration = booking.at, booking.end - booking.at
        keys: list[_SpanKey] = [(0, g, at, duration, 1) for g, _, _ in booking.chunks]
        keys += [(1, m, at, duration, gb) for m, gb in booking.pools]
        return keys

    def _materialize(self) -> None:
        """Put the reservations not yet on the planners there (before another booking)."""
        for booking in self._reserved.values():
            if booking.spans is None:
                booking.spans = self._add_spans(self._keys(booking), "a reservation")

    def _book(
        self, job: Job, jobid: int, at: int, chunks: list[Chunk], running: bool
    ) -> Allocation:
        per_rack, per_pool = self.layout.nodes_per_rack, self.layout.pools_per_rack
        cross = 0  # rack_balance takes a node's chunk from its own rack
        if self.rule is not rack_balance:
            cross = sum(1 for g, m, gb in chunks if gb and m // per_pool != g // per_rack)
        f_cross = cross / len(chunks)
        duration = self.stretched(job, f_cross)
        self._tokens += 1
        stale = self._stale
        if len(stale) == 1 and stale[0].at == at and stale[0].end == at + duration:
            same = stale[0].chunks == chunks  # a released reservation booked again, as it was
        else:
            same = False
        if same:
            old = stale.pop()
            booking = _Booking(at, old.end, chunks, old.racks, old.pools, old.spans, self._tokens)
        else:
            pools: dict[int, int] = {}
            for _, m, gb in chunks:
                if gb:
                    pools[m] = pools.get(m, 0) + gb
            racks: dict[int, int] = {}
            for g, _, _ in chunks:
                racks[g // per_rack] = racks.get(g // per_rack, 0) + 1
            booking = _Booking(
                at, at + duration, chunks, [*racks.items()], [*pools.items()], None, self._tokens
            )
        if running:
            self._materialize()
            if booking.spans is None:
                booking.spans = self._add_spans(self._keys(booking), f"job {job.id}")
        if running:
            self._state += 1
            self._changes.append(booking.end)
            self._running[jobid] = booking
            insort(self._by_end, booking, key=_order)
            for g, _, _ in chunks:
                self._free[g // per_rack].discard(g)
            for r, _ in booking.racks:
                self._sorted_free[r] = None
            for m, gb in booking.pools:
                self._used[m] += gb
        else:
            self._reserved[jobid] = booking
        self.durations[job.id] = (duration, f_cross, chunks)
        vertex = self.layout.pool_vertex
        held = tuple((vertex[m], "memory", gb) for m, gb in sorted(booking.pools))
        return Allocation(at, tuple(sorted(g for g, _, _ in chunks)), len(chunks), held)
