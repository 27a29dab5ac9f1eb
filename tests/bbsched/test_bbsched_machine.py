"""BBSched machines and workloads (spec §2.2, §3): recipes, request synthesis, calibration."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.machine import RECIPES, BBMachine
from fluxgraph.papers.bbsched.workloads import (
    calibrate_pool,
    measurement_window,
    offered_load,
    trace_slice,
    with_bb,
    with_ssd,
)
from fluxgraph.workload import Job

TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"


def test_recipes_have_the_spec_shapes():
    for name, nodes, ssd in [("bbsched-kth", 100, 0), ("bbsched-lublin-ssd", 256, 256)]:
        m = RECIPES[name]
        g = m.graph()
        counts = {t: len(v) for t, v in g.by_type.items()}
        assert counts["node"] == nodes and counts["core"] == nodes
        assert counts.get("ssd", 0) == ssd
        assert counts["bb"] * m.bb_chunk == m.pool and m.pool <= m.bb < m.pool + m.bb_chunk
        if ssd:  # the low half of the node ids has the 128-GB SSDs
            sizes = {}
            for v in g.by_type["ssd"]:
                node = g.paths[v]["containment"].split("/")[2]
                sizes[int(node.removeprefix("node"))] = g.sizes[v]
            assert all(sizes[i] == m.ssd_of(i) for i in range(nodes))


def test_bad_machines_are_refused():
    with pytest.raises(SimulationError, match="SSDs need"):
        BBMachine("x", ((3, 1),), 10, ssd=True)
    with pytest.raises(SimulationError, match="bb_chunk"):
        BBMachine("x", ((4, 1),), 10, bb_chunk=0)


def _jobs(count: int) -> list[Job]:
    return [Job(i, 60 * i, 100, 100, 1 + i % 7, 1 + i % 7) for i in range(count)]


def test_coupled_bb_draws_nest_and_keep_quantiles():
    jobs = _jobs(400)
    w = {
        name: [j.extra["bb"] for j in with_bb(jobs, "kth", name)]
        for name in ("S1", "S2", "S3", "S4")
    }
    assert sum(b > 0 for b in w["S1"]) == 200 and sum(b > 0 for b in w["S4"]) == 300
    for small, large in (("S1", "S2"), ("S3", "S4")):
        assert all(b2 > 0 for b1, b2 in zip(w[small], w[large], strict=True) if b1 > 0)
    assert all(5000 <= b <= 65000 for b in w["S2"] if b)
    assert all(20000 <= b <= 65000 for b in w["S4"] if b)
    # a job keeps its size quantile: the S2 and S4 sizes are ordered alike
    both = [(a, b) for a, b in zip(w["S1"], w["S3"], strict=True) if a and b]
    assert sorted(both) == sorted(both, key=lambda p: p[1])
    assert with_bb(jobs, "kth", "S2") == with_bb(jobs, "kth", "S2")
    assert [j.extra["bb"] for j in with_bb(jobs, "kth", "S2", seed=7)] != w["S2"]


def test_ssd_classes():
    jobs = [Job(i, i, 10, 10, 1 + i % 80, 1 + i % 80) for i in range(500)]
    for name, share in (("S5", 0.8), ("S7", 0.2)):
        ssd = [j.extra["ssd"] for j in with_ssd(jobs, name, nodes=100)]
        assert all(0 <= s <= 256 for s in ssd)
        large = [s for s, j in zip(ssd, jobs, strict=True) if s > 128]
        assert all(j.nodes <= 50 for s, j in zip(ssd, jobs, strict=True) if s > 128)
        assert len(large) <= round((1 - share) * 500)


def test_measurement_window_and_loads():
    jobs = _jobs(100)
    lo, hi = measurement_window(jobs, margin=600)
    assert (lo, hi) == (600, 99 * 60 - 600)
    assert offered_load(jobs, "nodes", 10, (lo, hi)) > 0


@pytest.mark.skipif(not TRACES.is_dir(), reason="../shared/traces absent")
def test_pool_calibration_matches_the_spec():
    for analogue, pool, count, inside in (
        ("kth", 188_513, 9250, 6671),
        ("lublin", 375_051, 10_000, 7250),
    ):
        jobs = trace_slice(analogue, TRACES)
        window = measurement_window(jobs)
        assert len(jobs) == count
        assert sum(window[0] <= j.submit < window[1] for j in jobs) == inside
        assert calibrate_pool(jobs, analogue, window) == pool
