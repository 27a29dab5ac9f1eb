"""Allocators: the simulator booking through a custom allocator, and the matcher's allocator."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sched_oracle import oracle_schedule
from test_simulator_oracle import POLICIES, workloads

from fluxgraph.errors import SimulationError
from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator
from fluxgraph.sched.allocator import Allocation, MatcherAllocator
from fluxgraph.sched.passes import BackfillPass
from fluxgraph.sched.shapes import JobShape
from fluxgraph.workload import Job


class IntervalNodes:
    """A brute-force allocator: per-node lists of booked ``[start, end)``, lowest nodes first,
    candidate start times ``now`` and every booking's end. No graph, no planner."""

    def __init__(self, n_nodes: int, cores: int):
        self.total_nodes, self.total_cores, self.cores = n_nodes, n_nodes * cores, cores
        self.booked: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        self.released: list[int] = []

    def _need(self, job):
        return job.nodes or math.ceil(job.procs / self.cores)

    def _free(self, node, a, b):
        return all(e <= a or s >= b for s, e, ns in self.booked.values() if node in ns)

    def check(self, job):
        return "" if self._need(job) <= self.total_nodes else "too many nodes"

    def allocate(self, job, jobid, now, reserve):
        need = self._need(job)
        times = [now, *sorted({e for _, e, _ in self.booked.values() if e > now})]
        for t in times if reserve else [now]:
            free = [n for n in range(self.total_nodes) if self._free(n, t, t + job.walltime)]
            if len(free) >= need:
                nodes = tuple(free[:need])
                self.booked[jobid] = (t, t + job.walltime, nodes)
                return Allocation(t, nodes, need * self.cores)
        return None

    def release(self, jobid):
        del self.booked[jobid]
        self.released.append(jobid)

    def family(self, job):
        return ("node", self._need(job))


def _schedule(result):
    return {r.job.id: None if r.rejected else (r.start, r.end, r.nodes) for r in result.jobs}


@settings(max_examples=100, deadline=None)
@given(workloads(), st.sampled_from(POLICIES), st.booleans())
def test_a_custom_allocator_gives_the_oracle_schedule(case, policy, as_pass):
    n_nodes, cores, jobs = case
    alloc = IntervalNodes(n_nodes, cores)
    scheduler = BackfillPass(policy) if as_pass else None
    result = Simulator(None, jobs, queue=policy, allocator=alloc, scheduler=scheduler).run()
    assert _schedule(result) == oracle_schedule(jobs, n_nodes, cores, policy)
    assert not alloc.booked  # every booking (runs and reservations) was given back
    assert result.total_nodes == n_nodes


def test_the_matcher_allocator_books_reserves_and_releases():
    alloc = MatcherAllocator(build_machine("nodes=2,cores=2"), JobShape("node", 2), "low")
    first = alloc.allocate(Job(1, 0, 10, 10, procs=4), 1, 0, reserve=False)
    assert first == Allocation(0, (0, 1), 4, ((0, "cluster", 1),))  # the path's cluster
    assert alloc.allocate(Job(2, 0, 10, 5, procs=1), 2, 0, reserve=False) is None
    assert alloc.allocate(Job(2, 0, 10, 5, procs=1), 3, 0, reserve=True).at == 10
    alloc.release(1)
    alloc.release(3)
    assert alloc.allocate(Job(2, 0, 10, 5, procs=1), 4, 0, reserve=False).at == 0
    assert alloc.check(Job(5, 0, 1, 1, procs=5)).startswith("unsatisfiable")


def test_a_simulation_needs_a_graph_or_an_allocator():
    with pytest.raises(SimulationError, match="graph or an allocator"):
        Simulator(None, [Job(1, 0, 1, 1)])
