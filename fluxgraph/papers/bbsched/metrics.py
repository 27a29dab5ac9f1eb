"""BBSched metrics (paper §4.2, §5; spec §6): usages over the measurement window, wait,
slowdown, SSD waste, Kiviat areas and per-bin waits.

Usage of a resource = ``sum_j amount_j |[start_j, end_j) ∩ M| / (capacity |M|)``: nodes (of
``N``), burst buffer as the graph grants it (whole chunks, of the chunked pool), SSD requested
``s_j n_j`` and SSD wasted ``sum_k l_jk - s_j n_j`` (of ``S_tot``; ``l_jk`` = the SSD size of
the job's node ``k``). Waits and slowdowns are over jobs submitted in ``M``; the slowdown leaves
out jobs under 60 s (the paper's "abnormal jobs", spec §9.14) and the bounded slowdown
(``tau = 10 s``) keeps every job.

>>> kiviat_areas({"a": [1, 1, 1], "b": [0, 0, 0]})
{'a': 1.0, 'b': 0.0}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from fluxgraph.papers.bbsched.machine import BBMachine
from fluxgraph.papers.bbsched.window import demand
from fluxgraph.sched.records import JobRecord
from fluxgraph.workload import Job

__all__ = [
    "BB_BINS",
    "RUNTIME_BINS",
    "SIZE_BINS",
    "bin_waits",
    "kiviat_areas",
    "offered_loads",
    "run_metrics",
]

#: Breakdown bins of spec §6 (Theta analogue): nodes, BB (GB), runtime (s); ``[lo, hi)``.
SIZE_BINS = (("1-8", 1, 9), ("9-32", 9, 33), ("33-59", 33, 60), ("60-256", 60, 1 << 30))
BB_BINS = (
    ("0", 0, 1),
    ("(0,50] TB", 1, 50_001),
    ("(50,100] TB", 50_001, 100_001),
    ("(100,200] TB", 100_001, 200_001),
    (">200 TB", 200_001, 1 << 40),
)
RUNTIME_BINS = (
    ("<1 h", 0, 3600),
    ("1-3 h", 3600, 3 * 3600),
    ("3-6 h", 3 * 3600, 6 * 3600),
    ("6-12 h", 6 * 3600, 12 * 3600),
    (">=12 h", 12 * 3600, 1 << 40),
)


def _overlap(start: int, end: int, window: tuple[int, int]) -> int:
    return max(0, min(end, window[1]) - max(start, window[0]))


def run_metrics(
    records: Sequence[JobRecord], machine: BBMachine, window: tuple[int, int]
) -> dict[str, float]:
    """The §6 metrics of one run (every job must have run)."""
    span = window[1] - window[0]
    nodes = bb = ssd_used = ssd_waste = 0.0
    waits: list[int] = []
    slowdowns: list[float] = []
    bounded: list[float] = []
    for r in records:
        if r.start < 0:
            continue
        n, b, s = demand(r.job)
        o = _overlap(r.start, r.end, window)
        if o:
            nodes += len(r.nodes) * o
            bb += machine.bb_units(b) * o
            if machine.ssd:
                ssd_used += s * n * o
                ssd_waste += (sum(machine.ssd_of(k) for k in r.nodes) - s * n) * o
        if window[0] <= r.job.submit < window[1]:
            wait = r.start - r.job.submit
            run = r.end - r.start
            waits.append(wait)
            if run >= 60:
                slowdowns.append((wait + run) / run)
            bounded.append(max(1.0, (wait + run) / max(run, 10)))
    out = {
        "node_usage": nodes / (machine.nodes * span),
        "bb_usage": bb / (max(1, machine.pool) * span),
        "avg_wait": _mean(waits),
        "avg_slowdown": _mean(slowdowns),
        "avg_bsld": _mean(bounded),
        "jobs_in_window": float(len(waits)),
    }
    if machine.ssd:
        out["ssd_usage"] = ssd_used / (machine.ssd_total * span)
        out["ssd_waste"] = ssd_waste / (machine.ssd_total * span)
    return out


def offered_loads(
    jobs: Sequence[Job], machine: BBMachine, window: tuple[int, int]
) -> dict[str, float]:
    """Offered node and BB load over ``window`` (amendment D4): ``sum amount runtime`` over the
    jobs submitted in ``window``, divided by ``capacity |M|`` (BB in whole chunks, of the pool).

    >>> from fluxgraph.papers.bbsched.machine import RECIPES
    >>> job = Job(1, 0, 50, 60, 10, 10, extra={"bb": 900})
    >>> offered_loads([job], RECIPES["bbsched-kth"], (0, 100))
    {'offered_node_load': 0.05, 'offered_bb_load': 0.0026595744680851063}
    """
    lo, hi = window
    nodes = bb = 0
    for job in jobs:
        if lo <= job.submit < hi:
            n, b, _ = demand(job)
            nodes += n * job.runtime
            bb += machine.bb_units(b) * job.runtime
    span = hi - lo
    return {
        "offered_node_load": nodes / (machine.nodes * span),
        "offered_bb_load": bb / (max(1, machine.pool) * span),
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def bin_waits(records: Sequence[JobRecord], window: tuple[int, int], by: str) -> dict[str, float]:
    """Average wait per bin (``by`` = ``size``, ``bb`` or ``runtime``) over jobs submitted in
    ``window`` (spec §6 breakdowns, Figs. 9-11)."""
    bins = {"size": SIZE_BINS, "bb": BB_BINS, "runtime": RUNTIME_BINS}[by]
    sums = {name: [0, 0] for name, _, _ in bins}
    for r in records:
        if r.start < 0 or not window[0] <= r.job.submit < window[1]:
            continue
        n, b, _ = demand(r.job)
        value = {"size": n, "bb": b, "runtime": r.job.runtime}[by]
        for name, lo, hi in bins:
            if lo <= value < hi:
                sums[name][0] += r.start - r.job.submit
                sums[name][1] += 1
    return {name: (t / c if c else math.nan) for name, (t, c) in sums.items()}


def kiviat_areas(
    axes: Mapping[str, Sequence[float]], flat: Sequence[tuple[str, float]] = ()
) -> dict[str, float]:
    """Normalised Kiviat areas (spec §6): per axis ``r = (m - min)/(max - min)`` over the
    methods (``r = 1`` when all are equal); area ``0.5 sin(2π/K) Σ r_k r_{k+1}`` divided by
    its maximum ``0.5 K sin(2π/K)``. Axes must be oriented so that larger is better.

    ``flat`` (amendment B, H3/E6) gives per axis a tolerance below which the axis is noise and
    scores ``r = 1`` for every method: ``("abs", 0.01)`` when ``max - min < 0.01`` (usages,
    1 pp), ``("rel", 0.05)`` when ``max / min - 1 < 0.05`` (inverse waits and slowdowns, 5%).

    >>> kiviat_areas({"a": [0.50, 2.0], "b": [0.505, 1.0]}, [("abs", 0.01), ("rel", 0.05)])
    {'a': 1.0, 'b': 0.0}
    """
    names = list(axes)
    k = len(next(iter(axes.values())))
    norm = {name: [0.0] * k for name in names}
    for j in range(k):
        column = [axes[name][j] for name in names]
        lo, hi = min(column), max(column)
        kind, tol = flat[j] if flat else ("abs", 0.0)
        noise = hi - lo < tol if kind == "abs" else lo > 0 and hi / lo - 1 < tol
        for name in names:
            norm[name][j] = 1.0 if hi == lo or noise else (axes[name][j] - lo) / (hi - lo)
    return {
        name: sum(r[j] * r[(j + 1) % k] for j in range(k)) / k
        for name, r in ((n, norm[n]) for n in names)
    }
