"""Study ``variation``: the Fluxion paper's §6.3 variation-aware case study (Table 1, Fig. 7-8).

The quartz machine (39 racks x 62 nodes x 2 sockets x 18 cores, global node ids), five
performance classes by Eq. 1 and a 200-job queue, all seeded as the steering generator
``make_inputs.py`` draws them (:mod:`fluxgraph.papers.variation.workload`), replayed by the
static-queue driver (:func:`fluxgraph.papers.variation.static_queue.run_static_queue`: one
``allocate_orelse_reserve``
per job at time 0, spec §4.1). A cell is one (seed, policy, class layout, exact visits) run.

* E-V1: ``high``, ``low``, ``variation`` on seeds 1-6: Table 1 per seed, reduction factors,
  now/reserved, and parity with the reference rows of spec §7.1.
* E-V2: ``classpack`` (slack 0), ``classpack-1800`` (a start-time budget of 1800 s, the
  driver's ``slack``, spec §4.3 step 2) and ``classpack-strict`` (slack inf): Table 1 rows and
  their start-time cost against ``variation``.
* E-V3: match time per job and in total (Fig. 7b), with ``exact_visit_counts`` off and on.
  ``lod=socket`` is the spec's machine (94,342 vertices); ``lod=node`` the pooled quartz
  (``node > core[36]``, 4,876 vertices), which selects the same nodes (paper §3.3; tested), so
  the six-seed grid runs there and the spec's machine is timed on seed 1.
* E-V4: rack-correlated classes (rho = 0.8, 0.95; seed 1), whose reference rows also exist.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.report import line_plot
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion, StudyReport, parameters_text
from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import (
    StaticQueueRecord,
    figure_of_merit,
    run_static_queue,
)
from fluxgraph.papers.variation.workload import perf_classes, variation_queue

__all__ = ["KIND", "NAME", "TITLE", "YAML", "analyse", "avoidable_spread", "results", "run_case"]

NAME = "variation"
TITLE = "Fluxion §6.3: variation-aware scheduling case study (Table 1, Fig. 7-8)"
YAML = "variation.yaml"
POLICIES = ("high", "low", "variation", "classpack", "classpack-1800", "classpack-strict")
#: Study labels of class packing with a start-time budget: label -> (policy, slack s).
BUDGETED = {"classpack-1800": ("classpack", 1800.0)}
NCLASSES = 5
LAYOUTS = {"iid": 0.0, "rack0.8": 0.8, "rack0.95": 0.95}
PRUNE = "ALL:core,ALL:node"
#: Table 1 of the paper: fom 0..4 per policy.
PAPER = {
    "high": [66, 54, 47, 27, 6],
    "low": [79, 34, 43, 33, 11],
    "variation": [184, 7, 8, 1, 0],
}
#: Spec §7.1: the reference (flux-sched resource-query) on the same inputs: (layout, seed) ->
#: fom 0..4 of high, low, variation, and variation's now/reserved.
REFERENCE: dict[tuple[str, int], dict[str, Any]] = {
    ("iid", 1): {"high": [52, 10, 11, 30, 97], "low": [58, 8, 15, 29, 90],
                 "variation": [174, 15, 4, 6, 1], "now": (94, 106)},
    ("iid", 2): {"high": [51, 21, 22, 24, 82], "low": [53, 16, 12, 33, 86],
                 "variation": [182, 7, 4, 3, 4], "now": (150, 50)},
    ("iid", 3): {"high": [62, 8, 8, 21, 101], "low": [63, 8, 7, 27, 95],
                 "variation": [180, 6, 1, 6, 7], "now": (96, 104)},
    ("iid", 4): {"high": [58, 8, 18, 17, 99], "low": [60, 18, 12, 18, 92],
                 "variation": [181, 7, 4, 2, 6], "now": (103, 97)},
    ("iid", 5): {"high": [65, 10, 15, 21, 89], "low": [63, 21, 9, 16, 91],
                 "variation": [176, 4, 12, 0, 8], "now": (92, 108)},
    ("iid", 6): {"high": [46, 13, 11, 40, 90], "low": [52, 4, 17, 22, 105],
                 "variation": [177, 11, 8, 1, 3], "now": (126, 74)},
    ("rack0.8", 1): {"high": [72, 27, 30, 29, 42], "low": [66, 24, 28, 37, 45],
                     "variation": [174, 16, 3, 6, 1], "now": (94, 106)},
    ("rack0.95", 1): {"high": [85, 44, 25, 17, 29], "low": [76, 48, 27, 17, 32],
                      "variation": [174, 16, 3, 6, 1], "now": (94, 106)},
}  # fmt: skip
#: Spec §7.1 finding 4: fom > 0 jobs of the reference's variation policy for which one class had
#: the job's nodes free at its start, seeds 1-6.
REFERENCE_AVOIDABLE = {1: 18, 2: 10, 3: 13, 4: 11, 5: 14, 6: 21}
#: The reference's seed-1 run times on this machine class (spec §7.1 finding 3), seconds.
REFERENCE_SECONDS = {"high": 5.9, "variation": 20.4}
#: Issue 15's speed target: the 200-job case study per policy (seconds).
TARGET_SECONDS = 5.0
#: The policies the speed target (spec V5) names: the three of the paper and class packing
#: (slack 0, spec §4.3's default); the budgeted and strict variants are timed beside.
SPEED_POLICIES = ("high", "low", "variation", "classpack")


def avoidable_spread(records: list[StaticQueueRecord], classes: list[int]) -> int:
    """Jobs with fom > 0 for which one class had ``n`` nodes free during their window, given the
    jobs before them (spec §6: avoidable spread).

    >>> recs = [StaticQueueRecord(1, 2, 10, 0, (0, 2), 0.0, 0)]
    >>> avoidable_spread(recs, [1, 1, 2]), avoidable_spread(recs, [1, 2, 3])
    (1, 0)
    """
    busy: list[list[tuple[int, int]]] = [[] for _ in classes]
    count = 0
    for r in records:
        if not r.node_ids:
            continue
        s, e = r.start, r.start + r.walltime
        if figure_of_merit(r.node_ids, classes) > 0:
            free = Counter(
                classes[v]
                for v, spans in enumerate(busy)
                if all(b <= s or a >= e for a, b in spans)
            )
            count += any(c >= r.nodes for c in free.values())
        for v in r.node_ids:
            busy[v].append((s, e))
    return count


def run_case(
    seed: int,
    policy: str,
    layout: str = "iid",
    exact: bool = False,
    jobs: int = 200,
    racks: int = 39,
    lod: str = "socket",
) -> tuple[list[int], list[StaticQueueRecord], dict[str, float]]:
    """One case-study run: (classes, per-job records, timings ``build_s``/``cpu_s``/``wall_s``).

    ``cpu_s``/``wall_s`` cover the matcher's creation and the whole queue, not the graph build.
    ``racks`` < 39 gives a smaller quartz (tests); the reference rows need 39. ``lod="node"``:
    the pooled quartz, jobs ``node[n] -> slot -> core[36]``.
    """
    classes = perf_classes(seed, racks * 62, rack_corr=LAYOUTS[layout])
    queue = variation_queue(seed, jobs)
    c0 = time.process_time()
    pooled = lod == "node"
    graph = build_quartz(racks=racks, classes=classes, pooled=pooled)
    build = time.process_time() - c0
    c0, w0 = time.process_time(), time.perf_counter()
    policy, slack = BUDGETED.get(policy, (policy, 0.0))
    matcher = Matcher(graph, "CA", policy, prune=PRUNE, exact_visit_counts=exact)
    shape = {"sockets": 0, "cores": 36} if pooled else {}
    records = run_static_queue(matcher, queue, slack=slack, **shape)
    timings = {
        "build_s": build,
        "cpu_s": time.process_time() - c0,
        "wall_s": time.perf_counter() - w0,
    }
    return classes, records, timings


def _run(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    classes, records, timings = run_case(
        params["seed"],
        params["policy"],
        params.get("layout", "iid"),
        bool(params.get("exact", False)),
        params.get("jobs", 200),
        params.get("racks", 39),
        params.get("lod", "socket"),
    )
    out: dict[str, float] = dict(timings)
    matched = [r for r in records if r.node_ids]
    foms = [figure_of_merit(r.node_ids, classes) for r in matched]
    multi = [f for f, r in zip(foms, matched, strict=True) if r.nodes > 1]
    for k in range(NCLASSES):
        out[f"fom{k}"] = foms.count(k)
        out[f"multi_fom{k}"] = multi.count(k)
        out[f"class{k + 1}"] = classes.count(k + 1)
    out["mean_fom"] = statistics.fmean(foms) if foms else 0.0
    out["now"] = sum(r.start == 0 for r in matched)
    out["reserved"] = sum(r.start > 0 for r in matched)
    out["rejected"] = len(records) - len(matched)
    out["mean_start"] = statistics.fmean(r.start for r in matched) if matched else 0.0
    out["makespan"] = max((r.start + r.walltime for r in matched), default=0)
    out["match_s"] = sum(r.seconds for r in records)
    out["visits"] = sum(r.preorder for r in records)
    out["first5_ms"] = 1000 * statistics.fmean(r.seconds for r in records[:5])
    reserved = [r.seconds for r in matched if r.start > 0]
    out["reserved_ms"] = 1000 * statistics.fmean(reserved) if reserved else 0.0
    out["avoidable"] = avoidable_spread(records, classes)
    largest = max(Counter(classes).values())
    out["spread_fitting"] = sum(
        f > 0 and r.nodes <= largest for f, r in zip(foms, matched, strict=True)
    )
    for r in records:
        out[f"job.{r.id:03d}.ms"] = 1000 * r.seconds
        out[f"job.{r.id:03d}.start"] = r.start
    return out


KIND = Kind(
    "variation",
    _run,
    {
        "seed": {"type": "integer"},
        "policy": {"enum": list(POLICIES)},
        "layout": {"enum": list(LAYOUTS)},
        "exact": {"type": "boolean"},
        "jobs": {"type": "integer", "minimum": 1, "maximum": 100_000},
        "racks": {"type": "integer", "minimum": 5, "maximum": 39},
        "lod": {"enum": ["socket", "node"]},
    },
    required=("seed", "policy"),
)


# -- analysis ---------------------------------------------------------------------------------


def results(rows: list[CellRow]) -> list[list[Any]]:
    """The long rows of ``results.csv`` (scheduler = the match policy)."""
    out = []
    for r in rows:
        params = parameters_text(r.params, skip=("policy",))
        for metric, value in sorted(r.metrics.items()):
            out.append([NAME, r.params["policy"], params, metric, value])
    return out


def _cells(rows: list[CellRow]) -> tuple[dict[tuple, dict[str, float | None]], set[tuple]]:
    """(layout, seed, policy, exact, lod) -> metrics of the done cells; and the keys of those on
    the reference's machine and queue size (39 racks, 200 jobs)."""
    cells, full = {}, set()
    for r in rows:
        if r.status != "done":
            continue
        p = r.params
        key = (p.get("layout", "iid"), p["seed"], p["policy"], bool(p.get("exact")),
               p.get("lod", "socket"))  # fmt: skip
        cells[key] = r.metrics
        if p.get("racks", 39) == 39 and p.get("jobs", 200) == 200:
            full.add(key)
    return cells, full


