"""Study ``lod``: Fluxion paper §6.1 (Fig. 7a), the trade-off of the graph's level of detail.

The four LOD machines (``grug_recipes/lod-{high,med,low,low2}.graphml``, 1008 nodes each) are
filled with the job ``node{slot{10 core, 8 memory, 1 bb}}`` (High: ``node{slot{socket{...}}}``)
by ``match allocate`` until the machine is full (or ``max_jobs`` matches, the quick grid), per
match policy and pruning filter; a cell records the match time per job. The paper's Fig. 7a
gives no numbers in its text, only the claims the criteria check; the reference figures are
those of the C++ ``resource-query`` measured on this machine class (the project's targets,
prune ALL:core, whole run / jobs). ``benchmarks/lod_bench.py`` measures the same way.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fluxgraph.data import bundled
from fluxgraph.errors import ExperimentError, FluxgraphError
from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.report import line_plot, pivot
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion, StudyReport, parameters_text

__all__ = ["KIND", "LODS", "NAME", "TITLE", "YAML", "analyse", "jobspec_text", "measure"]

NAME = "lod"
TITLE = "Fluxion §6.1: levels of detail (match time per job)"
YAML = "lod.yaml"
LODS = ("high", "med", "low", "low2")
POLICIES = ("first", "high", "low")
#: Jobs that fill each LOD machine (2016 fill High, 4032 the others).
CAPACITY = {"high": 2016, "med": 4032, "low": 4032, "low2": 4032}
#: ms per job of the reference C++ resource-query on this machine class, prune ALL:core
#: (the project's targets); low shares high's figure there.
REFERENCE_MS = {
    ("high", "first"): 4.5,
    ("high", "high"): 44.0,
    ("high", "low"): 44.0,
    ("med", "first"): 0.9,
    ("med", "high"): 33.0,
    ("med", "low"): 33.0,
    ("low", "first"): 0.27,
    ("low", "high"): 6.8,
    ("low", "low"): 6.8,
    ("low2", "first"): 2.1,
    ("low2", "high"): 11.8,
    ("low2", "low"): 11.8,
}
PRUNED = "ALL:core"


def jobspec_text(lod: str) -> str:
    """The study's job for one LOD, as canonical jobspec YAML."""
    leaves = "[{type: core, count: 10}, {type: memory, count: 8}, {type: bb, count: 1}]"
    slot_with = f"[{{type: socket, count: 1, with: {leaves}}}]" if lod == "high" else leaves
    return (
        "version: 9999\n"
        "resources:\n"
        "  - type: node\n"
        "    count: 1\n"
        "    with:\n"
        "      - type: slot\n"
        "        count: 1\n"
        "        label: default\n"
        f"        with: {slot_with}\n"
        "attributes:\n"
        "  system:\n"
        "    duration: 3600\n"
        "tasks:\n"
        "  - command: [app]\n"
        "    slot: default\n"
        "    count: {per_slot: 1}\n"
    )


def recipe_path(lod: str, recipe_dir: str | Path | None = None) -> Path:
    """The GRUG recipe of ``lod`` (default: the bundled machine ``lod-<lod>``)."""
    if not recipe_dir:
        try:
            return bundled("machines", f"lod-{lod}")
        except FluxgraphError as err:
            raise ExperimentError(str(err)) from None
    path = Path(recipe_dir) / f"lod-{lod}.graphml"
    if not path.is_file():
        raise ExperimentError(f"no LOD recipe {path} (give recipe_dir: the grug_recipes folder)")
    return path


