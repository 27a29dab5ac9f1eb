"""Spec §9 D8, the latency class of a job's remote memory: ``latency_scope``.

``job`` (the default): ``sld = (1 - f_cross) S180[j] + f_cross S280[j]`` by the job's
cross-rack share (§5 step 3). ``experiment`` (§III-A3 literally): every job of a system-scope
run pays the inter-rack latency, ``sld = S280[j]``, wherever its chunks are; a rack-scope run
the intra-rack one. Worked by hand below with exact fractions (``u = 0.95``: rank 10,
S180 = 1.67, S280 = 3.19).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.machine import FmMachineSpec
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.slowdown import SlowdownModel
from fluxgraph.papers.fm.workload import map_trace, synthetic_trace
from fluxgraph.workload import Job

S180_10, S280_10 = Fraction("1.67"), Fraction("3.19")


def _job(jobid: int, procs: int, memory: int, d: int, u: float = 0.95) -> Job:
    return Job(jobid, 0, d, d, procs=procs, memory=memory, extra={"d": d, "u": u})


def _stretch(d: int, memory: int, sld: Fraction) -> int:
    """``ceil(d (1 + sld k / M))`` with ``L = 64``, in exact arithmetic."""
    return math.ceil(d * (1 + sld * Fraction(memory - 64, memory)))


def test_one_job_with_its_chunk_in_its_own_rack():
    """The spec's §5 example (d = 1,000, M = 256) alone on a system-scope machine: its chunk
    is local (f_cross = 0), so ``job`` charges 180 ns and ``experiment`` 280 ns."""
    machine = FmMachineSpec(2, 2, pool_tb=1)
    want = {"job": _stretch(1000, 256, S180_10), "experiment": _stretch(1000, 256, S280_10)}
    assert want == {"job": 2253, "experiment": 3393}
    for latency, d in want.items():
        run = run_fm([_job(0, 1, 256, 1000)], machine, "system", "fm", warmup=0,
                     latency_scope=latency)  # fmt: skip
        record = run.result.jobs[0]
        assert run.stretched[0][:2] == (d, 0.0)
        assert record.end - record.start == d


def test_half_cross_rack_job():
    """2 racks x 2 nodes, one 1,024 GB memnode each. Job 0 (two nodes, no remote memory) takes
    rack 0; job 1 (two nodes of 664 GB: 600 GB chunks) gets rack 1's nodes 2 and 3, node 2's
    chunk from its own pool (424 GB left), node 3's from rack 0's: f_cross = 1/2."""
    jobs = [_job(0, 2, 32, 5000), _job(1, 2, 664, 1000)]
    mixed = _stretch(1000, 664, (S180_10 + S280_10) / 2)
    literal = _stretch(1000, 664, S280_10)
    assert (mixed, literal) == (3196, 3883)
    for latency, d in (("job", mixed), ("experiment", literal)):
        run = run_fm(jobs, FmMachineSpec(2, 2, pool_tb=1), "system", "fcfs", warmup=0,
                     latency_scope=latency)  # fmt: skip
        duration, f_cross, chunks = run.stretched[1]
        assert (duration, f_cross) == (d, 0.5)
        assert sorted((g, m) for g, m, _ in chunks) == [(2, 1), (3, 0)]
        record = run.result.jobs[1]
        assert (record.start, record.end) == (0, d)
        assert record.job.walltime == literal  # the longest d' either way: all cross-rack


def test_rack_scope_is_the_same_under_both_readings():
    jobs = map_trace(synthetic_trace(120, seed=5))
    runs = [
        run_fm(jobs, FmMachineSpec(2, 32, pool_tb=2), "rack", "fm", warmup=30, latency_scope=s)
        for s in ("job", "experiment")
    ]
    a, b = ([(r.job.id, r.start, r.end, r.nodes) for r in run.result.jobs] for run in runs)
    assert a == b
    assert runs[0].stretched == runs[1].stretched


def test_the_default_is_per_job_and_bad_values_are_refused():
    assert SlowdownModel().latency_scope == "job"
    with pytest.raises(SimulationError, match="latency scope 'rack'"):
        SlowdownModel("paper", "rack")
