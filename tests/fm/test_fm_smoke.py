"""Smoke S1 of FM spec §8 on the Perlmutter trace (skips without ``../shared``), both halves.

S1's pass conditions were set for the former rules (textbook EASY, warm-up until every warm-up
job started: ``rules=easy``, ``warmup_switch=started``), so it runs under those, named; the
default rules (the public simulator's) are checked by the C10 runs of the study.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.papers.fm.machine import perlmutter_like
from fluxgraph.papers.fm.metrics import fm_metrics, run_fairness
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.workload import map_trace, read_trace

TRACE = Path(__file__).resolve().parents[3] / "shared" / "traces" / "perlmutter-fm-jobs.csv"
pytestmark = pytest.mark.skipif(not TRACE.exists(), reason="needs ../shared/traces")
WARMUP = 200
FORMER = {"rules": "easy", "warmup_switch": "started"}


@pytest.fixture(scope="module")
def jobs():
    return map_trace(read_trace(TRACE))[:1000]


def _runs(jobs, pool, priorities):
    machine = perlmutter_like(pool)
    return {p: run_fm(jobs, machine, "rack", p, warmup=WARMUP, **FORMER) for p in priorities}


def test_s1_ample_pools(jobs):
    runs = _runs(jobs, 48, ("fcfs", "fm"))
    for run in runs.values():
        m = fm_metrics(run)
        assert m.rejected == 0
        assert m.bsld <= 1.20 and m.bsld_code <= 1.05
    again = run_fm(jobs, perlmutter_like(48), "rack", "fm", warmup=WARMUP, **FORMER)
    assert [(r.start, r.end, r.nodes) for r in again.result.jobs] == [
        (r.start, r.end, r.nodes) for r in runs["fm"].result.jobs
    ]


def test_s1_limited_pools(jobs):
    names = ("fcfs", "sjf", "fair", "fm")
    runs = _runs(jobs, 4, names)
    reference = run_fm(jobs, perlmutter_like(4), "rack", reference=True, warmup=WARMUP, **FORMER)
    m = {p: fm_metrics(r) for p, r in runs.items()}
    md = {p: run_fairness(r, reference)["MD"] for p, r in runs.items()}
    assert all(x.rejected == 4 for x in m.values())
    assert m["fm"].bsld <= 0.8 * m["fcfs"].bsld
    assert m["fm"].bsld <= 1.05 * min(m["sjf"].bsld, m["fair"].bsld)
    assert m["fm"].wait == min(x.wait for x in m.values())
    assert md["fm"] == min(md.values()) and md["fm"] < 0
    for p in ("sjf", "fair"):
        for run in _runs(jobs, 48, (p,)).values():
            x = fm_metrics(run)
            assert x.rejected == 0 and x.bsld <= 1.20 and x.bsld_code <= 1.05
