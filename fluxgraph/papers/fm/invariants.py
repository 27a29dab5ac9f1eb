"""The invariant check of :class:`~fluxgraph.papers.fm.allocator.FmAllocator` (its ``_check``).

The allocator keeps planners of its own beside an index of its bookings (free nodes per rack,
GB used per pool, running bookings by end, reservations, released reservations whose spans
are still booked). :func:`check_allocator` recomputes the index from the bookings and asks
the planners: they hold exactly the bookings' spans, and no node or pool is over-allocated at
any time.

>>> from fluxgraph.papers.fm.allocator import FmAllocator
>>> from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
>>> from fluxgraph.workload import Job
>>> alloc = FmAllocator(build_fm_machine(FmMachineSpec(2, 4, pool_tb=1)), "rack")
>>> _ = alloc.allocate(Job(0, 0, 100, 100, procs=3, memory=400), 1, now=0, reserve=False)
>>> check_allocator(alloc)
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_allocator"]


def _fail(what: str) -> None:
    raise AssertionError(f"FM allocator: {what}")


def _check_running(alloc: Any) -> None:
    """Free nodes, GB used per pool and the by-end order agree with the running bookings."""
    lay = alloc.layout
    per_rack = lay.nodes_per_rack
    held: set[int] = set()
    used = [0] * lay.pools
    for booking in alloc._running.values():
        nodes = [g for g, _, _ in booking.chunks]
        if held.intersection(nodes) or len(set(nodes)) != len(nodes):
            _fail(f"node held twice by running bookings: {sorted(held.intersection(nodes))}")
        held.update(nodes)
        if booking.spans is None:
            _fail("a running booking is not on the planners")
        for m, gb in booking.pools:
            used[m] += gb
    for r in range(lay.racks):
        rack = set(range(r * per_rack, (r + 1) * per_rack))
        if alloc._free[r] != rack - held:
            _fail(f"free nodes of rack {r} {sorted(alloc._free[r])} != {sorted(rack - held)}")
        cached = alloc._sorted_free[r]
        if cached is not None and cached != sorted(alloc._free[r]):
            _fail(f"stale sorted free nodes of rack {r}")
    if alloc._used != used or not all(0 <= u <= lay.pool_capacity for u in used):
        _fail(f"GB used per pool {alloc._used} != {used} (capacity {lay.pool_capacity})")
    want = sorted(alloc._running.values(), key=lambda b: (b.end, b.token))
    if [b.token for b in alloc._by_end] != [b.token for b in want]:
        _fail("running bookings by end out of order or incomplete")


def _check_booking(alloc: Any, booking: Any) -> None:
    """A booking's racks and pools are the sums of its chunks; its window is not empty."""
    lay = alloc.layout
    racks: dict[int, int] = {}
    pools: dict[int, int] = {}
    for g, m, gb in booking.chunks:
        racks[g // lay.nodes_per_rack] = racks.get(g // lay.nodes_per_rack, 0) + 1
        if gb:
            pools[m] = pools.get(m, 0) + gb
    if dict(booking.racks) != racks or dict(booking.pools) != pools or booking.end <= booking.at:
        _fail(f"booking {booking.token}: racks/pools/window disagree with its chunks")


def _check_planners(alloc: Any) -> None:
    """The planners hold exactly the spans of the bookings on them, each as the booking says,
    and at every span start no planner holds more than its total."""
    on_planners = [*alloc._running.values(), *alloc._reserved.values(), *alloc._stale]
    expected: dict[tuple[int, int], dict[int, tuple[int, int, int]]] = {}
    for booking in on_planners:
        _check_booking(alloc, booking)
        want = sorted(alloc._keys(booking))
        if booking.spans is not None and sorted(k for k, _ in booking.spans) != want:
            _fail(f"booking {booking.token}: its spans are not its nodes and pools")
        for key, span in booking.spans or ():
            expected.setdefault(key[:2], {})[span] = key[2:]
    planners = [(0, i, p) for i, p in enumerate(alloc.node_planners)]
    planners += [(1, i, p) for i, p in enumerate(alloc.pool_planners)]
    for kind, i, planner in planners:
        spans = expected.get((kind, i), {})
        if set(planner.span_ids()) != set(spans):
            _fail(
                f"planner {kind}/{i} holds spans {sorted(planner.span_ids())}, not {sorted(spans)}"
            )
        for t in {start for start, _, _ in spans.values()}:
            load = sum(amount for s, d, amount in spans.values() if s <= t < s + d)
            if load > planner.resource_total or planner.avail_resources_at(t) != (
                planner.resource_total - load
            ):
                _fail(f"planner {kind}/{i} at {t}: {load} booked of {planner.resource_total}")


def check_allocator(alloc: Any) -> None:
    """Raise ``AssertionError`` naming the first disagreement between ``alloc``'s index of
    bookings and its planners, or an over-allocation (see the module doc)."""
    _check_running(alloc)
    _check_planners(alloc)
