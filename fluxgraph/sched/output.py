"""Simulation outputs: ``jobs.csv`` in Batsim's column layout (``evalys`` reads it) and
``summary.json`` (the run's parameters and metrics).

``jobs.csv`` columns, one row per job in submission order: ``job_id`` (the trace's id),
``workload_name``, ``submission_time``, ``requested_number_of_resources`` (nodes: those
allocated, or the request's node count for a rejected job), ``requested_time`` (walltime),
``success`` (1 = completed within its walltime), ``final_state`` (``COMPLETED_SUCCESSFULLY``,
``COMPLETED_WALLTIME_REACHED`` or ``REJECTED``), ``starting_time``, ``execution_time``,
``finish_time``, ``waiting_time``, ``turnaround_time``, ``stretch``, ``allocated_resources``
(node ranks as an interval set, ``0-3 7``), ``consumed_energy`` (-1: not modelled),
``metadata`` (the rejection reason). Times are seconds from the trace's origin. Rejected
jobs carry -1 in their time columns.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fluxgraph.sched.records import JobRecord, SimulationResult, node_intervals

__all__ = ["JOBS_COLUMNS", "job_row", "write_jobs_csv", "write_outputs", "write_summary"]

JOBS_COLUMNS = (
    "job_id",
    "workload_name",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)


def _number(x: float) -> str:
    return repr(round(x, 6)) if isinstance(x, float) else str(x)


def job_row(record: JobRecord, workload: str, requested_nodes: int = 0) -> list[str]:
    """The ``jobs.csv`` row of ``record`` (see the module docstring).

    >>> from fluxgraph.workload import Job
    >>> job_row(JobRecord(Job(9, 5, 10, 20), start=7, end=17, nodes=(2, 3)), "w")[:8]
    ['9', 'w', '5', '2', '20', '1', 'COMPLETED_SUCCESSFULLY', '7']
    """
    job = record.job
    if not record.completed:
        state = "REJECTED" if record.rejected else "NOT_SUBMITTED"
        cells: list[Any] = [
            job.id,
            workload,
            job.submit,
            requested_nodes,
            job.walltime,
            0,
            state,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            "",
            -1,
            record.reason,
        ]
    else:
        killed = record.killed
        cells = [
            job.id,
            workload,
            job.submit,
            len(record.nodes),
            job.walltime,
            0 if killed else 1,
            "COMPLETED_WALLTIME_REACHED" if killed else "COMPLETED_SUCCESSFULLY",
            record.start,
            record.execution,
            record.end,
            record.wait,
            record.turnaround,
            record.turnaround / record.execution if record.execution else 1.0,
            node_intervals(record.nodes),
            -1,
            "",
        ]
    return [_number(c) if not isinstance(c, str) else c for c in cells]


def write_jobs_csv(result: SimulationResult, path: str | Path, workload: str = "w0") -> None:
    """Write ``jobs.csv`` (see the module docstring)."""
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(JOBS_COLUMNS)
        for record in result.jobs:
            out.writerow(job_row(record, workload))


def write_summary(
    path: str | Path, metrics: Mapping[str, Any], parameters: Mapping[str, Any]
) -> None:
    """Write ``summary.json``: ``{"parameters": ..., "metrics": ...}``, keys sorted."""
    doc = {"parameters": dict(parameters), "metrics": dict(metrics)}
    Path(path).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def write_outputs(
    result: SimulationResult,
    out_dir: str | Path,
    metrics: Mapping[str, Any],
    parameters: Mapping[str, Any],
    workload: str = "w0",
) -> Path:
    """Write ``jobs.csv`` and ``summary.json`` into ``out_dir`` (created); returns it."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(result, out / "jobs.csv", workload)
    write_summary(out / "summary.json", metrics, parameters)
    return out
