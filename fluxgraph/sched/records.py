"""What a simulation produces: one :class:`JobRecord` per job and a :class:`SimulationResult`."""

from __future__ import annotations

from dataclasses import dataclass, field

from fluxgraph.workload import Job

__all__ = ["BSLD_TAU", "JobRecord", "SimulationResult", "node_intervals", "parse_intervals"]

#: The bounded-slowdown threshold (seconds): runs shorter than this count as this long.
BSLD_TAU = 10


@dataclass(slots=True)
class JobRecord:
    """One job's fate. ``start``/``end`` are -1 while unknown; ``reason`` is set on rejection;
    ``killed`` when its runtime model would have run it past its walltime (it ended there).

    >>> r = JobRecord(Job(1, submit=10, runtime=5, walltime=9), start=20, end=25)
    >>> r.wait, r.turnaround, r.bounded_slowdown
    (10, 15, 1.5)
    """

    job: Job
    start: int = -1
    end: int = -1
    nodes: tuple[int, ...] = ()
    cores: int = 0
    reason: str = ""
    reservations: int = 0
    killed: bool = False

    def reject(self, reason: str) -> None:
        """Mark the job rejected for ``reason`` (it never runs)."""
        self.reason = reason

    @property
    def rejected(self) -> bool:
        return bool(self.reason)

    @property
    def completed(self) -> bool:
        return self.end >= 0

    @property
    def wait(self) -> int:
        return self.start - self.job.submit

    @property
    def execution(self) -> int:
        return self.end - self.start

    @property
    def turnaround(self) -> int:
        return self.end - self.job.submit

    @property
    def bounded_slowdown(self) -> float:
        """``max(1, turnaround / max(execution, tau))`` with ``tau`` = :data:`BSLD_TAU`."""
        return max(1.0, self.turnaround / max(self.execution, BSLD_TAU))


def node_intervals(nodes: tuple[int, ...]) -> str:
    """Batsim's interval-set text of sorted node ranks.

    >>> node_intervals((0, 1, 2, 3, 7)), node_intervals(())
    ('0-3 7', '')
    """
    parts: list[str] = []
    i = 0
    while i < len(nodes):
        j = i
        while j + 1 < len(nodes) and nodes[j + 1] == nodes[j] + 1:
            j += 1
        parts.append(str(nodes[i]) if i == j else f"{nodes[i]}-{nodes[j]}")
        i = j + 1
    return " ".join(parts)


@dataclass
class SimulationResult:
    """The per-job records (in submission order) and the run-level series.

    ``queue_length`` holds ``(time, jobs waiting)`` after each event time's pass.
    """

    jobs: list[JobRecord]
    queue_length: list[tuple[int, int]]
    total_nodes: int
    total_cores: int
    queue_policy: str
    info: dict[str, object] = field(default_factory=dict)


def parse_intervals(text: str) -> tuple[int, ...]:
    """Node ranks from Batsim's interval-set text (the inverse of :func:`node_intervals`).

    >>> parse_intervals("0-3 7"), parse_intervals("")
    ((0, 1, 2, 3, 7), ())
    """
    ranks: list[int] = []
    for part in text.split():
        lo, _, hi = part.partition("-")
        ranks.extend(range(int(lo), int(hi or lo) + 1))
    return tuple(ranks)
