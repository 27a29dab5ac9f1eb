"""Tests for reading JGF and rv1exec selections back against a graph (update, partial cancel)."""

from __future__ import annotations

import copy
import json

import pytest

from fluxgraph.errors import ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.readers.jgf_update import read_selection, read_update
from fluxgraph.readers.rv1exec import from_rv1exec
from fluxgraph.readers.rv1exec_update import read_ranks
from fluxgraph.readers.rv1exec_update import read_update as read_rv1_update
from fluxgraph.traverser.state import own_planner


def small() -> ResourceGraph:
    """c0 -> n0 (rank 0) -> core0, core1 (rank 0), memory0 (size 4, rank 0)."""
    g = ResourceGraph()
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", c)
    n = g.add_vertex("node", "n", 0, rank=0, paths={"containment": "/c0/n0"})
    g.add_edge(c, n, "containment")
    for i in range(2):
        k = g.add_vertex("core", "core", i, rank=0, paths={"containment": f"/c0/n0/core{i}"})
        g.add_edge(n, k, "containment")
    m = g.add_vertex("memory", "memory", 0, rank=0, size=4, paths={"containment": "/c0/n0/memory0"})
    g.add_edge(n, m, "containment")
    g.schedule.grow(g.num_vertices)
    return g


def node(g: ResourceGraph, v: int, exclusive: bool = False, **changes) -> dict:
    meta = {
        "type": g.types[v],
        "basename": g.basenames[v],
        "id": g.ids[v],
        "rank": g.ranks[v],
        "size": g.sizes[v],
        "paths": dict(g.paths[v]),
    }
    if exclusive:
        meta["exclusive"] = True
    meta.update(changes)
    return {"id": str(g.uniq_ids[v]), "metadata": meta}


def selection(g: ResourceGraph, exclusive=(2,), shared=(1, 0), edges=((1, 2), (0, 1))) -> dict:
    nodes = [node(g, v, True) for v in exclusive] + [node(g, v) for v in shared]
    return {
        "graph": {
            "nodes": nodes,
            "edges": [{"source": str(s), "target": str(t)} for s, t in edges],
        }
    }


def reference(call) -> str:
    with pytest.raises(ReaderError) as info:
        call()
    return info.value.reference_message


def test_read_update_marks_edges_roots_and_spans():
    g = small()
    sel = read_update(g, json.dumps(selection(g)), 0, 10)
    assert [v for v, _ in sel.vertices] == [2, 1, 0]
    assert sel.spans == [(2, 1)]
    assert sel.edges == [(1, 1, True), (0, 1, False)]
    assert sel.roots == {"containment": (1, False)}


def test_read_update_leaves_the_graph_alone():
    g = small()
    before = (g.num_vertices, g.num_edges, list(g.schedule.plans))
    read_update(g, selection(g), 0, 10)
    assert (g.num_vertices, g.num_edges, list(g.schedule.plans)) == before


def test_read_selection_needs_every_path_at_the_nodes_rank():
    g = small()
    doc = selection(g)
    doc["graph"]["nodes"][0]["metadata"]["rank"] = 3
    assert reference(lambda: read_selection(g, doc)) == (
        "exist: inconsistent input vertex: nonexistent path (/c0/n0/core0) 2.\n"
    )


def test_read_selection_paths_must_agree_on_one_vertex():
    g = small()
    doc = selection(g)
    doc["graph"]["nodes"][0]["metadata"]["paths"] = {"containment": "/c0/n0/core1", "x": "/c0/n0"}
    assert reference(lambda: read_selection(g, doc)) == (
        "find_vtx: inconsistent input vertex for /c0/n0 (id=2).\n3 != 1.\n"
    )


def test_read_selection_reports_differing_fields_in_reference_form():
    g = small()
    doc = selection(g, exclusive=(3,), shared=(), edges=())
    doc["graph"]["nodes"][0]["metadata"].update(id=99, size=2, properties={"a": "b"})
    assert reference(lambda: read_selection(g, doc)) == (
        "find_vtx: inconsistent input vertex for 3.\n"
        " size=(1, 2) id=(1, 99) name=(core1, core99) properties=(, a=b ).\n"
    )
    doc["graph"]["nodes"][0]["metadata"] = node(g, 3, type="gpu")["metadata"]
    assert reference(lambda: read_selection(g, doc)).endswith("\ntype=(core, gpu).\n")


def test_read_selection_properties_alone_do_not_matter():
    g = small()
    doc = selection(g)
    doc["graph"]["nodes"][0]["metadata"]["properties"] = {"perf": "1"}
    assert len(read_selection(g, doc).vertices) == 3


def test_read_selection_rejects_duplicate_node_ids():
    g = small()
    doc = selection(g)
    doc["graph"]["nodes"].append(copy.deepcopy(doc["graph"]["nodes"][0]))
    assert reference(lambda: read_selection(g, doc)) == (
        "find_vtx: found duplicate JGF node id for 2.\n"
    )