def _primary(cells: dict[tuple, dict]) -> dict[tuple, dict]:
    """(layout, seed, policy, exact) -> metrics, from the pooled machine where it ran (its
    selections are the socketed machine's), else from the socketed one."""
    out: dict[tuple, dict] = {}
    for key, m in sorted(cells.items(), key=lambda kv: kv[0][4] != "node"):
        out.setdefault(key[:4], m)
    return out


def _row(m: dict[str, float | None], prefix: str = "fom") -> list[int]:
    return [int(m.get(f"{prefix}{k}") or 0) for k in range(NCLASSES)]


def _fmt_row(row: list[int]) -> str:
    return "/".join(str(v) for v in row)


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def _tables(report: StudyReport, cells) -> None:
    table = []
    for layout in LAYOUTS:
        for seed in sorted({k[1] for k in cells if k[0] == layout}):
            ref = REFERENCE.get((layout, seed), {})
            for policy in POLICIES:
                m = cells.get((layout, seed, policy, False))
                if m is None:
                    continue
                row = _row(m)
                table.append(
                    [layout, seed, policy, *row, round(m.get("mean_fom") or 0, 3),
                     f"{int(m['now'] or 0)}/{int(m['reserved'] or 0)}",
                     _fmt_row(ref[policy]) if policy in ref else "-",
                     int(m.get("avoidable") or 0), m.get("mean_start"), m.get("makespan")]
                )  # fmt: skip
    report.tables.append(
        (
            "Table 1 per seed (E-V1, E-V2, E-V4): jobs per figure of merit",
            ["layout", "seed", "policy", "fom=0", "fom=1", "fom=2", "fom=3", "fom=4",
             "mean fom", "now/reserved", "reference fom 0..4", "avoidable spread",
             "mean start s", "makespan s"],
            table,
        )
    )  # fmt: skip
    paper = [[p, *PAPER[p], round(sum(k * v for k, v in enumerate(PAPER[p])) / 200, 2)]
             for p in PAPER]  # fmt: skip
    report.tables.append(
        ("Paper, Table 1", ["policy", "fom=0", "fom=1", "fom=2", "fom=3", "fom=4", "mean"], paper)
    )
    multi = []
    for (layout, seed, policy, exact), m in sorted(cells.items()):
        if layout == "iid" and not exact:
            multi.append([seed, policy, *_row(m, "multi_fom")])
    report.tables.append(
        ("Multi-node jobs only (one-node jobs have fom 0 under every policy)",
         ["seed", "policy", "fom=0", "fom=1", "fom=2", "fom=3", "fom=4"], multi)
    )  # fmt: skip
    reductions, costs = [], []
    for seed in sorted({k[1] for k in cells if k[0] == "iid"}):
        get = {p: cells.get(("iid", seed, p, False)) for p in POLICIES}
        if not all(get[p] for p in ("high", "low", "variation")):
            continue
        f0 = {p: (get[p] or {}).get("fom0") or 0 for p in POLICIES}
        reductions.append(
            [seed, *(_ratio(f0[p], f0[b]) for p in ("variation", "classpack")
                     for b in ("high", "low"))]
        )  # fmt: skip
        var = get["variation"] or {}
        for p in ("classpack", "classpack-1800", "classpack-strict"):
            m = get[p]
            if m is None:
                continue
            delta = sum(
                (m.get(f"job.{j:03d}.start") or 0) - (var.get(f"job.{j:03d}.start") or 0)
                for j in range(1, 201)
            )
            costs.append(
                [seed, p, m["mean_start"], var["mean_start"],
                 _ratio(m["mean_start"] or 0, var["mean_start"] or 0), m["makespan"],
                 var["makespan"], delta]
            )  # fmt: skip
    report.tables.append(
        ("Reduction factors: #fom=0 of variation / class packing over each baseline",
         ["seed", "variation/high", "variation/low", "classpack/high", "classpack/low"],
         reductions)
    )  # fmt: skip
    report.tables.append(
        ("Start-time cost of class packing against variation (E-V2)",
         ["seed", "policy", "mean start s", "variation mean start s", "ratio", "makespan s",
          "variation makespan s", "Σ (start - variation start) s"], costs)
    )  # fmt: skip


