"""The FM scheduling pass (spec §4.1 A1, §4.3 A3, §4.4 A4) on the shared simulator.

WARMUP mode (while a warm-up job is neither started nor rejected): strict FCFS by
``(submit, index)`` without backfilling over the whole queue (A4). The pass that starts the last
warm-up job records ``t_switch`` and at once runs a POLICY pass: EASY backfilling in priority
order (A3): jobs start while they fit; the first that does not is the head and gets the earliest
reservation over nodes and pool memory (the allocator's planners); every later job starts if it
fits now beside that reservation. No depth limit, one reservation, dropped at the next pass.

Within a POLICY pass a job is skipped without trying when a job needing no fewer nodes, no less
remote memory and no shorter a booking failed to start (spec §4.3 step 6; fit-now is monotone in
all three for ``rack_balance``), so schedules are those of the plain walk.

``reference=True`` stays in WARMUP for the whole run: the fairness reference run (§6.4).

``compat`` (a :class:`~fluxgraph.sched.fm.compat.CompatTicks`) replaces the POLICY passes by
the public simulator's rules (``--compat fm-simulator``, :mod:`fluxgraph.sched.fm.compat`).
"""

from __future__ import annotations

from collections.abc import Sequence

from fluxgraph.sched.fm.allocator import FmAllocator
from fluxgraph.sched.fm.compat import CompatTicks
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.workload import Job

__all__ = ["FmPass"]


class FmPass:
    """Warm-up FCFS, then EASY in the simulator's priority order (see the module docstring).

    ``t_switch`` is the time of the switch (``None`` while warming up, or in a reference run).

    >>> from fluxgraph.sched.fm.machine import FmMachineSpec, build_fm_machine
    >>> from fluxgraph.sched.fm.workload import synthetic_trace, map_trace
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
        skip_rule: bool = True,
        compat: CompatTicks | None = None,
    ) -> None:
        self.allocator = allocator
        self.reference = reference
        self.compat = compat
        self.skip_rule = skip_rule and allocator.scope != "system"
        first = sorted(jobs, key=lambda j: (j.submit, j.id))[:warmup]
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

    def _warmup(self, view: SchedulingView, now: int) -> bool:
        """One A4 pass; ``True`` when it switched to the policy."""
        order = sorted(view.queue(), key=lambda k: (view.job(k).submit, view.job(k).id))
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
        blocked = False
        failed: list[tuple[int, int, int]] = []
        remote = self.allocator.remote_gb
        for key in view.queue():
            job = view.job(key)
            if not blocked:
                at = view.reserve(key)
                blocked = at is not None and at > now
                continue
            n, k, w = job.procs, remote(job), job.walltime
            if self.skip_rule and any(a <= n and b <= k and c <= w for a, b, c in failed):
                continue
            if not view.start(key) and self.skip_rule:
                # keep only the minimal failed shapes: a dominated one skips nothing more
                failed = [f for f in failed if not (n <= f[0] and k <= f[1] and w <= f[2])]
                failed.append((n, k, w))
