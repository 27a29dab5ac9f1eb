"""Tiny hand-built graphs and emission streams for the match-writer tests."""

from __future__ import annotations

from dataclasses import dataclass

from fluxgraph.graph import ResourceGraph


@dataclass
class Tiny:
    """cluster tiny0 -> rack0 -> node0, node1 -> socket0/1 -> core0..3 + gpu0/1 (+ memory)."""

    graph: ResourceGraph
    v: dict[str, int]
    e: dict[str, int]


def tiny() -> Tiny:
    """A 2-node machine: each node has 2 sockets; each socket 2 cores, 1 gpu, 1 memory pool.

    Names follow the reference's GRUG generation: cores, gpus, memory are numbered per node.
    """
    g = ResourceGraph()
    v: dict[str, int] = {}
    e: dict[str, int] = {}

    def add(key, vtype, basename, vid, parent, path, **kw):
        v[key] = g.add_vertex(vtype, basename, vid, paths={"containment": path}, **kw)
        if parent is not None:
            e[key] = g.add_edge(v[parent], v[key], "containment")
        return v[key]

    add("tiny0", "cluster", "tiny", 0, None, "/tiny0")
    g.set_root("containment", v["tiny0"])
    add("rack0", "rack", "rack", 0, "tiny0", "/tiny0/rack0")
    for n in range(2):
        node = f"node{n}"
        npath = f"/tiny0/rack0/{node}"
        add(node, "node", "node", n, "rack0", npath, rank=n)
        for s in range(2):
            sock = f"{node}/socket{s}"
            spath = f"{npath}/socket{s}"
            add(sock, "socket", "socket", s, node, spath, rank=n)
            for c in range(2 * s, 2 * s + 2):
                add(f"{sock}/core{c}", "core", "core", c, sock, f"{spath}/core{c}", rank=n)
            add(f"{sock}/gpu{s}", "gpu", "gpu", s, sock, f"{spath}/gpu{s}", rank=n)
            add(
                f"{sock}/memory{s}",
                "memory",
                "memory",
                s,
                sock,
                f"{spath}/memory{s}",
                rank=n,
                size=4,
                unit="GB",
            )
    return Tiny(g, v, e)


def feed_one_core(w, t: Tiny, node: str = "node1", sock: str = "socket1", core: str = "core3"):
    """Emit what a 1-core match under ``node/sock`` sends (post-order, edges after subtrees)."""
    g, v, e = t.graph, t.v, t.e
    path = f"{node}/{sock}"
    w.emit_vtx(g, v[f"{path}/{core}"], 5, 1, True, False)
    w.emit_edg(g, e[f"{path}/{core}"], True)
    w.emit_vtx(g, v[path], 4, 1, True, False)
    w.emit_edg(g, e[path], False)
    w.emit_vtx(g, v[node], 3, 1, False, False)
    w.emit_edg(g, e[node], False)
    w.emit_vtx(g, v["rack0"], 2, 1, False, False)
    w.emit_edg(g, e["rack0"], False)
    w.emit_vtx(g, v["tiny0"], 1, 1, False, False)


def feed_nodes(w, t: Tiny, nodes=("node0", "node1"), start: int = 0, end: int = 3600):
    """Emit whole nodes (every core and gpu exclusive) under the rack, then emit_tm."""
    g, v, e = t.graph, t.v, t.e
    for node in nodes:
        for s in range(2):
            sock = f"{node}/socket{s}"
            for c in range(2 * s, 2 * s + 2):
                w.emit_vtx(g, v[f"{sock}/core{c}"], 5, 1, True, True)
                w.emit_edg(g, e[f"{sock}/core{c}"], True)
            w.emit_vtx(g, v[f"{sock}/gpu{s}"], 5, 1, True, True)
            w.emit_edg(g, e[f"{sock}/gpu{s}"], True)
            w.emit_vtx(g, v[sock], 4, 1, True, True)
            w.emit_edg(g, e[sock], True)
        w.emit_vtx(g, v[node], 3, 1, True, False)
        w.emit_edg(g, e[node], False)
    w.emit_vtx(g, v["rack0"], 2, 1, False, False)
    w.emit_edg(g, e["rack0"], False)
    w.emit_vtx(g, v["tiny0"], 1, 1, False, False)
    w.emit_tm(start, end)
