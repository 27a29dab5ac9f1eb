"""The ``disagg`` study: a reduced quick grid end to end (results.csv, report.md with R0-R9,
figures), the analysis against the cells' own runs, the criteria on constructed grids, and
(opt-in: FLUXGRAPH_RUNSLOW) the bundled quick grid."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from fluxgraph.__main__ import main
from fluxgraph.errors import ExperimentError
from fluxgraph.experiments import studies
from fluxgraph.experiments.kinds import CellContext
from fluxgraph.experiments.spec import Experiment
from fluxgraph.experiments.store import CellRow
from fluxgraph.papers.disagg import study as disagg
from fluxgraph.papers.disagg.grid import DisaggGrid, criteria, profile_of
from fluxgraph.papers.disagg.machines import MemoryMachineSpec, large_count
from fluxgraph.papers.disagg.metrics import run_metrics, timeline
from fluxgraph.papers.disagg.mix import trace_mix
from fluxgraph.papers.disagg.sim import DisaggSimulator

LUBLIN = Path(__file__).resolve().parents[3] / "shared" / "traces" / "lublin_256.swf"
needs_trace = pytest.mark.skipif(not LUBLIN.exists(), reason="shared traces absent")
IDS = ["R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"]


def _small(exp: Experiment) -> Experiment:
    """The bundled quick grid cut to lublin, S in {0, 25, 100}, X in {0, 50}: 11 runs of the
    default profile and E9's (0, 50) and (25, 50) under the three other profiles (6 runs)."""
    doc = exp.to_dict()
    doc["zip"] = [g for g in doc["zip"] if "experiment" not in g]  # (the profiles stay)
    doc["fixed"].update(experiment="E2", trace=str(LUBLIN), per_node=64, nodes=16, window=0)
    doc["axes"].update(S=[0, 25, 100], X=[0, 50])
    doc["exclude"] = [r for r in doc["exclude"] if "experiment" not in r]  # (E2 only here)
    fixed = ("experiment", "window")
    doc["only"] = [{k: v for k, v in r.items() if k not in fixed} for r in doc["only"]]
    return Experiment.from_dict(doc, base_dir=exp.base_dir)


@needs_trace
def test_reduced_quick_study_end_to_end(tmp_path, monkeypatch):
    bundled = studies.study_experiment("disagg", quick=True)
    monkeypatch.setattr(studies, "study_experiment", lambda *_: _small(bundled))
    out = tmp_path / "disagg"
    sweep, report = studies.reproduce("disagg", out, quick=True, workers=1, progress=False)
    assert sweep.total == 17 and sweep.failed == 0
    text = (out / "report.md").read_text()
    for cid in IDS:
        assert f"| {cid} |" in text
    assert [c.id for c in report.criteria] == IDS
    r0 = report.criteria[0]
    assert r0.passed is True and r0.ours.startswith("4/4")  # X = 0 on 3 S; (100, 50)
    # R9 reads the interference=none cells; R4 shows them beside the default
    by_id = {c.id: c for c in report.criteria}
    assert by_id["R9"].passed is not None and "NT(dis, 0, 50)" in by_id["R9"].ours
    assert "interference=none" in by_id["R4"].ours and "lending=dedicated" in by_id["R4"].ours
    assert "E9: ablation" in text and "Regime, E2 window 0: work/N" in text
    with open(out / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["scheduler"] for r in rows} == {"A-base", "A-dis"}
    assert {r["experiment"] for r in rows} == {"E2"}
    # every row names the model options
    assert all("lending=" in r["parameters"] and "catalogue=" in r["parameters"] for r in rows)
    for name in ("fig1-utilisation", "fig5-throughput", "fig7-util"):
        assert (out / f"disagg-{name}.png").read_bytes()[:4] == b"\x89PNG"