def _timing_table(report: StudyReport, cells: dict[tuple, dict]) -> None:
    timing = []
    for (layout, seed, policy, exact, lod), m in sorted(cells.items()):
        if layout == "iid" and seed == 1:
            timing.append(
                [lod, policy, exact, m.get("cpu_s"), m.get("wall_s"), m.get("match_s"),
                 m.get("first5_ms"), m.get("reserved_ms"), m.get("visits")]
            )  # fmt: skip
    report.tables.append(
        ("Scheduling cost, seed 1 (E-V3; CPU time: the machine is shared)",
         ["machine (lod)", "policy", "exact visits", "CPU s", "wall s", "Σ match s",
          "first 5 mean ms", "reserved mean ms", "preorder visits"], timing)
    )  # fmt: skip


@dataclass(frozen=True)
class _Cells:
    """The study's cells by ``(layout, seed, policy, exact, lod)``, the keys of those on the
    reference's machine and queue size (``full``), the primary view by ``(layout, seed,
    policy, exact)`` and the iid seeds in it."""

    all: dict[tuple, dict]
    full: set
    cells: dict[tuple, dict]
    iid: list[int]

    @classmethod
    def of(cls, allcells: dict[tuple, dict], full: set) -> _Cells:
        cells = _primary(allcells)
        return cls(allcells, full, cells, sorted({k[1] for k in cells if k[0] == "iid"}))

    def ratio_of_starts(self, m: dict, var: dict) -> float:
        """``m``'s mean start over variation's (the same seed)."""
        return (m["mean_start"] or 0) / max(var["mean_start"] or 1, 1)


