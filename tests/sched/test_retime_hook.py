"""The allocator's optional ``retime`` hook and ``kill_at_walltime=False``: a booking follows a
job its runtime model runs past its walltime, so nothing is booked twice."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from test_allocator import IntervalNodes
from test_simulator import _Slowdown
from test_simulator_oracle import POLICIES, workloads

from fluxgraph.sched import Simulator
from fluxgraph.sched.passes import BackfillPass
from fluxgraph.workload import Job


class FollowingNodes(IntervalNodes):
    """:class:`IntervalNodes` whose running bookings end where their jobs end (the hook)."""

    def __init__(self, n_nodes: int, cores: int):
        super().__init__(n_nodes, cores)
        self.reserved: set[int] = set()
        self.told: list[tuple[int, int]] = []

    def allocate(self, job, jobid, now, reserve):
        got = super().allocate(job, jobid, now, reserve)
        if got is not None and got.at > now:
            self.reserved.add(jobid)
        return got

    def release(self, jobid):
        super().release(jobid)
        self.reserved.discard(jobid)

    def retime(self, jobid, run):
        assert not self.reserved, "reservations are cancelled before the hook"
        self.told.append((run.job.id, run.end))
        start, end, nodes = self.booked[jobid]
        self.booked[jobid] = (start, max(end, run.end), nodes)


# Two single-core nodes; job 1 (100 s of work, walltime 100) shares with job 2 from 10 to 50 at
# half speed (_Slowdown): it has done 30 s by 50 and ends at 120. Job 3 wants both nodes at 105.
JOBS = [Job(1, 0, 100, 100), Job(2, 10, 20, 20), Job(3, 105, 10, 10, procs=2)]


def _run(alloc, **kw):
    result = Simulator(None, JOBS, allocator=alloc, runtime=_Slowdown(), **kw).run()
    return {r.job.id: (r.start, r.end, r.killed) for r in result.jobs}


def test_a_slowed_job_keeps_its_nodes_past_its_walltime():
    alloc = FollowingNodes(2, 1)
    got = _run(alloc, kill_at_walltime=False)
    assert got == {1: (0, 120, False), 2: (10, 50, False), 3: (120, 130, False)}
    # told at each start (job 2 already at half speed) and when job 1 moved: to 10 + 90 / 0.5 at
    # 10, to 50 + 70 at 50 (after job 2's end, before the pass that starts nothing)
    assert alloc.told == [(1, 100), (2, 50), (1, 190), (1, 120), (3, 130)]
    assert not alloc.booked


def test_without_the_hook_the_booking_ends_at_the_walltime():
    got = _run(IntervalNodes(2, 1), kill_at_walltime=False)
    assert got[3][0] == 105 < got[1][1]  # job 3 starts on node 0 while job 1 still runs there


def test_by_default_the_slowed_job_is_killed_at_its_walltime():
    got = _run(FollowingNodes(2, 1))  # job 2 too: 20 s at half speed from 10 are 10 s of work
    assert got == {1: (0, 100, True), 2: (10, 30, True), 3: (105, 115, False)}


class _Scripted:
    """Ends moved as scripted: ``{time: [(key, end), ...]}`` (each reported once)."""

    def __init__(self, moves):
        self.moves = moves

    def start(self, run, now):
        return now + run.job.runtime

    def finish(self, run, now):
        return None

    def retime(self, now):
        return self.moves.pop(now, ())


def test_a_job_re_timed_away_and_back_ends_once():
    # job 1 moved to 110 when job 2 starts and back to 100 when it ends: two (100, 1) entries
    jobs = [Job(1, 0, 100, 200), Job(2, 10, 10, 10)]
    model = _Scripted({10: [(0, 110)], 20: [(0, 100)]})
    result = Simulator(None, jobs, allocator=IntervalNodes(2, 1), runtime=model).run()
    assert [(r.start, r.end) for r in result.jobs] == [(0, 100), (10, 20)]


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(POLICIES), st.booleans())
def test_followed_bookings_never_overlap(case, policy, as_pass):
    n_nodes, cores, jobs = case
    alloc = FollowingNodes(n_nodes, cores)
    scheduler = BackfillPass(policy) if as_pass else None
    result = Simulator(
        None,
        jobs,
        queue=policy,
        allocator=alloc,
        scheduler=scheduler,
        runtime=_Slowdown(),
        kill_at_walltime=False,
    ).run()
    ran = [r for r in result.jobs if r.completed]
    assert all(r.rejected for r in result.jobs if not r.completed)
    for r in ran:
        assert r.job.submit <= r.start and r.end >= r.start + r.job.runtime and not r.killed
    for node in range(n_nodes):
        spans = sorted((r.start, r.end) for r in ran if node in r.nodes)
        assert all(a[1] <= b[0] for a, b in pairwise(spans)), (node, spans)
    assert not alloc.booked
