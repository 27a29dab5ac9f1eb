"""The FM scheduling pass (spec §4.1 A1, §4.3 A3, §4.4 A4) on the shared simulator.

WARMUP mode: strict FCFS by ``(submit, id)`` (the simulator's key order) without backfilling
over the whole queue (A4). When it ends is ``warmup_switch`` (spec amendment of 2026-11-28,
replacing §9 D12): ``arrival`` (the default, the public simulator's rule) at the arrival of the
first job after the warm-up jobs (job 3,000 of W1: 38,617 s), the same time in every
configuration; ``started`` (the former D12) once every warm-up job has started (or been
rejected); ``none``: no warm-up phase. The warm-up jobs are given by id, so a filtered job list
(``admission=common``) keeps them. At the switch (``t_switch``) a POLICY pass runs at once, over
every queued job, warm-up jobs included: EASY backfilling in priority order (A3, ``rules=easy``):
jobs start while they fit; the first that does not is the head and gets the earliest
reservation over nodes and pool memory (the allocator's planners); every later job starts if it
fits now beside that reservation. No depth limit, one reservation, dropped at the next pass.

Within a POLICY pass the jobs after the head are tried only where the allocator's fit counts
let them (:meth:`~fluxgraph.papers.fm.allocator.FmAllocator.startable`, over all of them at once
in arrays, again over the remaining ones after each start: starts only take resources), so
schedules are those of the plain walk that tries every job (spec §4.3 step 6).

``reference=True`` stays in WARMUP for the whole run: the fairness reference run (§6.4).

``order`` (a :class:`~fluxgraph.papers.fm.priority.QueueOrder`) orders the queue of a POLICY
pass itself, in numpy, as the simulator would by the same priority (the simulator then only
keeps it by arrival, a cheap static sort).

``compat`` (a :class:`~fluxgraph.papers.fm.compat.CompatTicks`) replaces the POLICY passes by
the public simulator's rules (``rules=code``, :mod:`fluxgraph.papers.fm.compat`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fluxgraph.errors import SimulationError
from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.compat import CompatTicks
from fluxgraph.papers.fm.priority import QueueOrder
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.workload import Job

__all__ = ["WARMUP_SWITCHES", "FmPass"]

#: When the warm-up ends (module docstring).
WARMUP_SWITCHES = ("arrival", "started", "none")


class FmPass:
    """Warm-up FCFS, then EASY in ``order``'s priority order, else the simulator's (see the
    module docstring). Simulator keys index the workload sorted by ``(submit, id)``.

    ``t_switch`` is the time of the switch (``None`` while warming up, or in a reference run).

    >>> from fluxgraph.papers.fm.machine import FmMachineSpec, build_fm_machine
    >>> from fluxgraph.papers.fm.workload import synthetic_trace, map_trace
    >>> allocator = FmAllocator(build_fm_machine(FmMachineSpec(1, 8, pool_tb=1)), "rack")
    >>> jobs = map_trace(synthetic_trace(10))
    >>> FmPass(jobs, allocator, frozenset(range(4))).t_switch is None
    True
    """

    def __init__(
        self,
        jobs: Sequence[Job],
        allocator: FmAllocator,
        warmup: frozenset[int],
        switch: str = "arrival",
        reference: bool = False,
        compat: CompatTicks | None = None,
        order: QueueOrder | None = None,
    ) -> None:
        if switch not in WARMUP_SWITCHES:
            valid = ", ".join(WARMUP_SWITCHES)
            raise SimulationError(f"unknown warmup_switch {switch!r} (valid: {valid})")
        self.allocator = allocator
        self.reference = reference
        self.compat = compat
        self.order = order
        self.switch = switch
        by_arrival = sorted(jobs, key=lambda j: (j.submit, j.id))
        # per simulator key, filled when the key is first queued (_learn)
        size = len(jobs)
        self._known = np.zeros(size, dtype=bool)
        self._procs = np.zeros(size, dtype=np.int64)
        self._remote = np.zeros(size, dtype=np.int64)
        self._walltime = np.zeros(size, dtype=np.int64)
        first = [j for j in by_arrival if j.id in warmup]
        rejected = [j for j in first if allocator.check(j)] if switch == "started" else []
        self._pending = {j.id for j in first} - {j.id for j in rejected}
        self._last_reject = max((j.submit for j in rejected), default=0)
        later = (j.submit for j in by_arrival if j.id not in warmup)
        #: ``arrival``: the arrival of the first job after the warm-up jobs
        self._switch_at = next(later, None) if switch == "arrival" else None
        self.t_switch: int | None = None

    def schedule(self, view: SchedulingView, now: int) -> None:
        if self.t_switch is None and not self._warmup(view, now):
            return
        if self.compat is not None:
            self.compat.schedule(view, now)
        else:
            self._easy(view, now)

    def next_wakeup(self, now: int) -> int | None:
        if self.t_switch is None:
            at = self._switch_at
            return at if at is not None and at > now and not self.reference else None
        return None if self.compat is None else self.compat.next_wakeup(now)

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
        """One A4 pass unless the warm-up is over; ``True`` when it switched to the policy."""
        at = self._switch_at
        if not self.reference and (
            self.switch == "none" or (self.switch == "arrival" and at is not None and now >= at)
        ):
            self.t_switch = now
            return True
        # simulator keys index the workload sorted by (submit, id): arrival order is key order
        order = sorted(view.queue())
        if self.switch == "arrival" or self.reference:
            for key in order:
                if not view.start(key):
                    break
            return False
        pending = self._pending  # switch == "started"
        for key in order:
            if not pending or not view.start(key):
                break
            pending.discard(view.job(key).id)
        if pending or now < self._last_reject:
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
