"""The rabbit scenarios R1-R10 of spec §7.2 on ``elcap-tiny``, and the rejection reasons.

``elcap-tiny``: chassis 0-2, nodes ``4c .. 4c+3`` on chassis ``c``, 4 chunks of 100 GiB and 3
namespaces a rabbit, one ``mgt_ip`` each; ``pack``, ``own-first``, ``ost_target_gib=200``,
walltime 3600 s, an empty machine unless stated. Each scenario is one small function returning
:class:`Outcome`: what we observed, beside the spec's expected outcome, and whether they agree
exactly (node ids, chassis, chunk counts, accept/reject, EBUSY with start 3600). Each takes
milliseconds.

>>> r1().held, r1().ours
(True, 'nodes (0, 1); chassis 0: 2 nodes, 4 chunks, 2 namespaces')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from errno import EBUSY, ENODEV

from fluxgraph.machines import load_machine
from fluxgraph.papers.rabbit.directives import parse_directives, storage_request
from fluxgraph.papers.rabbit.placer import RabbitPlacer, StoragePlacement, StorageRejected

__all__ = ["SCENARIOS", "Outcome", "rejection_reasons"]

HOUR = 3600


@dataclass(frozen=True)
class Outcome:
    """A scenario's result: ``held`` when ours is exactly the expected outcome."""

    id: str
    expected: str
    ours: str
    held: bool


def _placer(**options) -> RabbitPlacer:
    machine = load_machine("elcap-tiny.graphml")
    return RabbitPlacer(machine, **{"ost_target_gib": 200, **options})


def _job(nodes: int, *directives: str):
    return storage_request(nodes, HOUR, parse_directives(list(directives)))


def _xfs(gib: int, name: str = "a") -> str:
    return f"#DW jobdw type=xfs capacity={gib}GiB name={name}"


def _lustre(gib: int) -> str:
    return f"#DW jobdw type=lustre capacity={gib}GiB name=l"


def _persistent(gib: int, name: str = "p") -> str:
    return f"#DW create_persistent type=lustre capacity={gib}GiB name={name}"


def _local(p: StoragePlacement) -> str:
    return "; ".join(
        f"chassis {ch}: {n} nodes, {c} chunks, {k} namespaces"
        for ch, (n, c, k) in sorted(p.node_local.items())
    )


def _rejected(call: Callable[[], object]) -> StorageRejected | None:
    try:
        call()
    except StorageRejected as err:
        return err
    return None


def r1() -> Outcome:
    """R1 granularity: N=2, xfs 150 GiB."""
    p = _placer().place(1, _job(2, _xfs(150)), now=0)
    return Outcome(
        "R1",
        "both nodes on chassis 0 (lowest id), 2 chunks each (400 GiB for 300), 1 namespace each",
        f"nodes {p.nodes}; {_local(p)}",
        (p.start, p.nodes, p.node_local) == (0, (0, 1), {0: (2, 4, 2)}),
    )


def r2() -> Outcome:
    """R2 per-chassis capacity: N=4, xfs 150 GiB, pack and spread."""
    pack = _placer().place(1, _job(4, _xfs(150)), now=0)
    spread = _placer(compute="spread").place(1, _job(4, _xfs(150)), now=0)
    return Outcome(
        "R2",
        "pack: 2 + 2 on chassis 0, 1; spread: 2 + 1 + 1 on chassis 0, 1, 2",
        f"pack {pack.nodes} ({_local(pack)}); spread {spread.nodes} ({_local(spread)})",
        pack.node_local == {0: (2, 4, 2), 1: (2, 4, 2)}
        and spread.node_local == {0: (2, 4, 2), 1: (1, 2, 1), 2: (1, 2, 1)},
    )


def r3() -> Outcome:
    """R3 namespaces: N=6, xfs 50 GiB."""
    p = _placer().place(1, _job(6, _xfs(50)), now=0)
    return Outcome(
        "R3",
        "3 + 3 on chassis 0, 1 (namespace-bound: min(4, 4, 3) = 3)",
        f"nodes {p.nodes}; {_local(p)}",
        p.nodes == (0, 1, 2, 4, 5, 6) and p.node_local == {0: (3, 3, 3), 1: (3, 3, 3)},
    )


def r4() -> Outcome:
    """R4 unsatisfiable: N=4, two xfs of 50 GiB."""
    err = _rejected(lambda: _placer().place(1, _job(4, _xfs(50, "a"), _xfs(50, "b")), now=0))
    ours = "accepted" if err is None else f"rejected (errno {err.errno}): {err}"
    return Outcome(
        "R4",
        "rejected: floor(3/2) = 1 node per chassis, 3 < 4; the message names namespaces",
        ours,
        err is not None and (err.errno, err.phase, err.reason) == (ENODEV, "compute", "namespaces"),
    )


def r5() -> Outcome:
    """R5 chunk limit: N=12 xfs 101 GiB rejected; N=6 fits 2 + 2 + 2."""
    err = _rejected(lambda: _placer().place(1, _job(12, _xfs(101)), now=0))
    six = _placer().place(1, _job(6, _xfs(101)), now=0)
    ours = ("accepted" if err is None else f"N=12 rejected: {err.reason}") + f"; N=6 {_local(six)}"
    return Outcome(
        "R5",
        "N=12 rejected (2 chunks a node: 2 nodes a chassis, 6 in all); N=6 gets 2 + 2 + 2",
        ours,
        err is not None
        and (err.errno, err.reason) == (ENODEV, "ssd capacity")
        and six.node_local == {0: (2, 4, 2), 1: (2, 4, 2), 2: (2, 4, 2)},
    )


