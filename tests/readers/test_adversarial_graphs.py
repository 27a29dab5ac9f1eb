"""Hostile GRUG, JGF and hwloc input ends in a ReaderError, quickly, with the graph unchanged.

Inline versions of the fuzz campaign's reproducers (``../shared/conformance/fuzz-findings``
06-10 and 17) plus neighbours of each.
"""

from __future__ import annotations

import json
import time

import pytest

from fluxgraph.errors import MatchError, ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.graph.depth import MAX_GRAPH_DEPTH
from fluxgraph.matcher import Matcher
from fluxgraph.readers import grug, hwloc, jgf, load
from fluxgraph.readers._xml import MAX_XML_DEPTH, parse_xml
from fluxgraph.readers.grug import MAX_GENERATED_VERTICES

KEYS = """
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="sub" for="node" attr.name="subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="esub" for="edge" attr.name="e_subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="gm" for="edge" attr.name="gen_method" attr.type="string">
    <default>MULTIPLY</default></key>
  <key id="ms" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <key id="sc" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="st" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
"""


def recipe(body: str) -> str:
    return f'<graphml>{KEYS}<graph edgedefault="directed">{body}</graph></graphml>'


def node(key: str, vtype: str, root: bool = False) -> str:
    flag = '<data key="root">1</data>' if root else ""
    return f'<node id="{key}">{flag}<data key="type">{vtype}</data></node>'


def edge(src: str, dst: str, **data: object) -> str:
    body = "".join(f'<data key="{k}">{v}</data>' for k, v in data.items())
    return f'<edge source="{src}" target="{dst}">{body}</edge>'


def _fails(unpack, text: str, **kw) -> ReaderError:
    g = ResourceGraph()
    start = time.process_time()
    with pytest.raises(ReaderError) as info:
        unpack(g, text, source="in", **kw)
    assert time.process_time() - start < 5
    assert g.num_vertices == 0 and g.num_edges == 0 and not g.roots
    return info.value


# -- GRUG --------------------------------------------------------------------------------------


def test_zero_multi_scale_under_an_id_scope_is_refused():
    text = recipe(
        node("a", "cluster", root=True)
        + node("b", "rack", root=True)
        + node("c", "node")
        + edge("a", "b", ms=0)
        + edge("b", "c", ms=1, sc=1)
    )
    err = _fails(grug.unpack, text)
    assert err.reference_message.startswith("error in reading grug string; ")
    assert "multi_scale of 0" in str(err)


def test_negative_multi_scale_wraps_ids_as_cpp_modulo_does():
    text = recipe(
        node("a", "cluster", root=True)
        + node("b", "rack", root=True)
        + node("c", "node")
        + edge("a", "b", ms=-3)
        + edge("b", "c", ms=2, sc=1)
    )
    g = ResourceGraph()
    grug.unpack(g, text)
    assert g.ids[-2:] == [0, 1]  # j = 0 only: 0 % 3 == 0


@pytest.mark.parametrize("digits", [11, 20, 4301, 100_000])
def test_huge_integer_attributes_are_out_of_range(digits):
    text = recipe(
        node("a", "cluster", root=True) + node("b", "node") + edge("a", "b", ms="7" * digits)
    )
    err = _fails(grug.unpack, text)
    assert err.reference_message == "error in reading grug string; "
    assert "out of range" in str(err)


def test_extreme_but_valid_integers_still_load():
    text = recipe(node("a", "cluster", root=True) + node("b", "node") + edge("a", "b", st=-(2**31)))
    grug.unpack(ResourceGraph(), text)


def test_deeply_nested_graph_elements_are_refused_without_recursion():
    inner = node("a", "cluster", root=True)
    text = f"<graphml>{KEYS}" + '<graph edgedefault="directed">' * 1000 + inner
    text += "</graph>" * 1000 + "</graphml>"
    err = _fails(grug.unpack, text)
    assert err.reference_message == "error in reading grug string; "


