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

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from errno import ENODEV
from typing import Any

from fluxgraph.errors import SimulationError
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.writers.sink import MatchWriter

__all__ = [
    "StaticQueueRecord",
    "figure_of_merit",
    "fom_histogram",
    "node_jobspec",
    "run_static_queue",
]


@dataclass(frozen=True, slots=True)
class StaticQueueRecord:
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

    The jobspec is validated once per shape below the node (:func:`_node_template`); each job's
    node count and duration are set on that model.

    >>> js = node_jobspec(4, 600)
    >>> js.resources[0].type, js.resources[0].count_min, int(js.duration)
    ('node', 4, 600)
    """
    template = _node_template(sockets, cores, tuple(classes))
    node = template.resources[0]
    system = template.attributes.system
    return replace(
        template,
        resources=(replace(node, count_min=nodes, count_max=nodes),),
        attributes=replace(template.attributes, system=replace(system, duration=float(walltime))),
    )


@functools.lru_cache(maxsize=64)
def _node_template(sockets: int, cores: int, classes: tuple[int, ...]) -> Any:
    """:func:`node_jobspec`'s jobspec for one node and no duration, loaded and validated."""
    leaf = {"type": "core", "count": cores}
    inner = {"type": "socket", "count": sockets, "with": [leaf]} if sockets else leaf
    slot = {"type": "slot", "label": "default", "count": 1, "with": [inner]}
    system: dict[str, Any] = {"duration": 0}
    if classes:
        system["constraints"] = {"or": [{"properties": [f"pc{p}"]} for p in classes]}
    return load_jobspec(
        {
            "version": 9999,
            "resources": [{"type": "node", "count": 1, "exclusive": True, "with": [slot]}],
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
) -> list[StaticQueueRecord]:
    """Match every job of ``jobs`` once, in order, with ``allocate_orelse_reserve`` at time 0.

    The matcher's policy decides each placement; class packing's start-time budget (spec §4.3)
    is the policy's own (``classpack:slack=1800``), not the driver's.

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
    shapes: dict[tuple[int, int], Any] = {}
    records = []
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
        out = matcher.run(spec, "allocate_orelse_reserve", job.id, writer, 0)
        visits = out.preorder
        seconds = clock() - started
        if out.rc != 0 and out.errno != ENODEV:
            raise SimulationError(f"static queue: job {job.id}: match failed (errno {out.errno})")
        start = out.at if out.rc == 0 else -1
        ids = tuple(sorted(writer.ids)) if out.rc == 0 else ()
        records.append(
            StaticQueueRecord(job.id, job.nodes, job.walltime, start, ids, seconds, visits)
        )
    return records


def figure_of_merit(node_ids: Iterable[int], classes: Sequence[int]) -> int:
    """Eq. 2: ``max(P_j) - min(P_j)`` over the classes of the job's nodes (``classes[id]``).

    >>> figure_of_merit([0, 2, 3], [1, 5, 2, 3])
    2
    """
    ps = [classes[n] for n in node_ids]
    return max(ps) - min(ps)


def fom_histogram(
    records: Iterable[StaticQueueRecord], classes: Sequence[int], nclasses: int = 5
) -> list[int]:
    """Table 1's row: the number of matched jobs with fom 0, 1, ..., ``nclasses - 1``.

    >>> r = StaticQueueRecord(1, 2, 60, 0, (0, 1), 0.0, 0)
    >>> fom_histogram([r], [1, 3])
    [0, 0, 1, 0, 0]
    """
    row = [0] * nclasses
    for r in records:
        if r.node_ids:
            row[figure_of_merit(r.node_ids, classes)] += 1
    return row
