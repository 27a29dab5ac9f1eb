"""Study ``bbsched``: BBSched (Fan et al., HPDC 2019), experiments E0-E6 of the reproduction spec.

One cell kind, five tasks (the YAML's ``only`` rules pick the valid combinations):

``table1``    E0: every method on Table 1 (optimisers, and the window pass in the simulator);
``oracle``    E1a: exhaustive front time against the window size;
``ga``        E1b: GA against the exact front (GD, share of the front found, decision agreement)
              for one ``(G, P)`` on seeded windows of ``window`` candidates;
``decision``  E5: ``method.select`` time on seeded windows of ``window`` candidates;
``run``       E2/E3/E4/E6: one method on one workload through the simulator (spec §7).

Deviations from the spec are listed in the report's notes (``NOTES``) and in ``docs/bbsched.md``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.report import line_plot
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import StudyReport, parameters_text
from fluxgraph.papers.bbsched.criteria import METHODS8, Runs, criteria, fmt, pct
from fluxgraph.papers.bbsched.machine import BBMachine
from fluxgraph.papers.bbsched.methods import SSD_METHODS
from fluxgraph.papers.bbsched.metrics import BB_BINS, RUNTIME_BINS, SIZE_BINS, kiviat_areas
from fluxgraph.papers.bbsched.plots import kiviat_chart
from fluxgraph.papers.bbsched.probes import (
    TABLE1,
    TABLE1_EXPECTED,
    decision_times,
    ga_accuracy,
    oracle_times,
    table1_choices,
)
from fluxgraph.papers.bbsched.run import RunOptions, run_case, simulate_method
from fluxgraph.papers.bbsched.workloads import ANALOGUES, DAY, SSD_WORKLOADS, measurement_window
from fluxgraph.papers.bbsched.workloads import workload as make_workload
from fluxgraph.workload import Job

__all__ = ["KIND", "NAME", "TITLE", "YAML", "analyse", "results"]

NAME = "bbsched"
TITLE = "BBSched (Fan et al., HPDC 2019): burst buffers and multi-objective window scheduling"
YAML = "bbsched.yaml"
#: Paper Table 3 (BBSched, Cori-S4 / Theta-S4): w -> (CPU, BB, wait s, slowdown).
TABLE3 = {
    10: ((0.6018, 0.9253, 55732, 162.37), (0.6712, 0.8423, 10402, 8.93)),
    20: ((0.6490, 0.9474, 51028, 154.43), (0.7329, 0.8954, 8847, 8.16)),
    50: ((0.6506, 0.9465, 50871, 153.20), (0.7434, 0.8963, 8792, 8.08)),
}
NOTES = [
    "The burst buffer is a pool of 1-TB chunk vertices (`bb_chunk`), requested exclusively: the "
    "matcher books units on a vertex only for exclusive requests and an exclusive vertex takes "
    "no second job, so one 188,513-GB vertex (spec §2.2) cannot be shared. Requests are rounded "
    "up to whole TB and the pools down (188,000 / 375,000 GB); usages are of the chunked pool.",
    "Match policy `lonodex` (spec §2.2), pruning by node, core and bb aggregates at the cluster.",
    "E1b and E5 use seeded windows (spec §8 smoke generator, k = the window size) instead of "
    "snapshots recorded from Theta-analogue S4: the starvation bound forces most passes there, "
    "so few windows reach k >= 11.",
    "Decision agreement (spec §6, §8.2) asks the decision rule to pick the same objective vector "
    "from the GA front as from the exact front. The paper's p_m = 0.0005 per gene leaves the GA "
    "almost without mutation and it fails; the spec's rerun with `ga_variant=cqsim` is the "
    "second row. The same GA with p_m = 0.05 reaches >= 90% (tests/bbsched/test_bbsched_moo.py); "
    "an independent re-implementation of spec §4.5 agrees as rarely as ours (45 vs 56 of 100 "
    "windows at k = 12, G = 200), so the low agreement is the setting's, not a bug.",
    "Invariant 'byte-identical repeated run' and 'Baseline does not depend on w' are checked by "
    "tests/bbsched/test_bbsched_window.py; here every run is checked for rejected jobs and "
    "starvation-bound violations.",
]


# -- cells ---------------------------------------------------------------------------------


def _table1(_: dict[str, Any]) -> dict[str, float]:
    """E0: how many of the eight methods select the sets of spec §4.8."""
    choices = table1_choices()
    ok = sum(choices[m] == ids for m, ids in TABLE1_EXPECTED.items())
    machine = BBMachine("table1", ((100, 1),), 100, bb_chunk=1)
    jobs = [Job(i + 1, 0, 10, 10, n, n, extra={"bb": b}) for i, (n, b) in enumerate(TABLE1)]
    expected = {**TABLE1_EXPECTED, "Baseline": [1, 4]}
    in_sim = 0
    for method, ids in expected.items():
        result, _ = simulate_method(jobs, machine, method, RunOptions(verify=True))
        in_sim += [r.job.id for r in result.jobs if r.start == 0] == ids
    return {"optimiser_matches": float(ok), "simulator_matches": float(in_sim), "methods": 8.0}


def _workload_jobs(params: dict[str, Any], ctx: CellContext) -> tuple[list[Job], tuple[int, int]]:
    limit = params.get("limit", 0) or None
    traces = ctx.path(params.get("traces", "../shared/traces"))
    jobs = list(make_workload(params["analogue"], params["workload"], traces, limit).jobs)
    margin = round(params.get("margin_days", 15) * DAY)
    return jobs, measurement_window(jobs, margin)


def _run_task(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    analogue, workload = params["analogue"], params["workload"]
    jobs, window = _workload_jobs(params, ctx)
    recipe = f"bbsched-{analogue}" + ("-ssd" if workload in SSD_WORKLOADS else "")
    options = RunOptions(
        window=params["window"],
        starve_bound=params.get("starve_bound", 50),
        base=ANALOGUES[analogue].base,
        generations=params["generations"],
        population=params["population"],
        ga_variant=params["ga_variant"],
    )
    bins = analogue == "lublin" and workload == "S4"
    return run_case(jobs, recipe, params["method"], window, options, bins=bins)


def _run(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    task = params["task"]
    if task == "table1":
        return _table1(params)
    if task == "oracle":
        return oracle_times(range(10, 23))
    if task == "ga":
        return ga_accuracy(
            params["generations"],
            params["population"],
            params.get("windows", 200),
            params.get("seeds", 5),
            params["window"],
            variant=params["ga_variant"],
        )
    if task == "decision":
        return decision_times(
            params["method"], params["window"], params.get("windows", 200), params["generations"]
        )
    return _run_task(params, ctx)


KIND = Kind(
    "bbsched",
    _run,
    {
        "task": {"enum": ["table1", "oracle", "ga", "decision", "run"]},
        "analogue": {"enum": list(ANALOGUES)},
        "workload": {"enum": ["Original", "S1", "S2", "S3", "S4", "S5", "S6", "S7"]},
        "method": {"type": "string", "minLength": 1},
        "window": {"type": "integer", "minimum": 1, "maximum": 62},
        "generations": {"type": "integer", "minimum": 0},
        "population": {"type": "integer", "minimum": 2},
        "ga_variant": {"enum": ["paper", "cqsim"]},
        "traces": {"type": "string"},
        "limit": {"type": "integer", "minimum": 0},
        "margin_days": {"type": "number", "minimum": 0},
        "starve_bound": {"type": "integer", "minimum": 1},
        "windows": {"type": "integer", "minimum": 1},
        "seeds": {"type": "integer", "minimum": 1},
    },
    required=("task",),
)


# -- results and analysis ------------------------------------------------------------------


def results(rows: list[CellRow]) -> list[list[Any]]:
    """Long rows of ``results.csv`` (experiment = task, scheduler = method)."""
    out = []
    for r in rows:
        params = parameters_text(r.params, skip=("method", "traces"))
        for metric, value in sorted(r.metrics.items()):
            out.append([f"{NAME}:{r.params['task']}", r.params["method"], params, metric, value])
    return out


def _axes(runs: Runs, a: str, wl: str, methods: list[str], ssd: bool) -> dict[str, list[float]]:
    out = {}
    for m in methods:
        values = [
            runs.get(a, wl, m, "node_usage"),
            runs.get(a, wl, m, "bb_usage"),
            1 / (runs.get(a, wl, m, "avg_wait") or math.inf),
            1 / (runs.get(a, wl, m, "avg_slowdown") or math.inf),
        ]
        if ssd:
            values += [runs.get(a, wl, m, "ssd_usage"), 1 / (runs.get(a, wl, m, "ssd_waste") or 1)]
        if all(v is not None for v in values):
            out[m] = values
    return out


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria (spec §8), tables and Kiviat charts of the bbsched study."""
    runs = Runs(rows)
    areas: dict[tuple[str, str], dict[str, float]] = {}
    report = StudyReport(TITLE)
    for a, w in sorted({k[:2] for k in runs.m}):
        ssd = w in SSD_WORKLOADS
        methods = [m for m in (SSD_METHODS if ssd else METHODS8) if m in runs.methods(a, w)]
        axes = _axes(runs, a, w, methods, ssd)
        if len(axes) >= 2:
            areas[(a, w)] = kiviat_areas(axes)
            fig = kiviat_chart(
                {m: list(v) for m, v in axes.items()}, f"{a} {w}", out / f"kiviat-{a}-{w}.png"
            )
            if fig:
                report.figures.append((f"Kiviat, {a}-analogue {w}", fig))
        body = []
        base = runs.get(a, w, "Baseline", "avg_wait")
        for m in methods:
            wait = runs.get(a, w, m, "avg_wait")
            body.append(
                [
                    m,
                    pct(runs.get(a, w, m, "node_usage")),
                    pct(runs.get(a, w, m, "bb_usage")),
                    fmt(wait, 5),
                    "-" if not base or wait is None else f"{wait / base - 1:+.1%}",
                    fmt(runs.get(a, w, m, "avg_slowdown")),
                    *(
                        [pct(runs.get(a, w, m, "ssd_usage")), pct(runs.get(a, w, m, "ssd_waste"))]
                        if ssd
                        else []
                    ),
                    fmt(areas.get((a, w), {}).get(m)),
                    fmt(runs.get(a, w, m, "decision_median_ms")),
                ]
            )
        if body:
            head = [
                "method",
                "node usage",
                "BB usage",
                "avg wait s",
                "wait vs Baseline",
                "avg slowdown",
                *(["SSD usage", "SSD waste"] if ssd else []),
                "Kiviat area",
                "decision median ms",
            ]
            mw, mg = runs.main[(a, w)]
            report.tables.append((f"E2/E6: {a}-analogue {w} (w={mw}, G={mg})", head, body))
    _tables(report, rows, runs, out)
    report.criteria = criteria(rows, runs, areas)
    report.notes = list(NOTES)
    if quick:
        report.notes.insert(
            0,
            "Quick grid: the spec §8 smoke version; H1-H3, E4 and E6 need the "
            "full grid (`fluxgraph reproduce bbsched`).",
        )
    return report


