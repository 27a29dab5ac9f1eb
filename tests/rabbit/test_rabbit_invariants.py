"""Rabbit invariants (spec §6, §8) as hypothesis properties over random job streams.

Checked from the placements alone, independently of the matcher's planners: no node, chunk,
namespace or ``mgt_ip`` is held by two jobs at once; node-local chunks sit on the chassis of
the nodes they serve, in whole chunks covering the request; Lustre file systems get R rabbits
of whole chunks and one MGT; no job starts before it is placed; every failure names a reason;
and an empty machine accepts a compute job exactly when the §4.4 arithmetic says so.
"""

from __future__ import annotations

import math
from collections import Counter
from errno import EBUSY, ENODEV
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.rabbit import REASONS, StorageRejected, StorageRequest, elcap
from fluxgraph.papers.rabbit.placer import RabbitPlacer

SHAPE = {"chassis": 3, "nodes": 4, "chunks": 5, "chunk_gib": 100, "namespaces": 4}
HELD = ("node", "ssd", "nvme_ns", "mgt_ip")

requests = st.builds(
    StorageRequest,
    nodes=st.integers(1, 8),
    walltime=st.integers(1, 5),
    node_local_gib=st.lists(st.integers(1, 250), max_size=2).map(tuple),
    lustre_gib=st.lists(st.integers(1, 900), max_size=2).map(tuple),
)
storage_only = st.builds(
    StorageRequest,
    nodes=st.just(0),
    walltime=st.integers(1, 5),
    lustre_gib=st.lists(st.integers(1, 900), min_size=1, max_size=1).map(tuple),
)
streams = st.lists(
    st.tuples(st.one_of(requests, storage_only), st.integers(0, 2), st.booleans()),
    min_size=1,
    max_size=12,
)
modes = st.sampled_from(
    [(c, lu) for c in ("pack", "spread") for lu in ("own-first", "any", "coral2")]
)


def fresh(compute: str, lustre: str) -> RabbitPlacer:
    return RabbitPlacer(
        elcap(**SHAPE, cores=(1, 1), gpus=0), compute=compute, lustre=lustre, ost_target_gib=250
    )


def run(stream, compute, lustre):
    """Place the stream (time advancing by the given steps); the kept placements, failures."""
    pl = fresh(compute, lustre)
    now, placed, failures = 0, [], []
    for jobid, (request, step, reserve) in enumerate(stream, 1):
        now += step
        for p in [p for p in pl.jobs.values() if p.end <= now]:
            pl.release(p.jobid)
        try:
            p = pl.place(jobid, request, now, reserve=reserve)
        except StorageRejected as err:
            failures.append((request, err))
            continue
        assert p.start >= now and (reserve or p.start == now)
        placed.append((request, p))
    return pl, placed, failures


@settings(max_examples=60, deadline=None)
@given(streams, modes)
def test_nothing_is_held_twice_and_shapes_are_exact(stream, mode):
    pl, placed, failures = run(stream, *mode)
    g = pl.graph
    holders: dict[int, list[tuple[int, int]]] = {}
    for request, p in placed:
        for ph in p.phases:
            for v in ph.vertices:
                if g.types[v] in HELD:
                    holders.setdefault(v, []).append((p.start, p.end))
        _check_shape(pl, request, p)
    for v, windows in holders.items():
        windows.sort()
        for (_, end), (start, _) in pairwise(windows):
            assert end <= start, f"{g.types[v]} {v} held twice: {windows}"
    for _, err in failures:
        assert err.reason in REASONS and err.errno in (EBUSY, ENODEV)
        assert f": {err.reason}:" in str(err)


