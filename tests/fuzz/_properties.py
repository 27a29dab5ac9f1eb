"""Semantic fuzz properties with brute-force oracles on tiny machines (issue 29, item 4).

:mod:`_fuzzlib` checks that any input ends in the layer's own error within bounds. These checks
look at the answers, on machines small enough for an oracle that enumerates everything:

* ``windows``: random allocations, reservations and matches at future times never put more
  than a vertex's size into any instant of its planner (every span boundary is checked, in the
  vertex planners and the aggregates); cancelling every job restores the initial state.
* ``sat``: on the empty machine, ``satisfiability`` says Satisfiable exactly when ``allocate``
  succeeds, except for the documented reference quirk (the selection holds no exclusive vertex,
  matching-semantics quirk 7, see ``docs/deviations.md``), and a top-level ``slot > core``
  request is satisfiable exactly when the slot hosts can hold enough slots (counted by brute
  force); simple and flexible traversers both.
* ``cycle``: a graph from each reader (GRUG, JGF, hwloc, rv1exec) with an attached vertex whose
  containment edge loops back to an ancestor (or a JGF generated with back edges and cycles):
  every walk ends, and matches choose what they choose without the back edge.
* ``rejects``: a rejected input (attach, update, partial cancel, jobspec) on a non-empty graph
  with allocations changes nothing: graph and every planner, tag and job map.
* ``cli`` (see :func:`check_cli_fds`): the command line over real file descriptors prints what
  it prints over in-memory streams.

Each check takes a ``random.Random`` and raises :class:`_fuzzlib.Defect`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
from errno import ENODEV
from pathlib import Path
from typing import Any

import _fuzzlib as fz

from fluxgraph.errors import FluxgraphError, MatchError, ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.graph.depth import is_tree
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.query.cli import main as cli_main
from fluxgraph.readers import grug, hwloc, jgf, rv1exec
from fluxgraph.writers.jgf import to_jgf
from fluxgraph.writers.match import create

POLICIES = ("high", "low", "first", "lonode", "hinodex", "lonodex", "locality", "variation")
NODE_EXCLUSIVE = ("hinodex", "lonodex", "firstnodex")


# -- tiny machines and requests -------------------------------------------------------------------


def tiny_machine(rng: random.Random) -> ResourceGraph:
    """cluster > [racks] > nodes > [sockets] > {cores, memory, gpu}: at most ~40 vertices."""
    g = ResourceGraph()
    root = g.add_vertex("cluster", "tiny", 0, paths={"containment": "/tiny0"})
    g.set_root("containment", root)
    parents = [root]
    if rng.random() < 0.4:
        parents = []
        for r in range(rng.randint(1, 2)):
            v = g.add_vertex("rack", "rack", r, paths={"containment": f"/tiny0/rack{r}"})
            g.add_edge(root, v, "containment")
            parents.append(v)
    sockets = rng.choice([0, 0, 1, 2])
    cores, memory, gpus = rng.randint(1, 3), rng.randint(0, 2), rng.randint(0, 1)
    rank = 0
    for parent in parents:
        for _ in range(rng.randint(1, 2)):
            path = f"{g.paths[parent]['containment']}/node{rank}"
            node = g.add_vertex("node", "node", rank, rank=rank, paths={"containment": path})
            g.add_edge(parent, node, "containment")
            hosts = [(node, path)]
            if sockets:
                hosts = []
                for s in range(sockets):
                    sv = g.add_vertex("socket", "socket", s, rank=rank,
                                      paths={"containment": f"{path}/socket{s}"})  # fmt: skip
                    g.add_edge(node, sv, "containment")
                    hosts.append((sv, f"{path}/socket{s}"))
            for i, (host, hpath) in enumerate(hosts):
                for t, n, size in (("core", cores, 1), ("memory", memory, 2), ("gpu", gpus, 1)):
                    for k in range(n):
                        lid = i * n + k
                        v = g.add_vertex(t, t, lid, rank=rank, size=size,
                                         paths={"containment": f"{hpath}/{t}{lid}"})  # fmt: skip
                        g.add_edge(host, v, "containment")
            rank += 1
    return g


def _spec(resources: list, duration: int = 100) -> dict:
    return {
        "version": 9999,
        "resources": resources,
        "attributes": {"system": {"duration": duration}},
        "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}],
    }


def tiny_request(rng: random.Random, duration: int = 100) -> dict:
    """One of the usual shapes: ``core``, ``slot > leaves``, ``node > slot > leaves``,
    ``node (exclusive) > slot``, ``socket > slot``, ``node > socket > slot``."""
    leaves = [{"type": "core", "count": rng.randint(1, 2)}]
    if rng.random() < 0.3:
        leaves.append({"type": rng.choice(["memory", "gpu"]), "count": 1})
    slot = {"type": "slot", "count": rng.randint(1, 2), "label": "task", "with": leaves}
    shape = rng.choice(["core", "slot", "node-slot", "node-x", "socket-slot", "node-socket"])
    if shape == "core":
        resources = [{"type": "core", "count": rng.randint(1, 4)}]
    elif shape == "slot":
        resources = [slot]
    elif shape == "node-slot":
        resources = [{"type": "node", "count": rng.randint(1, 2), "with": [slot]}]
    elif shape == "node-x":
        resources = [{"type": "node", "count": 1, "exclusive": True, "with": [slot]}]
    elif shape == "socket-slot":
        resources = [{"type": "socket", "count": 1, "with": [slot]}]
    else:
        sock = {"type": "socket", "count": 1, "with": [slot]}
        resources = [{"type": "node", "count": 1, "with": [sock]}]
    return _spec(resources, duration)


# -- planner-state oracles ------------------------------------------------------------------------


def _spans(p) -> list[tuple[int, int, int]]:
    if p is None:
        return []
    return sorted(
        (p.span_start_time(i), p.span_duration(i), p.span_resource_count(i)) for i in p.span_ids()
    )


def snapshot(g: ResourceGraph) -> list:
    """Every vertex's planner contents and job maps (span ids left out), plus the graph."""
    sched = g.schedule
    out: list = [sorted(g.roots.items()), g.num_edges]
    for v in range(g.num_vertices):
        subplans = sched.subplans[v] or {}
        out.append(
            (
                g.types[v], g.names[v], g.status[v], sorted(g.properties[v].items()),
                _spans(sched.plans[v]), _spans(sched.x_checkers[v]),
                {s: [_spans(p.planner_at(i)) for i in range(p.resources_len())]
                 for s, p in subplans.items()},
                sorted(sched.allocations[v] or ()), sorted(sched.reservations[v] or ()),
                sorted(sched.tags[v] or ()), sorted(sched.x_spans[v] or ()),
                sorted(sched.job2span[v] or ()),
            )
        )  # fmt: skip
    return out