def measure(lod: str, policy: str, prune: str, max_jobs: int = 0, recipe_dir=None) -> dict:
    """Fill the LOD machine; jobs matched, median/mean ms per match, total match seconds."""
    from fluxgraph.jobspec import load as load_jobspec
    from fluxgraph.matcher import Matcher
    from fluxgraph.readers import load as load_graph
    from fluxgraph.writers.sink import SelectionCollector

    gc.collect()  # drop the previous cell's graph before timing this one
    t0 = time.perf_counter()
    graph = load_graph(recipe_path(lod, recipe_dir))
    load_s = time.perf_counter() - t0
    matcher = Matcher(graph, "CA", policy, "" if prune == "none" else prune)
    spec = load_jobspec(jobspec_text(lod))
    gc.freeze()  # the graph is long-lived: keep the cyclic GC from rescanning it (as the CLI)
    times = []
    job = 1
    try:
        while not max_jobs or job <= max_jobs:
            t0 = time.perf_counter()
            out = matcher.run(spec, "allocate", job, SelectionCollector())
            gc.collect()  # as the CLI after every command: the session's state stays frozen
            gc.freeze()
            times.append(time.perf_counter() - t0)
            if out.rc != 0:
                break
            job += 1
    finally:
        gc.unfreeze()
    jobs = job - 1
    total = sum(times)
    return {
        "jobs": jobs,
        "median_ms": statistics.median(times) * 1e3,
        "ms_per_job": total / max(jobs, 1) * 1e3,
        "total_s": total,
        "load_s": load_s,
    }


def _run(params: dict[str, Any], ctx: CellContext) -> dict:
    recipe_dir = ctx.path(params["recipe_dir"]) if "recipe_dir" in params else None
    return measure(
        params["lod"], params["policy"], params["prune"], params.get("max_jobs", 0), recipe_dir
    )


KIND = Kind(
    "lod",
    _run,
    {
        "lod": {"enum": list(LODS)},
        "policy": {"type": "string", "minLength": 1},
        "prune": {"type": "string", "minLength": 1},
        "max_jobs": {"type": "integer", "minimum": 0},
        "recipe_dir": {"type": "string"},
    },
    required=("lod", "policy", "prune"),
)


# -- analysis ---------------------------------------------------------------------------------


def results(rows: list[CellRow]) -> list[list[Any]]:
    """The long rows of ``results.csv`` (scheduler = match policy)."""
    out = []
    for r in rows:
        params = parameters_text(r.params, skip=("policy",))
        for metric, value in sorted(r.metrics.items()):
            out.append([NAME, r.params["policy"], params, metric, value])
    return out


def _ms(rows: list[CellRow]) -> dict[tuple[str, str, str], float]:
    return {
        (r.params["lod"], r.params["policy"], r.params["prune"]): r.metrics["ms_per_job"]
        for r in rows
        if r.metrics.get("ms_per_job") is not None
    }


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _all(checks: list[bool | None]) -> bool | None:
    known = [c for c in checks if c is not None]
    return all(known) if known and len(known) == len(checks) else None


def _each(
    labels: Iterable[str],
    values: Callable[[str], tuple[float | None, ...]],
    holds: Callable[..., bool],
    shown: str,
) -> tuple[str, bool | None]:
    """Test ``holds(*values(label))`` for every label: the ``ours`` text (``shown`` filled with
    the values) and the verdict (None when a value is missing).

    >>> _each(["a", "b"], lambda k: (1.0, 2.0 if k == "a" else None), float.__lt__, "{} < {}")
    ('a: 1 < 2; b: 1 < -', None)
    """
    checks, ours = [], []
    for label in labels:
        vals = values(label)
        checks.append(None if None in vals else holds(*vals))
        ours.append(f"{label}: {shown.format(*map(_fmt, vals))}")
    return "; ".join(ours), _all(checks)


@dataclass(frozen=True)
class _Grid:
    """The cells, their ms per job as ``(lod, policy, prune) -> ms``, and whether the grid is
    the quick one (L7 reads full machines only)."""

    rows: list[CellRow]
    ms: dict
    quick: bool

    def get(self, lod: str, policy: str, prune: str = PRUNED) -> float | None:
        """ms per job of ``lod`` under ``policy`` and ``prune``, or None."""
        return self.ms.get((lod, policy, prune))