def _v1_parity(c: _Cells) -> Criterion:
    """V1: parity with the reference rows of spec §7.1, on both machines."""
    checked, bad = 0, []
    for (layout, seed, policy, exact, lod), m in sorted(c.all.items()):
        ref = REFERENCE.get((layout, seed))
        if (
            exact
            or ref is None
            or policy not in ref
            or (layout, seed, policy, exact, lod) not in c.full
        ):
            continue
        checked += 1
        same = _row(m) == ref[policy]
        if policy == "variation":
            same = same and (int(m["now"] or 0), int(m["reserved"] or 0)) == ref["now"]
        if not same or m.get("rejected"):
            bad.append(f"{layout}/{seed}/{policy}/{lod}")
    return Criterion(
        "V1",
        "-",
        f"{checked - len(bad)} of {checked} rows equal" + (f"; differ: {bad}" if bad else ""),
        "high/low/variation fom 0..4 (and variation's now/reserved) equal the reference rows "
        "of spec §7.1 exactly; no job rejected",
        None if not checked else not bad,
        "spec §7.1 rows",
    )


def _v1a_avoidable(c: _Cells) -> Criterion:
    """V1a: variation's avoidable spread against the reference's count (§7.1 finding 4)."""
    ours, same = [], []
    for seed in c.iid:
        m = c.cells.get(("iid", seed, "variation", False))
        if m is not None and seed in REFERENCE_AVOIDABLE:
            ours.append(f"s{seed} {int(m['avoidable'] or 0)}")
            same.append(int(m["avoidable"] or 0) == REFERENCE_AVOIDABLE[seed])
    return Criterion(
        "V1a",
        "-",
        ", ".join(ours) or "-",
        "variation's fom > 0 jobs that one class could have held at their start equal the "
        "reference's count (spec §7.1 finding 4)",
        all(same) if same else None,
        ", ".join(f"s{k} {v}" for k, v in REFERENCE_AVOIDABLE.items()),
    )


