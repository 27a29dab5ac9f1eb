"""Malformed JGF: the reference's messages, detailed str(err), graph left unchanged."""

from __future__ import annotations

import copy
import json

import pytest

from fluxgraph.errors import ReaderError
from fluxgraph.graph import Interner, ResourceGraph
from fluxgraph.readers.jgf import from_jgf, unpack


def snapshot(graph: ResourceGraph) -> dict:
    """Every piece of store state a reader may touch."""
    out = {}
    for key, value in vars(graph).items():
        if isinstance(value, Interner):
            out[key] = list(value.names)
        elif key not in ("schedule", "_children_cache", "_child_edges_cache"):
            out[key] = copy.deepcopy(value)
    return out


def base_graph() -> ResourceGraph:
    g = ResourceGraph()
    unpack(
        g,
        json.dumps(
            {
                "graph": {
                    "nodes": [
                        {"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c"}}}
                    ],
                    "edges": [],
                }
            }
        ),
    )
    return g


def meta(**kw):
    kw.setdefault("type", "node")
    kw.setdefault("paths", {"containment": "/c/n"})
    return kw


def text(nodes, edges=()):
    return json.dumps({"graph": {"nodes": list(nodes), "edges": list(edges)}})


N0 = {"id": "0", "metadata": meta(type="cluster", paths={"containment": "/c"})}  # reused
N1 = {"id": "1", "metadata": meta()}
N2 = {"id": "2", "metadata": meta(paths={"containment": "/c/m"})}

