"""Inputs and checks shared by the fuzz tests (``tests/fuzz``) and ``benchmarks/fuzz_campaign.py``.

A *case* is made from a seed document and a list of mutations, both drawn from a
``random.Random`` (the campaign) or by hypothesis (the tests, through :mod:`_strategies`). Seeds
come from ``../shared/conformance/data`` when it is present and from the small inline documents
below otherwise. Every check runs one case in-process and raises :class:`Defect` for what the
issue calls a defect: an exception that is not the layer's own error type (a traceback), work
beyond the time bound (a hang), memory beyond the memory bound, a state changed by a rejected
input, or a session whose valid commands print something else once bad commands are injected.

Kinds: ``jobspec``, ``grug``, ``jgf``, ``hwloc``, ``rv1exec``, ``repl``, ``cli``, ``api``, and
the semantic ones of :mod:`_properties` (``windows``, ``sat``, ``cycle``, ``rejects``).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import random
import signal
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from errno import EBUSY, ENODEV
from pathlib import Path
from typing import Any

import yaml

from fluxgraph.errors import FluxgraphError, JobspecError, MatchError, ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.jobspec import check_known_types, dump
from fluxgraph.jobspec import load as load_jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.query.cli import main as cli_main
from fluxgraph.query.commands import dispatch
from fluxgraph.query.repl import Session, split_command
from fluxgraph.readers import grug, hwloc, jgf, rv1exec
from fluxgraph.writers.jgf import to_jgf
from fluxgraph.writers.match import MATCH_FORMATS, create

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "conformance"
DATA = SHARED / "data" / "data"
RECIPES = REPO / "grug_recipes"

KINDS = (
    "jobspec", "grug", "jgf", "hwloc", "rv1exec", "repl", "cli", "api",
    "windows", "sat", "cycle", "rejects",
)  # fmt: skip
#: The kinds whose checks live in :mod:`_properties` (semantic oracles on tiny machines).
PROPERTY_KINDS = ("windows", "sat", "cycle", "rejects")

#: A case taking more CPU seconds than this is a hang.
CASE_SECONDS = 20.0
#: A case allocating more than this (traced Python memory) is unbounded memory.
CASE_BYTES = 512 * 1024 * 1024
#: Largest mutated document (characters).
MAX_DOC = 200_000
#: During fuzzing GRUG generation is capped lower than the library's default, so that a
#: mutated recipe that asks for a legitimately large machine does not pass for a hang.
FUZZ_GRUG_VERTICES = 20_000


class Defect(Exception):
    """A crash, hang, unbounded memory or state corruption found by a case."""

    def __init__(self, kind: str, what: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {what}" + (f": {detail}" if detail else ""))
        self.kind = kind
        self.what = what
        self.detail = detail


# -- seeds ----------------------------------------------------------------------------------------

JOBSPEC_SEEDS = [
    """version: 9999
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
                count: 2
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
""",
    """version: 1
resources:
  - type: slot
    count: {min: 1, max: 4, operator: "+", operand: 1}
    label: task
    with:
      - {type: core, count: 2, exclusive: true}
      - {type: memory, count: 2, unit: GB}
tasks: [{command: [app, -v], slot: task, count: {per_slot: 1}}]
attributes:
  system:
    duration: 60
    constraints: {and: [{properties: ["^slow"]}, {hostlist: ["node[0-3]"]}, {ranks: ["0-7"]}]}
  user: {a: [1, 2.5, null, true], b: x}
""",
    '{"version": 1, "resources": [{"type": "node", "count": 2, "exclusive": true, "with": '
    '[{"type": "slot", "count": 1, "label": "s", "with": [{"type": "core", "count": 1}]}]}], '
    '"tasks": [{"command": ["a"], "slot": "s", "count": {"total": 2}}], '
    '"attributes": {"system": {"duration": 0}}}',
    """version: 9999
resources:
  - &n
    type: node
    count: 1
    label: host
    with:
      - &s {type: slot, count: 2, label: default,
            with: [{type: core, count: 1}, {type: gpu, count: 1}]}
tasks:
  - {command: [app], slot: default, count: {per_slot: 1}}
attributes:
  system: {duration: 100, queue: batch}
""",
]

GRUG_KEYS = """
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="unit" for="node" attr.name="unit" attr.type="string"/>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string">
    <default>containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string">
    <default>contains</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string">
    <default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int">
    <default>1</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="as_tgt_uplvl" for="edge" attr.name="as_tgt_uplvl" attr.type="int">
    <default>1</default></key>
  <key id="as_src_uplvl" for="edge" attr.name="as_src_uplvl" attr.type="int">
    <default>1</default></key>
"""

INLINE_GRUG = f"""<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">{GRUG_KEYS}
  <graph id="mini" edgedefault="directed">
    <node id="cluster"><data key="root">1</data><data key="type">cluster</data>
      <data key="basename">mini</data></node>
    <node id="rack"><data key="type">rack</data><data key="basename">rack</data></node>
    <node id="node"><data key="type">node</data><data key="basename">node</data></node>
    <node id="socket"><data key="type">socket</data><data key="basename">socket</data></node>
    <node id="core"><data key="type">core</data><data key="basename">core</data></node>
    <node id="memory"><data key="type">memory</data><data key="basename">memory</data>
      <data key="size">4</data><data key="unit">GB</data></node>
    <node id="pdu"><data key="root">1</data><data key="type">pdu</data>
      <data key="basename">pdu</data><data key="subsystem">power</data></node>
    <node id="pnode"><data key="type">node</data><data key="subsystem">power</data></node>
    <edge source="cluster" target="rack"><data key="multi_scale">2</data></edge>
    <edge source="rack" target="node"><data key="multi_scale">2</data>
      <data key="id_scope">1</data></edge>
    <edge source="node" target="socket"><data key="multi_scale">2</data></edge>
    <edge source="socket" target="core"><data key="multi_scale">2</data>
      <data key="id_scope">2</data></edge>
    <edge source="socket" target="memory"/>
    <edge source="pdu" target="pnode"><data key="gen_method">ASSOCIATE_IN</data>
      <data key="e_subsystem">power</data></edge>
  </graph>
