"""The :class:`~fluxgraph.sched.passes.SchedulingView` a custom scheduling pass works on.

A pass starts, reserves and test-fits queued jobs through the view; the simulator drops the
pass's reservations at the next pass. One of them may stand instead (the simulator's
``incremental`` rule, the same one its built-in passes use): the previous pass's first
reservation, when the next pass's first booking reserves the same job again, the machine from
``now`` on holds everything it was reserved on (no older booking released time it held from
``now`` on), and the allocator's ``keep`` vouches that re-making it selects the same resources.
Any other first booking drops it before it is made, so every booking of a pass meets the state
it would meet with every previous reservation cancelled.

Within a pass the planners only fill up (starts and reservations add bookings; ``fits`` undoes
its own), so the built-in passes' dominance rule holds here too: once a job fails to start now
(or is reserved later), :meth:`View.start` of a job of the same family (the allocator's
``family``) asking for at least as many units for at least as long fails without a matcher call
(counted in ``stats["skipped"]``).

>>> from fluxgraph.machines import build_machine
>>> from fluxgraph.sched import Simulator
>>> from fluxgraph.workload import Job
>>> class Head:  # start the queue's head, or reserve it
...     def schedule(self, view, now):
...         for key in view.queue()[:1]:
...             view.reserve(key)
...     def next_wakeup(self, now):
...         return None
>>> jobs = [Job(1, 0, 100, 100, 2, 2), Job(2, 1, 10, 10, 2, 2), Job(3, 2, 10, 10, 1, 1)]
>>> sim = Simulator(build_machine("nodes=2,cores=1"), jobs, scheduler=Head())
>>> [r.start for r in sim.run().jobs], sim.stats["kept"]
([0, 100, 110], 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import filterfalse
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from fluxgraph.errors import SimulationError
from fluxgraph.sched.dominance import FailedStarts

if TYPE_CHECKING:
    from fluxgraph.sched.runtime import RunningJob
    from fluxgraph.workload import Job

__all__ = ["View"]


class View:
    """The :class:`~fluxgraph.sched.passes.SchedulingView` of one custom pass of ``sim`` (a
    :class:`~fluxgraph.sched.simulator.Simulator`, whose queue, records and allocator it acts on).

    ``stale`` is the previous pass's first reservation ``(booking id, job key, start)`` that
    may stand for reserving its job again (see the module docstring), or ``None``.
    """

    def __init__(
        self,
        sim: Any,
        now: int,
        finished: int,
        submitted: int,
        woken: bool,
        stale: tuple[int, int, int] | None = None,
    ):
        self._sim = sim
        self.now = now
        self.finished = finished
        self.submitted = submitted
        self.woken = woken
        # the simulator's queue: nothing changes it during the pass (starts leave it after)
        self._order = sim._sort_queue(now)
        self.started: set[int] = set()
        self._acted: set[int] = set()
        self._stale = stale
        self._failed = FailedStarts(sim.allocator.family)  # (see the module docstring)

    def queue(self) -> list[int]:
        if not self.started:
            return list(self._order)
        return list(filterfalse(self.started.__contains__, self._order))

    def job(self, key: int) -> Job:
        return self._sim._records[key].job

    def running(self) -> Mapping[int, RunningJob]:
        return MappingProxyType(self._sim._running)

    def _check(self, key: int) -> None:
        if key in self._acted:
            raise SimulationError(f"job key {key} was already started or reserved in this pass")
        records = self._sim._records
        record = records[key] if 0 <= key < len(records) else None
        # queued: submitted by now (all of now's submissions precede the pass), neither
        # started nor rejected
        if record is None or record.start >= 0 or record.reason or record.job.submit > self.now:
            raise SimulationError(f"job key {key} is not queued")

    def claim(self, key: int | None) -> int | None:
        """Before the pass's first booking (reserving job ``key``, or ``None``): the start
        of the previous pass's first reservation when it stands for reserving ``key`` again
        (it is then this pass's), else ``None`` after dropping it; ``None`` afterwards."""
        stale = self._stale
        if stale is None:
            return None
        self._stale = None
        sim = self._sim
        rid, job_key, at = stale
        if key == job_key and sim._keep(rid, self.now):  # type: ignore[misc]
            sim.stats["kept"] += 1
            sim._held[rid] = (key, at)
            return at
        sim.allocator.release(rid)
        sim.stats["cancel"] += 1
        return None

    def start(self, key: int) -> bool:
        self._check(key)
        self.claim(None)
        sim = self._sim
        job = self.job(key)
        if self._failed.rule_out(job):
            sim.stats["skipped"] += 1
            return False
        sim.stats["allocate"] += 1
        alloc, mid = sim._book(key, self.now, False)
        if alloc is None:
            self._failed.add(job)
            return False
        sim._start(key, self.now, alloc, mid)
        self.started.add(key)
        self._acted.add(key)
        return True

    def reserve(self, key: int) -> int | None:
        self._check(key)
        sim = self._sim
        job = self.job(key)
        kept = self.claim(key)
        if kept is not None:
            self._acted.add(key)
            sim._records[key].reservations += 1
            self._failed.add(job)  # (its start lies ahead)
            return kept
        sim.stats["reserve"] += 1
        alloc, mid = sim._book(key, self.now, True)
        if alloc is None:
            self._failed.add(job)
            return None
        self._acted.add(key)
        if alloc.at == self.now:
            sim._start(key, self.now, alloc, mid)
            self.started.add(key)
        else:
            sim._held[mid] = (key, alloc.at)
            sim._records[key].reservations += 1
            self._failed.add(job)
        return alloc.at

    def fits(self, keys: Iterable[int]) -> bool:
        sim = self._sim
        placed: list[int] = []
        try:
            for key in keys:
                self._check(key)
                self.claim(None)
                sim.stats["allocate"] += 1
                alloc, mid = sim._book(key, self.now, False)
                if alloc is None:
                    return False
                placed.append(mid)
            return True
        finally:
            for mid in placed:
                sim.allocator.release(mid)
                sim.stats["cancel"] += 1
