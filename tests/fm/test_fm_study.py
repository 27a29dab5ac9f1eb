"""The ``fm`` study's cell kind and analysis on a small synthetic trace (no ``../shared``)."""

from __future__ import annotations

import pytest

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellContext
from fluxgraph.experiments.store import CellRow
from fluxgraph.papers.fm import study
from fluxgraph.papers.fm.workload import synthetic_trace


def _trace(tmp_path):
    path = tmp_path / "trace.csv"
    lines = ["jobid,submit,start,end,nnodes,duration,memory"]
    lines += [
        f"{r.jobid},{r.submit},{r.submit},{r.submit + r.duration},{r.nnodes},{r.duration},"
        f"{r.memory}"
        for r in synthetic_trace(120, seed=2, span=6000)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _row(i, params, metrics):
    return CellRow(f"c{i}", i, "fm", params, params, "done", 1, 1.0, 1.0, "w", None, None, metrics)


def test_cells_and_analysis(tmp_path):
    _trace(tmp_path)
    ctx = CellContext(base_dir=str(tmp_path))
    rows = []
    configs = [(c, p) for c in ("rack16", "rack32") for p in (*study.BASELINES, "fm")]
    configs += [("rack28", "fm"), ("system16", "fm"), ("base", "fm")]
    configs += [("juwels6", "fm"), ("jbase", "fm")]
    for i, (config, prio) in enumerate(configs):
        params = {
            "trace": "trace.csv",
            "config": config,
            "priority": prio,
            "jobs": 0,
            "warmup": 20,
            "model": "paper",
            "seed": 1,
        }
        metrics = study.KIND.run(params, ctx)
        assert metrics["evaluated"] > 0 and metrics["bsld"] >= 1
        assert metrics["rejected"] == 0 and metrics["deg_at_least_150"] == 0
        if config == "base":
            assert metrics["degradation"] == 0
        rows.append(_row(i, params, metrics))
    report = study.analyse(rows, tmp_path, quick=True)
    assert [c.id for c in report.criteria] == [f"C{i}" for i in range(1, 10)]
    by_id = {c.id: c for c in report.criteria}
    assert by_id["C8"].passed is None  # not the full trace
    for cid in ("C3", "C5", "C6", "C7", "C9"):  # the grid covers them
        assert by_id[cid].passed is not None and by_id[cid].paper and by_id[cid].rule
    percentiles = [rows[-4].metrics[f"bsld_p{p:03d}"] for p in range(101)]  # system16, fm
    assert percentiles == sorted(percentiles) and percentiles[0] >= 1
    assert report.tables and study.results(rows)[0][0] == "E1"
    assert {r[0] for r in study.results(rows)} == {"E1", "E1J", "E3"}
    pytest.importorskip("matplotlib")
    names = {path.name for _, path in report.figures}
    for name in (
        "fm-fig7a-bsld.png",
        "fm-fig8-fairness-16.png",
        "fm-fig8-fairness-32.png",
        "fm-fig9-bsld-16.png",
        "fm-fig10-thr-per-dollar.png",
        "fm-fig11-memory-utilisation.png",
        "fm-fig12-degradation.png",
    ):
        assert name in names and (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


def test_report_without_cells_has_every_criterion(tmp_path):
    report = study.analyse([], tmp_path, quick=True)
    assert [c.id for c in report.criteria] == [f"C{i}" for i in range(1, 10)]
    assert all(c.passed is None for c in report.criteria)


def test_compat_report(tmp_path):
    rows, i = [], 0
    for pool, peer in study.PEER.items():
        for prio, value in peer.items():
            params = {"config": f"rack{pool}", "priority": prio, "jobs": 3000, "compat": "x"}
            rows.append(_row(i, params, {"bsld_all": value * 1.1, "run_cpu_s": 1.0}))
            i += 1
    report = study.analyse(rows, tmp_path, quick=False)
    assert [c.id for c in report.criteria] == ["X4", "X8", "X12", "X48"]
    assert all(c.passed for c in report.criteria)
    rows[0].metrics["bsld_all"] = 100.0  # 4 TB, the worst now: order and 25% both broken
    report = study.analyse(rows, tmp_path, quick=False)
    assert [c.passed for c in report.criteria] == [False, True, True, True]


def test_bad_config_and_missing_trace(tmp_path):
    with pytest.raises(ExperimentError, match="config"):
        study.parse_config("pool4")
    params = {
        "trace": "nope.csv",
        "config": "rack4",
        "priority": "fm",
        "jobs": 0,
        "warmup": 0,
        "model": "paper",
        "seed": 1,
    }
    with pytest.raises(ExperimentError, match="not found"):
        study.KIND.run(params, CellContext(base_dir=str(tmp_path)))


def test_compat_grid_and_unknown_mode():
    from fluxgraph.experiments.studies import study_experiment

    cells = study_experiment("fm", compat="fm-simulator").cells()
    assert len(cells) == 24
    assert {c.params["compat"] for c in cells} == {"fm-simulator"}
    assert {(c.params["jobs"], c.params["warmup"], c.params["model"]) for c in cells} == {
        (3000, 0, "none")
    }
    with pytest.raises(ExperimentError, match="no compat mode"):
        study_experiment("fm", compat="slurm")
