"""The rabbit invariants (spec §6, §8), checked on a run's outcomes, from the placements alone.

No node, chunk, namespace or ``mgt_ip`` is held by two jobs at once; node-local chunks sit on
the chassis of the nodes they serve, ``ceil(g / s)`` whole chunks and ``f`` namespaces a node;
each Lustre file system gets ``R`` rabbits of equal whole chunks covering its capacity, one
namespace each, and one MGT (an ``mgt_ip`` and a namespace on one rabbit); no job starts before
its submission; every rejection names one of :data:`~fluxgraph.papers.rabbit.REASONS`.

>>> from fluxgraph.papers.rabbit import StorageRequest, elcap
>>> from fluxgraph.papers.rabbit.placer import RabbitPlacer
>>> from fluxgraph.papers.rabbit.sim import simulate
>>> from fluxgraph.papers.rabbit.workload import StorageJob
>>> placer = RabbitPlacer(elcap(chassis=2, nodes=2, chunks=4, chunk_gib=100, cores=(1, 1),
...                             gpus=0))
>>> out = simulate(placer, [StorageJob(1, 0, 10, StorageRequest(2, 10, (150,)))])
>>> violations(out, placer)
[]
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import pairwise

from fluxgraph.papers.rabbit.placer import REASONS, RabbitPlacer
from fluxgraph.papers.rabbit.simulate import Outcome

__all__ = ["HELD", "violations"]

#: The vertex types a job holds alone while it runs.
HELD = ("node", "ssd", "nvme_ns", "mgt_ip")


def violations(outcomes: list[Outcome], placer: RabbitPlacer) -> list[str]:
    """Every broken invariant of a run, one line each (empty when all hold)."""
    g = placer.graph
    out: list[str] = []
    holders: dict[int, list[tuple[int, int, int]]] = {}
    for o in outcomes:
        if o.start < 0:
            if o.reason not in REASONS:
                out.append(f"job {o.id}: rejected without a known reason ({o.reason!r})")
            continue
        if o.start < o.submit:
            out.append(f"job {o.id}: starts at {o.start} before its submission {o.submit}")
        for ph in o.placement.phases:
            for v in ph.vertices:
                if g.types[v] in HELD:
                    holders.setdefault(v, []).append((o.start, o.end, o.id))
        out += [f"job {o.id}: {text}" for text in _shape(placer, o)]
    for v, windows in holders.items():
        windows.sort()
        for (_, end, a), (start, _, b) in pairwise(windows):
            if end > start:
                out.append(f"{g.types[v]} {g.ids[v]} held by jobs {a} and {b} at once")
    return out


def _shape(placer: RabbitPlacer, o: Outcome) -> list[str]:
    """The broken shape rules of one placement (spec §4.4)."""
    g, s, req, p = placer.graph, placer.chunk_gib, o.job.request, o.placement
    bad = []
    lustre = len(req.lustre_gib) if placer.lustre_phases(req) else 0
    kinds = Counter(ph.kind for ph in p.phases)
    want = Counter({"compute": 1 if req.nodes else 0, "ost": lustre, "mgt": lustre})
    if kinds != want - Counter():
        bad.append(f"phases {dict(kinds)}, expected {dict(want - Counter())}")
    if len(p.nodes) != req.nodes:
        bad.append(f"{len(p.nodes)} nodes for {req.nodes}")
    own: Counter[int] = Counter()
    for ph in p.phases:
        per = {t: Counter() for t in HELD}
        for v in ph.vertices:
            if g.types[v] in HELD:
                per[g.types[v]][placer.chassis_of[v]] += 1
        if ph.kind == "compute":
            own = per["node"]
            chunks = math.ceil(placer.per_node_gib(req) / s)
            f = len(req.node_local_gib)
            for ch, n in per["node"].items():
                if per["ssd"][ch] != n * chunks or per["nvme_ns"][ch] != n * f:
                    bad.append(f"chassis {g.ids[ch]}: {per['ssd'][ch]} chunks and "
                               f"{per['nvme_ns'][ch]} namespaces for {n} nodes")  # fmt: skip
            if not set(per["ssd"]) | set(per["nvme_ns"]) <= set(per["node"]):
                bad.append("node-local storage on a chassis without the job's nodes")
        elif ph.kind == "ost":
            gib = req.lustre_gib[ph.fs]
            r = min(len(placer.rabbits), max(len(own), math.ceil(gib / placer.ost_target_gib), 1))
            each = math.ceil(math.ceil(gib / r) / s)
            if len(per["ssd"]) != r or set(per["ssd"].values()) != {each}:
                bad.append(f"file system {ph.fs}: OSTs {dict(per['ssd'])}, expected {r} "
                           f"rabbits of {each} chunks")  # fmt: skip
            if per["nvme_ns"] != Counter(dict.fromkeys(per["ssd"], 1)):
                bad.append(f"file system {ph.fs}: OST namespaces {dict(per['nvme_ns'])}")
        elif sum(per["mgt_ip"].values()) != 1 or per["nvme_ns"] != per["mgt_ip"]:
            bad.append(f"file system {ph.fs}: MGT {dict(per['mgt_ip'])} {dict(per['nvme_ns'])}")
    return bad
