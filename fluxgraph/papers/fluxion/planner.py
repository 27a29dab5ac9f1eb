"""Study ``planner``: Fluxion paper §6.2 (Fig. 7b), planner query time against its load.

One planner of 128 units is pre-populated with N spans (amount uniform 1..128, duration uniform
1..43200 s, each placed at its earliest fit at or after a random time in ``[0, horizon]``:
conservative backfilling). Then three query kinds are timed one call at a time at random times,
amounts cycling 1, 2, 4, ..., 128: SatAt ``avail_during(t, 1, r)``, SatDuring
``avail_during(t, d, r)`` with ``d`` uniform 1..43200, EarliestAt ``avail_time_first(t, 1, r)``.
Each query set runs once to warm up, then ``repeat`` times; the repeat with the lowest median
counts (the machine may be shared). ``benchmarks/planner_bench.py`` measures the same way.

The paper's Fig. 7b gives no numbers in its text, only the claim that the trends are
logarithmic; the reference figures are the C++ planner's, measured on this machine class
(the project's targets).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.report import line_plot
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion, StudyReport, parameters_text
from fluxgraph.planner import INT64_MAX, Planner

__all__ = ["KIND", "KINDS", "NAME", "TITLE", "YAML", "analyse", "build", "measure", "queries"]

NAME = "planner"
TITLE = "Fluxion §6.2: planner query time against pre-populated spans"
YAML = "planner.yaml"
TOTAL = 128
MAX_DURATION = 43200
AMOUNTS = [1 << k for k in range(8)]
KINDS = ("SatAt", "SatDuring", "EarliestAt")
#: EarliestAt median ms of the reference C++ planner at random times (the project's targets).
REFERENCE_EARLIEST_MS = {10_000: 0.1, 100_000: 4.1}
#: The C++ planner's point queries (SatAt, SatDuring) take 0.1-1.4 us (the project's targets).
REFERENCE_POINT_US = 1.4
#: Largest power-law exponent of median query time in N still called logarithmic.
LOG_EXPONENT = 0.25


def build(n: int, rng: random.Random) -> tuple[Planner, int, float, float]:
    """A planner with ``n`` spans placed by earliest fit: (planner, horizon, wall s, CPU s)."""
    p = Planner(0, INT64_MAX, TOTAL, "core")
    first = p.avail_time_first
    add = p.add_span
    randint = rng.randint
    horizon = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    for _ in range(n):
        r = randint(1, TOTAL)
        d = randint(1, MAX_DURATION)
        t = first(randint(0, horizon), d, r)
        add(t, d, r)
        if t + d > horizon:
            horizon = t + d
    return p, horizon, time.perf_counter() - t0, time.process_time() - c0


def queries(kind: str, count: int, horizon: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """Argument tuples ``(t, d, r)`` of ``count`` queries of ``kind``."""
    out = []
    for i in range(count):
        t = rng.randint(0, horizon)
        r = AMOUNTS[i % len(AMOUNTS)]
        d = rng.randint(1, MAX_DURATION) if kind == "SatDuring" else 1
        out.append((t, d, r))
    return out


def time_each(fn: Callable[..., Any], calls: Iterable[tuple]) -> list[float]:
    """Seconds taken by each ``fn(*args)`` for ``args`` in ``calls`` (timed one by one)."""
    clock = time.perf_counter
    out = []
    append = out.append
    for args in calls:
        t0 = clock()
        fn(*args)
        append(clock() - t0)
    return out


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linear interpolation."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def measure(spans: int, count: int = 2000, repeat: int = 3, seed: int = 0) -> dict[str, float]:
    """Build ``spans`` spans, time each query kind; ``KIND.median_us``/``KIND.p90_us`` and
    ``build_s``/``build_cpu_s``."""
    rng = random.Random(seed)
    p, horizon, wall, cpu = build(spans, rng)
    out = {"build_s": wall, "build_cpu_s": cpu}
    for kind in KINDS:
        fn = p.avail_time_first if kind == "EarliestAt" else p.avail_during
        calls = queries(kind, count, horizon, rng)
        time_each(fn, calls)  # warm-up
        best = min((time_each(fn, calls) for _ in range(repeat)), key=statistics.median)
        out[f"{kind}.median_us"] = statistics.median(best) * 1e6
        out[f"{kind}.p90_us"] = percentile(best, 90) * 1e6
    return out


def _run(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    return measure(
        params["spans"], params.get("queries", 2000), params.get("repeat", 3), params.get("seed", 0)
    )


KIND = Kind(
    "planner",
    _run,
    {
        "spans": {"type": "integer", "minimum": 1, "maximum": 10_000_000},
        "queries": {"type": "integer", "minimum": 1},
        "repeat": {"type": "integer", "minimum": 1},
        "seed": {"type": "integer"},
    },
    required=("spans",),
)


# -- analysis ---------------------------------------------------------------------------------


def results(rows: list[CellRow]) -> list[list[Any]]:
    """The long rows of ``results.csv`` (scheduler = planner; query kind in the parameters)."""
    out = []
    for r in rows:
        params = parameters_text(r.params)
        for metric, value in sorted(r.metrics.items()):
            kind, dot, name = metric.partition(".")
            if dot:
                out.append([NAME, "planner", f"{params};query={kind}", name, value])
            else:
                out.append([NAME, "planner", params, metric, value])
    return out


def _series(rows: list[CellRow], metric: str) -> dict[int, float]:
    """spans -> the metric (best, i.e. lowest, over seeds)."""
    out: dict[int, float] = {}
    for r in rows:
        value = r.metrics.get(metric)
        if value is not None:
            n = r.params["spans"]
            out[n] = min(value, out.get(n, math.inf))
    return dict(sorted(out.items()))


def exponent(points: dict[int, float]) -> float:
    """Least-squares slope of log(value) against log(N): the power-law exponent."""
    xs = [math.log(n) for n in points]
    ys = [math.log(max(v, 1e-12)) for v in points.values()]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


@dataclass(frozen=True)
class _Grid:
    """The cells, each query kind's best median as ``kind -> spans -> us``, and the span
    counts in the grid."""

    rows: list[CellRow]
    med: dict[str, dict[int, float]]
    sizes: list[int]


def _p1_logarithmic(g: _Grid) -> Criterion:
    """P1: every query kind's median grows logarithmically in the spans (Fig. 7b)."""
    ours, checks = [], []
    for kind in KINDS:
        if len(g.med[kind]) >= 3:
            b = exponent(g.med[kind])
            checks.append(b < LOG_EXPONENT)
            ours.append(f"{kind} {b:.3f}")
        else:
            checks.append(None)
    return Criterion(
        "P1",
        "query time trends are logarithmic in the spans (Fig. 7b)",
        "exponent " + ", ".join(ours) if ours else "fewer than 3 sizes",
        f"fitted exponent b of median ∝ N^b < {LOG_EXPONENT} for every kind (a linear scan "
        "gives 1, log N about 0.1)",
        None if None in checks else all(checks),
    )


