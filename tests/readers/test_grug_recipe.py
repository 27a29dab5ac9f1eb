"""The GraphML layer of GRUG: Boost read_graphml rules, typed fields and errors."""

from __future__ import annotations

import pytest

from fluxgraph.errors import ReaderError
from fluxgraph.readers.grug_recipe import GRUG_ERROR, parse_recipe

NODE_KEYS = """
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"/>
  <key id="root" for="node" attr.name="root" attr.type="int"/>
"""
EDGE_KEYS = """
  <key id="ms" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <key id="gm" for="edge" attr.name="gen_method" attr.type="string">
    <default>MULTIPLY</default></key>
"""


def doc(body: str, keys: str = NODE_KEYS + EDGE_KEYS, graph_attrs: str = "") -> str:
    attrs = graph_attrs or 'edgedefault="directed"'
    return f"<graphml>{keys}<graph {attrs}>{body}</graph></graphml>"


def parse_error(text: str) -> str:
    with pytest.raises(ReaderError) as info:
        parse_recipe(text, source="r.graphml")
    assert info.value.reference_message == GRUG_ERROR
    assert str(info.value).startswith("r.graphml: ")
    return str(info.value)


# -- document structure ------------------------------------------------------------------------


def test_parse_reads_namespaced_document_with_stray_text_and_comments() -> None:
    text = (
        '<?xml version="1.0"?>\n<!-- header -->\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
        "  xmlns:xsi=stray text\n"
        f"  {NODE_KEYS}\n"
        '  <graph id="g" edgedefault="directed"><!-- c -->\n'
        '    <node id="a"><data key="type">  rack <!-- no --></data></node>\n'
        "  </graph>\n</graphml>"
    )
    r = parse_recipe(text)
    assert [(v.key, v.type) for v in r.vertices] == [("a", "rack")]


def test_parse_trims_and_collapses_whitespace_in_text() -> None:
    r = parse_recipe(doc('<node id="a"><data key="basename">\n  big \t  iron\n</data></node>'))
    assert r.vertices[0].basename == "big iron"


def test_parse_keeps_attribute_values_verbatim() -> None:
    r = parse_recipe(doc('<node id=" a "/><edge source=" a " target="b"/>'))
    assert [v.key for v in r.vertices] == [" a ", "b"]


def test_parse_unset_fields_keep_zero_values() -> None:
    r = parse_recipe(doc('<edge source="a" target="b"/>', keys=NODE_KEYS))
    e = r.edges[0]
    assert (e.multi_scale, e.gen_method, e.id_stride, e.e_subsystem) == (0, "", 0, "")
    assert (r.vertices[0].size, r.vertices[0].type, r.vertices[0].root) == (0, "", 0)


def test_parse_reads_only_first_graph_and_its_nested_graphs() -> None:
    text = (
        f"<graphml>{NODE_KEYS}"
        '<graph edgedefault="directed"><node id="a"/>'
        '<graph edgedefault="directed"><node id="b"/><edge source="b" target="a"/></graph>'
        '<edge source="a" target="b"/></graph>'
        '<graph edgedefault="directed"><node id="ignored"/></graph></graphml>'
    )
    r = parse_recipe(text)
    assert [v.key for v in r.vertices] == ["a", "b"]
    assert [(e.source, e.target) for e in r.edges] == [(0, 1), (1, 0)]  # outer graph first


def test_parse_without_graph_is_an_empty_recipe() -> None:
    r = parse_recipe(f"<graphml>{NODE_KEYS}</graphml>")
    assert r.vertices == () and r.edges == ()


def test_parse_processes_all_nodes_before_edges() -> None:
    r = parse_recipe(doc('<edge source="b" target="a"/><node id="a"/><node id="b"/>'))
    assert [v.key for v in r.vertices] == ["a", "b"] and r.out_edges == ((), (0,))


def test_parse_edge_to_undeclared_node_creates_it_with_defaults() -> None:
    keys = NODE_KEYS + '<key id="u" for="node" attr.name="unit" attr.type="string">'
    keys += "<default>GB</default></key>"
    r = parse_recipe(doc('<node id="a"/><edge source="a" target="new"/>', keys=keys))
    assert [(v.key, v.unit) for v in r.vertices] == [("a", "GB"), ("new", "GB")]