CASES = [
    # (input text, exact reference message, fragment of str(err))
    (
        "<graphml/>",
        "fetch_jgf: json_loads returned an error: '[' or '{' expected near '<': <string>@1:1.\n",
        "not JSON",
    ),
    (
        "",
        "fetch_jgf: json_loads returned an error: '[' or '{' expected near end of file: "
        "<string>@1:0.\n",
        "not JSON",
    ),
    ("{}", "fetch_jgf: JGF does not contain a required key (graph).\n", "'graph'"),
    ("[]", "fetch_jgf: JGF does not contain a required key (graph).\n", "'graph'"),
    ('{"graph": {}}', "fetch_jgf: JGF does not contain a required key (nodes).\n", "'nodes'"),
    (
        '{"graph": {"nodes": []}}',
        "fetch_jgf: JGF does not contain a required key (edges).\n",
        "'edges'",
    ),
    (
        text([{"metadata": meta()}]),
        "fill_fetcher: JGF vertex id key is not found in a node.\n",
        "node #0",
    ),
    (
        text([{"id": 1, "metadata": meta()}]),
        "fill_fetcher: JGF vertex id key is not found in a node.\n",
        "string 'id'",
    ),
    (
        text([{"id": "7"}]),
        "fill_fetcher: key (metadata) is not found in an JGF node for 7.\n",
        "no 'metadata'",
    ),
    (
        text([{"id": "7", "metadata": {"paths": {}}}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "no 'type'",
    ),
    (
        text([{"id": "7", "metadata": {"type": "core"}}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "no 'paths'",
    ),
    (
        text([{"id": "7", "metadata": meta(rank="0")}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "'rank' must be an integer, not str",
    ),
    (
        text([{"id": "7", "metadata": meta(size=True)}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "'size' must be an integer, not bool",
    ),
    (
        text([{"id": "7", "metadata": meta(id=1.5)}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "'id' must be an integer, not float",
    ),
    (
        text([{"id": "7", "metadata": meta(exclusive=1)}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "'exclusive' must be a boolean",
    ),
    (
        text([{"id": "7", "metadata": meta(name=None)}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "'name' must be a string, not null",
    ),
    (
        text([{"id": "7", "metadata": meta(paths={"containment": 5})}]),
        "fill_fetcher: malformed metadata in an JGF node for 7\n",
        "must be a string",
    ),
    (
        text([{"id": "7", "metadata": meta(properties=[])}]),
        "fill_fetcher: key (properties) must be an object or null for 7.\n",
        "'properties' must be an object, not list",
    ),
    (
        text([{"id": "7", "metadata": meta(properties=None)}]),
        "fill_fetcher: key (properties) must be an object or null for 7.\n",
        "not null",
    ),
    (
        text([{"id": "abc", "metadata": meta()}]),
        "apply_defaults: value for key (uniq_id) could not be inferred from outer 'id' field "
        "abc.\n",
        "not an integer",
    ),
    (
        text([N1, {"id": "1", "metadata": meta(paths={"containment": "/c/other"})}]),
        "add_vtx: found duplicate JGF node id for 1.\n",
        "duplicate node id '1'",
    ),
    (
        text([{"id": "9", "metadata": meta(paths={"containment": "/root2"})}]),
        "add_graph_metadata: failed to add root metadata for containment subsystem. Possible "
        "duplicate root.\n",
        "second root '/root2'",
    ),
    (
        text([N1], [{"source": 0, "target": "1"}]),
        "unpack_edge: encountered a malformed edge.\n",
        "edge #0",
    ),
    (text([N1], ["0->1"]), "unpack_edge: encountered a malformed edge.\n", "edge #0"),
    (
        text([N0, N1], [{"source": "0", "target": "42"}]),
        "unpack_edge: source and/or target vertex not found0 -> 42.\n",
        "unknown node id '42'",
    ),
    (
        text([N0, N1], [{"source": "1", "target": "0", "metadata": []}]),
        "unpack_edge: could not unpack edge metadata.\n",
        "'metadata'",
    ),
    (
        text([N0, N1], [{"source": "1", "target": "0", "metadata": {"subsystem": 3}}]),
        "unpack_edge: could not unpack edge metadata.\n",
        "'subsystem'",
    ),
    (
        text(
            [N0, N1, N2],
            [
                {"source": "0", "target": "1"},
                {"source": "0", "target": "1", "metadata": {"subsystem": "power"}},
            ],
        ),
        "error inserting an edge to outedge metadata map: cluster0 -> node1; ",
        "second edge",
    ),
]


@pytest.mark.parametrize(("data", "reference", "detail"), CASES)
def test_unpack_rejects_malformed_jgf_and_leaves_graph_unchanged(data, reference, detail):
    g = base_graph()
    before = snapshot(g)
    with pytest.raises(ReaderError) as info:
        unpack(g, data, source="bad.json")
    assert info.value.reference_message == reference
    assert str(info.value).startswith("bad.json: ")
    assert detail in str(info.value)
    assert snapshot(g) == before


@pytest.mark.parametrize(
    "data",
    [
        '{"graph": {"nodes": [], "edges": []',  # truncated
        '{"graph": {"nodes": [], "edges": []}} trailing',
        '{"graph": {"nodes": [], "edges": [NaN]}}',
        '{"graph": {"nodes": [], "edges": [9223372036854775808]}}',
        '{"graph": ' + "[" * 100_000 + "]" * 100_000 + "}",  # nesting beyond the recursion limit
    ],
)
def test_unpack_reports_bad_json_with_jansson_prefix(data):
    g = base_graph()
    before = snapshot(g)
    with pytest.raises(ReaderError, match="not JSON") as info:
        unpack(g, data)
    assert info.value.reference_message.startswith("fetch_jgf: json_loads returned an error: ")
    assert info.value.reference_message.endswith(".\n")
    assert snapshot(g) == before


def test_unpack_failure_late_in_file_adds_nothing():
    g = base_graph()
    before = snapshot(g)
    nodes = [N0] + [
        {"id": str(i), "metadata": meta(paths={"containment": f"/c/n{i}"})} for i in (1, 2)
    ]
    edges = [{"source": "0", "target": "1"}, {"source": "0", "target": "2"}, {}]
    with pytest.raises(ReaderError, match="edge #2"):
        unpack(g, text(nodes, edges))
    assert snapshot(g) == before


@pytest.mark.parametrize(
    ("field", "value"), [("size", -1), ("size", 1 << 32), ("status", 2), ("paths", "/c/n")]
)
def test_unpack_rejects_values_the_reference_would_misread(field, value):
    with pytest.raises(ReaderError, match=field):
        unpack(ResourceGraph(), text([{"id": "1", "metadata": meta(**{field: value})}]))


def test_from_jgf_rejects_non_document():
    with pytest.raises(ReaderError, match="'graph'"):
        from_jgf({"nodes": []})
