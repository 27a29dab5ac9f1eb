"""Job mixes of spec §3.4: node-hour shares, catalogue draws, load scaling, seeds."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.errors import WorkloadError
from fluxgraph.papers.disagg.contention import APPS
from fluxgraph.papers.disagg.mix import (
    LARGE_APPS,
    LARGE_APPS_JOBS,
    NORMAL_APPS,
    flag_large,
    make_mix,
    map_trace,
    window,
)
from fluxgraph.workload import Job, load_workload

LUBLIN = Path(__file__).resolve().parents[3] / "shared" / "traces" / "lublin_256.swf"


def _jobs(n=200):
    return [Job(i, 7 * i, 10 + (37 * i) % 500, 600, nodes=1 + i % 8) for i in range(1, n + 1)]


@pytest.mark.parametrize("percent", [0, 15, 25, 50, 75, 100])
def test_large_share_of_node_hours_is_at_most_x_and_within_one_percent(percent):
    jobs = _jobs()
    mix = make_mix(jobs, percent, nodes=64)
    hours = {j.id: j.nodes * j.runtime for j in jobs}
    large = sum(hours[j.id] for j in mix if j.extra["large"]) / sum(hours.values())
    assert percent / 100 - 0.01 <= large <= percent / 100  # spec amendment A.3: [X - 1%, X]
    # large means strictly above a normal node's 32 GiB (D10)
    assert all((j.extra["mem_mib"] > 32768) == j.extra["large"] for j in mix)
    assert all(j.extra["app_id"] in APPS for j in mix)


def test_mixes_share_sizes_and_runtimes_and_scale_the_load_to_1_1():
    jobs = _jobs()
    a, b = make_mix(jobs, 25, nodes=64), make_mix(jobs, 75, nodes=64)
    assert [(j.id, j.submit, j.nodes, j.runtime) for j in a] == [
        (j.id, j.submit, j.nodes, j.runtime) for j in b
    ]
    work = sum(j.nodes * j.runtime for j in a)
    span = a[-1].submit - a[0].submit
    assert a[0].submit == 0 and work / (64 * span) == pytest.approx(1.10, rel=0.01)


def test_same_seed_same_mix_other_window_other_mix():
    jobs = _jobs()
    assert [j.extra for j in make_mix(jobs, 50, 64)] == [j.extra for j in make_mix(jobs, 50, 64)]
    assert [j.extra for j in make_mix(jobs, 50, 64)] != [
        j.extra for j in make_mix(jobs, 50, 64, index=1)
    ]


def test_catalogue_weights_are_the_spec_shares_and_counts():
    # amendment A.3: per-mille node-hour shares by default, the job counts as an ablation
    assert sum(w for _, _, w in LARGE_APPS) == 1001  # (rounded shares)
    assert {(a, gb): w for a, gb, w in LARGE_APPS}[19, 49.84] == 7
    assert sum(w for _, _, w in LARGE_APPS_JOBS) == 1338
    assert {(a, gb) for a, gb, _ in LARGE_APPS} == {(a, gb) for a, gb, _ in LARGE_APPS_JOBS}
    assert sum(w for _, _, w in NORMAL_APPS) == 500
    assert all(gb > 32 for _, gb, _ in LARGE_APPS) and all(gb < 32 for _, gb, _ in NORMAL_APPS)


def test_the_job_count_catalogue_draws_mostly_hpccg_49_84():
    jobs = _jobs()
    by = {c: make_mix(jobs, 50, 64, catalogue=c) for c in ("nodehours", "jobs")}
    share = {
        c: sum(j.extra["mem_mib"] == round(49.84 * 1024) for j in mix if j.extra["large"])
        / sum(j.extra["large"] for j in mix)
        for c, mix in by.items()
    }
    assert share["jobs"] > 0.5 > 0.1 > share["nodehours"]
    # the catalogue changes the apps only: the same jobs are large
    assert [j.extra["large"] for j in by["jobs"]] == [j.extra["large"] for j in by["nodehours"]]
    with pytest.raises(WorkloadError, match="catalogue 'counts'"):
        make_mix(jobs, 50, 64, catalogue="counts")


def test_a_base_schedules_alike_under_either_catalogue():
    # why E9 compares every profile with the default A-base: its schedule depends only on
    # which jobs are large (every large app needs more than 32 GiB and fits 64 GiB)
    from fluxgraph.papers.disagg.machines import MemoryMachineSpec
    from fluxgraph.papers.disagg.sim import DisaggSimulator

    jobs = _jobs(80)
    spec = MemoryMachineSpec(16, 4)
    starts = [
        [(r.job.id, r.start, r.nodes) for r in DisaggSimulator(spec, mix, "base").run().records]
        for mix in (make_mix(jobs, 50, 16, catalogue=c) for c in ("nodehours", "jobs"))
    ]
    assert starts[0] == starts[1]


def test_flag_large_refuses_an_impossible_share():
    with pytest.raises(WorkloadError, match=r"within \[X - 1%, X\]"):
        flag_large([10, 10], 30, seed=0)


def test_windows_and_mapping():
    jobs = _jobs(30)
    assert [j.id for j in window(jobs, 1, size=10)] == list(range(11, 21))
    with pytest.raises(WorkloadError, match="window 3"):
        window(jobs, 3, size=10)
    mapped = map_trace([Job(1, 0, 5, 3, procs=65), Job(2, 0, 0, 3, procs=1)], per_node=32)
    assert [(j.nodes, j.walltime) for j in mapped] == [(3, 5)]


@pytest.mark.skipif(not LUBLIN.exists(), reason="shared traces absent")
def test_lublin_window_maps_to_1_to_128_nodes():
    jobs = map_trace(load_workload(LUBLIN), per_node=2)
    part = window(jobs, 0)
    assert len(part) == 2000 and max(j.nodes for j in jobs) == 128
    assert min(j.nodes for j in jobs) == 1
