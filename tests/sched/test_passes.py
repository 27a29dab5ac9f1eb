"""Custom scheduling passes: the view's primitives, wake-ups, and the built-in walk re-written on
the view giving the brute-force oracle's schedules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sched_oracle import oracle_schedule
from test_simulator_oracle import POLICIES, workloads

from fluxgraph.errors import SimulationError
from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator
from fluxgraph.sched.passes import BackfillPass, Periodic
from fluxgraph.workload import Job


def _schedule(n_nodes, cores, jobs, scheduler, **kw):
    graph = build_machine(f"nodes={n_nodes},cores={cores}")
    result = Simulator(graph, jobs, policy="low", scheduler=scheduler, **kw).run()
    return {r.job.id: None if r.rejected else (r.start, r.end, r.nodes) for r in result.jobs}


@settings(max_examples=100, deadline=None)
@given(workloads(), st.sampled_from(POLICIES))
def test_backfill_pass_on_the_view_matches_the_oracle(case, policy):
    n_nodes, cores, jobs = case
    got = _schedule(n_nodes, cores, jobs, BackfillPass(policy))
    assert got == oracle_schedule(jobs, n_nodes, cores, policy)


@settings(max_examples=40, deadline=None)
@given(workloads(), st.sampled_from(POLICIES), st.integers(1, 50))
def test_periodic_wakeups_change_nothing_for_event_driven_policies(case, policy, period):
    n_nodes, cores, jobs = case
    got = _schedule(n_nodes, cores, jobs, Periodic(BackfillPass(policy), period))
    assert got == oracle_schedule(jobs, n_nodes, cores, policy)


class _EveryTenSeconds:
    """Starts jobs (fcfs order, no backfilling) only at multiples of 10 s."""

    def __init__(self):
        self.seen: list[tuple[int, bool]] = []

    def schedule(self, view, now):
        self.seen.append((now, view.woken))
        if now % 10:
            return
        for key in view.queue():
            if not view.start(key):
                return

    def next_wakeup(self, now):
        return (now // 10 + 1) * 10


def test_wakeups_run_passes_between_events():
    jobs = [Job(1, 3, 5, 5), Job(2, 4, 30, 30), Job(3, 12, 5, 5)]
    pass_ = _EveryTenSeconds()
    got = _schedule(1, 1, jobs, pass_)
    assert got == {1: (10, 15, (0,)), 2: (20, 50, (0,)), 3: (50, 55, (0,))}
    assert (10, True) in pass_.seen and (3, False) in pass_.seen
    assert all(t % 10 == 0 for t, woken in pass_.seen if woken)


class _FitsProbe:
    """Asks ``fits`` twice for the first two queued jobs, starts the head, asks again."""

    def __init__(self):
        self.answers: list[bool] = []

    def schedule(self, view, now):
        queue = view.queue()
        if len(queue) >= 2:
            self.answers += [view.fits(queue[:2]), view.fits(queue[:2])]
        view.start(queue[0])
        queue = view.queue()
        if len(queue) >= 2:
            self.answers += [view.fits(queue[:2]), view.fits(queue[:2])]

    def next_wakeup(self, now):
        return None


def test_fits_is_a_question_that_leaves_the_state_unchanged():
    jobs = [Job(1, 0, 10, 10, procs=2), Job(2, 0, 10, 10, procs=1), Job(3, 0, 10, 10, procs=2)]
    probe = _FitsProbe()
    got = _schedule(3, 1, jobs, probe)
    # on 3 free nodes {1, 2} fits; once job 1 holds 2 nodes, {2, 3} does not
    assert probe.answers[:4] == [True, True, False, False]
    assert got == {1: (0, 10, (0, 1)), 2: (10, 20, (0,)), 3: (20, 30, (0, 1))}


def test_reserved_jobs_hold_their_slot_until_the_next_pass():
    jobs = [Job(1, 0, 10, 10, procs=2), Job(2, 0, 5, 5, procs=2), Job(3, 0, 20, 20, procs=1)]

    class ReserveAll:
        def schedule(self, view, now):
            for key in view.queue():
                view.reserve(key)

        def next_wakeup(self, now):
            return None

    got = _schedule(2, 1, jobs, ReserveAll())
    assert got == {1: (0, 10, (0, 1)), 2: (10, 15, (0, 1)), 3: (15, 35, (0,))}


def test_a_pass_that_never_starts_anything_strands_its_jobs_with_a_reason():
    class Lazy:
        def schedule(self, view, now):
            return None

        def next_wakeup(self, now):
            return now + 1

    graph = build_machine("nodes=1")
    result = Simulator(graph, [Job(1, 0, 5, 5)], scheduler=Lazy()).run()
    assert result.jobs[0].rejected and "idle machine" in result.jobs[0].reason


def test_a_job_acted_on_twice_in_one_pass_is_an_error():
    class Twice:
        def schedule(self, view, now):
            key = view.queue()[0]
            view.start(key)
            view.start(key)

        def next_wakeup(self, now):
            return None

    with pytest.raises(SimulationError, match="already started"):
        Simulator(build_machine("nodes=2"), [Job(1, 0, 5, 5)], scheduler=Twice()).run()


def test_a_wakeup_in_the_past_is_an_error():
    class Backwards(BackfillPass):
        def next_wakeup(self, now):
            return now

    jobs = [Job(1, 0, 5, 5, procs=2), Job(2, 0, 5, 5, procs=2)]
    with pytest.raises(SimulationError, match="wake up"):
        Simulator(build_machine("nodes=2"), jobs, scheduler=Backwards("fcfs")).run()


def test_running_jobs_report_the_pools_they_hold():
    graph = build_machine("nodes=2,cores=2,memory=8")
    seen = []

    class Recorder:
        def start(self, run, now):
            seen.append(sorted((t, u) for _, t, u in run.held if t == "memory"))
            return now + run.job.runtime

        def finish(self, run, now):
            return None

        def retime(self, now):
            return ()

    Simulator(graph, [Job(1, 0, 5, 5, procs=2, memory=3)], runtime=Recorder()).run()
    assert seen == [[("memory", 8)]]  # an exclusive slot takes the whole memory vertex


def test_the_view_skips_starts_a_smaller_failure_dominates():
    """Once a job fails to start now (here: is reserved), a job of its family asking for at
    least as many nodes for at least as long is refused without a matcher call; the schedule
    stays the oracle's."""
    jobs = [
        Job(1, 0, 100, 100, procs=2),
        Job(2, 1, 50, 50, procs=2),  # reserved at 100
        Job(3, 1, 60, 60, procs=2),  # no easier than job 2: skipped
        Job(4, 1, 40, 40, procs=2),  # shorter: asked for
    ]
    graph = build_machine("nodes=2,cores=1")
    sim = Simulator(graph, jobs, policy="low", scheduler=BackfillPass("easy"))
    result = sim.run()
    got = {r.job.id: (r.start, r.end, r.nodes) for r in result.jobs}
    assert got == oracle_schedule(jobs, 2, 1, "easy")
    assert sim.stats["skipped"] >= 1
