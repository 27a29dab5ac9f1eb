"""The jgf and jgf_shorthand match writers (io-and-cli-semantics.md §6.2, §6.5-§6.6)."""

from __future__ import annotations

import errno
import json

import pytest
from _match_graphs import feed_one_core, tiny

from fluxgraph.errors import MatchError
from fluxgraph.graph import ResourceGraph
from fluxgraph.writers.match import JgfShorthandWriter, JgfWriter, dumps


def test_json_text_uses_jansson_spacing_and_uppercase_escapes():
    assert dumps({"a": [1, 2], "b": {}, "c": []}) == '{"a": [1, 2], "b": {}, "c": []}'
    assert dumps("x\x1by\x7f/é\n\t\\u00ab") == '"x\\u001By\x7f/é\\n\\t\\\\u00ab"'


def test_jgf_vertex_metadata_omits_defaults():
    g = ResourceGraph()
    fluke = g.add_vertex("node", "fluke", -1, rank=3, paths={"containment": "/c0/fluke"})
    core = g.add_vertex("core", "core", 7, paths={"containment": "/c0/fluke/core7"})
    w = JgfWriter()
    w.emit_vtx(g, core, 2, 1, True, True)
    w.emit_edg(g, g.add_edge(fluke, core, "containment"), False)
    w.emit_vtx(g, fluke, 1, 1, False, False)
    doc = json.loads(w.emit())
    core_meta, fluke_meta = (n["metadata"] for n in doc["graph"]["nodes"])
    assert list(core_meta) == ["type", "id", "rank", "exclusive", "paths"]
    assert list(fluke_meta) == ["type", "basename", "name", "id", "rank", "paths"]
    assert fluke_meta["name"] == "fluke" and fluke_meta["id"] == -1


def test_jgf_vertex_metadata_key_order_with_every_key():
    g = ResourceGraph()
    m = g.add_vertex(
        "memory",
        "mem",
        6,
        name="bigmem",
        rank=2,
        size=16,
        unit="GB",
        properties={"zeta": "1", "alpha": ""},
        paths={"containment": "/c0/mem6", "power": "/p0/mem6"},
    )
    g.schedule.grow(g.num_vertices)
    g.schedule.ephemeral[m] = {"label": "job-a", "color": "red"}
    w = JgfWriter()
    w.emit_vtx(g, m, 3, 4, True, False, agfilter=[("memory", 4, 16), ("core", 0, 2)])
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    w.emit_edg(g, g.add_edge(c, m, "power"), False)
    text = w.emit()
    assert text.endswith("}\n") and text.count("\n") == 1
    node = json.loads(text)["graph"]["nodes"][0]
    assert node["id"] == "0"
    assert list(node["metadata"].items()) == [
        ("type", "memory"),
        ("basename", "mem"),
        ("name", "bigmem"),
        ("id", 6),
        ("rank", 2),
        ("properties", {"alpha": "", "zeta": "1"}),
        ("unit", "GB"),
        ("exclusive", True),
        ("size", 4),
        ("paths", {"containment": "/c0/mem6", "power": "/p0/mem6"}),
        ("ephemeral", {"color": "red", "label": "job-a"}),
        ("agfilter", {"core": "used:0, total:2", "memory": "used:4, total:16"}),
    ]
    assert list(node["metadata"]["properties"]) == ["alpha", "zeta"]
    assert json.loads(text)["graph"]["edges"] == [
        {"source": "1", "target": "0", "metadata": {"subsystem": "power"}}
    ]


def test_jgf_ids_are_uniq_id_strings():
    g = ResourceGraph()
    a = g.add_vertex("cluster", "c", 0, uniq_id=100, paths={"containment": "/c0"})
    b = g.add_vertex("node", "node", 0, uniq_id=7, paths={"containment": "/c0/node0"})
    w = JgfWriter()
    w.emit_vtx(g, b, 2, 1, True, False)
    w.emit_edg(g, g.add_edge(a, b, "containment"), False)
    w.emit_vtx(g, a, 1, 1, False, False)
    assert w.emit() == (
        '{"graph": {"nodes": [{"id": "7", "metadata": {"type": "node", "id": 0, "rank": -1, '
        '"exclusive": true, "paths": {"containment": "/c0/node0"}}}, {"id": "100", "metadata": '
        '{"type": "cluster", "basename": "c", "id": 0, "rank": -1, "paths": {"containment": '
        '"/c0"}}}], "edges": [{"source": "100", "target": "7"}]}}\n'
    )


def test_jgf_emit_of_nothing_is_empty():
    w = JgfWriter()
    assert w.emit() == ""
    assert w.emit_json() is None


def test_jgf_emit_with_vertices_but_no_edges_fails_and_keeps_them():
    t = tiny()
    g, v = t.graph, t.v
    w = JgfWriter()
    w.emit_vtx(g, v["node0/socket0/memory0"], 5, 2, True, False)
    with pytest.raises(MatchError) as info:
        w.emit()
    assert info.value.errno == errno.ENOENT
    feed_one_core(w, t)
    doc = json.loads(w.emit())
    ids = [n["id"] for n in doc["graph"]["nodes"]]
    assert ids[0] == str(g.uniq_ids[v["node0/socket0/memory0"]])
    assert len(ids) == 6 and len(doc["graph"]["edges"]) == 4
    assert w.emit() == ""


def test_jgf_shorthand_drops_children_of_exclusive_vertices():
    t = tiny()
    w = JgfShorthandWriter()
    feed_one_core(w, t)
    doc = json.loads(w.emit())
    names = [n["metadata"]["paths"]["containment"].rsplit("/", 1)[1] for n in doc["graph"]["nodes"]]
    assert names == ["core3", "socket1", "node1", "rack0", "tiny0"]
    assert len(doc["graph"]["edges"]) == 3
    assert list(doc) == ["graph", "writer"]
    assert doc["writer"] == "fluxion:jgf_shorthand"


def test_jgf_shorthand_writer_key_is_sticky():
    t = tiny()
    g, v, e = t.graph, t.v, t.e
    w = JgfShorthandWriter()
    w.emit_vtx(g, v["node0/socket0"], 3, 1, True, False)
    w.emit_edg(g, e["node0/socket0"], False)
    w.emit_vtx(g, v["node0"], 2, 1, False, False)
    assert "writer" not in json.loads(w.emit())
    w.emit_vtx(g, v["node0/socket0/core0"], 4, 1, True, True)
    w.emit_edg(g, e["node0/socket0/core0"], True)
    w.emit_vtx(g, v["node0/socket0"], 3, 1, True, False)
    w.emit_edg(g, e["node0/socket0"], False)
    w.emit_vtx(g, v["node0"], 2, 1, False, False)
    assert json.loads(w.emit())["writer"] == "fluxion:jgf_shorthand"
    w.emit_vtx(g, v["node1/socket0"], 3, 1, True, False)
    w.emit_edg(g, e["node1/socket0"], False)
    w.emit_vtx(g, v["node1"], 2, 1, False, False)
    assert json.loads(w.emit())["writer"] == "fluxion:jgf_shorthand"
