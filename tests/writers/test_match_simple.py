"""The simple and pretty_simple match writers (io-and-cli-semantics.md §6.3-§6.4)."""

from __future__ import annotations

from _match_graphs import feed_one_core, tiny

from fluxgraph.writers.match import PrettySimpleWriter, SimpleWriter
from fluxgraph.writers.match.simple import level_prefix


def test_level_prefix_is_six_spaces_and_dashes_per_level():
    assert level_prefix(1) == "      ---"
    assert level_prefix(5) == "      " + "-" * 15


def test_simple_writer_prints_post_order_lines():
    t = tiny()
    w = SimpleWriter()
    feed_one_core(w, t)
    w.emit_tm(0, 3600)
    w.emit_attrs("queue", "batch")
    assert w.emit() == (
        "      ---------------core3[1:x]\n"
        "      ------------socket1[1:x]\n"
        "      ---------node1[1:s]\n"
        "      ------rack0[1:s]\n"
        "      ---tiny0[1:s]\n"
    )


def test_simple_emit_clears_and_empty_emit_is_empty():
    t = tiny()
    w = SimpleWriter()
    assert w.emit() == ""
    feed_one_core(w, t)
    assert w.emit()
    assert w.emit() == ""


def test_simple_shows_needs_not_pool_size():
    t = tiny()
    w = SimpleWriter()
    w.emit_vtx(t.graph, t.v["node0/socket1/memory1"], 5, 2, True, False)
    w.emit_vtx(t.graph, t.v["node0/socket1/memory1"], 5, 4, False, False)
    assert w.emit() == "      ---------------memory1[2:x]\n      ---------------memory1[4:s]\n"


def test_simple_emit_json_is_the_text_or_none():
    t = tiny()
    w = SimpleWriter()
    assert w.emit_json() is None
    w.emit_vtx(t.graph, t.v["tiny0"], 1, 1, True, False)
    assert w.emit_json() == "      ---tiny0[1:x]\n"
    assert w.emit_json() is None


def test_pretty_simple_reverses_order_and_spells_out_exclusivity():
    t = tiny()
    w = PrettySimpleWriter()
    feed_one_core(w, t)
    assert w.emit() == (
        "      ---tiny0[1:shared]\n"
        "      ------rack0[1:shared]\n"
        "      ---------node1[1:shared]\n"
        "      ------------socket1[1:exclusive]\n"
        "      ---------------core3[1:exclusive]\n"
    )
    assert w.emit() == ""


def test_pretty_simple_lists_siblings_in_reverse_graph_order():
    t = tiny()
    g, v = t.graph, t.v
    w = PrettySimpleWriter()
    for key in ("node0/socket0/core0", "node0/socket0/core1", "node0/socket0/gpu0"):
        w.emit_vtx(g, v[key], 2, 1, True, True)
    w.emit_vtx(g, v["node0/socket0"], 1, 1, True, False)
    names = [line.strip("- ").split("[")[0] for line in w.emit().splitlines()]
    assert names == ["socket0", "gpu0", "core1", "core0"]
