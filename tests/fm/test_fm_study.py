"""The ``fm`` study's cell kind and analysis on a small synthetic trace (no ``../shared``)."""

from __future__ import annotations

import pytest

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellContext
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import fm as study
from fluxgraph.sched.fm.workload import synthetic_trace


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
    configs += [("system16", "fm"), ("base", "fm"), ("juwels6", "fm"), ("jbase", "fm")]
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
    ids = [c.id for c in report.criteria]
    assert ids[:4] == ["C1", "C2", "C3", "C4"] and {"C8", "C9"} <= set(ids)
    assert next(c for c in report.criteria if c.id == "C8").passed is None  # not the full trace
    assert report.tables and study.results(rows)[0][0] == "E1"
    assert {r[0] for r in study.results(rows)} == {"E1", "E1J", "E3"}
    assert (tmp_path / "fm-fig7a-bsld.png").read_bytes()[:4] == b"\x89PNG"


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
