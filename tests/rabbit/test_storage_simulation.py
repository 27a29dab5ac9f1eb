"""The EASY storage simulation: an exact worked example and the spec §8 smoke run (c)."""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path

import pytest

from fluxgraph.machines import load_machine
from fluxgraph.papers.rabbit import REASONS, StorageRequest, elcap
from fluxgraph.papers.rabbit.placer import RabbitPlacer
from fluxgraph.papers.rabbit.sim import simulate
from fluxgraph.papers.rabbit.simulate import storage_metrics
from fluxgraph.papers.rabbit.workload import StorageJob, storage_jobs, without_storage
from fluxgraph.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
LUBLIN = ROOT.parent / "shared" / "traces" / "lublin_256.swf"
_SLOW = pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")


def test_easy_backfilling_worked_example():
    """J1 holds chassis 0-1; J2 (8 nodes) is reserved at 100; J3 backfills on chassis 2 (3
    nodes: its rabbit has 3 namespaces) and ends before 100; J4 (2 nodes) does not fit beside
    J3 but starts at 52 on chassis 2, beside J2's reserved nodes."""
    placer = RabbitPlacer(load_machine(ROOT / "grug_recipes" / "elcap-tiny.graphml"))
    jobs = [
        StorageJob(1, 0, 100, StorageRequest(8, 100)),
        StorageJob(2, 1, 100, StorageRequest(8, 100)),
        StorageJob(3, 2, 50, StorageRequest(3, 50, (100,))),
        StorageJob(4, 3, 200, StorageRequest(2, 200)),
    ]
    out = simulate(placer, jobs)
    assert [(o.id, o.start, o.end) for o in out] == [
        (1, 0, 100),
        (2, 100, 200),
        (3, 2, 52),
        (4, 52, 252),
    ]
    assert out[1].placement.nodes == tuple(range(8)) and out[3].placement.nodes == (8, 9)
    assert out[2].placement.node_local == {2: (3, 3, 3)}
    assert not placer.jobs  # everything released at the end


def test_unsatisfiable_jobs_are_rejected_at_submission_with_a_reason():
    placer = RabbitPlacer(load_machine(ROOT / "grug_recipes" / "elcap-tiny.graphml"))
    jobs = [
        StorageJob(1, 0, 10, StorageRequest(13, 10)),
        StorageJob(2, 0, 10, StorageRequest(12, 10, (101,))),
        StorageJob(3, 0, 10, StorageRequest(2, 10)),
    ]
    out = simulate(placer, jobs)
    assert [(o.id, o.start, o.reason) for o in out] == [
        (1, -1, "nodes"),
        (2, -1, "ssd capacity"),
        (3, 0, ""),
    ]


def check_run(placer: RabbitPlacer, jobs: list[StorageJob]):
    """Run ``jobs``; assert the spec §6 invariants over the whole run; the outcomes."""
    out = simulate(placer, jobs)
    g = placer.graph
    held: dict[int, list[tuple[int, int]]] = {}
    for o in out:
        assert o.start >= o.submit or (o.start == -1 and o.reason in REASONS)
        if o.start < 0:
            continue
        assert o.end - o.start == o.job.runtime <= o.job.request.walltime
        assert len(o.placement.nodes) == o.job.request.nodes
        for ph in o.placement.phases:
            for v in ph.vertices:
                if g.types[v] in ("node", "ssd", "nvme_ns", "mgt_ip"):
                    held.setdefault(v, []).append((o.start, o.end))
    for v, windows in held.items():
        for (_, end), (start, _) in pairwise(sorted(windows)):
            assert end <= start, f"{g.types[v]} {v} held twice"
    assert not placer.jobs
    return out


def _smoke(limit: int):
    if not LUBLIN.exists():
        pytest.skip("../shared/traces/lublin_256.swf is absent")
    trace = load_workload(LUBLIN, limit=limit)
    jobs = storage_jobs(trace, seed=1, persistent=2)
    runs = {}
    for compute, lustre in (("pack", "own-first"), ("spread", "own-first"), ("pack", "any")):
        placer = RabbitPlacer(elcap(chassis=16, cores=(1, 96), gpus=0), compute, lustre)
        runs[compute, lustre] = storage_metrics(check_run(placer, jobs), placer)
    base = RabbitPlacer(elcap(chassis=16, cores=(1, 96), gpus=0))
    check_run(base, without_storage(jobs))
    return runs


def test_lublin_smoke_invariants():
    """Spec §8 smoke (c), shortened to the first 40 jobs for the default run."""
    runs = _smoke(40)
    assert all(m["jobs"] == 42 for m in runs.values())


@pytest.mark.slow
@_SLOW
def test_lublin_300_jobs_invariants_and_orderings():
    """Spec §8 smoke (c): 300 Lublin jobs with synthetic storage on elcap(chassis=16)."""
    runs = _smoke(300)
    own, spread, any_ = runs["pack", "own-first"], runs["spread", "own-first"], runs["pack", "any"]
    assert own["OST GiB on own chassis"] > any_["OST GiB on own chassis"]
    assert spread["chassis per node-local job"] > own["chassis per node-local job"]
