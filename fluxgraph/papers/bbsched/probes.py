"""Optimiser experiments on seeded windows (spec §7: E0, E1a, E1b, E5), no simulation.

* :func:`table1_choices` -- E0: what every method selects on the Table 1 window (spec §4.8);
* :func:`random_window` -- the seeded windows of the spec's smoke check: ``n ~ U{1..32}``,
  ``b`` log-uniform on ``[5,000, 65,000]`` GB with probability 0.75 (else 0),
  ``F_N ~ U{20..100}``, ``F_B ~ U[0.2 B, B]``, every candidate individually fitting;
* :func:`ga_accuracy` -- E1b: GA against the exact front (GD, fraction of the front found,
  decision agreement) and GA time, for one ``(G, P)``;
* :func:`oracle_times` -- E1a: exhaustive enumeration time against ``k``;
* :func:`decision_times` -- E5: ``method.select`` time on the same windows for every method.

Times are CPU times (``time.process_time``): the machine is shared.

>>> table1_choices()["BBSched"]
[2, 3, 4, 5]
>>> random_window(random.Random(0), 12).size
12
"""

from __future__ import annotations

import random
import statistics
import time

from fluxgraph.papers.bbsched.decision import decide
from fluxgraph.papers.bbsched.ga import GAParams, ga_front
from fluxgraph.papers.bbsched.methods import METHODS, make_method
from fluxgraph.papers.bbsched.moo import Window
from fluxgraph.papers.bbsched.oracle import exact_front, generational_distance

__all__ = [
    "TABLE1",
    "TABLE1_EXPECTED",
    "decision_times",
    "ga_accuracy",
    "oracle_times",
    "random_window",
    "table1_choices",
]

#: Table 1 (paper §1): (nodes, BB TB) on a 100-node machine with 100 TB.
TABLE1 = ((80, 20), (10, 85), (40, 5), (10, 0), (20, 0))
#: The selections of spec §4.8 (job numbers).
TABLE1_EXPECTED = {
    "BBSched": [2, 3, 4, 5],
    "Weighted": [2, 3, 4, 5],
    "Weighted_CPU": [1, 5],
    "Weighted_BB": [2, 3, 4, 5],
    "Constrained_CPU": [1, 5],
    "Constrained_BB": [2, 3, 4, 5],
    "Bin_Packing": [1, 5],
}
NODES, POOL = 100, 188_513


def table1_choices() -> dict[str, list[int]]:
    """Job numbers each windowed method selects on Table 1 (Baseline: see the window pass)."""
    w = Window.of(list(TABLE1), 100, 100, 100, 100)
    return {
        name: [i + 1 for i in w.members(make_method(name).select(w))] for name in TABLE1_EXPECTED
    }


def random_window(rng: random.Random, k: int, chunk: int = 1) -> Window:
    """A seeded window of ``k`` individually fitting candidates (see the module docstring);
    ``chunk`` > 1 rounds requests up and the free pool down to whole chunks, as the simulator
    grants them."""
    free_nodes = rng.randint(20, 100)
    free_bb = int(rng.uniform(0.2 * POOL, POOL)) // chunk * chunk
    demands: list[tuple[int, int]] = []
    while len(demands) < k:
        n = rng.randint(1, 32)
        b = round(5000 * 13 ** rng.random()) if rng.random() < 0.75 else 0
        b = -(-b // chunk) * chunk
        if n <= free_nodes and b <= free_bb:
            demands.append((n, b))
    return Window.of(demands, free_nodes, free_bb, NODES, POOL)


#: Spec §8.2 smoke (amendment D1): the first 30 windows, first GA seed.
SMOKE_WINDOWS = 30


def _dominates(u: tuple[int, ...], v: tuple[int, ...]) -> bool:
    return all(a >= b for a, b in zip(u, v, strict=True)) and u != v


def ga_accuracy(
    generations: int,
    population: int,
    windows: int = 200,
    seeds: int = 5,
    k: int = 12,
    mutation: float = 0.0005,
    variant: str = "paper",
) -> dict[str, float]:
    """Mean GD, front fraction found, decision agreement and GA ms over windows x seeds; and
    the smoke counts of amendment D1 over the first :data:`SMOKE_WINDOWS` windows (first seed):
    ``smoke_windows``, ``smoke_infeasible`` (fronts holding an infeasible mask),
    ``smoke_dominating`` (fronts with a vector that dominates an exact one), ``smoke_xstar_f1``
    (fronts reaching the node-maximal ``f1`` of the exact front, the decision rule's ``x*``)
    and ``smoke_xstar`` (fronts holding the exact ``x*`` vector itself, ``f2`` included)."""
    gd, found_share, agree, ms = [], [], 0, []
    total = 0
    smoke = dict.fromkeys(
        ("smoke_windows", "smoke_infeasible", "smoke_dominating", "smoke_xstar_f1", "smoke_xstar"),
        0,
    )
    for index in range(windows):
        w = random_window(random.Random(index), k)
        exact = exact_front(w)
        exact_vectors = {v for _, v in exact}
        reference = decide(exact, NODES, POOL)[1]
        for seed in range(seeds):
            rng = random.Random(1 + seed)
            t0 = time.process_time()
            found = ga_front(w, rng, generations, population, mutation, variant)
            ms.append((time.process_time() - t0) * 1000)
            gd.append(generational_distance(found, exact, w))
            vectors = {v for _, v in found}
            found_share.append(len(vectors & exact_vectors) / len(exact_vectors))
            agree += decide(found, NODES, POOL)[1] == reference
            total += 1
            if index < SMOKE_WINDOWS and seed == 0:
                smoke["smoke_windows"] += 1
                smoke["smoke_infeasible"] += not all(w.evaluate([m for m, _ in found])[0])
                smoke["smoke_dominating"] += any(
                    _dominates(u, v) for u in vectors for v in exact_vectors
                )
                xstar = max(exact_vectors)
                smoke["smoke_xstar"] += xstar in vectors
                smoke["smoke_xstar_f1"] += max(v[0] for v in vectors) == xstar[0]
    return {
        "gd": statistics.fmean(gd),
        "front_found": statistics.fmean(found_share),
        "agreement": agree / total,
        "ga_median_ms": statistics.median(ms),
        **{key: float(value) for key, value in smoke.items()},
    }


def oracle_times(sizes: range | list[int], repeat: int = 3) -> dict[str, float]:
    """Median exhaustive-front seconds per ``k`` (``oracle_s.k``)."""
    out = {}
    for k in sizes:
        times = []
        for seed in range(repeat):
            w = random_window(random.Random(seed), k)
            t0 = time.process_time()
            exact_front(w)
            times.append(time.process_time() - t0)
        out[f"oracle_s.{k}"] = statistics.median(times)
    return out


def decision_times(
    method: str, k: int, windows: int = 50, generations: int = 500
) -> dict[str, float]:
    """``method.select`` milliseconds on ``windows`` seeded windows of ``k`` candidates with
    1-TB chunks, as in the runs (BBSched solves exactly up to 10 candidates)."""
    if method not in METHODS or method == "Baseline":
        raise ValueError(f"no decision to time for {method!r}")
    options = {"ga": GAParams(generations)} if method == "BBSched" else {}
    chooser = make_method(method, **options)
    ms = []
    for index in range(windows):
        w = random_window(random.Random(10_000 + index), k, chunk=1000)
        t0 = time.process_time()
        chooser.select(w)
        ms.append((time.process_time() - t0) * 1000)
    ordered = sorted(ms)
    return {
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "p99_ms": ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))],
    }
