"""The dominance rule of one scheduling pass: requests that provably fail to start.

Within one pass the planners only fill up (jobs start, reservations are made, a test fit undoes
its own bookings). An allocator's ``family`` orders requests so that within a family a larger
count is a harder request; so once ``count`` units for walltime ``w`` fail to start now, a
request of the family for ``count' >= count`` units over ``w' >= w`` fails too, and the pass
need not ask the matcher. Both the built-in passes and a custom pass's view use it.

>>> from fluxgraph.workload import Job
>>> failed = FailedStarts(lambda job: ("node", job.procs))
>>> failed.add(Job(1, 0, 10, 50, procs=4))
>>> failed.rule_out(Job(2, 0, 10, 60, procs=6)), failed.rule_out(Job(3, 0, 10, 40, procs=6))
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable

from fluxgraph.workload import Job

__all__ = ["FailedStarts"]


class FailedStarts:
    """The ``(count, walltime)`` of the requests that failed to start in one pass, by family
    (``family(job)``: ``(family, count)``, or ``None`` for a request the rule cannot order)."""

    __slots__ = ("_failed", "_family")

    def __init__(self, family: Callable[[Job], tuple[object, int] | None]) -> None:
        self._family = family
        self._failed: dict[object, list[tuple[int, int]]] = {}

    def add(self, job: Job) -> None:
        """``job`` could not start now in this pass."""
        family = self._family(job)
        if family is not None:
            self._failed.setdefault(family[0], []).append((family[1], job.walltime))

    def rule_out(self, job: Job) -> bool:
        """Whether ``job`` fails to start now: a request of its family no larger and no longer
        failed in this pass."""
        family = self._family(job)
        known = self._failed.get(family[0]) if family is not None else None
        return known is not None and any(c <= family[1] and w <= job.walltime for c, w in known)
