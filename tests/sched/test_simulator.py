"""The simulator's semantics on exact worked examples, its runtime-model interface, its
invariants (hypothesis) and its determinism."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.errors import SimulationError
from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator, make_queue_policy, simulate, summarize
from fluxgraph.sched.priority import PRIORITIES
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job


def _run(jobs, machine="nodes=4", **kw):
    kw.setdefault("policy", "low")
    return {r.job.id: r for r in Simulator(build_machine(machine), jobs, **kw).run().jobs}


def test_easy_backfills_a_short_job_that_does_not_delay_the_reservation():
    # Job 1 holds 3 of 4 nodes until 100; job 2 (4 nodes) is reserved at 100; job 3 (1 node,
    # 50 s) fits before 100 and backfills; job 4 (1 node, 200 s) would delay job 2: it waits.
    jobs = [
        Job(1, 0, 100, 100, procs=3),
        Job(2, 1, 10, 10, procs=4),
        Job(3, 2, 50, 50, procs=1),
        Job(4, 3, 200, 200, procs=1),
    ]
    got = _run(jobs, queue="easy")
    assert [(got[i].start, got[i].end) for i in (1, 2, 3, 4)] == [
        (0, 100),
        (100, 110),
        (2, 52),
        (110, 310),
    ]
    fcfs = _run(jobs, queue="fcfs")
    assert [fcfs[i].start for i in (1, 2, 3, 4)] == [0, 100, 110, 110]


def test_conservative_reserves_every_blocked_job_and_easy_only_the_first():
    # 3 nodes. Job 1 holds nodes 0-1 until 100; job 2 (2 nodes) is reserved on 0-1 at 100;
    # job 3 (3 nodes) is blocked behind it. Job 4 (1 node, 200 s) fits on node 2 now.
    # EASY protects only job 2, so job 4 backfills at 3 and delays job 3 to 203.
    # Conservative also reserves job 3 at [150, 160) on every node, so job 4 cannot start
    # before 160.
    jobs = [
        Job(1, 0, 100, 100, procs=2),
        Job(2, 1, 50, 50, procs=2),
        Job(3, 2, 10, 10, procs=3),
        Job(4, 3, 200, 200, procs=1),
    ]
    easy = _run(jobs, machine="nodes=3", queue="easy")
    cons = _run(jobs, machine="nodes=3", queue="conservative")
    assert [easy[i].start for i in (1, 2, 3, 4)] == [0, 100, 203, 3]
    assert [cons[i].start for i in (1, 2, 3, 4)] == [0, 100, 150, 160]
    assert easy[4].nodes == (2,) and cons[2].nodes == (0, 1)


def test_a_job_larger_than_the_machine_is_rejected_and_never_blocks_the_queue():
    jobs = [Job(1, 0, 10, 10, procs=9), Job(2, 0, 10, 10, procs=1)]
    got = _run(jobs, queue="fcfs")
    assert got[1].rejected and "unsatisfiable" in got[1].reason
    assert got[2].start == 0


def test_a_job_is_killed_at_its_walltime():
    got = _run([Job(1, 5, runtime=100, walltime=30)])
    assert (got[1].start, got[1].end, got[1].killed) == (5, 35, True)


def test_finishes_come_before_submissions_at_the_same_time():
    # Job 1 ends at 10 exactly when job 2 (all nodes) arrives: job 2 starts at 10.
    got = _run([Job(1, 0, 10, 10, procs=4), Job(2, 10, 5, 5, procs=4)], queue="fcfs")
    assert got[2].start == 10


def test_queue_order_follows_the_priority_with_submit_then_id_ties():
    jobs = [Job(1, 0, 50, 50, procs=4), Job(3, 1, 30, 30, procs=4), Job(2, 1, 10, 10, procs=4)]
    sjf = _run(jobs, queue="fcfs", priority="sjf")
    assert sjf[2].start == 50 and sjf[3].start == 60
    fcfs = _run(jobs, queue="fcfs", priority="fcfs")
    assert fcfs[2].start == 50 and fcfs[3].start == 60  # equal submit: lower id first
    ljf = _run(jobs, queue="fcfs", priority="ljf")
    assert ljf[3].start == 50 and ljf[2].start == 80


class _Slowdown:
    """While two or more jobs run, every running job progresses at half speed."""

    def __init__(self):
        self.running: dict[int, list] = {}  # key -> [work left, last update, rate]

    def _advance(self, now):
        for state in self.running.values():
            state[0] -= (now - state[1]) * state[2]
            state[1] = now

    def start(self, run: RunningJob, now: int) -> int:
        self._advance(now)
        self.running[run.key] = [run.job.runtime, now, 1.0]
        return now + run.job.runtime

    def finish(self, run: RunningJob, now: int) -> None:
        self._advance(now)
        del self.running[run.key]

    def retime(self, now: int):
        self._advance(now)
        rate = 0.5 if len(self.running) >= 2 else 1.0
        out = []
        for key, state in self.running.items():
            if state[2] != rate:
                state[2] = rate
                out.append((key, now + round(state[0] / rate)))
        return out


def test_a_dynamic_runtime_model_re_times_running_jobs():
    # Job 1 (100 s of work) runs alone for 10 s, then shares with job 2 (20 s of work): both
    # at half speed; job 2 ends at 50, job 1 has 90 - 20 = 70 s left and ends at 120.
    jobs = [Job(1, 0, 100, 1000, procs=1), Job(2, 10, 20, 1000, procs=1)]
    got = _run(jobs, runtime=_Slowdown())
    assert (got[2].start, got[2].end) == (10, 50)
    assert got[1].end == 120


def test_a_re_timed_job_is_still_killed_at_its_walltime():
    jobs = [Job(1, 0, 100, 110, procs=1), Job(2, 10, 20, 1000, procs=1)]
    got = _run(jobs, runtime=_Slowdown())
    assert got[1].end == 110


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"queue": "lifo"}, "unknown queue policy 'lifo'"),
        ({"priority": "random"}, "unknown priority 'random'"),
        ({"shape": "socket"}, "unknown job shape 'socket'"),
    ],
)
def test_bad_parameters_name_the_valid_values(kwargs, message):
    with pytest.raises(SimulationError, match=message):
        Simulator(build_machine("nodes=2"), [Job(1, 0, 1, 1)], **kwargs)


def test_hybrid_depth_must_be_positive():
    with pytest.raises(SimulationError, match="reservation depth must be >= 1"):
        make_queue_policy("hybrid", reservation_depth=0)


@st.composite
def _traces(draw):
    n = draw(st.integers(1, 25))
    jobs = []
    for i in range(n):
        runtime = draw(st.integers(1, 30))
        jobs.append(
            Job(
                i + 1,
                draw(st.integers(0, 40)),
                runtime,
                runtime + draw(st.integers(-5, 20)),  # some <= 0: rejected
                procs=draw(st.integers(1, 10)),
            )
        )
    return jobs


@settings(max_examples=40, deadline=None)
@given(
    _traces(),
    st.sampled_from(["fcfs", "easy", "hybrid", "conservative"]),
    st.sampled_from(sorted(PRIORITIES)),
    st.sampled_from(["node", "core", "node-core"]),
)
def test_invariants_hold_for_every_policy_priority_and_shape(jobs, queue, priority, shape):
    result = simulate(
        build_machine("nodes=3,cores=2"),
        jobs,
        queue=queue,
        priority=priority,
        shape=shape,
        policy="first",
    )
    cores_busy = []
    for r in result.jobs:
        assert r.completed or r.rejected, "every job finishes or is rejected with a reason"
        if r.rejected:
            assert r.reason
            continue
        assert r.job.walltime >= 1
        assert r.start >= r.job.submit
        assert r.end - r.start == min(max(r.job.runtime, 1), r.job.walltime)
        cores_busy.append((r.start, r.end, r.cores, set(r.nodes)))
    # nothing over-allocated: at every start, the cores in use fit the machine, and node-shape
    # jobs never share a node
    for t, _, _, _ in cores_busy:
        live = [c for c in cores_busy if c[0] <= t < c[1]]
        assert sum(c[2] for c in live) <= 6
        if shape == "node":
            nodes = [n for c in live for n in c[3]]
            assert len(nodes) == len(set(nodes))


def test_identical_inputs_give_identical_results():
    jobs = [Job(i, i * 3 % 17, 5 + i % 7, 9 + i % 5, procs=1 + i % 3) for i in range(40)]

    def once():
        r = simulate(build_machine("nodes=4"), jobs, queue="conservative", priority="wfp3")
        return [(j.start, j.end, j.nodes) for j in r.jobs], summarize(r)

    assert once() == once()
