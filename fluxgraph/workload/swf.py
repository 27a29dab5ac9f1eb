"""Standard Workload Format (SWF) traces of the Parallel Workloads Archive -> :class:`Workload`.

A data line has 18 whitespace-separated numbers (``-1`` = unknown): 1 job number, 2 submit time,
3 wait time, 4 run time, 5 allocated processors, 6 average CPU time, 7 used memory, 8 requested
processors, 9 requested time, 10 requested memory, 11 status, 12 user id, 13 group id,
14 executable, 15 queue, 16 partition, 17 preceding job, 18 think time. Lines starting with
``;`` are header comments; ``; Key: value`` lines become ``metadata[Key]``.

Mapping rules (see ``docs/workload.md``):

* ``procs`` = requested processors (8) if > 0, else allocated processors (5);
* ``runtime`` = run time (4) and ``walltime`` = requested time (9) if > 0, else the run time,
  both at least 1 s; a job that ran past its walltime is killed at it (``runtime = walltime``);
* ``submit`` = field 2 as is (the trace's own origin); ``user`` 12, ``group`` 13, ``queue`` 15
  as text (``""`` when -1);
* jobs with ``procs <= 0``, a negative run time or a negative submit time are dropped and
  counted in :attr:`Workload.dropped`;
* requested memory (10) is KB per processor in SWF; the Alea/MetaCentrum extended SWF (fields
  19-21: allocated node ids ``{...}``, queue name, PBS node spec) stores bytes per job instead.
  ``memory_unit`` picks the rule; the GB per job go to ``extra["memory_job_gb"]`` and, when the
  node count is known (the extended format's node spec), ``Job.memory`` gets GB per node;
* other known fields go to ``extra`` under the names of :data:`EXTRA_FIELDS` (only when not -1),
  fields beyond 18 as raw text under ``"field19"``, ``"field20"``, ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from operator import itemgetter
from pathlib import Path
from typing import Any, TextIO

from fluxgraph.errors import WorkloadError
from fluxgraph.workload._common import (
    GB_PER_BYTE,
    GB_PER_KB,
    Tally,
    check_limit,
    open_text,
    trace_name,
    whole,
)
from fluxgraph.workload.job import Job, Workload

__all__ = [
    "EXTRA_FIELDS",
    "FIELD_NAMES",
    "MEMORY_UNITS",
    "SwfExtra",
    "parse_swf",
    "read_swf",
    "swf_line",
    "write_swf",
]

#: The 18 SWF fields, in order (field ``i`` is ``FIELD_NAMES[i - 1]``).
FIELD_NAMES = (
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
)

#: SWF fields without a :class:`Job` attribute: ``(0-based index, key in Job.extra)``.
EXTRA_FIELDS = (
    (2, "wait"),
    (4, "alloc_procs"),
    (5, "cpu_time"),
    (6, "used_memory"),
    (10, "status"),
    (13, "executable"),
    (15, "partition"),
    (16, "preceding_job"),
    (17, "think_time"),
)

#: Values of ``memory_unit``: ``"kb-per-proc"`` is SWF's definition of field 10,
#: ``"bytes-per-job"`` the Alea/MetaCentrum extended SWF's; ``"auto"`` picks the latter for
#: lines in the extended layout and the former otherwise.
MEMORY_UNITS = ("auto", "kb-per-proc", "bytes-per-job")

#: Header keys the reader itself sets; :func:`write_swf` does not write them back.
_READER_KEYS = frozenset({"memory_unit", "killed_at_walltime"})

_QUEUE = 14
#: The fields the mapping uses: job number, submit, run time, allocated and requested
#: processors, requested time (and requested memory for ``_USED``), user and group.
_USED = itemgetter(0, 1, 3, 4, 7, 8, 9, 11, 12)
_ROUNDED = itemgetter(0, 1, 3, 4, 7, 8, 11, 12)
#: The 18 fields but the queue: the fast path checks they hold nothing but digits and signs.
_CHECKED = itemgetter(*range(14), 15, 16, 17)
_NOT_INT = str.maketrans("", "", "0123456789- ")
_HEADER = re.compile(r";\s{0,2}([A-Za-z][\w-]*):(?:\s+(.*))?$")


def _number(text: str, index: int, source: str, line: int) -> int | float:
    """Field ``index`` (0-based) as a number; WorkloadError naming the field otherwise."""
    if not text.translate(_NOT_INT):
        try:
            return int(text)
        except ValueError:
            pass
    field = f"{index + 1} ({FIELD_NAMES[index]})"
    try:
        if "_" in text:
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise WorkloadError(f"{text!r} is not a number", source, line, field) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise WorkloadError(f"{text!r} is not a finite number", source, line, field)
    if index == 0 and not value.is_integer():
        raise WorkloadError(f"{text!r} is not an integer", source, line, field)
    return value


def _plain_integers(fields: tuple[str, ...]) -> bool:
    """Whether every field is ASCII digits with at most a leading minus (string operations only).

    >>> _plain_integers(("12", "-1", "0")), _plain_integers(("5-",)), _plain_integers(("-",))
    (True, False, False)
    """
    text = " " + " ".join(fields)
    if text.translate(_NOT_INT):
        return False
    text = text.replace(" -", " ")
    return "-" not in text and "  " not in text and text[-1] != " "


def _numbers(parts: list[str], source: str, line: int) -> list[Any]:
    """The 18 fields as numbers (the queue field stays text)."""
    values: list[Any] = [
        _number(p, i, source, line) if i != _QUEUE else p for i, p in enumerate(parts[:18])
    ]
    return values


def _value(text: str) -> int | float | str:
    """An unused field's value: its number, or its text when it is not one (``"5-"``)."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


