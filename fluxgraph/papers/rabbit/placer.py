"""Rabbit storage placement: node-local, global Lustre and storage-only jobs (Fluxion §5.1).

A job becomes up to three kinds of matcher requests (rabbit spec §4.4), all committed at one
start time ``t`` and released together:

1. *compute*: ``slot[N] -> {node[1], ssd[g], nvme_ns[f]}`` (``g`` GiB of node-local storage per
   node in whole chunks of the node's own chassis rabbit, one namespace per file system), or a
   plain ``node[N]`` without node-local storage;
2. *ost*, per Lustre file system of ``C`` GiB: ``chassis[R] -> {ssd[ceil(C/R)], nvme_ns[1]}``
   with ``R = min(M, max(R_own, ceil(C / ost_target_gib), 1))``;
3. *mgt*, per Lustre file system: ``chassis[1] -> {mgt_ip[1], nvme_ns[1]}``.

The :class:`~fluxgraph.policies.rabbit.RabbitStorage` policy orders the chassis (``compute``:
``pack`` or ``spread``; ``lustre``: ``own-first``, ``any``, or ``coral2``, which folds each Lustre
file system of a job with nodes into the per-node ``ssd`` of phase 1 instead of phases 2-3).
Start times tried: now, then every later start or end of a placed job; the first where every
phase succeeds wins. A job no start time satisfies is unsatisfiable. Every rejection names its
reason (:data:`REASONS`).

>>> from fluxgraph.papers.rabbit.elcap import ELCAP_TINY, elcap
>>> from dataclasses import astuple
>>> placer = RabbitPlacer(elcap(*astuple(ELCAP_TINY)), ost_target_gib=200)
>>> p = placer.place(1, StorageRequest(nodes=2, walltime=3600, node_local_gib=(150,)), now=0)
>>> p.nodes, p.node_local
((0, 1), {0: (2, 4, 2)})
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from errno import EBUSY, ENODEV

from fluxgraph.errors import MatchError
from fluxgraph.graph import STATUS_UP, ResourceGraph
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.papers.rabbit.directives import StorageRequest
from fluxgraph.policies.rabbit import COMPUTE_MODES, RabbitStorage

__all__ = [
    "LUSTRE_MODES",
    "REASONS",
    "RabbitPlacer",
    "StoragePlacement",
    "StorageRejected",
    "StorageRequest",
]

#: Where global (Lustre) storage goes: own chassis first, any rabbit, or flux-coral2's folding.
LUSTRE_MODES = ("own-first", "any", "coral2")
#: What a rejection can name.
REASONS = ("ssd capacity", "namespaces", "mgt_ip", "nodes")
#: The prune filters storage matching needs (spec §2.2).
RABBIT_PRUNE = "ALL:core,ALL:node,ALL:ssd"


class StorageRejected(MatchError):
    """A job that cannot be placed: ``phase`` failed for ``reason`` (one of :data:`REASONS`).

    ``errno`` is ENODEV when no start time can satisfy the job, EBUSY when only now fails.
    """

    def __init__(self, message: str, errno: int, phase: str, reason: str) -> None:
        super().__init__(message, errno=errno)
        self.phase = phase
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Phase:
    """One committed matcher request of a job: its kind, file-system index and vertices."""

    kind: str
    fs: int
    matcher_job: int
    vertices: tuple[int, ...]


@dataclass(slots=True)
class StoragePlacement:
    """Where and when a job's compute and storage went (ids are the graph's ``ids``).

    ``node_local``: chassis id -> (nodes, chunks, namespaces) of phase 1; ``osts``: per Lustre
    file system, chassis id -> chunks; ``mgts``: per file system, the chassis of its MGT.
    """

    jobid: int
    start: int
    end: int
    reserved: bool
    nodes: tuple[int, ...] = ()
    node_local: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    osts: list[dict[int, int]] = field(default_factory=list)
    mgts: list[int] = field(default_factory=list)
    phases: list[Phase] = field(default_factory=list)
    #: The reason the job could not start at the time it was placed ("" if it started then).
    delayed_by: str = ""
    #: Chunks held (all phases).
    chunks: int = 0
    #: The request's nodes and (node-local, Lustre) capacities.
    request_nodes: int = 0
    request_storage: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())


@dataclass(slots=True)
class _Rabbit:
    chassis: int
    nodes: list[int] = field(default_factory=list)
    ssds: list[int] = field(default_factory=list)
    namespaces: list[int] = field(default_factory=list)
    mgt_ips: list[int] = field(default_factory=list)


class _PhaseFailed(Exception):
    def __init__(self, phase: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.phase, self.reason, self.message = phase, reason, message


class RabbitPlacer:
    """Place storage requests on a rabbit machine (see the module docstring).

    Parameters
    ----------
    graph : a rabbit machine (:func:`fluxgraph.papers.rabbit.elcap.elcap` layout).
    compute : ``"pack"`` or ``"spread"``.
    lustre : one of :data:`LUSTRE_MODES`.
    ost_target_gib : Lustre capacity per OST rabbit before another rabbit is added.
    node_with : the per-node contents of the compute request (jobspec ``with`` list).
    """

    def __init__(
        self,
        graph: ResourceGraph,
        compute: str = "pack",
        lustre: str = "own-first",
        ost_target_gib: int = 4096,
        node_with: tuple[dict, ...] = (),
    ) -> None:
        if compute not in COMPUTE_MODES or lustre not in LUSTRE_MODES or ost_target_gib < 1:
            raise MatchError(
                f"rabbit placer: compute in {COMPUTE_MODES}, lustre in {LUSTRE_MODES} and "
                f"ost_target_gib >= 1 needed, got {compute!r}, {lustre!r}, {ost_target_gib}"
            )
        self.graph = graph
        self.lustre = lustre
        self.ost_target_gib = ost_target_gib
        self.node_with = list(node_with)
        self.policy = RabbitStorage(compute)
        self.matcher = Matcher(graph, policy=self.policy, prune=RABBIT_PRUNE)
        self.rabbits = self._inventory(graph)
        self.chassis_of = {
            v: r.chassis
            for r in self.rabbits.values()
            for v in (*r.nodes, *r.ssds, *r.namespaces, *r.mgt_ips)
        }
        sizes = {graph.sizes[v] for r in self.rabbits.values() for v in r.ssds}
        if len(sizes) != 1:
            raise MatchError(f"rabbit placer: chunks must have one size, found {sorted(sizes)}")
        self.chunk_gib = sizes.pop()
        self.total_nodes = sum(len(r.nodes) for r in self.rabbits.values())
        self.total_chunks = sum(len(r.ssds) for r in self.rabbits.values())
        self.jobs: dict[int, StoragePlacement] = {}
        #: request shape -> why it is unsatisfiable (None: satisfiable); see :meth:`check`
        self._unsatisfiable: dict[tuple, _PhaseFailed | None] = {}
        self._times: Counter[int] = Counter()
        self._jobspecs: dict[tuple, object] = {}

    @staticmethod
    def _inventory(graph: ResourceGraph) -> dict[int, _Rabbit]:
        rabbits = {ch: _Rabbit(ch) for ch in graph.by_type.get("chassis", ())}
        if not rabbits:
            raise MatchError("rabbit placer: the graph has no chassis")
        slots = {"node": "nodes", "ssd": "ssds", "nvme_ns": "namespaces", "mgt_ip": "mgt_ips"}
        for ch, rabbit in rabbits.items():
            for e in graph.child_edges("containment")[ch]:
                v = graph.edge_dst[e]
                name = slots.get(graph.types[v])
                if name is not None:
                    getattr(rabbit, name).append(v)
        return rabbits

    # -- placing -------------------------------------------------------------------------------

    def place(self, jobid: int, request: StorageRequest, now: int, reserve: bool = True):
        """Allocate ``request`` now, or (``reserve``) at the earliest start time that fits.

        Returns the :class:`StoragePlacement`; its ``delayed_by`` names why it could not start now.

        Raises
        ------
        StorageRejected
            ENODEV when no start time can satisfy the job; EBUSY when it does not fit now and
            ``reserve`` is False (then :meth:`check` tells whether it ever can). Nothing is
            booked.
        """
        if jobid in self.jobs:
            raise MatchError(f"rabbit placer: job {jobid} is already placed")
        times = [now]
        if reserve:
            times += sorted(t for t in self._times if t > now)
        first: _PhaseFailed | None = None
        for t in times:
            try:
                if not reserve or t != times[-1]:  # (the last time decides satisfiability)
                    self._may_fit(request, t)
                phases = self._try_at(request, t, now)
            except _PhaseFailed as err:
                first, last = first or err, err
                continue
            p = self._record(jobid, request, t, now, phases)
            p.delayed_by = first.reason if first else ""
            return p
        if reserve:  # the last time tried has every placed job ended
            msg = f"job {jobid} is unsatisfiable: {last.message}"
            raise StorageRejected(msg, ENODEV, last.phase, last.reason)
        msg = f"job {jobid} does not fit now: {first.message}"
        raise StorageRejected(msg, EBUSY, first.phase, first.reason)

    def check(self, jobid: int, request: StorageRequest, now: int) -> None:
        """Raise ENODEV :class:`StorageRejected` if ``request`` can never be placed.

        Tries the time after every placed job has ended (everything free) and books nothing.
        The answer is remembered per request shape (nodes and capacities): the machine's
        up/down status must not change under a placer.
        """
        shape = (request.nodes, request.node_local_gib, request.lustre_gib)
        failure = self._unsatisfiable.get(shape, False)
        if failure is False and not self.lustre_phases(request):
            failure = self._compute_failure(request, now)  # phase 1 alone: the arithmetic
            self._unsatisfiable[shape] = failure
        if failure is False:
            t = max(self._times, default=now)
            try:
                self._release_phases(self._try_at(request, max(t, now), now))
                failure = None
            except _PhaseFailed as err:
                failure = err
            self._unsatisfiable[shape] = failure
        if failure is not None:
            msg = f"job {jobid} is unsatisfiable: {failure.message}"
            raise StorageRejected(msg, ENODEV, failure.phase, failure.reason)

    def may_start_before(self, jobid: int, now: int) -> bool:
        """Whether placed job ``jobid`` might start earlier than its placement if placed again
        at ``now`` (some earlier start time passes the node and chunk counts without it)."""
        p = self.jobs[jobid]
        req = StorageRequest(p.request_nodes, p.end - p.start, *p.request_storage)
        for t in [now, *sorted(t for t in self._times if now < t < p.start)]:
            try:
                self._may_fit(req, t, ignore=jobid)
            except _PhaseFailed:
                continue
            return True
        return False

    def _may_fit(self, req: StorageRequest, t: int, ignore: int | None = None) -> None:
        """Raise :class:`_PhaseFailed` unless enough nodes and chunks are not held by placements
        overlapping ``[t, t + walltime)``: a necessary condition that spares the matcher."""
        end = t + req.walltime
        need = req.nodes * math.ceil(self.per_node_gib(req) / self.chunk_gib)
        if self.lustre_phases(req):
            need += sum(math.ceil(c / self.chunk_gib) for c in req.lustre_gib)
        overlapping = [
            p for p in self.jobs.values() if p.start < end and p.end > t and p.jobid != ignore
        ]
        held_nodes = held_chunks = 0  # the most held at once: at t or where a placement starts
        for point in {t, *(p.start for p in overlapping if p.start > t)}:
            active = [p for p in overlapping if p.start <= point < p.end]
            held_nodes = max(held_nodes, sum(len(p.nodes) for p in active))
            held_chunks = max(held_chunks, sum(p.chunks for p in active))
        free_nodes = self.total_nodes - held_nodes
        free_chunks = self.total_chunks - held_chunks
        window = f"during [{t}, {end})"
        if req.nodes > free_nodes:
            message = f"nodes: {free_nodes} nodes free {window}; the job asks {req.nodes}"
            raise _PhaseFailed("compute", "nodes", message)
        if need > free_chunks:
            phase = "compute" if req.nodes and self.per_node_gib(req) else "ost"
            message = f"ssd capacity: {free_chunks} chunks free {window}; the job needs {need}"
            raise _PhaseFailed(phase, "ssd capacity", message)

    def release(self, jobid: int) -> None:
        """Free every phase of ``jobid`` (at its end, or a persistent file system's destroy).

        Raises
        ------
        MatchError
            If the job is unknown.
        """
        p = self.jobs.pop(jobid, None)
        if p is None:
            raise MatchError(f"rabbit placer: unknown job {jobid}")
        self._release_phases(p.phases)
        for t in (p.start, p.end):
            self._times[t] -= 1
            if not self._times[t]:
                del self._times[t]

    def _release_phases(self, phases: list[Phase]) -> None:
        for ph in phases:
            self.matcher.cancel(ph.matcher_job)

    # -- the phases at one start time -----------------------------------------------------------

    def _try_at(self, req: StorageRequest, t: int, now: int) -> list[Phase]:
        committed: list[Phase] = []
        try:
            nodes_in: Counter[int] = Counter()
            if req.nodes:
                ph = self._phase_compute(req, t, now)
                committed.append(ph)
                types = self.graph.types
                nodes_in.update(self.chassis_of[v] for v in ph.vertices if types[v] == "node")
            if self.lustre_phases(req):
                for i, gib in enumerate(req.lustre_gib):
                    ost = self._phase_ost(req, i, gib, nodes_in, t, now)
                    committed.append(ost)
                    committed.append(self._phase_mgt(req, i, ost, nodes_in, t, now))
        except _PhaseFailed:
            self._release_phases(committed)
            raise
        return committed

    def _commit(self, kind: str, fs: int, spec: tuple, t: int, now: int, walltime: int) -> Phase:
        key = (spec, walltime)
        js = self._jobspecs.get(key)
        if js is None:
            js = self._jobspecs[key] = load_jobspec(_jobspec(spec, walltime, self.node_with))
        try:
            r = self.matcher.match(js, "allocate", now=now, at=t if t > now else None)
        except MatchError:
            return None
        return Phase(kind, fs, r.job_id, tuple(sorted(v.vid for v in r.resources)))

    def lustre_phases(self, req: StorageRequest) -> bool:
        """Whether ``req`` gets OST and MGT phases (always, except Lustre folded into the nodes'
        chunks in ``coral2`` mode; a storage-only job has no nodes to fold it into)."""
        return bool(req.lustre_gib) and (self.lustre != "coral2" or not req.nodes)

    def per_node_gib(self, req: StorageRequest) -> int:
        """``g``: node-local GiB per node (plus each Lustre share in ``coral2`` mode)."""
        g = sum(req.node_local_gib)
        if self.lustre == "coral2" and req.nodes:
            g += sum(math.ceil(c / req.nodes) for c in req.lustre_gib)
        return g

    def _phase_compute(self, req: StorageRequest, t: int, now: int) -> Phase:
        g, f = self.per_node_gib(req), len(req.node_local_gib)
        if g:  # the §4.4 arithmetic decides phase 1 exactly (tests/rabbit checks it): no walk
            reason, message, serve = self._explain_compute(req, g, f, t)
            if serve < req.nodes:
                raise _PhaseFailed("compute", reason, message)
        ph = self._commit("compute", 0, ("compute", req.nodes, g, f), t, now, req.walltime)
        if ph is None:
            reason, message, _ = self._explain_compute(req, g, f, t)
            raise _PhaseFailed("compute", reason, message)
        return ph

    def _phase_ost(self, req, fs: int, gib: int, nodes_in, t: int, now: int) -> Phase:
        count = min(len(self.rabbits), max(len(nodes_in), math.ceil(gib / self.ost_target_gib), 1))
        share = math.ceil(gib / count)
        keys = {}
        for ch, rabbit in self.rabbits.items():
            free = -self._free(rabbit.ssds, t, req.walltime)
            own = nodes_in.get(ch, 0)
            keys[ch] = (free,) if self.lustre == "any" else (own == 0, -own, free)
        self.policy.chassis_key = keys
        ph = self._commit("ost", fs, ("ost", count, share), t, now, req.walltime)
        if ph is None:
            need = math.ceil(share / self.chunk_gib)
            by_ssd = [
                r for r in self.rabbits.values() if self._free(r.ssds, t, req.walltime) >= need
            ]
            ok = [r for r in by_ssd if self._free(r.namespaces, t, req.walltime) >= 1]
            reason = "ssd capacity" if len(by_ssd) < count else "namespaces"
            raise _PhaseFailed(
                "ost",
                reason,
                f"{reason}: Lustre {gib} GiB over {count} rabbits needs {need} free chunks of "
                f"{self.chunk_gib} GiB and a namespace on each; only {len(ok)} rabbits qualify "
                f"during [{t}, {t + req.walltime})",
            )
        return ph

    def _phase_mgt(self, req, fs: int, ost: Phase, nodes_in, t: int, now: int) -> Phase:
        holds = {v for v in ost.vertices if v in self.rabbits}
        self.policy.chassis_key = {
            ch: (ch not in holds, -nodes_in.get(ch, 0)) for ch in self.rabbits
        }
        ph = self._commit("mgt", fs, ("mgt",), t, now, req.walltime)
        if ph is None:
            free_ip = [r for r in self.rabbits.values() if self._free(r.mgt_ips, t, req.walltime)]
            reason = "namespaces" if free_ip else "mgt_ip"
            raise _PhaseFailed(
                "mgt",
                reason,
                "mgt_ip: no rabbit with a free Lustre MGS address (mgt_ip) during the window "
                f"[{t}, {t + req.walltime})"
                if reason == "mgt_ip"
                else f"namespaces: no rabbit with a free mgt_ip has a free namespace during "
                f"[{t}, {t + req.walltime})",
            )
        return ph

    # -- explanations (spec §4.4 failure arithmetic) --------------------------------------------

    def _free(self, vertices: list[int], t: int, duration: int) -> int:
        """How many of ``vertices`` are up and wholly free during ``[t, t + duration)``."""
        g = self.graph
        plans, sizes, status = g.schedule.plans, g.sizes, g.status
        n = 0
        for v in vertices:
            p = plans[v]
            if status[v] == STATUS_UP and (
                p is None or p.avail_resources_during(t, duration) == sizes[v]
            ):
                n += 1
        return n

    def _compute_failure(self, req: StorageRequest, now: int) -> _PhaseFailed | None:
        """Whether phase 1 alone fails on the machine with everything free (spec §4.4: iff
        the sum over chassis of a_c is below N); None if it fits."""
        g, f = self.per_node_gib(req), len(req.node_local_gib)
        t = max(self._times, default=now)
        reason, message, serve = self._explain_compute(req, g, f, max(t, now))
        return _PhaseFailed("compute", reason, message) if serve < req.nodes else None

    def _explain_compute(self, req: StorageRequest, g: int, f: int, t: int):
        """The §4.4 failure arithmetic at ``t``: (reason, message, nodes it can serve)."""
        d, n_req = req.walltime, req.nodes
        per_node = math.ceil(g / self.chunk_gib) if g else 0
        free_nodes = by_ssd = serve = 0
        for r in self.rabbits.values():
            n = self._free(r.nodes, t, d)
            s = self._free(r.ssds, t, d) // per_node if g else n
            k = self._free(r.namespaces, t, d) // f if f else n
            free_nodes += n
            by_ssd += min(n, s)
            serve += min(n, s, k)
        window = f"during [{t}, {t + d})"
        if free_nodes < n_req or not g:
            message = f"nodes: {free_nodes} nodes free {window}; the job asks {n_req}"
            return "nodes", message, min(serve, free_nodes)
        reason = "ssd capacity" if by_ssd < n_req else "namespaces" if serve < n_req else "nodes"
        rabbit = next(iter(self.rabbits.values()))
        message = (
            f"{reason}: node-local storage {g} GiB/node needs {per_node} chunks of "
            f"{self.chunk_gib} GiB and {f} namespaces per node; a chassis has "
            f"{len(rabbit.ssds)} chunks and {len(rabbit.namespaces)} namespaces for its "
            f"{len(rabbit.nodes)} nodes; the machine can serve {serve} such nodes {window}; "
            f"the job asks {n_req}"
        )
        return reason, message, serve

    # -- bookkeeping ----------------------------------------------------------------------------

    def _record(self, jobid, req: StorageRequest, t: int, now: int, phases) -> StoragePlacement:
        g = self.graph
        ids, types = g.ids, g.types
        p = StoragePlacement(jobid, t, t + req.walltime, t > now, phases=phases)
        for ph in phases:
            per: Counter[int] = Counter()
            if ph.kind == "compute":
                nodes, chunks, spaces = Counter(), Counter(), Counter()
                for v in ph.vertices:
                    table = {"node": nodes, "ssd": chunks, "nvme_ns": spaces}.get(types[v])
                    if table is not None:
                        table[ids[self._chassis(v)]] += 1
                p.nodes = tuple(sorted(ids[v] for v in ph.vertices if types[v] == "node"))
                if chunks or spaces:
                    p.node_local = {c: (nodes[c], chunks[c], spaces[c]) for c in sorted(nodes)}
            elif ph.kind == "ost":
                per.update(ids[self._chassis(v)] for v in ph.vertices if types[v] == "ssd")
                p.osts.append(dict(sorted(per.items())))
            else:
                p.mgts.extend(ids[self._chassis(v)] for v in ph.vertices if types[v] == "mgt_ip")
        p.chunks = sum(1 for ph in phases for v in ph.vertices if types[v] == "ssd")
        p.request_nodes, p.request_storage = req.nodes, (req.node_local_gib, req.lustre_gib)
        self.jobs[jobid] = p
        self._times.update((p.start, p.end))
        return p

    def _chassis(self, v: int) -> int:
        return self.chassis_of[v]


def _jobspec(spec: tuple, walltime: int, node_with: list[dict]) -> dict:
    """The jobspec of one phase: ``("compute", N, g, f)``, ``("ost", R, q)`` or ``("mgt",)``."""
    kind = spec[0]
    if kind == "compute":
        _, count, g, f = spec
        node = {"type": "node", "count": count if g == 0 else 1}
        if node_with:
            node["with"] = node_with
        if g == 0:
            resources = [{**node, "exclusive": True}]
        else:
            members = [node, _excl("ssd", g)]
            if f:
                members.append(_excl("nvme_ns", f))
            resources = [{"type": "slot", "count": count, "label": "rabbit", "with": members}]
    elif kind == "ost":
        _, count, share = spec
        members = [_excl("ssd", share), _excl("nvme_ns", 1)]
        resources = [{"type": "chassis", "count": count, "with": members}]
    else:
        members = [_excl("mgt_ip", 1), _excl("nvme_ns", 1)]
        resources = [{"type": "chassis", "count": 1, "with": members}]
    return {
        "version": 9999,
        "resources": resources,
        "tasks": [{"command": ["app"], "slot": "rabbit", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": walltime}},
    }


def _excl(rtype: str, count: int) -> dict:
    return {"type": rtype, "count": count, "exclusive": True}