</graphml>
"""

INLINE_HWLOC = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc.dtd">\n'
    '<topology version="2.0">\n'
    ' <object type="Machine" os_index="0" cpuset="0x0000000f" complete_cpuset="0x0000000f"'
    ' nodeset="0x1" complete_nodeset="0x1">\n'
    '  <info name="HostName" value="fluke7"/>\n'
    '  <object type="Package" os_index="0" cpuset="0x0000000f" complete_cpuset="0x0000000f">\n'
    '   <object type="L3Cache" cpuset="0x0000000f" complete_cpuset="0x0000000f"'
    ' cache_size="8388608" depth="3" cache_linesize="64">\n'
    '    <object type="Core" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003">\n'
    '     <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001"/>\n'
    '     <object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002"/>\n'
    "    </object>\n"
    '    <object type="Core" os_index="1" cpuset="0x0000000c" complete_cpuset="0x0000000c">\n'
    '     <object type="PU" os_index="2" cpuset="0x00000004" complete_cpuset="0x00000004"/>\n'
    '     <object type="PU" os_index="3" cpuset="0x00000008" complete_cpuset="0x00000008"/>\n'
    "    </object>\n"
    "   </object>\n"
    "  </object>\n"
    '  <object type="NUMANode" os_index="0" cpuset="0x0000000f" complete_cpuset="0x0000000f"'
    ' nodeset="0x1" complete_nodeset="0x1" local_memory="16000000000"/>\n'
    '  <object type="Bridge" bridge_type="0-1" depth="0">\n'
    '   <object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0300 [8086:0412] [0:0] 06">\n'
    '    <object type="OSDev" name="opencl0d0" osdev_type="5"/>\n'
    '    <object type="OSDev" name="card0" osdev_type="1"/>\n'
    "   </object>\n"
    '   <object type="PCIDev" pci_busid="0000:00:1f.2" pci_type="0106 [8086:8c02] [0:0] 05">\n'
    '    <object type="OSDev" name="sda" osdev_type="0">\n'
    '     <info name="Size" value="500107608"/><info name="LinuxDeviceID" value="8:0"/>\n'
    "    </object>\n"
    "   </object>\n"
    "  </object>\n"
    " </object>\n"
    "</topology>\n"
)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _small_grug(text: str) -> bool:
    """Whether ``text`` generates a small graph (seeds must keep every case fast)."""
    saved = grug.MAX_GENERATED_VERTICES
    grug.MAX_GENERATED_VERTICES = 3000
    try:
        grug.unpack(ResourceGraph(), text)
    except ReaderError:
        return False
    finally:
        grug.MAX_GENERATED_VERTICES = saved
    return True


_SEEDS: dict[str, list[str]] = {}


def seeds(kind: str) -> list[str]:
    """Seed documents of ``kind`` (``jobspec``, ``grug``, ``jgf``, ``hwloc``), inline first, then
    the conformance data's when ``../shared/conformance/data`` is present."""
    if kind in _SEEDS:
        return _SEEDS[kind]
    out: list[str] = []
    if kind == "jobspec":
        out = list(JOBSPEC_SEEDS)
        out += [_read(p) for p in sorted((REPO / "jobspecs").glob("*.yaml"))]
        if DATA.is_dir():
            files = sorted((DATA / "resource" / "jobspecs").rglob("*.yaml"))
            out += [_read(p) for p in files if p.stat().st_size < 20_000]
    elif kind == "grug":
        out = [INLINE_GRUG]
        out += [_read(p) for p in (RECIPES / "tiny.graphml", RECIPES / "small.graphml")]
        if DATA.is_dir():
            files = sorted((DATA / "resource" / "grugs").rglob("*.graphml"))
            out += [_read(p) for p in files if p.stat().st_size < 50_000]
        out = [t for t in out if t is not None and _small_grug(t)]
    elif kind == "jgf":
        for text in seeds("grug")[:3]:
            g = ResourceGraph()
            grug.unpack(g, text)
            out.append(json.dumps(to_jgf(g)))
        if DATA.is_dir():
            files = sorted((DATA / "resource" / "jgfs").rglob("*.json"))
            out += [_read(p) for p in files if p.stat().st_size < 80_000]
    elif kind == "rv1exec":
        g = ResourceGraph()
        grug.unpack(g, seeds("grug")[0])
        m = Matcher(g, policy="low")
        for i, text in enumerate(GOOD_JOBS.values(), start=1):
            writer = create("rv1_nosched")
            if m.run(load_jobspec(text), "allocate", i, writer).rc == 0:
                with contextlib.suppress(MatchError):
                    out.append(writer.emit())
        out.append(
            '{"version": 1, "execution": {"R_lite": [{"rank": "0-3", "children": '
            '{"core": "0-7", "gpu": "0-1"}}], "nodelist": ["fluke[0-3]"], '
            '"properties": {"amd": "0-1"}, "starttime": 0, "expiration": 0}}'
        )
        if DATA.is_dir():
            files = sorted((DATA / "resource" / "rv1exec").rglob("*.json"))
            out += [_read(p) for p in files if p.stat().st_size < 80_000]
    elif kind == "hwloc":
        out = [INLINE_HWLOC]
        if DATA.is_dir():
            files = sorted((DATA / "hwloc-data").rglob("*.xml"))
            out += [_read(p) for p in files if p.stat().st_size < 80_000]
    _SEEDS[kind] = [t for t in out if t]
    return _SEEDS[kind]


# -- mutations ------------------------------------------------------------------------------------

