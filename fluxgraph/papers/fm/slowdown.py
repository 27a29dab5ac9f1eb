"""Remote-memory slowdown (Li et al. §III-A, FM spec §5, P1) and its runtime model.

Added latency: 180 ns for a chunk in the compute node's rack, 280 ns across racks. A job's
latency sensitivity is one of 11 ranked PARSEC-like values drawn by its ``u`` (common random
numbers); its runtime stretches by the slowdown times its remote share ``rm_ratio = k / M``:

    sld = (1 - f_cross) * S180[j] + f_cross * S280[j],  j = min(10, floor(11 u))
    d'  = ceil(d * (1 + sld * rm_ratio))

Models: ``paper`` (the above), ``none`` (``d' = d``), ``code`` (the public simulator's constant
``round(0.232 * distance * (2 - 64 / M), 2)``, no ``rm_ratio``; distance 2 when any chunk is
cross-rack).

Latency scope (spec §9 D8): ``job`` (the default) mixes the two latencies per job by its
cross-rack share, as above; ``experiment`` is §III-A3's literal "per experiment scope": every
job of a system-scope run is charged the inter-rack latency (``f_cross`` taken as 1 wherever
its chunks are), every job of a rack-scope run the intra-rack one.

>>> SlowdownModel("paper").stretch(1000, 256, 64, 0.95, 0.0)   # spec §5 example
2253
>>> literal = SlowdownModel("paper", latency_scope="experiment")
>>> literal.stretch(1000, 256, 64, 0.95, literal.latency_share(0.0, "system"))
3393
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from fluxgraph.errors import SimulationError
from fluxgraph.sched.runtime import RunningJob

__all__ = ["LATENCY_SCOPES", "MODELS", "S180", "S280", "FmRuntime", "SlowdownModel"]

#: Stand-in slowdown tables (spec §5, §9 D9): exact min, mean and max of Fig. 5.
S180 = (0.001, 0.010, 0.020, 0.040, 0.050, 0.070, 0.100, 0.140, 0.209, 1.100, 1.670)
S280 = (0.0075, 0.020, 0.035, 0.060, 0.075, 0.100, 0.140, 0.190, 0.2725, 1.740, 3.190)
MODELS = ("paper", "none", "code")
#: How a job's latency class is chosen (spec §9 D8): per job by its cross-rack share, or per
#: experiment by the pool scope.
LATENCY_SCOPES = ("job", "experiment")


@dataclass(frozen=True, slots=True)
class SlowdownModel:
    """One of :data:`MODELS`, with one of :data:`LATENCY_SCOPES`."""

    name: str = "paper"
    latency_scope: str = "job"

    def __post_init__(self) -> None:
        if self.name not in MODELS:
            raise SimulationError(f"unknown slowdown model {self.name!r} (valid: {MODELS})")
        if self.latency_scope not in LATENCY_SCOPES:
            raise SimulationError(
                f"unknown latency scope {self.latency_scope!r} (valid: {LATENCY_SCOPES})"
            )

    def latency_share(self, f_cross: float, scope: str) -> float:
        """The share of a job's chunks charged the inter-rack latency: its cross-rack share
        ``f_cross`` (``job``), or 1 in a ``system``-scope run and 0 otherwise (``experiment``).

        >>> SlowdownModel(latency_scope="experiment").latency_share(0.25, "system")
        1.0
        >>> SlowdownModel().latency_share(0.25, "system")
        0.25
        """
        if self.latency_scope == "job":
            return f_cross
        return 1.0 if scope == "system" else 0.0

    def factor(self, mem_gb: int, local_gb: int, u: float, f_cross: float) -> float:
        """The runtime multiplier minus one (``sld * rm_ratio`` for ``paper``).

        >>> round(SlowdownModel("paper").factor(128, 64, 0.0, 1.0), 5)
        0.00375
        >>> SlowdownModel("code").factor(128, 64, 0.5, 0.0)
        0.35
        """
        if mem_gb <= local_gb or self.name == "none":
            return 0.0
        if self.name == "code":
            distance = 2 if f_cross > 0 else 1
            return round(0.232 * distance * (2 - 64 / mem_gb), 2)
        j = min(10, math.floor(11 * u))
        sld = (1 - f_cross) * S180[j] + f_cross * S280[j]
        return sld * (mem_gb - local_gb) / mem_gb

    def stretch(self, runtime: int, mem_gb: int, local_gb: int, u: float, f_cross: float) -> int:
        """The stretched runtime ``d'`` in whole seconds (rounded up, §9 D23)."""
        factor = self.factor(mem_gb, local_gb, u, f_cross)
        return math.ceil(round(runtime * (1 + factor), 9)) if factor else runtime


class FmRuntime:
    """Runtime model: a job runs for the stretched runtime its booking was made for.

    ``durations`` maps a job id to ``(d', f_cross, chunks)`` of its current booking (the
    allocator fills it when it books, :class:`~fluxgraph.papers.fm.allocator.FmAllocator`);
    ``done`` keeps them per started job id for the metrics.
    """

    def __init__(self, durations: dict[int, tuple]) -> None:
        self.durations = durations
        self.done: dict[int, tuple] = {}

    def start(self, run: RunningJob, now: int) -> int:
        booking = self.durations[run.job.id]
        self.done[run.job.id] = booking
        return now + booking[0]

    def finish(self, run: RunningJob, now: int) -> None:
        return None

    def retime(self, now: int) -> Iterable[tuple[int, int]]:
        return ()
