"""Common machines without hand-written GRUG: ``nodes=N[,cores=C][,gpus=G][,memory=GB][,racks=R]``.

A spec becomes a GRUG recipe (so every machine is also a recipe file users can edit), and the
recipe becomes a :class:`~fluxgraph.graph.ResourceGraph` through the GRUG reader. Any GRUG or
JGF file is a machine too (:func:`load_machine`).

Layout: ``cluster[1] -> rack[R] -> node[N/R] -> {core[C], gpu[G], memory[1] of size GB}``
(without racks the nodes sit under the cluster). Nodes are numbered from 0 across the whole
machine, so ``node7`` is rank 7 in every output; cores, gpus and memory from 0 within each node,
as in every bundled recipe.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fluxgraph.data import local_or_bundled
from fluxgraph.errors import FluxgraphError, SimulationError
from fluxgraph.graph import ResourceGraph
from fluxgraph.limits import MAX_GENERATED_VERTICES
from fluxgraph.machines.grug import grug_document, grug_edge, grug_vertex
from fluxgraph.readers import load as load_graph
from fluxgraph.readers import reader

__all__ = [
    "MachineSpec",
    "build_machine",
    "load_machine",
    "parse_machine_spec",
    "recipe",
    "recipe_parts",
]


@dataclass(frozen=True, slots=True)
class MachineSpec:
    """The shape of a homogeneous machine (see the module docstring).

    >>> parse_machine_spec("nodes=4,cores=2,racks=2")
    MachineSpec(nodes=4, cores=2, gpus=0, memory=0, racks=2)
    """

    nodes: int
    cores: int = 1
    gpus: int = 0
    memory: int = 0
    racks: int = 0

    @property
    def vertices(self) -> int:
        """How many vertices the machine has.

        >>> MachineSpec(nodes=4, cores=2, racks=2).vertices
        15
        """
        per_node = 1 + self.cores + self.gpus + (1 if self.memory else 0)
        return 1 + self.racks + self.nodes * per_node

    @property
    def name(self) -> str:
        """A short text form that parses back to this spec."""
        parts = [f"nodes={self.nodes}", f"cores={self.cores}"]
        parts += [
            f"{k}={getattr(self, k)}" for k in ("gpus", "memory", "racks") if getattr(self, k)
        ]
        return ",".join(parts)


_LIMITS = {
    "nodes": (1, 10_000_000),
    "cores": (1, 4096),
    "gpus": (0, 1024),
    "memory": (0, 1 << 40),
    "racks": (0, 1_000_000),
}


def parse_machine_spec(text: str) -> MachineSpec:
    """Parse ``nodes=N[,cores=C][,gpus=G][,memory=GB][,racks=R]``.

    Raises
    ------
    SimulationError
        Naming the bad key or value; ``racks`` must divide ``nodes``.
    """
    values: dict[str, int] = {}
    for piece in text.split(","):
        key, sep, value = piece.partition("=")
        key = key.strip()
        if not sep or key not in _LIMITS:
            raise SimulationError(
                f"machine spec {text!r}: bad item {piece!r} (expected key=value with key in "
                f"{', '.join(_LIMITS)})"
            )
        if key in values:
            raise SimulationError(f"machine spec {text!r}: {key} given twice")
        try:
            number = int(value)
        except ValueError:
            raise SimulationError(
                f"machine spec {text!r}: {key}={value!r} is not an integer"
            ) from None
        lo, hi = _LIMITS[key]
        if not lo <= number <= hi:
            raise SimulationError(
                f"machine spec {text!r}: {key} must be in [{lo}, {hi}], got {number}"
            )
        values[key] = number
    if "nodes" not in values:
        raise SimulationError(f"machine spec {text!r}: nodes=N is required")
    spec = MachineSpec(**values)
    if spec.racks and spec.nodes % spec.racks:
        raise SimulationError(
            f"machine spec {text!r}: racks={spec.racks} must divide nodes={spec.nodes}"
        )
    if spec.vertices > MAX_GENERATED_VERTICES:
        raise SimulationError(
            f"machine spec {text!r}: {spec.vertices:,} vertices, more than the "
            f"{MAX_GENERATED_VERTICES:,} a machine may have"
        )
    return spec


def recipe_parts(spec: MachineSpec) -> tuple[list[str], list[str]]:
    """The ``<node>`` and ``<edge>`` lines of ``spec``'s recipe (for builders that add to it).

    >>> vertices, edges = recipe_parts(MachineSpec(nodes=4, racks=2))
    >>> len(vertices), len(edges)
    (4, 3)
    """
    vertices = [grug_vertex("cluster", "cluster", root=True)]
    edges = []
    parent = "cluster"
    per_parent = spec.nodes
    if spec.racks:
        vertices.append(grug_vertex("rack", "rack"))
        edges.append(grug_edge("cluster", "rack", [("multi_scale", spec.racks), ("id_scope", 1)]))
        parent, per_parent = "rack", spec.nodes // spec.racks
    depth = 3 if spec.racks else 2
    vertices.append(grug_vertex("node", "node"))
    # id_scope 0 numbers the targets per parent; the depth of the parent, machine-wide.
    edges.append(grug_edge(parent, "node", [("multi_scale", per_parent), ("id_scope", depth - 1)]))
    vertices.append(grug_vertex("core", "core"))
    edges.append(grug_edge("node", "core", [("multi_scale", spec.cores), ("id_scope", 0)]))
    if spec.gpus:
        vertices.append(grug_vertex("gpu", "gpu"))
        edges.append(grug_edge("node", "gpu", [("multi_scale", spec.gpus), ("id_scope", 0)]))
    if spec.memory:
        vertices.append(grug_vertex("memory", "memory", size=spec.memory, unit="GB"))
        edges.append(grug_edge("node", "memory", [("multi_scale", 1), ("id_scope", 0)]))
    return vertices, edges


def recipe(spec: MachineSpec) -> str:
    """The GRUG recipe text of ``spec``.

    >>> "multi_scale\\">4<" in recipe(MachineSpec(nodes=4))
    True
    """
    vertices, edges = recipe_parts(spec)
    return grug_document(vertices, edges, comment=f"fluxgraph machine: {spec.name}")


def build_machine(spec: MachineSpec | str) -> ResourceGraph:
    """The resource graph of ``spec`` (a :class:`MachineSpec` or its text form).

    >>> g = build_machine("nodes=2,cores=4,memory=16")
    >>> sorted(g.by_type)[:3], len(g.by_type["node"]), len(g.by_type["core"])
    (['cluster', 'core', 'memory'], 2, 8)
    """
    if isinstance(spec, str):
        spec = parse_machine_spec(spec)
    graph = ResourceGraph()
    reader("grug")(graph, recipe(spec), source=f"<machine {spec.name}>")
    return graph


_FORMATS = {".graphml": "grug", ".xml": "grug", ".json": "jgf"}


def load_machine(machine: str | Path) -> ResourceGraph:
    """A machine from a spec such as ``nodes=100``, a GRUG/JGF file (by extension), or the name
    of a bundled machine (:mod:`fluxgraph.data`; a file of that name in the working directory
    comes first).

    >>> len(load_machine("kth-sp2").by_type["node"])
    100

    Raises
    ------
    SimulationError
        For a spec that does not parse, a file with an unknown extension, or a name that is
        neither a file nor a bundled machine (the message lists the bundled machines).
    fluxgraph.errors.ReaderError
        For a file that cannot be read or parsed.
    """
    text = str(machine)
    path = Path(text)
    if "=" in text and not path.exists():
        return build_machine(text)
    try:
        path = local_or_bundled("machines", text)
    except FluxgraphError as err:
        raise SimulationError(
            f"machine {text!r}: no such file, not a spec (nodes=N,...) and {err}"
        ) from None
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise SimulationError(
            f"machine {text!r}: not a spec (nodes=N,...) and not a .graphml/.xml (GRUG) or "
            f".json (JGF) file"
        )
    return load_graph(path, fmt)