BIG = "9" * 5000
#: Payloads that broke or could break parsers: huge and edge numbers, YAML/JSON/XML syntax,
#: aliases, undecodable bytes (lone surrogates, as surrogateescape makes them), control chars.
PAYLOADS = (
    BIG,
    "-" + BIG,
    "0x" + "f" * 400,
    "\udcff",
    "1" * 400,
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "9223372036854775808",
    "18446744073709551616",
    "1e400",
    ".nan",
    "-.inf",
    "3.5",
    "true",
    "null",
    "~",
    "&a",
    "*a",
    "<<: *a",
    "!!int",
    "!!str",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "- ",
    "\n",
    "\t",
    "'",
    '"',
    "\\",
    "\udc80\udcc3",
    "\x00",
    "\x1b",
    "é",
    "ƒ2",
    "<",
    ">",
    "</graph>",
    "<graph>",
    "&amp;",
    "&#0;",
    "<!DOCTYPE x [<!ENTITY e 'x'>]>",
    "<![CDATA[x]]>",
    "slot",
    "node",
    "core",
    "cluster",
    "ASSOCIATE_IN",
    "ASSOCIATE_BY_PATH_IN",
    "MULTIPLY",
    "exclusive",
    "with",
    "count",
    "label",
    "/",
    "(",
    ")",
)

TEXT_OPS = ("delete", "insert", "replace", "duplicate", "swap", "nest", "number", "truncate")
#: The first payloads (huge numbers, an undecodable byte) are drawn more often.
HOT_PAYLOADS = 5


def draw_payload(rng: random.Random) -> int:
    return rng.randrange(HOT_PAYLOADS) if rng.random() < 0.4 else rng.randrange(len(PAYLOADS))