def test_parse_allows_parallel_edges_in_document_order() -> None:
    r = parse_recipe(
        doc('<edge source="a" target="b"/><edge source="a" target="b"><data key="ms">3</data>'
            '</edge><edge source="a" target="c"/>')
    )  # fmt: skip
    assert r.out_edges[0] == (0, 1, 2) and [e.multi_scale for e in r.edges] == [1, 3, 1]


def test_parse_duplicate_node_element_merges_into_one_vertex() -> None:
    r = parse_recipe(
        doc('<node id="a"><data key="type">x</data></node>'
            '<node id="a"><data key="basename">y</data></node>')
    )  # fmt: skip
    assert [(v.type, v.basename) for v in r.vertices] == [("x", "y")]


# -- keys and defaults -------------------------------------------------------------------------


def test_parse_applies_defaults_in_key_id_order_then_data_in_document_order() -> None:
    keys = (
        '<key id="z" for="node" attr.name="basename" attr.type="string"><default>Z</default></key>'
        '<key id="a" for="node" attr.name="basename" attr.type="string"><default>A</default></key>'
    )
    assert parse_recipe(doc('<node id="n"/>', keys=keys)).vertices[0].basename == "Z"
    body = '<node id="n"><data key="a">first</data><data key="a">second</data></node>'
    assert parse_recipe(doc(body, keys=keys)).vertices[0].basename == "second"


@pytest.mark.parametrize("kind", ["all", "graph", "graphml", "hyperedge", "port", "endpoint"])
def test_parse_ignores_defaults_of_keys_not_for_node_or_edge(kind: str) -> None:
    keys = f'<key id="b" for="{kind}" attr.name="basename" attr.type="string">'
    keys += "<default>D</default></key>"
    r = parse_recipe(doc('<node id="n"/><node id="m"><data key="b">x</data></node>', keys=keys))
    assert [v.basename for v in r.vertices] == ["", "x"]


def test_parse_redeclared_key_without_default_keeps_old_default() -> None:
    keys = '<key id="b" for="node" attr.name="basename" attr.type="string"><default>D</default>'
    keys += '</key><key id="b" for="node" attr.name="basename" attr.type="string"/>'
    assert parse_recipe(doc('<node id="n"/>', keys=keys)).vertices[0].basename == "D"


def test_parse_string_typed_key_converts_to_integer_field() -> None:
    keys = '<key id="s" for="node" attr.name="size" attr.type="string"/>'
    body = '<node id="a"><data key="s"> 42 </data></node><node id="b"><data key="s"/></node>'
    assert [v.size for v in parse_recipe(doc(body, keys=keys)).vertices] == [42, 0]


def test_parse_integer_forms() -> None:
    body = "".join(
        f'<node id="{i}"><data key="root">{t}</data></node>'
        for i, t in enumerate(["+5", "-0", "007", "-2147483648", "2147483647"])
    )
    assert [v.root for v in parse_recipe(doc(body)).vertices] == [5, 0, 7, -(2**31), 2**31 - 1]


