"""The priorities of FM spec §4.2 (Li et al. Table II, §III-E) as simulator keys.

The paper writes priorities as "larger runs first"; the simulator runs the smallest key first,
so each key is the paper's value negated. ``r`` is the trace runtime ``d`` (the scheduler
never sees the remote-memory stretch), ``w = now - submit``, ``n`` the nodes, ``s`` the
rebased submit time, ``mo = M / L`` when ``M > L`` else 1 (``L`` the local memory).

Worked values of spec §4.2 (w=100, r=50, n=10, M=128, s=1000), as the paper's values:

>>> from fluxgraph.workload import Job
>>> job = Job(0, 1000, 50, 50, procs=10, memory=128, extra={"d": 50})
>>> [round(-p(job, 1100), 3) for p in make_priorities(64).values()]
[-1000, -50, 80.0, 2627.367, -2627.367, 2.0, 0.5, 1.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import repeat

import numpy as np

from fluxgraph.sched.priority import Priority
from fluxgraph.workload import Job

__all__ = ["FM_PRIORITIES", "QueueOrder", "make_priorities"]

#: The names, in the order of :func:`make_priorities` (``f1_asc`` and ``fm_code`` are extras).
FM_PRIORITIES = ("fcfs", "sjf", "wfp3", "f1", "f1_asc", "fair", "fm", "fm_code")


def _r(job: Job) -> int:
    return job.extra.get("d", job.runtime)


def _f1_score(job: Job) -> float:
    return math.log10(_r(job)) * job.procs + 870 * math.log10(job.submit + 1)


def _mo(job: Job, local_gb: int) -> float:
    return job.memory / local_gb if job.memory > local_gb else 1.0


def _fm_denominator(job: Job, local_gb: int) -> float:
    return (math.log10(job.procs) + 1) * _r(job) * _mo(job, local_gb)


def make_priorities(local_gb: int) -> dict[str, Priority]:
    """Name -> ``f(job, now)`` for a machine with ``local_gb`` of local memory (§9 D25)."""

    def mo(job: Job) -> float:
        return _mo(job, local_gb)

    def fcfs(job: Job, now: int) -> float:
        return job.submit

    def sjf(job: Job, now: int) -> float:
        return _r(job)

    def wfp3(job: Job, now: int) -> float:
        return -(((now - job.submit) / _r(job)) ** 3) * job.procs

    def per_job(value: Callable[[Job], float]) -> Priority:
        """``value(job)``, a key that does not depend on ``now``, computed once per job."""
        cache: dict[int, float] = {}

        def key(job: Job, now: int) -> float:
            v = cache.get(job.id)
            if v is None:
                v = cache[job.id] = value(job)
            return v

        return key

    # Table II literally: the larger score first (§9 D3)
    f1 = per_job(lambda job: -_f1_score(job))
    # Carastan-Santos & de Camargo: the smaller score first
    f1_asc = per_job(_f1_score)

    def per_wait(denominator: Callable[[Job], float]) -> Priority:
        """``-w / denominator(job)``, the denominator computed once per job."""
        cache: dict[int, float] = {}

        def key(job: Job, now: int) -> float:
            d = cache.get(job.id)
            if d is None:
                d = cache[job.id] = denominator(job)
            return (job.submit - now) / d

        return key

    fair = per_wait(_r)
    fm = per_wait(lambda job: _fm_denominator(job, local_gb))

    def fm_code(job: Job, now: int) -> float:
        return -((now - job.submit) / _r(job)) / mo(job)

    table: dict[str, Callable[[Job, int], float]] = {
        "fcfs": fcfs,
        "sjf": sjf,
        "wfp3": wfp3,
        "f1": f1,
        "f1_asc": f1_asc,
        "fair": fair,
        "fm": fm,
        "fm_code": fm_code,
    }
    return table


#: Relative distance below which WFP3's estimated keys may order two jobs unlike the exact
#: ones (:meth:`QueueOrder._wfp3_order`): far above their few-ulp difference.
_CUBE_SLACK = 1e-12
#: The priorities whose key does not depend on ``now``.
_STATIC = ("fcfs", "sjf", "f1", "f1_asc")


class QueueOrder:
    """The queue in the order of ``make_priorities(local_gb)[name]`` (ties by submit time, then
    job id, as the simulator sorts), over many queued jobs at once in numpy.

    The keys are those of :func:`make_priorities` bit for bit: static ones are its own values,
    kept per job; the others take the same IEEE operations on the same operands (``w / r``,
    ``w / denominator``, ``(w / r) / mo``; WFP3's cube is Python's ``**``), so the order is the
    simulator's. Jobs are simulator keys ``0..size-1``, told once with :meth:`learn`.

    >>> from fluxgraph.workload import Job
    >>> order = QueueOrder("fair", 64, 3)
    >>> for key, (submit, d) in enumerate([(0, 100), (10, 20), (20, 20)]):
    ...     order.learn(key, Job(key, submit, d, d, extra={"d": d}))
    >>> order.order(np.array([0, 1, 2]), now=30).tolist()   # w/r: 0.3, 1.0, 0.5
    [1, 2, 0]
    """

    def __init__(self, name: str, local_gb: int, size: int) -> None:
        self.name = name
        self.local_gb = local_gb
        self._key = make_priorities(local_gb)[name]
        self._submit = np.zeros(size, dtype=np.int64)
        self._id = np.zeros(size, dtype=np.int64)
        self._procs = np.zeros(size, dtype=np.int64)
        # the static key, or the divisor of the wait: r (fair, wfp3, fm_code), fm's denominator
        self._base = np.zeros(size)
        self._mo = np.ones(size)

    def learn(self, key: int, job: Job) -> None:
        """Tell the job of simulator key ``key``."""
        self._submit[key] = job.submit
        self._id[key] = job.id
        self._procs[key] = job.procs
        if self.name in _STATIC:
            self._base[key] = self._key(job, 0)
        elif self.name == "fm":
            self._base[key] = _fm_denominator(job, self.local_gb)
        else:
            self._base[key] = _r(job)
            self._mo[key] = _mo(job, self.local_gb)

    def keys(self, jobs: np.ndarray, now: int) -> np.ndarray:
        """The priority keys of simulator keys ``jobs`` at ``now`` (smaller runs first)."""
        base = self._base[jobs]
        if self.name in _STATIC:
            return base
        submit = self._submit[jobs]
        if self.name in ("fair", "fm"):
            return (submit - now) / base
        ratio = (now - submit) / base
        if self.name == "fm_code":
            return -ratio / self._mo[jobs]
        return -_cube(ratio) * self._procs[jobs]  # wfp3

    def order(self, jobs: np.ndarray, now: int) -> np.ndarray:
        """Simulator keys ``jobs`` sorted by ``(key at now, submit, job id)``: a sort on the key
        alone where ``jobs`` come in ``(submit, id)`` order (the simulator's queue)."""
        submit, ids = self._submit[jobs], self._id[jobs]
        if not _by_arrival(submit, ids):
            return jobs[np.lexsort((ids, submit, self.keys(jobs, now)))]
        if self.name == "wfp3":
            places = self._wfp3_order(jobs, now)
            if places is not None:
                return jobs[places]
        return jobs[np.argsort(self.keys(jobs, now), kind="stable")]

    def _wfp3_order(self, jobs: np.ndarray, now: int) -> np.ndarray | None:
        """The places of ``jobs`` (in ``(submit, id)`` order) sorted by WFP3's key, ties by place.

        Sorted by the estimate ``-(x * x * x) n`` first; each run of neighbours whose estimates
        lie within :data:`_CUBE_SLACK` of each other (ties included), which the exact keys
        might order otherwise, is sorted again by the exact keys. Keys farther apart keep
        their order: the exact cube and the estimate are each within 2 ulp of ``x**3``, and
        ``a - slack |a|`` grows with ``a``. ``None`` if an estimate overflows.
        """
        ratio = (now - self._submit[jobs]) / self._base[jobs]
        procs = self._procs[jobs]
        estimate = -(ratio * ratio * ratio) * procs
        if not np.isfinite(estimate).all():
            return None
        places = np.argsort(estimate)
        near = estimate[places]
        linked = np.diff(near) <= _CUBE_SLACK * (np.abs(near[:-1]) + np.abs(near[1:]))
        if linked.any():
            member = np.zeros(len(places), dtype=bool)
            member[:-1] |= linked
            member[1:] |= linked
            run = np.cumsum(np.concatenate(([True], ~linked)))  # the run of each sorted place
            sel = np.flatnonzero(member)
            chosen = places[sel]
            exact = -_cube(ratio[chosen]) * procs[chosen]
            places[sel] = chosen[np.lexsort((chosen, exact, run[sel]))]
        return places


def _cube(ratio: np.ndarray) -> np.ndarray:
    """WFP3's cube as the Python key takes it: ``float ** int`` (libm ``pow``), which numpy's
    ``power`` need not call."""
    return np.fromiter(map(pow, ratio.tolist(), repeat(3)), dtype=np.float64, count=len(ratio))


def _by_arrival(submit: np.ndarray, ids: np.ndarray) -> bool:
    """Whether the pairs ``(submit, id)`` ascend strictly."""
    later = np.diff(submit)
    return bool(np.all((later > 0) | ((later == 0) & (np.diff(ids) > 0))))
