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

import itertools
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.report import line_plot
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion, StudyReport, parameters_text
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
METHODS8 = (
    "Baseline",
    "BBSched",
    "Weighted",
    "Weighted_CPU",
    "Weighted_BB",
    "Constrained_CPU",
    "Constrained_BB",
    "Bin_Packing",
)
OPTIMISERS = METHODS8[1:]
BB_WORKLOADS = ("Original", "S1", "S2", "S3", "S4")
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


def _fmt(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}g}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


class _Runs:
    """The ``run`` cells by ``(analogue, workload, method, window, generations)``; a workload's
    *main* setting is w = 20, G = 500 when it ran, else its first (the quick grid's w = 12)."""

    def __init__(self, rows: list[CellRow]) -> None:
        self.m: dict[tuple, dict[str, float | None]] = {}
        self.main: dict[tuple[str, str], tuple[int, int]] = {}
        for r in rows:
            p = r.params
            if p["task"] == "run" and r.status == "done":
                setting = (p["window"], p["generations"])
                self.m[(p["analogue"], p["workload"], p["method"], *setting)] = r.metrics
                key = (p["analogue"], p["workload"])
                if key not in self.main or setting == (20, 500):
                    self.main[key] = setting

    def get(self, a: str, wl: str, method: str, metric: str, w: int = 0, g: int = 0):
        mw, mg = self.main.get((a, wl), (20, 500))
        return self.m.get((a, wl, method, w or mw, g or mg), {}).get(metric)

    def workloads(self, names: tuple[str, ...]) -> list[tuple[str, str]]:
        return sorted({(k[0], k[1]) for k in self.m if k[1] in names})

    def methods(self, a: str, wl: str) -> list[str]:
        setting = self.main.get((a, wl))
        return [k[2] for k in self.m if k[:2] == (a, wl) and k[3:] == setting]


def _axes(runs: _Runs, a: str, wl: str, methods: list[str], ssd: bool) -> dict[str, list[float]]:
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


def _ssd_waste_criterion(
    runs: _Runs, ssd_wl: list[tuple[str, str]], areas: dict[tuple[str, str], dict[str, float]]
) -> Criterion:
    """Spec §8.8 (E6): Constrained_CPU, Constrained_SSD and Bin_Packing each waste more SSD
    than Baseline on 4+ of the 6 SSD workloads, and Weighted's Kiviat area is below
    BBSched's on 4+ of them."""
    parts, oks = [], []
    for method in ("Constrained_CPU", "Constrained_SSD", "Bin_Packing"):
        more = []
        for a, w in ssd_wl:
            mine = runs.get(a, w, method, "ssd_waste")
            base = runs.get(a, w, "Baseline", "ssd_waste")
            more.append(None if mine is None or base is None else mine > base)
        ok, text = _count(more, 4, 6)
        parts.append(f"{method} {text}")
        oks.append(ok)
    below = [
        None if "Weighted" not in areas.get(k, {}) else areas[k]["Weighted"] < areas[k]["BBSched"]
        for k in ssd_wl
    ]
    ok, text = _count(below, 4, 6)
    parts.append(f"Weighted below BBSched {text}")
    oks.append(ok)
    verdict = None if None in oks else all(oks)
    return Criterion(
        "E6",
        "Fig. 14: C_CPU, C_SSD, Bin_Packing waste more SSD; Weighted area below BBSched",
        "; ".join(parts),
        "each 4+ of 6 (waste > Baseline; Weighted area < BBSched)",
        verdict,
    )


def _count(checks: list[bool | None], need: int, of: int) -> tuple[bool | None, str]:
    """``need`` of the ``of`` workloads must hold (not evaluated with fewer workloads)."""
    known = [c for c in checks if c is not None]
    if len(known) < of:
        return None, f"{sum(known)}/{len(known)} evaluated of {len(checks)}"
    return sum(known) >= need, f"{sum(known)}/{len(known)}"