@needs_trace
def test_cell_metrics_and_schedule_come_from_the_run(tmp_path):
    params = {
        "experiment": "E2",
        "trace": str(LUBLIN),
        "per_node": 64,
        "nodes": 16,
        "jobs": 40,
        "window": 0,
        "S": 25,
        "X": 50,
    }
    ctx = CellContext(str(tmp_path), frozenset({"jobs_csv"}))
    cells = {
        a: disagg.KIND.run(
            {**params, "alloc": a}, ctx if a == "dis" else CellContext(str(tmp_path))
        )
        for a in ("base", "dis")
    }
    # the same run outside the study: same metrics, same schedule
    mix = trace_mix(str(LUBLIN), 64, 40, 0, 50, 16, "nodehours")
    spec = MemoryMachineSpec(16, large_count(16, 25))
    result = DisaggSimulator(spec, mix, "dis").run()
    expect = run_metrics(result)
    for key in ("throughput", "util_cpu", "util_mem", "mean_response", "remote_jobs"):
        assert cells["dis"][key] == pytest.approx(expect[key])
    assert cells["dis"]["large_jobs"] == sum(j.extra["large"] for j in mix) > 0
    assert cells["dis"]["schedule"] != cells["base"]["schedule"]  # A-dis lends here
    path = tmp_path / "jobs.csv"
    path.write_text(ctx.files[disagg.SCHEDULE])
    back = disagg.read_schedule(path, spec)
    assert timeline(back) == timeline(result)
    assert [(r.job.id, r.start, r.end, r.nodes) for r in back.records] == [
        (r.job.id, r.start, r.end, r.nodes) for r in result.records
    ]
    with pytest.raises(ExperimentError, match="N/A"):
        disagg.KIND.run({**params, "S": 0, "alloc": "base"}, ctx)
    # the model options are cell parameters: the same run under the authors' lending rule
    dedicated = disagg.KIND.run({**params, "alloc": "dis", "lending": "dedicated"}, ctx)
    result = DisaggSimulator(spec, mix, "dis", lending="dedicated").run()
    assert dedicated["throughput"] == pytest.approx(run_metrics(result)["throughput"])


def test_bundled_grids():
    full, quick = (studies.study_experiment("disagg", quick=q) for q in (False, True))
    # default profile: 2 traces x 3 windows x (6 S x 6 X x 2 allocators - 5 N/A A-base cells
    # at S = 0), and E7: 3 windows x (6 S x 2 allocators - the N/A A-base cell at S = 0);
    # E9: 5 A-dis cells x 3 other profiles
    assert len(full.cells()) == 402 + 33 + 15
    # quick: E9 has (0, 50), (25, 25), (50, 50), (25, 50) only
    assert len(quick.cells()) == 58 + 7 + 12
    e9 = [c for c in full.cells() if profile_of(c.params) != "default"]
    assert {c.params["window"] for c in e9} == {0} and {c.params["experiment"] for c in e9} == {
        "E2"
    }


@needs_trace
def test_every_mix_of_the_spec_grid_fits():
    # spec §3.4 step 6: large jobs fit the smallest nonzero large partition (160 of 1024 nodes)
    exp = studies.study_experiment("disagg")
    traces = {
        c.params["trace"]: c.params["per_node"]
        for c in exp.cells()
        if c.params["experiment"] != "E7"  # (its memory is the trace's: test_disagg_natural)
    }
    assert len(traces) == 2
    smallest = large_count(1024, 15)
    for trace, per_node in traces.items():
        path = str(Path(exp.base_dir) / trace)
        for w in (0, 1, 2):
            for x in (15, 25, 50, 75, 100):
                mix = trace_mix(path, per_node, 2000, w, x, 1024, "nodehours")
                large = [j.nodes for j in mix if j.extra["large"]]
                assert large and max(large) <= smallest


def _row(s, x, alloc, w=0, **metrics):
    params = {"experiment": "E2", "S": s, "X": x, "alloc": alloc, "window": w, "nodes": 64}
    return CellRow(
        f"{s}-{x}-{alloc}-{w}",
        0,
        "disagg",
        params,
        {},
        "done",
        1,
        1.0,
        1.0,
        "",
        None,
        None,
        metrics,
    )


