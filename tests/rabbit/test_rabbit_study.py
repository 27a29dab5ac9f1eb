"""``fluxgraph reproduce rabbit``: R1-R10 as report rows, and E-R11's orderings on a small run."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.experiments.store import CellRow
from fluxgraph.papers.rabbit import study
from fluxgraph.papers.rabbit.scenarios import SCENARIOS, rejection_reasons

LUBLIN = Path(__file__).resolve().parents[2].parent / "shared" / "traces" / "lublin_256.swf"


def test_every_scenario_holds_with_its_expected_outcome_beside_ours():
    outcomes = [f() for f in (*SCENARIOS, rejection_reasons)]
    assert [o.id for o in outcomes] == [f"R{i}" for i in range(1, 11)] + ["REJ"]
    assert all(o.held and o.expected and o.ours for o in outcomes), outcomes


@pytest.mark.skipif(not LUBLIN.is_file(), reason="../shared is absent")
def test_small_e_r11_holds_its_orderings_and_invariants(tmp_path):
    """E-R11 on the first 150 Lublin jobs, 8 chassis (a few CPU seconds): the report's rows."""
    rows = []
    for i, run in enumerate(("pack + own-first", "spread + own-first", "pack + any")):
        metrics = study.run_e_r11(LUBLIN, run, limit=150, chassis=8, persistent=5)
        params = {"run": run, "trace": "lublin", "limit": 150, "chassis": 8}
        rows.append(_row(i, params, metrics))
    report = study.analyse(rows, tmp_path, quick=True)
    verdicts = {c.id: c.verdict for c in report.criteria}
    ids = [f"R{i}" for i in range(1, 11)] + ["INV", "REJ", "E-R11a", "E-R11b"]
    assert verdicts == dict.fromkeys(ids, "pass")
    assert all(m["violations"] == 0 for m in (r.metrics for r in rows))


def _row(i: int, params: dict, metrics: dict) -> CellRow:
    return CellRow(str(i), i, "rabbit", params, params, "done", 1, 0.0, 0.0, None, None, None,
                   metrics)  # fmt: skip


def test_orderings_are_not_evaluated_without_runs(tmp_path):
    report = study.analyse([], tmp_path, quick=True)
    verdicts = {c.id: c.verdict for c in report.criteria}
    assert verdicts["E-R11a"] == verdicts["E-R11b"] == verdicts["INV"] == "not evaluated"
    assert verdicts["R1"] == "pass"
