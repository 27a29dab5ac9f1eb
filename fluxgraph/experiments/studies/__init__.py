"""Reproductions: ``fluxgraph reproduce STUDY`` = a bundled experiment + its analysis.

A study is a module with ``NAME``, ``TITLE``, ``YAML`` (its bundled experiment, beside the
module; optionally ``COMPAT``, compat mode -> another bundled YAML, for ``--compat``),
``results(rows)`` (the long rows of ``results.csv``) and ``analyse(rows, out, quick)`` (a
:class:`StudyReport`: tables, criteria, figures). :func:`reproduce` runs the sweep into ``out``
(resumable, any backend), then writes ``results.csv``
(``experiment,scheduler,parameters,metric,value``), ``report.md`` (our numbers beside the
paper's, each row with its criterion and whether it holds) and the PNG figures.

The study modules live in the papers' folders (:mod:`fluxgraph.papers`); :data:`STUDIES` names
them by import path only, so the shared experiments code imports no paper.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import platform
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.report import format_table
from fluxgraph.experiments.runner import SweepResult, run_sweep
from fluxgraph.experiments.spec import Experiment, load_experiment
from fluxgraph.experiments.store import CellRow, ResultStore

__all__ = [
    "CLAIM_VERDICTS",
    "RESULTS_COLUMNS",
    "STUDIES",
    "Criterion",
    "StudyReport",
    "get_study",
    "reproduce",
    "study_experiment",
    "write_criteria",
]

#: Study name -> its module.
STUDIES: Mapping[str, str] = MappingProxyType(
    {
        "bbsched": "fluxgraph.papers.bbsched.study",
        "disagg": "fluxgraph.papers.disagg.study",
        "fm": "fluxgraph.papers.fm.study",
        "ioaware": "fluxgraph.papers.ioaware.study",
        "lod": "fluxgraph.papers.fluxion.lod",
        "planner": "fluxgraph.papers.fluxion.planner",
        "rabbit": "fluxgraph.papers.rabbit.study",
        "variation": "fluxgraph.papers.variation.study",
    }
)

RESULTS_COLUMNS = ("experiment", "scheduler", "parameters", "metric", "value")


@dataclass(frozen=True)
class Criterion:
    """One row of a report's criteria table.

    ``paper``: what the paper states (or its value); ``reference``: a reference figure when
    there is one (e.g. the C++ Fluxion measured on this machine class); ``ours``: what we
    measured; ``rule``: the test, stated explicitly; ``passed``: ``None`` when not evaluated.
    A ``required`` criterion's verdict is ``pass``, ``fail`` or ``not evaluated``; a claim
    only reported (``required=False``) carries its own ``claim`` verdict: ``reproduced``,
    ``partly`` or ``not reproduced``.

    >>> Criterion("C1", "x < 1", "0.8", "ours < 1", True).verdict
    'pass'
    >>> Criterion("R2", "gain", "none", "sign", None, required=False, claim="partly").verdict
    'partly'
    """

    id: str
    paper: str
    ours: str
    rule: str
    passed: bool | None
    reference: str = ""
    required: bool = True
    claim: str = ""

    def __post_init__(self) -> None:
        if not self.required and self.claim not in CLAIM_VERDICTS:
            raise ExperimentError(
                f"criterion {self.id}: a reported claim's verdict is one of "
                f"{', '.join(CLAIM_VERDICTS)}, not {self.claim!r}"
            )

    @property
    def verdict(self) -> str:
        """``pass``/``fail``/``not evaluated``, or a reported claim's own verdict."""
        if not self.required:
            return self.claim
        return {True: "pass", False: "fail", None: "not evaluated"}[self.passed]

    def to_json(self) -> dict[str, Any]:
        """The row of ``criteria.json`` (the project's format)."""
        return {
            "id": self.id,
            "required": self.required,
            "verdict": self.verdict,
            "paper": self.paper,
            "ours": self.ours,
            "rule": self.rule,
        }


#: Verdicts of a claim that is reported, not required.
CLAIM_VERDICTS = ("reproduced", "partly", "not reproduced")


