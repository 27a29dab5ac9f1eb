"""The FM fast paths against the plain definitions they replace (same answers, bit for bit).

* :class:`~fluxgraph.papers.fm.priority.QueueOrder` against the simulator's sort by
  ``(make_priorities(...)[name](job, now), submit, id)``;
* :meth:`FmAllocator.startable` against :meth:`FmAllocator.fits_now` job by job (exact in rack
  and nodes scope, a necessary condition in system scope), beside running bookings and a
  reservation;
* the planners after bookings, released reservations and re-bookings hold exactly the spans
  of the live bookings and of the released reservations not yet removed, and every
  reservation once a job starts beside it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
from fluxgraph.papers.fm.priority import FM_PRIORITIES, QueueOrder, make_priorities
from fluxgraph.workload import Job

_JOB = st.tuples(
    st.integers(0, 5000),  # submit
    st.integers(1, 20_000),  # d
    st.integers(1, 60),  # procs
    st.sampled_from((16, 64, 65, 100, 128, 300, 505)),  # memory GB per node
)


@settings(max_examples=60, deadline=None)
@given(
    shapes=st.lists(_JOB, min_size=1, max_size=40),
    priority=st.sampled_from(FM_PRIORITIES),
    later=st.integers(0, 100_000),
)
def test_queue_order_is_the_simulators_sort(shapes, priority, later):
    jobs = [
        Job(i, s, d, d, procs=n, memory=m, extra={"d": d}) for i, (s, d, n, m) in enumerate(shapes)
    ]
    now = max(j.submit for j in jobs) + later
    key = make_priorities(64)[priority]
    order = QueueOrder(priority, 64, len(jobs))
    for k, job in enumerate(jobs):
        order.learn(k, job)
    keys = np.arange(len(jobs))[::-1].copy()
    want = sorted(keys.tolist(), key=lambda k: (key(jobs[k], now), jobs[k].submit, jobs[k].id))
    assert order.order(keys, now).tolist() == want
    assert order.keys(keys, now).tolist() == [key(jobs[k], now) for k in keys.tolist()]


@settings(max_examples=80, deadline=None)
@given(
    shapes=st.lists(
        st.tuples(
            st.integers(0, 30),  # submit: many equal
            st.sampled_from((1, 13, 31, 37, 3600)),  # d
            st.sampled_from((1, 3, 27, 81, 125)),  # procs: equal WFP3 keys at other waits
            st.sampled_from((64, 128)),
        ),
        min_size=1,
        max_size=60,
    ),
    priority=st.sampled_from(FM_PRIORITIES),
    later=st.integers(0, 400),
)
def test_queue_order_of_a_queue_by_arrival(shapes, priority, later):
    """The simulator's queue comes in (submit, id) order: the sort on the key alone (WFP3: by
    its estimate, runs of near-equal keys again by the exact ones) is still the full sort."""
    shapes = sorted(shapes)
    jobs = [
        Job(i, s, d, d, procs=n, memory=m, extra={"d": d}) for i, (s, d, n, m) in enumerate(shapes)
    ]
    now = shapes[-1][0] + later
    key = make_priorities(64)[priority]
    order = QueueOrder(priority, 64, len(jobs))
    for k, job in enumerate(jobs):
        order.learn(k, job)
    keys = np.arange(len(jobs))
    want = sorted(keys.tolist(), key=lambda k: (key(jobs[k], now), jobs[k].submit, jobs[k].id))
    assert order.order(keys, now).tolist() == want


@pytest.mark.parametrize(
    ("d", "want"),
    [
        # x = 5/31 on 1 node, 1/31 on 125: x * x * x ties them, Python's x ** 3 puts job 1 first
        (31, [1, 0]),
        # x = 5/37, 1/37: x ** 3 ties them (job 0 submitted first), x * x * x puts job 1 first
        (37, [0, 1]),
    ],
)
def test_wfp3_order_where_the_estimate_and_the_exact_keys_differ(d, want):
    jobs = [
        Job(0, 95, d, d, procs=1, extra={"d": d}),
        Job(1, 99, d, d, procs=125, extra={"d": d}),
    ]
    x0, x1 = 5 / d, 1 / d
    estimate = (-(x0 * x0 * x0) * 1, -(x1 * x1 * x1) * 125)
    exact = (-(x0**3) * 1, -(x1**3) * 125)
    assert (estimate[0] == estimate[1]) != (exact[0] == exact[1])  # the case is as described
    order = QueueOrder("wfp3", 64, 2)
    for k, job in enumerate(jobs):
        order.learn(k, job)
    assert order.order(np.array([0, 1]), 100).tolist() == want


def _job(i: int, n: int, memory: int, d: int) -> Job:
    return Job(i, 0, d, d, procs=n, memory=memory, extra={"d": d})


@settings(max_examples=40, deadline=None)
@given(
    running=st.lists(_JOB, max_size=8),
    head=_JOB,
    asked=st.lists(_JOB, min_size=1, max_size=30),
    scope=st.sampled_from(("rack", "system")),
    now=st.integers(0, 50),
)
def test_startable_matches_fits_now(running, head, asked, scope, now):
    alloc = FmAllocator(build_fm_machine(FmMachineSpec(3, 40, pool_tb=2)), scope)
    ids = iter(range(1, 10_000))
    for _, d, n, m in running:
        alloc.allocate(_job(next(ids), n, m, d), next(ids), now, reserve=False)
    _, d, n, m = head
    alloc.allocate(_job(next(ids), n, m, d), next(ids), now, reserve=True)
    jobs = [_job(next(ids), n, m, d) for _, d, n, m in asked]
    mask = alloc.startable(
        np.array([j.procs for j in jobs]),
        np.array([alloc.remote_gb(j) for j in jobs]),
        np.array([j.walltime for j in jobs]),
        now,
    )
    fits = [alloc.fits_now(j, now) for j in jobs]
    if scope == "rack":
        assert mask.tolist() == fits
    else:
        assert all(m or not f for m, f in zip(mask.tolist(), fits, strict=True))


def _spans(alloc: FmAllocator) -> set:
    booked = set()
    for kind, planners in ((0, alloc.node_planners), (1, alloc.pool_planners)):
        for index, planner in enumerate(planners):
            booked |= {(kind, index, span) for span in planner.span_ids()}
    return booked


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(st.tuples(_JOB, st.booleans()), min_size=1, max_size=25))
def test_planners_hold_the_live_and_released_bookings(steps):
    alloc = FmAllocator(build_fm_machine(FmMachineSpec(2, 30, pool_tb=2)), "rack")
    live: dict[int, object] = {}
    now = 0
    for i, ((_, d, n, m), drop) in enumerate(steps):
        now += 7
        for jobid in [j for j, a in live.items() if a.at > now or drop]:  # drop reservations
            alloc.release(jobid)
            del live[jobid]
        got = alloc.allocate(_job(i, n, m, d), i + 1, now, reserve=True)
        if got is not None:
            live[i + 1] = got
        held = {
            (key[0], key[1], span)
            for b in [*alloc._running.values(), *alloc._reserved.values(), *alloc._stale]
            for key, span in b.spans or ()
        }
        assert _spans(alloc) == held
        if got is not None and got.at == now:  # a start: every reservation is on the planners
            assert all(b.spans is not None for b in alloc._reserved.values())