def _p2_sublinear(g: _Grid) -> Criterion:
    """P2: growth over the measured range stays far below linear (below the square root)."""
    ours, checks = [], []
    if len(g.sizes) >= 2:
        lo, hi = g.sizes[0], g.sizes[-1]
        bound = math.sqrt(hi / lo)
        for kind in KINDS:
            growth = g.med[kind][hi] / g.med[kind][lo]
            checks.append(growth < bound)
            ours.append(f"{kind} {growth:.2f}x")
        rule = f"median({hi:,}) / median({lo:,}) < √({hi:,}/{lo:,}) = {bound:.1f}, every kind"
    else:
        rule = "needs two sizes"
    return Criterion(
        "P2",
        "sub-linear growth",
        ", ".join(ours) or "-",
        rule,
        all(checks) if checks else None,
    )


def _p3_earliest_reference(g: _Grid) -> Criterion:
    """P3: EarliestAt is no slower than the C++ planner at 10K and 100K spans."""
    ours, checks, refs = [], [], []
    for n, ref_ms in REFERENCE_EARLIEST_MS.items():
        refs.append(f"{n:,}: {ref_ms * 1000:.0f} us")
        value = g.med["EarliestAt"].get(n)
        if value is not None:
            checks.append(value <= ref_ms * 1000)
            ours.append(f"{n:,}: {value:.2f} us")
    return Criterion(
        "P3",
        "-",
        ", ".join(ours) or "not measured",
        "EarliestAt median ≤ the reference's at 10K and 100K spans",
        (all(checks) if len(checks) == len(REFERENCE_EARLIEST_MS) else None),
        ", ".join(refs),
    )


