"""The fluid file-system model against exact hand-computed runs, and the §5.1 table."""

from __future__ import annotations

import math

import pytest

from fluxgraph.papers.ioaware.fluid import FluidFileSystem, io_demand, saturating
from fluxgraph.papers.ioaware.machine import build_pfs_machine
from fluxgraph.papers.ioaware.schedulers import DefaultBackfill
from fluxgraph.sched.passes import Periodic
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Job


def capped(s: float) -> float:
    """X(S) = min(S, 2) GiB/s: concave, easy to integrate by hand."""
    return min(s, 2.0)


def write(job_id: int, submit: int, streams: int, gib: float) -> Job:
    return Job(job_id, submit, 10, 100, 1, 1, extra={"streams": streams, "stream_gib": gib})


def test_hand_computed_two_writers_and_a_sleeper():
    # A: 1 stream x 3 GiB at 0; B: 2 streams x 1 GiB at 1; C: sleeps 5 s at 0.
    # [0,1): S=1, A at 1 GiB/s (2 left). [1,2.5): S=3, X=2, 2/3 per stream: B done at 2.5,
    # A has 1 left. [2.5,3.5): S=1: A done at 3.5. Ends: A ceil(3.5)=4, B ceil(2.5)=3, C 5.
    jobs = [
        write(1, 0, 1, 3.0),
        Job(2, 0, 5, 100, 1, 1, extra={"compute_s": 5}),
        write(3, 1, 2, 1.0),
    ]
    seen = []
    fs = FluidFileSystem(curve=capped, listeners=[lambda run, now: seen.append((run.job.id, now))])
    sim = Simulator(build_pfs_machine(3, 20.0), jobs, runtime=fs, scheduler=DefaultBackfill(3))
    result = sim.run()
    assert [(r.job.id, r.start, r.end) for r in result.jobs] == [(1, 0, 4), (2, 0, 5), (3, 1, 3)]
    assert sorted(seen) == [(1, 4), (2, 5), (3, 3)]
    assert fs.steps == [(0.0, 1.0), (1.0, 2.0), (2.5, 1.0), (3.5, 0.0)]
    # R_now at 3 over [-7, 3]: 1*1 + 2*1.5 + 1*0.5 = 4.5 GiB -> 0.45 GiB/s
    assert fs.mean_between(-7, 3) == pytest.approx(0.45)
    assert fs.measured(5) == pytest.approx(5 / 10)  # all 5 GiB written by then


def test_ends_move_while_jobs_run():
    fs = FluidFileSystem(curve=capped)
    a = RunningJob(0, write(1, 0, 1, 3.0), 0, (0,), 1)
    assert fs.start(a, 0) == 3  # alone: 3 GiB at 1 GiB/s
    assert list(fs.retime(0)) == []
    b = RunningJob(1, write(3, 1, 2, 1.0), 1, (1,), 1)
    assert fs.start(b, 1) == 3
    assert sorted(fs.retime(1)) == [(0, 4)]  # A slowed down by B
    assert list(fs.retime(1)) == []  # nothing changed since


def test_saturating_curve_matches_the_spec_table():
    x = saturating(16.0, 0.55)
    table = [3.85, 6.77, 8.99, 10.67, 11.95, 12.93, 13.67, 14.23]
    table += [14.65, 14.98, 15.22, 15.41, 15.55, 15.66, 15.74]
    assert [round(x(8 * m), 2) for m in range(1, 16)] == table


def test_m_writers_started_together_share_the_concave_curve():
    x = saturating()
    for m in (1, 3, 7):
        fs = FluidFileSystem()
        for k in range(m):
            fs.start(RunningJob(k, write(k, 0, 8, 10.0), 0, (k,), 1), 0)
        ends = dict(fs.retime(0))
        expected = math.ceil(80 * m / x(8 * m))
        assert set(ends.values()) <= {expected}
        fs.advance(1)
        assert fs.steps[0] == (0.0, pytest.approx(x(8 * m)))


def test_noise_is_seeded_and_capped():
    def run(seed):
        fs = FluidFileSystem(sigma=0.5, seed=seed, peak=12.0)
        for k in range(4):
            fs.start(RunningJob(k, write(k, 0, 8, 10.0), 0, (k,), 1), 0)
        fs.advance(200)
        return fs.steps

    assert run(3) == run(3)
    assert run(3) != run(4)
    assert max(rate for _, rate in run(3)) <= 12.0


def test_io_demand_reads_extra_and_refuses_negative_values():
    assert io_demand({"streams": 2, "stream_gib": 10, "compute_s": 5}).gib == 20.0
    assert io_demand({}).gib == 0.0
    with pytest.raises(Exception, match="negative"):
        io_demand({"streams": -1, "stream_gib": 1})


def test_periodic_wakeups_do_not_disturb_the_model():
    jobs = [write(1, 0, 1, 3.0), write(2, 0, 1, 3.0), write(3, 0, 1, 3.0)]
    fs = FluidFileSystem(curve=capped)
    sched = Periodic(DefaultBackfill(2), 1)
    result = Simulator(build_pfs_machine(2, 20.0), jobs, runtime=fs, scheduler=sched).run()
    # two writers share 2 GiB/s: 3 s each; the third runs alone from 3: 3 s more
    assert [(r.start, r.end) for r in result.jobs] == [(0, 3), (0, 3), (3, 6)]
