"""Workloads: job traces and generators -> :class:`Workload` of immutable :class:`Job` records.

Readers: :func:`read_swf` (Standard Workload Format, incl. the Alea/MetaCentrum extension),
:func:`read_csv` (any CSV through a column mapping) and :func:`read_batsim` (Batsim JSON);
:func:`load_workload` picks one from the format name or the file extension. Generators:
:func:`lublin` (the Lublin–Feitelson model), :func:`poisson` and :func:`uniform`.
:func:`bundled_trace` locates the small sample traces shipped with the package.
See ``docs/workload.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fluxgraph.data import bundled
from fluxgraph.errors import FluxgraphError, WorkloadError
from fluxgraph.workload._common import WorkloadWarning
from fluxgraph.workload.batsim import read_batsim
from fluxgraph.workload.csvtrace import detect_mapping, read_csv
from fluxgraph.workload.generators import LublinParams, daily_rates, lublin, poisson, uniform
from fluxgraph.workload.job import Job, Workload
from fluxgraph.workload.swf import parse_swf, read_swf, write_swf

__all__ = [
    "FORMATS",
    "Job",
    "LublinParams",
    "Workload",
    "WorkloadWarning",
    "bundled_trace",
    "daily_rates",
    "detect_mapping",
    "load_workload",
    "lublin",
    "parse_swf",
    "poisson",
    "read_batsim",
    "read_csv",
    "read_swf",
    "uniform",
    "write_swf",
]

#: Format name -> the file extension that selects it.
FORMATS = {"swf": ".swf", "csv": ".csv", "batsim": ".json"}


def _format_of(path: Path) -> str | None:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    ext = suffixes[-1] if suffixes else ""
    return next((fmt for fmt, suffix in FORMATS.items() if suffix == ext), None)


def load_workload(
    path: str | Path,
    fmt: str | None = None,
    *,
    lenient: bool = False,
    limit: int | None = None,
    mapping: dict[str, str | None] | None = None,
    **options: Any,
) -> Workload:
    """The workload of the trace ``path``, read by the reader of format ``fmt``.

    Parameters
    ----------
    path : the trace file (optionally gzip-compressed, ``.gz``).
    fmt : ``"swf"``, ``"csv"`` or ``"batsim"``; by default the file extension decides
        (``.swf``, ``.csv``, ``.json``, each optionally followed by ``.gz``).
    lenient : skip malformed lines or jobs instead of raising (counted in ``skipped_lines``).
    limit : stop after this many kept jobs.
    mapping : CSV only: job field -> column name (see :func:`read_csv`).
    **options : passed to the reader (``memory_unit`` for SWF, ``procs_per_node`` and
        ``delimiter`` for CSV, ``res_unit`` for Batsim, ``name`` for all).

    Raises
    ------
    WorkloadError
        For an unknown format or extension (listing the valid ones), a mapping given for a
        format other than CSV, or whatever the reader reports.

    Examples
    --------
    >>> w = load_workload(bundled_trace("kth-sample.swf"), limit=10)
    >>> len(w), w.name, w.max_procs
    (10, 'kth-sample', 100)
    >>> load_workload("jobs.txt")
    Traceback (most recent call last):
    ...
    fluxgraph.errors.WorkloadError: jobs.txt: cannot tell the format from the extension; \
valid formats: swf (.swf), csv (.csv), batsim (.json)
    """
    path = Path(path)
    valid = ", ".join(f"{name} ({ext})" for name, ext in FORMATS.items())
    if fmt is None:
        fmt = _format_of(path)
        if fmt is None:
            raise WorkloadError(
                f"cannot tell the format from the extension; valid formats: {valid}", str(path)
            )
    elif fmt not in FORMATS:
        raise WorkloadError(f"unknown format {fmt!r}; valid formats: {valid}", str(path))
    if mapping is not None and fmt != "csv":
        raise WorkloadError(f"a column mapping only applies to csv, not {fmt}", str(path))
    if fmt == "swf":
        return read_swf(path, lenient=lenient, limit=limit, **options)
    if fmt == "csv":
        return read_csv(path, mapping, lenient=lenient, limit=limit, **options)
    return read_batsim(path, lenient=lenient, limit=limit, **options)


def bundled_trace(name: str) -> Path:
    """The path of a sample trace shipped in ``fluxgraph/data``.

    ``"kth-sample.swf"`` is the first 500 jobs of the KTH SP2 log (Parallel Workloads Archive,
    cleaned version) with its header; ``"sample-batsim.json"`` a 20-job Batsim workload.

    Raises
    ------
    WorkloadError
        If there is no such file (the message lists the bundled traces).

    Examples
    --------
    >>> bundled_trace("kth-sample.swf").name
    'kth-sample.swf'
    """
    try:
        return bundled("traces", name)
    except FluxgraphError as err:
        raise WorkloadError(str(err), "fluxgraph") from None
