"""Rabbit scenarios R1-R10 of the rabbit spec §7.2 on ``elcap-tiny``: exact outcomes."""

from __future__ import annotations

from errno import EBUSY, ENODEV
from pathlib import Path

import pytest

from fluxgraph.machines import load_machine
from fluxgraph.papers.rabbit import (
    StorageRejected,
    StorageRequest,
    parse_directives,
    storage_request,
)
from fluxgraph.papers.rabbit.placer import RabbitPlacer

RECIPE = Path(__file__).resolve().parents[2] / "grug_recipes" / "elcap-tiny.graphml"
HOUR = 3600


def placer(**options) -> RabbitPlacer:
    """The §7.2 set-up: pack, own-first, ost_target_gib=200 unless ``options`` say otherwise."""
    return RabbitPlacer(load_machine(RECIPE), **{"ost_target_gib": 200, **options})


def job(nodes: int, *directives: str) -> StorageRequest:
    return storage_request(nodes, HOUR, parse_directives(list(directives)))


def xfs(gib: int, name: str = "a") -> str:
    return f"#DW jobdw type=xfs capacity={gib}GiB name={name}"


def lustre(gib: int) -> str:
    return f"#DW jobdw type=lustre capacity={gib}GiB name=l"


def persistent(gib: int, name: str = "p") -> str:
    return f"#DW create_persistent type=lustre capacity={gib}GiB name={name}"


def test_r1_granularity_takes_whole_chunks_on_one_chassis():
    p = placer().place(1, job(2, xfs(150)), now=0)
    assert (p.start, p.reserved, p.nodes) == (0, False, (0, 1))
    assert p.node_local == {0: (2, 4, 2)}  # 2 chunks (200 GiB) and 1 namespace per node


@pytest.mark.parametrize(
    ("compute", "nodes", "layout"),
    [
        ("pack", (0, 1, 4, 5), {0: (2, 4, 2), 1: (2, 4, 2)}),
        ("spread", (0, 1, 4, 8), {0: (2, 4, 2), 1: (1, 2, 1), 2: (1, 2, 1)}),
    ],
)
def test_r2_per_chassis_capacity(compute, nodes, layout):
    p = placer(compute=compute).place(1, job(4, xfs(150)), now=0)
    assert (p.nodes, p.node_local) == (nodes, layout)


def test_r3_namespaces_bound_nodes_per_chassis():
    p = placer().place(1, job(6, xfs(50)), now=0)
    assert p.nodes == (0, 1, 2, 4, 5, 6)
    assert p.node_local == {0: (3, 3, 3), 1: (3, 3, 3)}


def test_r4_two_file_systems_per_node_are_unsatisfiable_by_namespaces():
    pl = placer()
    with pytest.raises(StorageRejected) as info:
        pl.place(1, job(4, xfs(50, "a"), xfs(50, "b")), now=0)
    err = info.value
    assert (err.errno, err.phase, err.reason) == (ENODEV, "compute", "namespaces")
    assert "can serve 3 such nodes" in str(err) and "asks 4" in str(err)
    assert not pl.jobs and all(p is None or p.span_size() == 0 for p in _plans(pl))


def test_r5_chunk_limit():
    with pytest.raises(StorageRejected) as info:
        placer().place(1, job(12, xfs(101)), now=0)
    assert (info.value.errno, info.value.reason) == (ENODEV, "ssd capacity")
    assert "2 chunks of 100 GiB" in str(info.value) and "can serve 6 such nodes" in str(info.value)
    p = placer().place(1, job(6, xfs(101)), now=0)
    assert p.node_local == {0: (2, 4, 2), 1: (2, 4, 2), 2: (2, 4, 2)}


def test_r6_global_storage_with_compute():
    pl = placer()
    p = pl.place(1, job(2, lustre(500)), now=0)
    assert p.nodes == (0, 1) and p.node_local == {}
    assert p.osts == [{0: 2, 1: 2, 2: 2}]  # R = 3 rabbits, 167 GiB -> 2 chunks each
    assert p.mgts == [0]
    assert _namespaces(pl, p) == {0: 2, 1: 1, 2: 1}  # one per OST, one for the MGT