def _l1_policy_order(g: _Grid) -> Criterion:
    """L1: high and low are slower than first on every LOD (the brief's shape criterion)."""
    ours, verdict = _each(
        LODS,
        lambda lod: (g.get(lod, "first"), g.get(lod, "high"), g.get(lod, "low")),
        lambda f, h, lo: h > f and lo > f,
        "{} / {} / {}",
    )
    ref = "; ".join(
        f"{lod}: {REFERENCE_MS[lod, 'first']} / {REFERENCE_MS[lod, 'high']}" for lod in LODS
    )
    return Criterion(
        "L1",
        "policy not varied (Fig. 7a uses one)",
        ours,
        "ms/job of high and of low > ms/job of first, on every LOD (prune ALL:core); "
        "shown first / high / low",
        verdict,
        f"first / high ms: {ref}",
    )


def _l2_coarsening(g: _Grid) -> Criterion:
    """L2: coarsening High -> Low (and Low2) speeds matching, for every policy."""
    ours, verdict = _each(
        POLICIES,
        lambda p: (g.get("high", p), g.get("low", p), g.get("low2", p)),
        lambda hi, low, low2: hi > low and hi > low2,
        "{} vs {}, {}",
    )
    return Criterion(
        "L2",
        "coarsening the model improves match performance",
        ours,
        "ms/job on High > on Low and on Low2, for every policy (prune ALL:core)",
        verdict,
        "first: 4.5 vs 0.27, 2.1; high: 44 vs 6.8, 11.8",
    )


def _l3_monotone(g: _Grid) -> Criterion:
    """L3: match time falls at each coarsening step, High >= Med >= Low."""
    ours, verdict = _each(
        POLICIES,
        lambda p: (g.get("high", p), g.get("med", p), g.get("low", p)),
        lambda hi, med, low: hi >= med >= low,
        "{} ≥ {} ≥ {}",
    )
    return Criterion(
        "L3",
        "match time falls at each coarsening step (High, Med, Low)",
        ours,
        "ms/job High ≥ Med ≥ Low, for every policy (prune ALL:core)",
        verdict,
        "first: 4.5 ≥ 0.9 ≥ 0.27; high: 44 ≥ 33 ≥ 6.8",
    )


def _l4_pruning(g: _Grid) -> Criterion:
    """L4: the pruning filter ALL:core speeds matching (policy first, every LOD)."""
    ours, verdict = _each(
        LODS,
        lambda lod: (g.get(lod, "first"), g.get(lod, "first", "none")),
        lambda pruned, unpruned: pruned < unpruned,
        "{} vs {}",
    )
    return Criterion(
        "L4",
        "the pruning filter improves match performance",
        ours,
        "ms/job with ALL:core < without pruning, policy first, every LOD",
        verdict,
    )


def _l5_rack_pruning(g: _Grid) -> Criterion:
    """L5: rack-level pruning (Low2) is slightly faster than Low."""
    ours, verdict = _each(
        POLICIES,
        lambda p: (g.get("low2", p), g.get("low", p)),
        lambda low2, low: low2 < low,
        "{} vs {}",
    )
    return Criterion(
        "L5",
        "pruning is slightly better with rack vertices (Low2 Prune < Low Prune)",
        ours,
        "ms/job on Low2 < on Low, prune ALL:core, for every policy",
        verdict,
        "first: 2.1 vs 0.27 (the C++ reference does not show it either)",
    )


def _l6_filled(g: _Grid) -> Criterion:
    """L6: every cell matched its expected number of jobs (the machine is filled)."""
    checks, ours = [], []
    for r in g.rows:
        lod, n = r.params["lod"], r.metrics.get("jobs")
        cap = r.params.get("max_jobs", 0)
        want = min(cap, CAPACITY[lod]) if cap else CAPACITY[lod]
        checks.append(None if n is None else int(n) == want)
        if n is not None and int(n) != want:
            ours.append(f"{lod}/{r.params['policy']}/{r.params['prune']}: {int(n)}")
    target = "min(max_jobs, capacity)" if g.quick else "2016 on High, 4032 on the others"
    return Criterion(
        "L6",
        "the machine is filled (High 2016 jobs, others 4032)",
        "; ".join(ours) or f"all {len(checks)} cells as expected",
        f"jobs matched = {target}, every cell",
        _all(checks),
        "2016 / 4032",
    )


