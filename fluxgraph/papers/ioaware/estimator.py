"""History-based job estimates: an exponentially decaying average per job type (paper §III).

Each job type (the prototype's "variety id") keeps a record ``(c, Sr, Sd)``; an observation
``(x_r, x_d)`` (average throughput over the whole run, runtime) updates it as
``c <- 1 + (1-alpha)*c``, ``Sr <- x_r + (1-alpha)*Sr``, ``Sd <- x_d + (1-alpha)*Sd``; the
estimate is ``(Sr/c, Sd/c)`` (spec §4.2, alpha = 0.2). A type without a record is estimated at
``r = 0`` and ``d = L`` (its time limit); ``d`` outside ``(0, L)`` is replaced by ``L``.

>>> est = Estimator()
>>> est.observe("write8", 4.0, 20.0); est.observe("write8", 2.0, 40.0)
>>> r, d = est.estimate("write8", 600)
>>> round(r, 4), round(d, 4)      # the newer observation weighs 1/1.8 of the total
(2.8889, 31.1111)
>>> est.estimate("sleep", 600)
(0.0, 600)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fluxgraph.errors import SimulationError

__all__ = ["ALPHA", "Estimator"]

#: The decay of older observations (py-sim-serv's DECAY).
ALPHA = 0.2


@dataclass
class Estimator:
    """Per-type EWMA estimates of average throughput ``r`` (GiB/s) and runtime ``d`` (s)."""

    alpha: float = ALPHA
    records: dict[str, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise SimulationError(f"estimator alpha must be in (0, 1], got {self.alpha}")

    def observe(self, kind: str, rate: float, runtime: float) -> None:
        """Add one observation of type ``kind``: ``rate`` GiB/s over ``runtime`` s."""
        keep = 1.0 - self.alpha
        rec = self.records.setdefault(kind, [0.0, 0.0, 0.0])
        rec[0] = 1.0 + keep * rec[0]
        rec[1] = rate + keep * rec[1]
        rec[2] = runtime + keep * rec[2]

    def estimate(self, kind: str, limit: float) -> tuple[float, float]:
        """``(r, d)`` for a job of type ``kind`` with time limit ``limit`` (spec §4.2)."""
        rec = self.records.get(kind)
        if rec is None or rec[0] <= 0:
            return 0.0, limit
        r, d = rec[1] / rec[0], rec[2] / rec[0]
        return r, (d if 0 < d < limit else limit)