def mutate_text(text: str, ops: list[tuple[str, float, int, int]], xml: bool = False) -> str:
    """Apply text mutations ``(op, where in [0, 1), payload index, count)`` to ``text``."""
    for op, where, pay, count in ops:
        n = len(text)
        pos = min(n, int(where * (n + 1)))
        payload = PAYLOADS[pay % len(PAYLOADS)]
        count = max(1, count)
        if op == "delete":
            text = text[:pos] + text[pos + count :]
        elif op == "insert":
            text = text[:pos] + payload + text[pos:]
        elif op == "replace":
            text = text[:pos] + payload + text[pos + len(payload) :]
        elif op == "duplicate":
            piece = text[pos : pos + count * 10]
            text = text[:pos] + piece * min(count, 50) + text[pos:]
        elif op == "swap":
            lines = text.split("\n")
            i, j = pos % max(1, len(lines)), (pos + count) % max(1, len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == "nest":
            depth = (10, 100, 300, 3000)[count % 4]
            opener, closer = ("<graph>", "</graph>") if xml else ("[", "]")
            text = text[:pos] + opener * depth + closer * depth + text[pos:]
        elif op == "number":
            k = pos
            while k < n and not text[k].isdigit():
                k += 1
            j = k
            while j < n and text[j].isdigit():
                j += 1
            if k < n:
                text = text[:k] + payload + text[j:]
        elif op == "truncate":
            text = text[:pos]
        if len(text) > MAX_DOC:
            text = text[:MAX_DOC]
    return text


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value for structural mutations: edge numbers, deep nests, wrong types."""
    choice = rng.randrange(10)
    if choice == 0:
        return rng.choice([0, -1, 1, 2**31, 2**32, 2**63, -(2**63) - 1, 2**64, 10**400])
    if choice == 1:
        return rng.choice(
            ["", "x", "\udcff", "\ud800", "a\udfff", "0", "-1", "node", "/", "1" * 30]
        )
    if choice == 2:
        return rng.choice([None, True, False, 1.5, math.inf, -math.inf])
    if choice == 3 and depth < 3:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if choice == 4 and depth < 3:
        return {rng.choice(["type", "count", "id", "paths", "x"]): _random_value(rng, depth + 1)}
    if choice == 5:
        nest: Any = 0
        for _ in range(rng.choice([10, 100, 2000])):
            nest = [nest]
        return nest
    return rng.choice(
        [
            1,
            2,
            3,
            8,
            "core",
            "node",
            "socket",
            "slot",
            "gpu",
            "memory",
            "default",
            True,
            {"min": 1, "max": 2},
            {"min": 1},
            {"per_slot": 1},
            [{"type": "core", "count": 1}],
        ]
    )


def mutate_structure(doc: Any, rng: random.Random, edits: int) -> Any:
    """Replace, delete or duplicate ``edits`` random places of a JSON-like document."""
    for _ in range(edits):
        holders: list[tuple[Any, Any]] = []
        todo = [doc]
        while todo and len(holders) < 5000:
            cur = todo.pop()
            if isinstance(cur, dict):
                for k, v in cur.items():
                    holders.append((cur, k))
                    todo.append(v)
            elif isinstance(cur, list):
                for i, v in enumerate(cur):
                    holders.append((cur, i))
                    todo.append(v)
        if not holders:
            return _random_value(rng)
        holder, key = rng.choice(holders)
        action = rng.randrange(4)
        if action == 0 and isinstance(holder, dict):
            del holder[key]
        elif action == 1 and isinstance(holder, list):
            holder.insert(key, holder[key])
        else:
            holder[key] = _random_value(rng)
    return doc


XML_VALUES = (
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2147483648",
    "2147483648",
    "1000",
    "100000",
    BIG,
    "",
    "x y",
    "node",
    "core",
    "cluster",
    "containment",
    "power",
    "MULTIPLY",
    "ASSOCIATE_IN",
    "ASSOCIATE_BY_PATH_IN",
    "Machine",
    "Core",
    "PU",
    "Group",
    "OSDev",
    "0x1",
    "0xf...f",
    "0x" + "f" * 100,
    ",".join(["0x1"] * 5000),
    "opencl0d" + "1" * 30,
    "\udcff",
)


def mutate_xml(text: str, rng: random.Random, edits: int) -> str:
    """Edit a well-formed XML seed: attribute and text values, deleted, duplicated, moved and
    nested elements, extra GRUG edges (cycles, self-loops)."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return text
    for _ in range(edits):
        elements = list(root.iter())
        parents = {child: parent for parent in elements for child in parent}
        elem = rng.choice(elements)
        action = rng.randrange(6)
        if action == 0 and elem.attrib:
            key = rng.choice(sorted(elem.attrib))
            elem.set(key, rng.choice(XML_VALUES))
        elif action == 1:
            elem.text = rng.choice(XML_VALUES)
        elif action == 2 and elem in parents:
            parents[elem].remove(elem)
        elif action == 3 and elem in parents:
            parent = parents[elem]
            for _ in range(rng.choice([1, 2, 10])):
                parent.append(ET.fromstring(ET.tostring(elem)))
        elif action == 4:
            ids = [e.get("id") for e in elements if e.get("id") and e.tag.endswith("node")]
            graph = next((e for e in elements if e.tag.endswith("graph")), None)
            if ids and graph is not None:
                edge = ET.SubElement(graph, graph.tag.replace("graph", "edge"))
                edge.set("source", rng.choice(ids))
                edge.set("target", rng.choice(ids))
        elif action == 5 and elem in parents:
            wrapper = ET.Element(elem.tag)
            wrapper.attrib.update(elem.attrib)
            parent = parents[elem]
            index = list(parent).index(elem)
            parent.remove(elem)
            wrapper.append(elem)
            parent.insert(index, wrapper)
    return ET.tostring(root, encoding="unicode")


#: Plausible values per key: edits that keep a document close to valid reach deeper checks.
PLAUSIBLE = {
    "count": [
        0,
        1,
        2,
        3,
        4,
        64,
        {"min": 1, "max": 3},
        {"min": 2},
        {"min": 1, "max": 4, "operator": "*", "operand": 2},
        {"min": 1, "max": 9, "operator": "^", "operand": 2},
    ],
    "type": ["node", "core", "socket", "slot", "gpu", "memory", "rack", "cluster", "pu"],
    "label": ["default", "task", "x", "", "l\ud800"],
    "exclusive": [True, False, "true"],
    "duration": [0, 1, 3600, 1e9, -1, 0.5],
    "min": [0, 1, 2, 5],
    "max": [1, 2, 8],
    "per_slot": [1, 2],
    "total": [1, 4],
    "version": [1, 9999, 0, 10000],
    "size": [0, 1, 2, 16, 2**32],
    "rank": [-1, 0, 1, 3, 2**40, "0", "0-3", "1,3", "2-1", "0-9999999"],
    "core": ["0", "0-3", "0-7", "5-2", ""],
    "gpu": ["0", "0-1", "x"],
    "nodelist": [["node[0-3]"], ["fluke[0-1]", "x"], [], "node0"],
    "starttime": [0, 100, -1],
    "expiration": [0, 3600, 2**63],
    "children": [{"core": "0-1"}, {}, {"gpu": "0"}],
    "id": [0, 1, 7, -1, "3"],
    "uniq_id": [0, 1, 5, 99],
    "status": [0, 1, 2],
    "basename": ["node", "core", "x"],
    "name": ["node0", "fluke7", "n", "n\ud800", "n\udcff"],
    "properties": [{"x": "y"}, {"\ud800": ""}, {"k": "v\udfff"}, {}],
    "source": ["0", "1", "2", "99"],
    "target": ["0", "1", "2", "99"],
    "subsystem": ["containment", "power", "ibnet"],
    "unit": ["GB", "", "B"],
    "paths": [{"containment": "/tiny0"}, {"containment": "/tiny0/rack0/node0/x0"}, {}],
}


def plausible_edit(doc: Any, rng: random.Random, edits: int) -> Any:
    """Set ``edits`` known keys of a JSON-like document to plausible (often valid) values."""
    for _ in range(edits):
        holders: list[dict[str, Any]] = []
        todo = [doc]
        while todo and len(holders) < 5000:
            cur = todo.pop()
            if isinstance(cur, dict):
                holders.append(cur)
                todo.extend(cur.values())
            elif isinstance(cur, list):
                todo.extend(cur)
        strings = [(h, k) for h in holders for k, v in h.items() if isinstance(v, str)]
        if strings and rng.random() < 0.25:  # perturb an existing string value
            holder, key = rng.choice(strings)
            holder[key] = holder[key] + rng.choice(["\ud800", "\udcff", "\x00", "9" * 30, "/"])
            continue
        typed = [h for h in holders if "type" in h]
        if typed and rng.random() < 0.4:  # add a field a resource or vertex may have
            holder = rng.choice(typed)
            key = rng.choice(sorted(PLAUSIBLE))
            holder[key] = rng.choice(PLAUSIBLE[key])
            continue
        candidates = [(h, k) for h in holders for k in h if k in PLAUSIBLE]
        if not candidates:
            return doc
        holder, key = rng.choice(candidates)
        holder[key] = rng.choice(PLAUSIBLE[key])
    return doc


def _dump_json(doc: Any) -> str:
    try:
        return json.dumps(doc, allow_nan=True)
    except (ValueError, RecursionError):
        return "{"


def make_document(kind: str, rng: random.Random) -> str:
    """A mutated seed document of ``kind`` (text, structural or both)."""
    seed = rng.choice(seeds(kind))
    mode = rng.randrange(3)
    text = seed
    if mode in (0, 2) and kind in ("grug", "hwloc"):
        text = mutate_xml(seed, rng, rng.randint(1, 3))
    if mode in (0, 2) and kind in ("jobspec", "jgf", "rv1exec"):
        try:
            doc = yaml.safe_load(seed) if kind == "jobspec" else json.loads(seed)
        except (ValueError, yaml.YAMLError):
            doc = None
        if doc is not None:
            if rng.random() < 0.5:
                doc = plausible_edit(doc, rng, rng.choice([1, 1, 2, 3]))
            else:
                doc = mutate_structure(doc, rng, rng.choice([1, 1, 2, 3]))
            if kind == "jobspec" and rng.random() < 0.5:
                try:
                    text = yaml.safe_dump(doc, allow_unicode=True)
                except (yaml.YAMLError, RecursionError, UnicodeEncodeError):
                    text = _dump_json(doc)
            else:
                text = _dump_json(doc)
    if mode == 1 or (mode == 2 and rng.random() < 0.3) or text == seed:
        ops = [
            (rng.choice(TEXT_OPS), rng.random(), draw_payload(rng), rng.randint(1, 8))
            for _ in range(rng.choice([1, 1, 1, 2, 3]))
        ]
        text = mutate_text(text, ops, xml=kind in ("grug", "hwloc"))
    return text


# -- bounds ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def bounded(kind: str, seconds: float = CASE_SECONDS, trace_memory: bool = True) -> Iterator[None]:
    """Run a case under a CPU-time and (traced) memory bound; a breach is a :class:`Defect`.

    A wall-clock alarm at four times the CPU bound interrupts a real hang.
    """
    start = time.process_time()
    if trace_memory:
        tracemalloc.start()

    def alarm(_sig, _frame):
        raise Defect(kind, "hang", f"more than {4 * seconds:.0f} s wall time")

    old = None
    if hasattr(signal, "SIGALRM"):
        old = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, 4 * seconds)
    try:
        yield
    finally:
        if old is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        peak = 0
        if trace_memory:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    used = time.process_time() - start
    if used > seconds:
        raise Defect(kind, "hang", f"{used:.1f} s CPU")
    if peak > CASE_BYTES:
        raise Defect(kind, "memory", f"{peak / 2**20:.0f} MiB")


