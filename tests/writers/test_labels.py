"""Jobspec labels reach the emitted R as ``metadata.ephemeral.label`` and crash no writer.

Reference semantics (matching-semantics §3.1, §6.8, io-and-cli §6.5): the selection walk stores
the label of the request a vertex matched (``{"label": ...}``, replacing what an earlier selection
left) on every vertex it visits; the JGF writers print that map, sorted, when it is non-empty.
The update walk does not clear it, so a label outlives its match until a later labelled selection
visits the vertex again; ``find`` starts a new epoch and clears the label of every vertex it emits.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from fluxgraph.query.cli import main
from fluxgraph.writers.match import MATCH_FORMATS

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"

_KEYS = """\
<key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
<key id="type" for="node" attr.name="type" attr.type="string"/>
<key id="basename" for="node" attr.name="basename" attr.type="string"/>
<key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
<key id="subsystem" for="node" attr.name="subsystem" attr.type="string">
<default>containment</default></key>
<key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string">
<default>containment</default></key>
<key id="gen_method" for="edge" attr.name="gen_method" attr.type="string">
<default>MULTIPLY</default></key>
<key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int">
<default>1</default></key>
<key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
<key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
<key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
"""

# cluster > cpu_rack[2] > cpu_group[2] > socket[2] > core[4]; gpu_rack[1] > gpu_group[2] > gpu[4]
_TREE = [
    ("cluster", "dis", None, 0),
    ("cpu_rack", "cpu_rack", "cluster", 2),
    ("cpu_group", "cpu_group", "cpu_rack", 2),
    ("socket", "socket", "cpu_group", 2),
    ("core", "core", "socket", 4),
    ("gpu_rack", "gpu_rack", "cluster", 1),
    ("gpu_group", "gpu_group", "gpu_rack", 2),
    ("gpu", "gpu", "gpu_group", 4),
]


def disaggregated_grug() -> str:
    """A small flux-sched style disaggregated machine (no nodes, no ranks)."""
    nodes, edges = [], []
    for vtype, basename, parent, scale in _TREE:
        root = '<data key="root">1</data>' if parent is None else ""
        nodes.append(
            f'<node id="{vtype}">{root}<data key="type">{vtype}</data>'
            f'<data key="basename">{basename}</data></node>'
        )
        if parent is not None:
            edges.append(
                f'<edge source="{parent}" target="{vtype}">'
                f'<data key="multi_scale">{scale}</data><data key="id_scope">1</data></edge>'
            )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
        + _KEYS
        + '<graph id="dis" edgedefault="directed">\n'
        + "\n".join(nodes + edges)
        + "\n</graph>\n</graphml>\n"
    )


DISAGGREGATED_JOB = """\
version: 9999
resources:
  - type: cluster
    count: 1
    label: whole
    with:
      - type: cpu_rack
        count: 1
        label: cpus
        with:
          - type: slot
            label: default
            count: 2
            with:
              - type: cpu_group
                count: 1
                label: group
                with:
                  - type: socket
                    count: 1
                    label: sock
                    with:
                      - type: core
                        count: 2
                        label: worker
      - type: gpu_rack
        count: 1
        label: accel
        with:
          - type: slot
            label: gpu_slot
            count: 1
            with:
              - type: gpu_group
                count: 1
                label: ggroup
                with:
                  - type: gpu
                    count: 2
                    label: g
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
"""

NODE_JOB = """\
version: 9999
resources:
  - type: node
    count: 1
    label: host
    with:
      - type: slot
        label: default
        count: 1
        with:
          - type: socket
            count: 1
            label: sock
            with:
              - type: core
                count: 2
                label: worker
              - type: memory
                count: 2
                label: mem
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
"""

PLAIN_NODE_JOB = NODE_JOB.replace("    label: host\n", "").replace("            label: sock\n", "")

_LABELS = {
    "cluster": "whole",
    "cpu_rack": "cpus",
    "cpu_group": "group",
    "socket": "sock",
    "core": "worker",
    "gpu_rack": "accel",
    "gpu_group": "ggroup",
    "gpu": "g",
    "node": "host",
    "memory": "mem",
}


def _run(graph: Path, fmt: str, commands: list[str], policy: str = "high") -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    text = "\n".join([*commands, "quit"]) + "\n"
    rc = main(
        ["-L", str(graph), "-F", fmt, "-P", policy, "-d"],
        stdin=io.StringIO(text),
        stdout=out,
        stderr=err,
    )
    assert rc == 0
    assert "Traceback" not in err.getvalue()
    return out.getvalue(), err.getvalue()


def _documents(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.fixture
def machine(tmp_path) -> Path:
    path = tmp_path / "dis.graphml"
    path.write_text(disaggregated_grug())
    return path


@pytest.fixture
def jobs(tmp_path) -> dict[str, Path]:
    paths = {}
    for name, text in {
        "dis": DISAGGREGATED_JOB,
        "node": NODE_JOB,
        "plain": PLAIN_NODE_JOB,
    }.items():
        paths[name] = tmp_path / f"{name}.yaml"
        paths[name].write_text(text)
    return paths


@pytest.mark.parametrize("fmt", sorted(MATCH_FORMATS))
@pytest.mark.parametrize("policy", ["high", "low", "first", "lonodex"])
def test_every_writer_handles_labels_on_every_level(machine, jobs, fmt, policy):
    for graph, job in ((machine, jobs["dis"]), (TINY, jobs["node"])):
        out, _ = _run(
            graph,
            fmt,
            [
                f"match allocate {job}",
                f"match allocate_orelse_reserve {job}",
                f"match allocate_with_satisfiability {job}",
                f"match satisfiability {job}",
                "find sched-now=allocated",
            ],
            policy,
        )
        assert out.count("INFO: JOBID=") == 3
        assert "INFO: Satisfiable request" in out


@pytest.mark.parametrize("fmt", ["jgf", "jgf_shorthand"])
def test_jgf_carries_the_label_of_each_matched_vertex(machine, jobs, fmt):
    out, _ = _run(machine, fmt, [f"match allocate {jobs['dis']}"])
    (doc,) = _documents(out)
    nodes = doc["graph"]["nodes"]
    assert nodes
    for node in nodes:
        meta = node["metadata"]
        assert meta["ephemeral"] == {"label": _LABELS[meta["type"]]}, meta
    if fmt == "jgf":
        types = {n["metadata"]["type"] for n in nodes}
        assert types == set(_TREE_TYPES)


_TREE_TYPES = [t for t, *_ in _TREE]


def test_jgf_label_key_order_is_the_reference_one(jobs):
    out, _ = _run(TINY, "jgf", [f"match allocate {jobs['node']}"])
    (doc,) = _documents(out)
    core = next(n for n in doc["graph"]["nodes"] if n["metadata"]["type"] == "core")
    assert list(core["metadata"]) == ["type", "id", "rank", "exclusive", "paths", "ephemeral"]
    line = next(line for line in out.splitlines() if line.startswith("{"))
    tail = (
        '"paths": {"containment": "/tiny0/node1/socket1/core7"}, "ephemeral": {"label": "worker"}}'
    )
    assert tail in line


def test_rv1_carries_labels_in_its_scheduling_part(jobs):
    out, _ = _run(TINY, "rv1", [f"match allocate {jobs['node']}"])
    (doc,) = _documents(out)
    labels = {
        n["metadata"]["type"]: n["metadata"].get("ephemeral", {}).get("label")
        for n in doc["scheduling"]["graph"]["nodes"]
    }
    assert labels == {
        "core": "worker",
        "memory": "mem",
        "socket": "sock",
        "node": "host",
        "cluster": None,
    }


def test_unlabelled_requests_emit_no_ephemeral(jobs):
    out, _ = _run(TINY, "jgf", [f"match allocate {jobs['plain']}"])
    (doc,) = _documents(out)
    types = {n["metadata"]["type"]: n["metadata"].get("ephemeral") for n in doc["graph"]["nodes"]}
    assert types == {
        "core": {"label": "worker"},
        "memory": {"label": "mem"},
        "socket": None,
        "node": None,
        "cluster": None,
    }


def test_a_label_outlives_its_match_until_find_clears_it(jobs):
    # job 1 (labelled node) takes a socket of node1; its walk also labelled node0, which it
    # visited. Unlabelled jobs then get node1 and node0 with job 1's label, as in the reference.
    out, _ = _run(
        TINY,
        "jgf",
        [
            f"match allocate {jobs['node']}",
            f"match allocate {jobs['plain']}",
            f"match allocate {jobs['plain']}",
            "find status=up",
            f"match allocate {jobs['plain']}",
        ],
        policy="high",
    )
    docs = _documents(out)
    assert len(docs) == 5

    def node_labels(doc):
        return [
            (n["metadata"]["paths"]["containment"], n["metadata"].get("ephemeral"))
            for n in doc["graph"]["nodes"]
            if n["metadata"]["type"] == "node"
        ]

    assert node_labels(docs[0]) == [("/tiny0/node1", {"label": "host"})]
    assert node_labels(docs[1]) == [("/tiny0/node1", {"label": "host"})]  # left by job 1
    assert node_labels(docs[2]) == [("/tiny0/node0", {"label": "host"})]  # visited by job 1
    # find emits no label and clears the label of everything it printed
    assert all("ephemeral" not in n["metadata"] for n in docs[3]["graph"]["nodes"])
    assert node_labels(docs[4]) == [("/tiny0/node0", None)]


def test_labelled_match_walks_the_whole_graph_even_with_the_shortcut(jobs, tmp_path):
    # the id-order shortcut would visit only the chosen node; labels of the others must still
    # be set as by the full walk (visible through a later unlabelled match)
    node_only = tmp_path / "n.yaml"
    node_only.write_text(
        "version: 9999\nresources:\n  - type: node\n    count: 1\n    label: lone\n"
        "    with:\n      - type: slot\n        count: 1\n        label: default\n"
        "        with:\n          - type: socket\n            count: 1\n"
        "            with:\n              - type: core\n                count: 1\n"
        "tasks:\n  - command: [app]\n    slot: default\n    count:\n      per_slot: 1\n"
        "attributes:\n  system:\n    duration: 3600\n"
    )
    plain = tmp_path / "p.yaml"
    plain.write_text(node_only.read_text().replace("    label: lone\n", ""))
    out, _ = _run(
        TINY,
        "jgf",
        [f"match allocate {node_only}", f"match allocate {plain}", f"match allocate {plain}"],
        policy="low",
    )
    docs = _documents(out)
    labels = [
        [
            (n["metadata"]["paths"]["containment"], n["metadata"].get("ephemeral"))
            for n in d["graph"]["nodes"]
            if n["metadata"]["type"] == "node"
        ]
        for d in docs
    ]
    lone = {"label": "lone"}
    assert labels == [
        [("/tiny0/node0", lone)],
        [("/tiny0/node0", lone)],
        [("/tiny0/node1", lone)],  # labelled by the first match's full walk
    ]
