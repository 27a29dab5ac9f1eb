"""Study ``bbsched``: BBSched (Fan et al., HPDC 2019), experiments E0-E6 of the reproduction spec.

One cell kind, six tasks (the YAML's ``only`` rules pick the valid combinations):

``table1``    E0: every method on Table 1 (optimisers, and the window pass in the simulator);
``oracle``    E1a: exhaustive front time against the window size;
``ga``        E1b: GA against the exact front (GD, share of the front found, decision agreement)
              for one ``(G, P)`` on seeded windows of ``window`` candidates;
``decision``  E5: ``method.select`` time on seeded windows of ``window`` candidates;
``run``       E2/E3/E4/E6 and the ablations: one method on one workload through the
              simulator (spec §7) with the amendment's options ``calibration`` (pool W1/W2/W3,
              ``copies``), ``starve``, ``exact_below`` and ``mutation``;
``calibrate`` amendment D2: W2's search for the pool (Baseline runs on S4 and Original).

The criteria are in :mod:`~fluxgraph.papers.bbsched.criteria` (required) and
:mod:`~fluxgraph.papers.bbsched.claims` (the paper's claims, reported, and the verdict line);
the tables in :mod:`~fluxgraph.papers.bbsched.tables`.

Deviations from the spec are listed in the report's notes (``NOTES``) and in ``docs/bbsched.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import StudyReport, parameters_text
from fluxgraph.papers.bbsched.calibration import machine_for, run_pool, wait_scaled
from fluxgraph.papers.bbsched.claims import claims
from fluxgraph.papers.bbsched.criteria import Runs, required
from fluxgraph.papers.bbsched.machine import BBMachine
from fluxgraph.papers.bbsched.probes import (
    TABLE1,
    TABLE1_EXPECTED,
    decision_times,
    ga_accuracy,
    oracle_times,
    table1_choices,
)
from fluxgraph.papers.bbsched.run import RunOptions, run_case, simulate_method
from fluxgraph.papers.bbsched.tables import (
    ablation_table,
    calibration_table,
    paper_tables,
    regime,
    run_tables,
    s7_table,
)
from fluxgraph.papers.bbsched.window import STARVE
from fluxgraph.papers.bbsched.workloads import (
    ANALOGUES,
    CALIBRATIONS,
    DAY,
    SSD_WORKLOADS,
    measurement_window,
)
from fluxgraph.papers.bbsched.workloads import workload as make_workload
from fluxgraph.workload import Job

__all__ = ["KIND", "NAME", "TITLE", "YAML", "analyse", "results"]

NAME = "bbsched"
TITLE = "BBSched (Fan et al., HPDC 2019): burst buffers and multi-objective window scheduling"
YAML = "bbsched.yaml"
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
    "from the GA front as from the exact front. The amendment (D1) reports it without a "
    "threshold: the >= 90% threshold was the specification's own (the paper reports only GD "
    "curves) and no mutation rate reaches it at k = 16, G = 500. The E1b table gives it for "
    "p_m = 0.0005 (the paper's, default), 0.005, 0.05 and the cqsim variant.",
    "Amendment of 2026-11-28: the pools are W2 (wait-scaled, default), W1 (spec §3.4, "
    "saturated) and W3 (4 multiplexed copies); `starve` pass (default) / none (the authors' "
    "code) / optimiser; `exact_below` up to 20; `mutation`. The reported claims give the paper's "
    "value, ours under W1 and W2, and the best BBSched result of any run of the grid against "
    "its Baseline on the same pool.",
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


def _workload_jobs(
    params: dict[str, Any], ctx: CellContext, workload: str = ""
) -> tuple[list[Job], tuple[int, int]]:
    limit = params.get("limit", 0) or None
    traces = ctx.path(params.get("traces", "../shared/traces"))
    wl = workload or params["workload"]
    copies = params.get("copies", 1)
    jobs = list(make_workload(params["analogue"], wl, traces, limit, copies=copies).jobs)
    margin = round(params.get("margin_days", 15) * DAY)
    return jobs, measurement_window(jobs, margin)


def _options(params: dict[str, Any]) -> RunOptions:
    return RunOptions(
        window=params["window"],
        starve_bound=params.get("starve_bound", 50),
        base=ANALOGUES[params["analogue"]].base,
        generations=params["generations"],
        population=params["population"],
        mutation=params.get("mutation", 0.0005),
        ga_variant=params["ga_variant"],
        exact_below=params.get("exact_below", 10),
        starve=params.get("starve", "pass"),
    )


def _machine(params: dict[str, Any], ctx: CellContext) -> BBMachine:
    """The run's machine: the analogue's, with the pool of the cell's calibration (D2)."""
    analogue, calibration = params["analogue"], params.get("calibration", "W1")
    copies = params.get("copies", 1)
    traces = ctx.path(params.get("traces", "../shared/traces"))
    bb = run_pool(analogue, calibration, traces, copies)
    return machine_for(analogue, calibration, copies, params["workload"] in SSD_WORKLOADS, bb)