def test_parse_records_types_and_subsystems_in_first_seen_order() -> None:
    keys = NODE_KEYS + (
        '<key id="sub" for="node" attr.name="subsystem" attr.type="string">'
        "<default>containment</default></key>"
        '<key id="es" for="edge" attr.name="e_subsystem" attr.type="string"/>'
        '<key id="ts" for="edge" attr.name="as_tgt_subsystem" attr.type="string">'
        "<default>zeta</default></key>"
    )
    body = (
        '<node id="a"><data key="type">rack</data><data key="sub">power</data></node>'
        '<node id="b"><data key="type">core</data></node>'
        '<edge source="a" target="b"><data key="es">ibnet</data></edge>'
    )
    r = parse_recipe(doc(body, keys=keys))
    assert r.types == ("rack", "core")
    assert r.subsystems == ("containment", "power", "zeta", "ibnet")


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "malformed XML"),
        ("not xml at all", "malformed XML"),
        ("<graphml><graph>", "malformed XML"),
        ('<!DOCTYPE g [<!ENTITY x "y">]><graphml/>', "unsafe XML"),
        ("<graph/>", "root element must be <graphml>"),
        (doc("", keys='<key for="node" attr.name="type" attr.type="string"/>'), "'id'"),
        (doc("", keys='<key id="t" attr.name="type" attr.type="string"/>'), "'for'"),
        (doc("", keys='<key id="t" for="node" attr.type="string"/>'), "'attr.name'"),
        (doc("", keys='<key id="t" for="node" attr.name="type"/>'), "'attr.type'"),
        (doc("", keys='<key id="t" for="vertex" attr.name="type" attr.type="string"/>'),
         "invalid 'for' value 'vertex'"),
        (doc("<node/>"), "missing required attribute 'id'"),
        (doc('<edge target="a"/>'), "'source'"),
        (doc('<edge source="a"/>'), "'target'"),
        (doc('<edge source="a" target="b"/>', graph_attrs='id="g"'), "'edgedefault'"),
        (doc('<edge source="a" target="b"/>', graph_attrs='edgedefault="undirected"'),
         "undirected edge"),
        (doc('<edge source="a" target="b" directed="false"/>'), "undirected edge"),
        (doc('<node id="a"><data>x</data></node>'), "'key'"),
        (doc('<node id="a"><data key="nope">x</data></node>'), "undeclared key 'nope'"),
        (doc('<node id="a"><data key="ms">3</data></node>'),
         "'multi_scale' is not a GRUG vertex field"),
        (doc('<edge source="a" target="b"><data key="type">x</data></edge>'),
         "'type' is not a GRUG edge field"),
        (doc('<node id="a"><data key="root">1.5</data></node>'), "'1.5' is not an integer"),
        (doc('<node id="a"><data key="root"></data></node>'), "'' is not an integer"),
        (doc('<node id="a"><data key="root">2147483648</data></node>'), "out of range for int"),
        (doc('<node id="a"><data key="size">9223372036854775808</data></node>'),
         "out of range for long"),
        (doc('<node id="a"><data key="type">ra ck</data></node>'), "contains whitespace"),
        (doc('<node id="a"><data key="r">1</data></node>',
             keys='<key id="r" for="node" attr.name="rank" attr.type="int"/>'),
         "'rank' is not a GRUG vertex field"),
        (doc('<node id="a"><data key="r">1</data></node>',
             keys='<key id="r" for="node" attr.name="root" attr.type="long"/>'),
         "needs attr.type int or string"),
        (doc('<node id="a"><data key="s">1</data></node>',
             keys='<key id="s" for="node" attr.name="size" attr.type="int"/>'),
         "needs attr.type long or string"),
        (doc('<node id="a"><data key="t">1</data></node>',
             keys='<key id="t" for="node" attr.name="type" attr.type="int"/>'),
         "needs attr.type string"),
        (doc('<node id="a"><data key="t">1</data></node>',
             keys='<key id="t" for="node" attr.name="type" attr.type="text"/>'),
         "unknown attr.type 'text'"),
        (doc('<node id="a"/>', keys='<key id="r" for="node" attr.name="rank" attr.type="int">'
                                    "<default>0</default></key>"),
         "'rank' is not a GRUG vertex field"),
        (doc('<data key="ms">1</data>'), "graph-level attribute 'multi_scale'"),
        (doc('<data key="zz">1</data>'), "undeclared key 'zz'"),
    ],
)  # fmt: skip
def test_parse_rejects_malformed_recipe(text: str, fragment: str) -> None:
    assert fragment in parse_error(text)


def test_parse_error_names_element_and_key() -> None:
    message = parse_error(doc('<node id="rack"><data key="root">x</data></node>'))
    assert '<node id="rack">' in message and '<data key="root">' in message


def test_parse_unused_bad_key_without_default_is_harmless() -> None:
    keys = NODE_KEYS + '<key id="r" for="node" attr.name="rank" attr.type="float"/>'
    assert len(parse_recipe(doc('<node id="a"/>', keys=keys)).vertices) == 1


def test_parse_bad_node_default_is_harmless_without_vertices() -> None:
    keys = '<key id="r" for="node" attr.name="rank" attr.type="int"><default>0</default></key>'
    assert parse_recipe(doc("", keys=keys)).vertices == ()


def test_parse_accepts_bytes() -> None:
    assert parse_recipe(doc('<node id="a"/>').encode()).vertices[0].key == "a"