def writable(text: Any) -> Any:
    """``text`` after checking it can go to a stream as the CLI writes them (UTF-8,
    ``surrogateescape``): a lone surrogate outside the escape range cannot."""
    if isinstance(text, str):
        text.encode("utf-8", errors="surrogateescape")
    return text


def _crash(kind: str, exc: BaseException) -> Defect:
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if "fluxgraph" in code.co_filename:
            where = f"{Path(code.co_filename).name}:{tb.tb_lineno} {code.co_name}"
        tb = tb.tb_next
    return Defect(kind, "crash", f"{type(exc).__name__}: {str(exc)[:200]} @ {where}")


@contextlib.contextmanager
def only(kind: str, *allowed: type[BaseException]) -> Iterator[None]:
    """Turn any exception other than ``allowed`` (and :class:`Defect`) into a crash defect."""
    try:
        yield
    except Defect:
        raise
    except allowed:
        raise
    except (Exception, RecursionError, MemoryError) as exc:
        raise _crash(kind, exc) from exc


# -- checks: documents ----------------------------------------------------------------------------


def _machine(policy: str = "high") -> Matcher:
    g = ResourceGraph()
    grug.unpack(g, seeds("grug")[0])
    return Matcher(g, policy=policy)


def _roundtrip_equal(js: Any) -> bool:
    try:
        again = load_jobspec(dump(js))
    except JobspecError:
        return False
    return dump(again) == dump(js)


def check_jobspec(text: str, rng: random.Random | None = None) -> str:
    """Load ``text``; a loaded jobspec must round-trip through ``dump`` and match without error.

    Returns ``"ok"`` or ``"rejected"``.
    """
    rng = rng or random.Random(0)
    with only("jobspec", JobspecError):
        try:
            js = load_jobspec(text if "\n" in text or text[:1] in "{[" else text + "\n")
        except JobspecError:
            return "rejected"
    with only("jobspec"):
        if not _roundtrip_equal(js):
            raise Defect("jobspec", "roundtrip", "load(dump(js)) differs or is rejected")
        m = _machine(rng.choice(["high", "low", "first", "lonodex"]))
        try:
            check_known_types(js, m.known_types)
        except JobspecError:
            return "ok"
        writer = create(rng.choice(sorted(MATCH_FORMATS)))
        for op in ("allocate", "allocate_orelse_reserve", "satisfiability"):
            out = m.run(js, op, 1, writer)
            if out.rc == 0 or out.errno in (EBUSY, ENODEV):
                with contextlib.suppress(MatchError):
                    writable(writer.emit())
        with contextlib.suppress(MatchError):
            m.cancel(1)
    return "ok"


_UNPACK: dict[str, Callable[..., None]] = {
    "grug": grug.unpack,
    "jgf": jgf.unpack,
    "hwloc": hwloc.unpack,
    "rv1exec": rv1exec.unpack,
}

JOB_SHAPES = (
    "version: 1\nresources: [{type: core, count: 1}]\ntasks: []\nattributes: {}\n",
    "version: 1\nresources: [{type: node, count: 1, with: [{type: slot, count: 1, label: s, "
    "with: [{type: core, count: 1}]}]}]\ntasks: []\nattributes: {system: {duration: 10}}\n",
    "version: 1\nresources: [{type: slot, count: 1, label: s, with: [{type: pu, count: 1}]}]\n"
    "tasks: []\nattributes: {}\n",
)


def check_graph(kind: str, text: str, rng: random.Random | None = None) -> str:
    """Read ``text`` as ``kind``; on error the graph must be unchanged (empty); a loaded graph must
    take a matcher (or refuse it with MatchError) and a short session without error."""
    rng = rng or random.Random(0)
    g = ResourceGraph()
    saved = grug.MAX_GENERATED_VERTICES
    grug.MAX_GENERATED_VERTICES = FUZZ_GRUG_VERTICES
    try:
        with only(kind, ReaderError):
            _UNPACK[kind](g, text, source="fuzz")
    except ReaderError:
        if g.num_vertices or g.num_edges or g.roots:
            raise Defect(kind, "state", "a rejected document changed the graph") from None
        return "rejected"
    finally:
        grug.MAX_GENERATED_VERTICES = saved
    with only(kind, MatchError):
        try:
            m = Matcher(g, policy=rng.choice(["high", "low", "first", "locality"]))
        except MatchError:
            return "ok"
    with only(kind):
        writer = create(rng.choice(sorted(MATCH_FORMATS)))
        for i, shape in enumerate(JOB_SHAPES, start=1):
            js = load_jobspec(shape)
            try:
                check_known_types(js, m.known_types)
            except JobspecError:
                continue
            out = m.run(js, rng.choice(["allocate", "allocate_orelse_reserve"]), i, writer)
            if out.rc == 0 or out.errno in (EBUSY, ENODEV):
                with contextlib.suppress(MatchError):
                    writable(writer.emit())
        finder = create("jgf")
        with contextlib.suppress(FluxgraphError):
            m.find("status=up", finder)
            writable(finder.emit())
        for i in range(1, len(JOB_SHAPES) + 1):
            with contextlib.suppress(MatchError):
                m.cancel(i)
    return "ok"


