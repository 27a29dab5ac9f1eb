"""The static-queue driver of the variation-aware case study (spec §4.1) and Eq. 2's fom.

The paper's set-up has no clock: every job of the queue, in id order, gets one
``allocate_orelse_reserve`` match at time 0, i.e. the earliest start at which it fits after the
jobs before it (conservative backfilling in one pass, spec §9.4). Each job takes whole nodes:
``node[n, exclusive] -> slot[1] -> socket[S] -> core[C]`` with ``system.duration`` = its
walltime. :func:`run_static_queue` records per job the node ids, the start (0 = allocated now),
the wall time of the match call and its preorder visits.

The figure of merit (Eq. 2) of a job is ``max(P_j) - min(P_j)`` over the classes ``P_j`` of its
nodes, for allocated and reserved jobs alike (:func:`figure_of_merit`); Table 1 is the count of
jobs per fom value (:func:`fom_histogram`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from errno import ENODEV
from typing import Any

from fluxgraph.errors import SimulationError
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.writers.sink import MatchWriter

__all__ = [
    "JobRecord",
    "figure_of_merit",
    "fom_histogram",
    "node_jobspec",
    "run_static_queue",
]


@dataclass(frozen=True, slots=True)
class JobRecord:
    """One job of a static-queue run.

    Attributes
    ----------
    id, nodes, walltime : the job (``nodes`` requested).
    start : its start time, -1 when rejected (unsatisfiable: ENODEV).
    node_ids : the ``node`` vertices' logical ids, ascending (empty when rejected).
    seconds : wall time of the match call (the Fig. 7b series).
    preorder : preorder visits of the match call.
    """

    id: int
    nodes: int
    walltime: int
    start: int
    node_ids: tuple[int, ...]
    seconds: float
    preorder: int

    @property
    def reserved(self) -> bool:
        """True when the job starts later than time 0 (a reservation)."""
        return self.start > 0


class _NodeIds(MatchWriter):
    """A match writer keeping only the logical ids of selected ``node`` vertices."""

    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids: list[int] = []

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        if graph.types[v] == "node":
            self.ids.append(graph.ids[v])


def node_jobspec(
    nodes: int,
    walltime: int,
    sockets: int = 2,
    cores: int = 18,
    classes: Sequence[int] = (),
) -> Any:
    """The jobspec of a whole-node job (spec §4.1 step 2), loaded: ``node[nodes, exclusive] ->
    slot[1] -> socket[sockets] -> core[cores]``, or ``-> core[cores]`` when ``sockets`` is 0
    (a machine whose nodes hold one core pool). ``classes``: only nodes of these performance
    classes (the constraint ``{"or": [{"properties": ["pc<p>"]}, ...]}`` of spec §4.3).

    >>> js = node_jobspec(4, 600)
    >>> js.resources[0].type, js.resources[0].count_min, int(js.duration)
    ('node', 4, 600)
    """
    leaf = {"type": "core", "count": cores}
    inner = {"type": "socket", "count": sockets, "with": [leaf]} if sockets else leaf
    slot = {"type": "slot", "label": "default", "count": 1, "with": [inner]}
    system: dict[str, Any] = {"duration": walltime}
    if classes:
        system["constraints"] = {"or": [{"properties": [f"pc{p}"]} for p in classes]}
    return load_jobspec(
        {
            "version": 9999,
            "resources": [{"type": "node", "count": nodes, "exclusive": True, "with": [slot]}],
            "attributes": {"system": system},
            "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
        }
    )


def run_static_queue(
    matcher: Matcher,
    jobs: Iterable[Any],
    *,
    sockets: int = 2,
    cores: int = 18,
    jobspec: Callable[[Any], Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    slack: float = 0.0,
) -> list[JobRecord]:
    """Match every job of ``jobs`` once, in order, with ``allocate_orelse_reserve`` at time 0.

    ``slack`` > 0 is class packing's start-time budget ``S`` (spec §4.3 step 2; seconds): a
    job that the matcher's policy would spread over a window of ``w`` classes at its earliest
    start ``T_any`` (one ``without_allocating_future`` probe) tries each narrower window of
    consecutive classes, narrowest first; the window with the earliest start ``T_W <= T_any +
    S`` (then the lowest class) is committed under its constraint. With the ``classpack``
    policy this is spec §4.3 for any ``S`` (the policy alone offers ``S`` = 0 and ``inf``).

    Parameters
    ----------
    matcher : a fresh matcher on the machine (its graph carries the node classes).
    jobs : records with ``id``, ``nodes`` and ``walltime`` (e.g. a :class:`Workload`).
    sockets, cores : the per-node shape of :func:`node_jobspec` (``sockets=0``: a core pool).
    jobspec : a job -> loaded jobspec override (the parity test reads the reference's files).
    clock : the timer of each match call.

    Raises
    ------
    SimulationError
        When a match fails for a reason other than an unsatisfiable request (ENODEV).

    Examples
    --------
    >>> from fluxgraph.machines import build_machine
    >>> from fluxgraph.workload import Job
    >>> m = Matcher(build_machine("nodes=4,cores=1"), policy="low")
    >>> jobs = [Job(1, 0, 10, 10, nodes=3), Job(2, 0, 5, 5, nodes=2)]
    >>> [(r.start, r.node_ids) for r in run_static_queue(m, jobs, sockets=0, cores=1)]
    [(0, (0, 1, 2)), (10, (0, 1))]
    """
    if slack < 0:
        raise SimulationError(f"static queue: slack must be >= 0, got {slack}")
    shapes: dict[tuple[int, int], Any] = {}
    records = []
    classes: dict[int, int] = {}  # node logical id -> performance class
    booked: dict[int, list[tuple[int, int]]] = {}  # node logical id -> committed spans
    if slack > 0:
        graph = matcher.graph
        for v in graph.by_type.get("node", ()):
            classes[graph.ids[v]] = int(graph.properties[v].get("perf_class", 0))
    for job in jobs:
        if jobspec is not None:
            spec = jobspec(job)
        else:
            spec = shapes.get((job.nodes, job.walltime))
            if spec is None:
                spec = node_jobspec(job.nodes, job.walltime, sockets, cores)
                shapes[job.nodes, job.walltime] = spec
        writer = _NodeIds()
        started = clock()
        probes = 0
        if slack > 0:
            spec, probes = _within_slack(
                matcher, job, spec, slack, classes, booked, (sockets, cores)
            )
        out = matcher.run(spec, "allocate_orelse_reserve", job.id, writer, 0)
        seconds = clock() - started
        if out.rc != 0 and out.errno != ENODEV:
            raise SimulationError(f"static queue: job {job.id}: match failed (errno {out.errno})")
        start = out.at if out.rc == 0 else -1
        ids = tuple(sorted(writer.ids)) if out.rc == 0 else ()
        records.append(
            JobRecord(job.id, job.nodes, job.walltime, start, ids, seconds, out.preorder + probes)
        )
        if slack > 0:
            for i in ids:
                booked.setdefault(i, []).append((start, start + job.walltime))
    return records


def _within_slack(
    matcher: Matcher,
    job: Any,
    spec: Any,
    slack: float,
    classes: dict[int, int],
    booked: dict[int, list[tuple[int, int]]],
    shape: tuple[int, int],
) -> tuple[Any, int]:
    """The jobspec to commit for ``job`` under start-time budget ``slack`` (see
    :func:`run_static_queue`; ``classes``: node id -> class; ``booked``: node id -> the
    ``[start, end)`` spans of the jobs committed so far) and the preorder visits of the probe.

    A window's earliest start ``T_W`` comes from ``booked`` (the exact pre-filter spec §4.3
    allows): the first time from ``T_any`` on, among ``T_any`` and the ends of spans, at which
    ``n`` of its nodes are free for the walltime; the matcher then places the job under the
    chosen window's constraint.
    """
    writer = _NodeIds()
    out = matcher.run(spec, "without_allocating_future", job.id, writer, 0)
    if out.rc != 0:
        return spec, out.preorder
    spread = [classes[i] for i in writer.ids]
    width = max(spread) - min(spread)
    members: dict[int, list[int]] = {}
    for node, p in classes.items():
        members.setdefault(p, []).append(node)
    order = sorted(members)
    n, d, t_any = job.nodes, job.walltime, out.at
    for w in range(width):
        best: tuple[int, int] | None = None
        for a in order:
            window = [p for p in order if a <= p <= a + w]
            nodes = [v for p in window for v in members[p]]
            if len(nodes) < n:
                continue
            t_w = _earliest(nodes, booked, n, d, t_any, t_any + slack)
            if t_w is not None and (best is None or (t_w, a) < best):
                best = (t_w, a)
        if best is not None:
            window = [p for p in order if best[1] <= p <= best[1] + w]
            return node_jobspec(n, d, *shape, window), out.preorder
    return spec, out.preorder


def _earliest(
    nodes: list[int], booked: dict[int, list[tuple[int, int]]], n: int, d: int, lo: int, hi: float
) -> int | None:
    """The earliest ``t`` in ``[lo, hi]`` (``lo`` or a span's end) at which ``n`` of ``nodes``
    are free over ``[t, t + d)``; None if there is none."""
    spans = [booked.get(v, ()) for v in nodes]
    times = sorted({lo} | {e for sp in spans for _, e in sp if lo < e <= hi})
    for t in times:
        free = 0
        for sp in spans:
            if all(e <= t or s >= t + d for s, e in sp):
                free += 1
                if free >= n:
                    return t
    return None


def figure_of_merit(node_ids: Iterable[int], classes: Sequence[int]) -> int:
    """Eq. 2: ``max(P_j) - min(P_j)`` over the classes of the job's nodes (``classes[id]``).

    >>> figure_of_merit([0, 2, 3], [1, 5, 2, 3])
    2
    """
    ps = [classes[n] for n in node_ids]
    return max(ps) - min(ps)


def fom_histogram(
    records: Iterable[JobRecord], classes: Sequence[int], nclasses: int = 5
) -> list[int]:
    """Table 1's row: the number of matched jobs with fom 0, 1, ..., ``nclasses - 1``.

    >>> r = JobRecord(1, 2, 60, 0, (0, 1), 0.0, 0)
    >>> fom_histogram([r], [1, 3])
    [0, 0, 1, 0, 0]
    """
    row = [0] * nclasses
    for r in records:
        if r.node_ids:
            row[figure_of_merit(r.node_ids, classes)] += 1
    return row