class SwfExtra(Mapping[str, Any]):
    """:attr:`Job.extra` of an SWF line: the fields without a Job attribute, read on first use.

    Keys: those of :data:`EXTRA_FIELDS` whose value is not -1, ``"field19"``... for fields past
    18 (raw text), and ``"memory_job_gb"`` when memory was requested. Building the mapping only
    when asked keeps reading a large trace fast; it is read-only like any ``Job.extra``.

    Examples
    --------
    >>> e = SwfExtra("1 0 5 70 4 -1 -1 -1 60 -1 1 3 1 -1 2 -1 -1 -1 {7} q", None)
    >>> dict(e)
    {'wait': 5, 'alloc_procs': 4, 'status': 1, 'field19': '{7}', 'field20': 'q'}
    """

    __slots__ = ("_data", "_line", "_more")

    def __init__(self, line: str, more: dict[str, Any] | None) -> None:
        self._line = line
        self._more = more
        self._data: dict[str, Any] | None = None

    def _fields(self) -> dict[str, Any]:
        if self._data is None:
            parts = self._line.split()
            data = {key: _value(parts[i]) for i, key in EXTRA_FIELDS if parts[i] != "-1"}
            for i in range(18, len(parts)):
                data[f"field{i + 1}"] = parts[i]
            if self._more:
                data.update(self._more)
            self._data = data
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._fields()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())

    def __repr__(self) -> str:
        return repr(self._fields())

    def __reduce__(self) -> tuple[Any, ...]:
        return (SwfExtra, (self._line, self._more))


def _pbs_nodes(spec: str) -> int:
    """Nodes of a PBS node spec (``"2:ppn=8+1:ppn=4"`` -> 3; a host name counts 1; 0 = unknown).

    >>> _pbs_nodes("1:ppn=1+3:ppn=2"), _pbs_nodes("zewura19.cerit-sc.cz:ppn=12"), _pbs_nodes("")
    (4, 1, 0)
    """
    total = 0
    for part in spec.split("+"):
        head = part.split(":", 1)[0]
        if head.isdigit():
            total += int(head)
        elif head:
            total += 1
        else:
            return 0
    return total


def _header(text: str, metadata: dict[str, str], last: str | None) -> str | None:
    """Record header line ``text``; returns the key a continuation line would extend."""
    found = _HEADER.match(text)
    if found:
        key, value = found.group(1), (found.group(2) or "").strip()
        metadata[key] = f"{metadata[key]}\n{value}" if metadata.get(key) else value
        return key
    body = text[1:].strip()
    if not body:
        return None
    key = last or "comment"
    metadata[key] = f"{metadata[key]}\n{body}" if metadata.get(key) else body
    return key