# -- checks: sessions -----------------------------------------------------------------------------

GOOD_JOBS = {
    "core.yaml": JOB_SHAPES[0],
    "node.yaml": JOBSPEC_SEEDS[0],
    "slots.yaml": JOBSPEC_SEEDS[1].replace("    constraints:", "    x-constraints:"),
    "excl.yaml": JOBSPEC_SEEDS[2],
}
BAD_FILES = {
    "garbled.yaml": "version: [1\nresources: {",
    "bigint.yaml": "version: " + BIG + "\n",
    "deep.yaml": "\t" + "[" * 3000 + "]" * 3000,
    "alias.yaml": (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n"
    ),
    "unknown.yaml": JOB_SHAPES[0].replace("core", "sprocket"),
    "negative.yaml": JOB_SHAPES[0].replace("count: 1", "count: -3"),
    "garbled.json": '{"graph": {"nodes": [',
}


def session_files(directory: Path) -> dict[str, str]:
    """Write the good and bad jobspec files of the session checks; name -> path."""
    paths = {}
    for name, text in {**GOOD_JOBS, **BAD_FILES}.items():
        path = directory / name
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        paths[name] = str(path)
    bad_bytes = directory / "bytes.yaml"
    bad_bytes.write_bytes(b"version: 1\nresources: [{type: c\xffre, count: 1}]\n")
    paths["bytes.yaml"] = str(bad_bytes)
    return paths


PATHS = ("/mini0", "/mini0/rack0", "/mini0/rack0/node1", "/mini0/rack1/node0/socket1")


def valid_command(rng: random.Random, files: dict[str, str], counter: int) -> str:
    """A command that is valid on the inline machine (its effect may be a reported failure)."""
    good = [files[n] for n in GOOD_JOBS]
    r = rng.randrange(12)
    if r < 5:
        op = rng.choice(
            [
                "allocate",
                "allocate_orelse_reserve",
                "allocate_with_satisfiability",
                "satisfiability",
                "without_allocating",
            ]
        )
        return f"match {op} {rng.choice(good)}"
    if r == 5:
        return f"multi-match allocate {rng.choice(good)} {rng.choice(good)}"
    if r == 6:
        return f"cancel {rng.randint(1, max(1, counter))}"
    if r == 7:
        return f"info {rng.randint(1, max(1, counter))}"
    if r == 8:
        return rng.choice(["list", "stat", "help cancel"])
    if r == 9:
        return "find " + rng.choice(
            [
                "status=up",
                "sched-now=allocated",
                "sched-future=reserved",
                "status=down or sched-now=free",
                "(sched-now=allocated and status=up) agfilter=true",
                "jobid-alloc=1",
            ]
        )
    if r == 10:
        path = rng.choice(PATHS)
        return rng.choice([f"get-status {path}", f"set-status {path} {rng.choice(['up', 'down'])}"])
    path = rng.choice(PATHS)
    return rng.choice([f"get-property {path}", f"set-property {path} k{rng.randrange(3)}=v"])


def bad_command(rng: random.Random, files: dict[str, str]) -> str:
    """A command that must be refused and change nothing."""
    bad = [files[n] for n in BAD_FILES] + [files["bytes.yaml"], "/nonexistent/job.yaml"]
    if os.path.exists("/dev/zero"):
        bad.append("/dev/zero")
    huge = rng.choice([BIG, "-" + BIG, "99999999999", "-7", "0x10", "abc"])
    return rng.choice(
        [
            f"match allocate {rng.choice(bad)}",
            f"match allocate_orelse_reserve {rng.choice(bad)}",
            f"match bogus {files['core.yaml']}",
            "match allocate",
            f"cancel {huge}",
            f"info {huge}",
            "cancel",
            "info 1 2 3",
            f"partial-cancel {huge} jgf {files['garbled.json']}",
            "find " + "(" * rng.choice([5, 100, 3000]) + "status=up",
            "find status=sideways",
            "find " + "(" * 70 + "status=up" + ")" * 70,
            "get-status /mini0/\udcff",
            "set-status /nowhere up",
            f"set-status {PATHS[1]} sideways",
            "set-property /mini0 novalue",
            f"attach {files['garbled.json']}",
            f"attach {rng.choice(bad)}",
            "remove /nowhere true",
            f"remove {PATHS[0]} maybe",
            "nonsense command",
            "\udcff\udcfe",
            "stat extra",
        ]
    )


def run_session(graph_text: str, commands: list[str], fmt: str) -> list[tuple[str, str, str]]:
    """Run ``commands`` through the REPL's dispatch; per command (out, stdout, stderr) text."""
    g = ResourceGraph()
    grug.unpack(g, graph_text)
    matcher = Matcher(g, policy="high")
    out, stdout, stderr = io.StringIO(), io.StringIO(), io.StringIO()
    session = Session(
        matcher, create(fmt), out=out, stdout=stdout, stderr=stderr, clock=lambda: 0.0
    )
    chunks = []
    for line in commands:
        marks = (out.tell(), stdout.tell(), stderr.tell())
        tokens = split_command(line)
        if tokens and dispatch(session, tokens) != 0:
            break
        chunks.append(
            (
                writable(out.getvalue()[marks[0] :]),
                writable(stdout.getvalue()[marks[1] :]),
                writable(stderr.getvalue()[marks[2] :]),
            )
        )
    return chunks


