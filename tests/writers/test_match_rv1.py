"""The rv1, rv1_nosched and rv1_shorthand match writers (io-and-cli-semantics.md §6.8-§6.10)."""

from __future__ import annotations

import json

from _match_graphs import feed_nodes, feed_one_core, tiny

from fluxgraph.writers.match import Rv1NoschedWriter, Rv1ShorthandWriter, Rv1Writer


def test_rv1_nosched_prints_execution_only():
    t = tiny()
    w = Rv1NoschedWriter()
    feed_nodes(w, t, start=0, end=3600)
    assert w.emit() == (
        '{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": '
        '{"core": "0-3", "gpu": "0-1"}}], "nodelist": ["node[0-1]"], "starttime": 0, '
        '"expiration": 3600}}\n'
    )
    assert w.emit() == ""


def test_rv1_nosched_includes_properties_between_nodelist_and_times():
    t = tiny()
    t.graph.properties[t.v["node1"]] = {"amd": ""}
    w = Rv1NoschedWriter()
    feed_nodes(w, t, nodes=("node1",), start=100, end=3700)
    obj = json.loads(w.emit())
    assert list(obj["execution"]) == [
        "R_lite",
        "nodelist",
        "properties",
        "starttime",
        "expiration",
    ]
    assert obj["execution"]["properties"] == {"amd": "1"}
    assert (obj["execution"]["starttime"], obj["execution"]["expiration"]) == (100, 3700)


def test_rv1_has_scheduling_jgf_and_key_order():
    t = tiny()
    w = Rv1Writer()
    feed_nodes(w, t, nodes=("node0",), start=0, end=60)
    obj = json.loads(w.emit())
    assert list(obj) == ["version", "execution", "scheduling"]
    nodes = obj["scheduling"]["graph"]["nodes"]
    assert len(nodes) == 2 * (2 + 1 + 1) + 1 + 2  # cores, gpu, socket per socket; node, rack, tiny
    assert len(obj["scheduling"]["graph"]["edges"]) == len(nodes) - 1
    assert obj["execution"]["expiration"] == 60


def test_rv1_attributes_are_never_cleared():
    t = tiny()
    w = Rv1Writer()
    feed_nodes(w, t, nodes=("node0",))
    w.emit_attrs("queue", "debug")
    first = json.loads(w.emit())
    assert first["attributes"] == {"system": {"scheduler": {"queue": "debug"}}}
    assert list(first)[-1] == "attributes"
    feed_nodes(w, t, nodes=("node1",))
    assert json.loads(w.emit())["attributes"] == {"system": {"scheduler": {"queue": "debug"}}}


def test_rv1_without_rlite_part_prints_nothing_and_keeps_jgf():
    t = tiny()
    g, v, e = t.graph, t.v, t.e
    w = Rv1Writer()
    # A memory-only match: the node has no cores/gpus, so the R_lite part stays empty.
    w.emit_vtx(g, v["node0/socket0/memory0"], 4, 2, True, False)
    w.emit_edg(g, e["node0/socket0/memory0"], False)
    w.emit_vtx(g, v["node0/socket0"], 3, 1, False, False)
    w.emit_edg(g, e["node0/socket0"], False)
    w.emit_vtx(g, v["node0"], 2, 1, False, False)
    w.emit_tm(0, 10)
    assert w.emit() == ""
    feed_nodes(w, t, nodes=("node1",))
    obj = json.loads(w.emit())
    nodes = obj["scheduling"]["graph"]["nodes"]
    assert nodes[0]["metadata"]["type"] == "memory"
    assert nodes[0]["metadata"]["size"] == 2
    assert obj["execution"]["R_lite"] == [{"rank": "1", "children": {"core": "0-3", "gpu": "0-1"}}]


def test_rv1_emit_json_is_none_when_a_part_is_empty():
    assert Rv1Writer().emit_json() is None
    assert Rv1NoschedWriter().emit_json() is None


def test_rv1_shorthand_scheduling_part_is_shorthand():
    t = tiny()
    w = Rv1ShorthandWriter()
    feed_one_core(w, t)
    obj = json.loads(w.emit())
    assert obj["scheduling"]["writer"] == "fluxion:jgf_shorthand"
    types = [n["metadata"]["type"] for n in obj["scheduling"]["graph"]["nodes"]]
    assert types == ["core", "socket", "node", "rack", "cluster"]
    assert obj["execution"]["R_lite"] == [{"rank": "1", "children": {"core": "3"}}]
