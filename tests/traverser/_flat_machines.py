"""Random flat machines, jobspecs and traces for the fast path's tests."""

from __future__ import annotations

import random

from fluxgraph.graph import ResourceGraph
from fluxgraph.workload import Job

POLICIES = ["first", "firstnodex", "low", "high", "lonode", "hinode", "lonodex", "hinodex"]


def flat_machine(rng: random.Random) -> ResourceGraph:
    """cluster > nodes > leaves (cores, memory, ssd; sometimes nodes of several kinds, whose
    memory and SSD differ), sometimes with pool leaves under the root (still flat: the engine
    answers node requests beside whole pool leaves; the leaves come before, between or after
    the nodes, sometimes of two sizes: then the walk answers), sometimes with racks (then not
    flat: the walk answers)."""
    g = ResourceGraph()
    root = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", root)
    parents = [root]
    if rng.random() < 0.1:
        parents = []
        for r in range(2):
            v = g.add_vertex("rack", "rack", r, paths={"containment": f"/c0/rack{r}"})
            g.add_edge(root, v, "containment")
            parents.append(v)
    cores, mem, ssd = rng.randint(1, 4), rng.choice([0, 0, 4]), rng.choice([0, 0, 2])
    mixed = rng.random() < 0.3  # nodes of several kinds (memory and SSD sizes, or none)
    counts = [rng.randint(2, 6) for _ in parents]
    pool = []
    if rng.random() < 0.3:
        sizes = [8, 8, 8, 8, rng.choice([8, 4])]
        pool = [(rng.randint(0, sum(counts)), sizes[i]) for i in range(rng.randint(1, 5))]

    def add_pool(before: int) -> None:
        for i, (at, size) in enumerate(pool):
            if at == before:
                v = g.add_vertex("bb", "bb", i, size=size, paths={"containment": f"/c0/bb{i}"})
                g.add_edge(root, v, "containment")

    rank = 0
    for parent, count in zip(parents, counts, strict=True):
        for _ in range(count):
            add_pool(rank)
            path = f"{g.paths[parent]['containment']}/node{rank}"
            node = g.add_vertex("node", "node", rank, rank=rank, paths={"containment": path})
            g.add_edge(parent, node, "containment")
            for c in range(cores):
                v = g.add_vertex("core", "core", c, paths={"containment": f"{path}/core{c}"})
                g.add_edge(node, v, "containment")
            for kind, size in (("memory", mem), ("ssd", ssd)):
                if mixed and rng.random() < 0.5:
                    size = rng.choice([0, 2, 4, 8])
                if size:
                    v = g.add_vertex(
                        kind, kind, 0, size=size, paths={"containment": f"{path}/{kind}0"}
                    )
                    g.add_edge(node, v, "containment")
            rank += 1
    add_pool(rank)
    return g


def jobspec(rng: random.Random, nodes: int, duration: int) -> dict:
    """Mostly whole-node requests the fast path answers; some it leaves to the walk."""
    kind = rng.random()
    inner = [{"type": "core", "count": rng.randint(1, 3)}]
    if rng.random() < 0.3:
        # (gpu: a type no node holds; the walk answers)
        inner.append({"type": rng.choice(["memory", "ssd", "gpu"]), "count": rng.randint(1, 3)})
    slot = {"type": "slot", "count": 1, "label": "t", "with": inner}
    if kind < 0.75:
        top = [{"type": "node", "count": rng.randint(1, nodes), "exclusive": True, "with": [slot]}]
        if rng.random() < 0.3:  # whole pool leaves beside the nodes (or not whole: the walk)
            count = 8 * rng.randint(1, 4) if rng.random() < 0.8 else rng.randint(1, 12)
            top.insert(rng.randrange(2), {"type": "bb", "count": count, "exclusive": True})
    elif kind < 0.9:
        top = [{"type": "node", "count": rng.randint(1, nodes), "with": [slot]}]
    else:
        top = [{"type": "slot", "count": rng.randint(1, 4), "label": "t", "with": inner[:1]}]
    return {
        "version": 9999,
        "resources": top,
        "tasks": [{"command": ["x"], "slot": "t", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": duration}},
    }


def random_jobs(rng: random.Random, n: int, cores: int) -> list[Job]:
    """``n`` jobs of up to ``8 * cores`` procs, some asking for memory, some arriving together."""
    jobs, t = [], 0
    for i in range(n):
        t += rng.choice([0, 0, 3, 10, 40])
        wall = rng.randint(5, 200)
        run = rng.randint(1, wall)
        procs = rng.randint(1, 8 * cores)
        jobs.append(Job(i + 1, t, run, wall, procs=procs, memory=rng.choice([0, 0, 2])))
    return jobs