def _check_shape(pl: RabbitPlacer, request: StorageRequest, p) -> None:
    g, s = pl.graph, pl.chunk_gib
    kinds = Counter(ph.kind for ph in p.phases)
    lustre_phases = len(request.lustre_gib) if pl.lustre_phases(request) else 0
    assert (
        kinds
        == Counter(
            {"compute": 1 if request.nodes else 0, "ost": lustre_phases, "mgt": lustre_phases}
        )
        - Counter()
    )
    assert len(p.nodes) == request.nodes
    own = Counter()
    for ph in p.phases:
        per = {t: Counter() for t in HELD}
        for v in ph.vertices:
            if g.types[v] in HELD:
                per[g.types[v]][pl.chassis_of[v]] += 1
        if ph.kind == "compute":
            own = per["node"]
            g_node = pl.per_node_gib(request)
            f = len(request.node_local_gib)
            for ch, n in per["node"].items():
                assert per["ssd"][ch] == n * math.ceil(g_node / s)
                assert per["nvme_ns"][ch] == n * f
            assert set(per["ssd"]) <= set(per["node"]) and set(per["nvme_ns"]) <= set(per["node"])
        elif ph.kind == "ost":
            gib = request.lustre_gib[ph.fs]
            r = min(len(pl.rabbits), max(len(own), math.ceil(gib / 250), 1))
            assert len(per["ssd"]) == r == len(per["nvme_ns"])
            assert set(per["ssd"].values()) == {math.ceil(math.ceil(gib / r) / s)}
            assert r * max(per["ssd"].values()) * s >= gib
        else:
            assert sum(per["mgt_ip"].values()) == 1 == sum(per["nvme_ns"].values())
            assert set(per["mgt_ip"]) == set(per["nvme_ns"])


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 14),
    st.lists(st.integers(1, 520), max_size=3).map(tuple),
    st.sampled_from(["pack", "spread"]),
)
def test_empty_machine_accepts_exactly_what_the_arithmetic_allows(nodes, local, compute):
    """Spec §4.4: phase 1 is satisfiable iff sum over chassis of a_c >= N."""
    pl = fresh(compute, "own-first")
    g = sum(local)
    per_node = math.ceil(g / SHAPE["chunk_gib"])
    a_c = min(
        SHAPE["nodes"],
        SHAPE["chunks"] // per_node if g else SHAPE["nodes"],
        SHAPE["namespaces"] // len(local) if local else SHAPE["nodes"],
    )
    request = StorageRequest(nodes, 10, local)
    try:
        fresh(compute, "own-first").check(1, request, now=0)  # (the arithmetic, no matcher)
    except StorageRejected as err:
        checked = err.reason
    else:
        checked = ""
    try:
        p = pl.place(1, request, now=0)
    except StorageRejected as err:
        assert SHAPE["chassis"] * a_c < nodes
        assert err.errno == ENODEV and err.phase == "compute"
        assert checked == err.reason
    else:
        assert checked == ""
        assert SHAPE["chassis"] * a_c >= nodes
        if local:
            assert max(n for n, _, _ in p.node_local.values()) <= a_c


@settings(max_examples=25, deadline=None)
@given(streams, modes)
def test_identical_streams_give_identical_placements(stream, mode):
    first = [(p.jobid, p.start, p.phases) for _, p in run(stream, *mode)[1]]
    second = [(p.jobid, p.start, p.phases) for _, p in run(stream, *mode)[1]]
    assert first == second


compute_only = st.builds(
    StorageRequest,
    nodes=st.integers(1, 8),
    walltime=st.integers(1, 5),
    node_local_gib=st.lists(st.integers(1, 250), max_size=2).map(tuple),
)


def _serves(pl: RabbitPlacer, request: StorageRequest, t: int, held) -> bool:
    """Whether sum over chassis of a_c >= N during ``[t, t + walltime)`` (spec §4.4), with the
    units ``held`` (``(start, end, vertex)`` of every placement) taken out."""
    busy = {v for start, end, v in held if start < t + request.walltime and end > t}
    per_node = math.ceil(pl.per_node_gib(request) / SHAPE["chunk_gib"])
    f = len(request.node_local_gib)
    total = 0
    for rabbit in pl.rabbits.values():
        n = sum(v not in busy for v in rabbit.nodes)
        c = sum(v not in busy for v in rabbit.ssds)
        k = sum(v not in busy for v in rabbit.namespaces)
        total += min(n, c // per_node if per_node else n, k // f if f else n)
    return total >= request.nodes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(compute_only, st.integers(0, 2)), min_size=1, max_size=12), modes)
def test_compute_jobs_start_at_the_earliest_time_the_arithmetic_allows(stream, mode):
    """Oracle: free units per chassis recomputed from the placements' vertex sets and windows;
    a compute job starts at the first candidate time where sum over chassis of a_c >= N.
    Jobs are released at their end, as a scheduler does (an unreleased job holds its units
    at ``now``: the overrun check)."""
    pl = fresh(*mode)
    now = 0
    for jobid, (request, step) in enumerate(stream, 1):
        now += step
        for ended in [p.jobid for p in pl.jobs.values() if p.end <= now]:
            pl.release(ended)
        jobs = pl.jobs.values()
        held = [(p.start, p.end, v) for p in jobs for ph in p.phases for v in ph.vertices]
        times = sorted({now, *(t for p in jobs for t in (p.start, p.end) if t > now)})
        expected = next((t for t in times if _serves(pl, request, t, held)), None)
        try:
            p = pl.place(jobid, request, now)
        except StorageRejected as err:
            assert expected is None and err.errno == ENODEV
            continue
        assert p.start == expected