def _tables(report: StudyReport, rows: list[CellRow], runs: Runs, out: Path) -> None:
    for a, idx in (("kth", 0), ("lublin", 1)):
        body = []
        for w in (10, 20, 50):
            g = 2000 if w == 50 and (a, "S4", "BBSched", 50, 2000) in runs.m else 500
            ours = [
                runs.get(a, "S4", "BBSched", m, w, 500)
                for m in ("node_usage", "bb_usage", "avg_wait", "avg_slowdown")
            ]
            paper = TABLE3[w][idx]
            body.append(
                [
                    w,
                    f"{paper[0]:.2%} / {pct(ours[0])}",
                    f"{paper[1]:.2%} / {pct(ours[1])}",
                    f"{paper[2]} / {fmt(ours[2], 5)}",
                    f"{paper[3]} / {fmt(ours[3])}",
                ]
            )
            if g == 2000:
                alt = [
                    runs.get(a, "S4", "BBSched", m, 50, 2000)
                    for m in ("node_usage", "bb_usage", "avg_wait", "avg_slowdown")
                ]
                body.append(["50, G=2000", pct(alt[0]), pct(alt[1]), fmt(alt[2], 5), fmt(alt[3])])
        if any(runs.get(a, "S4", "BBSched", "node_usage", w) is not None for w in (10, 20, 50)):
            report.tables.append(
                (
                    f"E4 (Table 3): BBSched on {a}-analogue S4, paper / ours",
                    ["w", "CPU usage", "BB usage", "avg wait s", "avg slowdown"],
                    body,
                )
            )
    bins = {"size": SIZE_BINS, "bb": BB_BINS, "runtime": RUNTIME_BINS}
    for by, spec in bins.items():
        body = []
        for m in METHODS8:
            vals = [runs.get("lublin", "S4", m, f"wait_{by}_{i}") for i in range(len(spec))]
            if any(v is not None for v in vals):
                body.append([m, *(fmt(v, 4) for v in vals)])
        if body:
            report.tables.append(
                (
                    f"E3: average wait (s) by {by}, lublin-analogue S4",
                    ["method", *(name for name, _, _ in spec)],
                    body,
                )
            )
    ga_all = sorted(
        (
            (
                r.params["window"],
                r.params["generations"],
                r.params["population"],
                r.params["ga_variant"],
                r.metrics,
            )
            for r in rows
            if r.params["task"] == "ga" and r.status == "done"
        ),
        key=lambda t: (t[0], t[3], t[2], t[1]),
    )
    ga = [t[1:] for t in ga_all if t[0] == 16]
    if ga_all:
        report.tables.append(
            (
                "E1b: GA against the exact front (seeded windows of k candidates)",
                ["k", "G", "P", "variant", "mean GD", "front found", "agreement", "GA median ms"],
                [
                    [
                        k,
                        g,
                        p,
                        v,
                        fmt(m["gd"]),
                        pct(m["front_found"]),
                        pct(m["agreement"]),
                        fmt(m["ga_median_ms"]),
                    ]
                    for k, g, p, v, m in ga_all
                ],
            )
        )
    if ga:
        series: dict[str, list[float | None]] = defaultdict(list)
        gens = sorted({g for g, _, v, _ in ga if v == "paper"})
        for p in sorted({p for _, p, v, _ in ga if v == "paper"}):
            lookup = {g: m["gd"] for g, pp, v, m in ga if pp == p and v == "paper"}
            series[f"P={p}"] = [lookup.get(g) for g in gens]
        fig = line_plot(gens, series, out / "ga-gd.png", xlabel="generations G", ylabel="mean GD")
        report.figures.append(("E1b: GD against G (k = 16)", fig))
    dec = [
        (r.params["method"], r.params["window"], r.params["generations"], r.metrics)
        for r in rows
        if r.params["task"] == "decision" and r.status == "done"
    ]
    if dec:
        report.tables.append(
            (
                "E5: decision time per pass (seeded windows, 1-TB chunks)",
                ["method", "w", "G", "median ms", "mean ms", "p99 ms"],
                [
                    [m, w, g, fmt(x["median_ms"]), fmt(x["mean_ms"]), fmt(x["p99_ms"])]
                    for m, w, g, x in sorted(dec)
                ],
            )
        )
    oracle = next((r.metrics for r in rows if r.params["task"] == "oracle"), None)
    if oracle:
        ks = sorted(int(k.split(".")[1]) for k in oracle)
        report.tables.append(
            (
                "E1a: exhaustive front time (s) against the window size",
                ["k", "seconds"],
                [[k, fmt(oracle[f"oracle_s.{k}"])] for k in ks],
            )
        )
