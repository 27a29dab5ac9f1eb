"""The Perlmutter trace mapping (FM spec §3.2, W1), the JUWELS-shaped W2 and a small generator.

Rows ``(jobid, submit, nnodes, duration, memory)`` are sorted by ``(submit, jobid)``; job
index ``i`` is the position; submit times are rebased to the first job (W2 also scales them by
1.6); ``d = duration``; each job draws its latency sensitivity ``u`` from one
``random.Random(seed)`` in index order (common random numbers across runs).

A job is a :class:`~fluxgraph.workload.Job` with ``id = i``, ``procs = nodes = n``,
``memory = M`` (peak GB per node), ``runtime = d``; ``extra`` holds ``d``, ``u``, ``index`` and
the trace's ``jobid``. :func:`fm_jobs` sets each walltime to the longest stretched runtime the
job can get (the simulator's kill limit; the scheduler plans with the exact ``d'``).

>>> rows = [TraceRow(7, 20, 1, 400, 100), TraceRow(5, 10, 2, 360, 40)]
>>> jobs = map_trace(rows)
>>> [(j.id, j.submit, j.procs, j.memory, j.extra["jobid"]) for j in jobs]
[(0, 0, 2, 40, 5), (1, 10, 1, 100, 7)]
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.slowdown import SlowdownModel
from fluxgraph.workload import Job

__all__ = ["TraceRow", "fm_jobs", "map_trace", "read_trace", "synthetic_trace"]

_COLUMNS = ("jobid", "submit", "nnodes", "duration", "memory")


class TraceRow(NamedTuple):
    """One trace row (scaled seconds, GB per node)."""

    jobid: int
    submit: int
    nnodes: int
    duration: int
    memory: int


def read_trace(path: str | Path) -> list[TraceRow]:
    """The rows of a CSV with columns ``jobid,submit,...,nnodes,duration,memory``.

    Raises
    ------
    SimulationError
        Naming the file and line of a missing column or a bad value.
    """
    rows: list[TraceRow] = []
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise SimulationError(f"{path}: missing column(s) {', '.join(missing)}")
        for line, rec in enumerate(reader, start=2):
            try:
                row = TraceRow(*(int(rec[c]) for c in _COLUMNS))
            except (TypeError, ValueError):
                raise SimulationError(f"{path}:{line}: non-integer value in {rec}") from None
            if row.nnodes < 1 or row.duration < 1 or row.memory < 1 or row.submit < 0:
                raise SimulationError(
                    f"{path}:{line}: need nnodes, duration, memory >= 1, submit >= 0: {rec}"
                )
            rows.append(row)
    return rows


def map_trace(rows: Iterable[TraceRow], seed: int = 1, submit_scale: float = 1.0) -> list[Job]:
    """Spec §3.2 steps 1-4 and 6 (``submit_scale = 1.6`` gives W2, §3.3)."""
    ordered = sorted(rows, key=lambda r: (r.submit, r.jobid))
    if not ordered:
        return []
    rng = random.Random(seed)
    origin = ordered[0].submit
    jobs = []
    for i, row in enumerate(ordered):
        rebased = row.submit - origin
        submit = rebased if submit_scale == 1.0 else round(submit_scale * rebased)
        extra = {"d": row.duration, "u": rng.random(), "index": i, "jobid": row.jobid}
        jobs.append(
            Job(
                i,
                submit,
                row.duration,
                row.duration,
                procs=row.nnodes,
                nodes=row.nnodes,
                memory=row.memory,
                extra=MappingProxyType(extra),
            )
        )
    return jobs


def fm_jobs(jobs: Sequence[Job], local_gb: int, model: SlowdownModel, scope: str) -> list[Job]:
    """``jobs`` with walltimes set to their longest stretched runtime on this configuration.

    Rack scope: every chunk is in the node's rack (``f_cross = 0``); system scope: at most all
    of them cross racks (the model's latency scope decides the latency they are charged).

    >>> j = map_trace([TraceRow(1, 0, 1, 1000, 256)])
    >>> [fm_jobs(j, 64, SlowdownModel(), s)[0].walltime for s in ("rack", "system")]
    [1008, 1015]
    """
    worst = 1.0 if scope == "system" else 0.0
    out = []
    for job in jobs:
        e = job.extra
        wall = max(
            model.stretch(e["d"], int(job.memory), local_gb, e["u"], model.latency_share(f, scope))
            for f in (0.0, worst)
        )
        out.append(
            Job(
                job.id,
                job.submit,
                wall,
                wall,
                procs=job.procs,
                nodes=job.nodes,
                memory=job.memory,
                extra=job.extra,
            )
        )
    return out


def synthetic_trace(count: int, seed: int = 0, span: int = 20_000) -> list[TraceRow]:
    """A small Perlmutter-shaped trace for tests without ``../shared``.

    Mostly one-node jobs, a few wide ones; runtimes 360-4,330 s; memory 28-505 GB with more
    than half above 64 GB (spec §3.2's shape, not its numbers).

    >>> len(synthetic_trace(5)), min(r.duration for r in synthetic_trace(50)) >= 360
    (5, True)
    """
    rng = random.Random(seed)
    rows = []
    for jobid in range(count):
        wide = rng.random() < 0.3
        nodes = rng.choice((2, 4, 8, 16, 32, 64, 128)) if wide else 1
        duration = rng.choice((360, 600, 1200, 2400, 4320)) + rng.randrange(10)
        memory = rng.choice((28, 40, 60, 64, 80, 96, 128, 200, 300, 441, 505))
        rows.append(TraceRow(jobid, rng.randrange(span), nodes, duration, memory))
    return rows