def overbooked(g: ResourceGraph) -> str | None:
    """The first vertex planner or aggregate whose spans hold more than its total at some
    instant (every span start is tried: the load only rises there), else ``None``."""
    sched = g.schedule
    for v in range(g.num_vertices):
        checks = [(g.names[v], sched.plans[v], g.sizes[v])]
        for s, mp in (sched.subplans[v] or {}).items():
            for i in range(mp.resources_len()):
                p = mp.planner_at(i)
                total = p.resource_total
                checks.append((f"{g.names[v]}/{s}[{i}]", p, total() if callable(total) else total))
        for name, p, total in checks:
            spans = _spans(p)
            for start, _, _ in spans:
                load = sum(n for s0, d, n in spans if s0 <= start < s0 + d)
                if load > total:
                    return f"{name}: {load} > {total} at t={start}"
    return None


# -- properties -----------------------------------------------------------------------------------


def check_windows(rng: random.Random, steps: int = 12) -> str:
    """No over-allocation in overlapping windows; cancel of everything restores the start."""
    g = tiny_machine(rng)
    policy = rng.choice(POLICIES)
    prune = rng.choice(["ALL:core", "ALL:core,ALL:node", "", "node:core"])
    traverser = rng.choice(["simple", "simple", "flexible"])
    with fz.only("windows", MatchError):
        m = Matcher(g, policy=policy, prune=prune, traverser=traverser)
    initial = snapshot(g)
    jobs: list[int] = []
    with fz.only("windows", FluxgraphError):
        for job in range(1, steps + 1):
            js = load_jobspec(tiny_request(rng, rng.choice([10, 100, 1000])))
            r = rng.random()
            if r < 0.2 and jobs:
                m.cancel(jobs.pop(rng.randrange(len(jobs))))
            elif r < 0.4:
                out = m.run(js, "allocate", job, create("simple"), at=rng.choice([0, 50, 500]))
                if out.rc == 0:
                    jobs.append(job)
            else:
                op = rng.choice(["allocate", "allocate_orelse_reserve"])
                if m.run(js, op, job, create("simple")).rc == 0:
                    jobs.append(job)
            problem = overbooked(g)
            if problem:
                raise fz.Defect("windows", "overbooked", f"{policy}/{traverser}: {problem}")
        for job in jobs:
            m.cancel(job)
    if snapshot(g) != initial:
        raise fz.Defect("windows", "state", f"{policy}/{traverser}: cancel of every job left state")
    return "ok"


