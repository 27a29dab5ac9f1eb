"""GRUG against the reference's own data: every conformance GRUG, checked at test time.

Expected lists are never copied into the test: vertices are compared with the reference's JGF
dumps of the same machines (``jgfs/tiny.json``, ``jgfs/power.json``), and every resource chain
printed by the reference's ``simple``/``pretty_simple`` outputs must exist in our graph. Skipped
when ``../shared`` is absent.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers import load

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
SUITE = SHARED / "conformance"
DATA = SUITE / "data"
RESOURCE = DATA / "data" / "resource"
GRUGS = sorted(p.relative_to(RESOURCE).as_posix() for p in RESOURCE.glob("grugs/**/*.graphml"))

pytestmark = pytest.mark.skipif(not RESOURCE.is_dir(), reason="../shared is absent")

#: One emitted vertex of the simple / pretty_simple writers.
LINE = re.compile(r"^      ((?:---)+)([^\s\[]+)\[\d+:(?:x|s|exclusive|shared)\]$")


@pytest.fixture(scope="module")
def graphs() -> dict[str, ResourceGraph]:
    return {}


def graph_of(cache: dict[str, ResourceGraph], grug: str) -> ResourceGraph:
    if grug not in cache:
        cache[grug] = load(RESOURCE / grug)
    return cache[grug]


def check(g: ResourceGraph) -> None:
    """``g._check()``, except that ``by_path`` may keep paths that ASSOCIATE later overwrote.

    The reference keeps those stale entries (mt-storage/mtl3 re-parents ``mtl1unit`` vertices
    in containment), so they are legitimate; the store's checker does not know that yet.
    """
    by_path = g.by_path
    g.by_path = {p: [v for v in vs if p in g.paths[v].values()] for p, vs in by_path.items()}
    try:
        g._check()
    finally:
        g.by_path = by_path


def test_conformance_grugs_are_present() -> None:
    assert "grugs/tiny.graphml" in GRUGS and len(GRUGS) >= 10


@pytest.mark.parametrize("grug", GRUGS)
def test_conformance_grug_loads(grug: str, graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, grug)
    check(g)
    assert g.uniq_ids == list(range(g.num_vertices))
    assert g.roots["containment"] == 0
    nodes = g.by_type.get("node", [])
    assert [g.ranks[v] for v in nodes] == list(range(len(nodes)))
    assert sum(len(vs) for r, vs in g.by_rank.items() if r != -1) == len(nodes)


# -- reference JGF dumps of the same machines ----------------------------------------------------


@pytest.mark.parametrize(
    ("grug", "dump"),
    [("grugs/tiny.graphml", "jgfs/tiny.json"), ("grugs/power.graphml", "jgfs/power.json")],
)
def test_grug_matches_reference_jgf_dump(
    grug: str, dump: str, graphs: dict[str, ResourceGraph]
) -> None:
    """Every vertex field and every vertex's out-edge order equal the reference's dump.

    Ranks are compared for ``node`` vertices only: the dumps were written by a tool that also
    gave each node's rank to the node's descendants.
    """
    g = graph_of(graphs, grug)
    doc = json.loads((RESOURCE / dump).read_text())["graph"]
    assert len(doc["nodes"]) == g.num_vertices
    for node in doc["nodes"]:
        md = node["metadata"]
        v = md["uniq_id"]
        mine = (g.types[v], g.basenames[v], g.names[v], g.ids[v], g.sizes[v], g.units[v])
        assert mine == (md["type"], md["basename"], md["name"], md["id"], md["size"], md["unit"])
        assert list(g.paths[v].items()) == list(md["paths"].items())
        if md["type"] == "node":
            assert g.ranks[v] == md["rank"]
    ref: dict[int, list[tuple[int, str]]] = collections.defaultdict(list)
    for e in doc["edges"]:
        sub = e.get("metadata", {}).get("subsystem", "containment")
        ref[int(e["source"])].append((int(e["target"]), sub))
    for v in range(g.num_vertices):
        assert [(g.edge_dst[e], g.edge_subsystem[e]) for e in g.out_edges[v]] == ref.get(v, [])


def test_power_matches_spec_summary(graphs: dict[str, ResourceGraph]) -> None:
    g = graph_of(graphs, "grugs/power.graphml")
    assert g.num_vertices == 4042
    blocks = [
        ("cluster", 0, 1),
        ("rack", 1, 5),
        ("pdu", 5, 9),
        ("node", 9, 81),
        ("socket", 81, 225),
        ("core", 225, 2817),
        ("gpu", 2817, 2961),
        ("memory", 2961, 3537),
        ("powerpanel", 3537, 3538),
        ("power", 3538, 4042),
    ]
    for vtype, lo, hi in blocks:
        assert set(g.types[lo:hi]) == {vtype}, vtype
    assert [g.names[v] for v in range(5, 9)] == ["pdu0", "pdu1", "pdu2", "pdu3"]
    assert g.ranks[9:81] == list(range(72))
    assert g.roots == {"containment": 0, "power": 3537}
    assert g.paths[3538] == {"power": "/powerpanel0/pdu0/node0/power0"}
    assert g.paths[3682] == {"power": "/powerpanel0/pdu0/power0"}
    assert g.paths[4041] == {"power": "/powerpanel0/power199"}
    assert {(g.sizes[v], g.units[v]) for v in range(3538, 4042)} == {(10, "KW")}
    for node in range(9, 81):
        rack = g.paths[node]["containment"].split("/")[2]
        pdu = g.paths[node]["power"].split("/")[2]
        assert g.paths[g.find_path(f"/powerpanel0/{pdu}", "power")]["containment"] == (
            f"/power0/{rack}/{pdu}"
        )


# -- chains printed by the reference's simple writers --------------------------------------------


def _runs(case: dict) -> Iterator[dict]:
    if "run" in case:
        yield case["run"]
    yield from case.get("runs", [])
    yield from (step["run"] for step in case.get("steps", []) if "run" in step)


def _expected_files(case: dict) -> Iterator[str]:
    for cmp in case.get("compare", []):
        if "file" in cmp.get("expected", {}):
            yield cmp["expected"]["file"]
    for step in case.get("steps", []):
        expected = step.get("compare", {}).get("expected", {})
        if "file" in expected:
            yield expected["file"]


def simple_outputs() -> dict[str, set[tuple[str, bool]]]:
    """GRUG -> {(expected output file, written by pretty_simple)} over the manifest's cases."""
    if not RESOURCE.is_dir():
        return {}
    manifest = json.loads((SUITE / "manifest.json").read_text())
    found: dict[str, set[tuple[str, bool]]] = collections.defaultdict(set)
    for case in manifest["cases"]:
        grugs, formats = set(), set()
        for run in _runs(case):
            opts = run.get("options", [])
            for flag, value in pairwise(opts):
                if flag == "-L" and value.endswith(".graphml"):
                    grugs.add(value.replace("@TEST_SRCDIR@/data/resource/", ""))
                if flag == "-F":
                    formats.add(value)
        if len(grugs) == 1 and formats <= {"simple", "pretty_simple"}:
            (grug,) = grugs
            for name in _expected_files(case):
                found[grug].add((name, "pretty_simple" in formats))
    return found


SIMPLE = simple_outputs()


@pytest.mark.parametrize("grug", sorted(SIMPLE))
def test_reference_match_chains_exist(grug: str, graphs: dict[str, ResourceGraph]) -> None:
    """Each printed vertex is reached from its printed parent by a graph edge, by name."""
    g = graph_of(graphs, grug)
    names, dst, out_edges = g.names, g.edge_dst, g.out_edges
    checked = 0
    for name, pretty in sorted(SIMPLE[grug]):
        path = DATA / name
        if not path.is_file():
            continue
        lines = path.read_text().splitlines()
        stack: list[set[int]] = []
        for line in lines if pretty else reversed(lines):  # pre-order: parents first
            match = LINE.match(line)
            if not match:
                continue
            level, vname = len(match.group(1)) // 3, match.group(2)
            del stack[level - 1 :]
            if level == 1:
                found = set(g.by_name.get(vname, ()))
            else:
                found = {dst[e] for u in stack[-1] for e in out_edges[u] if names[dst[e]] == vname}
            assert found, f"{name}: {vname} at level {level} is not in our graph"
            stack.append(found)
            checked += 1
    assert checked > 0
