"""ResourceGraph: construction, indexes, per-subsystem children and networkx interchange."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from fluxgraph.errors import GraphError
from fluxgraph.graph import STATUS_DOWN, ResourceGraph, VertexView
from fluxgraph.readers import load

RECIPES = Path(__file__).resolve().parents[2] / "grug_recipes"


@pytest.fixture
def graph() -> ResourceGraph:
    """cluster c0 -> {n0, n1}; panel p0 -(power)-> n1."""
    g = ResourceGraph()
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    n0 = g.add_vertex("node", "n", 0, rank=0, paths={"containment": "/c0/n0"})
    n1 = g.add_vertex("node", "n", 1, rank=1, paths={"containment": "/c0/n1"})
    p = g.add_vertex("panel", "p", 0, paths={"power": "/p0"})
    g.set_root("containment", c)
    g.set_root("power", p)
    g.add_edge(c, n0, "containment")
    g.add_edge(c, n1, "containment")
    g.add_edge(p, n1, "power")
    g.set_path(n1, "power", "/p0/n1")
    g._check()
    return g


def test_add_vertex_defaults_name_uniq_id_and_indexes() -> None:
    g = ResourceGraph()
    a = g.add_vertex("core", "core", 3)
    b = g.add_vertex("fluke", "fluke")
    c = g.add_vertex("core", "core", 4, name="big", uniq_id=99, size=5, unit="GB")
    assert (g.names, g.ids, g.uniq_ids) == (["core3", "fluke", "big"], [3, -1, 4], [0, 1, 99])
    assert (g.sizes[c], g.units[c], g.ranks[a], g.status[b]) == (5, "GB", -1, 0)
    assert g.by_type == {"core": [0, 2], "fluke": [1]}
    assert g.by_name == {"core3": [0], "fluke": [1], "big": [2]}
    assert g.by_rank == {-1: [0, 1, 2]}
    g._check()


def test_add_vertex_sorts_properties_and_interns_type() -> None:
    g = ResourceGraph()
    v = g.add_vertex("newtype", "x", 0, properties={"z": "1", "a": "2"}, status=STATUS_DOWN)
    assert list(g.properties[v]) == ["a", "z"] and g.status[v] == STATUS_DOWN
    assert "newtype" in g.type_names and g.type_names.order("newtype") > g.type_names.order("")


def test_set_path_keeps_subsystem_intern_order(graph: ResourceGraph) -> None:
    v = graph.add_vertex("x", "x", 0, paths={"zeta": "/z/x0"})
    graph.set_path(v, "containment", "/c0/x0")
    graph.set_path(v, "power", "/p0/x0")
    assert list(graph.paths[v]) == ["containment", "power", "zeta"]
    assert graph.member_of[v] == ["containment", "power", "zeta"]
    assert graph.subsystem_names.names == ["containment", "power", "zeta"]


def test_set_path_overwrite_appends_to_by_path(graph: ResourceGraph) -> None:
    graph.set_path(1, "containment", "/elsewhere/n0")
    assert graph.paths[1]["containment"] == "/elsewhere/n0"
    assert graph.by_path["/c0/n0"] == [1] and graph.by_path["/elsewhere/n0"] == [1]


def test_add_edge_reuses_pair_and_takes_last_subsystem(graph: ResourceGraph) -> None:
    e = graph.add_edge(0, 1, "power")
    assert e == 0 and graph.num_edges == 3
    assert graph.edge_subsystem[e] == "power"
    assert graph.edge_member_of[e] == ["containment", "power"]
    assert graph.has_edge(0, 1) and not graph.has_edge(1, 0)
    graph._check()


def test_children_are_per_subsystem_in_insertion_order(graph: ResourceGraph) -> None:
    assert graph.children("containment")[0] == [1, 2]
    assert graph.children("power")[3] == [2] and graph.children("power")[0] == []
    assert graph.child_edges("containment")[0] == [0, 1]
    n2 = graph.add_vertex("node", "n", 2, paths={"containment": "/c0/n2"})
    graph.add_edge(0, n2, "containment")  # invalidates the cached lists
    assert graph.children("containment")[0] == [1, 2, n2]


def test_in_and_out_edges(graph: ResourceGraph) -> None:
    assert graph.out_edges[0] == [0, 1] and graph.in_edges[2] == [1, 2]
    assert graph.subsystems() == ["containment", "power"]
    assert (graph.num_vertices, graph.num_edges) == (4, 3)


def test_vertex_snapshot_and_errors(graph: ResourceGraph) -> None:
    view = graph.vertex(2)
    assert view == VertexView(
        2, "node", "n", "n1", 1, 2, 1, 1, "", {}, {"containment": "/c0/n1", "power": "/p0/n1"}, 0
    )
    view.paths["containment"] = "changed"
    assert graph.paths[2]["containment"] == "/c0/n1"
    assert [v.name for v in graph.vertices()] == ["c0", "n0", "n1", "p0"]
    with pytest.raises(GraphError, match="no vertex with id 4"):
        graph.vertex(4)
    with pytest.raises(GraphError):
        graph.vertex(-1)


def test_find_path_per_subsystem(graph: ResourceGraph) -> None:
    assert graph.find_path("/c0/n1") == 2
    assert graph.find_path("/p0/n1", "power") == 2
    assert graph.find_path("/p0/n1") is None and graph.find_path("/nope") is None


def test_check_catches_broken_index(graph: ResourceGraph) -> None:
    graph.by_name["n0"].append(3)
    with pytest.raises(AssertionError):
        graph._check()


def test_to_networkx_carries_fields_and_edges(graph: ResourceGraph) -> None:
    nxg = graph.to_networkx()
    assert isinstance(nxg, nx.MultiDiGraph)
    assert nxg.graph["roots"] == {"containment": 0, "power": 3}
    assert nxg.nodes[2]["paths"] == {"containment": "/c0/n1", "power": "/p0/n1"}
    assert nxg.nodes[2]["member_of"] == ["containment", "power"]
    assert [(u, v, d["subsystem"]) for u, v, d in nxg.edges(data=True)] == [
        (0, 1, "containment"),
        (0, 2, "containment"),
        (3, 2, "power"),
    ]


def test_networkx_round_trip_of_generated_recipe() -> None:
    g = load(RECIPES / "multi-subsystem.graphml")
    back = ResourceGraph.from_networkx(g.to_networkx())
    back._check()
    for field in ("types", "names", "ids", "uniq_ids", "ranks", "sizes", "units", "paths"):
        assert getattr(back, field) == getattr(g, field), field
    assert back.member_of == g.member_of and back.roots == g.roots

    def out(h: ResourceGraph) -> list[list[tuple[int, str, list[str]]]]:
        return [
            [(h.edge_dst[e], h.edge_subsystem[e], h.edge_member_of[e]) for e in es]
            for es in h.out_edges
        ]

    assert out(back) == out(g)  # per-vertex out-edge order (networkx groups edges by source)


def test_from_networkx_defaults_and_errors() -> None:
    nxg = nx.DiGraph()
    nxg.add_node("a", type="cluster", basename="a")
    nxg.add_node("b", type="node", basename="b", id=3)
    nxg.add_edge("a", "b")
    g = ResourceGraph.from_networkx(nxg)
    assert (g.names, g.ranks, g.sizes) == (["a", "b3"], [-1, -1], [1, 1])
    assert g.edge_subsystem == ["containment"]
    bad = nx.DiGraph()
    bad.add_node("x", type="node")
    with pytest.raises(GraphError, match=r"'x'.*'basename'"):
        ResourceGraph.from_networkx(bad)
