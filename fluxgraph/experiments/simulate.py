"""The ``simulate`` cell kind: build the machine and the (seeded) workload, run the simulator,
return the run-level metrics of :func:`fluxgraph.sched.summarize`.

Parameters (all optional except ``machine`` and ``trace``):

* ``machine``: a spec (``nodes=100,cores=4``) or a GRUG/JGF file;
* ``trace``: a bundled trace name (``kth-sample.swf``), a file, ``lublin:N`` / ``poisson:N`` /
  ``uniform:N``, or a mapping ``{file: PATH, format: swf, lenient: true}`` or
  ``{generator: lublin, n_jobs: 200, max_procs: 64}`` (other keys go to the generator);
* ``seed``: the generator's seed (default 0); ``skip``/``limit``: replay jobs
  ``skip .. skip+limit`` of the trace (a window of a real trace);
* ``queue``, ``reservation_depth``, ``queue_depth``, ``priority``, ``shape``, ``policy``,
  ``prune``: as for ``fluxgraph simulate``; ``exclude``: the warm-up/cool-down fraction dropped
  from the per-job statistics.

With ``outputs: {jobs_csv: true}`` the cell also keeps its ``jobs.csv`` (Batsim layout).
"""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path
from typing import Any

from fluxgraph.errors import ExperimentError, FluxgraphError
from fluxgraph.experiments.kinds import CellContext, Kind, resolve_path
from fluxgraph.machines import load_machine, parse_machine_spec
from fluxgraph.sched import PRIORITIES, QUEUE_POLICIES, SHAPES, Simulator, summarize
from fluxgraph.sched.output import JOBS_COLUMNS, job_row
from fluxgraph.sched.queueing import make_queue_policy
from fluxgraph.workload import Workload, bundled_trace, generators, load_workload

__all__ = ["KIND", "METRICS", "simulate_cell"]

GENERATORS = ("lublin", "poisson", "uniform")

#: The metrics a ``simulate`` cell returns (those of :func:`fluxgraph.sched.summarize`).
METRICS = (
    "jobs",
    "completed",
    "rejected",
    "killed",
    "makespan",
    "throughput_per_hour",
    "mean_wait",
    "median_wait",
    "p95_wait",
    "max_wait",
    "mean_turnaround",
    "mean_bsld",
    "median_bsld",
    "p95_bsld",
    "node_utilisation",
    "core_utilisation",
    "mean_queue_length",
    "max_queue_length",
)

_POSITIVE = {"type": "integer", "minimum": 1}
_TRACE = {
    "oneOf": [
        {"type": "string", "minLength": 1},
        {
            "type": "object",
            "required": ["file"],
            "additionalProperties": False,
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "format": {"enum": ["swf", "csv", "batsim"]},
                "lenient": {"type": "boolean"},
            },
        },
        {
            "type": "object",
            "required": ["generator", "n_jobs"],
            "properties": {"generator": {"enum": list(GENERATORS)}, "n_jobs": _POSITIVE},
        },
    ]
}

PARAMS: dict[str, dict[str, Any]] = {
    "machine": {"type": "string", "minLength": 1},
    "trace": _TRACE,
    "seed": {"type": "integer"},
    "skip": {"type": "integer", "minimum": 0},
    "limit": _POSITIVE,
    "queue": {"enum": list(QUEUE_POLICIES)},
    "reservation_depth": _POSITIVE,
    "queue_depth": _POSITIVE,
    "priority": {"enum": list(PRIORITIES)},
    "shape": {"enum": list(SHAPES)},
    "policy": {"type": "string", "minLength": 1},
    "prune": {"type": "string"},
    "exclude": {"type": "number", "minimum": 0, "exclusiveMaximum": 0.5},
}


def _trace_file(name: str, base_dir: Path | str | None) -> Path:
    path = resolve_path(name, base_dir)
    if not path.exists() and not path.is_absolute() and path.parent == Path("."):
        with contextlib.suppress(FluxgraphError):
            return bundled_trace(name)
    return path


def _generated(name: str, n_jobs: int, seed: int, options: dict[str, Any]) -> Workload:
    for key in ("runtime", "overestimate"):  # JSON lists -> the generators' tuples
        if isinstance(options.get(key), list):
            options[key] = tuple(options[key])
    try:
        return getattr(generators, name)(n_jobs, seed=seed, **options)
    except TypeError as err:
        raise ExperimentError(f"trace generator {name}: {err}") from None


def workload_of(params: dict[str, Any], base_dir: str | Path | None = None) -> Workload:
    """The workload a cell's ``trace``, ``seed``, ``skip`` and ``limit`` describe."""
    trace = params["trace"]
    seed = params.get("seed", 0)
    skip = params.get("skip", 0)
    limit = params.get("limit")
    read_limit = skip + limit if limit is not None else None
    if isinstance(trace, dict) and "generator" in trace:
        options = {k: v for k, v in trace.items() if k not in ("generator", "n_jobs")}
        workload = _generated(trace["generator"], trace["n_jobs"], seed, options)
    elif isinstance(trace, str) and trace.partition(":")[0] in GENERATORS:
        name, _, count = trace.partition(":")
        if not count.isdigit() or int(count) < 1:
            raise ExperimentError(f"trace {trace!r}: {count!r} is not a job count")
        workload = _generated(name, int(count), seed, {})
    else:
        spec = trace if isinstance(trace, dict) else {"file": trace}
        workload = load_workload(
            _trace_file(spec["file"], base_dir),
            spec.get("format"),
            lenient=spec.get("lenient", False),
            limit=read_limit,
        )
    if skip:
        jobs = workload.jobs[skip:read_limit]
        return Workload(jobs, workload.name, workload.metadata, workload.dropped)
    return workload.head(limit) if limit is not None else workload


def _check(key: str, value: Any, base_dir: Path | None) -> None:
    """Reject, before any cell runs, a machine or trace that cannot be found or parsed."""
    if key == "machine":
        if "=" in value and not resolve_path(value, base_dir).exists():
            parse_machine_spec(value)
        elif not resolve_path(value, base_dir).is_file():
            raise ExperimentError(f"machine {value!r}: no such file (nor a nodes=N,... spec)")
    elif key == "trace":
        name = value if isinstance(value, str) else value.get("file")
        if name is None or name.partition(":")[0] in GENERATORS:
            return
        if not _trace_file(name, base_dir).is_file():
            raise ExperimentError(f"trace {name!r}: no such file and no bundled trace of that name")
    elif key == "queue":
        make_queue_policy(value)


def _jobs_csv(result, workload_name: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(JOBS_COLUMNS)
    for record in result.jobs:
        writer.writerow(job_row(record, workload_name))
    return out.getvalue()


def simulate_cell(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    """Run one simulation cell (see the module docstring); returns its metrics."""
    queue = make_queue_policy(
        params.get("queue", "easy"), params.get("reservation_depth", 64), params.get("queue_depth")
    )
    machine = ctx.path(params["machine"])
    graph = load_machine(machine if machine.exists() else params["machine"])
    workload = workload_of(params, ctx.base_dir)
    result = Simulator(
        graph,
        workload,
        queue=queue,
        priority=params.get("priority", "fcfs"),
        shape=params.get("shape", "node"),
        policy=params.get("policy", "first"),
        prune=params.get("prune", "ALL:node,ALL:core"),
    ).run()
    if "jobs_csv" in ctx.outputs:
        ctx.attach("jobs.csv", _jobs_csv(result, workload.name))
    return dict(summarize(result, exclude=params.get("exclude", 0.0)))


KIND = Kind("simulate", simulate_cell, PARAMS, required=("machine", "trace"), check=_check)
