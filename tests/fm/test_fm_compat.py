"""``--compat fm-simulator``: the public simulator's rules against a per-second brute force."""

from __future__ import annotations

import pytest
from fm_oracle import simulate_compat
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fm_invariants import _check

import fluxgraph.papers.fm.run as fm_run
from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.compat import CompatTicks
from fluxgraph.papers.fm.machine import FmMachineSpec
from fluxgraph.papers.fm.priority import FM_PRIORITIES
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.slowdown import SlowdownModel
from fluxgraph.papers.fm.workload import TraceRow, fm_jobs, map_trace, synthetic_trace

_ROW = st.tuples(
    st.integers(0, 40),  # submit
    st.integers(1, 5),  # nodes
    st.integers(1, 30),  # duration
    st.sampled_from((30, 64, 100, 300, 400, 600, 1000, 1088)),  # GB per node
)


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(_ROW, min_size=1, max_size=12),
    priority=st.sampled_from(FM_PRIORITIES),
    pools=st.integers(1, 2),
    warmup=st.integers(0, 5),
)
def test_compat_matches_per_second_brute_force(rows, priority, pools, warmup):
    """rules=code after the warm-up_switch=arrival warm-up (ids 0..warmup-1) against a pass
    every second."""
    jobs = map_trace([TraceRow(i, s, n, d, m) for i, (s, n, d, m) in enumerate(rows)])
    spec = FmMachineSpec(2, 3, pool_tb=pools)
    run = run_fm(jobs, spec, "rack", priority, "none", warmup=warmup, rules="code")
    got = {r.job.id: (r.start, r.end) for r in run.result.jobs if not r.rejected}
    rejected = {r.job.id for r in run.result.jobs if r.rejected}
    sized = fm_jobs(jobs, 64, SlowdownModel("none"), "rack")
    want, want_rejected = simulate_compat(sized, 2, 3, pools, 64, priority, warmup)
    assert rejected == want_rejected
    assert got == want


class _EverySecond(CompatTicks):
    def __init__(self, *args) -> None:
        super().__init__(*args, shortcut=False)


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    priority=st.sampled_from(FM_PRIORITIES),
    model=st.sampled_from(("none", "paper")),
)
def test_fast_forward_equals_a_pass_every_second(seed, priority, model):
    jobs = map_trace(synthetic_trace(30, seed=seed, span=1000), seed=seed)
    spec = FmMachineSpec(2, 16, pool_tb=1)
    fast = run_fm(jobs, spec, "rack", priority, model, warmup=5, rules="code")
    _check(fast)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fm_run, "CompatTicks", _EverySecond)
        slow = run_fm(jobs, spec, "rack", priority, model, warmup=5, rules="code")
    assert [(r.start, r.end, r.nodes) for r in fast.result.jobs] == [
        (r.start, r.end, r.nodes) for r in slow.result.jobs
    ]
    assert (
        fast.result.info["matcher_calls"]["passes"] <= slow.result.info["matcher_calls"]["passes"]
    )


def test_unknown_options():
    jobs = map_trace(synthetic_trace(3, seed=1))
    spec = FmMachineSpec(1, 8, pool_tb=1)
    for key, match in (
        ("rules", "unknown rules"),
        ("warmup_switch", "unknown warmup_switch"),
        ("system_alloc", "unknown system_alloc"),
    ):
        with pytest.raises(SimulationError, match=match):
            run_fm(jobs, spec, **{key: "slurm"})
