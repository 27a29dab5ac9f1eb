"""The metrics of FM spec §6 (X1) for one run, fairness against the reference run (§6.4).

Evaluation set E: non-rejected jobs outside the run's warm-up ids that end by ``t_end``, the
latest start of the run (cool-down cut, §9 D13); window W = ``[t_switch, t_end]`` (§9 D14,
``t_switch`` by the run's ``warmup_switch``). Rejected jobs (A6, and under ``admission=common``
those left out before the run) are counted with their share of the trace's node-seconds and of
its pool demand (``n max(0, M - 64) d``, spec §3.2).

>>> fairness([100, 50, 0, 30], [40, 80, 0, 30], x=50)   # spec §6.4 example
{'B': 60, 'D': 30, 'MD': -30, 'B_x': 60, 'D_x': 30, 'MD_x': -30}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.run import FmRun
from fluxgraph.sched.records import JobRecord

__all__ = [
    "DOLLARS_PER_GB",
    "POOL_LOCAL_GB",
    "TAU",
    "FmMetrics",
    "evaluated",
    "fairness",
    "fm_metrics",
    "rejected_shares",
    "run_fairness",
    "savings",
]

#: Bounded-slowdown threshold (scaled seconds) and memory price (§IV-C).
TAU = 10
DOLLARS_PER_GB = 4.9
#: Local memory of the disaggregated machines: a job's pool demand is over this (spec §3.2).
POOL_LOCAL_GB = 64


@dataclass(frozen=True)
class FmMetrics:
    """Run-level values of spec §6.2 (time in scaled seconds, throughput per 100 s)."""

    jobs: int
    rejected: int
    rejected_node_share: float
    rejected_pool_share: float
    t_switch: int
    t_end: int
    bsld: float
    bsld_code: float
    wait: float
    max_wait: int
    throughput: float
    node_utilisation: float
    memory_utilisation: float
    memory_histogram: tuple[float, ...]
    degradation: float
    deg_below_5: float
    deg_at_least_150: float
    degradation_histogram: tuple[float, ...]
    total_gb: int
    thr_per_dollar: float


def evaluated(run: FmRun) -> list[JobRecord]:
    """The evaluation set E of ``run`` (spec §6.1): not a warm-up job, ended by ``t_end``."""
    started = [r for r in run.result.jobs if not r.rejected]
    if not started:
        return []
    t_end = max(r.start for r in started)
    warmup = run.warmup
    return [r for r in started if r.job.id not in warmup and r.end <= t_end]


def rejected_shares(run: FmRun) -> tuple[float, float]:
    """The rejected jobs' shares of the trace's node-seconds and of its pool demand."""
    jobs = [r.job for r in run.result.jobs] + list(run.excluded)
    out = {r.job.id for r in run.result.jobs if r.rejected} | {j.id for j in run.excluded}
    shares = []
    for weight in (
        lambda j: j.procs * j.extra.get("d", j.runtime),
        lambda j: j.procs * max(0, int(j.memory) - POOL_LOCAL_GB) * j.extra.get("d", j.runtime),
    ):
        total = sum(map(weight, jobs))
        gone = sum(weight(j) for j in jobs if j.id in out)
        shares.append(gone / total if total else 0.0)
    return shares[0], shares[1]


def _bsld(rec: JobRecord, denominator: int) -> float:
    return max((rec.end - rec.job.submit) / max(denominator, TAU), 1.0)


def fm_metrics(run: FmRun) -> FmMetrics:
    """Spec §6.2 for ``run``."""
    records = run.result.jobs
    started = [r for r in records if not r.rejected]
    if not started:
        raise SimulationError("FM metrics: no job started")
    t_end = max(r.start for r in started)
    t_switch = run.t_switch if run.t_switch is not None else 0
    span = t_end - t_switch
    ev = evaluated(run)
    if not ev or span <= 0:
        raise SimulationError(
            f"FM metrics: empty evaluation window (|E| = {len(ev)}, t_switch {t_switch}, "
            f"t_end {t_end})"
        )
    spec = run.machine
    degs = [(r.end - r.start) / r.job.extra["d"] - 1 for r in ev]
    busy = sum(r.job.procs * max(0, min(r.end, t_end) - max(r.start, t_switch)) for r in started)
    mean_mem, hist = _memory_use(started, t_switch, t_end, spec.total_gb)
    throughput = len(ev) / span * 100
    node_share, pool_share = rejected_shares(run)
    return FmMetrics(
        jobs=len(ev),
        rejected=len(records) - len(started) + len(run.excluded),
        rejected_node_share=node_share,
        rejected_pool_share=pool_share,
        t_switch=t_switch,
        t_end=t_end,
        bsld=sum(_bsld(r, r.job.extra["d"]) for r in ev) / len(ev),
        bsld_code=sum(_bsld(r, r.end - r.start) for r in ev) / len(ev),
        wait=sum(r.start - r.job.submit for r in ev) / len(ev),
        max_wait=max(r.start - r.job.submit for r in ev),
        throughput=throughput,
        node_utilisation=busy / (span * spec.nodes),
        memory_utilisation=mean_mem,
        memory_histogram=hist,
        degradation=sum(degs) / len(degs),
        deg_below_5=sum(d < 0.05 for d in degs) / len(degs),
        deg_at_least_150=sum(d >= 1.5 for d in degs) / len(degs),
        degradation_histogram=_histogram(degs, 0.05),
        total_gb=spec.total_gb,
        thr_per_dollar=throughput / (DOLLARS_PER_GB * spec.total_gb),
    )


def _histogram(values: Sequence[float], width: float) -> tuple[float, ...]:
    if not values:
        return ()
    bins = [0] * (int(max(values) / width) + 1)
    for v in values:
        bins[int(v / width)] += 1
    return tuple(b / len(values) for b in bins)


def _memory_use(
    started: Sequence[JobRecord], lo: int, hi: int, capacity: int
) -> tuple[float, tuple[float, ...]]:
    """Time-weighted mean of U(t) over ``[lo, hi]`` and its histogram in 10% bins (§6.2)."""
    changes: dict[int, int] = {}
    for r in started:
        gb = r.job.procs * int(r.job.memory)
        changes[r.start] = changes.get(r.start, 0) + gb
        changes[r.end] = changes.get(r.end, 0) - gb
    level, area = 0, 0.0
    bins = [0.0] * 11
    times = sorted(changes)
    for t, nxt in zip(times, [*times[1:], hi], strict=True):
        level += changes[t]
        a, b = max(t, lo), min(nxt, hi)
        if b > a:
            u = level / capacity
            area += u * (b - a)
            bins[min(10, int(u * 10))] += b - a
    width = hi - lo
    return area / width, tuple(b / width for b in bins)


def fairness(reference: Sequence[int], evaluated_waits: Sequence[int], x: float = 10) -> dict:
    """B, D, MD and the x% versions from per-job waits of the reference and evaluated runs."""
    b = [r - e for r, e in zip(reference, evaluated_waits, strict=True)]
    count = math.ceil(x / 100 * len(b))
    neg = sorted(v for v in b if v < 0)[:count]
    pos = sorted((v for v in b if v > 0), reverse=True)[:count]
    big_b, big_d = sum(v for v in b if v > 0), -sum(v for v in b if v < 0)
    d_x, b_x = -sum(neg), sum(pos)
    return {"B": big_b, "D": big_d, "MD": big_d - big_b, "B_x": b_x, "D_x": d_x, "MD_x": d_x - b_x}


def run_fairness(run: FmRun, reference: FmRun, x: float = 10) -> dict:
    """:func:`fairness` over E of ``run`` against the reference run's waits (§6.4)."""
    ref = {r.job.id: r.start - r.job.submit for r in reference.result.jobs if not r.rejected}
    ev = evaluated(run)
    return fairness([ref[r.job.id] for r in ev], [r.start - r.job.submit for r in ev], x)


def savings(spec_total_gb: int, baseline_total_gb: int) -> tuple[float, float]:
    """Memory saved as a fraction and in dollars (§IV-C).

    >>> from fluxgraph.papers.fm.machine import perlmutter_like, FmMachineSpec
    >>> frac, dollars = savings(perlmutter_like(28).total_gb, FmMachineSpec(6, 256, 512).total_gb)
    >>> round(frac, 2), round(dollars / 1e6, 2)
    (0.66, 2.53)
    """
    return 1 - spec_total_gb / baseline_total_gb, (
        baseline_total_gb - spec_total_gb
    ) * DOLLARS_PER_GB
