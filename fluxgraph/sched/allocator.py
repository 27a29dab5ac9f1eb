"""Allocators: how the simulator books a job's resources on the machine.

The simulator owns time, the queue and the runtime model; an :class:`Allocator` owns the
machine's state and answers three questions for it: can this job ever run (:meth:`check`),
book it now or at its earliest start (:meth:`allocate`), and give its resources back
(:meth:`release`). The default, :class:`MatcherAllocator`, turns a job into one jobspec (its
:class:`~fluxgraph.sched.shapes.JobShape`) and books it with one matcher call on the graph. A
paper whose allocation takes several bookings (memory lent from other nodes, storage from the
job's chassis rabbit) writes its own allocator over the same graph and keeps the simulator,
queue policies, priorities, metrics and outputs.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from errno import ENODEV
from typing import TYPE_CHECKING, Protocol

from fluxgraph.errors import SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.jobspec.model import Jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.sched.shapes import JobShape
from fluxgraph.workload import Job

if TYPE_CHECKING:
    from fluxgraph.traverser.fastpath import FlatNodes

__all__ = ["Allocation", "Allocator", "MatcherAllocator"]


@dataclass(frozen=True, slots=True)
class Allocation:
    """A booking: its start ``at``, node ranks, cores, and ``(vertex, type, units)`` of every
    other vertex it holds (memory, pools, and the cluster/racks on the path to them)."""

    at: int
    nodes: tuple[int, ...]
    cores: int
    held: tuple[tuple[int, str, int], ...] = ()


class Allocator(Protocol):
    """The machine as the simulator books it (see the module docstring).

    ``jobid`` is the simulator's booking id: unique per :meth:`allocate` call, the key
    :meth:`release` gets back. Bookings hold their resources over ``[at, at + walltime)``.

    Optional hook: an allocator with ``retime(jobid, run)`` is called, after each event time's
    finishes and after its pass, for every job that started then and every running job the
    runtime model re-timed (``run`` is the :class:`~fluxgraph.sched.runtime.RunningJob`, its
    ``end`` already moved), so it can move the booking (a job slowed past its walltime keeps its
    resources). The simulator first cancels the reservations it still holds.
    """

    total_nodes: int
    total_cores: int

    def check(self, job: Job) -> str:
        """``""`` if the empty machine can run ``job``, else the reason it never can."""
        ...

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        """Book ``job`` at ``now``; failing that, if ``reserve``, at its earliest start."""
        ...

    def release(self, jobid: int) -> None:
        """Give back booking ``jobid`` (a running job's or a reservation's)."""
        ...

    def family(self, job: Job) -> tuple[object, int] | None:
        """``(family, count)``: within a family a larger count is strictly harder to place
        (lets one pass skip requests that provably fail); ``None`` when there is no such order."""
        ...


class _Selection:
    """A match writer keeping node ranks, cores and every other selected vertex."""

    __slots__ = ("cores", "held", "nodes", "rank_of", "types")

    def __init__(self, rank_of: list[int], types: list[str]) -> None:
        self.rank_of = rank_of
        self.types = types
        self.nodes: list[int] = []
        self.cores = 0
        self.held: list[tuple[int, str, int]] = []

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        t = self.types[v]
        if t == "node":
            self.nodes.append(self.rank_of[v])
        elif t == "core":
            self.cores += needs
        else:
            self.held.append((v, t, needs))

    def emit_edg(self, graph, e, excl_parent) -> None:
        return None

    def emit_tm(self, start: int, end: int) -> None:
        return None

    def emit_attrs(self, key: str, value: str) -> None:
        return None


def node_ranks(graph: ResourceGraph) -> list[int]:
    """Each vertex's rank (its ``rank`` field, else its ``id``): how outputs name nodes."""
    return [r if r >= 0 else i for r, i in zip(graph.ranks, graph.ids, strict=True)]