def test_r7_one_mgs_per_rabbit():
    pl = placer()
    placed = [pl.place(i, job(0, persistent(100, f"p{i}")), now=0) for i in range(1, 5)]
    assert [(p.start, p.osts, p.mgts) for p in placed[:3]] == [
        (0, [{0: 1}], [0]),
        (0, [{1: 1}], [1]),
        (0, [{2: 1}], [2]),
    ]
    fourth = placed[3]
    assert (fourth.start, fourth.reserved, fourth.delayed_by) == (HOUR, True, "mgt_ip")
    with pytest.raises(StorageRejected) as info:  # now only: EBUSY naming the MGS address
        placer_now = placer()
        for i in range(1, 4):
            placer_now.place(i, job(0, persistent(100, f"p{i}")), now=0)
        placer_now.place(4, job(0, persistent(100, "p4")), now=0, reserve=False)
    assert (info.value.errno, info.value.phase, info.value.reason) == (EBUSY, "mgt", "mgt_ip")
    placer_now.check(4, job(0, persistent(100, "p4")), now=0)  # satisfiable later: no raise
    with pytest.raises(StorageRejected) as info:
        placer_now.check(5, job(0, persistent(1300, "p5")), now=0)
    assert (info.value.errno, info.value.reason) == (ENODEV, "ssd capacity")
    assert len(placer_now.jobs) == 3


def test_r8_persistent_storage_then_a_consumer_then_destroy():
    pl = placer()
    fs = pl.place(1, job(0, persistent(300)), now=0)
    assert (fs.nodes, fs.osts, fs.mgts) == ((), [{0: 2, 1: 2}], [0])
    consumer = pl.place(2, job(12, "#DW persistentdw name=p"), now=0)
    assert consumer.nodes == tuple(range(12)) and consumer.start == 0
    pl.release(2)
    pl.release(1)  # destroy_persistent
    assert all(p is None or p.span_size() == 0 for p in _plans(pl))


@pytest.mark.parametrize(("mode", "chassis"), [("own-first", 1), ("any", 0)])
def test_r9_any_versus_own_first(mode, chassis):
    pl = placer(lustre=mode)
    assert pl.place(1, job(3), now=0).nodes == (0, 1, 2)
    p = pl.place(2, job(1, lustre(100)), now=0)
    assert p.nodes == (4,)  # chassis 1 offers most nodes
    assert (p.osts, p.mgts) == ([{chassis: 1}], [chassis])


def test_r10_coral2_mode_folds_lustre_into_node_local_chunks():
    p = placer(lustre="coral2").place(1, job(3, lustre(300)), now=0)
    assert p.nodes == (0, 1, 2)
    assert p.node_local == {0: (3, 3, 0)}  # one 100 GiB chunk per node, no namespaces
    assert (p.osts, p.mgts) == ([], [])


def test_every_rejection_names_a_reason():
    pl = placer()
    cases = [
        job(13),
        job(4, xfs(50, "a"), xfs(50, "b")),
        job(12, xfs(101)),
        job(0, persistent(1300)),
    ]
    reasons = []
    for i, request in enumerate(cases, 1):
        with pytest.raises(StorageRejected) as info:
            pl.place(i, request, now=0)
        reasons.append(info.value.reason)
        assert str(info.value).startswith(f"job {i} is unsatisfiable: {info.value.reason}:")
    assert reasons == ["nodes", "namespaces", "ssd capacity", "ssd capacity"]


def _plans(pl: RabbitPlacer):
    return pl.graph.schedule.plans


def _namespaces(pl: RabbitPlacer, p) -> dict[int, int]:
    """Chassis id -> namespaces of placement ``p``."""
    g = pl.graph
    out: dict[int, int] = {}
    for ph in p.phases:
        for v in ph.vertices:
            if g.types[v] == "nvme_ns":
                ch = g.ids[pl.chassis_of[v]]
                out[ch] = out.get(ch, 0) + 1
    return out


def test_coral2_mode_places_storage_only_lustre_as_own_first_does():
    """No nodes to fold a persistent file system into: it gets its OST and MGT phases."""
    p = placer(lustre="coral2").place(1, job(0, persistent(300)), now=0)
    assert (p.nodes, p.osts, p.mgts) == ((), [{0: 2, 1: 2}], [0])
