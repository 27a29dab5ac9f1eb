"""The rlite match writer (io-and-cli-semantics.md §6.7, §6.13)."""

from __future__ import annotations

import errno
import json

import pytest
from _match_graphs import feed_nodes, tiny

from fluxgraph.errors import MatchError
from fluxgraph.graph import ResourceGraph
from fluxgraph.writers.match import RliteWriter


def _emit_node(w, t, node, keys):
    g, v = t.graph, t.v
    for key in keys:
        w.emit_vtx(g, v[f"{node}/{key}"], 5, 1, True, False)
    w.emit_vtx(g, v[node], 3, 1, False, False)


def test_rlite_groups_identical_nodes():
    t = tiny()
    w = RliteWriter()
    feed_nodes(w, t)
    assert w.emit() == '[{"rank": "0-1", "children": {"core": "0-3", "gpu": "0-1"}}]\n'


def test_rlite_orders_groups_by_children_text_not_emission():
    t = tiny()
    w = RliteWriter()
    _emit_node(w, t, "node1", ["socket0/core1", "socket1/core2"])
    _emit_node(w, t, "node0", ["socket0/core0", "socket0/core1", "socket1/core2"])
    rlite = json.loads(w.emit())
    assert rlite == [
        {"rank": "0", "children": {"core": "0-2"}},
        {"rank": "1", "children": {"core": "1-2"}},
    ]


def test_rlite_children_list_core_before_gpu():
    t = tiny()
    w = RliteWriter()
    _emit_node(w, t, "node0", ["socket1/gpu1", "socket0/gpu0", "socket1/core3", "socket0/core0"])
    assert w.emit() == '[{"rank": "0", "children": {"core": "0,3", "gpu": "0-1"}}]\n'


def test_rlite_drops_nodes_without_cores_or_gpus():
    t = tiny()
    w = RliteWriter()
    _emit_node(w, t, "node0", ["socket0/memory0", "socket0"])
    with pytest.raises(MatchError) as info:
        w.emit()
    assert info.value.errno == errno.EINVAL


def test_rlite_emit_of_nothing_fails_with_einval():
    with pytest.raises(MatchError) as info:
        RliteWriter().emit()
    assert info.value.errno == errno.EINVAL


def test_rlite_emit_json_and_clear():
    t = tiny()
    w = RliteWriter()
    feed_nodes(w, t, nodes=("node1",))
    assert w.emit_json() == [{"rank": "1", "children": {"core": "0-3", "gpu": "0-1"}}]
    assert w.empty


def test_rlite_build_gives_nodelist_by_rank_and_properties():
    t = tiny()
    g, v = t.graph, t.v
    g.properties[v["node0"]] = {"perf": "fast", "ssd": ""}
    g.properties[v["node1"]] = {"ssd": ""}
    w = RliteWriter()
    _emit_node(w, t, "node1", ["socket0/core0"])
    _emit_node(w, t, "node0", ["socket0/core0", "socket0/core1"])
    rlite, nodelist, props = w.build()
    # '{"core": "0"}' sorts before '{"core": "0-1"}' (byte order: '"' < '-').
    assert [entry["rank"] for entry in rlite] == ["1", "0"]
    assert nodelist == ["node[0-1]"]
    assert props == {"perf=fast": "0", "ssd": "0-1"}
    assert not w.empty  # build does not clear


def test_rlite_nodelist_keeps_rank_order_across_groups():
    g = ResourceGraph()
    w = RliteWriter()
    for rank, name, ncores in ((2, "b2", 1), (0, "a7", 2), (1, "a8", 1)):
        for c in range(ncores):
            w.emit_vtx(g, g.add_vertex("core", "core", c), 2, 1, True, False)
        w.emit_vtx(g, g.add_vertex("node", name[0], int(name[1:]), rank=rank), 1, 1, True, False)
    _, nodelist, props = w.build()
    assert nodelist == ["a[7-8],b2"]
    assert props is None


def test_rlite_negative_rank_fails_and_keeps_state():
    g = ResourceGraph()
    w = RliteWriter()
    w.emit_vtx(g, g.add_vertex("core", "core", 0), 2, 1, True, False)
    w.emit_vtx(g, g.add_vertex("node", "fluke", -1), 1, 1, False, False)
    for _ in range(2):
        with pytest.raises(MatchError) as info:
            w.emit()
        assert info.value.errno == errno.EINVAL
    assert not w.empty


def test_rlite_ignores_edges_needs_and_exclusivity():
    t = tiny()
    w1, w2 = RliteWriter(), RliteWriter()
    feed_nodes(w1, t)
    g, v = t.graph, t.v
    for n in ("node0", "node1"):
        for key in ("socket0/core0", "socket0/core1", "socket1/core2", "socket1/core3"):
            w2.emit_vtx(g, v[f"{n}/{key}"], 1, 9, False, False)
        for key in ("socket0/gpu0", "socket1/gpu1"):
            w2.emit_vtx(g, v[f"{n}/{key}"], 1, 9, False, False)
        w2.emit_vtx(g, v[n], 1, 9, False, False)
    assert w1.emit() == w2.emit()
