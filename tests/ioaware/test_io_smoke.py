"""Spec §8's smoke test: the model table, and the orderings on the small workloads W1x2, W2x1
(the unit vectors of step 1 are in test_io_vectors.py)."""

from __future__ import annotations

from fluxgraph.papers.ioaware.metrics import improvement
from fluxgraph.papers.ioaware.run import run_io
from fluxgraph.papers.ioaware.study import SPEC_CURVE, TICKS_PER_S, curve_points
from fluxgraph.papers.ioaware.workload import w1, w2


def test_x1_table():
    assert [round(x, 2) for x in curve_points()] == [0.0, *SPEC_CURVE]


def test_w1x2_orderings():
    jobs = w1(waves=2)
    runs = [("S0", "S0", 20), ("S1@20", "S1", 20), ("S1@15", "S1", 15), ("S2@20", "S2", 20)]
    m = {name: run_io(jobs, s, limit).makespan for name, s, limit in runs}
    assert m["S0"] > m["S1@20"] > m["S1@15"] > m["S2@20"]
    assert improvement(m["S2@20"], m["S0"]) >= 15


def test_w2x1_naive_ablation_idles():
    # spec §8 step 3 on the study's own clock (0.1 s ticks, within 1% of the spec's
    # continuous-time model): W2x1 gives S2@20 758.1 s and S2n@20 817.2 s (prototype 756 / 816);
    # whole-second ticks round every job's end up, which biases the estimates (783 / 819, a
    # ratio of 1.046; docs/ioaware.md), so the study does not use them
    assert TICKS_PER_S == 10
    jobs = w2(waves=1)
    adaptive = run_io(jobs, "S2", 20, ticks_per_s=TICKS_PER_S).makespan_s
    naive = run_io(jobs, "S2n", 20, ticks_per_s=TICKS_PER_S).makespan_s
    assert naive >= 1.05 * adaptive


def test_finer_ticks_change_only_the_rounding():
    # sleep jobs end on whole seconds: 0.1 s ticks give the same schedule, in tenths
    jobs = w1(waves=1)
    sleeps = type(jobs).of([j for j in jobs if j.extra["kind"] == "sleep"])
    coarse = run_io(sleeps, "S2", 20)
    fine = run_io(sleeps, "S2", 20, ticks_per_s=10)
    assert fine.makespan_s == coarse.makespan_s == 240.0
    assert [r.start for r in fine.result.jobs] == [10 * r.start for r in coarse.result.jobs]