def _v2_orderings(c: _Cells) -> Criterion:
    """V2 (H1): variation places far more jobs in one class than high and low."""
    ours, ok, facts = [], [], []
    for seed in c.iid:
        m = {p: c.cells.get(("iid", seed, p, False)) for p in ("high", "low", "variation")}
        if not all(m.values()):
            continue
        f0 = {p: m[p]["fom0"] or 0 for p in m}
        mf = {p: m[p]["mean_fom"] or 0 for p in m}
        rh, rl = f0["variation"] / max(f0["high"], 1), f0["variation"] / max(f0["low"], 1)
        ok.append(
            rh >= 2 and rl >= 2 and f0["variation"] >= 170 and mf["variation"] < 0.35
            and mf["variation"] < min(mf["high"], mf["low"]) / 4
        )  # fmt: skip
        facts.append(2.0 <= rh <= 4.0 and 2.0 <= rl <= 4.0)
        ours.append(f"s{seed} {rh:.2f}×/{rl:.2f}×")
    return Criterion(
        "V2",
        "184 fom=0 vs 66/79: 2.8× / 2.3×",
        ", ".join(ours) or "-",
        "every seed: variation #fom=0 ≥ 2× each baseline and ≥ 170; mean fom < 0.35 and < ¼ "
        "of each baseline's; reductions within 2.0-4.0× (order of magnitude of the paper's)",
        (all(ok) and all(facts)) if ok else None,
        "2.71-3.85× / 2.79-3.43×",
    )


