"""One BBSched run: a method on an analogue's workload, through the simulator (spec §7).

:func:`simulate_method` builds the machine (the ``-ssd`` recipe for S5-S7), the workload, the
:class:`~fluxgraph.papers.bbsched.window.WindowPass` and the simulator on a
:class:`~fluxgraph.papers.bbsched.allocator.BBAllocator` (match policy ``lonodex``: lowest node ids
first, so small SSD requests land on the 128-GB nodes; pruning by node, core and bb
aggregates), runs it and returns the records with the pass.
:func:`run_case` adds the §6 metrics and decision-time statistics.

>>> from fluxgraph.workload import Job
>>> jobs = [Job(i, 10 * i, 50, 60, 30, 30, extra={"bb": 90_000}) for i in range(6)]
>>> out = run_case(jobs, "bbsched-kth", "BBSched", window=(0, 100))
>>> round(out["node_usage"], 2), out["rejected"]
(0.57, 0.0)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.allocator import BBAllocator
from fluxgraph.papers.bbsched.ga import GAParams
from fluxgraph.papers.bbsched.machine import RECIPES, BBMachine
from fluxgraph.papers.bbsched.methods import make_method
from fluxgraph.papers.bbsched.metrics import bin_waits, offered_loads, run_metrics
from fluxgraph.papers.bbsched.window import WindowPass, wfp
from fluxgraph.sched import Simulator
from fluxgraph.sched.records import SimulationResult
from fluxgraph.workload import Job

__all__ = ["PRUNE", "RunOptions", "percentile", "run_case", "simulate_method"]

#: Pruning filters of every run: the cluster's aggregates reject a request early.
PRUNE = "ALL:node,ALL:core,ALL:bb"


@dataclass(frozen=True)
class RunOptions:
    """Settings of one run (spec §7 defaults)."""

    window: int = 20
    starve_bound: int = 50
    base: str = "fcfs"
    generations: int = 500
    population: int = 20
    mutation: float = 0.0005
    ga_variant: str = "paper"
    exact_below: int = 10
    decision: str = "paper"
    ga_seed: int = 1
    verify: bool = False
    policy: str = "lonodex"
    starve: str = "pass"
    fastpath: str = "auto"


def simulate_method(
    jobs: Sequence[Job], machine: BBMachine | str, method: str, options: RunOptions | None = None
) -> tuple[SimulationResult, WindowPass]:
    """Run ``method`` on ``jobs``; returns the simulator's result and the pass."""
    o = options or RunOptions()
    m = RECIPES[machine] if isinstance(machine, str) else machine
    extra: dict[str, Any] = {}
    if method == "BBSched":
        ga = GAParams(o.generations, o.population, o.mutation, o.ga_variant)
        extra = {"ga": ga, "exact_below": o.exact_below, "decision": o.decision}
        extra["ga_seed"] = o.ga_seed
    scheduler = WindowPass(
        m, make_method(method, **extra), o.window, o.starve_bound, verify=o.verify, starve=o.starve
    )
    if o.base not in ("fcfs", "wfp"):
        raise SimulationError(f"unknown base scheduler {o.base!r} (valid: fcfs, wfp)")
    sim = Simulator(
        None,
        jobs,
        priority="fcfs" if o.base == "fcfs" else wfp,
        scheduler=scheduler,
        allocator=BBAllocator(m, o.policy, PRUNE, o.fastpath),
    )
    return sim.run(), scheduler


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def run_case(
    jobs: Sequence[Job],
    machine: BBMachine | str,
    method: str,
    window: tuple[int, int],
    options: RunOptions | None = None,
    bins: bool = False,
) -> dict[str, float]:
    """:func:`simulate_method` plus the §6 metrics over ``window``, decision times (ms) and
    the amendment's D4 columns (offered node and BB load over ``window``, the share of passes
    with a forced job, optimiser calls = ``decisions``, mean candidates); with ``bins``, also
    the per-bin average waits ``wait_{size,bb,runtime}_{i}``."""
    result, scheduler = simulate_method(jobs, machine, method, options)
    m = RECIPES[machine] if isinstance(machine, str) else machine
    out = run_metrics(result.jobs, m, window)
    out.update(offered_loads(jobs, m, window))
    if bins:
        for by in ("size", "bb", "runtime"):
            for i, value in enumerate(bin_waits(result.jobs, window, by).values()):
                out[f"wait_{by}_{i}"] = value
    times = [t * 1000 for t in scheduler.decision_times]
    out.update(
        {
            "rejected": float(sum(r.rejected for r in result.jobs)),
            "decisions": float(len(times)),
            "decisions_in_window": float(
                sum(window[0] <= t < window[1] for t in scheduler.decision_at)
            ),
            "decision_median_ms": statistics.median(times) if times else float("nan"),
            "decision_mean_ms": statistics.fmean(times) if times else float("nan"),
            "decision_p99_ms": percentile(times, 99),
            "mean_candidates": statistics.fmean(scheduler.window_sizes)
            if scheduler.window_sizes
            else 0.0,
            "starvation_violations": float(scheduler.stats["violations"]),
            "forced": float(scheduler.stats["forced_started"] + scheduler.stats["forced_reserved"]),
            "passes": float(scheduler.stats["passes"]),
            "forced_share": scheduler.stats["forced_passes"] / max(1, scheduler.stats["passes"]),
        }
    )
    return out
