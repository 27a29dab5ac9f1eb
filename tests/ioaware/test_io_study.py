"""The ``ioaware`` study: its cells' metrics, results.csv rows, and (opt-in: FLUXGRAPH_RUNSLOW)
the quick reproduction with every criterion holding."""

from __future__ import annotations

import os

import pytest

from fluxgraph.__main__ import main
from fluxgraph.experiments.store import CellRow
from fluxgraph.papers.ioaware.study import measure, results


def _row(params, metrics):
    return CellRow("id", 0, "ioaware", params, {}, "done", 1, 0.1, 0.1, None, None, None, metrics)


def test_a_w1_cell_measures_the_run():
    params = {"experiment": "X2", "workload": "W1", "scheduler": "S2", "r_limit": 20, "seed": -1}
    m = measure(params)
    assert m["t0.write8"] == 2 and m["t0.sleep"] == 13  # spec §7.3 starts at t=0
    assert m["target_t0"] == pytest.approx(8.523, abs=5e-4)
    assert m["steady_write8"] == 3
    assert m["rejected"] == 0
    assert m["idle_first_half"] >= 0 and m["idle_second_half"] >= 0
    rows = results([_row(params, m)])
    assert {r[1] for r in rows} == {"S2@20 pre"}
    assert {r[3] for r in rows} == set(m)


def test_x1_cell_is_the_curve():
    m = measure({"experiment": "X1", "workload": "none", "scheduler": "none", "r_limit": 20})
    assert m["x8m.00"] == 0 and round(m["x8m.01"], 2) == 3.85 and len(m) == 16


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")
def test_quick_reproduction_holds_every_criterion(tmp_path, capsys):
    out = tmp_path / "ioaware"
    assert main(["reproduce", "ioaware", "--quick", "--out", str(out), "--workers", "2"]) == 0
    report = (out / "report.md").read_text()
    assert "## Criteria: 12 of 12 hold" in report
    for name in ("fig3-w1", "fig4-curve", "fig5-w2", "fig6-w2-noisy"):
        assert (out / f"ioaware-{name}.png").read_bytes()[:4] == b"\x89PNG"
