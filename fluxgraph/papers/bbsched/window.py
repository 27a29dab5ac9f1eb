"""The BBSched scheduling pass (paper §3.1; spec §4.2), shared by every method.

Per pass (the simulator has already dropped the previous pass's reservation):

1. ``Q`` = the queue in base-priority order (FCFS, or :func:`wfp` on the Theta analogue);
2. window stage (all methods but Baseline): ``W`` = the first ``w`` jobs. Jobs that sat in the
   window for ``starve_bound`` passes are *forced*: each starts if it can; the first that cannot
   moves to the head of ``Q`` (it gets the EASY reservation) and the optimiser is skipped.
   Otherwise the candidates (window jobs that each fit the free aggregates) go to
   ``method.select`` (two or more) and the selected jobs start in window order. The pass
   counters follow ``starve`` (amendment D3): ``"pass"`` (the paper's text, default) raises
   every window job still waiting afterwards; ``"optimiser"`` only on passes where the
   optimiser ran (two or more candidates) and did not select it; ``"none"`` (the authors'
   CQSim code) forces nothing;
3. EASY over the rest of ``Q``: in-order starts; the first job that cannot start gets the one
   reservation (earliest time its nodes, BB and SSD all fit for its walltime); later jobs start
   only where the matcher fits them beside that reservation.

Every start is one matcher call on the machine graph (:class:`~fluxgraph.sched.passes.
SchedulingView`), so the graph decides feasibility; the free aggregates ``F_N``, ``F_B``,
``F_128``, ``F_256`` the optimisers see are read off the running jobs' allocations, and a
selection the graph refuses is an error (with ``verify``, each selected set is also checked
with ``view.fits`` before it starts). The aggregates only skip matcher calls whose outcome they
prove (a job larger than what is free now or than what the reservation leaves at its start; a
reservation no later job needs); ``shortcuts=False`` is the plain walk, one matcher call per job,
and the tests check both give the same schedule.

>>> from fluxgraph.papers.bbsched.machine import BBMachine
>>> from fluxgraph.papers.bbsched.methods import make_method
>>> from fluxgraph.sched import Simulator
>>> from fluxgraph.workload import Job
>>> m = BBMachine("t", ((100, 1),), 100, bb_chunk=1)
>>> sizes = [(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)]
>>> jobs = [Job(i + 1, 0, 10, 10, n, n, extra={"bb": b}) for i, (n, b) in enumerate(sizes)]
>>> def started(method):
...     p = WindowPass(m, make_method(method))
...     r = Simulator(m.graph(), jobs, shape=bb_shape(m), policy="lonodex", scheduler=p).run()
...     return [j.job.id for j in r.jobs if j.start == 0]
>>> started("Baseline"), started("BBSched"), started("Constrained_CPU")
([1, 4], [2, 3, 4, 5], [1, 5])
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from fluxgraph.errors import SimulationError
from fluxgraph.jobspec.model import Attributes, Jobspec, Resource, SystemAttributes, Task
from fluxgraph.papers.bbsched.machine import SSD_SMALL, BBMachine
from fluxgraph.papers.bbsched.methods import Method
from fluxgraph.papers.bbsched.moo import Window
from fluxgraph.sched.passes import SchedulingView
from fluxgraph.sched.shapes import JobShape
from fluxgraph.workload import Job

__all__ = ["STARVE", "BBShape", "WindowPass", "bb_shape", "demand", "wfp"]

#: Starvation-bound readings (amendment D3): the paper's text, its optimiser-only reading, and
#: the authors' code (no bound).
STARVE = ("pass", "optimiser", "none")


def wfp(job: Job, now: int) -> float:
    """WFP3 priority key (smaller first): ``-(wait/walltime)^3 nodes`` (spec §4.1).

    >>> wfp(Job(1, 0, 10, 100, 4, 4), 200)
    -32.0
    """
    return -(((now - job.submit) / job.walltime) ** 3) * (job.nodes or job.procs)


def demand(job: Job) -> tuple[int, int, int]:
    """``(nodes, bb GB, ssd GB per node)`` requested by ``job``.

    >>> demand(Job(1, 0, 10, 10, 4, 4, extra={"bb": 1.5}))
    (4, 2, 0)
    """
    extra = job.extra
    return (
        job.nodes or job.procs,
        math.ceil(extra.get("bb", 0)) if extra else 0,
        math.ceil(extra.get("ssd", 0)) if extra else 0,
    )


_TASK = (Task(("fluxgraph-sim",), "task", None),)


class BBShape(JobShape):
    """A BBSched request (spec §2.2): ``node[n] (exclusive) > slot > {core[C], ssd[s]}``
    beside ``bb[b]`` (exclusive: whole chunks of the pool, so ``b`` is rounded up to whole
    chunks here, which also keeps the number of distinct requests small); ``ssd`` and ``bb``
    are left out at 0."""

    chunk: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        self._keys: dict[int, tuple[Job, tuple]] = {}  # id(job) -> (job, key), read once

    def key(self, job: Job) -> tuple:
        known = self._keys.get(id(job))
        if known is not None and known[0] is job:
            return known[1]
        n, b, s = demand(job)
        key = ("bb-node", n, -(-b // self.chunk) * self.chunk, s)
        self._keys[id(job)] = (job, key)
        return key

    @staticmethod
    def family(key: tuple) -> tuple[tuple, int]:
        return (key[0], key[2], key[3]), key[1]

    def jobspec(self, job: Job) -> Jobspec:
        key = self.key(job)
        full = (key, job.walltime)
        js = self._cache.get(full)
        if js is None:
            _, nodes, bb, ssd = key
            inner = (Resource("core", self.cores_per_node),)
            inner += (Resource("ssd", ssd),) if ssd else ()
            slot = Resource("slot", 1, label="task", with_=inner)
            top: tuple[Resource, ...] = (Resource("node", nodes, exclusive=True, with_=(slot,)),)
            if bb:
                top += (Resource("bb", bb, exclusive=True),)
            attrs = Attributes(SystemAttributes(duration=float(job.walltime)))
            js = self._cache[full] = Jobspec(1, top, _TASK, attrs)
        return js


def bb_shape(machine: BBMachine) -> BBShape:
    """The job shape of ``machine`` (its cores per node)."""
    shape = BBShape("node", machine.groups[0][1])
    shape.chunk = machine.bb_chunk
    return shape


@dataclass
class WindowPass:
    """The pass of the module docstring for ``method`` (a fresh one per simulation run).

    ``decision_times`` holds the CPU seconds of every ``method.select`` call (the machines
    these runs share are loaded, so CPU time is the fair measure) and ``decision_at`` its
    simulated time;
    ``stats`` counts passes, forced starts and reservations and starvation-bound violations.
    """

    machine: BBMachine
    method: Method
    window: int = 20
    starve_bound: int = 50
    verify: bool = False
    starve: str = "pass"
    shortcuts: bool = True
    decision_times: list[float] = field(default_factory=list)
    decision_at: list[int] = field(default_factory=list)
    window_sizes: list[int] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    _passes: dict[int, int] = field(default_factory=dict, repr=False)
    _started_last: bool = field(default=True, repr=False)
    _last_order: list[int] = field(default_factory=list, repr=False)
    _needs: dict[int, tuple[int, int, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.window < 1 or self.starve_bound < 1:
            raise SimulationError("window and starve_bound must be >= 1")
        if self.starve not in STARVE:
            raise SimulationError(f"unknown starve {self.starve!r} (valid: {', '.join(STARVE)})")
        names = ("passes", "selected", "forced_started", "forced_reserved", "violations")
        for name in (*names, "forced_passes"):
            self.stats.setdefault(name, 0)

    def next_wakeup(self, now: int) -> int | None:
        return None

    # -- free aggregates -------------------------------------------------------------------

    def _free(self, view: SchedulingView) -> list[int]:
        """``[F_N, F_B, F_128, F_256]`` from the running jobs' allocations."""
        m = self.machine
        used_nodes = used_bb = used_small = 0
        half = m.small_nodes
        for run in view.running().values():
            used_nodes += len(run.nodes)
            for _, kind, units in run.held:
                if kind == "bb":
                    used_bb += units
            if half:
                used_small += sum(1 for r in run.nodes if r < half)
        free_small = half - used_small
        return [
            m.nodes - used_nodes,
            m.pool - used_bb,
            free_small,
            m.nodes - used_nodes - free_small,
        ]

    def _need(self, view: SchedulingView, key: int) -> tuple[int, int, int]:
        """What job ``key`` takes from the graph: its BB rounded up to whole chunks (read once
        per job: ``job.extra`` may be a lazy mapping)."""
        need = self._needs.get(key)
        if need is None:
            n, b, s = demand(view.job(key))
            need = self._needs[key] = (n, self.machine.bb_units(b), s)
        return need

    def _fits(self, need: tuple[int, int, int], free: list[int]) -> bool:
        n, b, s = need
        return n <= free[0] and b <= free[1] and (s <= SSD_SMALL or n <= free[3])

    def _start(self, view: SchedulingView, key: int, free: list[int]) -> bool:
        if not self._fits(self._need(view, key), free) or not view.start(key):
            return False
        self._take(view, key, free)
        return True

    def _take(self, view: SchedulingView, key: int, free: list[int]) -> None:
        run = view.running()[key]
        b = self._need(view, key)[1]
        half = self.machine.small_nodes
        small = sum(1 for r in run.nodes if r < half) if half else 0
        free[0] -= len(run.nodes)
        free[1] -= b
        free[2] -= small
        free[3] -= len(run.nodes) - small

    # -- one pass --------------------------------------------------------------------------

    def schedule(self, view: SchedulingView, now: int) -> None:
        self.stats["passes"] += 1
        queue = view.queue()
        free = self._free(view)
        head: list[int] = []
        forced: list[int] = []
        started_before = self._started_last
        if self.method.windowed:
            head, forced = self._window_stage(view, queue, free)
        order = head + [k for k in view.queue() if k not in head]
        known = self._known_failures(view, order, started_before, bool(head))
        started, reserved = self._easy(view, now, order, free, known)
        self._started_last = bool(started) or len(order) < len(queue)
        self._last_order = order
        for key in forced:
            if key == reserved:
                self.stats["forced_reserved"] += 1
            elif key not in started:
                self.stats["violations"] += 1

    def _known_failures(
        self, view: SchedulingView, order: list[int], started_before: bool, forced: bool
    ) -> int:
        """How many jobs at the front of ``order`` provably cannot start now: the previous
        pass started nothing, nothing ended since, and it walked the same jobs in the same
        order (spans only end at finish events, so each of them meets the same free capacity
        and the same reservation, and fails again)."""
        if not self.shortcuts or started_before or forced or view.finished:
            return 0
        last = self._last_order
        same = 0
        while same < min(len(last), len(order)) and last[same] == order[same]:
            same += 1
        return same if same == len(last) else 0

    def _easy(
        self, view: SchedulingView, now: int, order: list[int], free: list[int], known: int
    ) -> tuple[set[int], int | None]:
        """Step 3, EASY: returns (started keys, the reserved key).

        With ``shortcuts`` the matcher is asked only where the aggregates do not settle the
        answer (see :meth:`_shadow`): the reservation is booked lazily, before the first later
        job that would run past the shadow time; a later job that ends by the shadow time
        starts without it (the reservation cannot touch its span), and one that runs past it
        is skipped when the nodes or BB spare at the shadow time cannot hold it."""
        if not self.shortcuts:
            return self._plain_easy(view, now, order, free)
        started: set[int] = set()
        reserved: int | None = None
        made = False
        shadow: list[int] | None = None  # see _shadow
        failed: list[tuple[int, int, int, int]] = []
        for index, key in enumerate(order):
            need = self._need(view, key)
            if reserved is None:
                at = None
                if index >= known and self._fits(need, free):
                    at = view.reserve(key)
                    if at == now:
                        self._take(view, key, free)
                        started.add(key)
                        continue
                    made = at is not None
                shadow = self._shadow(view, now, need, free, at)
                reserved = key
                continue
            if index < known or not self._fits(need, free):
                continue
            wall = view.job(key).walltime
            if any(
                n <= need[0] and b <= need[1] and s <= need[2] and w <= wall
                for n, b, s, w in failed
            ):
                continue
            past = shadow is None or now + wall > shadow[0]
            if past and shadow is not None and not self._beside(need, shadow):
                continue
            if past and not made:
                at = view.reserve(reserved)
                if shadow is not None and at != shadow[0]:
                    raise SimulationError(
                        f"at {now}: the matcher reserves job key {reserved} at {at}, "
                        f"the aggregates at {shadow[0]}"
                    )
                made = True
            if view.start(key):
                self._take(view, key, free)
                started.add(key)
                if past and shadow is not None:
                    shadow[1] -= need[0]
                    shadow[2] -= need[1]
                    shadow[3] -= self._large(view.running()[key].nodes)
            else:
                failed.append((*need, wall))
        return started, reserved

    def _plain_easy(
        self, view: SchedulingView, now: int, order: list[int], free: list[int]
    ) -> tuple[set[int], int | None]:
        """EASY with one matcher call per job (the reference the shortcuts are tested on)."""
        started: set[int] = set()
        reserved: int | None = None
        for key in order:
            if reserved is None:
                if view.reserve(key) == now:
                    self._take(view, key, free)
                    started.add(key)
                else:
                    reserved = key
            elif view.start(key):
                self._take(view, key, free)
                started.add(key)
        return started, reserved

    def _large(self, ranks: tuple[int, ...]) -> int:
        """How many of ``ranks`` are 256-GB SSD nodes (every node without SSDs)."""
        half = self.machine.small_nodes
        return sum(1 for r in ranks if r >= half) if half else len(ranks)

    @staticmethod
    def _beside(need: tuple[int, int, int], shadow: list[int]) -> bool:
        """Whether the spare at the shadow time can hold a job that runs past it."""
        n, b, s = need
        return n <= shadow[1] and b <= shadow[2] and (s <= SSD_SMALL or n <= shadow[3])

    def _shadow(
        self,
        view: SchedulingView,
        now: int,
        need: tuple[int, int, int],
        free: list[int],
        at: int | None,
    ) -> list[int] | None:
        """``[T, spare nodes, spare BB, spare large-SSD nodes]``: the earliest time ``T`` the
        blocked job ``need`` fits, and what is left at ``T`` beside it.

        Every booking starts at or before ``now`` and holds its nodes and chunks until its
        walltime ends, so from ``now`` on free capacity only grows: ``T`` is the first planned
        end at which the free aggregates hold the job (a large-SSD job on large nodes), and
        nodes identical within their class make that the matcher's earliest start too (a
        disagreement is an error). The spare at ``T`` bounds what a job running past ``T`` may
        take (a necessary condition; placement decides)."""
        ends = sorted(
            (
                run.start + run.job.walltime,
                len(run.nodes),
                self._need(view, run.key)[1],
                self._large(run.nodes),
            )
            for run in view.running().values()
        )
        n, b, s = need
        big = s > SSD_SMALL
        nodes, bb, large = free[0], free[1], free[3]
        when = now
        for end, used, held, used_large in ends:
            if end > when and nodes >= n and bb >= b and (not big or large >= n):
                break
            nodes, bb, large, when = nodes + used, bb + held, large + used_large, end
        if nodes < n or bb < b or (big and large < n) or when == now:
            return None
        if at is not None and at != when:
            raise SimulationError(
                f"at {now}: the matcher reserves at {at}, the aggregates at {when}"
            )
        return [when, nodes - n, bb - b, large - (n if big else 0)]

    def _window_stage(
        self, view: SchedulingView, queue: list[int], free: list[int]
    ) -> tuple[list[int], list[int]]:
        """Step 2: forced jobs, candidates, selection; returns (head of Q, forced left)."""
        window = queue[: self.window]
        passes = self._passes
        head: list[int] = []
        waiting_forced = []
        bound = self.starve_bound if self.starve != "none" else math.inf
        if any(passes.get(key, 0) >= bound for key in window):
            self.stats["forced_passes"] += 1
        for key in window:
            if passes.get(key, 0) >= bound:
                if self._start(view, key, free):
                    self.stats["forced_started"] += 1
                else:
                    head = [key]
                    waiting_forced.append(key)
                    break
        optimised = False if head else self._select(view, window, free)
        if self.starve == "none" or (self.starve == "optimiser" and not optimised):
            return head, waiting_forced
        queued = set(view.queue())
        for key in window:
            if key in queued:
                passes[key] = passes.get(key, 0) + 1
            else:
                passes.pop(key, None)
        return head, waiting_forced

    def _select(self, view: SchedulingView, window: list[int], free: list[int]) -> bool:
        """Candidates, ``method.select`` and their starts; whether the optimiser ran."""
        queued = set(view.queue())
        cands = [k for k in window if k in queued and self._fits(self._need(view, k), free)]
        if not cands:
            return False
        self.window_sizes.append(len(cands))
        if len(cands) == 1:
            chosen = cands
        else:
            m = self.machine
            problem = Window.of(
                [self._need(view, k) if m.ssd else self._need(view, k)[:2] for k in cands],
                free[0],
                free[1],
                m.nodes,
                m.pool,
                free[2],
                free[3],
            )
            t0 = time.process_time()
            mask = self.method.select(problem)
            self.decision_times.append(time.process_time() - t0)
            self.decision_at.append(view.now)
            chosen = [cands[i] for i in problem.members(mask)]
        if self.verify and not view.fits(chosen):
            raise SimulationError(f"at {view.now}: the graph cannot hold the selection {chosen}")
        for key in chosen:
            if not view.start(key):
                raise SimulationError(f"at {view.now}: selected job key {key} did not start")
            self._take(view, key, free)
        self.stats["selected"] += len(chosen)
        return len(cands) >= 2