def test_nested_graph_elements_within_the_depth_limit_are_read():
    depth = MAX_XML_DEPTH - 4  # graphml > graph^depth > node > data
    text = f"<graphml>{KEYS}" + '<graph edgedefault="directed">' * depth
    text += node("a", "cluster", root=True) + node("b", "node") + edge("a", "b", ms=2)
    text += "</graph>" * depth + "</graphml>"
    g = ResourceGraph()
    grug.unpack(g, text)
    assert g.num_vertices == 3


def test_cyclic_recipes_generate_along_the_dfs_tree_only():
    text = recipe(
        node("a", "cluster", root=True)
        + node("b", "rack")
        + node("c", "node")
        + edge("a", "b", ms=2)
        + edge("b", "c", ms=2)
        + edge("c", "b", ms=2)
        + edge("c", "a", ms=2)
        + edge("b", "b", ms=2)
    )
    g = ResourceGraph()
    grug.unpack(g, text)
    assert g.num_vertices == 1 + 2 + 4


def test_long_recipe_chains_are_refused_without_recursion():
    n = 3000
    body = node("v0", "cluster", root=True)
    body += "".join(node(f"v{i}", f"t{i}") for i in range(1, n))
    body += "".join(edge(f"v{i}", f"v{i + 1}") for i in range(n - 1))
    assert "deeper than" in str(_fails(grug.unpack, recipe(body)))


@pytest.mark.parametrize(("levels", "scale"), [(3, 1500), (6, 2**31 - 1), (2, 10**9)])
def test_exponential_recipes_are_refused_before_they_exhaust_memory(levels, scale):
    body = node("v0", "cluster", root=True)
    body += "".join(node(f"v{i}", f"t{i}") for i in range(1, levels + 1))
    body += "".join(edge(f"v{i}", f"v{i + 1}", ms=scale) for i in range(levels))
    err = _fails(grug.unpack, recipe(body))
    assert f"more than {MAX_GENERATED_VERTICES} vertices" in str(err)


def test_associate_edges_are_bounded():
    body = node("c", "cluster", root=True) + node("n", "node") + node("p", "pdu", root=True)
    body += node("q", "outlet") + node("m", "node")
    body += edge("c", "n", ms=4000) + edge("p", "q", ms=4000)
    body += edge("q", "m", gm="ASSOCIATE_IN", esub="power")
    err = _fails(grug.unpack, recipe(body))
    assert "vertex pairs" in str(err)


# -- XML ---------------------------------------------------------------------------------------


def test_undecodable_bytes_are_malformed_xml(tmp_path):
    good = recipe(node("a", "cluster", root=True))
    bad = good.replace("cluster", "clu\udcffster")
    err = _fails(grug.unpack, bad)
    assert err.reference_message == "error in reading grug string; "
    assert "0xff" in str(err)
    err = _fails(hwloc.unpack, bad)
    assert err.reference_message == "Error hwloc load: rank -1; "
    path = tmp_path / "bad.graphml"
    path.write_bytes(good.replace("cluster", "clu\xffster").encode("latin-1"))
    with pytest.raises(ReaderError, match="cannot read"):
        load(path)


def test_xml_element_count_and_depth_are_bounded():
    with pytest.raises(ReaderError, match="nested deeper"):
        parse_xml("<a>" * (MAX_XML_DEPTH + 1) + "</a>" * (MAX_XML_DEPTH + 1))
    parse_xml("<a>" * MAX_XML_DEPTH + "</a>" * MAX_XML_DEPTH)


def test_oversized_graph_files_are_refused():
    with pytest.raises(ReaderError, match="File too large"):
        load("/dev/zero")


# -- JGF ---------------------------------------------------------------------------------------


def _jgf(node_id: str, **meta) -> str:
    meta = {"type": "cluster", "paths": {"containment": "/c0"}, **meta}
    return json.dumps({"graph": {"nodes": [{"id": node_id, "metadata": meta}], "edges": []}})


@pytest.mark.parametrize("digits", [20, 4301, 50_000])
def test_jgf_huge_outer_ids_are_not_integers(digits):
    err = _fails(jgf.unpack, _jgf("1" * digits))
    assert err.reference_message.startswith("apply_defaults: value for key (uniq_id)")