def parse_swf(
    lines: Iterable[str],
    *,
    source: str = "<swf>",
    lenient: bool = False,
    limit: int | None = None,
    memory_unit: str = "auto",
    name: str | None = None,
) -> Workload:
    """The workload of SWF text ``lines`` (an open file, a list of strings, ...).

    Parameters
    ----------
    lines : the trace's lines (with or without line ends).
    source : the name errors and warnings give for the text (a file name).
    lenient : skip malformed lines (recorded in ``skipped_lines``) instead of raising.
    limit : stop after this many kept jobs, without reading further.
    memory_unit : one of :data:`MEMORY_UNITS` (field 10's unit; ``"auto"`` by default).
    name : the workload's name (default: ``source``).

    Returns
    -------
    Workload
        The kept jobs by ``(submit, id)``; ``metadata`` holds the header, ``memory_unit`` (the
        unit used) and ``killed_at_walltime`` (how many run times were cut, when any).

    Raises
    ------
    WorkloadError
        On a malformed line (too few fields, a field that is not a number) unless ``lenient``,
        naming ``source``, the line and the field.

    Examples
    --------
    >>> w = parse_swf(["; MaxProcs: 8", "1 0 5 70 4 -1 -1 -1 60 -1 1 3 1 -1 2 -1 -1 -1"])
    >>> j = w[0]
    >>> (j.id, j.submit, j.runtime, j.walltime, j.procs, j.user, j.queue), w.max_procs
    ((1, 0, 60, 60, 4, 3, '2'), 8)
    """
    limit = check_limit(limit, source)
    if memory_unit not in MEMORY_UNITS:
        raise WorkloadError(
            f"memory_unit must be one of {', '.join(MEMORY_UNITS)}, not {memory_unit!r}", source
        )
    tally = Tally(source, lenient)
    metadata: dict[str, str] = {}
    jobs: list[Job] = []
    unit = memory_unit
    last_key: str | None = None
    for lineno, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text:
            continue
        if text[0] == ";":
            last_key = _header(text, metadata, last_key)
            continue
        if limit is not None and len(jobs) >= limit:
            break
        parts = text.split()
        if len(parts) < 18:
            tally.bad(WorkloadError(f"expected 18 fields, found {len(parts)}", source, lineno))
            continue
        padded = f" {text} "  # the common line: 18 plain integers, checked whole
        if (
            len(parts) == 18
            and not padded.translate(_NOT_INT)
            and "- " not in padded
            and "-" not in padded.replace(" -", " ")
        ) or _plain_integers(_CHECKED(parts)):
            jid, submit, run, alloc, req, limit_s, mem, user, group = map(int, _USED(parts))
        else:
            try:
                numbers = _numbers(parts, source, lineno)
            except WorkloadError as err:
                tally.bad(err)
                continue
            jid, submit, run, alloc, req, limit_s, user, group = map(whole, _ROUNDED(numbers))
            mem = numbers[9]
        alea = len(parts) > 20 and parts[18][:1] == "{"
        if unit == "auto":
            unit = "bytes-per-job" if alea else "kb-per-proc"
        procs = req if req > 0 else alloc
        if procs <= 0:
            tally.drop("procs <= 0")
            continue
        if run < 0:
            tally.drop("negative runtime")
            continue
        if submit < 0:
            tally.drop("negative submit time")
            continue
        runtime = run or 1
        walltime = limit_s if limit_s > 0 else runtime
        if runtime > walltime:
            runtime = walltime
            tally.killed += 1
        queue = parts[_QUEUE]
        if queue == "-1":
            queue = parts[19] if alea else ""
        nodes = _pbs_nodes(parts[20]) if alea else 0
        memory = 0.0
        more = None
        if mem > 0:
            per_job = mem * (GB_PER_BYTE if unit == "bytes-per-job" else procs * GB_PER_KB)
            more = {"memory_job_gb": per_job}
            if nodes:
                memory = per_job / nodes
        extra = SwfExtra(text, more)
        jobs.append(
            Job(jid, submit, runtime, walltime, procs, nodes, memory, user, group, queue, extra)
        )
    metadata["memory_unit"] = "kb-per-proc" if unit == "auto" else unit
    return tally.workload(jobs, name or source, metadata, stacklevel=4)


