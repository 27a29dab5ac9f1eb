"""The disaggregated-memory pass keeps its reservations across a pass that follows only submits
and schedules as the shared simulator's Slurm pass, which makes every reservation again at every
pass."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from fluxgraph.papers.disagg.arrays import ArrayAllocator
from fluxgraph.papers.disagg.booking import MemoryBookings
from fluxgraph.papers.disagg.contention import APPS, MemoryContention
from fluxgraph.papers.disagg.machines import MemoryMachineSpec
from fluxgraph.papers.disagg.sim import DisaggSimulator
from fluxgraph.sched.passes import SlurmBackfill
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Job

JOB_MIB = st.sampled_from([1024, 16384, 30000, 40000, 49152, 60000, 90000])


@st.composite
def _trickle(draw):
    """A small machine and 10-30 jobs submitted one by one: many passes follow only submits."""
    n = draw(st.integers(3, 8))
    jobs = []
    for i in range(draw(st.integers(10, 30))):
        runtime = draw(st.integers(5, 120))
        extra = {"mem_mib": draw(JOB_MIB), "app_id": draw(st.sampled_from(sorted(APPS)))}
        walltime = runtime + draw(st.sampled_from([0, 0, 20]))
        size = draw(st.integers(1, max(1, n // 2)))
        jobs.append(
            Job(i + 1, draw(st.integers(0, 150)), runtime, walltime, nodes=size, extra=extra)
        )
    return MemoryMachineSpec(n, draw(st.integers(0, n))), jobs


def _shared_pass(spec, jobs, kind, depth, **options):
    """The same run on the shared simulator's :class:`SlurmBackfill` (no reservation kept)."""
    alloc = ArrayAllocator(spec.capacities(), spec.cores, kind, **options)
    model = MemoryContention(alloc.memory_owner)
    bookings = MemoryBookings(alloc, model.planned_end)
    return Simulator(
        None,
        sorted(jobs, key=lambda j: (j.submit, j.id)),
        queue="conservative",
        runtime=model,
        scheduler=SlurmBackfill(depth),
        allocator=bookings,
        kill_at_walltime=False,
    ).run()


@settings(max_examples=40, deadline=None)
@given(
    _trickle(),
    st.sampled_from(["base", "dis"]),
    st.sampled_from([2, 100]),
    st.sampled_from([{}, {"lending": "dedicated"}, {"lender_compute": "if-memory-fits"}]),
)
def test_kept_reservations_schedule_as_reservations_made_again(work, kind, depth, options):
    spec, jobs = work
    if kind == "base":
        options = {}
    ours = DisaggSimulator(spec, jobs, kind, backfill_depth=depth, **options).run()
    theirs = _shared_pass(spec, jobs, kind, depth, **options)
    assert [(r.job.id, r.start, r.end, r.nodes) for r in ours.records] == [
        (r.job.id, r.start, r.end, r.nodes) for r in theirs.jobs
    ]
    event(f"passes kept: {'some' if ours.stats['kept_passes'] else 'none'}")


def test_a_pass_after_only_a_submit_keeps_the_reservations():
    # job 1 holds both nodes until 100; the pass at 5 reserves job 2 at 100 and starts nothing;
    # the pass at 10 keeps that reservation and reserves only job 3 (at 150)
    mib = {"mem_mib": 1024, "app_id": 19}
    jobs = [
        Job(1, 0, 100, 100, nodes=2, extra=mib),
        Job(2, 5, 50, 50, nodes=2, extra=mib),
        Job(3, 10, 50, 50, nodes=1, extra=mib),
    ]
    result = DisaggSimulator(MemoryMachineSpec(2, 0), jobs, "base", contention=False).run()
    assert [(r.start, r.end) for r in result.records] == [(0, 100), (100, 150), (150, 200)]
    assert result.stats["kept_passes"] == 1
