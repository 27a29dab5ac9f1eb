"""The order of a study's report.md: run lines, lead tables, criteria, tables, notes."""

from __future__ import annotations

from pathlib import Path

from fluxgraph.experiments.runner import SweepResult
from fluxgraph.experiments.studies import Criterion, StudyReport, write_report


def test_lead_tables_come_before_the_criteria(tmp_path: Path) -> None:
    report = StudyReport(
        "T",
        criteria=[Criterion("C1", "p", "ours 9159.5", "rule", False)],
        tables=[("Later", ["a"], [[1.5]])],
        lead=[("Headline", ["claim", "verdict"], [["x", "holds"]])],
        notes=["n"],
    )
    sweep = SweepResult(tmp_path, 1, 1, 0, 1, 0, False, 0.1, "none", "")
    write_report(report, tmp_path / "report.md", sweep, quick=False)
    text = (tmp_path / "report.md").read_text()
    marks = [text.index(s) for s in ("Run:", "## Headline", "## Criteria: 0 of 1", "## Later")]
    assert marks == sorted(marks)
    assert "| C1 |" in text and "**FAIL**" in text and "| 1.500 |" in text
