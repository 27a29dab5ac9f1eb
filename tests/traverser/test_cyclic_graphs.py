"""Every walk terminates on graphs whose containment edges loop back (issue 29, item 1).

A JGF reader accepts a containment cycle (``cluster0 -> node0 -> core0 -> cluster0``); the
selection, update, cancel and find walks end on it by colour. Visit replay, which gathers
subtrees level by level without colours, must stay off there: the tree test counts a cycle as
not a tree. Checked through ``load_graph`` + ``Matcher``, through the command line (in-process
and as a process with a timeout), and after an ``attach`` that adds the back edge. The expected
allocations are the ones the reference prints (it allocates in 0.04 s with every policy).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fluxgraph
from fluxgraph.graph.depth import is_tree
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.policies import POLICIES
from fluxgraph.query.cli import main
from fluxgraph.readers import jgf
from fluxgraph.writers.match import create

ROOT = Path(__file__).resolve().parents[2]
SLOT_CORE = """\
version: 9999
resources: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
attributes: {system: {duration: 3600}}
"""
#: the simple writer's lines for the one possible allocation
PLACED = ["      ---------core0[1:x]", "      ------node0[1:s]", "      ---cluster0[1:s]"]


def _vertex(i: int, rtype: str, path: str) -> dict:
    return {
        "id": str(i),
        "metadata": {
            "type": rtype, "basename": rtype, "name": f"{rtype}0", "id": 0, "uniq_id": i,
            "rank": -1 if rtype == "cluster" else 0, "exclusive": False, "unit": "", "size": 1,
            "paths": {"containment": path},
        },
    }  # fmt: skip


def _edge(a: int, b: int) -> dict:
    return {"source": str(a), "target": str(b), "metadata": {"name": {"containment": "contains"}}}


VERTICES = [
    _vertex(0, "cluster", "/cluster0"),
    _vertex(1, "node", "/cluster0/node0"),
    _vertex(2, "core", "/cluster0/node0/core0"),
]
TREE = {"graph": {"nodes": VERTICES, "edges": [_edge(0, 1), _edge(1, 2)]}}
CYCLE = {"graph": {"nodes": VERTICES, "edges": [_edge(0, 1), _edge(1, 2), _edge(2, 0)]}}
#: attach: a new core1 below node0 (edges between two known vertices are not added) and an edge
#: from it back up to cluster0
CORE1 = _vertex(3, "core", "/cluster0/node0/core1")
CORE1["metadata"].update(name="core1", id=1)
GROW = {"graph": {"nodes": [*VERTICES[:2], CORE1], "edges": [_edge(1, 3)]}}
BACK_EDGE = {"graph": {"nodes": [*VERTICES[:2], CORE1], "edges": [_edge(1, 3), _edge(3, 0)]}}


def _session(m: Matcher) -> list:
    """Allocate twice (the second fails: one core), cancel, allocate again, find."""
    js = load_jobspec(SLOT_CORE)
    got = []
    for job in (1, 2):
        w = create("simple")
        out = m.run(js, "allocate", job, w)
        got.append((out.rc, w.emit().splitlines() if out.rc == 0 else out.errno))
    m.cancel(1)
    w = create("simple")
    out = m.run(js, "allocate_orelse_reserve", 3, w)
    got.append((out.rc, w.emit().splitlines()))
    finder = create("simple")
    got.append(m.find("sched-now=allocated", finder))
    return got


def test_the_tree_test_counts_a_cycle_as_not_a_tree():
    g = jgf.from_jgf(CYCLE)
    assert not is_tree(g, "containment")  # no vertex has two parents, but the edges loop
    assert is_tree(jgf.from_jgf(TREE), "containment")


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_policy_terminates_and_allocates_on_a_cycle(tmp_path, policy):
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps(CYCLE))
    m = Matcher(fluxgraph.load_graph(path, "jgf"), policy=policy)
    got = _session(m)
    assert got[0][0] == 0 and _names(got[0][1]) == ["core0", "node0", "cluster0"]
    assert got[1][0] == -1  # the only core is taken
    assert got[2] == got[0]
    assert got[3] >= 1
    tree = Matcher(fluxgraph.load_graph(_write(tmp_path, TREE), "jgf"), policy=policy)
    assert _session(tree)[:3] == got[:3]  # the back edge changes no choice


def _names(lines: list[str]) -> list[str]:
    return [line.strip(" -").split("[")[0] for line in lines]


def _write(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("policy", ["high", "low", "variation", "first"])
def test_an_attached_back_edge_keeps_every_walk_finite(tmp_path, policy):
    m = Matcher(fluxgraph.load_graph(_write(tmp_path, TREE), "jgf"), policy=policy)
    m.attach(json.dumps(BACK_EDGE))
    assert m.graph.num_edges == 4 and not is_tree(m.graph, "containment")
    assert m.traverser.replay is None
    grown = Matcher(fluxgraph.load_graph(_write(tmp_path, TREE), "jgf"), policy=policy)
    grown.attach(json.dumps(GROW))
    assert is_tree(grown.graph, "containment")
    got = _session(m)
    assert got[0][0] == 0 and got[1][0] == 0  # two cores now
    assert got[:3] == _session(grown)[:3]


@pytest.mark.parametrize("policy", ["high", "low", "variation"])
def test_the_command_line_terminates_on_a_cycle(tmp_path, policy):
    graph = tmp_path / "cycle.json"
    graph.write_text(json.dumps(CYCLE))
    job = tmp_path / "job.yaml"
    job.write_text(SLOT_CORE)
    script = f"match allocate {job}\nmatch allocate {job}\ncancel 1\nmatch allocate {job}\nquit\n"
    out, err = io.StringIO(), io.StringIO()
    rc = main(
        ["-L", str(graph), "-f", "jgf", "-P", policy],
        stdin=io.StringIO(script),
        stdout=out,
        stderr=err,
    )
    assert rc == 0
    assert out.getvalue().count("RESOURCES=ALLOCATED") == 2
    assert "\n".join(PLACED) in out.getvalue()
    # the same as a process reading a real pipe, under a wall-clock bound
    proc = subprocess.run(
        [sys.executable, "-m", "fluxgraph.query", "-L", str(graph), "-f", "jgf", "-P", policy],
        input=script.encode(),
        capture_output=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.decode() == out.getvalue()
