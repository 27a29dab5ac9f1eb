"""Hypothesis strategies for small random machines and jobspecs, and planner-state snapshots."""

from __future__ import annotations

from hypothesis import strategies as st

from fluxgraph.graph import ResourceGraph
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.writers.match.simple import SimpleWriter


@st.composite
def machines(draw) -> ResourceGraph:
    """cluster > [racks] > nodes > sockets > {cores, memory pools, gpus}, ids sometimes repeated."""
    g = ResourceGraph()
    root = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", root)
    n_racks = draw(st.integers(0, 2))
    nodes_per_parent = draw(st.integers(1, 4))
    global_node_ids = draw(st.booleans())
    parents = []
    if n_racks:
        for r in range(n_racks):
            v = g.add_vertex("rack", "rack", r, paths={"containment": f"/c0/rack{r}"})
            g.add_edge(root, v, "containment")
            parents.append(v)
    else:
        parents.append(root)
    sockets = draw(st.integers(1, 2))
    cores = draw(st.integers(1, 4))
    mem_size = draw(st.integers(1, 4))
    gpus = draw(st.integers(0, 1))
    rank = 0
    for pi, parent in enumerate(parents):
        for i in range(nodes_per_parent):
            nid = pi * nodes_per_parent + i if global_node_ids else i
            npath = f"{g.paths[parent]['containment']}/node{nid}"
            node = g.add_vertex("node", "node", nid, rank=rank, paths={"containment": npath})
            rank += 1
            g.add_edge(parent, node, "containment")
            for s in range(sockets):
                spath = f"{npath}/socket{s}"
                sock = g.add_vertex("socket", "socket", s, paths={"containment": spath})
                g.add_edge(node, sock, "containment")
                for c in range(cores):
                    cid = s * cores + c
                    cpath = f"{spath}/core{cid}"
                    v = g.add_vertex("core", "core", cid, paths={"containment": cpath})
                    g.add_edge(sock, v, "containment")
                mpath = f"{spath}/memory{s}"
                v = g.add_vertex("memory", "memory", s, size=mem_size, paths={"containment": mpath})
                g.add_edge(sock, v, "containment")
                for k in range(gpus):
                    v = g.add_vertex("gpu", "gpu", s, paths={"containment": f"{spath}/gpu{s + k}"})
                    g.add_edge(sock, v, "containment")
    return g


def describe(graph: ResourceGraph) -> str:
    """One line per vertex (path, id, size) for hypothesis failure reports."""
    return "\n".join(
        f"{graph.paths[v]['containment']} id={graph.ids[v]} size={graph.sizes[v]}"
        for v in range(graph.num_vertices)
    )


def _spec(resources: list, duration: int) -> dict:
    return {
        "version": 9999,
        "resources": resources,
        "attributes": {"system": {"duration": duration}},
        "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}],
    }


@st.composite
def jobspecs(draw) -> dict:
    """A jobspec of one of several shapes: node>slot>cores, slot>cores, socket>cores, cores."""
    cores = draw(st.integers(1, 3))
    duration = draw(st.sampled_from([0, 10, 100, 1000]))
    leaf = [{"type": "core", "count": cores}]
    if draw(st.booleans()):
        leaf.append({"type": "memory", "count": draw(st.integers(1, 3))})
    slot = {"type": "slot", "count": draw(st.integers(1, 2)), "label": "task", "with": leaf}
    shape = draw(
        st.sampled_from(["node-slot", "node-slot-socket", "slot", "socket-slot", "node-x", "core"])
    )
    if shape == "node-slot":  # fails on these machines: the reference's quirk 7
        resources = [{"type": "node", "count": draw(st.integers(1, 2)), "with": [slot]}]
    elif shape == "node-slot-socket":
        sock_slot = {**slot, "with": [{"type": "socket", "count": 1, "with": leaf}]}
        resources = [{"type": "node", "count": draw(st.integers(1, 2)), "with": [sock_slot]}]
    elif shape == "slot":
        resources = [slot]
    elif shape == "socket-slot":
        resources = [{"type": "socket", "count": 1, "with": [slot]}]
    elif shape == "node-x":
        node = {"type": "node", "count": 1, "exclusive": True, "with": [slot]}
        resources = [node]
    else:
        resources = [{"type": "core", "count": cores}]
    return _spec(resources, duration)


def snapshot(graph: ResourceGraph) -> list:
    """Every vertex's planner contents (span windows and amounts) and job maps, id-free."""
    sched = graph.schedule
    out = []
    for v in range(graph.num_vertices):
        plans = sched.plans[v]
        xc = sched.x_checkers[v]
        subplans = sched.subplans[v] or {}
        out.append(
            (
                _spans(plans),
                _spans(xc),
                {s: _multi_spans(p) for s, p in subplans.items()},
                sorted((sched.allocations[v] or {}).keys()),
                sorted((sched.reservations[v] or {}).keys()),
                sorted((sched.tags[v] or {}).keys()),
            )
        )
    return out


def _spans(p) -> list:
    if p is None:
        return []
    return sorted(
        (p.span_start_time(i), p.span_duration(i), p.span_resource_count(i)) for i in p.span_ids()
    )


def _multi_spans(p) -> list:
    rows = []
    for i in range(p.resources_len()):
        rows.append(_spans(p.planner_at(i)))
    return rows


def match_on_each(matchers, spec, op: str, job_id: int) -> list[tuple]:
    """``(rc, errno, at, simple writer output)`` of one match on each of ``matchers``."""
    outputs = []
    for m in matchers:
        w = SimpleWriter()
        r = m.run(spec, op, job_id, w)
        outputs.append((r.rc, r.errno, r.at, w.emit()))
    return outputs


@st.composite
def quartz_machines(draw, per_rack: tuple[int, int]) -> tuple[ResourceGraph, bool]:
    """``(machine, pooled)``: a small quartz (1-3 racks of ``per_rack`` nodes, 2 x 2 cores, or a
    pooled node of 4 cores) with random performance classes 1-3."""
    racks = draw(st.integers(1, 3))
    nodes_per_rack = draw(st.integers(*per_rack))
    nodes = racks * nodes_per_rack
    classes = draw(st.lists(st.integers(1, 3), min_size=nodes, max_size=nodes))
    pooled = draw(st.booleans())
    return build_quartz(racks, nodes_per_rack, 2, 2, classes, pooled), pooled
