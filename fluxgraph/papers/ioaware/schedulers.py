"""The paper's schedulers as scheduling passes: S0 default backfill, S1 I/O-aware backfill,
S2 workload-adaptive backfill (two-group approximation) and S2n, its naive ablation.

All four are Slurm's conservative backfill (Alg. 1): each cycle rebuilds its trackers, walks
the queue in priority order, starts a job whose earliest start is now and reserves every
delayed job at its earliest start (BackfillMax = inf; ``backfill_max`` bounds it as Alg. 1
does), and stops the walk once no node is free now (nothing later can start; spec §4.0) or
once no kind of job still queued can start now (the same argument: within a walk the trackers
only fill up). Tracker spans last the time limit ``L_j``. Cycles run at every completion and
on the 30 s timer (``timer_only``: on the timer only; decision D5). They differ in the
trackers (spec §4.1-§4.5):

* :class:`DefaultBackfill` (S0): the node tracker ``NT`` only.
* :class:`IOAwareBackfill` (S1, Alg. 2-4): also ``LT``, the plan of the ``pfs_bw`` pool in
  0.01 GiB/s units (capacity ``R_limit``): every running job's *current* estimate until its
  limit, plus the measured excess ``R_now - sum r_j`` until the last running limit (Alg. 2);
  a job with ``r_j > 0`` also needs ``LT`` room for ``min(r_j, R_limit)``.
* :class:`AdaptiveBackfill` (S2, Eq. 1-5, Alg. 5-7): also the target
  ``R~ = N*V/A`` (Eq. 1), the two-group split at ``r*`` (Eq. 2), ``r_bar`` (Eq. 3),
  ``R~' = R~ - N*r_bar`` (Eq. 4) and the adjusted tracker ``AT`` of ``r_j - n_j*r_bar``; a
  regular job (``r_j > n_j*r*``) starts only where ``AT`` stays at most its admission threshold
  ``h_j``. ``naive=True`` (S2n) drops the two-group step: ``r* = r_bar = 0``.

Estimates come from an :class:`~fluxgraph.papers.ioaware.estimator.Estimator` keyed by
``job.extra["kind"]``; ``R_now`` from a
:class:`~fluxgraph.papers.ioaware.fluid.FluidFileSystem`. The passes decide with their own
trackers (the pool is re-planned every cycle from current estimates, which allocations fixed
at start could not express) and start jobs through the view, i.e. the matcher.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from fluxgraph.errors import SimulationError
from fluxgraph.papers.ioaware.estimator import Estimator
from fluxgraph.papers.ioaware.fluid import FluidFileSystem
from fluxgraph.papers.ioaware.machine import UNITS_PER_GIBS, units
from fluxgraph.papers.ioaware.tracker import Tracker
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.sched.runtime import RunningJob
from fluxgraph.workload import Job

__all__ = [
    "ADMIT_RULES",
    "AdaptiveBackfill",
    "CycleLog",
    "DefaultBackfill",
    "IOAwareBackfill",
    "TwoGroups",
    "two_groups",
]

#: Admission rules of a regular job in S2 (decision D11): the threshold on ``AT`` usage.
ADMIT_RULES = ("half", "before", "after")

#: ``(kind, nodes, time limit)``: jobs with equal keys have equal estimates and requests.
GroupKey = tuple[str, int, int]


def _group(job: Job) -> GroupKey:
    # nodes as the ``node`` job shape counts them on a one-core-per-node machine
    return (str(job.extra.get("kind", "")), job.nodes or job.procs, job.walltime)


@dataclass
class CycleLog:
    """What the cycles saw: time, ``R_now``, and for S2 ``R~``, ``R~'``, ``r*``, ``r_bar``;
    jobs started; ``pool_peak``, the highest planned ``pfs_bw`` units over the window of a job
    with I/O started in the cycle, after the walk (-1: none started; never above the pool)."""

    times: list[int] = field(default_factory=list)
    r_now: list[float] = field(default_factory=list)
    target: list[float] = field(default_factory=list)
    adjusted: list[float] = field(default_factory=list)
    r_star: list[float] = field(default_factory=list)
    r_bar: list[float] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    pool_peak: list[float] = field(default_factory=list)


@dataclass
class DefaultBackfill:
    """S0: conservative backfill on nodes only, FCFS, every delayed job reserved (Alg. 1).

    Parameters
    ----------
    nodes : ``N``, the machine's node count.
    estimator, filesystem : the history-based estimates and the file-system model (S0 reads
        neither: the prototype's default forces every estimate and ``R_now`` to 0).
    r_limit : ``R_limit`` GiB/s (S1/S2).
    backfill_max : Alg. 1's ``BackfillMax``, the delayed jobs reserved per cycle (``None``:
        all of them, decision D6; later delayed jobs are only tested for a start now).
    timer_only : when > 0, cycles run only at multiples of it (decision D5's periodic-only
        option): a completion between two ticks starts nothing.

    Examples
    --------
    >>> from fluxgraph.papers.ioaware.fluid import FluidFileSystem
    >>> from fluxgraph.papers.ioaware.machine import build_pfs_machine
    >>> from fluxgraph.sched.simulator import Simulator
    >>> from fluxgraph.workload import Job
    >>> naps = [Job(k, 0, 5, 10, 1, 1, extra={"kind": "sleep", "compute_s": 5}) for k in range(3)]
    >>> sim = Simulator(build_pfs_machine(2), naps, runtime=FluidFileSystem(),
    ...                 scheduler=DefaultBackfill(2))
    >>> [(r.start, r.end) for r in sim.run().jobs]
    [(0, 5), (0, 5), (5, 10)]
    """

    nodes: int
    estimator: Estimator = field(default_factory=Estimator)
    filesystem: FluidFileSystem | None = None
    r_limit: float = 20.0
    backfill_max: int | None = None
    timer_only: int = 0
    log: CycleLog = field(default_factory=CycleLog)
    _stale: bool = field(default=True, init=False, repr=False)
    _pending: dict[GroupKey, int] = field(default_factory=dict, init=False, repr=False)
    _runs: list[tuple[GroupKey, list[int]]] = field(default_factory=list, init=False, repr=False)

    # -- the pass ---------------------------------------------------------------------------

    def schedule(self, view: SchedulingView, now: int) -> None:
        self._stale = self._stale or bool(view.submitted) or not self._runs
        if self.timer_only and now % self.timer_only:
            return  # D5's periodic-only option: no cycle at a completion between ticks
        if self._stale:
            self._queue_runs(view)
            self._stale = False
        running = view.running()
        self.prepare(now, running)
        free = self.nodes - sum(len(run.nodes) for run in running.values())
        self.tracker = Tracker.of(3, self.initial if free > 0 else ())  # no walk without nodes
        started = 0
        io_started: set[GroupKey] = set()
        last: dict[GroupKey, int] = {}  # a group's next job starts no earlier than its last
        # The walk also stops once no group still ahead can start now. The trackers only fill
        # up during a walk, so a group whose earliest start is later than now stays blocked
        # for the rest of the cycle, and reservations matter only to starts in this cycle.
        # Open groups are tested again before a blocked group's run is reserved and after
        # each reservation that overlaps their window from now.
        ahead = Counter(g for g, _ in self._runs)
        open_ahead = set(ahead)  # groups ahead that may still start now

        def recheck(booked: int) -> None:
            for h in list(open_ahead):
                if booked < now + h[2]:
                    t, _ = self.fit(h, now, exact=False)  # exact when it is now
                    if t > now:
                        last[h] = t
                        open_ahead.discard(h)

        reserved = 0  # delayed jobs reserved (Alg. 1's BackfillCount)
        deferred: set[GroupKey] = set()  # groups booked past every open window
        for g, keys in self._runs:
            if last.get(g, now) > now:
                recheck(now)
            if free <= 0 or not open_ahead:
                break
            ahead[g] -= 1
            if not ahead[g]:
                open_ahead.discard(g)
            t = last.get(g, now)
            if g in deferred:
                # the walk below would place this run from the group's last start on, past
                # every open window too, and book it whole: booked after the earlier run
                reserved += self._book_run_later(g, None, len(keys), reserved)
                continue
            if self.tracker.deferred and len(open_ahead - {g}):
                # deferred bookings only push starts later: a run whose earliest start
                # without them is past every other open window goes the same way
                low, _ = self.fit(g, t, exact=False)
                if low >= now + max(h[2] for h in open_ahead if h != g):
                    reserved += self._book_run_later(g, low, len(keys), reserved)
                    deferred.add(g)
                    last[g] = low
                    open_ahead.discard(g)
                    continue
            # A run of equal jobs is placed in batches: after one job at ``t`` the next starts
            # at ``t`` or later (the trackers only fill up) and ``count`` of them fit at ``t``
            # at once: the same placements as one job at a time. Only a run's first batch
            # can start now (a later batch is where no more copies fit now, or nodes ran out).
            placed = 0
            while placed < len(keys) and free > 0:
                t, count = self.fit(g, t)
                count = min(count, len(keys) - placed)
                if t > now and self.backfill_max is not None:
                    if reserved >= self.backfill_max:
                        break  # Alg. 1 lines 10-11: skipped until the next cycle
                    count = min(count, self.backfill_max - reserved)
                    reserved += count
                if t == now:
                    count = min(count, free // g[1])
                    for key in keys[:count]:
                        if not view.start(key):
                            raise SimulationError(
                                f"job {view.job(key).id}: the trackers admit it at {now} "
                                "but the machine refused it"
                            )
                    del keys[:count]
                    free -= count * g[1]
                    started += count
                    if self.demand(g)[0][1]:
                        io_started.add(g)
                    self._pending[g] -= count
                    self.reserve(g, t, count)
                else:
                    placed += count
                    self.reserve(g, t, count)
                    open_ahead.discard(g)
                    recheck(t)
                    if not open_ahead:
                        break
                    if t >= now + max(h[2] for h in open_ahead):
                        # the run's later batches start at t or later, past the window from
                        # now of every open kind: book them without rechecks
                        # (deferred: the walk often ends before anything could see them)
                        reserved += self._book_run_later(g, t, len(keys) - placed, reserved)
                        deferred.add(g)
                        break
            last[g] = t
            if t > now:
                open_ahead.discard(g)
        if started:
            self._runs = [run for run in self._runs if run[1]]
        self.log.starts.append(started)
        peaks = [self.tracker.peak(now, g[2], 1) for g in io_started]
        self.log.pool_peak.append(max(peaks, default=-1.0))

    def _queue_runs(self, view: SchedulingView) -> None:
        """Cut the queue (priority order) into runs of consecutive equal jobs."""
        self._runs = []
        self._pending = {}
        for key in view.queue():
            g = _group(view.job(key))
            self._pending[g] = self._pending.get(g, 0) + 1
            if self._runs and self._runs[-1][0] == g:
                self._runs[-1][1].append(key)
            else:
                self._runs.append((g, [key]))

    def next_wakeup(self, now: int) -> int | None:
        return None

    # -- trackers: one step function with columns NT, LT, AT ----------------------------------

    def prepare(self, now: int, running: Mapping[int, RunningJob]) -> None:
        """Rebuild the trackers for the cycle at ``now`` (Alg. 1 line 1, Alg. 2, Alg. 5)."""
        self.now = now
        #: The running jobs' spans ``(start, end, (NT, LT, AT))`` the cycle's tracker starts with.
        self.initial: list[tuple[int, int, tuple[float, float, float]]] = []
        self.demands: dict[GroupKey, tuple[tuple[float, ...], tuple[float | None, ...]]] = {}
        for run in running.values():
            self.initial.append((now, run.start + run.job.walltime, (len(run.nodes), 0.0, 0.0)))
        self.log.times.append(now)
        self.log.r_now.append(0.0)

    def demand(self, g: GroupKey) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
        """What a job of group ``g`` adds to ``(NT, LT, AT)`` and the usage each may have
        before it (``None``: not checked); cached for the cycle."""
        found = self.demands.get(g)
        if found is None:
            found = self.demands[g] = self.new_demand(g)
        return found

    def new_demand(self, g: GroupKey) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
        """S0: nodes only."""
        return (g[1], 0.0, 0.0), (self.nodes - g[1], None, None)

    def fit(self, g: GroupKey, t: int, exact: bool = True) -> tuple[int, int]:
        """The earliest start ``>= t`` of a job of group ``g`` (``EarliestStartTime``: the
        fixed point of Alg. 4 / Alg. 7's alternation, found in one sweep) and how many jobs
        of the group fit there together (``exact=False``: see :meth:`Tracker.fit`)."""
        amounts, limits = self.demand(g)
        start, count = self.tracker.fit(t, g[2], amounts, limits, exact)
        return int(start), count

    def _book_run_later(self, g: GroupKey, t: int | None, count: int, reserved: int) -> int:
        """Book ``count`` jobs of group ``g`` one after another from ``t`` on (``None``: from
        the last start of the group's previous booking), deferred (``Tracker.book_later``),
        within ``backfill_max``; how many were booked."""
        if self.backfill_max is not None:
            count = max(0, min(count, self.backfill_max - reserved))
        amounts, limits = self.demand(g)
        self.tracker.book_later(t, g[2], amounts, limits, count, g)
        return count

    def reserve(self, g: GroupKey, t: int, count: int = 1) -> None:
        """Book ``count`` jobs of group ``g`` at ``t`` in the trackers (``ReserveResources``)."""
        amounts, _ = self.demand(g)
        self.tracker.add(t, t + g[2], tuple(count * a for a in amounts))

    # -- estimates -------------------------------------------------------------------------

    def estimate(self, g: GroupKey) -> tuple[float, float]:
        """``(r_j, d_j)`` of group ``g`` now (spec §4.2)."""
        return self.estimator.estimate(g[0], g[2])


@dataclass
class IOAwareBackfill(DefaultBackfill):
    """S1: I/O-aware backfill with the bandwidth plan ``LT`` capped at ``R_limit`` (Alg. 2-4)."""

    window: float = 10.0

    def prepare(self, now: int, running: Mapping[int, RunningJob]) -> None:
        DefaultBackfill.prepare(self, now, running)
        self.pool = units(self.r_limit, self.r_limit)
        planned, last_end = 0.0, now
        for run in running.values():
            r, _ = self.estimate(_group(run.job))
            end = run.start + run.job.walltime
            last_end = max(last_end, end)
            if r > 0:
                self.initial.append((now, end, (0.0, units(r, self.r_limit), 0.0)))
                planned += min(r, self.r_limit)
        r_now = self.filesystem.measured(now, self.window) if self.filesystem else 0.0
        self.log.r_now[-1] = r_now
        if r_now > planned and running:  # Alg. 2 lines 7-8: the measured excess
            excess = round(UNITS_PER_GIBS * (r_now - planned))
            self.initial.append((now, last_end, (0.0, excess, 0.0)))

    def new_demand(self, g: GroupKey) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
        """S1: nodes, and ``u_j`` pool units for a job with ``r_j > 0`` (D18: others skip LT)."""
        u = units(self.estimate(g)[0], self.r_limit)
        return (g[1], u, 0.0), (self.nodes - g[1], self.pool - u if u else None, None)


@dataclass(frozen=True, slots=True)
class TwoGroups:
    """Eq. 1-4 of one cycle: queued I/O volume ``V`` (GiB) and node time ``A`` (node-s), target
    ``R~ = N*V/A``, threshold ``r*``, ``r_bar``, adjusted target ``R~'``."""

    volume: float
    area: float
    target: float
    r_star: float
    r_bar: float
    adjusted: float


def two_groups(
    nodes: int,
    running: list[tuple[float, float, int, float]],
    pending: list[tuple[float, float, int, int]],
    r_limit: float,
    naive: bool = False,
) -> TwoGroups:
    """Eq. 1-4 (spec §4.4 steps 1-5) from estimates.

    ``running``: ``(r_j, d_j, n_j, time left of d_j)`` per running job; ``pending``:
    ``(r_j, d_j, n_j, count)`` per group of equal pending jobs, in priority order of their
    first job.

    >>> g = two_groups(15, [], [(3.847, 20.80, 1, 30), (0.0, 60.0, 1, 60)], 20.0)
    >>> round(g.target, 3), g.r_star, g.r_bar
    (8.525, 0.0, 0.0)
    """
    volume = sum(r * left for r, _, _, left in running if left > 0)
    area = sum(n * left for _, _, n, left in running if left > 0)
    volume += sum(r * d * c for r, d, _, c in pending)
    area += sum(n * d * c for _, d, n, c in pending)
    target = nodes * volume / area if area > 0 else r_limit
    r_star = r_bar = 0.0
    if pending and not naive:
        by_ratio = sorted(range(len(pending)), key=lambda i: pending[i][0] / pending[i][2])
        half = 0.5 * sum(n * d * c for _, d, n, c in pending)
        total = 0.0
        for i in by_ratio:
            r, d, n, c = pending[i]
            total += n * d * c
            if total >= half:
                r_star = r / n
                break
        zero = [(r, d, n, c) for r, d, n, c in pending if r <= n * r_star]
        zero_area = sum(n * d * c for _, d, n, c in zero)
        if zero_area > 0:
            r_bar = sum(r * d * c for r, d, _, c in zero) / zero_area
    return TwoGroups(volume, area, target, r_star, r_bar, target - nodes * r_bar)


@dataclass
class AdaptiveBackfill(IOAwareBackfill):
    """S2 (``naive=False``) or S2n: workload-adaptive backfill (Eq. 1-5, Alg. 5-7).

    ``admit`` picks the threshold ``h_j`` on ``AT`` for a regular job with adjusted rate
    ``s_j``: ``half`` (default, the prototype's rule) ``R~' - s_j/2`` (``R~'/2`` when
    ``s_j > R~'``), ``before`` ``R~'``, ``after`` ``R~' - s_j``; never below 0.
    """

    naive: bool = False
    admit: str = "half"

    def __post_init__(self) -> None:
        if self.admit not in ADMIT_RULES:
            raise SimulationError(f"unknown admit rule {self.admit!r} (valid: {ADMIT_RULES})")

    def prepare(self, now: int, running: Mapping[int, RunningJob]) -> None:
        IOAwareBackfill.prepare(self, now, running)
        run_est = []
        for run in running.values():
            r, d = self.estimate(_group(run.job))
            run_est.append((r, d, len(run.nodes), run.start + d - now))
        pending = []
        for g, count in self._pending.items():
            if count > 0:
                r, d = self.estimate(g)
                pending.append((r, d, g[1], count))
        eq = self.groups = two_groups(self.nodes, run_est, pending, self.r_limit, self.naive)
        log = self.log
        log.target.append(eq.target)
        log.adjusted.append(eq.adjusted)
        log.r_star.append(eq.r_star)
        log.r_bar.append(eq.r_bar)
        for run, (r, _, n, _) in zip(running.values(), run_est, strict=True):
            self.initial.append((now, run.start + run.job.walltime, (0.0, 0.0, r - n * eq.r_bar)))

    def threshold(self, s: float) -> float:
        """The admission threshold ``h_j`` for adjusted rate ``s`` (clamped at 0)."""
        target = self.groups.adjusted
        if self.admit == "before":
            h = target
        elif self.admit == "after":
            h = target - s
        else:
            h = target - s / 2 if s <= target else target / 2
        return max(h, 0.0)

    def new_demand(self, g: GroupKey) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
        """S2: S1's demand; a regular job (``r_j > n_j*r*``) also adds ``s_j = r_j -
        n_j*r_bar`` to ``AT`` and needs ``AT <= h_j`` (Alg. 6-7); a zero job does not."""
        (n, u, _), (n_limit, u_limit, _) = IOAwareBackfill.new_demand(self, g)
        r, _ = self.estimate(g)
        eq = self.groups
        if r <= g[1] * eq.r_star:
            return (n, u, 0.0), (n_limit, u_limit, None)
        s = r - g[1] * eq.r_bar
        return (n, u, s), (n_limit, u_limit, self.threshold(s))