def read_swf(
    path: str | Path,
    *,
    lenient: bool = False,
    limit: int | None = None,
    memory_unit: str = "auto",
    name: str | None = None,
) -> Workload:
    """The workload of the SWF file ``path`` (``.swf`` or ``.swf.gz``); see :func:`parse_swf`.

    The workload is named after the file (``trace_name``) unless ``name`` is given.

    Examples
    --------
    >>> from fluxgraph.workload import bundled_trace
    >>> w = read_swf(bundled_trace("kth-sample.swf"), limit=3)
    >>> [j.id for j in w], w.max_procs, w.metadata["Computer"]
    ([15, 16, 17], 100, 'IBM SP2')
    """
    with open_text(path) as stream:
        return parse_swf(
            stream,
            source=str(path),
            lenient=lenient,
            limit=limit,
            memory_unit=memory_unit,
            name=name or trace_name(path),
        )


def _field(value: Any) -> str:
    """One SWF field: integers as is, other numbers compactly."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def swf_line(job: Job) -> str:
    """``job`` as an SWF data line (the reverse of the mapping rules).

    >>> swf_line(Job(3, 10, 50, 60, procs=4))
    '3 10 -1 50 4 -1 -1 4 60 -1 -1 -1 -1 -1 -1 -1 -1 -1'
    """
    extra = job.extra
    fields: list[Any] = [-1] * 18
    for i, key in EXTRA_FIELDS:
        fields[i] = extra.get(key, -1)
    if fields[4] == -1:
        fields[4] = job.procs
    gb_job = job.memory * job.nodes if job.memory > 0 and job.nodes else 0.0
    gb_job = gb_job or extra.get("memory_job_gb", 0.0)
    fields[0], fields[1], fields[3] = job.id, job.submit, job.runtime
    fields[7], fields[8] = job.procs, job.walltime
    if not gb_job:
        fields[9] = -1
    elif str(extra.get("field19", ""))[:1] == "{" and "field21" in extra:  # the Alea layout
        fields[9] = round(gb_job / GB_PER_BYTE)
    else:
        fields[9] = round(gb_job / GB_PER_KB / job.procs)
    fields[11], fields[12] = job.user, job.group
    fields[_QUEUE] = job.queue.replace(" ", "_") if job.queue else -1
    trailing = sorted(
        (int(k[5:]), str(v)) for k, v in extra.items() if k.startswith("field") and k[5:].isdigit()
    )
    return " ".join([_field(f) for f in fields] + [v for _, v in trailing])


def write_swf(workload: Workload, out: str | Path | TextIO) -> None:
    """Write ``workload`` as SWF: its metadata as ``; Key: value`` lines, then one line a job.

    Requested memory is written in SWF's KB per processor, or in bytes per job for a job read
    from the Alea extended layout (its fields 19-21 are written back). Reading the file back
    gives the same ids, times, processors, users, groups and queues; node counts survive only
    through the extended layout's node spec.

    Examples
    --------
    >>> import io
    >>> from fluxgraph.workload.job import Job
    >>> buf = io.StringIO()
    >>> write_swf(Workload.of([Job(1, 0, 50, 60, 4)], metadata={"MaxProcs": "8"}), buf)
    >>> print(buf.getvalue(), end="")
    ; MaxProcs: 8
    1 0 -1 50 4 -1 -1 4 60 -1 -1 -1 -1 -1 -1 -1 -1 -1
    >>> parse_swf(buf.getvalue().splitlines())[0].walltime
    60
    """
    if isinstance(out, str | Path):
        with Path(out).open("w", encoding="utf-8") as stream:
            write_swf(workload, stream)
        return
    for key, value in workload.metadata.items():
        if key in _READER_KEYS:
            continue
        first, *rest = str(value).split("\n")
        out.write(f"; {key}: {first}\n" if first else f"; {key}:\n")
        for more in rest:
            out.write(f";{' ' * (len(key) + 4)}{more}\n")
    for job in workload:
        out.write(swf_line(job) + "\n")
