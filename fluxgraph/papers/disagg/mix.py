"""Job mixes for the disaggregated-memory study (spec §3.2-§3.4, Zacarias et al. §V-C).

A window of a substitute trace becomes a mix in which ``X`` % of the node-hours belong to large
jobs (more than 32 GB per node): jobs are flagged large by a seeded greedy fill (§3.4 step 2),
each draws an application and its memory from the class's catalogue (§3.2 as amended: large
apps weighted by their share of the large node-hours in the authors' 50% trace, ``catalogue=
"nodehours"``, or by their job counts there, ``catalogue="jobs"``, the spec's earlier default),
and submit times are scaled to an offered load of 1.10 on ``N`` nodes (step 4). Mixes of one
window share arrivals, sizes and runtimes.

>>> from fluxgraph.workload import Job
>>> jobs = [Job(i, 100 * i, r, r, nodes=1) for i, r in enumerate([10, 30, 20, 40], start=1)]
>>> mix = make_mix(jobs, 40, nodes=1)      # 40 of the 100 node-seconds large; load 1.1
>>> [(j.id, j.submit, j.extra["large"], j.extra["mem_mib"]) for j in mix]
[(1, 0, True, 37786), (2, 30, True, 37786), (3, 61, False, 1792), (4, 91, False, 1792)]
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence
from types import MappingProxyType

from fluxgraph.errors import WorkloadError
from fluxgraph.workload import load_workload
from fluxgraph.workload.job import Job, Workload

__all__ = [
    "CATALOGUES",
    "LARGE_APPS",
    "LARGE_APPS_JOBS",
    "LOAD",
    "NORMAL_APPS",
    "flag_large",
    "make_mix",
    "map_natural",
    "map_trace",
    "natural_mix",
    "trace_mix",
    "trace_natural_mix",
    "window",
]

#: Offered load of the authors' 50% trace (sum nodes*runtime / (1024 * submit span)).
LOAD = 1.10
#: Jobs per window (the 3 windows stand for the authors' anl1-anl3 traces).
WINDOW = 2000
#: A job is large above this much memory per node (32 GB, the normal nodes' memory; §3.2).
LARGE_ABOVE_MIB = 32 * 1024
#: Natural-memory jobs needing more than this per node are dropped (spec §3.3, D16).
NATURAL_MAX_MIB = 64 * 1024

#: ``(app_id, GB per node, weight)`` of large jobs (> 32 GB per node), spec §3.2 as amended
#: (A.3): weights = per-mille shares of the large node-hours in the authors' 50% trace.
LARGE_APPS: tuple[tuple[int, float, int], ...] = (
    (36, 48.25, 306), (1, 36.9, 285), (27, 38.72, 197), (19, 37.12, 184), (16, 40.19, 18),
    (19, 49.84, 7), (17, 32.97, 4),
)  # fmt: skip
#: The same entries weighted by their job counts there (``catalogue="jobs"``, an ablation: the
#: spec's default before the amendment, 66% hpccg-49.84 by count, 0.7% by node-hours).
LARGE_APPS_JOBS: tuple[tuple[int, float, int], ...] = (
    (19, 49.84, 886), (36, 48.25, 353), (19, 37.12, 33), (1, 36.9, 32), (27, 38.72, 23),
    (17, 32.97, 7), (16, 40.19, 4),
)  # fmt: skip
#: The large catalogues by name (spec amendment A.3).
CATALOGUES = MappingProxyType({"nodehours": LARGE_APPS, "jobs": LARGE_APPS_JOBS})
#: ``(app_id, GB per node, weight)`` of normal jobs, spec §3.2.
NORMAL_APPS: tuple[tuple[int, float, int], ...] = (
    (33, 1.75, 314), (28, 27.69, 63), (6, 1.66, 18), (44, 11.34, 12), (20, 1.06, 12),
    (12, 21.09, 9), (24, 6.62, 6),
    (2, 6.19, 5), (38, 0.56, 5), (25, 0.56, 5), (29, 0.59, 5), (23, 4.78, 5), (31, 0.38, 5),
    (37, 1.75, 5),
    (27, 24.0, 4), (41, 3.84, 4), (22, 1.25, 3), (11, 0.97, 3),
    (43, 10.66, 2), (18, 3.25, 2), (3, 6.34, 2), (40, 11.53, 2), (4, 0.12, 2),
    (9, 0.19, 1), (15, 5.88, 1), (34, 6.16, 1), (10, 2.47, 1), (7, 0.47, 1), (26, 0.38, 1),
    (35, 0.47, 1),
)  # fmt: skip


def window(jobs: Iterable[Job], index: int, size: int = WINDOW) -> list[Job]:
    """Jobs ``[size*index, size*(index+1))`` in submit order (spec §3.4 step 1)."""
    ordered = sorted(jobs, key=lambda j: (j.submit, j.id))
    part = ordered[size * index : size * (index + 1)]
    if len(part) < size:
        raise WorkloadError(f"window {index} of {size} jobs: the trace has {len(ordered)} jobs")
    return part


def map_trace(jobs: Iterable[Job], per_node: int, clamp: bool = True) -> list[Job]:
    """Whole-node jobs: ``nodes = ceil(procs / per_node)``, requested >= runtime (spec §3.3).

    Jobs with runtime <= 0 or no processors are dropped; a job keeps its ``extra``.
    """
    out = []
    for j in jobs:
        if j.runtime <= 0 or j.procs <= 0:
            continue
        requested = max(j.walltime, j.runtime) if clamp else j.walltime
        nodes = math.ceil(j.procs / per_node)
        out.append(
            Job(j.id, j.submit, j.runtime, requested, procs=nodes, nodes=nodes, extra=j.extra)
        )
    return out


def flag_large(hours: Sequence[int], percent: float, seed: int) -> list[bool]:
    """Which jobs are large so that ``percent`` % of the node-hours are (spec §3.4 step 2).

    Indices are shuffled with ``random.Random(seed)`` and added while the sum stays within
    ``X*H`` (spec amendment A.3: a fill never over-provisions large work); a fill below
    ``X - 1%`` is redone with ``seed + 1`` (50 tries). ``percent = 100`` flags everything and
    ``percent = 0`` nothing.

    >>> flag_large([10, 30, 20, 40], 40, seed=1)
    [False, False, False, True]
    """
    n = len(hours)
    if percent >= 100:
        return [True] * n
    if percent <= 0:  # like X = 100: the 0.5% slack would flag the smallest jobs (R0 needs none)
        return [False] * n
    total = sum(hours)
    target = percent / 100 * total
    for attempt in range(50):
        order = list(range(n))
        random.Random(seed + attempt).shuffle(order)
        flags = [False] * n
        acc = 0
        for i in order:
            if acc + hours[i] <= target:
                flags[i] = True
                acc += hours[i]
        if acc >= target - 0.01 * total:
            return flags
    raise WorkloadError(
        f"cannot flag {percent}% of the node-hours large within [X - 1%, X] (50 tries)"
    )


def _draw(rng: random.Random, catalogue: tuple[tuple[int, float, int], ...]) -> tuple[int, float]:
    app, gb, _ = rng.choices(catalogue, weights=[w for _, _, w in catalogue])[0]
    return app, gb


def make_mix(
    jobs: Sequence[Job],
    percent: float,
    nodes: int,
    index: int = 0,
    catalogue: str = "nodehours",
) -> Workload:
    """The mix with ``percent`` % large node-hours of window ``index`` on ``nodes`` nodes.

    ``jobs`` are whole-node jobs (``nodes`` set, see :func:`map_trace`) of one window; the
    result's jobs keep their ids, sizes and runtimes and gain ``extra`` ``mem_mib``,
    ``app_id`` and ``large`` (spec §3.4 steps 2-5); large jobs draw from the
    :data:`CATALOGUES` entry ``catalogue``.
    """
    ordered, hours = _ordered(jobs)
    x = round(percent)
    large = flag_large(hours, percent, 1000 * index + x)
    rng = random.Random(7 + 1000 * index + x)
    out = _mixed(ordered, hours, large, rng, nodes, natural=False, catalogue=catalogue)
    return Workload.of(out, name=f"mix{x}-w{index}")


def map_natural(
    jobs: Iterable[Job], per_node: int = 32, max_mib: int = NATURAL_MAX_MIB
) -> tuple[list[Job], int]:
    """Whole-node jobs carrying their trace's own memory (spec §3.3, E7 on wagap; D16).

    ``nodes = max(1, ceil(procs / per_node))``, requested >= runtime, and ``extra["mem_mib"]``
    = the job's requested memory (``extra["memory_job_gb"]``, GiB per job, SWF field 10 read
    as bytes per job) divided by its nodes. Jobs with runtime <= 0 or no processors are dropped,
    and so are jobs needing more than ``max_mib`` per node; returns ``(jobs, dropped for
    memory)``.

    >>> from fluxgraph.workload import Job
    >>> js = [Job(1, 0, 10, 20, procs=40, extra={"memory_job_gb": 80.0}),
    ...       Job(2, 5, 10, 20, procs=8, extra={"memory_job_gb": 65.0})]
    >>> kept, dropped = map_natural(js)
    >>> [(j.id, j.nodes, j.extra["mem_mib"]) for j in kept], dropped
    ([(1, 2, 40960)], 1)
    """
    out, dropped = [], 0
    for j in map_trace(jobs, per_node):
        gib = (j.extra or {}).get("memory_job_gb", 0.0)
        mem = round(gib * 1024 / j.nodes)
        if mem > max_mib:
            dropped += 1
            continue
        out.append(
            Job(j.id, j.submit, j.runtime, j.walltime, j.procs, j.nodes, extra={"mem_mib": mem})
        )
    return out, dropped


def natural_mix(
    jobs: Sequence[Job], nodes: int, index: int = 0, catalogue: str = "nodehours"
) -> Workload:
    """The natural-memory mix of window ``index`` on ``nodes`` nodes (spec §3.4 for E7).

    ``jobs`` come from :func:`map_natural` (``extra["mem_mib"]`` set). A job is large when it
    needs more than 32 GB per node; its application is drawn from its class's catalogue with
    ``random.Random(7 + 1000 * index + X)``, ``X`` the large share of the node-hours in whole
    percent, and submit times are scaled to the offered load :data:`LOAD` as in
    :func:`make_mix`. The workload's ``metadata["large_share"]`` is that share.

    >>> from fluxgraph.workload import Job
    >>> js = [Job(i, 100 * i, 10, 10, procs=1, nodes=1, extra={"mem_mib": m})
    ...       for i, m in enumerate([1024, 40960, 2048], start=1)]
    >>> mix = natural_mix(js, nodes=1)
    >>> [(j.submit, j.extra["large"], j.extra["mem_mib"]) for j in mix], mix.metadata["large_share"]
    ([(0, False, 1024), (14, True, 40960), (27, False, 2048)], '0.3333')
    """
    ordered, hours = _ordered(jobs)
    large = [j.extra["mem_mib"] > LARGE_ABOVE_MIB for j in ordered]
    share = sum(h for h, big in zip(hours, large, strict=True) if big) / sum(hours)
    rng = random.Random(7 + 1000 * index + round(100 * share))
    out = _mixed(ordered, hours, large, rng, nodes, natural=True, catalogue=catalogue)
    metadata = MappingProxyType({"large_share": f"{share:.4f}"})
    return Workload.of(out, name=f"natural-w{index}", metadata=metadata)


@functools.lru_cache(maxsize=4)
def _mapped(trace: str, per_node: int) -> tuple[Job, ...]:
    return tuple(map_trace(load_workload(trace), per_node=per_node))


def trace_mix(
    trace: str, per_node: int, jobs: int, index: int, x: int, nodes: int, catalogue: str
) -> list[Job]:
    """One cell's mix (spec §3.4): window ``index`` of ``jobs`` jobs of the trace file
    ``trace`` mapped to whole nodes of ``per_node`` processors, ``x`` % large node-hours, on
    ``nodes`` nodes. The mapped trace is cached (a grid reads each trace once)."""
    return list(make_mix(window(_mapped(trace, per_node), index, jobs), x, nodes, index, catalogue))


@functools.lru_cache(maxsize=2)
def _natural(trace: str, per_node: int) -> tuple[tuple[Job, ...], int]:
    jobs, dropped = map_natural(load_workload(trace), per_node=per_node)
    return tuple(jobs), dropped


def trace_natural_mix(
    trace: str, per_node: int, jobs: int, index: int, nodes: int, catalogue: str
) -> tuple[Workload, int]:
    """One E7 cell's natural-memory mix (:func:`natural_mix` of window ``index`` of the trace
    file mapped by :func:`map_natural`) and how many of the trace's jobs that mapping dropped."""
    kept, dropped = _natural(trace, per_node)
    return natural_mix(window(kept, index, jobs), nodes, index, catalogue), dropped