def _v3_packing(c: _Cells) -> Criterion:
    """V3: class packing with slack 0 against variation."""
    cp0, var0, starts, per_seed = [], [], [], []
    for seed in c.iid:
        cp = c.cells.get(("iid", seed, "classpack", False))
        var = c.cells.get(("iid", seed, "variation", False))
        if cp and var:
            cp0.append(cp["fom0"] or 0)
            var0.append(var["fom0"] or 0)
            per_seed.append(cp0[-1] >= var0[-1])
            starts.append(c.ratio_of_starts(cp, var))
    mean_cp = statistics.fmean(cp0) if cp0 else 0.0
    held = all(per_seed) and mean_cp >= 190 and all(s <= 1.05 for s in starts)
    return Criterion(
        "V3",
        "184 (one seed of real data)",
        f"classpack #fom=0 {cp0} (mean {mean_cp:.1f}) vs variation {var0}; mean start "
        f"ratio {', '.join(f'{s:.3f}' for s in starts)}",
        "slack 0: #fom=0 ≥ variation's on every seed, ≥ 190 averaged over seeds 1-6, mean "
        "start ≤ 1.05 × variation's on every seed",
        held if len(cp0) == 6 else None,
        "variation 174-182",
    )


def _v3s_strict(c: _Cells) -> Criterion:
    """V3s: strict class packing keeps every job that fits one class in one class."""
    strict_ok = []
    for seed in c.iid:
        strict = c.cells.get(("iid", seed, "classpack-strict", False))
        if strict:
            strict_ok.append(strict["spread_fitting"] == 0)
    return Criterion(
        "V3s",
        "-",
        f"{sum(strict_ok)} of {len(strict_ok)} seeds with fom=0 for every job that fits one class",
        "slack ∞: fom 0 for every job whose size fits in some class (all 200 on quartz)",
        all(strict_ok) if strict_ok else None,
    )


def _v3i_budget(c: _Cells) -> Criterion:
    """V3i: class packing with a start budget (1800 s) reaches the project's goal."""
    budget0, budget_starts, strict0, strict_starts = [], [], [], []
    for seed in c.iid:
        var = c.cells.get(("iid", seed, "variation", False))
        budget = c.cells.get(("iid", seed, "classpack-1800", False))
        strict = c.cells.get(("iid", seed, "classpack-strict", False))
        if budget and var:
            budget0.append(budget["fom0"] or 0)
            budget_starts.append(c.ratio_of_starts(budget, var))
        if strict and var:
            strict0.append(strict["fom0"] or 0)
            strict_starts.append(c.ratio_of_starts(strict, var))
    mean_budget = statistics.fmean(budget0) if budget0 else 0.0
    mean_strict = statistics.fmean(strict0) if strict0 else 0.0
    return Criterion(
        "V3i",
        "184",
        f"classpack-1800 #fom=0 {budget0} (mean {mean_budget:.1f}); mean start ratio "
        f"{', '.join(f'{s:.3f}' for s in budget_starts)} (classpack-strict: #fom=0 mean "
        f"{mean_strict:.1f}, mean start ratio "
        f"{', '.join(f'{s:.3f}' for s in strict_starts)})",
        "project goal: class packing with ≥ 190 fom=0 jobs averaged over seeds 1-6 and mean "
        "start ≤ 1.05 × variation's on every seed (slack 1800 s here; slack 0 is V3)",
        (mean_budget >= 190 and all(s <= 1.05 for s in budget_starts))
        if len(budget0) == 6
        else None,
        "variation 174-182",
    )


