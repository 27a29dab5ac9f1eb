"""Tests of the whole-graph JGF writer: text conventions, element format, round trips."""

from __future__ import annotations

import importlib.util
import io
import json
import os
from pathlib import Path

import pytest

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers import load
from fluxgraph.readers.jgf import from_jgf
from fluxgraph.writers.jgf import dumps, edge_element, node_element, to_jgf, write_jgf

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
RESOURCE = SHARED / "conformance" / "data" / "data" / "resource"

VERTEX_FIELDS = (
    "types",
    "basenames",
    "names",
    "ids",
    "uniq_ids",
    "ranks",
    "sizes",
    "properties",
    "paths",
    "member_of",
)
EDGE_FIELDS = ("edge_src", "edge_dst", "edge_subsystem")


def assert_same_graph(a: ResourceGraph, b: ResourceGraph) -> None:
    """Equal in everything JGF carries (it drops ``unit``, ``status`` and edge ``member_of``)."""
    for name in (*VERTEX_FIELDS, *EDGE_FIELDS):
        assert getattr(a, name) == getattr(b, name), name
    assert [list(p) for p in a.paths] == [list(p) for p in b.paths]  # same key order
    assert a.roots == b.roots
    assert a.subsystems() == b.subsystems()


def tiny_graph() -> ResourceGraph:
    g = ResourceGraph()
    c = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0", "power": "/p0"})
    g.set_root("containment", c)
    g.set_root("power", c)
    n = g.add_vertex(
        "node",
        "fluke",
        -1,
        name="fluke",
        rank=3,
        properties={"zeta": "", "alpha": "x"},
        paths={"containment": "/tiny0/fluke"},
    )
    m = g.add_vertex(
        "memory", "memory", 2, size=16, unit="GB", paths={"containment": "/tiny0/fluke/memory2"}
    )
    pdu = g.add_vertex("pdu", "pdu", 0, paths={"power": "/p0/pdu0"})
    g.add_edge(c, n, "containment")
    g.add_edge(n, m, "containment")
    g.add_edge(c, pdu, "power")
    return g


def test_dumps_follows_jansson_conventions():
    obj = {"b": [1, -2, 'q"\\/\b\f\n\r\t\x01\x1b\x7fé€'], "a": {}, "c": [], "d": True, "e": None}
    assert dumps(obj) == (
        '{"b": [1, -2, "q\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001B\x7fé€"], "a": {}, "c": [], '
        '"d": true, "e": null}'
    )


def test_dumps_leaves_escaped_backslash_before_u_alone():
    assert dumps("\\u00ab") == '"\\\\u00ab"'


def test_node_element_writes_only_needed_keys_in_reference_order():
    g = tiny_graph()
    assert node_element(g, 0) == {
        "id": "0",
        "metadata": {
            "type": "cluster",
            "basename": "tiny",
            "id": 0,
            "rank": -1,
            "paths": {"containment": "/tiny0", "power": "/p0"},
        },
    }
    meta = node_element(g, 1)["metadata"]
    assert list(meta) == ["type", "basename", "name", "id", "rank", "properties", "paths"]
    assert list(meta["properties"]) == ["alpha", "zeta"]
    meta = node_element(g, 2)["metadata"]
    assert list(meta) == ["type", "id", "rank", "unit", "size", "paths"]
    assert (meta["unit"], meta["size"]) == ("GB", 16)


def test_node_element_uses_uniq_id_as_element_id():
    g = ResourceGraph()
    g.add_vertex("core", "core", 3, uniq_id=77)
    element = node_element(g, 0)
    assert element["id"] == "77"
    assert "paths" not in element["metadata"]


def test_edge_element_names_non_containment_subsystem_only():
    g = tiny_graph()
    assert edge_element(g, 0) == {"source": "0", "target": "1"}
    assert edge_element(g, 2) == {"source": "0", "target": "3", "metadata": {"subsystem": "power"}}


def test_to_jgf_lists_vertices_and_edges_in_id_order():
    doc = to_jgf(tiny_graph())
    assert [n["id"] for n in doc["graph"]["nodes"]] == ["0", "1", "2", "3"]
    assert [(e["source"], e["target"]) for e in doc["graph"]["edges"]] == [
        ("0", "1"),
        ("1", "2"),
        ("0", "3"),
    ]


def test_write_jgf_writes_one_line_and_newline(tmp_path):
    g = tiny_graph()
    path = tmp_path / "g.json"
    write_jgf(g, path)
    buffer = io.StringIO()
    write_jgf(g, buffer)
    assert path.read_text() == buffer.getvalue() == dumps(to_jgf(g)) + "\n"
    assert buffer.getvalue().count("\n") == 1


def test_round_trip_hand_built_graph():
    g = tiny_graph()
    back = from_jgf(json.loads(dumps(to_jgf(g))))
    back._check()
    assert_same_graph(g, back)
    assert back.units == ["", "", "", ""]  # the reference reader drops units


def test_round_trip_keeps_status_only_through_reader_default():
    g = tiny_graph()
    g.status[1] = 1
    back = from_jgf(to_jgf(g))
    assert back.status[1] == 0


def _files(pattern):
    if not RESOURCE.exists():
        return []
    return sorted(RESOURCE.glob(pattern))


@pytest.mark.parametrize("path", _files("jgfs/**/*.json"), ids=lambda p: p.name)
def test_round_trip_conformance_jgf(path):
    g = load(path, "jgf")
    text = dumps(to_jgf(g))
    back = from_jgf(json.loads(text))
    back._check()
    assert_same_graph(g, back)
    assert dumps(to_jgf(back)) == text


# Recipes generating 100k+ vertices take ~15 s each here: opt in with FLUXGRAPH_RUNSLOW=1.
_BIG_RECIPES = ("sierra.graphml", "disaggr.graphml")
_SLOW = pytest.mark.skipif(not os.environ.get("FLUXGRAPH_RUNSLOW"), reason="FLUXGRAPH_RUNSLOW")


@pytest.mark.skipif(
    importlib.util.find_spec("fluxgraph.readers.grug") is None, reason="GRUG reader not present"
)
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=(pytest.mark.slow, _SLOW)) if p.name in _BIG_RECIPES else p
        for p in _files("grugs/**/*.graphml")
    ],
    ids=lambda p: p.name,
)
def test_round_trip_grug_through_jgf(path):
    g = load(path, "grug")
    back = from_jgf(json.loads(dumps(to_jgf(g))))
    back._check()
    assert_same_graph(g, back)
