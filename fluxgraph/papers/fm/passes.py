"""The FM scheduling pass (spec §4.1 A1, §4.3 A3, §4.4 A4) on the shared simulator.

WARMUP mode (while a warm-up job is neither started nor rejected): strict FCFS by
``(submit, id)`` (the simulator's key order) without backfilling over the whole queue (A4). The
pass that starts the last warm-up job records ``t_switch`` and at once runs a POLICY pass: EASY
backfilling in priority order (A3): jobs start while they fit; the first that does not is the
head and gets the earliest reservation over nodes and pool memory (the allocator's planners);
every later job starts if it fits now beside that reservation. No depth limit, one
reservation, dropped at the next pass.

Within a POLICY pass the jobs after the head are tried only where the allocator's fit counts
let them (:meth:`~fluxgraph.papers.fm.allocator.FmAllocator.startable`, over all of them at once
in arrays, again over the remaining ones after each start: starts only take resources), so
schedules are those of the plain walk that tries every job (spec §4.3 step 6).

``reference=True`` stays in WARMUP for the whole run: the fairness reference run (§6.4).

``order`` (a :class:`~fluxgraph.papers.fm.priority.QueueOrder`) orders the queue of a POLICY
pass itself, in numpy, as the simulator would by the same priority (the simulator then only
keeps it by arrival, a cheap static sort).

``compat`` (a :class:`~fluxgraph.papers.fm.compat.CompatTicks`) replaces the POLICY passes by
the public simulator's rules (``--compat fm-simulator``, :mod:`fluxgraph.papers.fm.compat`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.compat import CompatTicks
from fluxgraph.papers.fm.priority import QueueOrder
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.workload import Job

__all__ = ["FmPass"]


class FmPass:
    """Warm-up FCFS, then EASY in ``order``'s priority order, else the simulator's (see the
    module docstring). Simulator keys index the workload sorted by ``(submit, id)``.

    ``t_switch`` is the time of the switch (``None`` while warming up, or in a reference run).

    >>> from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
    >>> from fluxgraph.papers.fm.workload import synthetic_trace, map_trace
    >>> allocator = FmAllocator(build_fm_machine(FmMachineSpec(1, 8, pool_tb=1)), "rack")
    >>> FmPass(map_trace(synthetic_trace(10)), allocator, warmup=4).t_switch is None
    True
    """

    def __init__(
        self,
        jobs: Sequence[Job],
        allocator: FmAllocator,
        warmup: int,
        reference: bool = False,
        compat: CompatTicks | None = None,
        order: QueueOrder | None = None,
    ) -> None:
        self.allocator = allocator
        self.reference = reference
        self.compat = compat
        self.order = order
        by_arrival = sorted(jobs, key=lambda j: (j.submit, j.id))
        # per simulator key, filled when the key is first queued (_learn)
        size = len(jobs)
        self._known = np.zeros(size, dtype=bool)
        self._procs = np.zeros(size, dtype=np.int64)
        self._remote = np.zeros(size, dtype=np.int64)
        self._walltime = np.zeros(size, dtype=np.int64)
        first = by_arrival[:warmup]
        rejected = [j for j in first if allocator.check(j)]
        self._pending = {j.id for j in first} - {j.id for j in rejected}
        self._last_reject = max((j.submit for j in rejected), default=0)
        self.t_switch: int | None = None

    def schedule(self, view: SchedulingView, now: int) -> None:
        if self.t_switch is None and not self._warmup(view, now):
            return
        if self.compat is not None:
            self.compat.schedule(view, now)
        else:
            self._easy(view, now)

    def next_wakeup(self, now: int) -> int | None:
        if self.compat is None or self.t_switch is None:
            return None
        return self.compat.next_wakeup(now)

    def _learn(self, view: SchedulingView, keys: np.ndarray) -> None:
        """Fill the per-key arrays for the ``keys`` not seen before."""
        for key in keys[~self._known[keys]].tolist():
            job = view.job(key)
            self._procs[key] = job.procs
            self._remote[key] = self.allocator.remote_gb(job)
            self._walltime[key] = job.walltime
            self._known[key] = True
            if self.order is not None:
                self.order.learn(key, job)

    def _warmup(self, view: SchedulingView, now: int) -> bool:
        """One A4 pass; ``True`` when it switched to the policy."""
        # simulator keys index the workload sorted by (submit, id): arrival order is key order
        order = sorted(view.queue())
        pending = self._pending
        for key in order:
            if not pending and not self.reference:
                break
            if not view.start(key):
                break
            pending.discard(view.job(key).id)
        if pending or self.reference or now < self._last_reject:
            return False
        self.t_switch = now
        return True

    def _easy(self, view: SchedulingView, now: int) -> None:
        queue = np.array(view.queue(), dtype=np.int64)
        self._learn(view, queue)
        if self.order is not None:
            queue = self.order.order(queue, now)
        head = 0  # jobs start (or cannot run at all) until one gets a later reservation
        while head < len(queue):
            at = view.reserve(int(queue[head]))
            head += 1
            if at is not None and at > now:
                break
        else:
            return
        rest = queue[head:]
        n, k, w = self._procs[rest], self._remote[rest], self._walltime[rest]
        tried = np.flatnonzero(self.allocator.startable(n, k, w, now))
        while len(tried):
            started = view.start(int(rest[tried[0]]))
            tried = tried[1:]
            if started and len(tried):
                tried = tried[self.allocator.startable(n[tried], k[tried], w[tried], now)]