def _slot_hosts(g: ResourceGraph, member: str) -> list[int]:
    """The highest vertices with a direct child of type ``member`` (where a top-level slot of
    ``member`` units forms: every vertex above one is a pass-through)."""
    children = g.children("containment")
    hosts, todo = [], [g.roots["containment"]]
    while todo:
        v = todo.pop()
        if any(g.types[c] == member for c in children[v]):
            hosts.append(v)
        else:
            todo.extend(children[v])
    return hosts


def _holds_nothing_exclusive(spec: dict) -> bool:
    """Quirk 7's first form: no slot and no ``exclusive: true``: the update walk finds no
    vertex to book, so ``allocate`` fails after a successful select."""
    text = json.dumps(spec["resources"])
    return '"slot"' not in text and '"exclusive": true' not in text


def _slot_below_unrequested(g: ResourceGraph, spec: dict, exclusive_too: bool = False) -> bool:
    """Whether a requested resource's slot cannot form at any vertex of that resource's type
    (no such vertex has direct children of every member type: a socket sits in between).

    The simple traverser then looks for the slot one level lower and, unless the resource is
    exclusive (``exclusive_too`` counts those too), books nothing: quirk 7's second form. The
    flexible traverser never matches such a vertex at all.
    """
    children = g.children("containment")
    for r in spec["resources"]:
        for c in r.get("with", ()):
            if c["type"] == "slot" and (exclusive_too or not r.get("exclusive")):
                members = {m["type"] for m in c["with"]}
                hosts = [v for v in range(g.num_vertices) if g.types[v] == r["type"]]
                if hosts and not any(members <= {g.types[k] for k in children[v]} for v in hosts):
                    return True
    return False


