"""End to end: the front end with the real matcher on the bundled tiny recipe."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from fluxgraph.query.cli import main
from fluxgraph.readers import load

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"
ONE_CORE = """\
version: 9999
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: socket
            count: 1
            with:
              - type: core
                count: 1
tasks:
  - command: ["app"]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
"""


@pytest.fixture
def job(tmp_path):
    path = tmp_path / "one-core.yaml"
    path.write_text(ONE_CORE)
    return path


def _run(args, commands):
    out, err = io.StringIO(), io.StringIO()
    rc = main(["-L", str(TINY), *args], stdin=io.StringIO(commands), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def test_simple_output_is_post_order_with_allocated_block(job):
    rc, out, err = _run(["-P", "high"], f"match allocate {job}\nquit\n")
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    selection, block = lines[:-5], lines[-5:]
    assert block[1:4] == ["INFO: JOBID=1", "INFO: RESOURCES=ALLOCATED", "INFO: SCHEDULED AT=Now"]
    depths = [(len(line) - len(line.lstrip(" -")) - 6) // 3 for line in selection]
    assert depths == sorted(depths, reverse=True) and depths[-1] == 1
    graph = load(TINY)
    root = graph.names[graph.roots["containment"]]
    assert selection[-1] == f"      ---{root}[1:s]"
    assert selection[0].endswith("[1:x]") and "core" in selection[0]


def test_jobs_are_numbered_recorded_and_cancelled(job):
    commands = f"match allocate {job}\nmatch allocate {job}\ncancel 1\nlist\ninfo 3\nquit\n"
    rc, out, err = _run(["-P", "low"], commands)
    assert rc == 0
    assert err == "info: ERROR: nonexistent job 3\n"
    listing = [line for line in out.splitlines() if line.startswith("INFO: 1,")]
    listing += [line for line in out.splitlines() if line.startswith("INFO: 2,")]
    assert listing[0].startswith(f"INFO: 1, CANCELED, 0, {job}, ")
    assert listing[1].startswith(f"INFO: 2, ALLOCATED, 0, {job}, ")


def test_jgf_and_rlite_describe_the_same_selection(job):
    _, simple, _ = _run(["-P", "high"], f"match allocate {job}\nquit\n")
    _, jgf, _ = _run(["-P", "high", "-F", "jgf"], f"match allocate {job}\nquit\n")
    _, rlite, _ = _run(["-P", "high", "-F", "rlite"], f"match allocate {job}\nquit\n")
    names = [line.strip(" -").split("[")[0] for line in simple.splitlines()[:-5]]
    doc = json.loads(jgf.splitlines()[0])
    graph = load(TINY)
    by_uniq = {graph.uniq_ids[v]: v for v in range(graph.num_vertices)}
    assert [graph.names[by_uniq[int(n["id"])]] for n in doc["graph"]["nodes"]] == names
    core = by_uniq[int(doc["graph"]["nodes"][0]["id"])]
    node = next(
        by_uniq[int(n["id"])] for n in doc["graph"]["nodes"] if n["metadata"]["type"] == "node"
    )
    assert json.loads(rlite.splitlines()[0]) == [
        {"rank": str(graph.ranks[node]), "children": {"core": str(graph.ids[core])}}
    ]


def test_satisfiability_of_an_impossible_request(job, tmp_path):
    huge = tmp_path / "huge.yaml"
    huge.write_text(ONE_CORE.replace("count: 1\n    with", "count: 1000\n    with", 1))
    rc, out, _ = _run([], f"match satisfiability {huge}\nmatch satisfiability {job}\nquit\n")
    assert rc == 0
    assert "INFO: Unsatisfiable request" in out.split("INFO: Satisfiable request")[0]
    assert out.count("INFO: Satisfiable request") == 1