def _accuracy_criteria(
    ga: dict[tuple, dict[str, float]], k: int, generations: int, cid: str, claim: str
) -> list[Criterion]:
    """Spec §8.2: agreement >= 90% and mean GD <= 0.02 with the paper's GA (P = 20); when it
    fails, the spec's rerun with ``ga_variant = cqsim`` is a second row."""
    out = []
    for variant in ("paper", "cqsim"):
        m = ga.get((k, generations, 20, variant))
        if m is None:
            continue
        ok = m["agreement"] >= 0.9 and m["gd"] <= 0.02
        ours = f"agreement {m['agreement']:.0%}, GD {m['gd']:.4f}"
        name = cid if variant == "paper" else f"{cid} (cqsim rerun)"
        out.append(Criterion(name, claim, ours, ">= 90%, GD <= 0.02", ok))
        if ok:
            break
    return out


def _criteria(rows: list[CellRow], runs: _Runs, areas: dict) -> list[Criterion]:
    crit = []
    t1 = next((r.metrics for r in rows if r.params["task"] == "table1"), None)
    if t1:
        ok = t1["optimiser_matches"] == 7 and t1["simulator_matches"] == 8
        ours = f"{t1['optimiser_matches']:.0f}/7 optimisers, {t1['simulator_matches']:.0f}/8 in sim"
        crit.append(Criterion("E0", "Table 1 sets (spec §4.8)", ours, "all 8 methods", ok))
    ga = {
        (
            r.params["window"],
            r.params["generations"],
            r.params["population"],
            r.params["ga_variant"],
        ): r.metrics
        for r in rows
        if r.params["task"] == "ga" and r.status == "done"
    }
    crit += _accuracy_criteria(ga, 16, 500, "E1b-1", "GA G=500 P=20 accurate (k = 16)")
    crit += _accuracy_criteria(ga, 12, 200, "smoke-oracle", "GA G=200 P=20, k = 12 (spec §8 smoke)")
    ga = {(g, p, v): m for (w, g, p, v), m in ga.items() if w == 16}
    if ga.get((500, 20, "paper")):
        gens = sorted({g for g, p, v in ga if p == 20 and v == "paper"})
        gds = [ga[(g, 20, "paper")]["gd"] for g in gens]
        mono = all(b <= a + 1e-4 for a, b in itertools.pairwise(gds))
        drops = [a - b for a, b in itertools.pairwise(gds)]
        early = bool(drops) and gens[drops.index(max(drops)) + 1] <= 500
        text = ", ".join(f"G={g}: {d:.4f}" for g, d in zip(gens, gds, strict=True))
        crit.append(
            Criterion(
                "E1b-2",
                "GD falls fastest in 0-500",
                text,
                "non-increasing, max drop <=500",
                mono and early,
            )
        )
        p10, p40 = ga.get((500, 10, "paper")), ga.get((500, 40, "paper"))
        if p10 and p40:
            crit.append(
                Criterion(
                    "E1b-3",
                    "larger P lowers GD",
                    f"P=10 {p10['gd']:.4f}, P=40 {p40['gd']:.4f}",
                    "GD(P=40) <= GD(P=10)",
                    p40["gd"] <= p10["gd"],
                )
            )
    oracle = next((r.metrics for r in rows if r.params["task"] == "oracle"), None)
    if oracle:
        ks = sorted(int(k.split(".")[1]) for k in oracle)
        ratios = [oracle[f"oracle_s.{k + 1}"] / oracle[f"oracle_s.{k}"] for k in ks[:-1] if k >= 16]
        mean = sum(ratios) / len(ratios)
        crit.append(
            Criterion(
                "E1a",
                "exhaustive time doubles per job (Fig. 2)",
                f"mean ratio {mean:.2f} (k 16-22); k=22: {oracle['oracle_s.22']:.2f} s",
                "ratio in [1.5, 3]",
                1.5 <= mean <= 3,
            )
        )
    _run_criteria(crit, runs, areas)
    dec = {
        (r.params["method"], r.params["window"], r.params["generations"]): r.metrics
        for r in rows
        if r.params["task"] == "decision" and r.status == "done"
    }
    if (m20 := dec.get(("BBSched", 20, 500))) is not None:
        others = {k[0]: v["median_ms"] for k, v in dec.items() if k[1] == 20 and k[2] == 500}
        fastest = min(others, key=others.get)
        crit.append(
            Criterion(
                "E5",
                "BBSched ~1 s per decision; Bin_Packing fastest",
                f"BBSched median {m20['median_ms']:.1f} ms; fastest {fastest}",
                "median <= 200 ms (project target); Bin_Packing fastest",
                m20["median_ms"] <= 200 and fastest == "Bin_Packing",
            )
        )
    return crit


