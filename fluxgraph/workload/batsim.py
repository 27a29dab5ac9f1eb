"""Batsim workload JSON -> :class:`Workload`.

A Batsim workload is ``{"nb_res": N, "jobs": [...], "profiles": {...}}``; each job has ``id``
(an integer or a string such as ``"w0!3"``), ``subtime``, ``walltime`` (optional; -1 or absent
= none), ``res`` (how many resources) and ``profile`` (a key of ``profiles``). Only ``delay``
profiles say how long a job runs (``{"type": "delay", "delay": seconds}``).

Rules (the same as for SWF, see ``docs/workload.md``):

* ``runtime`` = the profile's ``delay``, ``submit`` = ``subtime``, ``walltime`` = ``walltime``
  when > 0, else the run time; both at least 1 s (fractions round to the nearest second), and a
  job that ran past its walltime is killed at it;
* Batsim allocates whole hosts: ``res_unit="node"`` (default) gives ``nodes = procs = res``;
  ``res_unit="core"`` gives ``procs = res`` and ``nodes = 0``;
* ``id`` keeps its number (the part after ``!`` of a string id); an id without one, or one
  already taken, gets a fresh integer above all numeric ids. String ids are kept in
  ``extra["orig_id"]``, the profile name in ``extra["profile"]``, other job keys as they are;
* ``nb_res`` goes to ``metadata["nb_res"]`` and to ``MaxNodes`` (``MaxProcs`` for cores);
* jobs with ``res <= 0``, a negative delay or a negative ``subtime`` are dropped and counted; a
  job whose profile is not ``delay`` is an error, or skipped with ``lenient=True``.

Errors name the file and the JSON path of the bad value (``jobs[3].res``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fluxgraph.errors import WorkloadError
from fluxgraph.workload._common import (
    Tally,
    assign_ids,
    check_limit,
    freeze,
    job_times,
    open_text,
    trace_name,
    whole,
)
from fluxgraph.workload.job import Job, Workload

__all__ = ["RES_UNITS", "read_batsim"]

#: What a Batsim resource is: a whole node (host) or one core.
RES_UNITS = ("node", "core")

_KNOWN = frozenset({"id", "subtime", "walltime", "res", "profile"})


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _number(value: Any, source: str, path: str, *, integer: bool = False) -> float:
    """``value`` checked to be a (finite) JSON number; WorkloadError naming ``path`` otherwise."""
    if not _is_number(value) or value in (float("inf"), float("-inf")):
        raise WorkloadError(f"{value!r} is not a number", source, 0, path)
    if integer and not float(value).is_integer():
        raise WorkloadError(f"{value!r} is not an integer", source, 0, path)
    return value


def _delays(profiles: Any, source: str) -> dict[str, float | str]:
    """Profile name -> its delay, or the text of why it gives no run time."""
    if not isinstance(profiles, dict):
        raise WorkloadError("'profiles' must be an object", source, 0, "profiles")
    delays: dict[str, float | str] = {}
    for name, profile in profiles.items():
        where = f"profiles.{name}"
        if not isinstance(profile, dict):
            raise WorkloadError("a profile must be an object", source, 0, where)
        kind = profile.get("type")
        if kind != "delay":
            delays[name] = f"profile {name!r} has type {kind!r}; only 'delay' profiles are read"
        elif "delay" not in profile:
            raise WorkloadError("missing 'delay'", source, 0, where)
        else:
            delays[name] = _number(profile["delay"], source, f"{where}.delay")
    return delays


def read_batsim(
    path: str | Path,
    *,
    lenient: bool = False,
    limit: int | None = None,
    res_unit: str = "node",
    name: str | None = None,
) -> Workload:
    """The workload of the Batsim JSON file ``path`` (``.json`` or ``.json.gz``).

    Parameters
    ----------
    path : the workload file.
    lenient : skip jobs that cannot be read (recorded in ``skipped_lines`` with line 0 and the
        message naming the JSON path) instead of raising.
    limit : stop after this many kept jobs.
    res_unit : ``"node"`` or ``"core"``, what one Batsim resource is.
    name : the workload's name (default: the file name without suffixes).

    Raises
    ------
    WorkloadError
        On invalid JSON (naming its line), a missing or bad top-level key, or a bad job unless
        ``lenient``, naming the file and the JSON path.

    Examples
    --------
    >>> from fluxgraph.workload import bundled_trace
    >>> w = read_batsim(bundled_trace("sample-batsim.json"))
    >>> j = w[0]
    >>> len(w), w.max_nodes, (j.id, j.submit, j.runtime, j.walltime, j.nodes, j.procs)
    (20, 16, (1, 0, 120, 300, 2, 2))
    """
    source = str(path)
    limit = check_limit(limit, source)
    if res_unit not in RES_UNITS:
        raise WorkloadError(f"res_unit must be 'node' or 'core', not {res_unit!r}", source)
    with open_text(path) as stream:
        try:
            doc = json.load(stream)
        except json.JSONDecodeError as err:
            raise WorkloadError(f"invalid JSON: {err.msg}", source, err.lineno) from None
    if not isinstance(doc, dict):
        raise WorkloadError("the top level must be an object", source)
    for key in ("nb_res", "jobs"):
        if key not in doc:
            raise WorkloadError(f"missing {key!r}", source, 0, key)
    nb_res = _number(doc["nb_res"], source, "nb_res", integer=True)
    if nb_res < 1:
        raise WorkloadError(f"{nb_res!r} is not a positive integer", source, 0, "nb_res")
    if not isinstance(doc["jobs"], list):
        raise WorkloadError("'jobs' must be an array", source, 0, "jobs")
    delays = _delays(doc.get("profiles", {}), source)
    tally = Tally(source, lenient)
    raw_ids: list[object] = []
    rows: list[tuple[Any, ...]] = []
    for i, job in enumerate(doc["jobs"]):
        if limit is not None and len(rows) >= limit:
            break
        try:
            row = _row(job, f"jobs[{i}]", delays, tally, source, res_unit)
        except WorkloadError as err:
            tally.bad(err)
            continue
        if row is not None:
            raw_ids.append(job["id"])
            rows.append(row)
    jobs = []
    for raw, number, row in zip(raw_ids, assign_ids(raw_ids), rows, strict=True):
        extra = row[-1]
        if isinstance(raw, str):
            extra["orig_id"] = raw
        jobs.append(Job(number, *row[:-1], freeze(extra)))
    size = str(int(nb_res))
    metadata = {"nb_res": size, "MaxNodes" if res_unit == "node" else "MaxProcs": size}
    return tally.workload(jobs, name or trace_name(path), metadata)


def _row(
    job: Any,
    where: str,
    delays: dict[str, float | str],
    tally: Tally,
    source: str,
    res_unit: str,
) -> tuple[Any, ...] | None:
    """The fields of job ``where`` after ``id`` (``extra`` last), or ``None`` if dropped."""
    if not isinstance(job, dict):
        raise WorkloadError("a job must be an object", source, 0, where)
    for key in ("id", "subtime", "res", "profile"):
        if key not in job:
            raise WorkloadError(f"missing {key!r}", source, 0, f"{where}.{key}")
    raw = job["id"]
    if not (isinstance(raw, str) or (isinstance(raw, int) and not isinstance(raw, bool))):
        raise WorkloadError(f"{raw!r} is not a string or an integer", source, 0, f"{where}.id")
    subtime = _number(job["subtime"], source, f"{where}.subtime")
    res = _number(job["res"], source, f"{where}.res", integer=True)
    walltime = job.get("walltime", -1)
    walltime = -1 if walltime is None else _number(walltime, source, f"{where}.walltime")
    profile = job["profile"]
    if not isinstance(profile, str) or profile not in delays:
        raise WorkloadError(f"unknown profile {profile!r}", source, 0, f"{where}.profile")
    delay = delays[profile]
    if isinstance(delay, str):
        raise WorkloadError(delay, source, 0, f"{where}.profile")
    if res <= 0:
        tally.drop("procs <= 0")
        return None
    if delay < 0:
        tally.drop("negative runtime")
        return None
    if subtime < 0:
        tally.drop("negative submit time")
        return None
    runtime, walltime, killed = job_times(whole(delay), whole(walltime))
    tally.killed += killed
    extra = {k: v for k, v in job.items() if k not in _KNOWN}
    extra["profile"] = profile
    res = int(res)
    nodes = res if res_unit == "node" else 0
    return (whole(subtime), runtime, walltime, res, nodes, 0.0, -1, -1, "", extra)
