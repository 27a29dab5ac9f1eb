"""The FM allocator's own planners against the graph: every booking it makes is feasible there.

The allocator (:mod:`fluxgraph.papers.fm.allocator`) books nodes and pool GB on planners of its
own. Here each of its bookings, in the order it makes them, is replayed on the graph of the same
machine: the nodes of a start through ``Matcher.update`` (a JGF selection of the node vertices,
booked exclusively by the graph path's own ``update``), the pool GB on the pool ``memory``
vertices' own graph planners (the matcher books units on a vertex only for an exclusive request,
and a pool is shared by many jobs). The graph must accept every start, agree with the
allocator's index on what is held at the start time (nodes and GB per pool), and have room for
every reservation over its window.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.matcher import Matcher
from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.machine import FmLayout, FmMachineSpec, build_fm_machine
from fluxgraph.papers.fm.priority import FM_PRIORITIES
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.workload import map_trace, synthetic_trace
from fluxgraph.traverser.state import avail_during, own_planner
from fluxgraph.writers.jgf import node_element
from fluxgraph.writers.sink import SelectionCollector


class _GraphReplay:
    """The graph of ``spec`` holding every start the allocator made so far."""

    def __init__(self, spec: FmMachineSpec) -> None:
        self.graph = build_fm_machine(spec)
        self.layout = FmLayout.of(self.graph)
        self.matcher = Matcher(self.graph, "CA", "first")
        self.jobs = 0

    def _nodes_jgf(self, nodes: tuple[int, ...]) -> str:
        """A JGF selection of the node vertices of ``nodes`` (allocator indices), exclusive."""
        vertex = self.layout.node_vertex
        elements = [node_element(self.graph, vertex[g], 1, True) for g in nodes]
        return json.dumps({"graph": {"nodes": elements, "edges": []}})

    def free(self, v: int, at: int, duration: int) -> int:
        """Units of vertex ``v`` free on the graph over ``[at, at + duration)``."""
        return avail_during(self.graph.schedule.plans[v], self.graph.sizes[v], at, duration)

    def start(self, alloc: FmAllocator, nodes: tuple, held: tuple, at: int, d: int) -> None:
        """Book a start on the graph; it must fit, and then agree with the allocator's index."""
        self.jobs += 1
        out = self.matcher.update(
            "jgf", self._nodes_jgf(nodes), self.jobs, at, d, SelectionCollector()
        )
        assert out.rc == 0, f"graph refused the nodes {nodes} over [{at}, {at + d}): {out.message}"
        for v, _, gb in held:
            assert self.free(v, at, d) >= gb, f"pool vertex {v}: {gb} GB do not fit at {at}"
            own_planner(self.graph, v).add_span(at, d, gb)
        self.agree(alloc, at)

    def reservation(self, nodes: tuple, held: tuple, at: int, d: int) -> None:
        """A reservation must fit beside every start on the graph over its window."""
        for g in nodes:
            assert self.free(self.layout.node_vertex[g], at, d) == 1, f"node {g} busy at {at}"
        for v, _, gb in held:
            assert self.free(v, at, d) >= gb, f"pool vertex {v}: {gb} GB do not fit at {at}"

    def agree(self, alloc: FmAllocator, now: int) -> None:
        """Nodes held and GB used per pool at ``now``: the graph's planners = the allocator's."""
        lay, plans = self.layout, self.graph.schedule.plans
        busy = {g for g, v in enumerate(lay.node_vertex) if self.free(v, now, 1) == 0}
        held = set(range(lay.nodes)).difference(*alloc._free)
        assert busy == held, f"at {now}: graph holds nodes {sorted(busy)}, allocator {sorted(held)}"
        used = [
            lay.pool_capacity
            - (plans[v].avail_resources_at(now) if plans[v] else lay.pool_capacity)
            for v in lay.pool_vertex
        ]
        assert used == alloc._used, f"at {now}: graph pools use {used}, allocator {alloc._used}"


@contextmanager
def _replayed(spec: FmMachineSpec):
    """Replay every allocation of the FmAllocator on a graph of ``spec`` while it runs."""
    replay = _GraphReplay(spec)
    allocate = FmAllocator.allocate

    def replayed(self, job, jobid, now, reserve):
        out = allocate(self, job, jobid, now, reserve)
        if out is not None:
            d = self.durations[job.id][0]
            if out.at == now:
                replay.start(self, out.nodes, out.held, now, d)
            else:
                replay.reservation(out.nodes, out.held, out.at, d)
        return out

    with mock.patch.object(FmAllocator, "allocate", replayed):
        yield replay


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(5, 40),
    racks=st.integers(1, 3),
    per_rack=st.integers(2, 12),
    pools=st.integers(0, 3),
    granularity=st.sampled_from(("memnode", "flat")),
    scope=st.sampled_from(("rack", "system")),
    priority=st.sampled_from(FM_PRIORITIES),
)
def test_every_fm_booking_is_feasible_on_the_graph(
    seed, count, racks, per_rack, pools, granularity, scope, priority
):
    spec = FmMachineSpec(racks, per_rack, 64 if pools else 512, pools, granularity)
    jobs = map_trace(synthetic_trace(count, seed=seed, span=2000), seed=seed)
    with _replayed(spec) as replay:
        run = run_fm(jobs, spec, scope if pools else "nodes", priority, warmup=count // 4)
    started = [r for r in run.result.jobs if not r.rejected]
    assert replay.jobs == len(started)


def test_replay_catches_a_double_booking():
    """The replay is not vacuous: a node booked twice on the graph is refused."""
    spec = FmMachineSpec(1, 2, pool_tb=1)
    replay = _GraphReplay(spec)
    alloc = FmAllocator(build_fm_machine(spec), "rack")
    replay.jobs += 1
    out = replay.matcher.update("jgf", replay._nodes_jgf((0,)), 1, 0, 10, SelectionCollector())
    assert out.rc == 0
    with pytest.raises(AssertionError, match=r"graph refused the nodes \(0,\)"):
        replay.start(alloc, (0,), (), 5, 10)
