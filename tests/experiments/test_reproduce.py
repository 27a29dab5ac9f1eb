"""``fluxgraph reproduce lod --quick`` and ``fluxgraph reproduce planner --quick`` (the two
studies this framework lands with) write results.csv, report.md and their figures."""

from __future__ import annotations

import csv
import json

import pytest

from fluxgraph.__main__ import main
from fluxgraph.experiments.studies import RESULTS_COLUMNS, STUDIES, study_experiment


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_bundled_studies_validate(study):
    full, quick = study_experiment(study), study_experiment(study, quick=True)
    assert len(quick.cells()) <= len(full.cells())
    assert quick.name == f"{study}-quick"


@pytest.mark.parametrize(
    ("study", "figure", "criteria"),
    [
        ("lod", "lod-ms-per-job.png", ["L1", "L2", "L3", "L4", "L5", "L6", "L7"]),
        ("planner", "planner-query-time.png", ["P1", "P2", "P3", "P4", "P5", "P6"]),
    ],
)
def test_reproduce_quick(study, figure, criteria, tmp_path, capsys):
    out = tmp_path / study
    assert main(["reproduce", study, "--quick", "--out", str(out), "--workers", "2"]) == 0
    printed = capsys.readouterr().out
    assert f"{len(study_experiment(study, True).cells())} cells done, 0 failed" in printed
    with open(out / "results.csv") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == RESULTS_COLUMNS
    assert {r[0] for r in rows[1:]} == {study}
    assert all(float(r[4]) >= 0 for r in rows[1:])
    report = (out / "report.md").read_text()
    assert "| # | paper | reference | ours | criterion | result |" in report
    for cid in criteria:
        assert f"| {cid} |" in report
    assert "![" in report and f"({figure})" in report
    assert (out / figure).read_bytes()[:4] == b"\x89PNG"
    # criteria.json: the same criteria, machine-readable, in the project's format
    rows = json.loads((out / "criteria.json").read_text())
    assert [r["id"] for r in rows] == criteria
    for r in rows:
        assert set(r) == {"id", "required", "verdict", "paper", "ours", "rule"}
        assert r["verdict"] in ("pass", "fail", "not evaluated") if r["required"] else True
        mark = {"pass": "pass", "fail": "**FAIL**", "not evaluated": "not evaluated"}
        assert f"| {r['id']} |" in report and mark[r["verdict"]] in report
    # Resuming a finished reproduction runs nothing and rewrites the report.
    assert main(["reproduce", study, "--quick", "--out", str(out), "--quiet"]) == 0
    assert (out / "report.md").is_file()


def test_reproduce_only_then_report_only(tmp_path, capsys):
    """--only runs part of the grid; --report-only reports the done cells and runs nothing."""
    out = tmp_path / "planner"
    args = ["reproduce", "planner", "--quick", "--out", str(out), "--workers", "1"]
    assert main([*args, "--only", "spans=1000,10000"]) == 0
    assert "2/2 cells done" in capsys.readouterr().out
    report = (out / "report.md").read_text()
    assert "Sweep: 2 cells (2 done, 0 failed)" in report
    store = (out / "results.sqlite").read_bytes()
    assert main(["reproduce", "planner", "--quick", "--out", str(out), "--report-only"]) == 0
    printed = capsys.readouterr().out
    assert "report only: 2/3 cells done, 0 failed" in printed
    assert (out / "results.sqlite").read_bytes() == store  # nothing run, nothing changed
    report = (out / "report.md").read_text()
    assert "Partial grid: 2 of 3 cells done" in report
    with open(out / "results.csv") as fh:
        spans = {r[2] for r in list(csv.reader(fh))[1:]}
    assert spans and all("spans=100000" not in s for s in spans)
    # The whole grid then runs only the missing cell.
    assert main([*args, "--quiet"]) == 0
    assert "Partial grid" not in (out / "report.md").read_text()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--only", "spams=1000"], "only: spams: not an axis (axes: spans)"),
        (["--only", "spans=7"], "only: spans=7: not on the axis (1000, 10000, 100000)"),
        (["--report-only"], "no sweep results here"),
    ],
)
def test_reproduce_only_errors(option, message, tmp_path, capsys):
    out = tmp_path / "planner"
    assert main(["reproduce", "planner", "--quick", "--out", str(out), *option]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_reproduce_only_needs_axis_equals_value(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "planner", "--only", "spans"])
    assert "expected AXIS=VALUE" in capsys.readouterr().err


def test_a_reported_claim_carries_one_of_three_verdicts(tmp_path):
    from fluxgraph.errors import ExperimentError
    from fluxgraph.experiments.studies import Criterion, StudyReport, write_criteria

    rows = [
        Criterion("C1", "x < 1", "0.8", "ours < 1", True),
        Criterion("C2", "y > 2", "no data", "ours > 2", None),
        Criterion(
            "R1",
            "a gain",
            "a loss",
            "sign of the gain",
            None,
            required=False,
            claim="not reproduced",
        ),
    ]
    write_criteria(StudyReport("t", rows), tmp_path / "criteria.json")
    got = json.loads((tmp_path / "criteria.json").read_text())
    assert [(r["id"], r["required"], r["verdict"]) for r in got] == [
        ("C1", True, "pass"),
        ("C2", True, "not evaluated"),
        ("R1", False, "not reproduced"),
    ]
    with pytest.raises(ExperimentError, match="reproduced, partly, not reproduced"):
        Criterion("R2", "p", "o", "r", None, required=False, claim="pass")