def test_normalised_throughput_and_savings_by_hand():
    # X = 50: A-base reaches 0.95 only at S = 50, A-dis already at S = 0 (spec §7: 33%)
    thr = {
        (0, "dis"): 0.96,
        (25, "base"): 0.6,
        (25, "dis"): 0.97,
        (50, "base"): 0.99,
        (50, "dis"): 0.99,
        (100, "base"): 1.0,
        (100, "dis"): 1.0,
    }
    rows = [_row(s, 50, a, throughput=2 * v) for (s, a), v in thr.items()]
    g = DisaggGrid(rows, "E2")
    assert g.nt_mean(25, 50, "base") == pytest.approx(0.6)
    assert g.memory(50) == 1.5 and g.memory(0) == 1.0
    sb, sd, saved = g.savings(50, 0.05)
    assert (sb, sd) == (50, 0) and saved == pytest.approx(1 - 1 / 1.5)
    assert g.savings(50, 0.5)[:2] == (25, 0)


def test_criteria_fail_when_lending_does_not_help():
    # A-dis no better than A-base when under-provisioned: R3 must fail, R2 hold
    rows = []
    for s in (25, 50, 100):
        for x in (25, 50):
            base = 1.0 if s >= x else 0.5
            for a in ("base", "dis"):
                rows.append(_row(s, x, a, throughput=base, schedule=float(s * x)))
    out = {c.id: c for c in criteria(DisaggGrid(rows, "E2"))}
    assert out["R3"].passed is False and "(25,50)" in out["R3"].ours
    assert out["R2"].passed is True and out["R0"].passed is True
    assert out["R4"].passed is None  # (0, 50) not in the grid
    rows.append(_row(100, 50, "dis", w=0, throughput=1.0, schedule=-1.0))
    assert criteria(DisaggGrid(rows, "E2"))[0].passed is False  # schedules differ at S = 100


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")
@needs_trace
def test_bundled_quick_grid(tmp_path):
    out = tmp_path / "disagg"
    assert main(["reproduce", "disagg", "--quick", "--out", str(out), "--workers", "2"]) in (0, 1)
    text = (out / "report.md").read_text()
    assert "65 cells (65 done, 0 failed)" in text
    for cid in [*IDS, "E6 R1", "E6 R4"]:
        assert f"| {cid} |" in text


def test_the_schedule_is_the_shared_jobs_csv_layout_that_evalys_reads(tmp_path):
    from fluxgraph.papers.disagg.machines import MemoryMachineSpec
    from fluxgraph.papers.disagg.sim import DisaggSimulator
    from fluxgraph.sched.output import JOBS_COLUMNS
    from fluxgraph.workload import Job

    jobs = [
        Job(1, 0, 50, 60, nodes=2, extra={"mem_mib": 40000, "app_id": 2, "large": True}),
        Job(2, 5, 20, 30, nodes=1, extra={"mem_mib": 1000, "app_id": 1, "large": False}),
        Job(3, 5, 20, 30, nodes=9, extra={"mem_mib": 1000, "app_id": 1, "large": False}),
    ]
    result = DisaggSimulator(MemoryMachineSpec(4, 1), jobs, "dis").run()
    path = tmp_path / "jobs.csv"
    path.write_text(disagg.schedule_csv(result.records))
    header = path.read_text().splitlines()[0].split(",")
    assert tuple(header[: len(JOBS_COLUMNS)]) == JOBS_COLUMNS
    jobset = pytest.importorskip("evalys.jobset")
    frame = jobset.JobSet.from_csv(str(path)).df
    assert frame["finish_time"].astype(int).tolist() == [r.end for r in result.records]
    back = disagg.read_schedule(path, MemoryMachineSpec(4, 1))
    assert [(r.job.id, r.start, r.end, r.nodes, r.rejected) for r in back.records] == [
        (r.job.id, r.start, r.end, r.nodes, r.rejected) for r in result.records
    ]
