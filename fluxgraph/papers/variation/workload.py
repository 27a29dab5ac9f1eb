"""Inputs of the variation-aware case study (Fluxion paper §6.3): node classes and the job queue.

Both are seeded and drawn byte-identically to the steering generator
``shared/reproductions/varaware/make_inputs.py`` (spec §3.1), so a seed gives the inputs behind
the reference rows of spec §7.1:

* :func:`perf_classes`: the performance class of every node, Eq. 1 over a normalised time score
  ``t`` drawn from ``random.Random(f"perf-{seed}")``, node by node in id order: i.i.d. U(0, 1),
  or (``rack_corr`` = rho > 0) the rank of a rack-correlated Gaussian score, or ``Beta(a, b)``.
* :func:`variation_queue`: the 200-job queue from ``random.Random(f"jobs-{seed}")``: a size
  exponent ``k`` by weight, a power of two (or, with probability 0.3 and ``k >= 2``, a uniform
  size in ``(2**(k-1), 2**k]``), and a log-uniform duration snapped to a typical walltime.

The job stream does not depend on the class model, so ``--rack-corr`` or ``--tdist`` change
the classes only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from fluxgraph.errors import WorkloadError
from fluxgraph.workload.job import Job, Workload

__all__ = [
    "CLASS_BOUNDS",
    "SIZE_WEIGHTS",
    "WALLTIMES",
    "class_of",
    "perf_classes",
    "t_norms",
    "variation_queue",
]

#: Eq. 1: upper bounds of the normalised time score of classes 1..4 (class 5 above 0.60).
CLASS_BOUNDS = (0.10, 0.25, 0.40, 0.60)
#: Weight of the size exponent k = 0..8 (1 .. 256 nodes).
SIZE_WEIGHTS = (26, 10, 12, 12, 12, 10, 8, 6, 4)
#: Probability that a job of exponent k >= 2 asks for exactly 2**k nodes.
P_POWER_OF_TWO = 0.7
#: Typical walltime requests (s), 10 min .. 24 h; durations snap to the nearest in log space.
WALLTIMES = (600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 28800, 36000,
             43200, 57600, 72000, 86400)  # fmt: skip
_DMIN, _DMAX = 600, 86400


def class_of(t: float) -> int:
    """Eq. 1: the performance class (1 = fastest .. 5) of normalised time score ``t``.

    >>> [class_of(t) for t in (0.0, 0.10, 0.1001, 0.25, 0.4, 0.6, 0.61, 1.0)]
    [1, 1, 2, 2, 3, 4, 5, 5]
    """
    for p, bound in enumerate(CLASS_BOUNDS, start=1):
        if t <= bound:
            return p
    return 5


def t_norms(
    seed: int,
    nodes: int,
    *,
    nodes_per_rack: int = 62,
    rack_corr: float = 0.0,
    beta: tuple[float, float] | None = None,
) -> list[float]:
    """The normalised time score of nodes ``0 .. nodes-1`` (see the module docstring).

    Parameters
    ----------
    seed : the class stream is ``random.Random(f"perf-{seed}")``.
    nodes : how many nodes (2418 on quartz).
    nodes_per_rack : rack ``r`` holds nodes ``r*npr .. r*npr+npr-1`` (for ``rack_corr``).
    rack_corr : rho in [0, 1): latent ``z = sqrt(rho) Z_rack + sqrt(1-rho) Z_node``, ``t`` its
        percentile rank ``(rank + 0.5) / nodes`` (exact class shares); 0 = i.i.d. U(0, 1).
    beta : ``(a, b)``: ``t ~ Beta(a, b)`` i.i.d. instead (not with ``rack_corr``).

    Raises
    ------
    WorkloadError
        For ``rack_corr`` outside [0, 1), combined with ``beta``, or ``nodes`` < 1.

    >>> [round(t, 4) for t in t_norms(1, 3)]
    [0.8743, 0.0503, 0.3937]
    """
    if nodes < 1 or nodes_per_rack < 1:
        raise WorkloadError(f"variation classes: nodes={nodes}, nodes_per_rack={nodes_per_rack}")
    if not 0.0 <= rack_corr < 1.0 or (rack_corr and beta is not None):
        raise WorkloadError(f"variation classes: rack_corr={rack_corr} must be in [0, 1), no beta")
    rng = random.Random(f"perf-{seed}")
    if beta is not None:
        a, b = beta
        return [rng.betavariate(a, b) for _ in range(nodes)]
    if rack_corr == 0.0:
        return [rng.random() for _ in range(nodes)]
    racks = -(-nodes // nodes_per_rack)
    rack_effect = [rng.gauss(0.0, 1.0) for _ in range(racks)]
    a, b = math.sqrt(rack_corr), math.sqrt(1.0 - rack_corr)
    z = [a * rack_effect[n // nodes_per_rack] + b * rng.gauss(0.0, 1.0) for n in range(nodes)]
    t = [0.0] * nodes
    for rank, n in enumerate(sorted(range(nodes), key=lambda i: (z[i], i))):
        t[n] = (rank + 0.5) / nodes
    return t


def perf_classes(
    seed: int,
    nodes: int,
    *,
    nodes_per_rack: int = 62,
    rack_corr: float = 0.0,
    beta: tuple[float, float] | None = None,
) -> list[int]:
    """The Eq. 1 class of nodes ``0 .. nodes-1`` (arguments as :func:`t_norms`).

    >>> perf_classes(1, 8)
    [5, 1, 3, 4, 2, 3, 5, 5]
    """
    scores = t_norms(seed, nodes, nodes_per_rack=nodes_per_rack, rack_corr=rack_corr, beta=beta)
    return [class_of(t) for t in scores]


def _draw_nodes(rng: random.Random, weights: Sequence[int]) -> int:
    k = rng.choices(range(len(weights)), weights=weights)[0]
    if k >= 2 and rng.random() >= P_POWER_OF_TWO:
        return rng.randint(2 ** (k - 1) + 1, 2**k)
    return 2**k


def _draw_duration(rng: random.Random) -> int:
    d = math.exp(rng.uniform(math.log(_DMIN), math.log(_DMAX)))
    return min(WALLTIMES, key=lambda w: (abs(math.log(w / d)), w))


def variation_queue(
    seed: int, jobs: int = 200, size_weights: Sequence[int] = SIZE_WEIGHTS
) -> Workload:
    """The §6.3 queue: ``jobs`` jobs submitted at 0, ids 1.., runtime = walltime.

    Each job's ``nodes`` (= ``procs``) and ``walltime`` come from ``random.Random(f"jobs-{seed}")``
    (see the module docstring); ``size_weights[k]`` weighs a size exponent ``k`` (the smoke
    test of spec §8 uses the first five weights: at most 16 nodes).

    Raises
    ------
    WorkloadError
        For ``jobs`` < 1 or weights that are empty, negative or all zero.

    >>> [(j.nodes, j.walltime) for j in variation_queue(1, 3)]
    [(16, 1800), (7, 43200), (4, 1800)]
    """
    if jobs < 1 or not size_weights or min(size_weights) < 0 or sum(size_weights) <= 0:
        raise WorkloadError(f"variation queue: jobs={jobs}, size_weights={list(size_weights)}")
    rng = random.Random(f"jobs-{seed}")
    out = []
    for jid in range(1, jobs + 1):
        n = _draw_nodes(rng, size_weights)
        d = _draw_duration(rng)
        out.append(Job(jid, submit=0, runtime=d, walltime=d, procs=n, nodes=n))
    return Workload.of(out, name=f"variation-seed{seed}")
