"""SlurmBackfill: main pass + conservative backfill, against the brute-force oracle."""

from __future__ import annotations

from hypothesis import given, settings
from sched_oracle import oracle_schedule
from test_allocator import IntervalNodes
from test_simulator_oracle import workloads

from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator
from fluxgraph.sched.passes import SlurmBackfill
from fluxgraph.workload import Job


def _schedule(result):
    return {r.job.id: None if r.rejected else (r.start, r.end, r.nodes) for r in result.jobs}


@settings(max_examples=80, deadline=None)
@given(workloads())
def test_an_unlimited_depth_is_conservative_backfilling(case):
    # the main pass starts what the backfill pass would start first (now is the first candidate)
    n_nodes, cores, jobs = case
    alloc = IntervalNodes(n_nodes, cores)
    result = Simulator(None, jobs, allocator=alloc, scheduler=SlurmBackfill(depth=1000)).run()
    assert _schedule(result) == oracle_schedule(jobs, n_nodes, cores, "conservative")


def test_jobs_the_main_pass_starts_do_not_count_towards_the_depth():
    # three 1-node jobs start in the main pass; job 4 (3 nodes) blocks; depth 1 still reaches
    # job 4 (reserved at 100) but not job 5, which would fit on the free node now; it starts
    # at 100 beside job 4
    jobs = [Job(i, 0, 100, 100) for i in (1, 2, 3)]
    jobs += [Job(4, 0, 10, 10, procs=3), Job(5, 0, 50, 50)]
    sim = Simulator(build_machine("nodes=4"), jobs, scheduler=SlurmBackfill(depth=1))
    got = {r.job.id: r.start for r in sim.run().jobs}
    assert got == {1: 0, 2: 0, 3: 0, 4: 100, 5: 100}
    deeper = Simulator(build_machine("nodes=4"), jobs, scheduler=SlurmBackfill(depth=2))
    assert {r.job.id: r.start for r in deeper.run().jobs}[5] == 0
