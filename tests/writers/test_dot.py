"""Whole-graph DOT writer."""

from __future__ import annotations

from pathlib import Path

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers.grug import unpack
from fluxgraph.writers import to_dot, write_dot

RECIPES = Path(__file__).resolve().parents[2] / "grug_recipes"


def two_subsystems() -> ResourceGraph:
    g = ResourceGraph()
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    n = g.add_vertex("node", "n", 0, paths={"containment": "/c0/n0", "power": "/p0/n0"})
    p = g.add_vertex("panel", "p", 0, paths={"power": "/p0"})
    g.add_edge(c, n, "containment")
    g.add_edge(p, n, "power")
    return g


def test_to_dot_lists_vertices_then_edges_with_subsystem_labels() -> None:
    assert to_dot(two_subsystems()) == (
        "digraph G {\n"
        '0[label="c0"];\n'
        '1[label="n0"];\n'
        '2[label="p0"];\n'
        '0->1 [label="containment"];\n'
        '2->1 [label="power"];\n'
        "}\n"
    )


def test_to_dot_filters_by_subsystem_and_keeps_vertex_ids() -> None:
    assert to_dot(two_subsystems(), subsystems=["power"]) == (
        'digraph G {\n1[label="n0"];\n2[label="p0"];\n2->1 [label="power"];\n}\n'
    )


def test_to_dot_of_empty_graph() -> None:
    assert to_dot(ResourceGraph()) == "digraph G {\n}\n"


def test_to_dot_escapes_quotes_in_labels() -> None:
    g = ResourceGraph()
    g.add_vertex("x", 'a"b\\', -1)
    assert '0[label="a\\"b\\\\"];' in to_dot(g)


def test_write_dot_of_generated_recipe(tmp_path: Path) -> None:
    g = ResourceGraph()
    unpack(g, (RECIPES / "multi-subsystem.graphml").read_text())
    out = tmp_path / "multi.dot"
    write_dot(g, out)
    lines = out.read_text().splitlines()
    assert len(lines) == 2 + g.num_vertices + g.num_edges
    assert lines[1] == '0[label="multi0"];'
    assert sum(line.endswith('[label="power"];') for line in lines) == sum(
        s == "power" for s in g.edge_subsystem
    )
