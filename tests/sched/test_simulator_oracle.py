"""The simulator against the brute-force oracle: identical start times, ends and node sets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sched_oracle import oracle_schedule

from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator, make_queue_policy
from fluxgraph.workload import Job

POLICIES = ("fcfs", "easy", "hybrid", "conservative")


@st.composite
def workloads(draw):
    n_nodes = draw(st.integers(1, 6))
    cores = draw(st.sampled_from([1, 2]))
    bursts = draw(st.lists(st.integers(0, 60), min_size=1, max_size=4))
    n_jobs = draw(st.integers(1, 14))
    jobs = []
    for i in range(n_jobs):
        runtime = draw(st.integers(1, 40))
        kind = draw(st.sampled_from(["exact", "over", "killed"]))
        walltime = {
            "exact": runtime,
            "over": runtime + draw(st.integers(1, 40)),
            "killed": max(1, runtime - draw(st.integers(1, 20))),
        }[kind]
        procs = draw(st.integers(1, (n_nodes + 1) * cores))  # some too large: rejected
        jobs.append(Job(100 + i, draw(st.sampled_from(bursts)), runtime, walltime, procs=procs))
    return n_nodes, cores, jobs


def _simulated(n_nodes, cores, jobs, policy, **kw):
    graph = build_machine(f"nodes={n_nodes},cores={cores}")
    result = Simulator(graph, jobs, queue=policy, policy="low", **kw).run()
    return {r.job.id: None if r.rejected else (r.start, r.end, r.nodes) for r in result.jobs}


@settings(max_examples=150, deadline=None)
@given(workloads(), st.sampled_from(POLICIES))
def test_simulator_matches_the_oracle(case, policy):
    n_nodes, cores, jobs = case
    assert _simulated(n_nodes, cores, jobs, policy) == oracle_schedule(jobs, n_nodes, cores, policy)


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(("easy", "hybrid")), st.integers(1, 4))
def test_reservation_and_queue_depth_match_the_oracle(case, policy, depth):
    n_nodes, cores, jobs = case
    queue = make_queue_policy(policy, reservation_depth=depth, queue_depth=depth + 1)
    got = _simulated(n_nodes, cores, jobs, queue)
    assert got == oracle_schedule(jobs, n_nodes, cores, policy, depth=depth, queue_depth=depth + 1)