def check_satisfiability(rng: random.Random) -> str:
    """On the empty machine, ``satisfiability`` agrees with ``allocate`` (quirk 7 aside) and,
    for a top-level ``slot > core``, with a brute-force count of the slots that fit."""
    g = tiny_machine(rng)
    spec = tiny_request(rng)
    policy = rng.choice(POLICIES)
    traverser = rng.choice(["simple", "flexible"])
    js = load_jobspec(spec)
    outcomes = []
    with fz.only("sat", FluxgraphError):
        for op in ("satisfiability", "allocate"):
            m = Matcher(jgf.from_jgf(to_jgf(g)), policy=policy, traverser=traverser)
            outcomes.append(m.run(js, op, 1, create("simple")))
    sat, alloc = outcomes
    where = f"{policy}/{traverser} {json.dumps(spec['resources'])}"
    if alloc.rc == 0 and sat.rc != 0:
        raise fz.Defect("sat", "oracle", f"allocated but unsatisfiable: {where}")
    if sat.rc != 0 and sat.errno != ENODEV:
        raise fz.Defect("sat", "oracle", f"satisfiability failed with errno {sat.errno}: {where}")
    if sat.rc == 0 and alloc.rc != 0:
        # (a node-exclusive policy books every node it passes whole: never the quirk)
        quirk = policy not in NODE_EXCLUSIVE and (
            _holds_nothing_exclusive(spec)
            or (traverser == "simple" and _slot_below_unrequested(g, spec))
        )
        if not quirk:
            raise fz.Defect("sat", "oracle", f"satisfiable, never allocated: {where}")
    if traverser == "flexible" and sat.rc == 0 and _slot_below_unrequested(g, spec, True):
        raise fz.Defect("sat", "oracle", f"flexible formed a slot below its parent: {where}")
    top = spec["resources"][0]
    if top["type"] == "slot" and [m["type"] for m in top["with"]] == ["core"]:
        per_slot = top["with"][0]["count"]
        children = g.children("containment")
        fits = sum(
            sum(1 for c in children[h] if g.types[c] == "core") // per_slot
            for h in _slot_hosts(g, "core")
        )
        if (fits >= top["count"]) != (sat.rc == 0):
            raise fz.Defect("sat", "oracle", f"{fits} slots fit, sat rc {sat.rc}: {where}")
    return "ok"


def _jgf_node(g: ResourceGraph, v: int) -> dict:
    return next(n for n in to_jgf(g)["graph"]["nodes"] if n["id"] == str(g.uniq_ids[v]))


def back_edge_document(
    g: ResourceGraph, rng: random.Random, back: bool = True
) -> tuple[str, bool] | None:
    """A JGF to ``attach``: a new core below a random vertex, and (``back``) a containment edge
    from it up to a random ancestor of that vertex, closing a cycle; and whether that ancestor
    is the root."""
    children = g.children("containment")
    root = g.roots.get("containment")
    if root is None:
        return None
    parent_of = {c: v for v in range(g.num_vertices) for c in children[v]}
    v = rng.randrange(g.num_vertices)
    if v != root and v not in parent_of:
        return None
    chain = [v]
    while chain[-1] in parent_of and chain[-1] != root and parent_of[chain[-1]] not in chain:
        chain.append(parent_of[chain[-1]])
    target = root if root in chain and rng.random() < 0.4 else rng.choice(chain)
    uniq = max(g.uniq_ids) + 1
    path = f"{g.paths[v]['containment']}/core{uniq}"
    new = {"id": str(uniq), "metadata": {
        "type": "core", "basename": "core", "name": f"core{uniq}", "id": uniq, "uniq_id": uniq,
        "rank": g.ranks[v], "exclusive": False, "unit": "", "size": 1,
        "paths": {"containment": path},
    }}  # fmt: skip
    known = {w: _jgf_node(g, w) for w in dict.fromkeys((v, target))}
    edges = [{"source": known[v]["id"], "target": str(uniq)}]
    if back:
        edges.append({"source": str(uniq), "target": known[target]["id"]})
    return json.dumps({"graph": {"nodes": [*known.values(), new], "edges": edges}}), target == root


def cyclic_jgf(rng: random.Random) -> str:
    """A tiny machine's JGF with extra containment edges between existing vertices: back edges
    to ancestors, edges into the root, cross edges (a second parent) and self loops."""
    g = tiny_machine(rng)
    doc = to_jgf(g)
    n = g.num_vertices
    have = {(e["source"], e["target"]) for e in doc["graph"]["edges"]}
    for _ in range(rng.randint(1, 3)):
        a, b = str(rng.randrange(n)), str(rng.choice([0, rng.randrange(n)]))
        if (a, b) not in have:
            have.add((a, b))
            doc["graph"]["edges"].append({"source": a, "target": b})
    return json.dumps(doc)