class MatcherAllocator:
    """One jobspec per job (its ``shape``), booked by one matcher call on ``graph``
    (``fastpath`` and ``defer_reservations``: the matcher's, see
    :class:`~fluxgraph.matcher.Matcher`; the allocator owns ``graph``'s scheduling state, so the
    fast path's reservations are written into its planners only when something reads them).

    >>> from fluxgraph.machines import build_machine
    >>> alloc = MatcherAllocator(build_machine("nodes=2,cores=4"), JobShape("node", 4))
    >>> alloc.allocate(Job(1, 0, 10, 10, procs=8), 1, now=0, reserve=False)
    Allocation(at=0, nodes=(0, 1), cores=8, held=((0, 'cluster', 1),))
    >>> alloc.allocate(Job(2, 0, 10, 10, procs=4), 2, now=0, reserve=True).at
    10
    >>> alloc.check(Job(3, 0, 10, 10, procs=12))
    'unsatisfiable: the machine can never hold this request'
    """

    def __init__(
        self,
        graph: ResourceGraph,
        shape: JobShape,
        policy: str = "first",
        prune: str = "ALL:node,ALL:core",
        fastpath: str = "auto",
        defer_reservations: bool = True,
    ) -> None:
        nodes = graph.by_type.get("node", [])
        if not nodes:
            raise SimulationError("the machine has no node vertices")
        self.graph = graph
        self.shape = shape
        self.matcher = Matcher(
            graph,
            policy=policy,
            prune=prune,
            fastpath=fastpath,
            defer_reservations=defer_reservations,
        )
        self.total_nodes = len(nodes)
        self.total_cores = len(graph.by_type.get("core", []))
        self._rank_of = node_ranks(graph)
        self._checked: dict[object, str] = {}
        #: reservations the matcher's fast path booked (the ones :meth:`keep` may vouch for)
        self._fast_reserved: set[int] = set()
        #: id(job) -> (job, its jobspec, its family): a pass asks for both again and again
        self._asked_for: dict[int, tuple[Job, Jobspec, tuple[object, int]]] = {}

    def _asked(self, job: Job) -> tuple[Job, Jobspec, tuple[object, int]]:
        got = self._asked_for.get(id(job))
        if got is None or got[0] is not job:
            key = self.shape.key(job)
            got = self._asked_for[id(job)] = (job, self.shape.jobspec(job), self.shape.family(key))
        return got

    def check(self, job: Job) -> str:
        key = self.shape.key(job)  # satisfiability does not depend on the duration
        reason = self._checked.get(key)
        if reason is None:
            out = self.matcher.run(self.shape.jobspec(job), "satisfiability", 0, None, 0)
            if out.rc == 0:
                reason = ""
            elif out.errno == ENODEV:
                reason = "unsatisfiable: the machine can never hold this request"
            else:
                reason = f"invalid request (errno {out.errno})"
            self._checked[key] = reason
        return reason

    def allocate(self, job: Job, jobid: int, now: int, reserve: bool) -> Allocation | None:
        sel = _Selection(self._rank_of, self.graph.types)
        op = "allocate_orelse_reserve" if reserve else "allocate"
        fast = self.matcher.traverser.fastpath
        used = -1 if fast is None else fast.used
        out = self.matcher.run(self._asked(job)[1], op, jobid, sel, now)
        if out.rc != 0:
            return None
        if out.at > now and fast is not None and fast.used > used:
            self._fast_reserved.add(jobid)
        return Allocation(out.at, tuple(sel.nodes), sel.cores, tuple(sel.held))

    def release(self, jobid: int) -> None:
        self._fast_reserved.discard(jobid)
        self.matcher.cancel(jobid)

    def keep(self, jobid: int, now: int) -> bool:
        """Whether reservation ``jobid`` is what cancelling it and booking its job again at
        ``now`` would give, when the caller knows the job's earliest start cannot have moved
        (then the matcher's learned order is updated as that booking would update it).

        Only reservations the fast path booked are vouched for, on a matcher without a verify
        twin (:meth:`fluxgraph.traverser.fastpath.FlatNodes.reselects` decides).
        """
        fast = self._vouching(jobid)
        return fast is not None and fast.reselects(jobid, now)

    def _vouching(self, jobid: int) -> FlatNodes | None:
        """The matcher's fast path where it may vouch for reservation ``jobid`` (one it booked,
        on a matcher without a verify twin, which would not see the learned order move)."""
        fast = self.matcher.traverser.fastpath
        if jobid not in self._fast_reserved or self.matcher.verifying:
            return None
        return fast

    def stands(self, jobid: int, now: int, ignore: Collection[int]) -> bool:
        """Whether reservation ``jobid`` is what booking its job again at ``now`` would give,
        when the caller knows that booking meets the state the reservation was made on (the
        same running jobs and earlier reservations; ``ignore``, the reservations made after
        it, cancelled): always where the match policy learns no order (its choice is a
        function of that state) or the learned order has not moved since it was chosen, else
        when the fast path chooses the same nodes under the order learned since (re-keyed then
        as the booking would re-key it)."""
        if not self.matcher.policy.stop_on_k:
            return True
        fast = self._vouching(jobid)
        return fast is not None and (fast.unmoved(jobid) or fast.reselects(jobid, now, ignore))

    def family(self, job: Job) -> tuple[object, int]:
        return self._asked(job)[2]
