"""Queue priorities: ``f(job, now) -> key``; the queue runs the smallest key first.

Ties are broken by submit time, then job id (the simulator appends both). A priority whose key
does not depend on ``now`` is *static* (``STATIC`` below): the simulator keeps such a queue
sorted once instead of re-sorting it on every pass.

The scheduler sees requested times only: ``r`` below is the job's walltime (equal to the
runtime on traces without one), ``w = now - submit`` the wait so far, ``n`` the processors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

from fluxgraph.errors import SimulationError
from fluxgraph.workload import Job

__all__ = ["PRIORITIES", "STATIC", "Priority", "get_priority"]

Priority = Callable[[Job, int], float]


def fcfs(job: Job, now: int) -> float:
    """First come, first served: by submit time.

    >>> fcfs(Job(1, submit=30, runtime=5, walltime=9), now=100)
    30
    """
    return job.submit


def sjf(job: Job, now: int) -> float:
    """Shortest (requested) job first.

    >>> sjf(Job(1, 0, 5, walltime=9), 100)
    9
    """
    return job.walltime


def ljf(job: Job, now: int) -> float:
    """Longest (requested) job first.

    >>> ljf(Job(1, 0, 5, walltime=9), 100)
    -9
    """
    return -job.walltime


def wfp3(job: Job, now: int) -> float:
    """WFP3 (Tang et al. 2009): larger ``(w / r)^3 * n`` first.

    >>> wfp3(Job(1, 0, 5, walltime=50, procs=10), now=100)
    -80.0
    """
    return -(((now - job.submit) / job.walltime) ** 3) * job.procs


def unicep(job: Job, now: int) -> float:
    """UNICEP (Tang et al. 2009): larger ``w / (log2(n) * r)`` first (``n = 1`` counts as 2).

    >>> unicep(Job(1, 0, 5, walltime=50, procs=4), now=100)
    -1.0
    """
    return -(now - job.submit) / (math.log2(max(job.procs, 2)) * job.walltime)


def f1(job: Job, now: int) -> float:
    """F1 (Carastan-Santos & de Camargo 2017): smaller ``log10(r) * n + 870 * log10(s + 1)``.

    >>> round(f1(Job(1, submit=1000, runtime=5, walltime=50, procs=10), now=2000), 3)
    2627.367
    """
    return math.log10(job.walltime) * job.procs + 870 * math.log10(job.submit + 1)


def fair(job: Job, now: int) -> float:
    """FAIR: larger ``w / r`` first (the job that waited longest relative to its length).

    >>> fair(Job(1, 0, 5, walltime=50), now=100)
    -2.0
    """
    return -(now - job.submit) / job.walltime


#: Priority name -> function.
PRIORITIES: Mapping[str, Priority] = MappingProxyType(
    {"fcfs": fcfs, "sjf": sjf, "ljf": ljf, "wfp3": wfp3, "unicep": unicep, "f1": f1, "fair": fair}
)

#: Priorities whose key does not depend on ``now``.
STATIC = frozenset({fcfs, sjf, ljf, f1})


def get_priority(name: str | Priority) -> Priority:
    """The priority called ``name`` (a callable passes through).

    Raises
    ------
    SimulationError
        For an unknown name; the message lists the valid ones.
    """
    if callable(name):
        return name
    try:
        return PRIORITIES[name.lower()]
    except KeyError:
        raise SimulationError(
            f"unknown priority {name!r} (valid: {', '.join(PRIORITIES)})"
        ) from None