@pytest.mark.parametrize("digits", [20, 4301])
def test_jgf_huge_numbers_are_too_big_integers(digits):
    text = _jgf("0").replace('"paths"', f'"rank": {"9" * digits}, "paths"')
    err = _fails(jgf.unpack, text)
    assert "too big integer" in err.reference_message
    text = _jgf("0").replace('"paths"', f'"rank": -{"9" * digits}, "paths"')
    assert "too big negative integer" in _fails(jgf.unpack, text).reference_message


def test_jgf_huge_trailing_digits_in_a_node_name():
    text = _jgf("0", type="node", name="n" + "5" * 5000)
    assert "malformed metadata" in _fails(jgf.unpack, text).reference_message


def test_jgf_deep_nesting():
    text = '{"graph": {"nodes": ' + "[" * 100_000 + "]" * 100_000 + ', "edges": []}}'
    assert "json_loads" in _fails(jgf.unpack, text).reference_message


# -- hwloc -------------------------------------------------------------------------------------

MACHINE = (
    '<topology version="2.0"><object type="Machine" cpuset="0x1" complete_cpuset="0x1">'
    '<info name="HostName" value="n1"/>'
    '<object type="PU" cpuset="0x1" complete_cpuset="0x1"/>{io}</object></topology>'
)


@pytest.mark.parametrize("digits", [11, 4301, 50_000])
def test_hwloc_huge_gpu_ids(digits):
    io = (
        '<object type="Bridge"><object type="PCIDev">'
        f'<object type="OSDev" name="opencl0d{"1" * digits}" osdev_type="5"/>'
        "</object></object>"
    )
    err = _fails(hwloc.unpack, MACHINE.format(io=io))
    assert err.reference_message == "Error hwloc walk: rank -1; "


@pytest.mark.parametrize("digits", [21, 4301])
def test_hwloc_huge_block_sizes(digits):
    io = (
        '<object type="Bridge"><object type="PCIDev">'
        '<object type="OSDev" name="sda" osdev_type="0">'
        f'<info name="Size" value="{"9" * digits}"/></object>'
        "</object></object>"
    )
    err = _fails(hwloc.unpack, MACHINE.format(io=io))
    assert err.reference_message == "Error hwloc walk: rank -1; "


def test_hwloc_huge_bitmaps_and_attributes():
    text = MACHINE.format(io="").replace(
        'cpuset="0x1"', 'cpuset="' + ",".join(["0x1"] * 5000) + '"', 1
    )
    assert _fails(hwloc.unpack, text).reference_message == "Error hwloc load: rank -1; "
    text = MACHINE.format(io='<object type="L2Cache" cache_size="' + "9" * 5000 + '"/>')
    assert _fails(hwloc.unpack, text).reference_message == "Error hwloc load: rank -1; "


# -- depth ---------------------------------------------------------------------------------------


def _chain_graph(depth: int) -> ResourceGraph:
    g = ResourceGraph()
    prev = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", prev)
    path = "/c0"
    for i in range(1, depth):
        path += f"/t{i}"
        v = g.add_vertex(f"t{i}", f"t{i}", 0, paths={"containment": path}, name=f"t{i}")
        g.add_edge(prev, v, "containment")
        prev = v
    return g


def test_grug_recipes_deeper_than_the_traverser_can_walk_are_refused():
    n = MAX_GRAPH_DEPTH + 1
    body = node("v0", "cluster", root=True)
    body += "".join(node(f"v{i}", f"t{i}") for i in range(1, n))
    body += "".join(edge(f"v{i}", f"v{i + 1}") for i in range(n - 1))
    assert "deeper than" in str(_fails(grug.unpack, recipe(body)))
    body = node("v0", "cluster", root=True)
    body += "".join(node(f"v{i}", f"t{i}") for i in range(1, n - 1))
    body += "".join(edge(f"v{i}", f"v{i + 1}") for i in range(n - 2))
    g = ResourceGraph()
    grug.unpack(g, recipe(body))
    Matcher(g, policy="high").cancel  # noqa: B018  (a matcher can be built on it)


