"""Graphs and jobspecs shared by the policy tests."""

from __future__ import annotations

from pathlib import Path

from fluxgraph.graph import ResourceGraph
from fluxgraph.readers import grug

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
RESOURCE = SHARED / "conformance" / "data" / "data" / "resource"
SMALL_GRAPHML = RESOURCE / "grugs" / "small.graphml"
JOB_1N = RESOURCE / "jobspecs" / "var_aware" / "job_1N.yaml"

#: The var_aware ``job_1N.yaml`` request: one node with two 18-core socket slots.
JOB_1N_DICT = {
    "version": 9999,
    "resources": [
        {
            "type": "node",
            "count": 1,
            "with": [
                {
                    "type": "slot",
                    "label": "default",
                    "count": 2,
                    "with": [
                        {"type": "socket", "count": 1, "with": [{"type": "core", "count": 18}]}
                    ],
                }
            ],
        }
    ],
    "attributes": {"system": {"duration": 7200}},
    "tasks": [{"command": ["app"], "slot": "default", "count": {"per_slot": 1}}],
}


def small_from_graphml(nodes: int) -> ResourceGraph:
    """The conformance ``small.graphml`` with ``nodes`` nodes in its rack (8 in the file)."""
    text = SMALL_GRAPHML.read_text()
    old = '<edge id="rack2node" source="rack" target="node">\n'
    old += '            <data key="id_scope">1</data>\n'
    old += '            <data key="multi_scale">8</data>'
    assert old in text
    g = ResourceGraph()
    grug.unpack(g, text.replace(old, old[:-8] + f"{nodes}</data>"))
    return g


def small(nodes: int) -> ResourceGraph:
    """``small.graphml`` from the store API: small0/rack0/node[n]/socket[2]/{core[18],memory[4]}.

    Vertices are created level by level, as the GRUG reader generates them, so vertex ids,
    ``uniq_id``s and out-edge orders are the reader's.
    """
    g = ResourceGraph()

    def add(vtype, basename, vid, parent, path, **kw):
        v = g.add_vertex(vtype, basename, vid, paths={"containment": path}, **kw)
        if parent is not None:
            g.add_edge(parent[0], v, "containment")
        return v, path

    cluster = add("cluster", "small", 0, None, "/small0")
    g.set_root("containment", cluster[0])
    rack = add("rack", "rack", 0, cluster, "/small0/rack0")
    node_list = [add("node", "node", n, rack, f"{rack[1]}/node{n}", rank=n) for n in range(nodes)]
    sockets = [
        (n, add("socket", "socket", s, node, f"{node[1]}/socket{s}"))
        for n, node in enumerate(node_list)
        for s in range(2)
    ]
    for i, (_, sock) in enumerate(sockets):
        for c in range(18 * (i % 2), 18 * (i % 2) + 18):
            add("core", "core", c, sock, f"{sock[1]}/core{c}")
    for i, (_, sock) in enumerate(sockets):
        for m in range(4 * (i % 2), 4 * (i % 2) + 4):
            add("memory", "memory", m, sock, f"{sock[1]}/memory{m}", size=32, unit="GB")
    return g
