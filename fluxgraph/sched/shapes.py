"""Job shapes: how a :class:`~fluxgraph.workload.Job` becomes a jobspec for the matcher.

A shape builds the jobspec model directly (no YAML, no schema validation) and caches it per
distinct request, so a trace of 28,000 jobs with 300 distinct sizes builds 300 models.

``node``
    ``node[p] (exclusive) > slot[1] > core[C]``: ``p`` whole nodes, each with all ``C`` cores
    of a node; ``p = job.nodes`` when the trace gives it, else ``ceil(procs / C)``.
``core``
    ``slot[p] > core[1]``: ``p = procs`` cores anywhere.
``node-core``
    ``node[n] > slot[1] > core[c]`` (shared nodes): ``n = job.nodes`` (or ``ceil(procs / C)``)
    nodes with ``c = ceil(procs / n)`` cores each.

Every shape adds, inside the slot, ``memory[m]`` (``m = ceil(job.memory)`` GB per node; per
slot for ``core``) when the job asks for memory, and ``gpu[g]`` for ``job.extra["gpus"]``. A
slot is exclusive, so with the matcher's semantics it takes *whole* memory vertices (each
selected vertex's full size): jobs share a node's memory only where the machine splits it into
several vertices;
``job.extra`` amounts named in ``pools`` (``bb``, ``ssd``, ``pfs_bw``...) become top-level
requests of that type, each ``ceil(amount)`` units. With the matcher's (Fluxion's) semantics a
request outside the slot is *shared*: it needs a pool at least that large but books nothing, so
jobs never queue for it. To make jobs consume a pool, split it into chunk vertices and request
chunks inside an exclusive slot, as the BBSched shapes do (``fluxgraph/papers/bbsched``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from fluxgraph.errors import SimulationError
from fluxgraph.jobspec.model import Attributes, Jobspec, Resource, SystemAttributes, Task
from fluxgraph.workload import Job

__all__ = ["SHAPES", "JobShape", "RequestKey", "make_shape"]

#: ``(kind, count, per-unit cores, memory, gpus, pools)``: two jobs with equal keys get one
#: jobspec. ``count`` is the only field a shape's requests are monotone in (see
#: :meth:`JobShape.family`).
RequestKey = tuple

_TASK = (Task(("fluxgraph-sim",), "task", None),)


def _slot(children: tuple[Resource, ...], count: int = 1) -> Resource:
    return Resource("slot", count, label="task", with_=children)


def _extras(memory: int, gpus: int) -> tuple[Resource, ...]:
    out = []
    if memory:
        out.append(Resource("memory", memory))
    if gpus:
        out.append(Resource("gpu", gpus))
    return tuple(out)


@dataclass
class JobShape:
    """One shape (see the module docstring) bound to a machine's cores per node.

    Parameters
    ----------
    kind : ``node``, ``core`` or ``node-core``.
    cores_per_node : the machine's cores per node (``node`` and the node counts use it).
    pools : ``job.extra`` keys requested as top-level pool resources of the same type.

    Examples
    --------
    >>> from fluxgraph.workload import Job
    >>> shape = JobShape("node", cores_per_node=4)
    >>> js = shape.jobspec(Job(1, 0, 10, 20, procs=6))
    >>> js.totals
    (('node', 2), ('slot', 2), ('core', 8))
    >>> shape.jobspec(Job(2, 0, 5, 20, procs=8)) is js   # one model per distinct request
    True
    """

    kind: str
    cores_per_node: int = 1
    pools: tuple[str, ...] = ()
    _cache: dict[tuple, Jobspec] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in SHAPES:
            raise SimulationError(f"unknown job shape {self.kind!r} (valid: {', '.join(SHAPES)})")
        if self.cores_per_node < 1:
            raise SimulationError(f"cores_per_node must be >= 1, got {self.cores_per_node}")

    def key(self, job: Job) -> RequestKey:
        """The request ``job`` makes, as a hashable key (equal keys, equal jobspecs)."""
        cpn = self.cores_per_node
        memory = math.ceil(job.memory) if job.memory > 0 else 0
        gpus = int(job.extra.get("gpus", 0) or 0) if job.extra else 0
        pools = tuple(
            (name, math.ceil(job.extra[name]))
            for name in self.pools
            if job.extra and job.extra.get(name, 0)
        )
        if self.kind == "core":
            return ("core", job.procs, 1, memory, gpus, pools)
        nodes = job.nodes if job.nodes > 0 else math.ceil(job.procs / cpn)
        per_node = cpn if self.kind == "node" else min(cpn, math.ceil(job.procs / nodes))
        return (self.kind, nodes, per_node, memory, gpus, pools)

    @staticmethod
    def family(key: RequestKey) -> tuple[tuple, int]:
        """``(family, count)``: within a family, a larger count is a strictly harder request.

        If ``count`` units of a family cannot be placed, ``count + 1`` cannot either, which
        lets one scheduling pass skip requests that provably fail.
        """
        return (key[0], *key[2:]), key[1]

    def jobspec(self, job: Job) -> Jobspec:
        """The (cached) jobspec of ``job``; its duration is the job's walltime."""
        key = self.key(job)
        full = (key, job.walltime)
        js = self._cache.get(full)
        if js is None:
            js = self._cache[full] = _build(key, job.walltime)
        return js


def _build(key: RequestKey, walltime: int) -> Jobspec:
    kind, count, per_node, memory, gpus, pools = key
    extras = _extras(memory, gpus)
    if kind == "core":
        top: tuple[Resource, ...] = (_slot((Resource("core", 1), *extras), count),)
    else:
        slot = _slot((Resource("core", per_node), *extras))
        top = (Resource("node", count, exclusive=True if kind == "node" else None, with_=(slot,)),)
    top += tuple(Resource(name, amount) for name, amount in pools)
    system = SystemAttributes(duration=float(walltime))
    return Jobspec(1, top, _TASK, Attributes(system))


#: Shape name -> one-line description.
SHAPES: Mapping[str, str] = MappingProxyType(
    {
        "node": "exclusive whole nodes: node[p] > slot > core[C]",
        "core": "cores anywhere: slot[p] > core[1]",
        "node-core": "shared nodes with c cores each: node[n] > slot > core[c]",
    }
)


def make_shape(kind: str, cores_per_node: int, pools: tuple[str, ...] = ()) -> JobShape:
    """A :class:`JobShape` (raises :class:`SimulationError` naming the valid shapes)."""
    return JobShape(kind, cores_per_node, pools)
