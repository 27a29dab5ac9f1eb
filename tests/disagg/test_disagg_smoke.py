"""The smoke test of spec §8 on the lublin trace (reduced by default; the spec's size is slow)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fluxgraph.papers.disagg.machines import MemoryMachineSpec, large_count
from fluxgraph.papers.disagg.metrics import run_metrics
from fluxgraph.papers.disagg.mix import make_mix, map_trace
from fluxgraph.papers.disagg.sim import DisaggSimulator
from fluxgraph.workload import load_workload

LUBLIN = Path(__file__).resolve().parents[3] / "shared" / "traces" / "lublin_256.swf"


def _smoke(jobs: int, nodes: int, per_node: int):
    trace = sorted(load_workload(LUBLIN), key=lambda j: (j.submit, j.id))[:jobs]
    mapped = map_trace(trace, per_node=per_node)
    runs = {}
    for x in (0, 50):
        mix = make_mix(mapped, x, nodes=nodes)
        for s in (0, 25, 50, 100):
            spec = MemoryMachineSpec(nodes, large_count(nodes, s))
            for kind in ("base", "dis"):
                runs[s, x, kind] = DisaggSimulator(spec, mix, kind).run()
    return runs


def _check(runs, jobs):
    def starts(key):
        return [(r.start, r.nodes) for r in runs[key].records]

    # R0: the local pass succeeds whenever anything can
    for s in (0, 25, 50, 100):
        assert starts((s, 0, "base")) == starts((s, 0, "dis"))
    assert starts((100, 50, "base")) == starts((100, 50, "dis"))
    # A-base rejects every large job at S = 0 (the N/A cells), A-dis runs them all
    base0 = runs[0, 50, "base"].records
    assert all((r.rejected != "") == r.job.extra["large"] for r in base0)
    assert any(r.job.extra["large"] for r in base0)
    assert sum(r.completed for r in runs[0, 50, "dis"].records) == jobs
    # under-provisioned: lending raises throughput
    ref = run_metrics(runs[100, 50, "base"])["throughput"]
    nt = {k: run_metrics(runs[k])["throughput"] / ref for k in ((25, 50, "base"), (25, 50, "dis"))}
    assert nt[25, 50, "dis"] > nt[25, 50, "base"]


@pytest.mark.skipif(not LUBLIN.exists(), reason="shared traces absent")
def test_smoke_reduced():
    # 16 nodes, the first 60 jobs at 1..4 nodes: the spec's checks at a fifth of its size
    _check(_smoke(60, 16, 64), 60)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")
@pytest.mark.skipif(not LUBLIN.exists(), reason="shared traces absent")
def test_smoke_spec_size():
    # spec §8: 64 nodes, the first 300 jobs at 1..8 nodes (minutes of CPU; opt-in)
    _check(_smoke(300, 64, 32), 300)
