"""Helpers the trace readers share: opening files, the job rules, drop counts and the summary.

Every reader applies the same rules to the times it reads (see :func:`job_times`) and reports
what it left out the same way (:class:`Tally`), so the formats differ only in where they find
each value.
"""

from __future__ import annotations

import gzip
import io
import math
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, TextIO

from fluxgraph.errors import WorkloadError
from fluxgraph.workload.job import Job, Workload

__all__ = [
    "GB_PER_BYTE",
    "GB_PER_KB",
    "Tally",
    "WorkloadWarning",
    "assign_ids",
    "check_limit",
    "freeze",
    "job_times",
    "open_text",
    "trace_name",
    "whole",
]

#: 1 GB = 2**30 bytes = 2**20 KB (binary units, as batch systems count memory).
GB_PER_BYTE = 1.0 / (1 << 30)
GB_PER_KB = 1.0 / (1 << 20)


_INTEGER = re.compile(r"[-+]?[0-9]+")


class WorkloadWarning(UserWarning):
    """A reader left jobs or lines out; the counts are also in the :class:`Workload`."""


def open_text(path: str | Path) -> TextIO:
    """``path`` opened for reading text; a ``.gz`` file is decompressed on the fly.

    Raises
    ------
    WorkloadError
        If the file cannot be opened.
    """
    p = Path(path)
    try:
        if p.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8", errors="replace")
        return p.open(encoding="utf-8", errors="replace", newline="")
    except OSError as err:
        raise WorkloadError(f"cannot open: {err.strerror or err}", str(path)) from None


def trace_name(path: str | Path) -> str:
    """A trace's short name: the file name without its format suffixes.

    >>> trace_name("traces/KTH-SP2-1996-2.1-cln.swf.gz")
    'KTH-SP2-1996-2.1-cln'
    """
    name = Path(path).name
    for suffix in (".gz", ".swf", ".csv", ".json"):
        name = name.removesuffix(suffix)
    return name


def check_limit(limit: int | None, source: str) -> int | None:
    """``limit`` validated: ``None`` (read everything) or a non-negative integer."""
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise WorkloadError(f"limit must be None or an integer >= 0, not {limit!r}", source)
    return limit


def whole(value: float) -> int:
    """``value`` rounded to the nearest integer, halves up (times, processor counts).

    >>> whole(2.5), whole(3), whole(-0.4)
    (3, 3, 0)
    """
    if isinstance(value, int):
        return value
    return math.floor(value + 0.5)


def job_times(runtime: int, walltime: int) -> tuple[int, int, bool]:
    """The rules every reader applies to a job's run time and requested time.

    ``walltime <= 0`` means "not requested" and becomes the run time; both are at least 1 s; a
    job that ran longer than its walltime is killed at its walltime, as Slurm does. Returns
    ``(runtime, walltime, killed)``. The caller has already dropped negative run times.

    >>> job_times(50, 60), job_times(0, -1), job_times(90, 60)
    ((50, 60, False), (1, 1, False), (60, 60, True))
    """
    runtime = max(1, runtime)
    walltime = max(1, walltime) if walltime > 0 else runtime
    if runtime > walltime:
        return walltime, walltime, True
    return runtime, walltime, False


def _numeric_id(raw: object) -> int | None:
    """The integer a raw job id stands for, if any (``"w0!3"`` -> 3, Batsim style)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        return int(raw) if raw.is_integer() else None
    tail = str(raw).strip().rsplit("!", 1)[-1]
    return int(tail) if _INTEGER.fullmatch(tail) else None


def assign_ids(raw_ids: list[object]) -> list[int]:
    """Integer ids for a trace's raw ids: the number each stands for when it has one.

    A raw id without a number, or whose number an earlier job already took, gets the next
    integer above every numeric id, in file order, so the result is unique and stable.

    >>> assign_ids(["w0!3", 7, "abc", "w1!3", "9", "12_3"])
    [3, 7, 10, 11, 9, 12]
    """
    numbers = [_numeric_id(raw) for raw in raw_ids]
    fresh = max((n for n in numbers if n is not None), default=0) + 1
    used: set[int] = set()
    ids = []
    for number in numbers:
        if number is None or number in used:
            number, fresh = fresh, fresh + 1
        used.add(number)
        ids.append(number)
    return ids


def freeze(extra: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only view of ``extra`` for :attr:`Job.extra`."""
    return MappingProxyType(extra)


class Tally:
    """What a reader dropped (by reason), skipped (malformed lines) and cut at the walltime."""

    __slots__ = ("dropped", "killed", "lenient", "skipped", "source")

    def __init__(self, source: str, lenient: bool) -> None:
        self.source = source
        self.lenient = lenient
        self.dropped: dict[str, int] = {}
        self.skipped: list[tuple[int, str]] = []
        self.killed = 0

    def drop(self, reason: str) -> None:
        """Count one job left out for ``reason``."""
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def bad(self, err: WorkloadError) -> None:
        """A malformed line: raise ``err``, or record it and go on in lenient mode."""
        if not self.lenient:
            raise err
        self.skipped.append((err.line, str(err)))

    def workload(
        self, jobs: list[Job], name: str, metadata: dict[str, str], stacklevel: int = 3
    ) -> Workload:
        """The :class:`Workload` of ``jobs``; one :class:`WorkloadWarning` sums up what was lost."""
        if self.killed:
            metadata["killed_at_walltime"] = str(self.killed)
        if self.dropped or self.skipped:
            parts = []
            if self.dropped:
                reasons = ", ".join(f"{r}: {n}" for r, n in sorted(self.dropped.items()))
                parts.append(f"dropped {sum(self.dropped.values())} jobs ({reasons})")
            if self.skipped:
                parts.append(f"skipped {len(self.skipped)} malformed lines")
            warnings.warn(
                f"{self.source}: {'; '.join(parts)}", WorkloadWarning, stacklevel=stacklevel
            )
        return Workload.of(
            jobs,
            name=name,
            metadata=MappingProxyType(metadata),
            dropped=MappingProxyType(dict(self.dropped)),
            skipped_lines=tuple(self.skipped),
        )
