"""Seeded random ``resource-query`` sessions, their runner, and a satisfiability oracle.

Shared by ``tests/traverser/test_differential.py`` (hypothesis draws the seeds) and
``benchmarks/differential_bench.py`` (a larger seeded run). A session is what the differential
study of issue 16 generated: a random GRUG machine (racks, sockets, core pools, memory pools,
gpus, id scopes/starts/strides), random jobspecs of the usual shapes (node>slot, node>socket>slot,
slot, slot>node, cluster>, no slot, version-1 node/slot; fixed counts and ranges with ``+``,
``*`` and ``^``; ``exclusive`` true/false), and a random mix of ``match`` operations,
``cancel`` and ``info`` under a random id policy, writer and prune setting.

:func:`run_session` runs one in-process through the CLI's session code (the same dispatch as
``fluxgraph-query``), so two runs can be compared byte for byte. :func:`oracle_satisfiable`
decides ``satisfiability`` from the specification alone (matching-semantics §6.8-§6.12 on a free
machine), without the traverser.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from fluxgraph.graph import ResourceGraph
from fluxgraph.matcher import Matcher
from fluxgraph.query.commands import dispatch
from fluxgraph.query.repl import Session, control_loop
from fluxgraph.readers import reader
from fluxgraph.writers.match import create as create_writer

ID_POLICIES = ("low", "high", "lonode", "hinode", "first", "lonodex", "hinodex", "firstnodex")
WRITERS = ("simple", "pretty_simple", "jgf", "rlite", "rv1", "rv1_nosched")
PRUNES = ("ALL:core,ALL:node", "ALL:core", "ALL:node", "ALL:memory", "cluster:node,rack:node")
OPS = ("allocate", "allocate_orelse_reserve", "allocate_with_satisfiability", "satisfiability")
SHAPES = (
    "node>slot",
    "node>socket>slot",
    "slot",
    "slot>node",
    "cluster>",
    "noslot",
    "v1-node",
    "v1-slot",
)
DURATIONS = (60, 100, 600, 1800, 3600, 7200, 14400, 86400, 100.5, 600.5)

_KEYS = """\
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="unit" for="node" attr.name="unit" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment\
</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>\
containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string"><default>contains\
</default></key>
  <key id="rrelation" for="edge" attr.name="rrelation" attr.type="string"><default>in</default>\