def _graph_from(kind: str, rng: random.Random) -> ResourceGraph:
    g = ResourceGraph()
    if kind == "jgf":
        jgf.unpack(
            g, cyclic_jgf(rng) if rng.random() < 0.5 else json.dumps(to_jgf(tiny_machine(rng)))
        )
    else:
        texts = [t for t in fz.seeds(kind) if len(t) < 40_000] or fz.seeds(kind)
        {"grug": grug.unpack, "hwloc": hwloc.unpack, "rv1exec": rv1exec.unpack}[kind](
            g, rng.choice(texts)
        )
    return g


def _session(m: Matcher, specs: list, cancels: list[int]) -> list:
    got = []
    for job, js in enumerate(specs, start=1):
        w = create("simple")
        out = m.run(js, "allocate_orelse_reserve", job, w)
        got.append((out.rc, out.errno, out.at, w.emit() if out.rc == 0 else ""))
        if job in cancels:
            with contextlib.suppress(MatchError):
                m.cancel(job)
    return got


def check_cycles(rng: random.Random) -> str:
    """Graphs with back edges and cycles from every reader: every walk ends (the case bound),
    and an attached back edge changes no match (the walk never re-enters a visited vertex).

    Except into the root: there the back edge becomes the root's first in-edge, which the
    climb that marks pass-through ancestors follows (matching-semantics §6.12) as the
    reference does, so it may mark another node's edge (booked whole by a node-exclusive
    policy); and except on a graph that already has shared children or cycles (a generated
    JGF), where the "ancestor" may be off the walk's path and get entered through the new edge.
    Such cases are checked for termination only."""
    kind = rng.choice(["grug", "jgf", "hwloc", "rv1exec"])
    policy = rng.choice(POLICIES)
    traverser = rng.choice(["simple", "simple", "flexible"])
    with fz.only("cycle", ReaderError):
        try:
            g = _graph_from(kind, rng)
        except ReaderError:
            return "rejected"
    attach_seed = rng.random()
    specs = [load_jobspec(tiny_request(rng)) for _ in range(4)]
    cancels = [j for j in range(1, 5) if rng.random() < 0.3]
    results = []
    for back in (True, False):
        h = jgf.from_jgf(to_jgf(g)) if g.num_vertices else ResourceGraph()
        with fz.only("cycle", FluxgraphError):
            try:
                m = Matcher(h, policy=policy, traverser=traverser)
            except MatchError:
                return "ok"
            forest = is_tree(h, "containment")
            made = back_edge_document(h, random.Random(attach_seed), back)
            if made is not None:
                m.attach(made[0])
            got = _session(m, specs, cancels)
            finder = create("simple")
            with contextlib.suppress(FluxgraphError):
                m.find("sched-now=allocated or status=up", finder)
            with contextlib.suppress(FluxgraphError):
                m.set_status(h.paths[h.roots["containment"]]["containment"], "down")
            results.append(got)
            if made is None or made[1] or not forest:
                return "ok"
    if results[0] != results[1]:
        raise fz.Defect(
            "cycle", "oracle", f"{kind} {policy}/{traverser}: a back edge changed a match"
        )
    return "ok"