def test_jgf_documents_deeper_than_the_limit_are_refused():
    from fluxgraph.writers.jgf import to_jgf

    doc = json.dumps(to_jgf(_chain_graph(MAX_GRAPH_DEPTH + 1)))
    err = _fails(jgf.unpack, doc)
    assert "deeper than" in str(err)
    g = ResourceGraph()
    jgf.unpack(g, json.dumps(to_jgf(_chain_graph(MAX_GRAPH_DEPTH))))
    assert g.num_vertices == MAX_GRAPH_DEPTH


def test_attach_may_not_make_the_graph_too_deep():
    from fluxgraph.writers.jgf import to_jgf

    base = _chain_graph(MAX_GRAPH_DEPTH - 1)
    m = Matcher(base, policy="high")
    leaf = base.num_vertices - 1
    leaf_path = base.paths[leaf]["containment"]
    extra = {
        "graph": {
            "nodes": [
                {
                    "id": str(base.uniq_ids[leaf]),
                    "metadata": {
                        "type": base.types[leaf],
                        "name": base.names[leaf],
                        "id": 0,
                        "paths": {"containment": leaf_path},
                    },
                },
                {
                    "id": "9001",
                    "metadata": {"type": "x", "id": 1, "paths": {"containment": leaf_path + "/x1"}},
                },
                {
                    "id": "9002",
                    "metadata": {
                        "type": "x",
                        "id": 2,
                        "paths": {"containment": leaf_path + "/x1/x2"},
                    },
                },
            ],
            "edges": [
                {"source": str(base.uniq_ids[leaf]), "target": "9001"},
                {"source": "9001", "target": "9002"},
            ],
        }
    }
    before = (base.num_vertices, base.num_edges)
    with pytest.raises(ReaderError, match="deeper than"):
        m.attach(json.dumps(extra))
    assert (base.num_vertices, base.num_edges) == before
    del extra["graph"]["nodes"][2], extra["graph"]["edges"][1]
    m.attach(json.dumps(extra))
    assert base.num_vertices == before[0] + 1
    assert to_jgf  # the writer round trip above used it


def test_a_hand_built_graph_deeper_than_the_limit_gets_no_matcher():
    with pytest.raises(MatchError, match="deeper than"):
        Matcher(_chain_graph(MAX_GRAPH_DEPTH + 1))


def test_a_matcher_needs_a_subsystem():
    with pytest.raises(MatchError, match="no subsystem"):
        Matcher(_chain_graph(3), subsystems=[])


# -- unicode -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("escape", "message"),
    [
        ("\\ud800", "invalid Unicode '\\uD800'"),
        ("x\\udfff", "invalid Unicode '\\uDFFF'"),
        ("\\ud800\\ud800", "invalid Unicode '\\uD800'"),
        ("\udcff", "unable to decode byte 0xff"),
    ],
)
def test_jgf_strings_must_be_real_unicode(escape, message):
    text = _jgf("0").replace('"cluster"', f'"clu{escape}ster"')
    err = _fails(jgf.unpack, text)
    assert err.reference_message.startswith(f"fetch_jgf: json_loads returned an error: {message}")
    assert "<string>@1:" in err.reference_message


def test_jgf_surrogate_pairs_and_escaped_backslashes_are_fine():
    g = ResourceGraph()
    jgf.unpack(g, _jgf("0").replace('"cluster"', '"c\\ud83d\\ude00"'))
    assert g.types == ["c\U0001f600"]
    g = ResourceGraph()
    jgf.unpack(g, _jgf("0").replace('"cluster"', '"c\\\\ud800"'))
    assert g.types == ["c\\ud800"]


def test_rv1exec_strings_must_be_real_unicode():
    from fluxgraph.readers import rv1exec

    text = (
        '{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}], '
        '"nodelist": ["n\\ud8000"]}}'
    )
    assert "invalid Unicode" in str(_fails(rv1exec.unpack, text))
