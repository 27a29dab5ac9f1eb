"""FM unit checks S2 (spec §8): priorities §4.2, allocator §4.5, d' §5, fairness §6.4, A6 §4.6."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.machine import (
    GB_PER_TB,
    FmLayout,
    FmMachineSpec,
    build_fm_machine,
    juwels_like,
    perlmutter_like,
)
from fluxgraph.papers.fm.metrics import fairness, savings
from fluxgraph.papers.fm.priority import make_priorities
from fluxgraph.papers.fm.slowdown import S180, S280, SlowdownModel
from fluxgraph.papers.fm.workload import TraceRow, map_trace, read_trace
from fluxgraph.workload import Job

TRACE = Path(__file__).resolve().parents[3] / "shared" / "traces" / "perlmutter-fm-jobs.csv"


def _paper_value(name: str, job: Job, now: int) -> float:
    return -make_priorities(64)[name](job, now)


@pytest.mark.parametrize(
    ("w", "r", "n", "mem", "s", "expected"),
    [
        (
            100,
            50,
            10,
            128,
            1000,
            {
                "fm": 0.5,
                "fm_code": 1.0,
                "fair": 2.0,
                "wfp3": 80.0,
                "f1": 2627.367,
                "sjf": -50,
                "fcfs": -1000,
            },
        ),
        (300, 600, 1, 40, 5000, {"fm": 0.5, "fair": 0.5, "wfp3": 0.125, "f1": 3220.958}),
    ],
)
def test_priority_worked_values(w, r, n, mem, s, expected):
    job = Job(0, s, r, r + 7, procs=n, memory=mem, extra={"d": r})  # walltime is not r
    for name, value in expected.items():
        assert round(_paper_value(name, job, s + w), 3) == value, name
    assert _paper_value("f1_asc", job, s + w) == -_paper_value("f1", job, s + w)


def test_fm_equals_fair_for_small_one_node_jobs():
    job = Job(0, 10, 70, 70, procs=1, memory=64, extra={"d": 70})
    assert _paper_value("fm", job, 500) == _paper_value("fair", job, 500)


def _example_allocator() -> FmAllocator:
    return FmAllocator(build_fm_machine(FmMachineSpec(2, 4, pool_tb=1)), "rack")


def test_allocator_worked_example():
    alloc = _example_allocator()
    a = alloc.allocate(Job(0, 0, 100, 100, procs=3, memory=400), 1, 0, False)
    assert a.nodes == (0, 1, 2) and [gb for *_, gb in a.held] == [1008]
    assert a.held[0][0] == alloc.layout.pool_vertex[0]
    b = alloc.allocate(Job(1, 0, 100, 100, procs=2, memory=200), 2, 0, False)
    assert b.nodes == (4, 5) and [gb for *_, gb in b.held] == [272]
    assert b.held[0][0] == alloc.layout.pool_vertex[1]
    assert alloc.allocate(Job(2, 0, 100, 100, procs=2, memory=600), 3, 0, False) is None
    # with reserve, C waits for A and B (both stretched to ceil(100 * 1.001...) = 101): one
    # 536 GB chunk fits per memnode, so C takes one node of each rack
    c = alloc.allocate(Job(2, 0, 100, 100, procs=2, memory=600), 4, 0, True)
    assert c.at == 101 and c.nodes == (0, 4)
    assert alloc.durations[0][0] == 101
    alloc.release(1)
    assert alloc.node_planners[0].avail_resources_during(0, 100) == 1


def test_planner_is_the_booking_ledger():
    alloc = _example_allocator()
    alloc.allocate(Job(0, 0, 100, 100, procs=1, memory=1088), 1, 0, False)
    assert alloc.pool_planners[0].avail_resources_at(50) == 0
    alloc.release(1)
    assert alloc.pool_planners[0].avail_resources_at(50) == 1024
    with pytest.raises(SimulationError):
        alloc.release(1)


def test_stretch_example_and_bound():
    model = SlowdownModel("paper")
    assert model.stretch(1000, 256, 64, 0.95, 0.0) == 2253
    assert model.stretch(1000, 64, 64, 0.95, 0.0) == 1000
    assert SlowdownModel("none").stretch(1000, 505, 64, 0.99, 1.0) == 1000
    assert max(S180) * (1 - 64 / 505) < 1.5
    assert round(sum(S180) / 11, 6) == 0.31 and round(sum(S280) / 11, 6) == 0.53
    assert (min(S180), max(S180), min(S280), max(S280)) == (0.001, 1.67, 0.0075, 3.19)


def test_fairness_example():
    out = fairness([100, 50, 0, 30], [40, 80, 0, 30], x=50)
    assert (out["B"], out["D"], out["MD"], out["D_x"], out["B_x"], out["MD_x"]) == (
        60,
        30,
        -30,
        30,
        60,
        -30,
    )


def test_a6_example_machine():
    alloc = _example_allocator()
    assert alloc.check(Job(0, 0, 1, 1, procs=7, memory=600)).startswith("never fits")
    assert alloc.check(Job(0, 0, 1, 1, procs=2, memory=600)) == ""
    assert alloc.check(Job(0, 0, 1, 1, procs=9, memory=10)).startswith("never fits")
    system = FmAllocator(build_fm_machine(FmMachineSpec(2, 4, pool_tb=1)), "system")
    assert system.check(Job(0, 0, 1, 1, procs=3, memory=600)).startswith("never fits")


def test_machine_sizes_and_costs():
    assert build_fm_machine(perlmutter_like(48)).num_vertices == 3655
    tb = [
        s.total_gb // GB_PER_TB
        for s in (
            FmMachineSpec(6, 256, 512),
            perlmutter_like(28),
            FmMachineSpec(20, 48, 512),
            juwels_like(6),
        )
    ]
    assert tb == [768, 264, 480, 180]
    frac, dollars = savings(juwels_like(6).total_gb, FmMachineSpec(20, 48, 512).total_gb)
    assert (frac, round(dollars / 1e6, 2)) == (0.625, 1.51)  # the paper's 63%
    flat = FmLayout.of(build_fm_machine(perlmutter_like(4, "flat")))
    assert (flat.pools_per_rack, flat.pool_capacity) == (1, 4096)
    baseline = FmLayout.of(build_fm_machine(FmMachineSpec(6, 256, 512)))
    assert (baseline.pools, baseline.local_gb) == (0, 512)


def test_trace_mapping_and_bad_input(tmp_path):
    jobs = map_trace(
        [TraceRow(9, 105, 1, 400, 70), TraceRow(3, 105, 4, 360, 30), TraceRow(4, 100, 2, 500, 64)],
        seed=1,
    )
    assert [(j.id, j.submit, j.extra["jobid"]) for j in jobs] == [(0, 0, 4), (1, 5, 3), (2, 5, 9)]
    assert [j.extra["u"] for j in jobs] == [
        j.extra["u"]
        for j in map_trace(
            [
                TraceRow(9, 105, 1, 400, 70),
                TraceRow(3, 105, 4, 360, 30),
                TraceRow(4, 100, 2, 500, 64),
            ]
        )
    ]
    w2 = map_trace([TraceRow(1, 0, 1, 9, 9), TraceRow(2, 10, 1, 9, 9)], submit_scale=1.6)
    assert [j.submit for j in w2] == [0, 16]
    bad = tmp_path / "t.csv"
    bad.write_text("jobid,submit,nnodes,duration,memory\n1,0,1,x,5\n")
    with pytest.raises(SimulationError, match=r"t.csv:2"):
        read_trace(bad)
    bad.write_text("jobid,submit,nnodes\n")
    with pytest.raises(SimulationError, match="missing column"):
        read_trace(bad)


@pytest.mark.skipif(not TRACE.exists(), reason="needs ../shared/traces")
def test_a6_counts_on_the_trace():
    jobs = map_trace(read_trace(TRACE))
    assert len(jobs) == 14110
    expected = [93, 60, 54, 44, 42, 28, 28, 6, 4, 3, 0, 0]
    for scope in ("rack", "system"):
        counts = []
        for pool in range(4, 52, 4):
            alloc = FmAllocator(build_fm_machine(perlmutter_like(pool)), scope)
            counts.append(sum(1 for j in jobs if alloc.check(j)))
        assert counts == expected, scope
    alloc = FmAllocator(build_fm_machine(perlmutter_like(4)), "rack")
    assert sum(1 for j in jobs[:3000] if alloc.check(j)) == 13
    assert sum(1 for j in jobs[:1000] if alloc.check(j)) == 4
    base = FmAllocator(build_fm_machine(FmMachineSpec(6, 256, 512)), "nodes")
    assert sum(1 for j in jobs if base.check(j)) == 0
    w2 = FmAllocator(build_fm_machine(juwels_like(2)), "rack")
    assert sum(1 for j in jobs if w2.check(j)) == 72
