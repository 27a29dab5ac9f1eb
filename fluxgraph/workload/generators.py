"""Synthetic workloads: the Lublin–Feitelson model of rigid parallel jobs, Poisson and uniform.

Every generator draws from its own :class:`random.Random` (``seed`` or ``rng``; never the
module-level one), so equal seeds give equal workloads.

The Lublin–Feitelson model (U. Lublin and D. G. Feitelson, "The workload on parallel
supercomputers: modeling the characteristics of rigid jobs", JPDC 63(11), 2003) draws, for
each job:

* its **size**: serial with probability ``serial_prob``; otherwise ``u`` from a two-stage
  uniform distribution on log2(size) (``U(ulow, umed)`` with probability ``uprob``, else
  ``U(umed, uhi)``, ``uhi = log2(max_procs)``, ``umed = uhi - umed_gap``), and size
  ``2**round(u)`` with probability ``pow2_prob`` (a power of two), else ``round(2**u)``;
* its **run time**: ``ln(runtime)`` is hyper-gamma, ``Gamma(a1, b1)`` with probability
  ``p = pa * size + pb`` (clipped to [0, 1]) and ``Gamma(a2, b2)`` otherwise, so larger jobs run
  longer; capped at ``e**max_log_runtime`` s;
* its **arrival**: the day is cut into 48 half hours; half hour ``k`` gets the weight of the
  ``Gamma(anum, bnum)`` mass of the unit interval around ``x_k`` = ``cycle_offset`` + half hours
  from ``day_start`` (the daily low point), normalised to a mean of 1 "point" per second. A job
  arrives after ``exp(Gamma(aarr * arar, barr))`` points (at most ``e**max_log_interarrival``)
  have been paid, busy half hours paying faster. Time 0 is midnight.

:class:`LublinParams` holds the published parameters of the model's whole-sample (typeless)
variant. ``day_start`` is not a published value: it places the low point at 04:30 so that the
daily profile matches the model's published output (``lublin_256.swf`` of the Parallel
Workloads Archive: fewest arrivals at 3-5 h, most at noon-13 h).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import MappingProxyType

from fluxgraph.errors import WorkloadError
from fluxgraph.workload.job import Job, Workload

__all__ = ["LublinParams", "daily_rates", "lublin", "poisson", "uniform"]

_HALF_HOUR = 1800
_BUCKETS = 48


@dataclass(frozen=True)
class LublinParams:
    """Parameters of the Lublin–Feitelson model (defaults: the published whole-sample values).

    Attributes
    ----------
    serial_prob : probability of a serial (1-processor) job.
    pow2_prob : probability that a parallel job's size is a power of two.
    ulow, umed_gap, uprob : two-stage uniform on log2(size): ``U(ulow, uhi - umed_gap)`` with
        probability ``uprob``, else ``U(uhi - umed_gap, uhi)``.
    a1, b1, a2, b2 : shape and scale of the two gammas of ``ln(runtime)``.
    pa, pb : the first gamma's probability is ``pa * size + pb``.
    aarr, barr, arar : ``ln(inter-arrival points)`` is ``Gamma(aarr * arar, barr)``.
    anum, bnum : shape and scale of the gamma giving the daily arrival profile.
    cycle_offset : the gamma's argument at the start of the cyclic day (in half hours).
    day_start : the hour the cyclic day starts, its arrival low point (calibrated, see module).
    max_log_runtime, max_log_interarrival : caps on the logs (runtimes <= e**12 s ~ 45 h).

    Examples
    --------
    >>> p = LublinParams()
    >>> p.serial_prob, p.a2 * p.b2, LublinParams(serial_prob=0.5).serial_prob
    (0.244, 9.36, 0.5)
    """

    serial_prob: float = 0.244
    pow2_prob: float = 0.576
    ulow: float = 0.8
    umed_gap: float = 2.5
    uprob: float = 0.86
    a1: float = 4.2
    b1: float = 0.94
    a2: float = 312.0
    b2: float = 0.03
    pa: float = -0.0054
    pb: float = 0.78
    aarr: float = 10.2303
    barr: float = 0.4871
    arar: float = 1.0225
    anum: float = 8.1737
    bnum: float = 3.9631
    cycle_offset: float = 11.0
    day_start: float = 4.5
    max_log_runtime: float = 12.0
    max_log_interarrival: float = 13.0


def _gamma_cdf(x: float, shape: float, scale: float) -> float:
    """``P(X <= x)`` for ``X ~ Gamma(shape, scale)`` (regularised lower incomplete gamma)."""
    z = x / scale
    if z <= 0:
        return 0.0
    log_front = shape * math.log(z) - z - math.lgamma(shape)
    if z < shape + 1:  # the power series converges quickly here
        term = total = 1.0 / shape
        n = 0
        while term > total * 1e-16:
            n += 1
            term *= z / (shape + n)
            total += term
        return total * math.exp(log_front)
    # the continued fraction of the upper tail, evaluated by the modified Lentz method
    tiny = 1e-300
    b = z + 1 - shape
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        a = -i * (i - shape)
        b += 2
        d = a * d + b
        d = d if abs(d) > tiny else tiny
        c = b + a / c
        c = c if abs(c) > tiny else tiny
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return 1.0 - math.exp(log_front) * h


def daily_rates(params: LublinParams | None = None) -> tuple[float, ...]:
    """Arrival speed of each half hour of the day (0 = 00:00-00:30), with a mean of 1.

    A half hour with rate 2 sees arrivals twice as often as the daily average.

    Examples
    --------
    >>> r = daily_rates()
    >>> len(r), round(sum(r) / len(r), 6), r.index(max(r)) // 2, r.index(min(r)) // 2
    (48, 1.0, 13, 4)
    """
    p = params or LublinParams()
    weights = []
    for k in range(_BUCKETS):
        x = p.cycle_offset + (k + 0.5 - 2 * p.day_start) % _BUCKETS
        weights.append(_gamma_cdf(x + 0.5, p.anum, p.bnum) - _gamma_cdf(x - 0.5, p.anum, p.bnum))
    mean = sum(weights) / _BUCKETS
    return tuple(w / mean for w in weights)


def _rng(seed: int, rng: random.Random | None, source: str) -> random.Random:
    if rng is None:
        return random.Random(seed)
    if not isinstance(rng, random.Random):
        raise WorkloadError(f"rng must be a random.Random, not {type(rng).__name__}", source)
    return rng


def _check(ok: bool, message: str, source: str) -> None:
    if not ok:
        raise WorkloadError(message, source)


def lublin(
    n_jobs: int,
    max_procs: int = 256,
    seed: int = 0,
    *,
    rng: random.Random | None = None,
    params: LublinParams | None = None,
) -> Workload:
    """``n_jobs`` jobs of the Lublin–Feitelson model for a machine of ``max_procs`` processors.

    Parameters
    ----------
    n_jobs : how many jobs.
    max_procs : the machine size; sizes never exceed it (``uhi = log2(max_procs)``).
    seed : seed of the generator's own random stream (ignored when ``rng`` is given).
    rng : a :class:`random.Random` to draw from instead.
    params : the model's parameters (default: the published ones).

    Returns
    -------
    Workload
        Jobs ``1..n_jobs``; ``walltime = runtime`` (the model has no user estimates),
        ``nodes = 0``; metadata ``generator``, ``MaxProcs`` and ``seed``.

    Examples
    --------
    >>> w = lublin(1000, max_procs=128, seed=1)
    >>> len(w), w.max_procs, max(j.procs for j in w) <= 128, w == lublin(1000, 128, seed=1)
    (1000, 128, True, True)
    >>> round(sum(j.procs == 1 for j in w) / len(w), 1)
    0.2
    """
    source = "lublin"
    _check(isinstance(n_jobs, int) and n_jobs >= 0, f"n_jobs must be >= 0, not {n_jobs}", source)
    _check(max_procs >= 1, f"max_procs must be >= 1, not {max_procs}", source)
    r = _rng(seed, rng, source)
    p = params or LublinParams()
    _check(
        0 <= p.serial_prob <= 1 and 0 <= p.pow2_prob <= 1 and 0 <= p.uprob <= 1,
        "probabilities must be within [0, 1]",
        source,
    )
    uhi = math.log2(max_procs)
    umed = min(max(uhi - p.umed_gap, p.ulow), uhi)
    rates = daily_rates(p)
    t = 0.0
    jobs = []
    for i in range(n_jobs):
        # arrival: pay exp(gamma) points, half hour by half hour
        points = math.exp(min(r.gammavariate(p.aarr * p.arar, p.barr), p.max_log_interarrival))
        while True:
            slot = int(t // _HALF_HOUR)
            rate = rates[slot % _BUCKETS]
            room = ((slot + 1) * _HALF_HOUR - t) * rate
            if points <= room:
                t += points / rate
                break
            points -= room
            t = float((slot + 1) * _HALF_HOUR)
        # size: serial, or two-stage uniform on log2(size), power of two or not
        if max_procs == 1 or r.random() < p.serial_prob:
            size = 1
        else:
            u = r.uniform(p.ulow, umed) if r.random() < p.uprob else r.uniform(umed, uhi)
            size = 2 ** round(u) if r.random() < p.pow2_prob else round(2**u)
            size = min(max(size, 1), max_procs)
        # run time: hyper-gamma on ln(runtime), the first gamma less likely for larger jobs
        first = r.random() < min(1.0, max(0.0, p.pa * size + p.pb))
        log_run = r.gammavariate(p.a1, p.b1) if first else r.gammavariate(p.a2, p.b2)
        runtime = max(1, int(math.exp(min(log_run, p.max_log_runtime))))
        jobs.append(Job(i + 1, int(t), runtime, runtime, size))
    metadata = {"generator": "lublin99", "MaxProcs": str(max_procs), "seed": _seed(seed, rng)}
    if p != LublinParams():
        metadata["params"] = repr(asdict(p))
    return Workload.of(jobs, name="lublin", metadata=MappingProxyType(metadata))


def _seed(seed: int, rng: random.Random | None) -> str:
    return str(seed) if rng is None else "rng"


def _synthetic(
    source: str,
    n_jobs: int,
    gap: Callable[[int], float],
    max_procs: int,
    runtime: tuple[int, int],
    overestimate: float | tuple[float, float],
    r: random.Random,
) -> list[Job]:
    """Jobs with uniform sizes and run times; job ``i`` arrives ``gap(i)`` s after job ``i-1``."""
    _check(isinstance(n_jobs, int) and n_jobs >= 0, f"n_jobs must be >= 0, not {n_jobs}", source)
    _check(max_procs >= 1, f"max_procs must be >= 1, not {max_procs}", source)
    lo, hi = runtime
    _check(1 <= lo <= hi, f"runtime must be (lo, hi) with 1 <= lo <= hi, not {runtime}", source)
    over = overestimate if isinstance(overestimate, tuple) else (overestimate, overestimate)
    _check(
        1.0 <= over[0] <= over[1],
        f"overestimate must be >= 1 (or a range (lo, hi) with 1 <= lo <= hi), not {overestimate}",
        source,
    )
    jobs = []
    t = 0.0
    for i in range(n_jobs):
        t += gap(i)
        procs = r.randint(1, max_procs)
        run = r.randint(lo, hi)
        factor = over[0] if over[0] == over[1] else r.uniform(*over)
        jobs.append(Job(i + 1, int(t), run, max(run, math.ceil(run * factor - 1e-9)), procs))
    return jobs


def poisson(
    n_jobs: int,
    rate: float = 1 / 600,
    max_procs: int = 16,
    runtime: tuple[int, int] = (60, 3600),
    overestimate: float | tuple[float, float] = 1.0,
    seed: int = 0,
    *,
    rng: random.Random | None = None,
) -> Workload:
    """``n_jobs`` jobs arriving as a Poisson process of ``rate`` jobs per second.

    Sizes are uniform on ``1..max_procs``, run times uniform on ``runtime`` (seconds, both
    ends included), walltimes ``ceil(runtime * factor)`` where ``factor`` is ``overestimate``
    or drawn uniformly from the ``(lo, hi)`` range it gives.

    Examples
    --------
    >>> w = poisson(500, rate=1 / 60, max_procs=8, runtime=(10, 100), overestimate=2.0, seed=3)
    >>> all(j.walltime == 2 * j.runtime and 1 <= j.procs <= 8 for j in w)
    True
    >>> 40 < w[-1].submit / len(w) < 80, w == poisson(500, 1 / 60, 8, (10, 100), 2.0, seed=3)
    (True, True)
    """
    _check(rate > 0, f"rate must be > 0, not {rate}", "poisson")
    r = _rng(seed, rng, "poisson")
    jobs = _synthetic(
        "poisson", n_jobs, lambda _: r.expovariate(rate), max_procs, runtime, overestimate, r
    )
    return _workload("poisson", jobs, max_procs, seed, rng)


def uniform(
    n_jobs: int,
    interval: float = 600,
    max_procs: int = 16,
    runtime: tuple[int, int] = (60, 3600),
    overestimate: float | tuple[float, float] = 1.0,
    seed: int = 0,
    *,
    rng: random.Random | None = None,
) -> Workload:
    """``n_jobs`` jobs submitted every ``interval`` seconds from 0; otherwise as :func:`poisson`.

    Examples
    --------
    >>> w = uniform(4, interval=30, max_procs=1, runtime=(5, 5), overestimate=(1.0, 1.0))
    >>> [(j.id, j.submit, j.procs, j.runtime, j.walltime) for j in w][-2:]
    [(3, 60, 1, 5, 5), (4, 90, 1, 5, 5)]
    """
    _check(interval >= 0, f"interval must be >= 0, not {interval}", "uniform")
    r = _rng(seed, rng, "uniform")
    jobs = _synthetic(
        "uniform", n_jobs, lambda i: interval if i else 0.0, max_procs, runtime, overestimate, r
    )
    return _workload("uniform", jobs, max_procs, seed, rng)


def _workload(
    name: str, jobs: list[Job], max_procs: int, seed: int, rng: random.Random | None
) -> Workload:
    metadata = {"generator": name, "MaxProcs": str(max_procs), "seed": _seed(seed, rng)}
    return Workload.of(jobs, name=name, metadata=MappingProxyType(metadata))
