"""Simulation outputs: ``jobs.csv`` in Batsim's column layout (``evalys`` reads it) and
``summary.json`` (the run's parameters and metrics).

``jobs.csv`` columns, one row per job in submission order: ``job_id`` (the trace's id),
``workload_name``, ``profile`` (the job's Batsim profile name when the trace gave one),
``submission_time``, ``requested_number_of_resources`` (nodes: those
allocated, or the request's node count for a rejected job), ``requested_time`` (walltime),
``success`` (1 = completed within its walltime), ``final_state`` (``COMPLETED_SUCCESSFULLY``,
``COMPLETED_WALLTIME_REACHED`` or ``REJECTED``), ``starting_time``, ``execution_time``,
``finish_time``, ``waiting_time``, ``turnaround_time``, ``stretch``, ``allocated_resources``
(node ranks as an interval set, ``0-3 7``), ``consumed_energy`` (-1: not modelled),
``metadata`` (the rejection reason). Times are seconds from the trace's origin. Rejected
jobs carry -1 in their time columns. :func:`jobs_frame` gives the same table as a pandas
``DataFrame`` (pandas is the optional extra ``frames``).

``schedule.swf`` is the simulated schedule in the Standard Workload Format of the Parallel
Workloads Archive (:func:`write_schedule_swf`): the trace's jobs with the simulated wait and run
time, so tools that read SWF logs read our schedules too.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fluxgraph.errors import SimulationError
from fluxgraph.sched.records import JobRecord, SimulationResult, node_intervals
from fluxgraph.workload.swf import swf_line

__all__ = [
    "JOBS_COLUMNS",
    "job_row",
    "jobs_frame",
    "schedule_swf_line",
    "write_jobs_csv",
    "write_outputs",
    "write_schedule_swf",
    "write_summary",
]

JOBS_COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
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
    >>> job_row(JobRecord(Job(9, 5, 10, 20), start=7, end=17, nodes=(2, 3)), "w")[:9]
    ['9', 'w', '', '5', '2', '20', '1', 'COMPLETED_SUCCESSFULLY', '7']
    """
    job = record.job
    profile = str(job.extra.get("profile", "")) if job.extra else ""
    if not record.completed:
        state = "REJECTED" if record.rejected else "NOT_SUBMITTED"
        cells: list[Any] = [
            job.id,
            workload,
            profile,
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
            profile,
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
        _write_jobs(result, fh, workload)


def _write_jobs(result: SimulationResult, fh, workload: str) -> None:
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


def jobs_frame(result: SimulationResult, workload: str = "w0"):
    """``jobs.csv`` as a pandas ``DataFrame`` (the same columns and values, typed).

    >>> from fluxgraph.machines import build_machine
    >>> from fluxgraph.sched import simulate
    >>> from fluxgraph.workload import Job, Workload
    >>> jobs = Workload.of([Job(1, 0, 10, 10, procs=1), Job(2, 0, 10, 10, procs=2)])
    >>> frame = jobs_frame(simulate(build_machine("nodes=2"), jobs))
    >>> frame[["job_id", "starting_time", "waiting_time"]].to_dict("list")
    {'job_id': [1, 2], 'starting_time': [0, 10], 'waiting_time': [0, 10]}

    Raises
    ------
    SimulationError
        If pandas is not installed (``pip install 'fluxgraph[frames]'``).
    """
    try:
        import pandas as pd
    except ImportError:
        raise SimulationError("jobs_frame needs pandas: pip install 'fluxgraph[frames]'") from None
    buf = io.StringIO()
    _write_jobs(result, buf, workload)
    buf.seek(0)
    text = {"workload_name": str, "profile": str, "allocated_resources": str, "metadata": str}
    return pd.read_csv(buf, dtype=text, keep_default_na=False)


def schedule_swf_line(record: JobRecord) -> str:
    """The SWF line of ``record`` as simulated: the trace's request fields (as
    :func:`~fluxgraph.workload.swf.swf_line` writes them) with the simulated wait (field 3),
    run time (4) and allocated processors (5), and status (11) 1 for a completed job, 0 for one
    killed at its walltime, 5 for a rejected one (its wait, run time and allocation -1).

    >>> from fluxgraph.workload import Job
    >>> schedule_swf_line(JobRecord(Job(9, 5, 10, 20, procs=4), start=7, end=17, cores=4))
    '9 5 2 10 4 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1'
    """
    fields = swf_line(record.job).split(" ")
    if record.completed:
        status = 0 if record.killed else 1
        simulated = (record.wait, record.execution, record.cores or record.job.procs)
    else:
        status, simulated = 5, (-1, -1, -1)
    fields[2:5] = (str(x) for x in simulated)
    fields[10] = str(status)
    return " ".join(fields)


def write_schedule_swf(
    result: SimulationResult, path: str | Path, header: Mapping[str, Any] | None = None
) -> None:
    """Write the simulated schedule as SWF (:func:`schedule_swf_line`), after ``header`` as
    ``; Key: value`` comment lines."""
    with open(path, "w", encoding="utf-8") as fh:
        for key, value in (header or {}).items():
            fh.write(f"; {key}: {value}\n")
        for record in result.jobs:
            fh.write(schedule_swf_line(record) + "\n")


def write_outputs(
    result: SimulationResult,
    out_dir: str | Path,
    metrics: Mapping[str, Any],
    parameters: Mapping[str, Any],
    workload: str = "w0",
) -> Path:
    """Write ``jobs.csv``, ``schedule.swf`` and ``summary.json`` into ``out_dir`` (created);
    returns it."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(result, out / "jobs.csv", workload)
    header = {
        "Note": "simulated by fluxgraph: fields 3-5 are the simulated wait, run and allocation",
        "MaxNodes": result.total_nodes,
        "MaxProcs": result.total_cores,
        **{k: v for k, v in parameters.items() if isinstance(v, str | int | float)},
    }
    write_schedule_swf(result, out / "schedule.swf", header)
    write_summary(out / "summary.json", metrics, parameters)
    return out
