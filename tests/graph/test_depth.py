"""Graph depth: the level-by-level count on trees equals the depth-first walk's deepest stack."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.graph import ResourceGraph
from fluxgraph.graph.depth import graph_depth, is_tree, tree_depth, walk_depth


@st.composite
def graphs(draw):
    """A random graph on one subsystem: a tree, or a tree with extra edges (shared children,
    edges back up, cycles) when ``extra`` edges are drawn."""
    n = draw(st.integers(1, 30))
    g = ResourceGraph()
    vs = [g.add_vertex("core", "core", i) for i in range(n)]
    for i in range(1, n):
        g.add_edge(vs[draw(st.integers(0, i - 1))], vs[i], "containment")
    for _ in range(draw(st.integers(0, 3))):
        g.add_edge(vs[draw(st.integers(0, n - 1))], vs[draw(st.integers(0, n - 1))], "containment")
    g.set_root("containment", vs[0])
    return g


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(1, 12))
def test_graph_depth_is_the_depth_first_walks_deepest_stack(g, limit):
    root = g.roots["containment"]
    walked = walk_depth([root], g.children("containment").__getitem__, limit)
    assert graph_depth(g, limit=limit) == walked
    levels = tree_depth(g, "containment", root, limit)
    assert levels is None or levels == walked


def test_tree_depth_refuses_shared_children_and_edges_into_the_root():
    g = ResourceGraph()
    a, b, c = (g.add_vertex("core", "core", i) for i in range(3))
    g.add_edge(a, b, "containment")
    g.add_edge(b, c, "containment")
    g.set_root("containment", a)
    assert tree_depth(g, "containment", a) == 3
    g.add_edge(a, c, "containment")  # c now has two parents
    assert tree_depth(g, "containment", a) is None
    assert graph_depth(g) == 3


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_is_tree_is_the_brute_force_forest_test(g):
    """A forest: at most one parent each, and every vertex's chain of parents ends at a
    parentless vertex within ``n`` steps (a chain that does not is on or below a cycle)."""
    parents: dict[int, list[int]] = {}
    for u, kids in enumerate(g.children("containment")):
        for v in kids:
            parents.setdefault(v, []).append(u)
    n = g.num_vertices
    forest = all(len(p) <= 1 for p in parents.values())
    if forest:
        for v in range(n):
            steps = 0
            while v in parents and steps <= n:
                v, steps = parents[v][0], steps + 1
            forest = forest and steps <= n
    assert is_tree(g, "containment") == forest