def check_repl(rng: random.Random, n_valid: int = 8, n_bad: int = 6) -> str:
    """A session with bad commands injected prints, for its valid commands, exactly what the
    session without them prints (and nothing raises)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = session_files(Path(tmp))
        valid = []
        for i in range(n_valid):
            valid.append(valid_command(rng, files, i + 1))
        dirty: list[tuple[bool, str]] = [(True, c) for c in valid]
        for _ in range(n_bad):
            dirty.insert(rng.randrange(len(dirty) + 1), (False, bad_command(rng, files)))
        fmt = rng.choice(sorted(MATCH_FORMATS))
        with only("repl"):
            clean = run_session(INLINE_GRUG, valid, fmt)
            mixed = run_session(INLINE_GRUG, [c for _, c in dirty], fmt)
    kept = [chunk for (good, _), chunk in zip(dirty, mixed, strict=True) if good]
    for (command, a), b in zip(zip(valid, clean, strict=True), kept, strict=True):
        if a != b:
            raise Defect("repl", "state", f"{command!r} printed differently after bad commands")
    # then mutated jobspec files through the whole match command (crashes only)
    with tempfile.TemporaryDirectory() as tmp:
        hostile = []
        for i in range(3):
            path = Path(tmp) / f"m{i}.yaml"
            path.write_text(make_document("jobspec", rng), errors="surrogateescape")
            op = rng.choice(["allocate", "allocate_orelse_reserve", "satisfiability"])
            hostile.append(f"match {op} {path}")
        hostile += ["find sched-now=allocated", "cancel 1", "list"]
        with only("repl"):
            run_session(INLINE_GRUG, hostile, rng.choice(sorted(MATCH_FORMATS)))
    return "ok"


# -- checks: command line -------------------------------------------------------------------------

OPTION_VALUES = {
    "-L": ["@grug", "@jgf", "/nonexistent", "/", "/dev/zero", "@bad"],
    "-f": ["grug", "jgf", "hwloc", "rv1exec", "rv1exec_force", "bogus", ""],
    "-W": ["node,core", "", ",", BIG[:50]],
    "-S": ["CA", "ca", "IBA", "ALL", "VA", "C+P+IBA", "bogus", ""],
    "-P": ["high", "low", "first", "lonodex", "locality", "variation", "bogus", "policy=high", ""],
    "-F": [*sorted(MATCH_FORMATS), "bogus"],
    "-T": ["simple", "flexible", "bogus"],
    "-p": ["ALL:core", "ALL:core,ALL:node", ":", ",", "x:y", "ALL:", "a:b:c", " "],
    "-g": ["dot", "GRAPHML", "svg"],
    "-r": ["0", "100", "-1", BIG, "2000001", "x"],
    "-t": ["@out", "/nonexistent/dir/out", "/dev/full"],
    "-o": ["@graphout"],
}
FLAGS = ["-e", "-d", "-h", "--help", "--bogus", "-x", "--load", "--elapse-time", "--", "extra"]


def cli_argv(rng: random.Random) -> list[str]:
    """A random command line: options with valid or invalid values, flags, permutations.

    ``@name`` stands for the file ``name`` of the case's directory (see :func:`check_cli`).
    """
    argv: list[str] = []
    long = {"-L": "--load-file", "-P": "--match-policy", "-F": "--match-format"}
    for _ in range(rng.randint(1, 6)):
        if rng.random() < 0.2:
            argv.append(rng.choice(FLAGS))
            continue
        opt = rng.choice(list(OPTION_VALUES))
        value = rng.choice(OPTION_VALUES[opt])
        style = rng.randrange(3)
        if style == 0:
            argv += [opt, value]
        elif style == 1:
            argv.append(opt + value)
        else:
            argv.append(f"{long[opt]}={value}" if opt in long else opt + value)
    return argv


def check_cli(argv: list[str]) -> str:
    """``main(argv)`` returns 0 or 1 for any command line; nothing raises. ``@name`` in
    ``argv`` names a file of the case's directory; ``-L @grug`` is added when no ``-L`` is given.
    """
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "grug").write_text(INLINE_GRUG)
        g = ResourceGraph()
        grug.unpack(g, INLINE_GRUG)
        (d / "jgf").write_text(json.dumps(to_jgf(g)))
        (d / "bad").write_text("<graphml><graph>" + BIG)
        (d / "core.yaml").write_text(JOB_SHAPES[0])
        args = [a.replace("@", str(d) + "/") if "@" in a else a for a in argv]
        if not any(a.startswith(("-L", "--load-file")) for a in argv):
            args += ["-L", str(d / "grug")]
        script = f"match allocate {d / 'core.yaml'}\nfind status=up\nstat\nquit\n"
        out, err = io.StringIO(), io.StringIO()
        cwd = os.getcwd()
        os.chdir(d)  # -o writes next to the case
        try:
            with only("cli"):
                rc = cli_main(
                    args,
                    prog="resource-query",
                    stdin=io.StringIO(script),
                    stdout=out,
                    stderr=err,
                )
        finally:
            os.chdir(cwd)
        with only("cli"):
            writable(out.getvalue())
            writable(err.getvalue())
        if rc not in (0, 1):
            raise Defect("cli", "status", f"exit status {rc!r} for {argv!r}")
    return "ok"


# -- checks: Python API workloads -----------------------------------------------------------------


def check_api(rng: random.Random, steps: int = 12) -> str:
    """Random workloads through the Python API, graph mutations included: only fluxgraph errors,
    and every aggregate's multi-spans stay consistent with its sub-planners."""
    g = ResourceGraph()
    grug.unpack(g, rng.choice(seeds("grug")[:3]))
    policy = rng.choice(["high", "low", "first", "lonode", "hinodex", "locality"])
    prune = rng.choice(["ALL:core", "ALL:core,ALL:node", "", "rack:node,node:core"])
    traverser = rng.choice(["simple", "simple", "flexible"])
    with only("api", MatchError):
        try:
            m = Matcher(g, policy=policy, prune=prune, traverser=traverser)
        except MatchError:
            return "rejected"
    shapes = [load_jobspec(t) for t in GOOD_JOBS.values()]
    r_docs = _r_documents(g)
    jobs: list[int] = []
    with only("api", FluxgraphError):
        for step in range(steps):
            op = rng.randrange(12)
            try:
                if op >= 9:
                    _elastic_step(m, rng, op, r_docs, jobs, 1000 + step)
                    continue
                if op < 3:
                    kind = rng.choice(["allocate", "allocate_orelse_reserve"])
                    jobs.append(m.match(rng.choice(shapes), kind).job_id)
                elif op == 3 and jobs:
                    m.cancel(jobs.pop(rng.randrange(len(jobs))))
                elif op == 4:
                    nodes = g.by_type.get("node", [])
                    if nodes:
                        m.remove_subgraph(g.paths[rng.choice(nodes)].get("containment", "/x"))
                elif op == 5:
                    m.remove_ranks([rng.randrange(8)])
                elif op == 6:
                    m.set_status(rng.choice(PATHS), rng.choice(["up", "down"]))
                elif op == 7:
                    m.find(
                        rng.choice(["status=up", "sched-now=allocated agfilter=true"]),
                        create("jgf"),
                    )
                else:
                    m.match(rng.choice(shapes), "satisfiability")
            except FluxgraphError:
                pass
            problems = planner_problems(g)
            if problems:
                raise Defect("api", "state", problems[0])
        for job in jobs:
            with contextlib.suppress(MatchError):
                m.cancel(job)
    return "ok"


