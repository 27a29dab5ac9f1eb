"""The errno a failed ``allocate_orelse_reserve`` reports (issue 16, part 1).

The reference's reservation loop advances the root aggregate's earliest-time search after every
select, the successful one included. A selection whose update walk then finds nothing to
allocate (``node > slot > core`` on a machine with sockets between nodes and cores, quirk 7)
fails with that search call's stale errno: ENOENT ("Unsatisfiable", job counter kept) when no
later candidate time exists, otherwise whatever the selection walk or the search left (EBUSY:
"No matching resources found", counter advances).
"""

from __future__ import annotations

from errno import EBUSY, ENOENT

from fluxgraph import jobspec
from fluxgraph.graph import ResourceGraph
from fluxgraph.matcher import Matcher
from fluxgraph.planner import PlannerMulti
from fluxgraph.writers.sink import SelectionCollector


def _machine(nodes: int) -> ResourceGraph:
    """cluster > ``nodes`` x node > socket > 2 cores."""
    g = ResourceGraph()
    root = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", root)
    for n in range(nodes):
        npath = f"/c0/node{n}"
        node = g.add_vertex("node", "node", n, rank=n, paths={"containment": npath})
        g.add_edge(root, node, "containment")
        sock = g.add_vertex("socket", "socket", 0, paths={"containment": f"{npath}/socket0"})
        g.add_edge(node, sock, "containment")
        for c in range(2):
            cpath = f"{npath}/socket0/core{c}"
            core = g.add_vertex("core", "core", c, paths={"containment": cpath})
            g.add_edge(sock, core, "containment")
    return g


def _spec(resources: list, duration: int) -> jobspec.Jobspec:
    return jobspec.load(
        {
            "version": 9999,
            "resources": resources,
            "attributes": {"system": {"duration": duration}},
            "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}],
        }
    )


def _slot(cores: int) -> dict:
    return {"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": cores}]}


#: Selectable, but the update walk cannot reach the slot (node -> socket edges stay unmarked).
UNREACHABLE = [{"type": "node", "count": 1, "with": [_slot(1)]}]


def _run(m: Matcher, resources: list, duration: int, op: str, job_id: int):
    return m.run(_spec(resources, duration), op, job_id, SelectionCollector())


def test_unreachable_reservation_without_later_candidate_reports_enoent():
    m = Matcher(_machine(1), "CA", "high")
    assert _run(m, [_slot(2)], 100, "allocate", 1).rc == 0
    out = _run(m, UNREACHABLE, 10, "allocate_orelse_reserve", 2)
    # the select at 100 succeeded, the update failed, and the search then found no later time
    assert (out.rc, out.errno) == (-1, ENOENT)


def test_unreachable_reservation_with_later_candidate_keeps_the_walks_errno():
    m = Matcher(_machine(2), "CA", "high")
    assert _run(m, [_slot(2)], 100, "allocate", 1).rc == 0
    assert _run(m, [_slot(2)], 200, "allocate", 2).rc == 0
    out = _run(m, UNREACHABLE, 10, "allocate_orelse_reserve", 3)
    # candidate 100 selects node0 (node1 is busy: EBUSY in the walk), the update fails, and the
    # search still has candidate 200: errno stays EBUSY
    assert (out.rc, out.errno) == (-1, EBUSY)


def test_unreachable_request_now_keeps_the_walks_errno():
    m = Matcher(_machine(2), "CA", "high")
    assert _run(m, [_slot(2)], 100, "allocate", 1).rc == 0
    for op in ("allocate", "allocate_with_satisfiability", "allocate_orelse_reserve"):
        out = _run(m, UNREACHABLE, 10, op, 2)
        assert (out.rc, out.errno) == (-1, EBUSY), op


def test_planner_multi_search_errno():
    m = PlannerMulti(0, 1000, [4, 16], ["core", "memory"])
    m.add_span(0, 10, [4, 0])
    m.add_span(10, 10, [0, 16])
    assert m.avail_time_first(1, 5, [1, 1]) == 20
    assert m.search_errno == EBUSY  # candidate 10 was rejected by memory
    assert m.avail_time_next() is None
    assert m.search_errno == ENOENT
    assert m.avail_time_first(1, 5, [1, 0]) == 10
    assert m.search_errno == 0
    assert m.copy().search_errno == 0