def _p4_point_reference(g: _Grid) -> Criterion:
    """P4: the point queries SatAt and SatDuring are as fast as the C++ planner's."""
    ours, checks = [], []
    for kind in ("SatAt", "SatDuring"):
        for n in (10_000, 100_000):
            value = g.med[kind].get(n)
            if value is not None:
                checks.append(value <= REFERENCE_POINT_US)
                ours.append(f"{kind}@{n:,} {value:.2f} us")
    return Criterion(
        "P4",
        "-",
        ", ".join(ours) or "not measured",
        f"SatAt and SatDuring medians ≤ {REFERENCE_POINT_US} us at 10K and 100K spans",
        all(checks) if len(checks) == 4 else None,
        "0.1-1.4 us",
    )


def _p5_growth_to_1m(g: _Grid) -> Criterion:
    """P5: the project's growth target from 10K to 1M spans (full grid only)."""
    ours, checks = [], []
    for kind in KINDS:
        if 10_000 in g.med[kind] and 1_000_000 in g.med[kind]:
            growth = g.med[kind][1_000_000] / g.med[kind][10_000]
            checks.append(growth <= 2.5)
            ours.append(f"{kind} {growth:.2f}x")
    return Criterion(
        "P5",
        "-",
        ", ".join(ours) or "not measured (needs 10K and 1M spans; full grid)",
        "median(1M) / median(10K) ≤ 2.5 for every kind",
        all(checks) if len(checks) == len(KINDS) else None,
        "the C++ planner cannot build 1M spans this way",
    )


def _p6_build_time(g: _Grid) -> Criterion:
    """P6: building 100K spans takes at most 28 s of CPU time (CPU, not wall: the machine is
    shared)."""
    cpu = _series(g.rows, "build_cpu_s").get(100_000)
    wall = _series(g.rows, "build_s").get(100_000)
    return Criterion(
        "P6",
        "-",
        "not measured" if cpu is None else f"{cpu:.1f} s CPU ({wall:.1f} s wall)",
        "building 100K spans by earliest fit ≤ 28 s of CPU time (10% of the reference's "
        "best case; CPU time because the machine is shared)",
        None if cpu is None else cpu <= 28.0,
        "276 s from time 0; > 13 min from random",
    )


#: The criteria of §6.2, one function each, in the report's order.
CRITERIA = (
    _p1_logarithmic,
    _p2_sublinear,
    _p3_earliest_reference,
    _p4_point_reference,
    _p5_growth_to_1m,
    _p6_build_time,
)


def _criteria(rows: list[CellRow]) -> list[Criterion]:
    med = {k: _series(rows, f"{k}.median_us") for k in KINDS}
    grid = _Grid(rows, med, sorted({r.params["spans"] for r in rows}))
    return [criterion(grid) for criterion in CRITERIA]


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria, tables and the figure of the planner study."""
    report = StudyReport(TITLE, _criteria(rows))
    sizes = sorted({r.params["spans"] for r in rows})
    header = [
        "spans",
        "build s",
        "build CPU s",
        *(f"{k} median us" for k in KINDS),
        *(f"{k} p90 us" for k in KINDS),
    ]
    body = []
    builds = _series(rows, "build_s")
    cpu_builds = _series(rows, "build_cpu_s")
    for n in sizes:
        body.append(
            [
                n,
                builds.get(n),
                cpu_builds.get(n),
                *(_series(rows, f"{k}.median_us").get(n) for k in KINDS),
                *(_series(rows, f"{k}.p90_us").get(n) for k in KINDS),
            ]
        )
    report.tables.append(("Query time by pre-populated spans", header, body))
    if sizes:
        series = {k: [_series(rows, f"{k}.median_us").get(n) for n in sizes] for k in KINDS}
        fig = line_plot(
            sizes,
            series,
            out / "planner-query-time.png",
            xlabel="pre-populated spans",
            ylabel="median query time (us)",
            title="Fluxion §6.2 (Fig. 7b): planner queries",
            logx=True,
        )
        report.figures.append(("median query time against pre-populated spans", fig))
    if quick:
        report.notes.append("Quick grid: up to 100K spans; P5 (1M spans) is not evaluated.")
    report.notes.append(
        "Medians are the best of the repeats; the machine may be shared (see the load average)."
    )
    return report