def _v4_timing(c: _Cells) -> Criterion:
    """V4 (H2): timing with exact visit counts on."""
    var, high = c.cells.get(("iid", 1, "variation", True)), c.cells.get(("iid", 1, "high", True))
    if var and high:
        # CPU seconds of the whole replay: on a shared machine the wall-time sums of the match
        # calls (shown beside) measure the other processes as much as the matcher
        ratio = (var["cpu_s"] or 0) / max(high["cpu_s"] or 1e-9, 1e-9)
        wall = (var["match_s"] or 0) / max(high["match_s"] or 1e-9, 1e-9)
        early = (var["first5_ms"] or 0) / max(var["reserved_ms"] or 1e-9, 1e-9)
        text = (
            f"variation/high {ratio:.2f} in CPU s ({var['cpu_s']:.1f} / {high['cpu_s']:.1f}; "
            f"wall-time sums {wall:.2f}); first 5 / reserved {early:.1f}×"
        )
        passed: bool | None = ratio <= 1.5 and early > 2
    else:
        text, passed = "not measured (needs exact=true, seed 1)", None
    return Criterion(
        "V4",
        "similar times; variation ~10 % faster than high; first jobs cost most",
        text,
        "exact visits: variation's CPU time for the queue ≤ 1.5× high's; mean match time of "
        "the first 5 jobs > 2× the reserved jobs' mean",
        passed,
        "variation 20.4 s vs high 5.9 s (3.5×)",
    )


def _v5_speed(c: _Cells) -> Criterion:
    """V5: the speed target, on the spec's socketed machine; the pooled one beside."""

    def seconds(lod: str) -> dict[str, float]:
        got = {p: c.all.get(("iid", 1, p, False, lod)) for p in POLICIES}
        return {p: m["cpu_s"] or 0.0 for p, m in got.items() if m is not None}

    times, pooled = seconds("socket"), seconds("node")
    ours = "socket: " + (", ".join(f"{p} {t:.1f} s" for p, t in times.items()) or "not run")
    ours += "; pooled: " + (", ".join(f"{p} {t:.1f} s" for p, t in pooled.items()) or "not run")
    timed = [times[p] for p in SPEED_POLICIES if p in times]
    return Criterion(
        "V5",
        "Fig. 7b totals 54.96 s, 52.87 s",
        ours,
        f"the 200-job case study (seed 1, the spec's socketed machine) under "
        f"{TARGET_SECONDS:g} CPU s for each of {', '.join(SPEED_POLICIES)} (the project's "
        "policies; the other variants timed beside)",
        all(t < TARGET_SECONDS for t in timed) if len(timed) == len(SPEED_POLICIES) else None,
        ", ".join(f"{p} {t} s" for p, t in REFERENCE_SECONDS.items()),
    )


#: The criteria (spec §7), one function each, in the report's order.
CRITERIA = (
    _v1_parity,
    _v1a_avoidable,
    _v2_orderings,
    _v3_packing,
    _v3s_strict,
    _v3i_budget,
    _v4_timing,
    _v5_speed,
)


