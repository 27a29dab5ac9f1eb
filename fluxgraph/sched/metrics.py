"""Run-level metrics of a :class:`~fluxgraph.sched.records.SimulationResult`.

Per-job quantities come from :class:`~fluxgraph.sched.records.JobRecord`; this module
aggregates them: makespan, throughput, mean/median/p95 wait and bounded slowdown,
time-weighted node and core utilisation, queue length, rejected jobs. ``exclude`` drops the
first and last fractions of the jobs (by submission order) from the per-job statistics, the
usual warm-up/cool-down rule; utilisation always covers the whole run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fluxgraph.sched.records import JobRecord, SimulationResult

__all__ = ["format_number", "percentile", "summarize", "utilisation"]


def format_number(value: float) -> str:
    """A metric as a reader expects it: whole numbers bare, no thousands separator, one
    decimal from 100 on, three below, four significant digits for the very small or large.

    >>> [format_number(v) for v in (9159.5, 3140.0, 64.8551, 0.00012, 2.5e7 + 0.5)]
    ['9159.5', '3140', '64.855', '0.00012', '2.5e+07']
    """
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    if abs(value) < 1e-3 or abs(value) >= 1e6:
        return f"{value:.4g}"
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3f}"


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation (numpy's default).

    >>> percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4], 95), percentile([], 50)
    (2.5, 3.85, 0.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def utilisation(
    records: Sequence[JobRecord], units: int, per_job: str, window: tuple[int, int]
) -> float:
    """Time-weighted share of ``units`` busy over ``window`` (``per_job``: ``nodes``/``cores``).

    >>> from fluxgraph.workload import Job
    >>> r = [JobRecord(Job(1, 0, 10, 10), start=0, end=10, nodes=(0,), cores=1)]
    >>> utilisation(r, 2, "nodes", (0, 10))
    0.5
    """
    t0, t1 = window
    if t1 <= t0 or units <= 0:
        return 0.0
    busy = 0
    for r in records:
        if r.completed:
            used = len(r.nodes) if per_job == "nodes" else r.cores
            busy += used * (min(r.end, t1) - max(r.start, t0))
    return busy / (units * (t1 - t0))


def summarize(result: SimulationResult, exclude: float = 0.0) -> dict[str, float | int]:
    """Run-level metrics (see the module docstring); ``exclude`` in ``[0, 0.5)``.

    Raises
    ------
    ValueError
        If ``exclude`` is outside ``[0, 0.5)``.
    """
    if not 0 <= exclude < 0.5:
        raise ValueError(f"exclude must be in [0, 0.5), got {exclude}")
    jobs = result.jobs
    done = [r for r in jobs if r.completed]
    cut = int(len(jobs) * exclude)
    kept = [r for r in jobs[cut : len(jobs) - cut] if r.completed]
    first = min((r.job.submit for r in jobs), default=0)
    last = max((r.end for r in done), default=first)
    window = (first, last)
    makespan = last - first
    waits = [r.wait for r in kept]
    bslds = [r.bounded_slowdown for r in kept]
    lengths = [n for _, n in result.queue_length]
    return {
        "jobs": len(jobs),
        "completed": len(done),
        "rejected": sum(r.rejected for r in jobs),
        "killed": sum(r.killed for r in done),
        "makespan": makespan,
        "throughput_per_hour": len(done) * 3600 / makespan if makespan else 0.0,
        "mean_wait": _mean(waits),
        "median_wait": percentile(waits, 50),
        "p95_wait": percentile(waits, 95),
        "max_wait": max(waits, default=0),
        "mean_turnaround": _mean([r.turnaround for r in kept]),
        "mean_bsld": _mean(bslds),
        "median_bsld": percentile(bslds, 50),
        "p95_bsld": percentile(bslds, 95),
        "node_utilisation": utilisation(done, result.total_nodes, "nodes", window),
        "core_utilisation": utilisation(done, result.total_cores, "cores", window),
        "mean_queue_length": _queue_mean(result.queue_length, last),
        "max_queue_length": max(lengths, default=0),
    }


def _queue_mean(series: Sequence[tuple[int, int]], end: int) -> float:
    """Time-weighted mean of a step series ``(time, value)`` up to ``end``."""
    if not series or end <= series[0][0]:
        return 0.0
    total = 0
    for (t, n), (t2, _) in zip(series, [*series[1:], (end, 0)], strict=True):
        total += n * (max(min(t2, end), t) - t)
    return total / (end - series[0][0])