@dataclass
class StudyReport:
    """What a study's ``analyse`` returns: ``lead`` tables come first in ``report.md`` (a
    study's headline, such as a claim-by-rules table), then the criteria, then ``tables``."""

    title: str
    criteria: list[Criterion] = field(default_factory=list)
    tables: list[tuple[str, list[str], list[list[Any]]]] = field(default_factory=list)
    lead: list[tuple[str, list[str], list[list[Any]]]] = field(default_factory=list)
    figures: list[tuple[str, Path]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Every evaluated criterion holds."""
        return all(c.passed is not False for c in self.criteria)


def get_study(name: str) -> ModuleType:
    """The study module ``name`` (see :data:`STUDIES`)."""
    if name not in STUDIES:
        raise ExperimentError(f"unknown study {name!r} (valid: {', '.join(STUDIES)})")
    return importlib.import_module(STUDIES[name])


def study_experiment(name: str, quick: bool = False, compat: str = "") -> Experiment:
    """The bundled experiment of study ``name`` (its ``quick`` grid with ``quick``; with
    ``compat``, the YAML the study's ``COMPAT`` names for that mode)."""
    module = get_study(name)
    yaml = module.YAML
    if compat:
        modes = getattr(module, "COMPAT", {})
        if compat not in modes:
            valid = ", ".join(modes) or "none"
            raise ExperimentError(f"study {name!r} has no compat mode {compat!r} (valid: {valid})")
        yaml = modes[compat]
    path = Path(str(resources.files(module.__name__.rpartition(".")[0]))) / yaml
    exp = load_experiment(path)
    return exp.quick() if quick else exp


def _machine() -> str:
    try:
        commit = subprocess.run(
            ["git", "-C", str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average {load}, commit {commit or 'unknown'}, {time.strftime('%Y-%m-%d %H:%M')}"
    )


def _mark(passed: bool | None) -> str:
    return {True: "pass", False: "**FAIL**", None: "not evaluated"}[passed]


def write_criteria(report: StudyReport, path: Path) -> None:
    """Write ``criteria.json``: one object a criterion (:meth:`Criterion.to_json`), so a user or
    a script reads the verdicts without parsing Markdown."""
    rows = [c.to_json() for c in report.criteria]
    path.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")


def write_report(report: StudyReport, path: Path, sweep: SweepResult, quick: bool) -> None:
    """Write ``report.md``."""
    evaluated = [c for c in report.criteria if c.required and c.passed is not None]
    held = sum(bool(c.passed) for c in evaluated)
    lines = [
        f"# {report.title}" + (" (quick grid)" if quick else ""),
        "",
        f"Run: {_machine()}.",
        f"Sweep: {sweep.total} cells ({sweep.done} done, {sweep.failed} failed), "
        f"{sweep.ran} run now on {sweep.backend} in {sweep.seconds:.1f} s.",
        "",
    ]
    for title, head, rows in report.lead:
        lines += [f"## {title}", "", format_table(head, rows, "md"), ""]
    lines += [f"## Criteria: {held} of {len(evaluated)} hold", ""]
    header = ["#", "paper", "reference", "ours", "criterion", "result"]
    body = [
        [
            c.id,
            c.paper,
            c.reference or "-",
            c.ours,
            c.rule,
            _mark(c.passed) if c.required else c.claim,
        ]
        for c in report.criteria
    ]
    lines += [format_table(header, body, "md"), ""]
    for title, head, rows in report.tables:
        lines += [f"## {title}", "", format_table(head, rows, "md"), ""]
    if report.figures:
        lines += ["## Figures", ""]
        lines += [f"![{caption}]({fig.name})" + "\n" for caption, fig in report.figures]
    if report.notes:
        lines += ["## Notes", "", *(f"- {n}" for n in report.notes), ""]
    path.write_text("\n".join(lines).rstrip("\n") + "\n")


def reproduce(
    name: str,
    out: str | Path | None = None,
    *,
    quick: bool = False,
    compat: str = "",
    workers: int | None = None,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool | None = None,
    verbose: bool = False,
    only: Mapping[str, Sequence[Any]] | None = None,
    report_only: bool = False,
) -> tuple[SweepResult, StudyReport | None]:
    """Run study ``name`` into ``out`` (default ``reproduce-NAME[-COMPAT][-quick]``) and write
    its ``results.csv``, ``report.md`` and figures; the report is ``None`` when interrupted.
    ``compat`` selects one of the study's ``COMPAT`` grids (another simulator's rules);
    ``only`` (axis -> values) keeps part of the grid; ``report_only`` runs nothing and reports
    the cells already done in ``out`` (the report says how many of the grid's are missing)."""
    module = get_study(name)
    exp = study_experiment(name, quick, compat)
    if only:
        exp = exp.restricted(only)
    default = f"reproduce-{name}" + (f"-{compat}" if compat else "") + ("-quick" * quick)
    target = Path(out) if out is not None else Path(default)
    if report_only:
        sweep, rows = _done_rows(exp, target)
    else:
        sweep = run_sweep(
            exp,
            target,
            workers=workers,
            dask=dask,
            retry_failed=retry_failed,
            progress=progress,
            verbose=verbose,
        )
        if sweep.interrupted:
            return sweep, None
        with ResultStore(target, readonly=True) as store:
            rows = list(store.rows())  # (the sweep left exactly its grid's cells current)
    with open(target / "results.csv", "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(RESULTS_COLUMNS)
        writer.writerows(module.results(rows))
    report = module.analyse(rows, target, quick)
    if report_only and sweep.done < sweep.total:  # (a run's missing cells are failed ones)
        report.notes.insert(
            0,
            f"Partial grid: {sweep.done} of {sweep.total} cells done; the tables and criteria "
            "use those cells only (run the same command without --report-only to finish).",
        )
    if sweep.failed:
        report.notes.append(
            f"{sweep.failed} cell(s) failed; `fluxgraph report {target} --failed` shows why, "
            "`--retry-failed` runs them again."
        )
    write_report(report, target / "report.md", sweep, quick)
    write_criteria(report, target / "criteria.json")
    return sweep, report


def _done_rows(exp: Experiment, target: Path) -> tuple[SweepResult, list[CellRow]]:
    """The done cells of ``exp``'s grid in ``target``'s store (nothing run, nothing changed)."""
    grid = {c.id for c in exp.cells()}
    with ResultStore(target, readonly=True) as store:
        rows = [r for r in store.rows(current_only=False) if r.cell_id in grid]
        failed_n = sum(
            r.cell_id in grid for r in store.rows(status=("failed",), current_only=False)
        )
    sweep = SweepResult(target, len(grid), 0, 0, len(rows), failed_n, False, 0.0, "none")
    return sweep, rows


def parameters_text(params: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    """``k=v;k=v`` of ``params`` (the ``parameters`` column of ``results.csv``)."""
    return ";".join(f"{k}={v}" for k, v in sorted(params.items()) if k not in skip)
