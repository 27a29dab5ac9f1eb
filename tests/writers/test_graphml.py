"""Whole-graph GraphML writer: Boost write_graphml layout, readable by networkx."""

from __future__ import annotations

import io
from pathlib import Path

import networkx as nx

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers import load
from fluxgraph.readers._xml import parse_xml
from fluxgraph.writers import to_graphml, write_graphml

RECIPES = Path(__file__).resolve().parents[2] / "grug_recipes"
NS = "{http://graphml.graphdrawing.org/xmlns}"


def test_to_graphml_declares_keys_sorted_by_attribute_name() -> None:
    root = parse_xml(to_graphml(ResourceGraph()))
    keys = [(k.get("id"), k.get("for"), k.get("attr.name")) for k in root.iter(NS + "key")]
    assert [name for _, _, name in keys] == [
        "basename", "id", "member_of", "member_of", "name", "paths", "props", "size", "type",
        "uniq_id", "unit",
    ]  # fmt: skip
    assert keys[2][1:] == ("node", "member_of") and keys[3][1:] == ("edge", "member_of")
    assert [k for k, _, _ in keys] == [f"key{i}" for i in range(11)]


def test_to_graphml_round_trips_through_networkx() -> None:
    g = load(RECIPES / "multi-subsystem.graphml")
    g.properties[3] = {"arch": "x86", "perf": "high"}
    nxg = nx.read_graphml(io.StringIO(to_graphml(g)))
    assert nxg.number_of_nodes() == g.num_vertices
    assert nxg.number_of_edges() == g.num_edges
    node = nxg.nodes["n3"]
    assert node["name"] == "node0" and node["uniq_id"] == 3 and node["size"] == 1
    assert node["paths"] == "{containment=/multi0/rack0/node0,power=/powerpanel0/pdu0/node0}"
    assert node["member_of"] == "{containment,power}"
    assert node["props"] == "{arch=x86,perf=high}"
    edges = {(u, v): d["member_of"] for u, v, d in nxg.edges(data=True)}
    assert edges[("n0", "n1")] == "{containment}"


def test_to_graphml_filters_by_subsystem() -> None:
    g = load(RECIPES / "multi-subsystem.graphml")
    nxg = nx.read_graphml(io.StringIO(to_graphml(g, subsystems=["power"])))
    assert set(nxg.nodes) == {f"n{v}" for v in range(g.num_vertices) if "power" in g.member_of[v]}
    assert all(d["member_of"] == "{power}" for _, _, d in nxg.edges(data=True))


def test_to_graphml_escapes_markup(tmp_path: Path) -> None:
    g = ResourceGraph()
    g.add_vertex("x", "a<&>\"'", -1)
    out = tmp_path / "g.graphml"
    write_graphml(g, out)
    root = parse_xml(out.read_text())
    data = root.find(f"{NS}graph/{NS}node/{NS}data")
    assert data is not None and data.text == "a<&>\"'"