def _run_task(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    analogue, workload = params["analogue"], params["workload"]
    jobs, window = _workload_jobs(params, ctx)
    bins = analogue == "lublin" and workload == "S4"
    machine = _machine(params, ctx)
    out = run_case(jobs, machine, params["method"], window, _options(params), bins=bins)
    out["pool_gb"] = float(machine.bb)
    return out


def _calibrate(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    """Amendment D2: W2's search for ``rho`` on the cell's analogue (Baseline runs)."""
    analogue = params["analogue"]
    options = _options(params)
    traces = ctx.path(params.get("traces", "../shared/traces"))
    cache: dict[str, tuple[list[Job], tuple[int, int]]] = {}

    def baseline_wait(workload: str, bb: int) -> float:
        if workload not in cache:
            cache[workload] = _workload_jobs(params, ctx, workload)
        jobs, window = cache[workload]
        machine = machine_for(analogue, "W2", bb=bb)
        return run_case(jobs, machine, "Baseline", window, options)["avg_wait"]

    return wait_scaled(analogue, traces, baseline_wait, params.get("margin_days", 15))


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
            params.get("mutation", 0.0005),
            params["ga_variant"],
        )
    if task == "decision":
        return decision_times(
            params["method"], params["window"], params.get("windows", 200), params["generations"]
        )
    if task == "calibrate":
        return _calibrate(params, ctx)
    return _run_task(params, ctx)


KIND = Kind(
    "bbsched",
    _run,
    {
        "task": {"enum": ["table1", "oracle", "ga", "decision", "run", "calibrate"]},
        "analogue": {"enum": list(ANALOGUES)},
        "workload": {"enum": ["Original", "S1", "S2", "S3", "S4", "S5", "S6", "S7"]},
        "method": {"type": "string", "minLength": 1},
        "window": {"type": "integer", "minimum": 1, "maximum": 62},
        "generations": {"type": "integer", "minimum": 0},
        "population": {"type": "integer", "minimum": 2},
        "ga_variant": {"enum": ["paper", "cqsim"]},
        "mutation": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        "exact_below": {"type": "integer", "minimum": 0, "maximum": 20},
        "calibration": {"enum": list(CALIBRATIONS)},
        "starve": {"enum": list(STARVE)},
        "copies": {"type": "integer", "minimum": 1, "maximum": 8},
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


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria (spec §8 as amended), tables and Kiviat charts of the bbsched study: the main
    runs of the default pool (W2) first, then W1's, the ablations and the probes."""
    main = "W2" if Runs(rows, "W2").m else "W1"
    report = StudyReport(f"{TITLE}. {regime(rows, main)}")
    for calibration in dict.fromkeys((main, "W2", "W1")):
        runs = Runs(rows, calibration)
        if runs.m:
            run_tables(report, runs, out, figures=calibration == main)
    ablation_table(report, rows)
    s7 = s7_table(report, rows)
    calibration_table(report, rows)
    paper_tables(report, rows, Runs(rows, main), out)
    found = claims(rows)
    report.criteria = found[:1] + required(rows) + found[1:]
    report.notes = list(NOTES) + ([s7] if s7 else [])
    if quick:
        report.notes.insert(
            0,
            "Quick grid: the spec §8 smoke version; H1-H3, E4 and E6 need the "
            "full grid (`fluxgraph reproduce bbsched`).",
        )
    return report
