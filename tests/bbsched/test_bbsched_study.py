"""Smoke version of ``fluxgraph reproduce bbsched``: the study's cells and analysis on a
reduced grid (E0, E1, E5 on a few seeded windows; Theta-analogue S4 prefix runs on the W1 and
W2 pools, with and without the starvation bound), and the amended criteria on synthetic
cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.experiments.kinds import CellContext
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import study_experiment
from fluxgraph.papers.bbsched.study import KIND, analyse, results

TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"
BASE = {
    "analogue": "kth",
    "workload": "Original",
    "method": "BBSched",
    "window": 20,
    "generations": 500,
    "population": 20,
    "ga_variant": "paper",
    "mutation": 0.0005,
    "exact_below": 10,
    "calibration": "W2",
    "starve": "pass",
    "copies": 1,
    "windows": 4,
    "seeds": 1,
}


def _row(i: int, params: dict) -> CellRow:
    metrics = KIND.run(dict(params), CellContext(str(TRACES.parent)))
    return CellRow(
        f"c{i}", i, "bbsched", params, params, "done", 1, 0.0, 0.0, "", None, None, dict(metrics)
    )


def test_the_bundled_grids_parse():
    assert len(study_experiment("bbsched").cells()) == 311
    assert len(study_experiment("bbsched", quick=True).cells()) == 30


def test_smoke_study(tmp_path):
    cells = [
        {**BASE, "task": "table1"},
        {**BASE, "task": "ga", "window": 12, "generations": 200, "windows": 30},
        {
            **BASE,
            "task": "ga",
            "window": 12,
            "generations": 200,
            "windows": 30,
            "ga_variant": "cqsim",
        },
        {**BASE, "task": "decision", "method": "Bin_Packing"},
        {**BASE, "task": "decision", "generations": 100},
    ]
    if TRACES.is_dir():
        run = {
            **BASE,
            "task": "run",
            "analogue": "lublin",
            "workload": "S4",
            "window": 12,
            "generations": 100,
            "limit": 150,
            "margin_days": 0.25,
            "traces": str(TRACES),
        }
        cells += [{**run, "method": m} for m in ("Baseline", "BBSched")]
        cells += [{**run, "method": "BBSched", "starve": "none"}]
        cells += [{**run, "method": m, "calibration": "W1"} for m in ("Baseline", "BBSched")]
    rows = [_row(i, p) for i, p in enumerate(cells)]
    report = analyse(rows, tmp_path, quick=True)
    by_id = {c.id: c for c in report.criteria}
    assert by_id["E0"].passed
    # amendment D1: the smoke oracle asks feasibility, no dominance and x* (not agreement)
    assert by_id["smoke-oracle"].passed and "agreement" in by_id["smoke-oracle"].ours
    assert results(rows)
    if TRACES.is_dir():
        assert by_id["I"].passed
        assert report.title.split(". ")[-1].startswith("Regime: ")
        assert report.criteria[0].id == "verdict"
        titles = [title for title, _, _ in report.tables]
        assert any("lublin-analogue S4" in t and "pool W2" in t for t in titles)
        assert any("lublin-analogue S4" in t and "pool W1" in t for t in titles)
        ablations = next(body for t, _, body in report.tables if t.startswith("Ablations"))
        assert [row[3] for row in ablations] == ["none"]
        # D4: every run row carries offered loads, forced passes, optimiser calls, candidates
        head = next(h for t, h, _ in report.tables if "lublin-analogue S4" in t)
        assert head[-5:] == [
            "offered nodes",
            "offered BB",
            "forced passes",
            "optimiser calls",
            "mean candidates",
        ]


def _run_row(i: int, params: dict, metrics: dict) -> CellRow:
    params = {**BASE, "task": "run", **params}
    return CellRow(
        f"r{i}", i, "bbsched", params, params, "done", 1, 0.0, 0.0, "", None, None, metrics
    )


def test_e6_claim_counts_each_method_against_baseline():
    """Spec §8.8 (a paper claim, reported): each of Constrained_CPU, Constrained_SSD and
    Bin_Packing wastes more SSD than Baseline on 4+ of the 6 SSD workloads."""
    from fluxgraph.papers.bbsched.claims import _e6_ssd_orderings
    from fluxgraph.papers.bbsched.criteria import Grid

    wls = [(a, w) for a in ("kth", "lublin") for w in ("S5", "S6", "S7")]
    rows = []
    for k, (a, w) in enumerate(wls):
        more = k < 4  # the three methods waste more than Baseline on 4 of the 6
        for j, m in enumerate(("Baseline", "Constrained_CPU", "Constrained_SSD", "Bin_Packing")):
            waste = 0.3 if m == "Baseline" else (0.4 if more else 0.2)
            rows.append(
                _run_row(
                    10 * k + j, {"analogue": a, "workload": w, "method": m}, {"ssd_waste": waste}
                )
            )
    text, ok = _e6_ssd_orderings(Grid.of(rows))
    assert "Constrained_SSD 4/6" in text
    assert ok is None  # no Kiviat areas (no BBSched, Weighted runs): not evaluated


def test_claims_and_verdict_on_a_synthetic_grid():
    """Amendment B: H2-a (wait <= 1.05 x Baseline on 8+ of 10) is required; H1-c is a paper
    claim reported under W1 and W2 with the largest gain of any ablation; the verdict line
    gives the measured spread."""
    from fluxgraph.papers.bbsched.claims import claims
    from fluxgraph.papers.bbsched.criteria import required

    rows = []
    for cal in ("W1", "W2"):
        for a in ("kth", "lublin"):
            for w in ("Original", "S1", "S2", "S3", "S4"):
                for m in ("Baseline", "BBSched", "Constrained_CPU"):
                    wait = {"Baseline": 100.0, "BBSched": 104.0, "Constrained_CPU": 90.0}[m]
                    node = {"Baseline": 0.70, "BBSched": 0.705, "Constrained_CPU": 0.70}[m]
                    metrics = {
                        "node_usage": node,
                        "bb_usage": 0.5,
                        "avg_wait": wait,
                        "avg_slowdown": 2.0,
                    }
                    params = {"analogue": a, "workload": w, "method": m, "calibration": cal}
                    rows.append(_run_row(len(rows), params, metrics))
    ablation = {"analogue": "kth", "workload": "S4", "method": "BBSched", "starve": "none"}
    rows.append(
        _run_row(
            len(rows),
            ablation,
            {"node_usage": 0.712, "bb_usage": 0.5, "avg_wait": 80.0, "avg_slowdown": 2.0},
        )
    )
    by_id = {c.id: c for c in required(rows)}
    assert by_id["H2-a"].passed and by_id["H2-a"].ours == "10/10"
    found = {c.id: c for c in claims(rows)}
    h1c = found["H1-c-kth"]
    assert not h1c.required and h1c.verdict == "not reproduced"
    assert "W1: +0.71%" in h1c.ours and "W2: +0.71%" in h1c.ours
    assert "nodes +1.20 pp (kth S4 W2 starve=none)" in h1c.ours
    assert "wait -20.0% (kth S4 W2 starve=none)" in h1c.ours
    verdict = found["verdict"]
    assert verdict.verdict == "not reproduced"
    assert "within 1.2 pp of Baseline in node usage" in verdict.ours
    assert "-20% to +4% in mean wait" in verdict.ours


@pytest.mark.parametrize(
    "name", ["criteria", "claims", "tables", "calibration", "metrics", "workloads", "window", "run"]
)
def test_module_doctests(name):
    import doctest
    import importlib

    module = importlib.import_module(f"fluxgraph.papers.bbsched.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_kth_s7_note_names_the_methods_equal_to_baseline():
    """Issue 32: under W1 with the bound per pass, a KTH S7 method whose metrics equal
    Baseline's to every digit is named in the note, with its optimiser calls inside M, and
    the starve = none rows stand beside it."""
    from fluxgraph.experiments.studies import StudyReport
    from fluxgraph.papers.bbsched.tables import s7_table

    same = {"node_usage": 0.6, "bb_usage": 0.7, "avg_wait": 100.0, "avg_slowdown": 3.0}
    rows = []
    for method, starve, metrics in (
        ("Baseline", "pass", same),
        ("BBSched", "pass", {**same, "decisions": 10.0, "decisions_in_window": 0.0}),
        ("BBSched", "none", {**same, "avg_wait": 90.0, "decisions": 2400.0}),
        ("Weighted", "pass", {**same, "avg_wait": 101.0, "decisions": 12.0}),
    ):
        params = {"analogue": "kth", "workload": "S7", "method": method, "calibration": "W1"}
        rows.append(_run_row(len(rows), {**params, "starve": starve}, metrics))
    report = StudyReport("t")
    note = s7_table(report, rows)
    assert "BBSched (10 optimiser calls, 0 in M)" in note and "Weighted" not in note
    ((_, _, body),) = report.tables
    assert [(r[0], r[1]) for r in body] == [
        ("Baseline", "pass"),
        ("BBSched", "pass"),
        ("BBSched", "none"),
        ("Weighted", "pass"),
    ]