def _ordered(jobs: Sequence[Job]) -> tuple[list[Job], list[int]]:
    """A window's jobs by submit time (then id) and their node-seconds."""
    if not jobs:
        raise WorkloadError("an empty window has no mix")
    ordered = sorted(jobs, key=lambda j: (j.submit, j.id))
    return ordered, [j.nodes * j.runtime for j in ordered]


def _mixed(
    ordered: list[Job],
    hours: list[int],
    large: list[bool],
    rng: random.Random,
    nodes: int,
    natural: bool,
    catalogue: str = "nodehours",
) -> list[Job]:
    """Spec §3.4 steps 3-5: each job's application drawn from its class's catalogue with
    ``rng`` (its memory the drawn one, or its own where ``natural``), submit times scaled so
    the offered load on ``nodes`` nodes is :data:`LOAD`."""
    if catalogue not in CATALOGUES:
        raise WorkloadError(
            f"catalogue {catalogue!r} is not one of {', '.join(CATALOGUES)} (spec amendment A.3)"
        )
    large_apps = CATALOGUES[catalogue]
    first, last = ordered[0].submit, ordered[-1].submit
    scale = sum(hours) / (nodes * max(1, last - first)) / LOAD  # offered load rho0 to LOAD
    out = []
    for job, big in zip(ordered, large, strict=True):
        app, gb = _draw(rng, large_apps if big else NORMAL_APPS)
        mem = job.extra["mem_mib"] if natural else round(gb * 1024)
        extra = {"mem_mib": mem, "app_id": app, "large": big}
        submit = round((job.submit - first) * scale)
        out.append(
            Job(job.id, submit, job.runtime, job.walltime, job.procs, job.nodes, extra=extra)
        )
    return out
