"""``rules=code`` (the default): the public FM simulator's scheduling rules on the shared simulator.

The specification's cross-check (spec §7) runs the paper's own simulator
(Artlands/DisaggregationAwareScheduler) with its code's rules; spec §9 D11, D17 and D22
describe them. The specification's amendment of 2026-11-28 makes them the default
(``rules=code``; the former §4.3 EASY is ``rules=easy``); they run after the warm-up, with any
slowdown model (``--compat fm-simulator`` is the cross-check grid, C10):

* **ticks**: a pass every simulated second while jobs wait (D22), not only at events;
* **one job per step**: a step orders the queue by the priority at ``now`` (larger first, ties
  by the current submit time, then arrival) and tries the top job ``H``; if it starts, the
  step repeats;
* **counts-only EASY** (D11): otherwise the shadow is the remaining time of the running job at
  which the free nodes plus the nodes of the running jobs ending first (at least one) reach
  ``H``'s node count -- pool memory ignored, no extra-node rule; the candidate is the first
  later job in priority order whose *un-stretched* runtime is no longer than the shadow; it
  alone is tried: if it starts the step repeats, else the pass ends;
* **submit drift** (D17): a job that fails to start although enough nodes are free (its pool
  memory is missing) has its submit time moved 1 s later on each such attempt; the drifted
  submit is what the priorities see (``w = now - submit``, FCFS and F1 order), so a blocked
  job's wait stops growing. Waits, slowdowns and fairness still use the true submit.

Priorities are the spec's (§4.2) with the drifted submit; ``fm_code`` is the simulator's
``(w/r)/mo``. Placement, A6 and the slowdown model stay the allocator's (``rack_balance`` is the
code's rule with index tie-breaks, D6).

Exactness-preserving shortcut: between events (the next end of a running job, the next
arrival) nothing frees or arrives, so a tick starts a job only if its head or candidate fits
the unchanged machine. After a tick the pass works out the following quiet ticks itself: their
order, head, candidate and drift, in arrays (a run of ticks with the same head and candidate in
one go: for every rule the order of two jobs changes sign at most once as time passes -- their
values, or for ``wfp3`` their cube roots, are linear in time, F1's monotone -- so if the tick
``D`` seconds later has the same head and candidate, so do all ticks in between). It asks to be
woken at the first tick where a job would start, or at the next event; the schedule is that of
a pass every second (a test compares them).

>>> from fluxgraph.papers.fm.machine import FmMachineSpec
>>> from fluxgraph.papers.fm.run import run_fm
>>> from fluxgraph.papers.fm.workload import TraceRow, map_trace
>>> rows = [TraceRow(1, 0, 1, 100, 600), TraceRow(2, 1, 1, 50, 1088), TraceRow(3, 2, 1, 40, 60)]
>>> run = run_fm(map_trace(rows), FmMachineSpec(1, 4, pool_tb=1), "rack", "fcfs", "none",
...              warmup=0, rules="code", warmup_switch="none")
>>> [(r.start, r.end) for r in run.result.jobs]
[(0, 100), (100, 150), (2, 42)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.workload import Job

__all__ = ["CompatTicks"]

#: The longest run of skipped ticks the shortcut looks for (2**20 s, beyond any trace gap).
_MAX_SKIP = 1 << 20

_Values = Callable[[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _f1(s: np.ndarray, r: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.log10(r) * n + 870 * np.log10(s + 1)


#: name -> f(now, submit, r, n, mo): the paper's "larger runs first" values (spec §4.2).
VALUES: dict[str, _Values] = {
    "fcfs": lambda t, s, r, n, mo: -s,
    "sjf": lambda t, s, r, n, mo: -r,
    "wfp3": lambda t, s, r, n, mo: ((t - s) / r) ** 3 * n,
    "f1": lambda t, s, r, n, mo: _f1(s, r, n),
    "f1_asc": lambda t, s, r, n, mo: -_f1(s, r, n),
    "fair": lambda t, s, r, n, mo: (t - s) / r,
    "fm": lambda t, s, r, n, mo: (t - s) / ((np.log10(n) + 1) * r * mo),
    "fm_code": lambda t, s, r, n, mo: (t - s) / r / mo,
}


class CompatTicks:
    """The public simulator's pass (see the module docstring) over simulator keys ``0..N-1``.

    ``jobs`` are the run's jobs (for the array sizes and arrival times), ``priority`` a name of
    :data:`VALUES`. ``drifts`` counts the 1 s submit drifts, ``ticks`` the passes run.
    ``shortcut=False`` runs a pass every second while jobs wait (for the tests).
    """

    def __init__(
        self,
        jobs: Sequence[Job],
        allocator: FmAllocator,
        priority: str,
        local_gb: int,
        shortcut: bool = True,
    ) -> None:
        size = len(jobs)
        self.allocator = allocator
        self.values = VALUES[priority]
        self.local_gb = local_gb
        self.shortcut = shortcut
        self.arrivals = np.array(sorted(j.submit for j in jobs), dtype=np.int64)
        self.submit = np.zeros(size)  # drifted submit times
        self.r = np.ones(size)
        self.n = np.ones(size)
        self.mo = np.ones(size)
        self.queued = np.zeros(size, dtype=bool)
        self.jobs: dict[int, Job] = {}
        self.drifts = 0
        self.ticks = 0
        self._admitted = False
        self._shadow: tuple[np.ndarray, np.ndarray] | None = None
        self._wake: int | None = None

    # -- the pass ----------------------------------------------------------------------------

    def schedule(self, view: SchedulingView, now: int) -> None:
        """One tick: steps until one starts nothing (module docstring)."""
        self.ticks += 1
        if view.submitted or not self._admitted:
            self._admit(view)
            self._admitted = True
        if view.finished:
            self._shadow = None
        self._wake = now + 1
        free = self.allocator.free_nodes()
        while True:
            idx = np.flatnonzero(self.queued)
            if not len(idx):
                return
            r, n, mo = self.r[idx], self.n[idx], self.mo[idx]
            head, cand, left = self._order(view, now, idx, r, n, mo)
            if self._start(view, head):
                free = self.allocator.free_nodes()
                continue
            drifting = [(head, self._drift(head, free))]
            if cand is not None:
                if self._start(view, cand):
                    free = self.allocator.free_nodes()
                    continue
                drifting.append((cand, self._drift(cand, free)))
            if self.shortcut:
                self._wake = self._fast_forward(view, now, idx, (head, cand, left), drifting)
            return

    def next_wakeup(self, now: int) -> int | None:
        """The next tick where something may start (``now + 1`` without the shortcut)."""
        return self._wake if self.queued.any() else None

    def _order(
        self,
        view: SchedulingView,
        now: int,
        idx: np.ndarray,
        r: np.ndarray,
        n: np.ndarray,
        mo: np.ndarray,
    ) -> tuple[int, int | None, int | None]:
        """The head, the candidate (``None``: none) and the shadow's seconds left at ``now``."""
        s = self.submit[idx]
        v = self.values(now, s, r, n, mo)
        head = self._best(idx, v, s)
        left = self._shadow_left(view, int(self.n[head]), now)
        if left is None:
            return head, None, None
        eligible = (r <= left) & (idx != head)
        if not eligible.any():
            return head, None, left
        return head, self._best(idx[eligible], v[eligible], s[eligible]), left

    # -- the shortcut --------------------------------------------------------------------------

    def _fast_forward(
        self,
        view: SchedulingView,
        now: int,
        idx: np.ndarray,
        plan: tuple[int, int | None, int | None],
        drifting: list[tuple[int, int]],
    ) -> int:
        """Run the quiet ticks after ``now``; the first where a job would start, else the next
        event (module docstring)."""
        ends = [run.end for run in view.running().values()]
        i = int(np.searchsorted(self.arrivals, now, side="right"))
        events = ends + ([int(self.arrivals[i])] if i < len(self.arrivals) else [])
        limit = min(events, default=now + _MAX_SKIP)
        r, n, mo = self.r[idx], self.n[idx], self.mo[idx]
        free = self.allocator.free_nodes()
        fits: dict[int, bool] = {}
        t = now
        while True:
            t += 1
            if t >= limit:
                return limit
            new = self._order(view, t, idx, r, n, mo)
            if new[:2] == plan[:2]:  # tick t repeats the last one, maybe many more do
                self._credit(drifting, 1)
                run = min(self._repeat(t, idx, r, n, mo, new, drifting), limit - t - 1)
                self._credit(drifting, run)
                t += run
                plan = new
                continue
            plan = new
            head, cand, _ = plan
            if self._fits(head, t, fits) or (cand is not None and self._fits(cand, t, fits)):
                return t
            drifting = [(key, self._drift(key, free)) for key in plan[:2] if key is not None]

    def _credit(self, drifting: list[tuple[int, int]], ticks: int) -> None:
        """The drift of ``ticks`` ticks that each repeat the last one."""
        for key, step in drifting:
            self.submit[key] += step * ticks
            self.drifts += step * ticks

    def _fits(self, key: int, now: int, cache: dict[int, bool]) -> bool:
        fit = cache.get(key)
        if fit is None:
            fit = cache[key] = self.allocator.fits_now(self.jobs[key], now)
        return fit

    def _repeat(
        self,
        t: int,
        idx: np.ndarray,
        r: np.ndarray,
        n: np.ndarray,
        mo: np.ndarray,
        plan: tuple[int, int | None, int | None],
        drifting: list[tuple[int, int]],
    ) -> int:
        """How many ticks after ``t`` have tick ``t``'s head and candidate (doubling, then
        bisection; sign changes happen at most once, module docstring)."""
        head, cand, left = plan
        s0 = self.submit[idx]  # after tick t's drift
        rate = np.zeros(len(idx))
        for key, step in drifting:
            rate[np.searchsorted(idx, key)] = step
        rivals = idx != head
        if cand is not None and left is not None:
            rivals &= r <= left - 1  # eligible one tick on
        cand_r = self.r[cand] if cand is not None else 0.0

        def same(d: int) -> bool:
            s = s0 + rate * (d - 1)
            v = self.values(t + d, s, r, n, mo)
            if self._best(idx, v, s) != head:
                return False
            if cand is None or left is None:
                return True
            return cand_r <= left - d and self._best(idx[rivals], v[rivals], s[rivals]) == cand

        good, bad = 0, 1
        while bad <= _MAX_SKIP and same(bad):
            good, bad = bad, 2 * bad
        bad = min(bad, _MAX_SKIP + 1)
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if same(mid) else (good, mid)
        return good

    # -- helpers -----------------------------------------------------------------------------

    def _admit(self, view: SchedulingView) -> None:
        for key in view.queue():
            if key not in self.jobs:
                job = self.jobs[key] = view.job(key)
                self.queued[key] = True
                self.submit[key] = job.submit
                self.r[key] = job.extra.get("d", job.runtime)
                self.n[key] = job.procs
                m = job.memory
                self.mo[key] = m / self.local_gb if m > self.local_gb else 1.0

    def _start(self, view: SchedulingView, key: int) -> bool:
        if not view.start(int(key)):
            return False
        self.queued[key] = False
        self._shadow = None
        return True

    def _drift(self, key: int, free: int) -> int:
        """Spec §9 D17: enough free nodes, so the pool memory was missing: submit + 1 s."""
        if free < self.n[key]:
            return 0
        self.submit[key] += 1
        self.drifts += 1
        return 1

    @staticmethod
    def _best(idx: np.ndarray, v: np.ndarray, s: np.ndarray) -> int:
        """The key with the largest value, ties by smaller submit, then smaller key."""
        top = np.flatnonzero(v == v[v.argmax()])
        if len(top) == 1:
            return int(idx[top[0]])
        idx, s = idx[top], s[top]
        return int(idx[s.argmin()])

    def _shadow_left(self, view: SchedulingView, nodes: int, now: int) -> int | None:
        """Seconds until ``nodes`` nodes are free by counts (at least one running job ends)."""
        if self._shadow is None:
            running = sorted(view.running().values(), key=lambda r: r.end)
            ends = np.array([r.end for r in running], dtype=np.int64)
            counts = np.cumsum([len(r.nodes) for r in running], dtype=np.int64)
            self._shadow = (ends, counts)
        ends, counts = self._shadow
        i = max(int(np.searchsorted(counts, nodes - self.allocator.free_nodes())), 0)
        if i >= len(ends):
            return None
        return int(ends[i]) - now
