"""Tests for removing vertices from the graph store (compaction keeps order and stored ids)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.errors import GraphError
from fluxgraph.graph.removal import remove_vertices, subtree
from fluxgraph.readers import load

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"
EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "40"))


def snapshot(g) -> tuple:
    """The graph as data keyed by uniq_id (independent of vertex and edge numbering)."""
    vertices = [
        (g.uniq_ids[v], g.types[v], g.names[v], g.ranks[v], tuple(g.paths[v].items()))
        for v in range(g.num_vertices)
    ]
    edges = [
        (g.uniq_ids[g.edge_src[e]], g.uniq_ids[g.edge_dst[e]], g.edge_subsystem[e])
        for e in range(g.num_edges)
    ]
    out = [[g.uniq_ids[g.edge_dst[e]] for e in g.out_edges[v]] for v in range(g.num_vertices)]
    return vertices, edges, out


def test_subtree_lists_descendants_in_preorder():
    g = load(TINY)
    socket = g.find_path("/tiny0/node0/socket1")
    names = [g.names[v] for v in subtree(g, socket, "containment")]
    assert names[0] == "socket1" and set(names[1:]) == {
        "core4", "core5", "core6", "core7", "gpu1", "memory1",
    }  # fmt: skip
    with pytest.raises(GraphError):
        subtree(g, 999, "containment")


def test_remove_vertices_rejects_unknown_ids_unchanged():
    g = load(TINY)
    before = snapshot(g)
    with pytest.raises(GraphError):
        remove_vertices(g, [1, 999])
    assert snapshot(g) == before


def test_remove_vertices_drops_a_removed_root_and_empty_keys():
    g = load(TINY)
    vmap, emap = remove_vertices(g, subtree(g, g.roots["containment"], "containment"))
    g._check()
    assert g.num_vertices == g.num_edges == 0
    assert g.roots == {} and g.by_type == {} and g.by_path == {}
    assert set(vmap) == set(emap) == {-1}


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sets(st.integers(min_value=0, max_value=30), max_size=12))
def test_remove_vertices_equals_the_graph_without_them(doomed):
    g = load(TINY)
    vertices, edges, out = snapshot(g)
    gone = {g.uniq_ids[v] for v in doomed}
    slots = {g.uniq_ids[v]: v for v in range(g.num_vertices)}
    g.schedule.grow(g.num_vertices)
    for v in range(g.num_vertices):  # mark each vertex's scheduling slot with its uniq_id
        g.schedule.tags[v] = {g.uniq_ids[v]: 0}
    vmap, emap = remove_vertices(g, doomed)
    g._check()
    assert snapshot(g) == (
        [row for row in vertices if row[0] not in gone],
        [row for row in edges if row[0] not in gone and row[1] not in gone],
        [[u for u in kids if u not in gone] for uid, kids in zip(slots, out, strict=True)
         if uid not in gone],
    )  # fmt: skip
    for uid, old in slots.items():
        new = vmap[old]
        assert (new < 0) == (uid in gone)
        if new >= 0:
            assert g.uniq_ids[new] == uid and g.schedule.tags[new] == {uid: 0}
    for e_old, e_new in enumerate(emap):
        if e_new >= 0:
            assert (g.uniq_ids[g.edge_src[e_new]], g.uniq_ids[g.edge_dst[e_new]]) == edges[e_old][
                :2
            ]
    for rank, vs in g.by_rank.items():
        assert vs == [v for v in range(g.num_vertices) if g.ranks[v] == rank]
