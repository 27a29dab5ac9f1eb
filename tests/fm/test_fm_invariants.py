"""Invariants of FM runs on random workloads (rack and system scope, every priority)."""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.machine import FmMachineSpec
from fluxgraph.papers.fm.priority import FM_PRIORITIES
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.workload import map_trace, synthetic_trace


@contextmanager
def _checked():
    """Every FmAllocator checks its invariants (``_check``) after each allocate and release."""
    allocate, release = FmAllocator.allocate, FmAllocator.release

    def checked_allocate(self, *args, **kwargs):
        out = allocate(self, *args, **kwargs)
        self._check()
        return out

    def checked_release(self, jobid):
        release(self, jobid)
        self._check()

    with (
        mock.patch.object(FmAllocator, "allocate", checked_allocate),
        mock.patch.object(FmAllocator, "release", checked_release),
    ):
        yield


def _check(run):
    spec = run.machine
    cap = 1024
    events = []
    for rec in run.result.jobs:
        job = rec.job
        if rec.rejected:
            assert rec.reason.startswith("never fits") and rec.start == -1
            continue
        assert rec.start >= job.submit and rec.end > rec.start
        stretched, f_cross, chunks = run.stretched[job.id]
        assert rec.end - rec.start == stretched >= job.extra["d"]
        assert len(chunks) == job.procs == len(rec.nodes)
        if run.scope == "rack":
            assert f_cross == 0
        for g, m, gb in chunks:
            assert gb == max(0, int(job.memory) - spec.local_gb)
            events.append((rec.start, rec.end, g, m, gb))
    for t in sorted({s for s, *_ in events}):
        live = [e for e in events if e[0] <= t < e[1]]
        nodes = [g for _, _, g, _, _ in live]
        assert len(nodes) == len(set(nodes)), f"node double-booked at {t}"
        use: dict[int, int] = {}
        for *_, m, gb in live:
            if gb:
                use[m] = use.get(m, 0) + gb
        assert all(v <= cap for v in use.values()), f"pool over-allocated at {t}: {use}"


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(5, 40),
    priority=st.sampled_from(FM_PRIORITIES),
    scope=st.sampled_from(("rack", "system")),
    pools=st.integers(1, 3),
    options=st.fixed_dictionaries(
        {
            "rules": st.sampled_from(("code", "easy")),
            "warmup_switch": st.sampled_from(("arrival", "started", "none")),
            "system_alloc": st.sampled_from(("local_first", "balance")),
        }
    ),
)
def test_runs_hold_their_invariants(seed, count, priority, scope, pools, options):
    jobs = map_trace(synthetic_trace(count, seed=seed, span=3000), seed=seed)
    spec = FmMachineSpec(3, 40, pool_tb=pools)
    with _checked():
        run = run_fm(jobs, spec, scope, priority, warmup=count // 4, **options)
    _check(run)
    again = run_fm(jobs, spec, scope, priority, warmup=count // 4, **options)
    assert [(r.job.id, r.start, r.end, r.nodes) for r in run.result.jobs] == [
        (r.job.id, r.start, r.end, r.nodes) for r in again.result.jobs
    ]
    assert run.stretched == again.stretched


def test_reference_run_is_strict_fcfs():
    jobs = map_trace(synthetic_trace(30, seed=5, span=2000))
    with _checked():
        run = run_fm(jobs, FmMachineSpec(2, 40, pool_tb=2), "rack", "fm", reference=True)
    _check(run)
    assert run.t_switch is None
    started = sorted((r for r in run.result.jobs if not r.rejected), key=lambda r: r.job.id)
    assert all(a.start <= b.start for a, b in itertools.pairwise(started))


def test_baseline_machine_without_pools():
    jobs = map_trace(synthetic_trace(60, seed=9, span=1500))
    with _checked():
        run = run_fm(jobs, FmMachineSpec(2, 40, 512), "nodes", "fm", warmup=10, rules="easy")
    _check(run)
    assert any(r.reservations for r in run.result.jobs)  # the EASY head was reserved
    done = [r for r in run.result.jobs if not r.rejected]
    assert all(run.stretched[r.job.id][0] == r.job.extra["d"] for r in done)


def test_check_finds_a_corrupt_index():
    """``_check`` catches an index that disagrees with the planners or over-allocates."""
    jobs = map_trace(synthetic_trace(30, seed=2, span=500), seed=2)
    with _checked():
        run = run_fm(jobs, FmMachineSpec(2, 40, pool_tb=1), "rack", "fm", warmup=5)
    alloc = run.allocator
    alloc._check()
    alloc._used[0] += 1  # GB used that no running booking holds
    with pytest.raises(AssertionError, match="GB used per pool"):
        alloc._check()
    alloc._used[0] -= 1
    span = alloc.pool_planners[0].add_span(0, 10, 1)  # a span no booking holds
    with pytest.raises(AssertionError, match="holds spans"):
        alloc._check()
    alloc.pool_planners[0].rem_span(span)
    alloc._check()
