"""The ``fm`` study's cell kind and analysis on a small synthetic trace (no ``../shared``)."""

from __future__ import annotations

import functools

import pytest

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellContext
from fluxgraph.experiments.store import CellRow
from fluxgraph.papers.fm import criteria, study
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


def _params(config, prio, **options):
    return {
        "trace": "trace.csv",
        "config": config,
        "priority": prio,
        "jobs": 0,
        "warmup": 20,
        "model": "paper",
        "seed": 1,
        **options,
    }


def test_cells_and_analysis(tmp_path):
    _trace(tmp_path)
    ctx = CellContext(base_dir=str(tmp_path))
    rows = []
    cells = [(c, p, {}) for c in ("rack16", "rack32") for p in (*study.BASELINES, "fm")]
    cells += [("rack28", "fm", {}), ("system16", "fm", {}), ("base", "fm", {})]
    cells += [("juwels6", "fm", {}), ("jbase", "fm", {})]
    cells += [("rack16", "fm", {"rules": "easy", "warmup_switch": "started"})]
    cells += [("rack16", "fm", {"admission": "common"}), ("jbase", "fm", {"admission": "common"})]
    cells += [("system16", "fm", {"system_alloc": "balance"})]
    cells += [("rack16", "fm_code", {"warmup_switch": "none", "model": "none", "fairness": False})]
    for i, (config, prio, options) in enumerate(cells):
        params = _params(config, prio, **options)
        metrics = study.KIND.run(params, ctx)
        assert metrics["evaluated"] > 0 and metrics["bsld"] >= 1
        assert metrics["deg_at_least_150"] == 0
        assert 0 <= metrics["rejected_node_share"] <= metrics["rejected"]
        assert ("MD" in metrics) == options.get("fairness", True)
        if config == "base":
            assert metrics["degradation"] == 0
        if config.startswith("system"):
            assert 0 <= metrics["ks_rack"] <= 1 and metrics["common_jobs"] > 0
        rows.append(_row(i, params, metrics))
    by_cell = {(r.params["config"], r.params.get("admission")): r.metrics for r in rows}
    # common admission: what A6 rejects at 4 TB/rack on P is left out at 16 TB/rack too
    common = by_cell[("rack16", "common")]
    assert common["rejected"] > 0
    assert 0 < common["rejected_node_share"] < 1 and 0 < common["rejected_pool_share"] < 1
    assert by_cell[("rack16", None)]["rejected"] == by_cell[("jbase", None)]["rejected"] == 0
    report = study.analyse(rows, tmp_path, quick=True)
    assert [c.id for c in report.criteria] == [f"C{i}" for i in range(1, 11)]
    by_id = {c.id: c for c in report.criteria}
    assert by_id["C8"].passed is None  # not the full trace
    for cid in ("C3", "C6", "C7"):  # the grid covers them
        assert by_id[cid].passed is not None and by_id[cid].paper and by_id[cid].rule
    assert report.lead[0][0].startswith("Claims by modelling rules")  # first in report.md
    assert report.tables[0][0].startswith("Does not reproduce")
    percentiles = [rows[15].metrics[f"bsld_p{p:03d}"] for p in range(101)]  # system16, fm
    assert percentiles == sorted(percentiles) and percentiles[0] >= 1
    assert report.tables and study.results(rows)[0][0] == "E1"
    assert {r[0] for r in study.results(rows)} == {"E1", "E1J", "E3"}
    texts = {r[2] for r in study.results(rows)}
    assert any("rules=easy" in t and "warmup_switch=started" in t for t in texts)
    assert all("admission=" in t and "system_alloc=" in t for t in texts)
    pytest.importorskip("matplotlib")
    names = {path.name for _, path in report.figures}
    for name in (
        "fm-fig7a-bsld.png",
        "fm-fig8-fairness-16.png",
        "fm-fig8-fairness-32.png",
        "fm-fig9-bsld-16.png",
        "fm-fig11-memory-utilisation.png",
        "fm-fig12-degradation.png",
    ):
        assert name in names and (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


_FAKE = dict.fromkeys(
    [
        "bsld",
        "bsld_code",
        "bsld_p99",
        "wait",
        "throughput",
        "node_utilisation",
        "memory_utilisation",
        "degradation",
        "deg_below_5",
        "deg_at_least_150",
        "thr_per_dollar",
        "rejected",
        "rejected_node_share",
        "rejected_pool_share",
        "evaluated",
        "t_switch",
        "arrival_rate",
        "bsld_all",
        "run_cpu_s",
        "D",
        "MD",
        "D10",
        "MD10",
        "ks_rack",
        "bsld_common",
        "bsld_rack_common",
        "common_jobs",
    ],
    1.0,
)


@functools.cache
def _cells():
    from fluxgraph.experiments.studies import study_experiment

    return study_experiment("fm").cells()


def _fake_rows(status="done"):
    cells = _cells()
    return [
        CellRow(c.id, i, "fm", c.params, c.axes, status, 1, 1.0, 1.0, "w", None, None, dict(_FAKE))
        for i, c in enumerate(cells)
    ]


def test_no_criterion_passes_without_data(tmp_path):
    """Every criterion is evaluated on the complete grid and on none of: no cells, only failed
    cells, any single cell alone."""
    rows = _fake_rows()
    full = criteria.criteria(study.grid(rows, quick=False))
    assert [c.id for c in full] == [f"C{i}" for i in range(1, 11)]
    assert all(c.passed is not None for c in full), [c.id for c in full if c.passed is None]
    assert all(c.passed is None for c in study.analyse([], tmp_path, quick=False).criteria)
    failed = study.analyse(_fake_rows("failed"), tmp_path, quick=False)
    assert all(c.passed is None for c in failed.criteria)
    assert any(n.startswith("All 433 cells failed") for n in failed.notes)
    # two criteria read one cell: C7 FM at 28 TB/rack, C4 the system-scope cell at 48 TB/rack
    # (it runs its rack-scope twin); no other may be judged from a single cell
    single = {"C7": ("rack28", "fm"), "C4": ("system48", "fm")}
    for row in rows:
        alone = criteria.criteria(study.grid([row], quick=False))
        judged = [c.id for c in alone if c.passed is not None]
        assert len(judged) <= 1, (row.params, judged)
        for cid in judged:
            assert (row.params["config"], row.params["priority"]) == single[cid], row.params
    table = criteria.claim_table(study.grid(rows, quick=False))[2]
    assert all(row[1] != "not evaluated" for row in table)  # code, per_config: every claim
    assert all(cell != "not evaluated" for row in table[:-1] for cell in row[2:])  # W2: only it


def test_c8_needs_every_pool():
    rows = [
        _row(i, {"config": f"rack{p}", "priority": "fm", "jobs": 0}, {**_FAKE, "rejected": n})
        for i, (p, n) in enumerate(criteria.REJECTED.items())
    ]
    assert criteria.criteria(study.grid(rows, quick=False))[7].passed is True
    assert criteria.criteria(study.grid(rows[1:], quick=False))[7].passed is None
    assert criteria.criteria(study.grid(rows, quick=True))[7].passed is None
    rows[0].metrics["rejected"] = 92
    assert criteria.criteria(study.grid(rows, quick=False))[7].passed is False


def test_c10_against_the_public_simulator(tmp_path):
    rows, i = [], 0
    peer_opts = {"warmup_switch": "none", "model": "none"}
    for pool, peer in study.PEER.items():
        for prio, value in peer.items():
            params = {"config": f"rack{pool}", "priority": prio, "jobs": 3000, **peer_opts}
            rows.append(_row(i, params, {"bsld_all": value * 1.1, "run_cpu_s": 1.0}))
            i += 1
    for prio, value in (("fcfs", 2.55), ("fm_code", 1.20)):
        params = {"config": "rack48", "priority": prio, "jobs": 0, **peer_opts}
        rows.append(_row(i, params, {"bsld_all": value, "run_cpu_s": 2.0}))
        i += 1
    c10 = study.analyse(rows, tmp_path, quick=False).criteria[-1]
    assert c10.id == "C10" and c10.passed is True
    rows[0].metrics["bsld_all"] = 100.0  # 4 TB, the worst now: order and 25% both broken
    assert study.analyse(rows, tmp_path, quick=False).criteria[-1].passed is False
    assert study.analyse(rows[:-1], tmp_path, quick=False).criteria[-1].passed is None


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


def test_grids_and_unknown_mode():
    from fluxgraph.experiments.studies import study_experiment

    cells = study_experiment("fm", compat="fm-simulator").cells()
    assert len(cells) == 26
    assert {(c.params["rules"], c.params["warmup_switch"], c.params["model"]) for c in cells} == {
        ("code", "none", "none")
    }
    assert sorted({c.params["jobs"] for c in cells}) == [0, 3000]
    full = _cells()
    main = [c for c in full if c.params["model"] == "paper" and c.params["rules"] == "code"]
    assert {c.params["admission"] for c in main} == {"per_config", "common"}
    assert len(full) == 433
    with pytest.raises(ExperimentError, match="no compat mode"):
        study_experiment("fm", compat="slurm")