def _r_documents(graph: ResourceGraph) -> dict[str, str]:
    """R documents (``jgf``, ``rv1exec``) of one job on a copy of ``graph``, for update and
    partial-cancel steps."""
    copy = ResourceGraph()
    jgf.unpack(copy, json.dumps(to_jgf(graph)))
    out = {}
    try:
        m = Matcher(copy, policy="low")
    except MatchError:
        return out
    js = load_jobspec(GOOD_JOBS["node.yaml"])
    for reader, fmt in (("jgf", "jgf"), ("rv1exec", "rv1_nosched")):
        writer = create(fmt)
        if m.run(js, "allocate", len(out) + 1, writer).rc == 0:
            with contextlib.suppress(MatchError):
                out[reader] = writer.emit()
    return out


def _mutated_r(text: str, rng: random.Random) -> str:
    if rng.random() < 0.3:
        return text
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    if rng.random() < 0.6:
        doc = plausible_edit(doc, rng, rng.randint(1, 2))
    else:
        doc = mutate_structure(doc, rng, 1)
    return _dump_json(doc)


def _elastic_step(m: Matcher, rng: random.Random, op: int, r_docs, jobs: list[int], new_id: int):
    """attach, update or partial-cancel with a (mutated) JGF or R document."""
    if op == 9:
        seed = rng.choice(seeds("jgf"))
        m.attach(_mutated_r(seed, rng) if rng.random() < 0.7 else seed)
    elif not r_docs:
        return
    elif op == 10:
        reader = rng.choice(sorted(r_docs))
        writer = create(rng.choice(sorted(MATCH_FORMATS)))
        text = _mutated_r(r_docs[reader], rng)
        out = m.update(reader, text, new_id, rng.choice([0, 0, 100]), 3600, writer)
        if out.rc == 0:
            jobs.append(new_id)
            with contextlib.suppress(MatchError):
                writable(writer.emit())
    elif jobs:
        reader = rng.choice(sorted(r_docs))
        m.partial_cancel(rng.choice(jobs), reader, _mutated_r(r_docs[reader], rng))


def planner_problems(graph: ResourceGraph) -> list[str]:
    """Multi-span parts that do not name a live sub-span of the sub-planner at their index,
    among the multi-spans a job refers to (``job2span``): a rank removal resets a remaining
    vertex's aggregate and keeps its multi-span ids unreferenced, as the reference does."""
    problems = []
    for v, subplans in enumerate(graph.schedule.subplans):
        held = set((graph.schedule.job2span[v] or {}).values())
        for sub, mp in (subplans or {}).items():
            planners = mp._planners
            for mid, vec in mp._spans.items():
                if mid not in held:
                    continue
                for i, sid in enumerate(vec):
                    if sid != -1 and (i >= len(planners) or sid not in planners[i]._spans):
                        problems.append(f"{graph.names[v]}/{sub}: multi-span {mid} part {i}")
    return problems


# -- one case of any kind -------------------------------------------------------------------------


def _properties():
    import _properties  # (it imports this module)

    return _properties


def run_case(kind: str, seed: int, trace_memory: bool = True) -> str:
    """Run case ``seed`` of ``kind``; ``ok``/``rejected``, or :class:`Defect`."""
    rng = random.Random(f"{kind}:{seed}")
    with bounded(kind, trace_memory=trace_memory):
        if kind == "jobspec":
            return check_jobspec(make_document("jobspec", rng), rng)
        if kind in ("grug", "jgf", "hwloc", "rv1exec"):
            return check_graph(kind, make_document(kind, rng), rng)
        if kind == "repl":
            return check_repl(rng)
        if kind == "cli":
            argv = cli_argv(rng)
            check_cli(argv)
            return _properties().check_cli_fds(argv)
        if kind == "api":
            return check_api(rng)
        if kind in PROPERTY_KINDS:
            return _properties().CHECKS[kind](rng)
    raise ValueError(f"unknown kind {kind!r}")


__all__ = [
    "KINDS",
    "Defect",
    "bounded",
    "check_api",
    "check_cli",
    "check_graph",
    "check_jobspec",
    "check_repl",
    "make_document",
    "mutate_structure",
    "mutate_text",
    "run_case",
    "seeds",
]
