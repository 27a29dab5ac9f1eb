"""The BB pool of each calibration (amendment D2 of the reproduction spec, §3.4).

* ``W1`` "saturated": spec §3.4's closed form with ``rho_S4`` = 1.15 (Cori analogue) / 1.00
  (Theta analogue): the recipes' pools (188,513 / 375,051 GB).
* ``W2`` "wait-scaled" (the default): the same closed form with the ``rho`` on a 1% grid of
  [0.50, 1.20] for which Baseline's mean wait over M on S4 is closest to 3.3x Baseline's mean
  wait on Original (paper §4.4: Cori-Original < 6 h, Cori-S4 19 h) on the same machine.
  :func:`wait_scaled` searches the grid by bisection (the wait ratio grows with ``rho``) and
  picks the closest point it evaluated; the runs use the result recorded in
  :data:`~fluxgraph.papers.bbsched.workloads.RHO_W2`.
* ``W3`` "multiplexed": ``copies`` shifted copies of the trace on ``copies x N`` nodes, the pool
  by W2's ``rho`` on the multiplexed trace (about ``copies x`` W2's).

>>> machine_for("kth", "W1", 1).bb, machine_for("kth", "W3", 4, bb=1000).nodes
(188513, 400)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from fluxgraph.errors import WorkloadError
from fluxgraph.papers.bbsched.machine import RECIPES, BBMachine
from fluxgraph.papers.bbsched.workloads import (
    CALIBRATIONS,
    DAY,
    RHO_W2,
    calibrate_pool,
    measurement_window,
    trace_slice,
)

__all__ = ["TARGET", "machine_for", "pool_for", "run_pool", "wait_scaled"]

#: Baseline's S4 mean wait over its Original mean wait that W2 aims at (paper §4.4: 19 h / < 6 h).
TARGET = 3.3
#: The rho grid of W2, in percent.
GRID = (50, 120)


def pool_for(analogue: str, rho: float, traces: str | Path, margin_days: float = 15) -> int:
    """The closed-form pool (GB) for ``rho`` on ``analogue``'s whole slice (spec §3.4)."""
    jobs = trace_slice(analogue, traces)
    return calibrate_pool(jobs, analogue, measurement_window(jobs, round(margin_days * DAY)), rho)


def machine_for(
    analogue: str, calibration: str, copies: int = 1, ssd: bool = False, bb: int | None = None
) -> BBMachine:
    """The machine of a run: the analogue's recipe (``-ssd`` with ``ssd``), ``copies`` times
    the nodes for W3, pool ``bb`` GB (default the recipe's, W1)."""
    if calibration not in CALIBRATIONS:
        raise WorkloadError(
            f"unknown calibration {calibration!r} (valid: {', '.join(CALIBRATIONS)})"
        )
    base = RECIPES[f"bbsched-{analogue}" + ("-ssd" if ssd else "")]
    groups = tuple((n * copies, c) for n, c in base.groups)
    name = f"{base.name}-{calibration}" + (f"x{copies}" if copies > 1 else "")
    return dataclasses.replace(base, name=name, groups=groups, bb=base.bb if bb is None else bb)


def run_pool(
    analogue: str, calibration: str, traces: str | Path, copies: int = 1, margin_days: float = 15
) -> int:
    """The pool (GB) of ``calibration`` on ``analogue`` (W3: ``copies`` times W2's work)."""
    if calibration == "W1":
        return RECIPES[f"bbsched-{analogue}"].bb
    return copies * pool_for(analogue, RHO_W2[analogue], traces, margin_days)


def wait_scaled(
    analogue: str,
    traces: str | Path,
    baseline_wait: Callable[[str, int], float],
    margin_days: float = 15,
) -> dict[str, float]:
    """W2's search: bisection on the 1% ``rho`` grid of [0.50, 1.20] for the ratio
    ``wait(S4) / wait(Original)`` (both Baseline, same pool) against :data:`TARGET`;
    ``baseline_wait(workload, pool_gb)`` runs Baseline. Returns the chosen ``rho``, its pool
    ``bb`` (GB), both waits, their ratio and how many rho values were evaluated."""
    return _search(lambda rho: pool_for(analogue, rho, traces, margin_days), baseline_wait)


def _search(
    pool: Callable[[float], int], baseline_wait: Callable[[str, int], float]
) -> dict[str, float]:
    """:func:`wait_scaled` with ``pool(rho)`` given.

    >>> fake = lambda wl, bb: 10.0 if wl == "Original" else 10.0 * 4.5e5 / bb
    >>> out = _search(lambda rho: round(1e5 / rho), fake)
    >>> out["rho"], out["bb"], out["evaluated"]
    (0.73, 136986.0, 6.0)
    """
    seen: dict[int, tuple[float, float, int]] = {}

    def at(percent: int) -> float:
        if percent not in seen:
            bb = pool(percent / 100)
            seen[percent] = (baseline_wait("Original", bb), baseline_wait("S4", bb), bb)
        original, s4, _ = seen[percent]
        return s4 / original

    lo, hi = GRID
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid) < TARGET:
            lo = mid
        else:
            hi = mid
    best = min(seen, key=lambda p: (abs(seen[p][1] - TARGET * seen[p][0]), p))
    original, s4, bb = seen[best]
    return {
        "rho": best / 100,
        "bb": float(bb),
        "wait_original": original,
        "wait_s4": s4,
        "ratio": s4 / original,
        "evaluated": float(len(seen)),
    }
