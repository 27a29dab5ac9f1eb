"""Metrics of an I/O run (spec §6): makespan, improvement, steady-state concurrency and
throughput, idle node-seconds by half, and the 10 s time series of the paper's figures.

Concurrency counts a job from its start to its end (the node it holds), throughput is the
file-system model's delivered rate. "Steady state" is the time-weighted median over the parts
of ``[0, 0.8*M]`` where at least one job of the type runs.

>>> steps = [(0, 2.0), (10, 4.0), (40, 0.0)]
>>> time_weighted_median(steps, [(0, 40)])   # 4.0 for 30 s of 40
4.0
"""

from __future__ import annotations

from collections.abc import Sequence

from fluxgraph.sched.records import JobRecord

__all__ = [
    "concurrency",
    "idle_node_seconds",
    "improvement",
    "sample",
    "steady_state",
    "time_weighted_median",
]

#: A step function: ``(from time, value)`` in time order; the last value lasts forever.
Steps = list[tuple[float, float]]


def improvement(makespan: float, baseline: float) -> float:
    """``I(X|Y) = 1 - M_X/M_Y`` in percent.

    >>> improvement(75, 100)
    25.0
    """
    return 100.0 * (1.0 - makespan / baseline) if baseline else 0.0


def concurrency(records: Sequence[JobRecord], kind: str | None = None) -> Steps:
    """Running jobs (of ``kind``, or all) over time as steps."""
    deltas: dict[float, int] = {}
    for r in records:
        if r.completed and (kind is None or r.job.extra.get("kind") == kind):
            deltas[r.start] = deltas.get(r.start, 0) + 1
            deltas[r.end] = deltas.get(r.end, 0) - 1
    out: Steps = [(0.0, 0.0)]
    level = 0
    for t in sorted(deltas):
        level += deltas[t]
        if t == out[-1][0]:
            out[-1] = (t, float(level))
        else:
            out.append((t, float(level)))
    return out


def _pieces(steps: Steps, t0: float, t1: float):
    """``(from, to, value)`` of ``steps`` clipped to ``[t0, t1)``."""
    for i, (begin, value) in enumerate(steps):
        end = steps[i + 1][0] if i + 1 < len(steps) else t1
        lo, hi = max(begin, t0), min(end, t1)
        if hi > lo:
            yield lo, hi, value


def time_weighted_median(steps: Steps, windows: Sequence[tuple[float, float]]) -> float:
    """The median of ``steps`` weighted by time, over the union of ``windows`` (0 if empty)."""
    weights: dict[float, float] = {}
    for t0, t1 in windows:
        for lo, hi, value in _pieces(steps, t0, t1):
            weights[value] = weights.get(value, 0.0) + hi - lo
    total = sum(weights.values())
    acc = 0.0
    for value in sorted(weights):
        acc += weights[value]
        if acc >= total / 2:
            return value
    return 0.0


def steady_state(
    records: Sequence[JobRecord], throughput: Steps, kind: str, makespan: float
) -> tuple[float, float]:
    """``(concurrency, throughput)``: time-weighted medians over the parts of
    ``[0, 0.8*makespan]`` where a job of ``kind`` runs (spec §6)."""
    running = concurrency(records, kind)
    windows = [(lo, hi) for lo, hi, v in _pieces(running, 0.0, 0.8 * makespan) if v >= 1]
    return time_weighted_median(running, windows), time_weighted_median(throughput, windows)


def idle_node_seconds(
    records: Sequence[JobRecord], nodes: int, makespan: float
) -> tuple[float, float]:
    """Idle node-seconds ``integral of (N - busy)`` over the first and second halves of
    ``[0, makespan]``."""
    busy = concurrency(records)
    half = makespan / 2
    out = []
    for t0, t1 in ((0.0, half), (half, makespan)):
        used = sum((hi - lo) * v for lo, hi, v in _pieces(busy, t0, t1))
        out.append(nodes * (t1 - t0) - used)
    return out[0], out[1]


def sample(steps: Steps, end: float, every: float = 10.0) -> tuple[list[float], list[float]]:
    """``steps`` averaged over consecutive ``every``-second bins up to ``end``: (bin ends,
    means)."""
    times, values = [], []
    t = 0.0
    while t < end:
        hi = min(t + every, end)
        area = sum((b - a) * v for a, b, v in _pieces(steps, t, hi))
        times.append(hi)
        values.append(area / (hi - t))
        t = hi
    return times, values
