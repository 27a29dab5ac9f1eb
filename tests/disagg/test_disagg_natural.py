"""E7 of the disagg study: wagap's own memory per job (spec §3.3, §3.4, D16) as a mix and a
cell, on a synthetic extended SWF and (where ../shared is present) on the trace itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.experiments import studies
from fluxgraph.papers.disagg import study as disagg
from fluxgraph.papers.disagg.machines import large_count
from fluxgraph.papers.disagg.mix import LARGE_APPS, NORMAL_APPS, map_natural, natural_mix, window
from fluxgraph.workload import load_workload

WAGAP = Path(__file__).resolve().parents[3] / "shared" / "traces" / "wagap-2013.swf"
GIB = 1 << 30


def _swf(path: Path, jobs: list[tuple[int, int, int, int]]) -> Path:
    """An Alea/MetaCentrum extended SWF: (submit, runtime, procs, GiB per job) per line."""
    lines = []
    for i, (submit, runtime, procs, gib) in enumerate(jobs, start=1):
        fields = [i, submit, 0, runtime, procs, 1, 1024, procs, 2 * runtime, gib * GIB]
        fields += [1, 1, 1, 1, -1, 1, 1, 1]
        lines.append(" ".join(map(str, fields)) + " {1} q_1d 1:ppn=" + str(procs))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_memory_per_node_comes_from_the_job_and_the_greedy_are_dropped(tmp_path):
    trace = _swf(tmp_path / "t.swf", [(0, 100, 64, 80), (10, 100, 16, 8), (20, 100, 8, 65)])
    jobs, dropped = map_natural(load_workload(trace))
    # 64 procs -> 2 nodes of 40 GiB; 16 procs -> 1 node of 8 GiB; 65 GiB on one node: dropped
    assert [(j.nodes, j.extra["mem_mib"]) for j in jobs] == [(2, 40 * 1024), (1, 8 * 1024)]
    assert dropped == 1


def test_natural_mix_flags_by_memory_and_draws_apps_by_class(tmp_path):
    rows = [(60 * i, 100 + i, 32 * (1 + i % 3), (10, 48, 70, 20)[i % 4]) for i in range(40)]
    jobs, _ = map_natural(load_workload(_swf(tmp_path / "t.swf", rows)))
    mix = natural_mix(jobs, nodes=8)
    large_ids = {a for a, _, _ in LARGE_APPS}
    normal_ids = {a for a, _, _ in NORMAL_APPS}
    hours = large_hours = 0
    for j in mix:
        big = j.extra["mem_mib"] > 32 * 1024
        assert j.extra["large"] is big
        assert j.extra["app_id"] in (large_ids if big else normal_ids)
        hours += j.nodes * j.runtime
        large_hours += j.nodes * j.runtime if big else 0
    assert float(mix.metadata["large_share"]) == pytest.approx(large_hours / hours, abs=1e-4)
    assert list(mix) == list(natural_mix(jobs, nodes=8))  # seeded: the same mix again


def test_an_e7_cell_runs_the_trace_memory(tmp_path):
    rows = [(30 * i, 200 + 7 * i, 32 * (1 + i % 2), (4, 40, 12)[i % 3]) for i in range(30)]
    trace = _swf(tmp_path / "t.swf", rows)
    params = {"experiment": "E7", "nodes": 8, "S": 50, "X": 0, "per_node": 32, "jobs": 30}
    params["window"] = 0
    dis = disagg.measure({**params, "alloc": "dis"}, str(trace))
    base = disagg.measure({**params, "alloc": "base"}, str(trace))
    assert dis["completed"] == base["completed"] == 30
    # memory is per job: 40 GiB over two nodes is 20 GiB per node (normal), on one node large
    large = sum(1 for _, _, procs, gib in rows if gib / (procs // 32) > 32)
    assert dis["large_jobs"] == large == 5 and 0 < dis["large_share"] < 1
    assert dis["dropped_memory"] == 0


def test_e7_grid_and_the_spec_counts():
    exp = studies.study_experiment("disagg")
    e7 = [c for c in exp.cells() if c.params["experiment"] == "E7"]
    # 6 S x 2 allocators x 3 windows, A-base at S = 0 is N/A; X is the trace's (kept at 0)
    assert len(e7) == 33 and {c.params["X"] for c in e7} == {0}
    assert {c.params["nodes"] for c in e7} == {128}


@pytest.mark.skipif(not WAGAP.exists(), reason="shared traces absent")
def test_wagap_windows_fit_the_smallest_large_partition():
    jobs, dropped = map_natural(load_workload(WAGAP))
    assert dropped == 778  # spec §3.3
    smallest = large_count(128, 15)
    for w in (0, 1, 2):
        mix = natural_mix(window(jobs, w), nodes=128, index=w)
        assert max(j.nodes for j in mix if j.extra["large"]) <= smallest