def _criteria(allcells: dict[tuple, dict], full: set) -> list[Criterion]:
    """The criteria; ``full``: keys of cells on the reference's machine and queue size."""
    cells = _Cells.of(allcells, full)
    return [criterion(cells) for criterion in CRITERIA]


def _figures(report: StudyReport, allcells: dict[tuple, dict], out: Path) -> None:
    cells = _primary(allcells)
    lod = "socket" if any(k[4] == "socket" and k[1] == 1 for k in allcells) else "node"
    series = {}
    for policy in POLICIES:
        m = allcells.get(("iid", 1, policy, False, lod))
        if m is not None:
            jobs = sorted(k for k in m if k.startswith("job.") and k.endswith(".ms"))
            series[policy] = [m[k] for k in jobs]
    if series:
        fig = line_plot(
            list(range(1, len(next(iter(series.values()))) + 1)),
            series,
            out / "variation-match-time.png",
            xlabel="job (queue order)",
            ylabel="match time (ms)",
            title=f"Fluxion §6.3 (Fig. 7b): scheduling time per job, seed 1 ({lod} machine)",
            logy=True,
        )
        report.figures.append(("match time per job, seed 1 (Fig. 7b analogue)", fig))
    seeds = sorted({k[1] for k in cells if k[0] == "iid"})
    hist = {}
    for seed in seeds:
        m = next((v for k, v in cells.items() if k[0] == "iid" and k[1] == seed), None)
        if m is not None:
            hist[f"seed {seed}"] = [m.get(f"class{p}") for p in range(1, NCLASSES + 1)]
    if hist:
        fig = line_plot(
            [f"class {p}" for p in range(1, NCLASSES + 1)],
            hist,
            out / "variation-classes.png",
            xlabel="performance class (Eq. 1)",
            ylabel="nodes",
            title="Fluxion §6.3 (Fig. 7a): 2418 quartz nodes per class",
            bar=True,
        )
        report.figures.append(("nodes per performance class (Fig. 7a analogue)", fig))
    fom = {}
    for policy in POLICIES:
        m = cells.get(("iid", 1, policy, False))
        if m is not None:
            fom[policy] = _row(m)
    if fom:
        fig = line_plot(
            [f"fom={k}" for k in range(NCLASSES)],
            fom,
            out / "variation-fom.png",
            xlabel="figure of merit (Eq. 2)",
            ylabel="jobs",
            title="Fluxion §6.3 (Fig. 8): jobs per figure of merit, seed 1",
            bar=True,
        )
        report.figures.append(("jobs per figure of merit, seed 1 (Fig. 8 analogue)", fig))


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria, tables and figures of the variation case study."""
    cells, full = _cells(rows)
    report = StudyReport(TITLE, _criteria(cells, full))
    _tables(report, _primary(cells))
    _timing_table(report, cells)
    _figures(report, cells, out)
    if quick:
        report.notes.append(
            "Quick grid: seed 1 on the pooled machine only; V3 (seeds 1-6) and V5 (the spec's "
            "socketed machine) are not evaluated."
        )
    report.notes += [
        "Inputs are synthetic (spec §3.1, §9.1-9.3): i.i.d. U(0,1) class scores and a generated "
        "queue, byte-identical to the steering generator, so high/low/variation can be compared "
        "row for row with the reference; the paper's own node data and queue are not public. "
        "The baselines' rows depend on how classes lie in id space (spec §9.2): i.i.d. classes "
        "give far more fom=4 jobs than the paper's; rack-correlated layouts (E-V4) move them "
        "towards its shape.",
        "The queue is replayed statically (spec §9.4): one allocate_orelse_reserve per job at "
        "time 0, fom over allocated and reserved jobs alike.",
        "classpack implements the paper's §5.2 wording (one class if possible, spec §4.3); "
        "variation is the reference's greedy best-classes-first policy, unchanged. "
        "classpack-strict (slack ∞) shows what one class for every job costs in start time.",
        "Timings are CPU seconds of one process on a shared 2-core machine (wall time beside).",
    ]
    return report