def test_read_selection_edges_must_exist_in_the_graph():
    g = small()
    doc = selection(g, edges=((2, 1),))
    assert reference(lambda: read_selection(g, doc)) == (
        "update_tgt_edge: JGF edge from 2 to 1 not found in resource graph.\n"
    )
    assert len(read_selection(g, doc, edges=False).vertices) == 3  # partial cancel reads no edges


def test_read_selection_free_ranks_skip_nodes_and_their_edges():
    g = small()
    doc = selection(g)
    doc["free_ranks"] = "0"
    sel = read_selection(g, doc)
    assert [v for v, _ in sel.vertices] == [0]
    assert sel.edges == []
    doc["free_ranks"] = [0]
    assert [v for v, _ in read_selection(g, doc).vertices] == [0]


def test_read_selection_shorthand_expands_exclusive_subtrees():
    g = small()
    doc = selection(g, exclusive=(1,), shared=(0,), edges=((0, 1),))
    sel = read_selection(g, doc, shorthand=True)
    assert [v for v, _ in sel.vertices] == [1, 2, 3, 4, 0]
    assert sel.edges[:3] == [(1, 1, True), (2, 1, True), (3, 4, True)]
    full = selection(g, exclusive=(1, 2), shared=(0,), edges=((0, 1),))
    assert reference(lambda: read_selection(g, full, shorthand=True)) == (
        "find_vtx: found duplicate JGF node id for 2.\n"
    )


def test_read_update_checks_planners_in_node_order():
    g = small()
    own_planner(g, 2).add_span(0, 10, 1)
    assert reference(lambda: read_update(g, selection(g), 5, 10)) == (
        "update_vtx_plan: can't add span into core0.\n"
    )
    assert read_update(g, selection(g), 10, 10).spans == [(2, 1)]
    own_planner(g, 1).add_span(20, 10, 1)
    assert reference(lambda: read_update(g, selection(g), 25, 10)) == (
        "update_vtx_plan: n0 is unavailable.\n"
    )


def test_read_update_rejects_an_invalid_window():
    g = small()
    assert reference(lambda: read_update(g, selection(g), -1, 10)) == (
        "update: invalid time (-1, 10).\n"
    )


def test_read_update_reports_malformed_jgf():
    g = small()
    assert reference(lambda: read_update(g, "<x>", 0, 1)).startswith("fetch_jgf: json_loads")
    assert reference(lambda: read_update(g, {"graph": {"nodes": []}}, 0, 1)) == (
        "fetch_jgf: JGF does not contain a required key (edges).\n"
    )


R = {
    "version": 1,
    "execution": {
        "R_lite": [{"rank": "0-1", "children": {"core": "0-1", "gpu": "0"}}],
        "nodelist": ["n[0-1]"],
    },
}


def r_doc(ranks: str, children: dict, hosts: list[str]) -> dict:
    return {
        "version": 1,
        "execution": {"R_lite": [{"rank": ranks, "children": children}], "nodelist": hosts},
    }


def test_rv1_update_plans_children_and_whole_ranks_only():
    g = from_rv1exec(R)
    sel = read_rv1_update(g, r_doc("0", {"core": "0-1", "gpu": "0"}, ["n0"]), 0, 10)
    assert sel.spans == [(2, 1), (3, 1), (4, 1), (1, 1)]  # node0 last: its rank is complete
    sel = read_rv1_update(g, r_doc("1", {"core": "1"}, ["n1"]), 0, 10)
    assert sel.spans == [(7, 1)]  # node1 is not planned: core0 and gpu0 of rank 1 are missing
    assert sel.edges == [(4, 1, True), (6, 1, True)]
    assert sel.roots == {"containment": (1, False)}


def test_rv1_update_reports_missing_vertices():
    g = from_rv1exec(R)
    assert reference(lambda: read_rv1_update(g, r_doc("0", {"asic": "0"}, ["n0"]), 0, 1)) == (
        "add_or_update: couldn't find vertex in graph for asic0.\n"
        "unpack_child: failed unpacking child for asic0.\n"
        "unpack_rank: failed unpacking rank for n0.\n"
    )
    assert reference(lambda: read_rv1_update(g, r_doc("0", {}, ["x0"]), 0, 1)) == (
        "add_or_update: couldn't find vertex in graph for x0.\n"
        "unpack_rank: failed unpacking rank for x0.\n"
    )


def test_rv1_update_rejects_taken_children():
    g = from_rv1exec(R)
    g.schedule.grow(g.num_vertices)
    own_planner(g, 3).add_span(0, 10, 1)
    assert reference(lambda: read_rv1_update(g, R, 0, 5)) == (
        "update_vtx_plan: can't add span into core1.\n"
    )


def test_read_ranks_collects_the_entries_ranks():
    assert read_ranks(json.dumps(R)) == [0, 1]
    with pytest.raises(ReaderError):
        read_ranks('{"version": 2}')