</key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY\
</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default>\
</key>
"""


@dataclass
class Machine:
    """The shape of a generated machine (what jobspecs are drawn against)."""

    racks: int
    nodes: int  # per rack (or per cluster without racks)
    sockets: int
    cores: int
    core_size: int
    gpus: int
    memories: int
    memory_size: int
    text: str = ""

    @property
    def total_nodes(self) -> int:
        return max(self.racks, 1) * self.nodes


@dataclass
class SessionSpec:
    """One random session: options, machine, jobspec files and commands."""

    seed: int
    policy: str
    writer: str
    prune: str
    machine: Machine
    jobspecs: dict[str, str] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)

    def options(self) -> str:
        return f"-S CA -P {self.policy} -p {self.prune} -F {self.writer}"


def random_machine(rng: random.Random, max_nodes: int = 8) -> Machine:
    """A small GRUG machine: cluster > [racks] > nodes > sockets > {cores, gpus, memory}."""
    racks = rng.choice((0, 0, 1, 2, 3))
    nodes = rng.randint(1, max(1, max_nodes // max(racks, 1)))
    m = Machine(
        racks=racks,
        nodes=nodes,
        sockets=rng.choice((1, 2, 2)),
        cores=rng.randint(1, 8),
        core_size=rng.choice((1, 1, 1, 1, 2, 4)),
        gpus=rng.choice((0, 0, 1, 2)),
        memories=rng.choice((0, 1, 1, 2, 4)),
        memory_size=rng.choice((1, 2, 4, 16)),
    )
    name = rng.choice(("tiny", "small", "medium"))
    nodename = rng.choice(("node", "quartz"))
    vertices = [("cluster", name, ' <data key="root">1</data>', "")]
    edges = []
    top = "cluster"
    if racks:
        vertices.append(("rack", "rack", "", ""))
        edges.append(("cluster", "rack", racks, ""))
        top = "rack"
    scope = rng.choice(("", "", '<data key="id_scope">1</data>', '<data key="id_scope">2</data>'))
    start = rng.choice(("", "", '<data key="id_start">1</data>', '<data key="id_start">100</data>'))
    stride = rng.choice(("", "", "", '<data key="id_stride">2</data>'))
    vertices.append(("node", nodename, "", ""))
    edges.append((top, "node", nodes, scope + start + stride))
    vertices.append(("socket", "socket", "", ""))
    edges.append(("node", "socket", m.sockets, ""))
    leaf_scope = '<data key="id_scope">1</data>'
    if m.gpus:
        vertices.append(("gpu", "gpu", "", ""))
        edges.append(("socket", "gpu", m.gpus, leaf_scope))
    if m.memories:
        size = f'<data key="size">{m.memory_size}</data>'
        vertices.append(("memory", "memory", "", size + '<data key="unit">GB</data>'))
        edges.append(("socket", "memory", m.memories, leaf_scope))
    core_size = f'<data key="size">{m.core_size}</data>' if m.core_size > 1 else ""
    vertices.append(("core", "core", "", core_size))
    edges.append(("socket", "core", m.cores, leaf_scope))
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
        _KEYS.rstrip("\n"),
        f'  <graph id="{name}" edgedefault="directed">',
    ]
    for vid, base, root, extra in vertices:
        lines.append(
            f'    <node id="{vid}">{root.strip()}<data key="type">{vid}</data>'
            f'<data key="basename">{base}</data>{extra}</node>'
        )
    for src, dst, scale, extra in edges:
        lines.append(
            f'    <edge id="{src}2{dst}" source="{src}" target="{dst}">'
            f'<data key="multi_scale">{scale}</data>{extra}</edge>'
        )
    lines += ["  </graph>", "</graphml>", ""]
    m.text = "\n".join(lines)
    return m


def _count(rng: random.Random, hi: int, ranged: float = 0.25):
    """A jobspec count: mostly a fixed number in [1, hi], sometimes a range."""
    hi = max(hi, 1)
    if rng.random() >= ranged:
        return rng.randint(1, hi)
    kind = rng.choice(("+", "*", "^", "min"))
    lo = rng.randint(1, hi)
    if kind == "min":
        return {"min": lo}
    if kind == "+":
        return {"min": lo, "max": lo + rng.randint(0, 4), "operator": "+", "operand": 1}
    if kind == "*":
        return {"min": lo, "max": lo * rng.choice((2, 4, 8)), "operator": "*", "operand": 2}
    lo = max(lo, 2)
    return {"min": lo, "max": lo**2, "operator": "^", "operand": 2}


def _leaves(rng: random.Random, m: Machine) -> list[dict]:
    leaves = [{"type": "core", "count": _count(rng, max(2, m.cores // 2))}]
    if m.memories and rng.random() < 0.4:
        leaves.append({"type": "memory", "count": _count(rng, m.memories * m.memory_size)})
    if m.gpus and rng.random() < 0.25:
        leaves.append({"type": "gpu", "count": _count(rng, m.gpus, 0.1)})
    rng.shuffle(leaves)
    return leaves


def _excl(rng: random.Random, r: dict) -> dict:
    x = rng.random()
    if x < 0.2:
        r["exclusive"] = True
    elif x < 0.27:
        r["exclusive"] = False
    return r


def random_jobspec(rng: random.Random, m: Machine) -> dict:
    """A jobspec of one of the usual shapes, sized against ``m`` (sometimes too big)."""
    label = rng.choice(("task", "default", "corelevel"))
    version = 9999
    shape = rng.choice(SHAPES)
    nodes_hi = m.total_nodes + 1
    sock_slot = {"type": "socket", "count": _count(rng, m.sockets, 0.1), "with": _leaves(rng, m)}
    inner = [sock_slot] if rng.random() < 0.4 else _leaves(rng, m)
    slot = {"type": "slot", "count": _count(rng, 2), "label": label, "with": inner}
    if shape == "node>slot":
        resources = [_excl(rng, {"type": "node", "count": _count(rng, nodes_hi), "with": [slot]})]
    elif shape == "node>socket>slot":
        slot["with"] = _leaves(rng, m)
        socket = {"type": "socket", "count": _count(rng, m.sockets, 0.1), "with": [slot]}
        resources = [_excl(rng, {"type": "node", "count": _count(rng, nodes_hi), "with": [socket]})]
    elif shape == "slot":
        slot["count"] = _count(rng, 4)
        resources = [slot]
    elif shape == "slot>node":
        node = _excl(rng, {"type": "node", "count": 1, "with": [sock_slot]})
        resources = [{"type": "slot", "count": 1, "label": label, "with": [node]}]
        if rng.random() < 0.5:
            resources = [{"type": "cluster", "count": 1, "with": resources}]
    elif shape == "cluster>":
        node = {"type": "node", "count": _count(rng, nodes_hi), "with": [slot]}
        resources = [{"type": "cluster", "count": 1, "with": [_excl(rng, node)]}]
    elif shape == "noslot":
        label = "default"
        node = {"type": "node", "count": _count(rng, nodes_hi), "with": _leaves(rng, m)}
        resources = [_excl(rng, node)]
    elif shape == "v1-node":
        version = 1
        slot["with"] = [{"type": "core", "count": rng.randint(1, max(1, m.cores * m.sockets))}]
        node = {"type": "node", "count": rng.randint(1, nodes_hi), "with": [slot]}
        resources = [_excl(rng, node)]
    else:
        version = 1
        slot["count"] = rng.randint(1, 4)
        slot["with"] = [{"type": "core", "count": rng.randint(1, max(1, m.cores))}]
        resources = [slot]
    return {
        "version": version,
        "resources": resources,
        "attributes": {"system": {"duration": rng.choice(DURATIONS)}},
        "tasks": [{"command": ["app"], "slot": label, "count": {"per_slot": 1}}],
    }


def random_session(seed: int, n_commands: int | None = None, max_nodes: int = 8) -> SessionSpec:
    """The session drawn from ``seed`` (deterministic)."""
    rng = random.Random(seed)
    m = random_machine(rng, max_nodes)
    s = SessionSpec(
        seed=seed,
        policy=rng.choice(ID_POLICIES),
        writer=rng.choice(WRITERS),
        prune=rng.choice(PRUNES),
        machine=m,
    )
    n_specs = rng.randint(3, 12)
    for i in range(1, n_specs + 1):
        s.jobspecs[f"js/j{i:02d}.yaml"] = json.dumps(random_jobspec(rng, m))
    names = sorted(s.jobspecs)
    jobs = 0
    for _ in range(n_commands or rng.randint(4, 30)):
        x = rng.random()
        if x < 0.78:
            op = rng.choices(OPS, weights=(3, 3, 2, 1))[0]
            s.commands.append(f"match {op} {rng.choice(names)}")
            jobs += 1
        elif x < 0.95:
            s.commands.append(f"cancel {rng.randint(0 if x > 0.93 else 1, jobs + 1)}")
        else:
            s.commands.append(f"info {rng.randint(1, jobs + 1)}")
    s.commands.append("quit")
    return s


def load_machine(m: Machine) -> ResourceGraph:
    graph = ResourceGraph()
    reader("grug")(graph, m.text, source="graph.graphml", rank=-1, allowlist=None)
    return graph


def run_session(s: SessionSpec, *, exact: bool, workdir: Path | None = None) -> tuple[str, str]:
    """Run ``s`` through the CLI session code; returns (match output, stderr).

    ``exact`` is ``Matcher(exact_visit_counts=...)``: the full walk everywhere instead of the
    early-termination shortcut. Jobspec files are written below ``workdir`` (a temporary
    directory by default); paths in the output are relative, as in the reference's runs.
    """
    if workdir is None:
        with tempfile.TemporaryDirectory() as tmp:
            return run_session(s, exact=exact, workdir=Path(tmp))
    (workdir / "js").mkdir(parents=True, exist_ok=True)
    for name, text in s.jobspecs.items():
        (workdir / name).write_text(text)
    matcher = Matcher(load_machine(s.machine), "CA", s.policy, s.prune, exact_visit_counts=exact)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(workdir)  # jobspec paths stay relative, as typed in the commands
    try:
        session = Session(matcher, create_writer(s.writer), out=out, stdout=out, stderr=err)
        stdin = io.StringIO("".join(c + "\n" for c in s.commands))
        control_loop(session, stdin, dispatch, "")
    finally:
        os.chdir(cwd)
    return out.getvalue(), err.getvalue()


def without_overheads(text: str) -> str:
    """``text`` with the measured time of ``INFO: <id>, <state>, <at>, <file>, <t>`` lines
    replaced by ``X`` (the only field that differs between two identical runs)."""
    return _OVERHEAD.sub(r"\1X", text)


_OVERHEAD = re.compile(r"^(INFO: .*, )[^,\n]*$", re.MULTILINE)

# -- the satisfiability oracle ------------------------------------------------------------------

_UINT_MAX = 0xFFFFFFFF


def _calc_count(count, qualified: int) -> int:
    """§4.2 ``calc_count`` for a jobspec ``count`` (an int or a range mapping)."""
    if isinstance(count, int):
        lo = hi = count
        op, operand = "+", 1
    else:
        lo = count["min"]
        hi = count.get("max", _UINT_MAX)
        op, operand = count.get("operator", "+"), count.get("operand", 1)
    qc = qualified & _UINT_MAX
    if lo > hi or lo > qc:
        return 0
    if op == "+":
        c = min(qc, hi)
        return c - (c - lo) % operand
    best, cur = 0, lo
    while cur <= qc and cur <= hi:
        best = cur
        cur = cur * operand if op == "*" else cur**operand
    return best


def oracle_satisfiable(graph: ResourceGraph, resources: list[dict]) -> bool:
    """Whether ``satisfiability`` answers "Satisfiable" for ``resources`` on ``graph``.

    Written from the specification (matching-semantics §6.8-§6.12, §6.20) for a machine on which
    everything is free and up (the far-future select), independently of the traverser: a
    request level is met at a vertex when, for each child request, the units offered by the
    children (or slots) that can host one instance reach its minimum count. Aggregate pruning
    is omitted (on a free machine it only rejects what this count also rejects).
    """
    dom = "containment"
    out = graph.child_edges(dom)
    dst, types, sizes = graph.edge_dst, graph.types, graph.sizes
    kids = [[dst[e] for e in out[u]] for u in range(graph.num_vertices)]

    def classify(u: int, reqs: list[dict], pristine: bool):
        """(kind, matched request, slot request) of ``test``: kind None means NONE_MATCH."""
        match = slot = None
        matched = False
        for r in reqs:
            if r["type"] == types[u]:
                if matched:
                    return None, None, None
                match = r
                for c in r.get("with", ()):
                    if c["type"] == "slot":
                        slot = c
                matched = True
            elif r["type"] == "slot":
                if matched:
                    return None, None, None
                slot, matched = r, True
        if slot is not None:
            have = {types[v] for v in kids[u]}
            if all(c["type"] in have for c in slot.get("with", ())):
                return "slot", match, slot
        if match is not None:
            return "match", match, None
        return ("pass" if pristine else None), None, None

    def visit(u: int, reqs: list[dict], pristine: bool, excl: bool):
        """None if ``u`` fails, else the units it hands up: {type: count} (own group included)."""
        kind, match, slot = classify(u, reqs, pristine)
        if kind is None or sizes[u] == 0:
            return None
        x_in = excl or any(r["type"] == types[u] and r.get("exclusive") is True for r in reqs)
        if x_in and any(r["type"] == types[u] and r.get("exclusive") is False for r in reqs):
            return None  # an explicit "shared" inside an exclusive context (EINVAL)
        offered: dict[str, int] = {}
        if kind == "slot":
            offered["slot"] = count_slots(u, slot)
        else:
            nxt = match.get("with", []) if match is not None else reqs
            for v in kids[u]:
                got = visit(v, nxt, kind == "pass", x_in)
                for t, c in (got or {}).items():
                    offered[t] = offered.get(t, 0) + c
        if match is not None and match.get("with"):
            # a matched vertex chooses its children now and hands up only itself
            if any(_calc_count(c["count"], offered.get(c["type"], 0)) == 0 for c in match["with"]):
                return None
            offered = {}
        offered[types[u]] = offered.get(types[u], 0) + sizes[u]
        return offered

    def count_slots(u: int, slot: dict) -> int:
        """How many whole slots ``u``'s children can fill (members taken whole)."""
        shape = slot.get("with", [])
        units: dict[str, list[int]] = {}
        for v in kids[u]:
            if visit(v, shape, False, True) is not None:  # everything in a slot is exclusive
                units.setdefault(types[v], []).append(sizes[v])
        n = _UINT_MAX
        for elem in shape:
            have = units.get(elem["type"], [])
            k = _calc_count(elem["count"], sum(have))
            shares = acc = 0
            if k:
                for c in have:
                    acc += c
                    if acc >= k:
                        shares, acc = shares + 1, 0
            n = min(n, shares)
        return n if shape else 0

    root = graph.roots[dom]
    got = visit(
        root,
        resources,
        True,
        any(r.get("exclusive") is True for r in resources if r["type"] == types[root]),
    )
    if got is None:
        return False
    return all(_calc_count(r["count"], got.get(r["type"], 0)) != 0 for r in resources)