def r6() -> Outcome:
    """R6 global with compute: N=2, lustre 500 GiB."""
    pl = _placer()
    p = pl.place(1, _job(2, _lustre(500)), now=0)
    return Outcome(
        "R6",
        "nodes 0, 1; R = 3, 167 GiB: 2 chunks on each of chassis 0, 1, 2; MGT on chassis 0",
        f"nodes {p.nodes}; OST chunks {p.osts}; MGT chassis {p.mgts}",
        p.nodes == (0, 1) and p.osts == [{0: 2, 1: 2, 2: 2}] and p.mgts == [0],
    )


def r7() -> Outcome:
    """R7 one MGS per rabbit: 4 persistent lustre 100 GiB."""
    pl = _placer()
    placed = [pl.place(i, _job(0, _persistent(100, f"p{i}")), now=0) for i in range(1, 5)]
    first = [(p.start, p.osts, p.mgts) for p in placed[:3]]
    fourth = placed[3]
    return Outcome(
        "R7",
        "3 allocated now on chassis 0, 1, 2; the 4th EBUSY (mgt_ip), reserved at 3600",
        f"{[(s, m) for s, _, m in first]} (start, MGT chassis); 4th: start {fourth.start}, "
        f"delayed by {fourth.delayed_by or '-'}",
        first == [(0, [{0: 1}], [0]), (0, [{1: 1}], [1]), (0, [{2: 1}], [2])]
        and (fourth.start, fourth.reserved, fourth.delayed_by) == (HOUR, True, "mgt_ip")
        and _now_only_busy(),
    )


def _now_only_busy() -> bool:
    """R7's 4th file system placed now only: EBUSY naming the MGS address."""
    pl = _placer()
    for i in range(1, 4):
        pl.place(i, _job(0, _persistent(100, f"p{i}")), now=0)
    err = _rejected(lambda: pl.place(4, _job(0, _persistent(100, "p4")), now=0, reserve=False))
    return err is not None and (err.errno, err.phase, err.reason) == (EBUSY, "mgt", "mgt_ip")


def r8() -> Outcome:
    """R8 persistent storage, a consumer on all 12 nodes, destroy."""
    pl = _placer()
    fs = pl.place(1, _job(0, _persistent(300)), now=0)
    consumer = pl.place(2, _job(12, "#DW persistentdw name=p"), now=0)
    pl.release(2)
    pl.release(1)
    freed = all(p is None or p.span_size() == 0 for p in pl.graph.schedule.plans)
    return Outcome(
        "R8",
        "R = 2: 2 chunks on each of chassis 0, 1, MGT on chassis 0, no nodes; the consumer runs "
        "on all 12 nodes; destroy frees everything",
        f"OST chunks {fs.osts}, MGT {fs.mgts}, nodes {len(fs.nodes)}; consumer on "
        f"{len(consumer.nodes)} nodes at {consumer.start}; freed {freed}",
        (fs.nodes, fs.osts, fs.mgts) == ((), [{0: 2, 1: 2}], [0])
        and (consumer.nodes, consumer.start) == (tuple(range(12)), 0)
        and freed,
    )


def r9() -> Outcome:
    """R9 ``any`` against ``own-first`` after a 3-node job."""
    got = {}
    for mode in ("own-first", "any"):
        pl = _placer(lustre=mode)
        pl.place(1, _job(3), now=0)
        p = pl.place(2, _job(1, _lustre(100)), now=0)
        got[mode] = (p.nodes, p.osts, p.mgts)
    return Outcome(
        "R9",
        "the node is node 4; own-first: OST and MGT on chassis 1; any: both on chassis 0",
        "; ".join(f"{m}: node {n}, OST {o}, MGT {g}" for m, (n, o, g) in got.items()),
        got == {"own-first": ((4,), [{1: 1}], [1]), "any": ((4,), [{0: 1}], [0])},
    )


def r10() -> Outcome:
    """R10 coral2 mode: N=3, lustre 300 GiB."""
    p = _placer(lustre="coral2").place(1, _job(3, _lustre(300)), now=0)
    return Outcome(
        "R10",
        "100 GiB a node: nodes 0-2 on chassis 0, one chunk each; no OST/MGT phases",
        f"nodes {p.nodes}; {_local(p)}; OSTs {p.osts}, MGTs {p.mgts}",
        p.nodes == (0, 1, 2) and p.node_local == {0: (3, 3, 0)} and (p.osts, p.mgts) == ([], []),
    )


#: R1-R10 in spec order.
SCENARIOS = (r1, r2, r3, r4, r5, r6, r7, r8, r9, r10)


def rejection_reasons() -> Outcome:
    """Spec §8: every rejection carries a reason naming nodes, namespaces or ssd capacity (and
    ``mgt_ip`` for EBUSY, R7), in its message."""
    pl = _placer()
    cases = [_job(13), _job(4, _xfs(50, "a"), _xfs(50, "b")), _job(12, _xfs(101)),
             _job(0, _persistent(1300))]  # fmt: skip
    got = []
    for i, request in enumerate(cases, 1):
        err = _rejected(lambda i=i, request=request: pl.place(i, request, now=0))
        named = err is not None and str(err).startswith(f"job {i} is unsatisfiable: {err.reason}:")
        got.append(err.reason if named else "none")
    return Outcome(
        "REJ",
        "nodes, namespaces, ssd capacity, ssd capacity",
        ", ".join(got),
        got == ["nodes", "namespaces", "ssd capacity", "ssd capacity"],
    )
