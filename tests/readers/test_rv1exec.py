"""Tests of the rv1exec reader: graph shape, conformance inputs, malformed R."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from fluxgraph import idset
from fluxgraph.errors import ReaderError
from fluxgraph.graph import Interner, ResourceGraph
from fluxgraph.readers import load, reader
from fluxgraph.readers.rv1exec import from_rv1exec, unpack

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
DATA = SHARED / "conformance" / "data"
_SIMPLE_LINE = re.compile(r"^      ((?:---)+)(\S+)\[(\d+):[xs]\]$")


def r_doc(r_lite, nodelist, properties=None, version=1):
    execution = {"R_lite": r_lite, "nodelist": nodelist, "starttime": 0, "expiration": 0}
    if properties is not None:
        execution["properties"] = properties
    return {"version": version, "execution": execution}


def snapshot(graph: ResourceGraph) -> dict:
    out = {}
    for key, value in vars(graph).items():
        if isinstance(value, Interner):
            out[key] = list(value.names)
        elif key not in ("schedule", "_children_cache", "_child_edges_cache"):
            out[key] = copy.deepcopy(value)
    return out


def test_from_rv1exec_builds_reference_example():
    g = from_rv1exec(
        r_doc(
            [
                {"rank": "7", "children": {"gpu": "1", "core": "0-1"}},
                {"rank": "3", "children": {"core": "2"}},
            ],
            ["fluke", "x007"],
            {"zeta": "3", "alpha": "3,7"},
        )
    )
    g._check()
    assert g.names == ["cluster0", "x007", "gpu1", "core0", "core1", "fluke", "core2"]
    assert g.types == ["cluster", "node", "gpu", "core", "core", "node", "core"]
    assert g.uniq_ids == list(range(7))
    assert (g.basenames[1], g.ids[1], g.ranks[1]) == ("x", 7, 7)
    assert (g.basenames[5], g.ids[5], g.ranks[5]) == ("fluke", -1, 3)
    assert g.properties[1] == {"alpha": ""}
    assert g.properties[5] == {"alpha": "", "zeta": ""}
    assert g.ranks[2:5] == [7, 7, 7] and g.ranks[6] == 3
    assert g.paths[2] == {"containment": "/cluster0/x007/gpu1"}
    assert g.roots == {"containment": 0}
    assert g.children("containment") == [[1, 5], [2, 3, 4], [], [], [], [6], []]


def test_unpack_gives_hosts_to_ranks_in_ascending_rank_order():
    g = from_rv1exec(
        r_doc(
            [{"rank": "5", "children": {"core": "0"}}, {"rank": "1-2", "children": {"core": "0"}}],
            ["a[1-3]"],
        )
    )
    nodes = [v for v in range(g.num_vertices) if g.types[v] == "node"]
    assert [(g.names[v], g.ranks[v]) for v in nodes] == [("a3", 5), ("a1", 1), ("a2", 2)]


def test_unpack_allows_repeated_hostnames_on_distinct_ranks():
    g = from_rv1exec(r_doc([{"rank": "0-1", "children": {"core": "0"}}], ["node", "node"]))
    assert g.names == ["cluster0", "node", "core0", "node", "core0"]
    assert g.paths[1] == g.paths[3] == {"containment": "/cluster0/node"}
    assert g.by_path["/cluster0/node"] == [1, 3]


def test_force_format_is_the_same_reader():
    assert reader("rv1exec_force") is reader("rv1exec") is unpack


# -- conformance inputs ---------------------------------------------------------------------------


def _conformance_loads():
    manifest = SHARED / "conformance" / "manifest.json"
    if not manifest.exists():
        return []
    out: dict[Path, set[Path]] = {}
    for case in json.loads(manifest.read_text())["cases"]:
        runs = [case["run"]] if case.get("run") else []
        runs += [s["run"] for s in case.get("steps") or [] if "run" in s]
        for run in runs:
            opts = run["options"]
            if "-f" in opts and opts[opts.index("-f") + 1].startswith("rv1exec"):
                path = DATA / opts[opts.index("-L") + 1].replace("@TEST_SRCDIR@/", "")
                expected = {DATA / e for e in case.get("expected_files", [])}
                out.setdefault(path, set()).update(expected)
    return sorted(out.items())


def depths(g: ResourceGraph) -> list[int]:
    depth = [-1] * g.num_vertices
    depth[g.roots["containment"]] = 0
    children = g.children("containment")
    stack = [g.roots["containment"]]
    while stack:
        v = stack.pop()
        for c in children[v]:
            depth[c] = depth[v] + 1
            stack.append(c)
    return depth


@pytest.mark.parametrize(
    ("path", "expected"), _conformance_loads(), ids=lambda p: getattr(p, "name", "")
)
def test_conformance_rv1exec_loads_and_matches_reference_names(path, expected):
    g = load(path, "rv1exec")
    g._check()
    doc = json.loads(path.read_text())["execution"]
    ranks = sorted({r for e in doc["R_lite"] for r in idset.decode(e["rank"])})
    assert sorted(g.ranks[v] for v in g.by_type["node"]) == ranks
    cores = sum(
        len(idset.decode(e["children"].get("core", ""))) * len(idset.decode(e["rank"]))
        for e in doc["R_lite"]
    )
    assert len(g.by_type.get("core", [])) == cores
    # every vertex the reference printed (simple writer: level = depth + 1) exists here
    depth = depths(g)
    at_depth = {(g.names[v], depth[v]) for v in range(g.num_vertices)}
    seen = 0
    for exp in expected:
        for line in exp.read_text().splitlines() if exp.exists() else ():
            m = _SIMPLE_LINE.match(line)
            if m:
                assert (m.group(2), len(m.group(1)) // 3 - 1) in at_depth, line
                seen += 1
    assert seen or not expected


# -- errors ---------------------------------------------------------------------------------------

GOOD = r_doc([{"rank": "0", "children": {"core": "0"}}], ["node0"])

ERRORS = [
    # (document or raw text, reference message, fragment of str(err))
    ("{", "", "not JSON"),
    ("[]", "", "JSON object"),
    (r_doc([], [], version=2), "", "'version' must be 1"),
    (r_doc([], [], version="1"), "", "'version' must be 1"),
    (r_doc([], [], version=True), "", "'version' must be 1"),
    ({"execution": GOOD["execution"]}, "", "'version' must be 1"),
    ({"version": 1}, "", "'execution'"),
    ({"version": 1, "execution": {"nodelist": []}}, "", "R_lite"),
    ({"version": 1, "execution": {"R_lite": []}}, "", "nodelist"),
    (r_doc([{"rank": "a", "children": {}}], ["n0"]), "", "R_lite[0].rank"),
    (r_doc([{"rank": 0, "children": {}}], ["n0"]), "", "idset string"),
    (r_doc([{"rank": "0"}], ["n0"]), "", "'children'"),
    (r_doc([{"rank": "0", "children": {"core": "1-"}}], ["n0"]), "", "children.core"),
    (r_doc([{"rank": "0", "children": {}}], ["n[0-"]), "", "nodelist[0]"),
    (r_doc([{"rank": "0", "children": {}}], [7]), "", "nodelist[0]"),
    (r_doc([{"rank": "0-2", "children": {}}], ["n[0-1]"]), "", "only 2 hosts"),
    (r_doc([{"rank": "0", "children": {}}], ["n0"], {"p": "x"}), "", "properties.p"),
    (r_doc([{"rank": "0", "children": {}}], ["n0"], []), "", "properties"),
    (
        r_doc([{"rank": "0", "children": {}}, {"rank": "0", "children": {}}], ["n0"]),
        "add_or_update: found duplicate vertex in graph for n0.\n"
        "unpack_rank: failed unpacking rank for n0.\n",
        "listed twice",
    ),
    (
        r_doc([{"rank": "0", "children": {}}], ["n99999999999999999999"]),
        "unpack_rank: error splitting hostname=n99999999999999999999; ",
        "overflows",
    ),
]


@pytest.mark.parametrize(("data", "reference", "detail"), ERRORS)
def test_unpack_rejects_malformed_r_and_leaves_graph_unchanged(data, reference, detail):
    g = from_rv1exec(GOOD)
    before = snapshot(g)
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(ReaderError) as info:
        unpack(g, text, source="R.json")
    assert info.value.reference_message == reference
    assert str(info.value).startswith("R.json: ")
    assert detail in str(info.value)
    assert snapshot(g) == before
