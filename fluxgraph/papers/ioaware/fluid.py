"""A fluid model of a shared parallel file system: concurrent jobs share a concave aggregate
bandwidth, so every start or I/O completion moves the ends of the other running jobs.

This is fluxgraph's first dynamic :class:`~fluxgraph.sched.runtime.RuntimeModel` (spec §5 of
``reproductions/workload-adaptive-io.md``; the paper gives only the shape of its Fig. 4):

* a job is an **I/O phase** of ``streams`` writer streams, each carrying ``stream_gib`` GiB,
  followed by a **compute phase** of ``compute_s`` seconds (either may be empty); its
  ``job.extra`` holds the three numbers (see :func:`io_demand`);
* with ``S`` active streams the file system delivers ``X(S)`` GiB/s (default
  :func:`saturating`: ``B_max * (1 - exp(-b1*S/B_max))``, §5.1), every stream gets ``X(S)/S``
  (§5.2), so all streams of a job finish together;
* optional noise (§5.4): in every ``noise_period`` of simulated time the delivery is
  ``min(f*X(S), peak)`` with ``f ~ LogNormal(0, sigma)`` drawn from a seeded generator, one
  draw per period in time order (so equal seeds give equal runs whatever is queried);
* the model is exact in continuous time between the simulator's integer event times; a job's
  end is reported as the next whole second after its exact end (the simulator counts integer
  seconds), its streams stop at the exact instant.

Between events the rates are constant, and since every stream gets the same rate, the running
jobs finish their I/O in the order of their remaining per-stream work: the prediction of all
ends is one sorted sweep, redone when the set of running jobs changes
(:meth:`FluidFileSystem.retime`). The delivered throughput is kept as a step function, which
gives the measured throughput ``R_now`` (:meth:`FluidFileSystem.measured`, §5.3) and the
throughput series of the study's figures.

>>> from fluxgraph.sched.runtime import RunningJob
>>> from fluxgraph.workload import Job
>>> fs = FluidFileSystem(curve=lambda s: 2.0 * s / (1 + s))   # X(1) = 1, X(2) = 4/3 GiB/s
>>> a = Job(1, 0, 10, 100, extra={"streams": 1, "stream_gib": 4.0})
>>> b = Job(2, 0, 10, 100, extra={"streams": 1, "stream_gib": 1.0})
>>> fs.start(RunningJob(0, a, 0, (0,), 1), 0), fs.start(RunningJob(1, b, 0, (1,), 1), 0)
(4, 2)
>>> sorted(fs.retime(0))     # 2/3 GiB/s per stream: b ends at 1.5 s, a at 1.5 + 3/1 s
[(0, 5)]
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fluxgraph.errors import SimulationError
from fluxgraph.sched.runtime import RunningJob

__all__ = ["EPS", "FluidFileSystem", "IODemand", "io_demand", "saturating"]

#: Work below this (GiB per stream) or time below this (s) counts as done / simultaneous.
EPS = 1e-9


def saturating(b_max: float = 16.0, b1: float = 0.55) -> Callable[[float], float]:
    """Spec §5.1's aggregate throughput ``X(S) = b_max * (1 - exp(-b1*S/b_max))`` (GiB/s).

    Concave, ``X(0) = 0``, slope ``b1`` per stream at 0, ceiling ``b_max``.

    >>> round(saturating()(8), 3), round(saturating()(8 * 15), 2)
    (3.847, 15.74)
    """
    if b_max <= 0 or b1 <= 0:
        raise SimulationError(f"saturating curve needs b_max > 0 and b1 > 0, got {b_max}, {b1}")
    return lambda s: b_max * (1.0 - math.exp(-b1 * s / b_max))


@dataclass(frozen=True, slots=True)
class IODemand:
    """A job's work: ``streams`` writers of ``stream_gib`` GiB each, then ``compute_s`` s."""

    streams: int
    stream_gib: float
    compute_s: float

    @property
    def gib(self) -> float:
        """Bytes written, GiB."""
        return self.streams * self.stream_gib