def _l7_reference_speed(g: _Grid) -> Criterion:
    """L7: ms per job against the C++ reference (the project's targets), full machines only."""
    checks, ours = [], []
    for (lod, policy), ref in REFERENCE_MS.items():
        m = g.get(lod, policy)
        if m is None or g.quick:
            checks.append(None)
            continue
        ratio = m / ref
        checks.append(ratio <= (2.0 if policy == "first" else 1.0))
        ours.append(f"{lod}/{policy} {ratio:.2f}x")
    return Criterion(
        "L7",
        "-",
        "; ".join(ours) or "not measured (the quick grid does not fill the machines)",
        "ms/job ≤ 1x the reference for high and low, ≤ 2x for first (prune ALL:core, full)",
        None if g.quick else _all(checks),
        "C++ resource-query, project target",
    )


#: The criteria of §6.1, one function each, in the report's order.
CRITERIA = (
    _l1_policy_order,
    _l2_coarsening,
    _l3_monotone,
    _l4_pruning,
    _l5_rack_pruning,
    _l6_filled,
    _l7_reference_speed,
)


def _criteria(rows: list[CellRow], quick: bool) -> list[Criterion]:
    grid = _Grid(rows, _ms(rows), quick)
    return [criterion(grid) for criterion in CRITERIA]


def _lod_plot(series: dict[str, list[float | None]], path: Path, title: str) -> Path:
    """A bar chart (log scale) of match time per job by LOD, one bar series per key."""
    return line_plot(
        list(LODS),
        series,
        path,
        xlabel="level of detail",
        ylabel="match time per job (ms)",
        title=title,
        bar=True,
        logy=True,
    )


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria, tables and figures of the LOD study."""
    report = StudyReport(TITLE, _criteria(rows, quick))
    for prune in (PRUNED, "none"):
        subset = [r for r in rows if r.params["prune"] == prune]
        if not subset:
            continue
        header, body = pivot(subset, ["ms_per_job"], ["lod"], ["policy"])
        order = {lod: i for i, lod in enumerate(LODS)}
        body.sort(key=lambda r: order.get(r[0], 99))
        if prune == PRUNED:
            header = [*header, *(f"reference {p}" for p in POLICIES)]
            body = [[*r, *(REFERENCE_MS.get((r[0], p)) for p in POLICIES)] for r in body]
        report.tables.append((f"ms per job, prune {prune}", header, body))
    header, body = pivot(
        rows, ["jobs", "median_ms", "ms_per_job", "total_s", "load_s"], ["lod", "policy", "prune"]
    )
    report.tables.append(("Every cell", header, body))
    pruned = [r for r in rows if r.params["prune"] == PRUNED]
    if pruned:
        series = {p: [_ms(pruned).get((lod, p, PRUNED)) for lod in LODS] for p in POLICIES}
        fig = _lod_plot(
            series, out / "lod-ms-per-job.png", "Fluxion §6.1: match time per job, prune ALL:core"
        )
        report.figures.append(("match time per job by LOD and policy", fig))
    first = [r for r in rows if r.params["policy"] == "first"]
    if {r.params["prune"] for r in first} >= {PRUNED, "none"}:
        ms = _ms(first)
        series = {
            f"first, {p}": [ms.get((lod, "first", p)) for lod in LODS] for p in (PRUNED, "none")
        }
        fig = _lod_plot(
            series, out / "lod-pruning.png", "Fluxion §6.1 (Fig. 7a): with and without pruning"
        )
        report.figures.append(("with and without the pruning filter (policy first)", fig))
    if quick:
        report.notes.append(
            "Quick grid: each cell stops after 300 matches (2016 fill High, 4032 the "
            "others), so times are those of a partly filled machine and L7 (against the "
            "full-machine reference) is not evaluated."
        )
    report.notes.append(
        "Timings depend on the machine and its load (see the run line); the criteria compare "
        "shapes and ratios, never absolute times across hardware."
    )
    return report
