"""The GraphML layer of GRUG: recipe text -> :class:`Recipe` (no graph generation).

The rules are those of the reference's Boost ``read_graphml`` as the GRUG reader uses it:

* text values are trimmed and inner whitespace runs collapse to one space; comments are dropped;
* the root element must be ``graphml``; its ``<key>`` children declare ``id``, ``for``,
  ``attr.name``, ``attr.type`` and an optional ``<default>``; only ``for="node"`` and
  ``for="edge"`` defaults are ever applied;
* only the first ``<graph>`` (plus ``<graph>`` elements nested in it) is read; all its ``<node>``
  elements first, then its ``<edge>`` elements, each in document order;
* a new recipe vertex gets the node-key defaults in ascending key-id order, then its ``<data>``
  children in document order; an edge gets the edge-key defaults then its ``<data>``; an edge
  naming an undeclared node creates it on the fly;
* a ``<data>`` value must name a declared key whose ``attr.name`` is a recipe field of the right
  kind (:data:`VERTEX_FIELDS` or :data:`EDGE_FIELDS`) and whose ``attr.type`` is the field's type
  or ``string``.

Any violation raises :class:`~fluxgraph.errors.ReaderError` naming the source, the element and
the problem; ``reference_message`` is the reference's ``error in reading grug string; ``.
Prefixed element names (``<g:graphml>``) are accepted where Boost would not see them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from types import MappingProxyType

from fluxgraph.errors import ReaderError
from fluxgraph.limits import parse_digits
from fluxgraph.readers._xml import parse_xml

__all__ = [
    "EDGE_FIELDS",
    "GRUG_ERROR",
    "VERTEX_FIELDS",
    "Recipe",
    "RecipeEdge",
    "RecipeVertex",
    "parse_recipe",
]

#: What the reference reports for every GRUG load failure.
GRUG_ERROR = "error in reading grug string; "

#: Vertex ("node key") recipe fields -> field kind (``int``, ``long``, ``string`` or ``token``,
#: an interned, whitespace-free string).
VERTEX_FIELDS = MappingProxyType(
    {
        "root": "int",
        "type": "token",
        "basename": "string",
        "size": "long",
        "unit": "string",
        "subsystem": "token",
    }
)

#: Edge ("edge key") recipe fields -> field kind.
EDGE_FIELDS = MappingProxyType(
    {
        "e_subsystem": "token",
        "relation": "string",
        "rrelation": "string",
        "gen_method": "string",
        "id_scope": "int",
        "id_start": "int",
        "id_stride": "int",
        "multi_scale": "int",
        "as_tgt_subsystem": "token",
        "as_tgt_uplvl": "int",
        "as_src_uplvl": "int",
    }
)

_KEY_FOR = frozenset(("graph", "node", "edge", "hyperedge", "port", "endpoint", "all", "graphml"))
_ATTR_TYPES = frozenset(("boolean", "int", "long", "float", "double", "string"))
_INT_BOUNDS = MappingProxyType({"int": 2**31, "long": 2**63})
_INTEGER = re.compile(r"[+-]?[0-9]+")
_XML_SPACE = re.compile(r"[ \t\n\r]+")
_TOKEN_SPACE = re.compile(r"[ \t\n\r\v\f]")


@dataclass(slots=True)
class RecipeVertex:
    """One recipe vertex (a resource-pool generator); unset fields keep their zero value."""

    key: str
    root: int = 0
    type: str = ""
    basename: str = ""
    size: int = 0
    unit: str = ""
    subsystem: str = ""


@dataclass(slots=True)
class RecipeEdge:
    """One recipe edge (a relation generator) between recipe vertex indexes."""

    source: int
    target: int
    e_subsystem: str = ""
    relation: str = ""
    rrelation: str = ""
    gen_method: str = ""
    id_scope: int = 0
    id_start: int = 0
    id_stride: int = 0
    multi_scale: int = 0
    as_tgt_subsystem: str = ""
    as_tgt_uplvl: int = 0
    as_src_uplvl: int = 0


@dataclass(frozen=True, slots=True)
class Recipe:
    """A parsed GRUG recipe graph.

    ``out_edges[v]`` lists the indexes (into ``edges``) of recipe vertex ``v``'s out-edges in
    document order. ``types`` and ``subsystems`` are the resource types and subsystem names in
    the order the parser first met them (which fixes their intern order in the loaded graph).
    """

    vertices: tuple[RecipeVertex, ...]
    edges: tuple[RecipeEdge, ...]
    out_edges: tuple[tuple[int, ...], ...]
    types: tuple[str, ...] = field(default=())
    subsystems: tuple[str, ...] = field(default=())


@dataclass(slots=True)
class _Key:
    kind: str
    name: str
    type: str


def _local(tag: str) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _text(elem: ET.Element) -> str:
    """Element text as Boost.PropertyTree reads it: each text piece trimmed and normalised."""
    pieces = [elem.text, *(child.tail for child in elem)]
    return "".join(_XML_SPACE.sub(" ", p).strip(" ") for p in pieces if p)


def _describe(elem: ET.Element) -> str:
    attrs = " ".join(f'{k}="{v}"' for k, v in elem.attrib.items() if "}" not in k)
    return f"<{_local(elem.tag)}{' ' + attrs if attrs else ''}>"


class _Parser:
    """One parse: keys, recipe vertices and edges, first-seen types and subsystems."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.keys: dict[str, _Key] = {}
        self.defaults: dict[str, str] = {}
        self.vertices: list[RecipeVertex] = []
        self.index: dict[str, int] = {}
        self.edges: list[RecipeEdge] = []
        self.out_edges: list[list[int]] = []
        self.types: dict[str, None] = {}
        self.subsystems: dict[str, None] = {}

    def fail(self, where: str, problem: str) -> ReaderError:
        return ReaderError(f"{self.source}: {where}: {problem}", reference_message=GRUG_ERROR)

    def required(self, elem: ET.Element, attr: str) -> str:
        value = elem.get(attr)
        if value is None:
            raise self.fail(_describe(elem), f"missing required attribute {attr!r}")
        return value

    # -- document ------------------------------------------------------------------------------

    def parse(self, root: ET.Element) -> Recipe:
        if _local(root.tag) != "graphml":
            raise self.fail(f"<{_local(root.tag)}>", "the root element must be <graphml>")
        for child in root:
            if _local(child.tag) == "key":
                self.declare(child)
        graphs: list[ET.Element] = []
        first = next((c for c in root if _local(c.tag) == "graph"), None)
        if first is not None:
            for child in first:
                if _local(child.tag) == "data":
                    self.graph_data(child)
            self.collect_graphs(first, graphs)
        for graph in graphs:
            for child in graph:
                if _local(child.tag) == "node":
                    self.node(child)
        for graph in graphs:
            directed = self.required(graph, "edgedefault") == "directed"
            for child in graph:
                if _local(child.tag) == "edge":
                    self.edge(child, directed)
        return Recipe(
            tuple(self.vertices),
            tuple(self.edges),
            tuple(tuple(out) for out in self.out_edges),
            tuple(self.types),
            tuple(self.subsystems),
        )

    def collect_graphs(self, graph: ET.Element, out: list[ET.Element]) -> None:
        """Append ``graph`` and the ``<graph>`` elements nested in it, in document preorder."""
        stack = [graph]
        while stack:
            g = stack.pop()
            out.append(g)
            stack.extend(reversed([c for c in g if _local(c.tag) == "graph"]))

    def declare(self, elem: ET.Element) -> None:
        key_id = self.required(elem, "id")
        kind = self.required(elem, "for")
        name = self.required(elem, "attr.name")
        attr_type = self.required(elem, "attr.type")
        if kind not in _KEY_FOR:
            raise self.fail(_describe(elem), f"invalid 'for' value {kind!r}")
        self.keys[key_id] = _Key(kind, name, attr_type)
        default = next((c for c in elem if _local(c.tag) == "default"), None)
        if default is not None:
            self.defaults[key_id] = _text(default)

    def graph_data(self, elem: ET.Element) -> None:
        key_id = self.required(elem, "key")
        key = self.keys.get(key_id)
        problem = (
            f"undeclared key {key_id!r}"
            if key is None
            else f"graph-level attribute {key.name!r} is not a GRUG recipe field"
        )
        raise self.fail(_describe(elem), problem)

    # -- vertices and edges --------------------------------------------------------------------

    def vertex(self, node_id: str, where: str) -> int:
        v = self.index.get(node_id)
        if v is None:
            v = len(self.vertices)
            self.index[node_id] = v
            self.vertices.append(RecipeVertex(node_id))
            self.out_edges.append([])
            for key_id in sorted(self.defaults):
                if self.keys[key_id].kind == "node":
                    self.assign(
                        self.vertices[v], VERTEX_FIELDS, key_id, self.defaults[key_id], where
                    )
        return v

    def node(self, elem: ET.Element) -> None:
        where = _describe(elem)
        v = self.vertex(self.required(elem, "id"), where)
        for child in elem:
            if _local(child.tag) == "data":
                key_id = self.required(child, "key")
                self.assign(
                    self.vertices[v],
                    VERTEX_FIELDS,
                    key_id,
                    _text(child),
                    f"{where} {_describe(child)}",
                )

    def edge(self, elem: ET.Element, default_directed: bool) -> None:
        where = _describe(elem)
        source = self.required(elem, "source")
        target = self.required(elem, "target")
        local = elem.get("directed", "")
        if not (default_directed if local == "" else local == "true"):
            raise self.fail(where, "undirected edge (the recipe graph is directed)")
        s = self.vertex(source, where)
        t = self.vertex(target, where)
        rec = RecipeEdge(s, t)
        self.out_edges[s].append(len(self.edges))
        self.edges.append(rec)
        for key_id in sorted(self.defaults):
            if self.keys[key_id].kind == "edge":
                self.assign(rec, EDGE_FIELDS, key_id, self.defaults[key_id], where)
        for child in elem:
            if _local(child.tag) == "data":
                key_id = self.required(child, "key")
                self.assign(rec, EDGE_FIELDS, key_id, _text(child), f"{where} {_describe(child)}")

    # -- typed values --------------------------------------------------------------------------

    def assign(
        self,
        target: RecipeVertex | RecipeEdge,
        fields: MappingProxyType[str, str],
        key_id: str,
        text: str,
        where: str,
    ) -> None:
        key = self.keys.get(key_id)
        if key is None:
            raise self.fail(where, f"undeclared key {key_id!r}")
        if key.type not in _ATTR_TYPES:
            raise self.fail(where, f"key {key_id!r} has unknown attr.type {key.type!r}")
        kind = fields.get(key.name)
        if kind is None:
            what = "vertex" if fields is VERTEX_FIELDS else "edge"
            raise self.fail(where, f"key {key_id!r}: {key.name!r} is not a GRUG {what} field")
        if kind in _INT_BOUNDS:
            if key.type not in (kind, "string"):
                raise self.fail(
                    where, f"key {key_id!r}: field {key.name!r} needs attr.type {kind} or string"
                )
            value: int | str = self.integer(text, kind, key.type == "string", where, key.name)
        else:
            if key.type != "string":
                raise self.fail(where, f"key {key_id!r}: field {key.name!r} needs attr.type string")
            value = text
            if kind == "token":
                if _TOKEN_SPACE.search(text):
                    raise self.fail(where, f"{key.name} value {text!r} contains whitespace")
                seen = self.types if key.name == "type" else self.subsystems
                seen.setdefault(text, None)
        setattr(target, key.name, value)

    def integer(self, text: str, kind: str, lenient: bool, where: str, name: str) -> int:
        if lenient and text == "":
            return 0
        if not _INTEGER.fullmatch(text):
            raise self.fail(where, f"{name} value {text!r} is not an integer")
        bound = _INT_BOUNDS[kind]
        negative = text[0] == "-"
        magnitude = parse_digits(text.lstrip("+-"), bound)
        if magnitude is None or (magnitude == bound and not negative):
            shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
            raise self.fail(where, f"{name} value {shown!r} is out of range for {kind}")
        return -magnitude if negative else magnitude


def parse_recipe(text: str | bytes, *, source: str = "<string>") -> Recipe:
    """Parse GRUG recipe text into a :class:`Recipe`.

    Parameters
    ----------
    text
        The GraphML document.
    source
        Name used in error messages (usually the file name).

    Raises
    ------
    ReaderError
        If the XML is malformed or unsafe, or violates the GraphML rules of the module
        docstring; ``reference_message`` is :data:`GRUG_ERROR`.

    Examples
    --------
    >>> doc = '''<graphml>
    ...   <key id="type" for="node" attr.name="type" attr.type="string"/>
    ...   <key id="ms" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
    ...   <graph edgedefault="directed">
    ...     <node id="a"><data key="type">cluster</data></node>
    ...     <edge source="a" target="b"><data key="ms"> 4 </data></edge>
    ...   </graph>
    ... </graphml>'''
    >>> r = parse_recipe(doc)
    >>> [v.key for v in r.vertices], r.edges[0].multi_scale, r.out_edges
    (['a', 'b'], 4, ((0,), ()))
    """
    try:
        root = parse_xml(text, source)
    except ReaderError as err:
        raise ReaderError(str(err), reference_message=GRUG_ERROR) from err
    return _Parser(source).parse(root)
