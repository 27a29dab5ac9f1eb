"""CSV job traces -> :class:`Workload`, through a mapping of :class:`Job` fields to columns.

The first line names the columns. ``mapping`` says which column holds which job field
(``{"id": "jobid", "runtime": "duration", ...}``); fields it does not name are found among the
usual column names (:data:`CANDIDATES`, case-insensitive), and a field mapped to ``None`` is
left out. Columns no field uses go to ``Job.extra`` (numbers as numbers, other cells as text).

Rules (the same as for SWF, see ``docs/workload.md``):

* ``submit`` and ``runtime`` are required; without a run time column, ``start`` and ``end``
  columns give ``runtime = end - start``. Times are seconds (fractions round to the nearest);
* ``walltime`` = its column when mapped and > 0, else the run time; both at least 1 s, and a job
  that ran past its walltime is killed at it;
* ``procs`` = its column; without one, ``nodes * procs_per_node`` (``procs_per_node`` defaults to
  1: each node counts as one slot) when a node column exists, else 1;
* ``nodes`` = its column (0 = not said); ``memory`` = GB per node (the column's unit);
* ``user`` and ``group`` keep numbers; names get small integers in order of appearance (the name
  goes to ``extra["user_name"]`` / ``extra["group_name"]``); ``queue`` is text;
* ids keep their number; an id without one gets a fresh integer above all numeric ids (the
  original text in ``extra["orig_id"]``); without an id column jobs are numbered 1, 2, ...;
* jobs with ``procs <= 0``, a negative run time or a negative submit time are dropped and counted.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping
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

__all__ = ["CANDIDATES", "FIELDS", "detect_mapping", "read_csv"]

_DIGITS = re.compile(r"-?[0-9]+")

#: The job fields a mapping may name; ``start`` and ``end`` stand in for a missing run time.
FIELDS = (
    "id",
    "submit",
    "runtime",
    "walltime",
    "procs",
    "nodes",
    "memory",
    "user",
    "group",
    "queue",
    "start",
    "end",
)

#: Column names (lower case) recognised for each field when the mapping does not name it.
CANDIDATES: Mapping[str, tuple[str, ...]] = {
    "id": ("id", "jobid", "job_id", "job"),
    "submit": ("submit", "submit_time", "submittime", "subtime", "submitted"),
    "runtime": ("runtime", "run_time", "duration", "elapsed"),
    "walltime": ("walltime", "wall_time", "time_limit", "timelimit", "requested_time", "req_time"),
    "procs": ("procs", "nprocs", "ncpus", "cpus", "cores", "ncores", "ntasks"),
    "nodes": ("nodes", "nnodes", "num_nodes", "node_count", "nodecount"),
    "memory": ("memory", "mem", "memory_gb", "mem_gb"),
    "user": ("user", "uid", "user_id", "userid"),
    "group": ("group", "gid", "group_id", "groupid"),
    "queue": ("queue", "partition"),
    "start": ("start", "start_time", "starttime"),
    "end": ("end", "end_time", "endtime"),
}


def detect_mapping(columns: list[str]) -> dict[str, str]:
    """The default mapping for a header: each field -> its first candidate column present.

    ``start`` and ``end`` are only used when there is no run time column.

    Examples
    --------
    >>> m = detect_mapping(["jobid", "submit", "start", "end", "nnodes", "duration", "memory"])
    >>> m["id"], m["runtime"], m["nodes"], "start" in m
    ('jobid', 'duration', 'nnodes', False)
    """
    lower = {c.strip().lower(): c for c in reversed(columns)}
    found = {}
    for field, names in CANDIDATES.items():
        for candidate in names:
            if candidate in lower:
                found[field] = lower[candidate]
                break
    if "runtime" in found:
        found.pop("start", None)
        found.pop("end", None)
    return found


def _resolve(
    header: list[str], mapping: Mapping[str, str | None] | None, source: str
) -> dict[str, int]:
    """Field -> column index, from ``mapping`` over the detected defaults."""
    for field in mapping or {}:
        if field not in FIELDS:
            raise WorkloadError(
                f"unknown job field {field!r} in the mapping (fields: {', '.join(FIELDS)})", source
            )
    merged: dict[str, str | None] = {**detect_mapping(header), **(mapping or {})}
    if mapping and "runtime" in mapping and mapping["runtime"] is not None:
        for field in ("start", "end"):
            if field not in mapping:
                merged.pop(field, None)
    index = {}
    lower = {c.lower(): i for i, c in reversed(list(enumerate(header)))}
    for field, column in merged.items():
        if column is None:
            continue
        if column in header:
            index[field] = header.index(column)
        elif column.lower() in lower:
            index[field] = lower[column.lower()]
        else:
            raise WorkloadError(
                f"column {column!r} not found (columns: {', '.join(header)})", source, 1, field
            )
    if "runtime" in index and ("start" in index or "end" in index):
        raise WorkloadError("map either 'runtime' or 'start' and 'end', not both", source, 1)
    missing = [f for f in ("submit",) if f not in index]
    if "runtime" not in index and not ("start" in index and "end" in index):
        missing.append("runtime")
    if missing:
        raise WorkloadError(
            f"no column for {' and '.join(missing)}; name it in the mapping "
            f"(columns: {', '.join(header)})",
            source,
            1,
        )
    return index


class _Row:
    """Reads the mapped values of one CSV record, with errors naming line and column."""

    __slots__ = ("columns", "index", "line", "row", "source")

    def __init__(self, source: str, columns: list[str], index: dict[str, int]) -> None:
        self.source = source
        self.columns = columns
        self.index = index
        self.row: list[str] = []
        self.line = 0

    def _where(self, field: str) -> str:
        return f"{self.columns[self.index[field]]} ({field})"

    def text(self, field: str) -> str:
        """The cell of ``field`` stripped (``""`` when the field has no column)."""
        i = self.index.get(field)
        return "" if i is None else self.row[i].strip()

    def number(self, field: str) -> float | None:
        """The cell of ``field`` as a number; ``None`` when empty or unmapped."""
        i = self.index.get(field)
        if i is None:
            return None
        text = self.row[i].strip()
        if not text:
            return None
        if _DIGITS.fullmatch(text):
            return int(text)
        try:
            if "_" in text:
                raise ValueError(text)
            value = float(text)
        except ValueError:
            raise WorkloadError(
                f"{text!r} is not a number", self.source, self.line, self._where(field)
            ) from None
        if not math.isfinite(value):
            raise WorkloadError(
                f"{text!r} is not a finite number", self.source, self.line, self._where(field)
            )
        return value

    def required(self, field: str) -> float:
        """The cell of ``field`` as a number; WorkloadError when it is empty."""
        value = self.number(field)
        if value is None:
            raise WorkloadError("missing value", self.source, self.line, self._where(field))
        return value


def _cell(text: str) -> int | float | str:
    """An unmapped cell for ``extra``: its number when it is one, else its text.

    >>> _cell("12"), _cell(" 2.5"), _cell("gpu"), _cell("nan"), _cell("")
    (12, 2.5, 'gpu', 'nan', '')
    """
    value = text.strip()
    if _DIGITS.fullmatch(value):
        return int(value)
    if value and "_" not in value:
        try:
            number = float(value)
        except ValueError:
            return text
        if math.isfinite(number):
            return number
    return text


def _owner(text: str, names: dict[str, int]) -> tuple[int, str | None]:
    """A user or group cell: its number, or a small integer standing for its name."""
    if not text:
        return -1, None
    if _DIGITS.fullmatch(text):
        return int(text), None
    return names.setdefault(text, len(names)), text


def read_csv(
    path: str | Path,
    mapping: Mapping[str, str | None] | None = None,
    *,
    lenient: bool = False,
    limit: int | None = None,
    delimiter: str = ",",
    procs_per_node: int | None = None,
    name: str | None = None,
) -> Workload:
    """The workload of the CSV trace ``path`` (``.csv`` or ``.csv.gz``).

    Parameters
    ----------
    path : the file; its first line names the columns.
    mapping : job field -> column name, over the detected defaults (``None`` leaves a field out).
    lenient : skip malformed records (recorded in ``skipped_lines``) instead of raising.
    limit : stop after this many kept jobs.
    delimiter : the column separator.
    procs_per_node : without a procs column, ``procs = nodes * procs_per_node`` (default 1).
    name : the workload's name (default: the file name without suffixes).

    Raises
    ------
    WorkloadError
        On a bad mapping or a missing column (line 1), or a malformed record unless ``lenient``,
        naming the file, the line and the column.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = f.write_text("jobid,submit,nnodes,duration,memory\\n7,100,2,3600,96\\n")
    >>> j = read_csv(f)[0]
    >>> j.id, j.submit, j.runtime, j.walltime, j.nodes, j.procs, j.memory
    (7, 100, 3600, 3600, 2, 2, 96.0)
    """
    source = str(path)
    limit = check_limit(limit, source)
    if procs_per_node is not None and procs_per_node < 1:
        raise WorkloadError(f"procs_per_node must be >= 1, not {procs_per_node}", source)
    tally = Tally(source, lenient)
    raw_ids: list[object] = []
    rows: list[tuple[Any, ...]] = []
    users: dict[str, int] = {}
    groups: dict[str, int] = {}
    with open_text(path) as stream:
        reader = csv.reader(stream, delimiter=delimiter)
        header = [c.strip() for c in next(reader, [])]
        if not header or header == [""]:
            raise WorkloadError("no header line naming the columns", source, 1)
        twice = sorted({c for c in header if header.count(c) > 1})
        if twice:
            raise WorkloadError(f"duplicate column names: {', '.join(twice)}", source, 1)
        index = _resolve(header, mapping, source)
        used = set(index.values())
        unmapped = [(i, c) for i, c in enumerate(header) if i not in used]
        row = _Row(source, header, index)
        for record in reader:
            if limit is not None and len(rows) >= limit:
                break
            if not any(cell.strip() for cell in record):
                continue
            row.row, row.line = record, reader.line_num
            if len(record) != len(header):
                tally.bad(
                    WorkloadError(
                        f"expected {len(header)} columns, found {len(record)}", source, row.line
                    )
                )
                continue
            try:
                values = _values(row, tally, procs_per_node, users, groups)
            except WorkloadError as err:
                tally.bad(err)
                continue
            if values is None:
                continue
            extra = {c: _cell(record[i]) for i, c in unmapped}
            if values[-1]:
                extra.update(values[-1])
            rows.append((*values[:-1], extra))
            raw_ids.append(row.text("id") if "id" in index else len(raw_ids) + 1)
    jobs = []
    for raw, number, values in zip(raw_ids, assign_ids(raw_ids), rows, strict=True):
        extra = values[-1]
        if isinstance(raw, str) and raw != str(number):
            extra["orig_id"] = raw
        jobs.append(Job(number, *values[:-1], freeze(extra)))
    return tally.workload(jobs, name or trace_name(path), {})


def _values(
    row: _Row,
    tally: Tally,
    procs_per_node: int | None,
    users: dict[str, int],
    groups: dict[str, int],
) -> tuple[Any, ...] | None:
    """A record's job fields after ``id``, ``extra`` last; ``None`` when the rules drop it."""
    submit = row.required("submit")
    if "runtime" in row.index:
        run = row.required("runtime")
    else:
        run = row.required("end") - row.required("start")
    nodes = whole(row.number("nodes") or 0)
    if "procs" in row.index:
        procs = whole(row.number("procs") or 0)
    elif "nodes" in row.index:
        procs = nodes * (procs_per_node or 1)
    else:
        procs = 1
    if procs <= 0:
        tally.drop("procs <= 0")
        return None
    if run < 0:
        tally.drop("negative runtime")
        return None
    if submit < 0:
        tally.drop("negative submit time")
        return None
    runtime, walltime, killed = job_times(whole(run), whole(row.number("walltime") or 0))
    tally.killed += killed
    user, user_name = _owner(row.text("user"), users)
    group, group_name = _owner(row.text("group"), groups)
    extra: dict[str, Any] | None = None
    if user_name is not None or group_name is not None:
        extra = {}
        if user_name is not None:
            extra["user_name"] = user_name
        if group_name is not None:
            extra["group_name"] = group_name
    memory = max(float(row.number("memory") or 0.0), 0.0)
    queue = row.text("queue")
    return (
        whole(submit),
        runtime,
        walltime,
        procs,
        max(nodes, 0),
        memory,
        user,
        group,
        queue,
        extra,
    )