def _run_criteria(crit: list[Criterion], runs: _Runs, areas: dict) -> None:
    g = runs.get
    bbw = runs.workloads(BB_WORKLOADS)
    s_wl = [(a, w) for a, w in bbw if w != "Original"]
    if not bbw:
        return
    # H1
    c1 = []
    for a, w in bbw:
        best_other = max((g(a, w, m, "bb_usage") or 0) for m in OPTIMISERS if m != "BBSched")
        bb = g(a, w, "BBSched", "bb_usage")
        c1.append(None if bb is None else bb >= best_other - 0.01)
    ok, text = _count(c1, 8, 10)
    crit.append(
        Criterion(
            "H1-a", "BBSched best BB usage on all 10", text, ">= best other - 1 pp on 8+ of 10", ok
        )
    )
    above = [
        None
        if g(a, w, "BBSched", "bb_usage") is None
        else g(a, w, "BBSched", "bb_usage") > (g(a, w, "Baseline", "bb_usage") or 0)
        for a, w in s_wl
    ]
    ok, text = _count(above, 8, 8)
    crit.append(
        Criterion(
            "H1-b",
            "every method but C_CPU improves BB",
            text,
            "BBSched BB usage > Baseline on all S-workloads",
            ok if s_wl else None,
        )
    )
    for a in ("kth", "lublin"):
        node, base, ccpu = (
            g(a, "S4", m, "node_usage") for m in ("BBSched", "Baseline", "Constrained_CPU")
        )
        if None not in (node, base, ccpu):
            crit.append(
                Criterion(
                    f"H1-c-{a}",
                    "+16.28% (Cori-S4), +20.03% (Theta-S4) nodes",
                    f"{node / base - 1:+.2%} vs Baseline, C_CPU {ccpu:.3f}",
                    ">= 1.05 x Baseline and >= Constrained_CPU",
                    node >= 1.05 * base and node >= ccpu,
                )
            )
    # H2
    waits = [
        None
        if g(a, w, "BBSched", "avg_wait") is None
        else g(a, w, "BBSched", "avg_wait") < (g(a, w, "Baseline", "avg_wait") or 0)
        for a, w in bbw
    ]
    ok, text = _count(waits, 9, 10)
    crit.append(
        Criterion(
            "H2-a",
            "every method beats Baseline on wait",
            text,
            "BBSched wait < Baseline on 9+ of 10",
            ok,
        )
    )
    lowest = [
        None
        if g(a, w, "BBSched", "avg_wait") is None
        else g(a, w, "BBSched", "avg_wait")
        <= min(g(a, w, m, "avg_wait") or math.inf for m in METHODS8)
        for a, w in s_wl
    ]
    ok, text = _count(lowest, 6, 8)
    crit.append(Criterion("H2-b", "BBSched lowest wait", text, "lowest on 6+ of 8 S-workloads", ok))
    # H3
    best = [
        None if (a, w) not in areas else max(areas[(a, w)], key=areas[(a, w)].get) == "BBSched"
        for a, w in bbw
    ]
    ok, text = _count(best, 8, 10)
    crit.append(Criterion("H3-a", "BBSched largest Kiviat area", text, "largest on 8+ of 10", ok))
    ssd_wl = runs.workloads(tuple(SSD_WORKLOADS))
    if ssd_wl:
        best = [max(areas[k], key=areas[k].get) == "BBSched" for k in ssd_wl if k in areas]
        ok, text = _count(best, 4, 6)
        crit.append(Criterion("H3-b/E6", "BBSched best with SSDs", text, "largest on 4+ of 6", ok))
        crit.append(_ssd_waste_criterion(runs, ssd_wl, areas))
    # E4
    for a in ("kth", "lublin"):
        v = {
            w: [
                g(a, "S4", "BBSched", m, w)
                for m in ("node_usage", "bb_usage", "avg_wait", "avg_slowdown")
            ]
            for w in (10, 20, 50)
        }
        if all(None not in x for x in v.values()):
            better = v[20][0] >= v[10][0] and v[20][1] >= v[10][1] and v[20][2] <= v[10][2]
            close = all(abs(x50 / x20 - 1) <= 0.03 for x20, x50 in zip(v[20], v[50], strict=True))
            crit.append(
                Criterion(
                    f"E4-{a}",
                    "Table 3: w=20 beats w=10, w=50 ~ w=20",
                    f"nodes {v[10][0]:.3f}/{v[20][0]:.3f}/{v[50][0]:.3f}",
                    "w20 >= w10 (nodes, BB, wait); w50 within 3%",
                    better and close,
                )
            )
    # invariants
    bad = sum(
        (m.get("rejected") or 0) + (m.get("starvation_violations") or 0) for m in runs.m.values()
    )
    crit.append(
        Criterion(
            "I",
            "every job finishes; starvation bound holds",
            f"{bad:.0f} faults in {len(runs.m)} runs",
            "0",
            bad == 0,
        )
    )
    smoke = ("lublin", "S4", "BBSched", 12, 100)
    if smoke in runs.m:
        bb, base = (
            runs.m[smoke]["bb_usage"],
            runs.get("lublin", "S4", "Baseline", "bb_usage", 12, 100),
        )
        crit.append(
            Criterion(
                "smoke",
                "BBSched BB usage >= Baseline (spec §8 smoke)",
                f"{_pct(bb)} vs {_pct(base)}",
                ">=",
                None if base is None else bb >= base,
            )
        )


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria (spec §8), tables and Kiviat charts of the bbsched study."""
    runs = _Runs(rows)
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
                    _pct(runs.get(a, w, m, "node_usage")),
                    _pct(runs.get(a, w, m, "bb_usage")),
                    _fmt(wait, 5),
                    "-" if not base or wait is None else f"{wait / base - 1:+.1%}",
                    _fmt(runs.get(a, w, m, "avg_slowdown")),
                    *(
                        [_pct(runs.get(a, w, m, "ssd_usage")), _pct(runs.get(a, w, m, "ssd_waste"))]
                        if ssd
                        else []
                    ),
                    _fmt(areas.get((a, w), {}).get(m)),
                    _fmt(runs.get(a, w, m, "decision_median_ms")),
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
    report.criteria = _criteria(rows, runs, areas)
    report.notes = list(NOTES)
    if quick:
        report.notes.insert(
            0,
            "Quick grid: the spec §8 smoke version; H1-H3, E4 and E6 need the "
            "full grid (`fluxgraph reproduce bbsched`).",
        )
    return report


def _tables(report: StudyReport, rows: list[CellRow], runs: _Runs, out: Path) -> None:
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
                    f"{paper[0]:.2%} / {_pct(ours[0])}",
                    f"{paper[1]:.2%} / {_pct(ours[1])}",
                    f"{paper[2]} / {_fmt(ours[2], 5)}",
                    f"{paper[3]} / {_fmt(ours[3])}",
                ]
            )
            if g == 2000:
                alt = [
                    runs.get(a, "S4", "BBSched", m, 50, 2000)
                    for m in ("node_usage", "bb_usage", "avg_wait", "avg_slowdown")
                ]
                body.append(
                    ["50, G=2000", _pct(alt[0]), _pct(alt[1]), _fmt(alt[2], 5), _fmt(alt[3])]
                )
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
                body.append([m, *(_fmt(v, 4) for v in vals)])
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
                        _fmt(m["gd"]),
                        _pct(m["front_found"]),
                        _pct(m["agreement"]),
                        _fmt(m["ga_median_ms"]),
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
                    [m, w, g, _fmt(x["median_ms"]), _fmt(x["mean_ms"]), _fmt(x["p99_ms"])]
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
                [[k, _fmt(oracle[f"oracle_s.{k}"])] for k in ks],
            )
        )
