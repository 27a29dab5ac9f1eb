"""The simulator's input records: an immutable :class:`Job` and a :class:`Workload` of jobs.

Every reader (SWF, CSV, Batsim JSON) and generator returns a :class:`Workload`; the simulator
reads nothing else. Times are integer seconds from the trace's own time origin.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

__all__ = ["Job", "Workload"]

_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Job:
    """One job of a trace.

    Attributes
    ----------
    id : the trace's own job id (kept in every output).
    submit : submission time, seconds from the trace's origin.
    runtime : how long the job runs (>= 1; already cut to ``walltime`` when it overran).
    walltime : the requested time limit (>= 1); the scheduler plans with it.
    procs : requested processors (cores), >= 1.
    nodes : requested nodes, or 0 when the trace does not say (the job shape derives it).
    memory : requested memory per node in GB (0 = none requested).
    user, group : ids from the trace (-1 = unknown).
    queue : the trace's queue name or number as text (``""`` = unknown).
    extra : paper-specific demands (``bb``, ``ssd``, ``io_bw``, ...), read-only.

    Examples
    --------
    >>> j = Job(7, submit=10, runtime=50, walltime=60, procs=4)
    >>> j.id, j.submit + j.runtime, j.overestimate
    (7, 60, 1.2)
    """

    id: int
    submit: int
    runtime: int
    walltime: int
    procs: int = 1
    nodes: int = 0
    memory: float = 0.0
    user: int = -1
    group: int = -1
    queue: str = ""
    extra: Mapping[str, Any] = field(default_factory=lambda: _NO_EXTRA, compare=False)

    def __getstate__(self) -> tuple[Any, ...]:
        return _state(self)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        _restore(self, state)

    @property
    def overestimate(self) -> float:
        """``walltime / runtime``: how far the user over-asked."""
        return self.walltime / self.runtime


@dataclass(frozen=True, slots=True)
class Workload(Sequence[Job]):
    """A trace's jobs, in submission order (ties by id), with what the reader learned.

    Attributes
    ----------
    jobs : the jobs, sorted by ``(submit, id)``.
    name : a short name (the file's stem, or the generator's name).
    metadata : header facts (SWF ``;`` comments as ``key -> value``, ``MaxNodes``, ...).
    dropped : jobs left out, by reason (``"procs <= 0"``, ``"negative runtime"``, ...).
    skipped_lines : malformed lines skipped in lenient mode (``(line number, message)``).

    Examples
    --------
    >>> w = Workload.of([Job(2, 5, 1, 1), Job(1, 5, 1, 1)], name="t")
    >>> [j.id for j in w], len(w), w.name
    ([1, 2], 2, 't')
    """

    jobs: tuple[Job, ...]
    name: str = "workload"
    metadata: Mapping[str, str] = field(default_factory=lambda: _NO_EXTRA)
    dropped: Mapping[str, int] = field(default_factory=lambda: _NO_EXTRA)
    skipped_lines: tuple[tuple[int, str], ...] = ()

    @classmethod
    def of(cls, jobs: Sequence[Job] | Iterator[Job], **kwargs: Any) -> Workload:
        """A workload of ``jobs`` sorted by ``(submit, id)``."""
        ordered = tuple(sorted(jobs, key=lambda j: (j.submit, j.id)))
        return cls(ordered, **kwargs)

    def __len__(self) -> int:
        return len(self.jobs)

    def __getitem__(self, index):  # type: ignore[override]
        return self.jobs[index]

    def __iter__(self) -> Iterator[Job]:
        return iter(self.jobs)

    def __getstate__(self) -> tuple[Any, ...]:
        return _state(self)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        _restore(self, state)

    @property
    def max_procs(self) -> int | None:
        """The trace's machine size in processors (``MaxProcs`` of the header), if it says.

        >>> Workload((), metadata={"MaxProcs": "100"}).max_procs
        100
        """
        return _metadata_int(self.metadata, "MaxProcs")

    @property
    def max_nodes(self) -> int | None:
        """The trace's machine size in nodes (``MaxNodes`` of the header), if it says.

        >>> Workload((), metadata={"MaxNodes": "64"}).max_nodes, Workload(()).max_nodes
        (64, None)
        """
        return _metadata_int(self.metadata, "MaxNodes")

    def head(self, n: int) -> Workload:
        """The first ``n`` jobs (same metadata)."""
        return Workload(self.jobs[:n], self.name, self.metadata, self.dropped, self.skipped_lines)


def _metadata_int(metadata: Mapping[str, str], key: str) -> int | None:
    """``metadata[key]`` as a positive integer, or ``None`` when absent, unknown or not a number."""
    text = str(metadata.get(key, "")).strip()
    try:
        value = int(float(text))
    except (ValueError, OverflowError):
        return None
    return value if value > 0 else None


def _state(obj: Any) -> tuple[Any, ...]:
    """Field values for pickle, read-only mappings as dicts (a mappingproxy cannot be pickled)."""
    return tuple(
        dict(v) if isinstance(v, MappingProxyType) else v
        for v in (getattr(obj, f.name) for f in fields(obj))
    )


def _restore(obj: Any, state: tuple[Any, ...]) -> None:
    """The reverse of :func:`_state`: dicts become read-only mappings again."""
    for f, value in zip(fields(obj), state, strict=True):
        frozen = MappingProxyType(value) if isinstance(value, dict) else value
        object.__setattr__(obj, f.name, frozen)