def io_demand(extra: Mapping[str, Any]) -> IODemand:
    """The :class:`IODemand` in a job's ``extra`` (``streams``, ``stream_gib``, ``compute_s``;
    missing keys are 0).

    >>> io_demand({"streams": 8, "stream_gib": 10}).gib
    80.0
    """
    streams = int(extra.get("streams", 0) or 0)
    gib = float(extra.get("stream_gib", 0.0) or 0.0)
    compute = float(extra.get("compute_s", 0.0) or 0.0)
    if streams < 0 or gib < 0 or compute < 0:
        raise SimulationError(f"negative I/O demand in job extra {dict(extra)!r}")
    return IODemand(streams if gib > 0 else 0, gib if streams > 0 else 0.0, compute)


@dataclass(slots=True)
class _Active:
    """A running job: remaining GiB per stream, and the exact end of its I/O once known."""

    streams: int
    left: float
    compute_s: float
    io_end: float = -1.0


class FluidFileSystem:
    """The fluid file-system runtime model (see the module docstring).

    Parameters
    ----------
    curve : ``X(S)``, aggregate GiB/s for ``S`` active streams (default :func:`saturating`).
    sigma : noise spread (0: deterministic); ``seed`` seeds its generator.
    noise_period : seconds between noise draws; ``peak`` caps the noisy delivery (GiB/s).
    listeners : called as ``listener(run, now)`` when a job ends (after the model has
        advanced to ``now``), e.g. a history-based estimator.
    """

    def __init__(
        self,
        curve: Callable[[float], float] | None = None,
        sigma: float = 0.0,
        seed: int = 0,
        noise_period: float = 10.0,
        peak: float = 20.0,
        listeners: Iterable[Callable[[RunningJob, int], None]] = (),
    ) -> None:
        if sigma < 0 or noise_period <= 0:
            raise SimulationError(f"need sigma >= 0 and noise_period > 0 ({sigma}, {noise_period})")
        self.curve = curve if curve is not None else saturating()
        self.sigma = sigma
        self.noise_period = noise_period
        self.peak = peak
        self.listeners = list(listeners)
        self._rng = random.Random(seed)
        self._factors: list[float] = []
        self._active: dict[int, _Active] = {}
        self._reported: dict[int, int] = {}
        self._t = 0.0
        self._changed = False
        #: The delivered throughput as ``(from, GiB/s)`` steps, in time order (starts at 0).
        self.steps: list[tuple[float, float]] = [(0.0, 0.0)]

    # -- the RuntimeModel protocol ----------------------------------------------------------

    def start(self, run: RunningJob, now: int) -> int:
        self.advance(now)
        need = io_demand(run.job.extra)
        job = _Active(need.streams, need.stream_gib, need.compute_s)
        if job.left <= EPS:
            job.io_end = float(now)
        self._active[run.key] = job
        self._changed = True
        end = self._predict()[run.key]
        self._reported[run.key] = end
        return end

    def finish(self, run: RunningJob, now: int) -> None:
        self.advance(now)
        del self._active[run.key]
        self._reported.pop(run.key, None)
        self._changed = True
        for listener in self.listeners:
            listener(run, now)

    def retime(self, now: int) -> Iterable[tuple[int, int]]:
        if not self._changed:
            return ()
        self._changed = False
        moved = []
        reported = self._reported
        for key, end in self._predict().items():
            if reported.get(key) != end:
                reported[key] = end
                moved.append((key, end))
        return moved

    # -- throughput ---------------------------------------------------------------------------

    def factor(self, t: float) -> float:
        """The noise factor in force at time ``t`` (1 without noise)."""
        if self.sigma == 0:
            return 1.0
        k = int(t // self.noise_period)
        factors = self._factors
        while len(factors) <= k:
            factors.append(self._rng.lognormvariate(0.0, self.sigma))
        return factors[k]

    def delivered(self, streams: float, t: float) -> float:
        """Aggregate GiB/s delivered to ``streams`` active streams at time ``t``."""
        if streams <= 0:
            return 0.0
        x = self.curve(streams)
        return x if self.sigma == 0 else min(self.factor(t) * x, self.peak)

    def _next_draw(self, t: float) -> float:
        if self.sigma == 0:
            return math.inf
        return (math.floor(t / self.noise_period + EPS) + 1) * self.noise_period

    def advance(self, now: float) -> None:
        """Run the fluid I/O from the model's clock to ``now`` (never backwards)."""
        t = self._t
        if now < t - EPS:
            raise SimulationError(f"the file-system model is at {t}, asked to go back to {now}")
        active = [j for j in self._active.values() if j.left > EPS]
        while t < now - EPS:
            streams = sum(j.streams for j in active)
            rate = self.delivered(streams, t)
            self._record(t, rate)
            if not active:
                t = float(now)
                break
            per_stream = rate / streams
            step = min(now, self._next_draw(t)) - t
            soonest = min(j.left for j in active) / per_stream
            if soonest <= step + EPS:
                step = soonest
            t += step
            for j in active:
                j.left -= per_stream * step
                if j.left <= EPS:
                    j.left = 0.0
                    j.io_end = t
            active = [j for j in active if j.left > 0]
        self._t = max(self._t, float(now))
        self._record(self._t, self.delivered(sum(j.streams for j in active), self._t))

    def _record(self, t: float, rate: float) -> None:
        steps = self.steps
        if steps[-1][1] == rate:
            return
        if t - steps[-1][0] <= EPS:
            steps[-1] = (steps[-1][0], rate)
            if len(steps) > 1 and steps[-2][1] == rate:
                steps.pop()
        else:
            steps.append((t, rate))

    def measured(self, now: float, window: float = 10.0) -> float:
        """``R_now``: mean delivered GiB/s over ``[now - window, now]`` (before 0 counts 0)."""
        self.advance(now)
        return self.mean_between(now - window, now)

    def mean_between(self, t0: float, t1: float) -> float:
        """Mean delivered GiB/s over ``[t0, t1]`` (the model must have advanced to ``t1``)."""
        if t1 <= t0:
            return 0.0
        total = 0.0
        steps = self.steps
        for i in range(len(steps) - 1, -1, -1):
            begin, rate = steps[i]
            end = steps[i + 1][0] if i + 1 < len(steps) else t1
            lo, hi = max(begin, t0), min(end, t1)
            if hi > lo:
                total += rate * (hi - lo)
            if begin <= t0:
                break
        return total / (t1 - t0)

    # -- prediction ---------------------------------------------------------------------------

    def _predict(self) -> dict[int, int]:
        """Every running job's end (whole seconds) if no other job starts: one sorted sweep."""
        t = self._t
        pending = sorted(
            ((j.left, key) for key, j in self._active.items() if j.left > EPS),
            key=lambda item: item[0],
        )
        streams = sum(self._active[key].streams for _, key in pending)
        done = 0.0  # GiB per stream written since ``t`` by every still-active stream
        ends: dict[int, float] = {key: j.io_end for key, j in self._active.items() if j.left <= EPS}
        i = 0
        while i < len(pending):
            rate = self.delivered(streams, t) / streams
            left = pending[i][0] - done
            step = left / rate
            draw = self._next_draw(t)
            if t + step > draw + EPS:
                done += rate * (draw - t)
                t = draw
                continue
            t += step
            done = pending[i][0]
            while i < len(pending) and pending[i][0] - done <= EPS:
                key = pending[i][1]
                ends[key] = t
                streams -= self._active[key].streams
                i += 1
        return {
            key: math.ceil(io_end + self._active[key].compute_s - EPS)
            for key, io_end in ends.items()
        }