def check_rejects(rng: random.Random) -> str:
    """A rejected input leaves a non-empty graph and its allocations unchanged."""
    g = tiny_machine(rng)
    traverser = rng.choice(["simple", "flexible"])
    with fz.only("rejects", FluxgraphError):
        m = Matcher(g, policy=rng.choice(POLICIES), traverser=traverser)
        r_doc = None
        for job in range(1, 4):
            w = create("jgf")
            if m.run(load_jobspec(tiny_request(rng)), "allocate", job, w).rc == 0:
                with contextlib.suppress(MatchError):
                    r_doc = w.emit()
    before = snapshot(g)
    valid = json.dumps(to_jgf(tiny_machine(rng)))
    op = rng.choice(["attach", "update", "partial", "match"])
    seed_doc = r_doc or valid
    text = fz.mutate_text(
        seed_doc,
        [(rng.choice(fz.TEXT_OPS), rng.random(), fz.draw_payload(rng), rng.randint(1, 8))],
    )
    with fz.only("rejects", FluxgraphError):
        try:
            if op == "attach":
                m.attach(text if rng.random() < 0.8 else valid)  # (a second root: refused)
                return "ok"
            if op == "update":
                out = m.update("jgf", text, 99, 0, 100, create("simple"))
                if out.rc == 0:
                    return "ok"
            elif op == "partial":
                m.partial_cancel(1, "jgf", text)
                return "ok"
            else:
                js = load_jobspec(fz.make_document("jobspec", rng))
                m.run(js, "allocate", 99, create("simple"))
                return "ok"
        except FluxgraphError:
            pass
    if snapshot(g) != before:
        raise fz.Defect("rejects", "state", f"a rejected {op} changed the graph or its planners")
    return "rejected"


def check_cli_fds(argv: list[str]) -> str:
    """The command line over real files (descriptors) prints what it prints over in-memory
    streams, and a full device ends it with status 1, never a traceback."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "grug").write_text(fz.INLINE_GRUG)
        (d / "core.yaml").write_text(fz.JOB_SHAPES[0])
        args = [a.replace("@", str(d) + "/") if "@" in a else a for a in argv]
        args = [a for a in args if not a.startswith(("-t", "-o"))]  # (their files: per run)
        if not any(a.startswith(("-L", "--load-file")) for a in args):
            args += ["-L", str(d / "grug")]
        script = f"match allocate {d / 'core.yaml'}\nfind status=up\nquit\n"
        (d / "in").write_text(script)
        memory = _run_cli(args, io.StringIO(script), io.StringIO(), io.StringIO())
        with (
            open(d / "in", encoding="utf-8", errors="surrogateescape") as fin,
            open(d / "out", "w", encoding="utf-8", errors="surrogateescape") as fout,
            open(d / "err", "w", encoding="utf-8", errors="surrogateescape") as ferr,
        ):
            rc = _run_cli(args, fin, fout, ferr)[0]
        files = (rc, (d / "out").read_text(errors="surrogateescape"),
                 (d / "err").read_text(errors="surrogateescape"))  # fmt: skip
        if _timeless(files) != _timeless(memory):
            raise fz.Defect("cli", "fds", f"real files print otherwise for {argv!r}")
        if os.path.exists("/dev/full"):
            with open(d / "in", encoding="utf-8") as fin:
                full = open("/dev/full", "w")  # noqa: SIM115 (its close fails: closed below)
                try:
                    rc = _run_cli(args, fin, full, io.StringIO())[0]
                finally:
                    with contextlib.suppress(OSError):
                        full.close()
            if rc not in (0, 1):
                raise fz.Defect("cli", "status", f"exit status {rc!r} on /dev/full for {argv!r}")
    return "ok"


def _run_cli(args: list[str], stdin, stdout, stderr) -> tuple[int, str, str]:
    with fz.only("cli"):
        rc = cli_main(args, prog="resource-query", stdin=stdin, stdout=stdout, stderr=stderr)
    text = [s.getvalue() if isinstance(s, io.StringIO) else "" for s in (stdout, stderr)]
    return rc, text[0], text[1]


def _timeless(run: tuple[int, str, str]) -> tuple[int, list[str], list[str]]:
    """A run's status and lines without the ones that print elapsed times."""

    def keep(text: str) -> list[str]:
        return [line for line in text.splitlines() if "ELAPSE" not in line and "ime" not in line]

    return run[0], keep(run[1]), keep(run[2])


CHECKS: dict[str, Any] = {
    "windows": check_windows,
    "sat": check_satisfiability,
    "cycle": check_cycles,
    "rejects": check_rejects,
}
