"""Tests of the JGF reader: defaults, reuse/attach, roots, conformance inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers import load, reader
from fluxgraph.readers.jgf import from_jgf, parse_node, unpack

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
DATA = SHARED / "conformance" / "data"


def node(key, **meta):
    meta.setdefault("paths", {"containment": f"/c/{key}"})
    return {"id": key, "metadata": meta}


def doc(nodes, edges=()):
    return json.dumps({"graph": {"nodes": list(nodes), "edges": list(edges)}})


def test_parse_node_applies_reference_defaults():
    n = parse_node(node("12", type="core"))
    assert (n.basename, n.name, n.id, n.uniq_id, n.rank, n.status, n.size, n.unit) == (
        "core",
        "core12",
        12,
        12,
        -1,
        0,
        1,
        "",
    )
    assert n.properties is None and n.exclusive is False


@pytest.mark.parametrize(("key", "uniq"), [("12abc", 12), (" \t7", 7), ("+3", 3), ("-4", -4)])
def test_parse_node_infers_uniq_id_like_stoll(key, uniq):
    assert parse_node(node(key, type="core")).uniq_id == uniq


def test_parse_node_takes_node_id_from_trailing_digits_of_explicit_name():
    assert parse_node(node("5", type="node", name="fluke12")).id == 12
    assert parse_node(node("5", type="node", name="fluke")).id == 5  # no digits: uniq_id
    assert parse_node(node("5", type="rack", name="rack12")).id == 5  # only for type node
    assert parse_node(node("5", type="node", name="n12", id=3)).id == 3


def test_unpack_builds_vertices_in_node_order_with_file_uniq_ids():
    g = ResourceGraph()
    unpack(
        g,
        doc(
            [
                node("10", type="cluster", basename="tiny", id=0, paths={"containment": "/tiny0"}),
                node("20", type="node", id=1, rank=3, paths={"containment": "/tiny0/node1"}),
                node(
                    "30",
                    type="memory",
                    id=2,
                    size=16,
                    unit="GB",
                    status=1,
                    properties={"z": "1", "a": "2"},
                    paths={"containment": "/tiny0/node1/memory2"},
                ),
            ],
            [{"source": "10", "target": "20"}, {"source": "20", "target": "30"}],
        ),
    )
    g._check()
    assert g.names == ["tiny0", "node1", "memory2"]
    assert g.uniq_ids == [10, 20, 30]
    assert g.ranks == [-1, 3, -1]
    assert g.sizes[2] == 16 and g.status[2] == 1
    assert g.units[2] == ""  # the reference reader never stores unit
    assert list(g.properties[2]) == ["a", "z"]
    assert g.roots == {"containment": 0}
    assert g.children("containment") == [[1], [2], []]


def test_unpack_orders_paths_by_subsystem_first_seen_order():
    g = ResourceGraph()
    paths = {"zeta": "/z/n", "containment": "/c/n", "power": "/p/n"}
    unpack(g, doc([node("0", type="node", paths=paths)]))
    assert list(g.paths[0]) == ["containment", "zeta", "power"]
    assert g.member_of[0] == ["containment", "zeta", "power"]


def test_unpack_edge_subsystem_defaults_to_containment():
    g = ResourceGraph()
    unpack(
        g,
        doc(
            [
                node("0", type="cluster", paths={"containment": "/c", "power": "/p"}),
                node("1", type="pdu", paths={"power": "/p/pdu0"}),
                node("2", type="rack", paths={"containment": "/c/rack0"}),
            ],
            [
                {"source": "0", "target": "1", "metadata": {"subsystem": "power"}},
                {"source": "0", "target": "2", "metadata": {}},
            ],
        ),
    )
    assert g.edge_subsystem == ["power", "containment"]
    assert g.roots == {"containment": 0, "power": 0}


def test_unpack_merges_entries_with_same_path_and_rank():
    g = ResourceGraph()
    unpack(
        g,
        doc(
            [
                node("0", type="cluster", paths={"containment": "/c"}),
                node("1", type="node", paths={"containment": "/c/n"}),
                node("2", type="node", paths={"containment": "/c/n"}),  # same path and rank
                node("3", type="node", rank=1, paths={"containment": "/c/n"}),  # other rank
            ],
            [{"source": "0", "target": "2"}, {"source": "0", "target": "3"}],
        ),
    )
    assert g.uniq_ids == [0, 1, 3]
    assert g.children("containment")[0] == [1, 2]


def test_unpack_attaches_subgraph_reusing_existing_vertices():
    g = ResourceGraph()
    unpack(
        g,
        doc(
            [node("0", type="cluster", paths={"containment": "/c"})],
        ),
    )
    unpack(
        g,
        doc(
            [
                node("100", type="cluster", paths={"containment": "/c"}),
                node("101", type="node", paths={"containment": "/c/n0"}),
                node("102", type="core", paths={"containment": "/c/n0/core0"}),
            ],
            [{"source": "100", "target": "101"}, {"source": "101", "target": "102"}],
        ),
    )
    g._check()
    assert g.uniq_ids == [0, 101, 102]
    assert g.children("containment")[0] == [1]
    assert g.roots == {"containment": 0}


def test_unpack_skips_edges_between_reused_vertices():
    text = doc(
        [
            node("0", type="cluster", paths={"containment": "/c"}),
            node("1", type="node", paths={"containment": "/c/n"}),
        ],
        [{"source": "0", "target": "1"}],
    )
    g = ResourceGraph()
    unpack(g, text)
    unpack(g, text)  # everything reused: the second edge would be a duplicate
    assert (g.num_vertices, g.num_edges) == (2, 1)


def test_from_jgf_accepts_a_parsed_document():
    g = from_jgf(json.loads(doc([node("0", type="cluster", paths={"containment": "/c"})])))
    assert g.names == ["cluster0"]


def test_shorthand_format_loads_like_jgf():
    assert reader("jgf_shorthand") is reader("jgf") is unpack


def test_unpack_accepts_empty_graph():
    g = ResourceGraph()
    unpack(g, doc([]))
    assert g.num_vertices == 0 and g.roots == {}


# -- conformance inputs ---------------------------------------------------------------------------


def _manifest():
    path = SHARED / "conformance" / "manifest.json"
    if not path.exists():
        pytest.skip("../shared conformance suite is absent")
    return json.loads(path.read_text())


def _runs(case):
    if case.get("run"):
        yield case["run"]
    for step in case.get("steps") or []:
        if "run" in step:
            yield step["run"]


def conformance_loads(fmt):
    """(load file, expected files) of every conformance case that loads with ``-f fmt``."""
    out: dict[Path, set[Path]] = {}
    for case in _manifest()["cases"]:
        for run in _runs(case):
            opts = run["options"]
            if "-f" not in opts or opts[opts.index("-f") + 1] != fmt:
                continue
            path = DATA / opts[opts.index("-L") + 1].replace("@TEST_SRCDIR@/", "")
            if not path.exists():  # written by an earlier step of the case
                continue
            out.setdefault(path, set()).update(DATA / e for e in case.get("expected_files", []))
    return sorted(out.items())


def jgf_documents(path: Path):
    """The one-line JGF documents (match outputs) in an expected output file."""
    for line in path.read_text().splitlines():
        if line.startswith('{"graph"'):
            yield json.loads(line)


def _jgf_cases():
    try:
        return conformance_loads("jgf")
    except pytest.skip.Exception:
        return []


@pytest.mark.parametrize(("path", "expected"), _jgf_cases(), ids=lambda p: getattr(p, "name", ""))
def test_conformance_jgf_loads_node_list(path, expected):
    g = load(path, "jgf")
    g._check()
    nodes = json.loads(path.read_text())["graph"]["nodes"]
    # every node becomes a vertex, except entries repeating a path and rank
    keys = []
    for n in nodes:
        meta = n["metadata"]
        key = (tuple(meta["paths"].values()), meta.get("rank", -1))
        if key not in keys:
            keys.append(key)
    assert g.num_vertices == len(keys)
    for v, (paths, rank) in enumerate(keys):
        assert sorted(g.paths[v].values()) == sorted(paths)
        assert g.ranks[v] == rank
    assert "containment" in g.roots or not g.num_vertices or path.parent.name == "elastic"
    # vertices printed by the reference's JGF match writer agree on every written field
    by_uniq = {u: v for v, u in enumerate(g.uniq_ids)}
    checked = 0
    for exp in expected:
        if not exp.exists():
            continue
        for document in jgf_documents(exp):
            for element in document["graph"]["nodes"]:
                v = by_uniq.get(int(element["id"]))
                if v is None:  # attached later in the session (``attach``/grow cases)
                    continue
                meta = element["metadata"]
                assert meta["type"] == g.types[v]
                assert meta.get("basename", meta["type"]) == g.basenames[v]
                assert meta["id"] == g.ids[v] and meta["rank"] == g.ranks[v]
                assert meta.get("name", f"{g.basenames[v]}{g.ids[v]}") == g.names[v]
                assert meta["paths"] == g.paths[v]
                assert "unit" not in meta
                checked += 1
            for element in document["graph"]["edges"]:
                src, dst = by_uniq.get(int(element["source"])), by_uniq.get(int(element["target"]))
                if src is not None and dst is not None:
                    assert g.has_edge(src, dst)
    if path.name in ("node-test.json", "tiny-partial-cancel.json"):
        assert checked > 0


def test_conformance_power_jgf_has_power_subsystem():
    path = DATA / "data" / "resource" / "jgfs" / "power.json"
    if not path.exists():
        pytest.skip("../shared conformance suite is absent")
    g = load(path, "jgf")
    assert g.subsystems() == ["containment", "power"]
    assert set(g.roots) == {"containment", "power"}
    power_edges = [e for e in range(g.num_edges) if g.edge_subsystem[e] == "power"]
    assert power_edges and all(g.edge_member_of[e] == ["power"] for e in power_edges)
