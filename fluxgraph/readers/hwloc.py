"""hwloc reader: an hwloc XML topology -> resource graph (format ``hwloc``, honours ``-W``).

The reference reads the XML through libhwloc 2.x (I/O filter KEEP_IMPORTANT, cache filters
KEEP_STRUCTURE), so the graph follows the tree libhwloc builds, not the XML nesting. This module
emulates that import for v1 and v2 XML:

* v1 types are renamed (``Socket`` -> Package, ``Cache`` -> ``L<depth>[i]Cache``, a non-root
  Machine -> Group, a Misc with a cpuset -> Group);
* a v1 NUMA node becomes a *memory child*: its normal children move up to its parent, and when
  its complete cpuset differs from the parent's, a memory Group with the NUMA node's cpuset is
  inserted to hold the node and its former children;
* OS devices of the DMA class are dropped (KEEP_IMPORTANT); normal objects with an empty cpuset
  and no children are removed;
* levels are built as libhwloc does (objects of equal type, Groups also of equal kind) and,
  bottom-up, a cache or Group level whose objects each have a single child, level for level, is
  merged away (the parent or the child level, by type priority); merged objects pass their
  memory, I/O and Misc children on;
* logical indexes are positions in the levels; NUMA nodes and OS devices are numbered in
  depth-first order (normal, memory, I/O, Misc children).

The graph: ``cluster0`` (the containment root, always created), then a depth-first walk of that
tree (normal, memory, I/O, Misc children) creating one vertex per Machine with a ``HostName``
(``node``), Group, NUMA node, Package (``socket``), L1-L3 data/unified cache, Core, PU, CoProc or
``rsmi`` GPU OS device (``gpu``) and Block OS device with a ``Size`` (``storage``) that the
allowlist admits, attached to the nearest created ancestor; other objects only pass their
children through. ``uniq_id`` is the creation index.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

from fluxgraph import hostlist
from fluxgraph.errors import ReaderError
from fluxgraph.graph import CONTAINMENT, ResourceGraph
from fluxgraph.graph.depth import MAX_GRAPH_DEPTH
from fluxgraph.limits import parse_digits
from fluxgraph.readers._xml import parse_xml

__all__ = ["allowlist_from_cli", "parse_allowlist", "unpack"]

_CACHES = frozenset(f"L{i}Cache" for i in range(1, 6)) | frozenset(
    f"L{i}iCache" for i in range(1, 4)
)
_NORMAL = frozenset({"Machine", "Package", "Die", "Group", "Core", "PU"}) | _CACHES
_MEMORY = frozenset({"NUMANode", "MemCache"})
_IO = frozenset({"Bridge", "PCIDev", "OSDev"})
_KEEP_STRUCTURE = _CACHES | {"Group"}
#: libhwloc's merge priorities: when both levels may go, the lower-priority one does.
_PRIORITY = {"Machine": 90, "Package": 40, "Die": 30, "Core": 60, "PU": 100, "Group": 0}
_PRIORITY.update({t: (19 if "i" in t[2:] else 20) for t in _CACHES})
_TYPE_NAMES = {
    "System": "Machine",
    "Machine": "Machine",
    "Socket": "Package",
    "Package": "Package",
    "Die": "Die",
    "Group": "Group",
    "Node": "NUMANode",
    "NUMANode": "NUMANode",
    "MemCache": "MemCache",
    "Core": "Core",
    "PU": "PU",
    "Bridge": "Bridge",
    "PCIDev": "PCIDev",
    "OSDev": "OSDev",
    "Misc": "Misc",
    **{t: t for t in _CACHES},
}
_OSDEV_BLOCK, _OSDEV_GPU, _OSDEV_DMA, _OSDEV_COPROC = 0, 1, 4, 5
_DOCTYPE = re.compile(r"<!DOCTYPE\s+topology\s+SYSTEM\s+\"[^\"<>\[\]]*\"\s*>")
_INT_MAX = 2**31 - 1
_UINT64_MAX = 2**64 - 1
#: Longest cpuset/nodeset accepted, in 32-bit words (libhwloc itself handles 2^16 PUs).
_MAX_BITMAP_WORDS = 4096
_GPU_NAME = re.compile(r"(?:cuda|rsmi)([0-9]+)|opencl[0-9]+d([0-9]+)")
_CLUSTER_PATH = "/cluster0"


def parse_allowlist(spec: str) -> frozenset[str]:
    """The resource-type allowlist of the comma-separated ``spec`` (empty items ignored).

    Raises
    ------
    ReaderError
        If ``spec`` names no type (the reference's ``set_allowlist`` then fails).

    Examples
    --------
    >>> sorted(parse_allowlist("cluster,node,,core"))
    ['cluster', 'core', 'node']
    """
    types = frozenset(item for item in spec.split(",") if item)
    if not types:
        raise ReaderError(f"empty resource allowlist {spec!r}")
    return types


def allowlist_from_cli(values: Iterable[str]) -> str:
    """The allowlist string ``resource-query`` builds from its ``-W`` arguments.

    Each argument that is not all blanks appends ``"cluster," + arg`` with no separator between
    arguments, so ``-W socket -W core`` gives ``cluster,socketcluster,core`` (a reference quirk).

    Examples
    --------
    >>> allowlist_from_cli(["node,core"]), allowlist_from_cli(["socket", " ", "core"])
    ('cluster,node,core', 'cluster,socketcluster,core')
    """
    return "".join(f"cluster,{v}" for v in values if v.strip())


# -- the emulated libhwloc topology ---------------------------------------------------------------


class _Obj:
    """One hwloc object with its four child lists."""

    __slots__ = (
        "children",
        "complete",
        "cpuset",
        "dont_merge",
        "infos",
        "io",
        "kind",
        "logical",
        "memory",
        "misc",
        "name",
        "nodeset",
        "osdev_type",
        "parent",
        "size",
        "type",
    )

    def __init__(self, otype: str) -> None:
        self.type = otype
        self.cpuset: int | None = None
        self.complete: int | None = None
        self.nodeset: int | None = None
        self.kind: tuple[int, int] = (0, 0)  # Group kind and subkind
        self.dont_merge = False
        self.name = ""
        self.osdev_type = -1
        self.size = 0  # cache size in bytes
        self.infos: dict[str, str] = {}
        self.children: list[_Obj] = []
        self.memory: list[_Obj] = []
        self.io: list[_Obj] = []
        self.misc: list[_Obj] = []
        self.parent: _Obj | None = None
        self.logical = 0

    def attach(self, child: _Obj) -> None:
        """Insert ``child`` at the end of the matching child list."""
        child.parent = self
        if child.type in _NORMAL:
            self.children.append(child)
        elif child.type in _MEMORY:
            self.memory.append(child)
        elif child.type in _IO:
            self.io.append(child)
        else:
            self.misc.append(child)


def _bitmap(text: str) -> int:
    """An hwloc bitmap string (``0x0000ffff,,0xff`` words, most significant first).

    At most :data:`_MAX_BITMAP_WORDS` words (ValueError beyond): each word shifts the value.
    """
    words = text.split(",")
    if len(words) > _MAX_BITMAP_WORDS:
        raise ValueError(f"bitmap of more than {_MAX_BITMAP_WORDS} words")
    value = 0
    for word in words:
        word = word.strip()
        bits = 0xFFFFFFFF if word == "0xf...f" else int(word, 16) if word else 0
        value = (value << 32) | bits
    return value


def _first_bit(obj: _Obj) -> float:
    cpus = obj.complete if obj.complete is not None else obj.cpuset
    return (cpus & -cpus).bit_length() - 1 if cpus else float("inf")


class _Import:
    """libhwloc 2.x's XML import, filters and level construction (see the module docstring)."""

    def __init__(self, root_el: Any) -> None:
        version = root_el.get("version", "1.0")
        self.v1 = not version[:1].isdigit() or int(version.split(".")[0]) < 2
        objects = [el for el in root_el if el.tag == "object"]
        if root_el.tag != "topology" or len(objects) != 1:
            raise ValueError("not an hwloc topology (no single root <object>)")
        self.root = self._object(objects[0], None)
        if self.root.type != "Machine":
            raise ValueError(f"root object is a {self.root.type}, not a Machine")
        self._remove_empty(self.root)
        self.levels = self._connect_levels()
        self._filter_keep_structure()
        for level in self.levels:
            for i, obj in enumerate(level):
                obj.logical = i
        self.numa: list[_Obj] = []
        self.osdevs: list[_Obj] = []
        self._list_special(self.root)
        for i, obj in enumerate(self.numa):
            obj.logical = i
        for i, obj in enumerate(self.osdevs):
            obj.logical = i

    def _object(self, el: Any, parent: _Obj | None) -> _Obj:
        raw_type = el.get("type", "")
        if raw_type == "Cache":  # v1: the level and kind are attributes
            depth = el.get("depth", "")
            otype = f"L{depth}{'i' if el.get('cache_type') == '2' else ''}Cache"
            if otype not in _CACHES:
                raise ValueError(f"unsupported cache depth {depth!r}")
        elif raw_type in _TYPE_NAMES:
            otype = _TYPE_NAMES[raw_type]
        else:
            raise ValueError(f"unknown hwloc object type {raw_type!r}")
        obj = _Obj(otype)
        for attr, field in (("cpuset", "cpuset"), ("complete_cpuset", "complete")):
            if attr in el.attrib:
                setattr(obj, field, _bitmap(el.get(attr)))
        nodeset = el.get("complete_nodeset", el.get("nodeset"))
        if nodeset is not None:
            obj.nodeset = _bitmap(nodeset)
        obj.name = el.get("name", "")
        obj.size = int(el.get("cache_size", "0"))
        obj.osdev_type = int(el.get("osdev_type", "-1"))
        if otype == "Group":
            obj.kind = (int(el.get("kind", "0")), int(el.get("subkind", "0")))
            obj.dont_merge = el.get("dont_merge", "0") not in ("", "0")
        for info in el:
            if info.tag == "info" and info.get("name") is not None:
                obj.infos.setdefault(info.get("name"), info.get("value", ""))
        if parent is not None and obj.type == "Machine":
            obj.type = "Group"  # only the root stays a Machine
        if self.v1 and obj.type == "Misc" and obj.cpuset is not None:
            obj.type = "Group"
        if parent is not None and parent.type in _IO and obj.type not in _IO | {"Misc"}:
            raise ValueError(f"{obj.type} object below an I/O object")

        if self.v1 and parent is not None:
            if parent.type == "NUMANode":  # children of a v1 NUMA node go to its parent
                parent = parent.parent
            if obj.type == "NUMANode" and _complete(obj) != _complete(parent):
                group = _Obj("Group")
                group.kind = (1001, 0)  # libhwloc's memory-group kind
                group.cpuset = group.complete = obj.cpuset
                group.nodeset = obj.nodeset
                parent.attach(group)  # type: ignore[union-attr]
                parent = group
        ignored = obj.type == "OSDev" and obj.osdev_type == _OSDEV_DMA  # KEEP_IMPORTANT
        if parent is not None and not ignored:
            parent.attach(obj)
        holder = parent if ignored else obj
        for child in el:
            if child.tag == "object":
                self._object(child, holder)
        kids = obj.children
        if any(_first_bit(b) < _first_bit(a) for a, b in itertools.pairwise(kids)):
            kids.sort(key=_first_bit)
        return obj

    def _remove_empty(self, obj: _Obj) -> None:
        obj.children = [c for c in obj.children if not self._empty(c)]
        obj.memory = [c for c in obj.memory if not self._empty(c)]

    def _empty(self, obj: _Obj) -> bool:
        self._remove_empty(obj)
        if obj.children or obj.memory or obj.io:
            return False
        if obj.type in _NORMAL:
            return not obj.cpuset
        return not obj.nodeset

    def _connect_levels(self) -> list[list[_Obj]]:
        levels = [[self.root]]
        objs = list(self.root.children)
        while objs:
            top = next((o for o in objs if o.type != "PU"), objs[0])
            for o in objs:
                if not _same_type(top, o) and _has_same_type_below(o, top):
                    top = o
            taken: list[_Obj] = []
            rest: list[_Obj] = []
            for o in objs:
                if _same_type(top, o):
                    taken.append(o)
                    rest.extend(o.children)
                else:
                    rest.append(o)
            levels.append(taken)
            objs = rest
        return levels

    def _filter_keep_structure(self) -> None:
        levels = self.levels
        i = len(levels) - 1
        while i > 0:
            upper, lower = levels[i - 1], levels[i]
            type1, type2 = upper[0].type, lower[0].type
            # (libhwloc tests type1 for both dont_merge checks; so do we)
            locked_up = type1 == "Group" and any(o.dont_merge for o in upper)
            locked_low = type1 == "Group" and any(o.dont_merge for o in lower)
            replace_parent = type1 in _KEEP_STRUCTURE and not locked_up
            replace_child = type2 in _KEEP_STRUCTURE and not locked_low
            if replace_parent and replace_child:
                if _PRIORITY[type1] >= _PRIORITY[type2]:
                    replace_parent = False
                else:
                    replace_child = False
            if (replace_parent or replace_child) and _same_structure(upper, lower):
                for parent, child in zip(upper, lower, strict=True):
                    if replace_child:
                        parent.children = child.children
                        for grandchild in parent.children:
                            grandchild.parent = parent
                        for name in ("memory", "io", "misc"):
                            _move(child, parent, name, prepend=False)
                    else:
                        grand = parent.parent
                        if grand is None:
                            self.root = child
                        else:
                            siblings = grand.children
                            siblings[siblings.index(parent)] = child
                        child.parent = grand
                        for name in ("memory", "io", "misc"):
                            _move(parent, child, name, prepend=True)
                del levels[i - 1 if replace_parent else i]
            i -= 1

    def _list_special(self, obj: _Obj) -> None:
        if obj.type == "NUMANode":
            self.numa.append(obj)
        elif obj.type == "OSDev":
            self.osdevs.append(obj)
        for group in (obj.children, obj.memory, obj.io, obj.misc):
            for child in group:
                self._list_special(child)


def _complete(obj: _Obj | None) -> int | None:
    if obj is None:
        return None
    return obj.complete if obj.complete is not None else obj.cpuset


def _same_type(a: _Obj, b: _Obj) -> bool:
    return a.type == b.type and (a.type != "Group" or a.kind == b.kind)


def _has_same_type_below(root: _Obj, obj: _Obj) -> bool:
    stack = list(root.children)
    while stack:
        o = stack.pop()
        if _same_type(o, obj):
            return True
        stack.extend(o.children)
    return False


def _same_structure(upper: list[_Obj], lower: list[_Obj]) -> bool:
    """libhwloc's test that two levels pair up one parent to one only child."""
    if len(upper) != len(lower):
        return False
    check_memory = lower[0].type == "PU"
    for parent, child in zip(upper, lower, strict=True):
        if child.parent is not parent or len(parent.children) != 1:
            return False
        if check_memory and parent.memory:
            return False
    return True


def _move(src: _Obj, dst: _Obj, name: str, *, prepend: bool) -> None:
    moved = getattr(src, name)
    if not moved:
        return
    for o in moved:
        o.parent = dst
    setattr(dst, name, moved + getattr(dst, name) if prepend else getattr(dst, name) + moved)
    setattr(src, name, [])


# -- the reader -----------------------------------------------------------------------------------

#: hwloc type -> (vertex type and basename, allowlist word) for the plainly numbered objects.
_PLAIN = {
    "Group": "group",
    "NUMANode": "numanode",
    "Package": "socket",
    "Core": "core",
    "PU": "pu",
}


def _vertex_of(obj: _Obj, source: str, walk_error: str) -> tuple[Any, ...] | None:
    """``(type, basename, name, id, size, properties)`` of ``obj``'s vertex, or None."""
    otype, logical = obj.type, obj.logical
    if otype in _PLAIN:
        word = _PLAIN[otype]
        return (word, word, f"{word}{logical}", logical, 1, None)
    if otype in ("L1Cache", "L2Cache", "L3Cache"):
        word = f"{otype[:2]}cache"
        return ("cache", word, f"{word}{logical}", logical, obj.size // 1024, None)
    if otype == "Machine":
        host = obj.infos.get("HostName")
        if host is None:
            return None
        try:
            basename, hid = hostlist.split_hostname(host)
        except ValueError as err:
            raise ReaderError(
                f"{source}: {err}",
                reference_message=f"Error converting node id for {host}; {walk_error}",
            ) from err
        return ("node", basename, host, hid, 1, None)
    if otype != "OSDev":
        return None
    if obj.osdev_type == _OSDEV_COPROC or (
        obj.osdev_type == _OSDEV_GPU and obj.name.startswith("rsmi")
    ):
        m = _GPU_NAME.fullmatch(obj.name)
        gid = logical
        if m:
            gid = parse_digits(m.group(1) or m.group(2), _INT_MAX)
            if gid is None:  # std::stoi throws out_of_range
                raise ReaderError(
                    f"{source}: GPU {obj.name[:64]!r}: the id does not fit an int",
                    reference_message=walk_error,
                )
        return ("gpu", "gpu", f"gpu{gid}", gid, 1, None)
    if obj.osdev_type == _OSDEV_BLOCK and "Size" in obj.infos:
        size_kb = obj.infos["Size"]
        if not (size_kb.isascii() and size_kb.isdigit()):
            raise ReaderError(
                f"{source}: block device {obj.name!r} has a non-integer Size {size_kb[:64]!r}",
                reference_message=walk_error,
            )
        size = parse_digits(size_kb, _UINT64_MAX)
        if size is None:
            raise ReaderError(
                f"{source}: block device {obj.name!r} has a Size beyond 64 bits",
                reference_message=walk_error,
            )
        props = {"LinuxDeviceID": obj.infos.get("LinuxDeviceID", "-1")}
        return (
            "storage",
            "storage",
            f"storage{logical}",
            logical,
            size // 1_000_000,
            props,
        )
    return None


def _allowed(vtype: str, basename: str, allowlist: frozenset[str] | None) -> bool:
    word = basename if vtype == "cache" else vtype
    return not allowlist or word in allowlist


def unpack(
    graph: ResourceGraph,
    text: str,
    *,
    source: str = "<string>",
    rank: int = -1,
    allowlist: frozenset[str] | None = None,
) -> None:
    """Add the resources of the hwloc XML ``text`` to ``graph``.

    ``allowlist`` (resource types; ``L1cache``/``L2cache``/``L3cache`` for caches) limits the
    vertices created; ``None`` or empty admits everything. ``cluster0`` is always created.
    ``node`` vertices get rank ``rank``, or 0, 1, ... in walk order when ``rank`` is -1.

    Runtime complexity: O(objects x levels) for the level merging, O(objects) otherwise.

    Raises
    ------
    ReaderError
        If the text is not a readable hwloc topology (``Error hwloc load: rank <rank>; ``) or
        an object cannot become a vertex; ``graph`` is then unchanged.

    Examples
    --------
    >>> xml = (
    ...     '<topology><object type="Machine" cpuset="0x3" complete_cpuset="0x3">'
    ...     '<info name="HostName" value="fluke7"/>'
    ...     '<object type="Core" cpuset="0x3" complete_cpuset="0x3">'
    ...     '<object type="PU" cpuset="0x1" complete_cpuset="0x1"/>'
    ...     '<object type="PU" cpuset="0x2" complete_cpuset="0x2"/>'
    ...     "</object></object></topology>"
    ... )
    >>> g = ResourceGraph()
    >>> unpack(g, xml)
    >>> g.names, g.paths[3]["containment"]
    (['cluster0', 'fluke7', 'core0', 'pu0', 'pu1'], '/cluster0/fluke7/core0/pu0')
    >>> g = ResourceGraph()
    >>> unpack(g, xml, allowlist=frozenset({"cluster", "node", "pu"}))
    >>> g.names, g.children("containment")[1]
    (['cluster0', 'fluke7', 'pu0', 'pu1'], [2, 3])
    """
    load_error = f"Error hwloc load: rank {rank}; "
    walk_error = f"Error hwloc walk: rank {rank}; "
    try:
        root_el = parse_xml(_DOCTYPE.sub("", text, count=1), source)
    except ReaderError as err:
        raise ReaderError(str(err), reference_message=load_error) from err
    try:
        topology = _Import(root_el)
    except (ValueError, RecursionError) as err:
        raise ReaderError(f"{source}: {err}", reference_message=load_error) from err

    # Plan every vertex first: (parent plan index or -1 for cluster0, fields, path).
    plan: list[tuple[int, tuple[Any, ...], int, str]] = []
    next_rank = 0
    stack: list[tuple[_Obj, int, str, int]] = [(topology.root, -1, _CLUSTER_PATH, 1)]
    while stack:
        obj, parent_at, parent_path, depth = stack.pop()
        fields = _vertex_of(obj, source, walk_error)
        if fields is not None and _allowed(fields[0], fields[1], allowlist):
            depth += 1
            if depth > MAX_GRAPH_DEPTH:
                raise ReaderError(
                    f"{source}: the topology is deeper than {MAX_GRAPH_DEPTH} levels",
                    reference_message=walk_error,
                )
            vrank = -1
            if fields[0] == "node":
                vrank = rank if rank != -1 else next_rank
                next_rank += 1
            parent_path = f"{parent_path}/{fields[2]}"
            plan.append((parent_at, fields, vrank, parent_path))
            parent_at = len(plan) - 1
        below = obj.children + obj.memory + obj.io + obj.misc
        stack.extend((child, parent_at, parent_path, depth) for child in reversed(below))

    add_vertex, add_edge = graph.add_vertex, graph.add_edge
    cluster = add_vertex("cluster", "cluster", 0, paths={CONTAINMENT: _CLUSTER_PATH})
    if CONTAINMENT not in graph.roots:
        graph.set_root(CONTAINMENT, cluster)
    created: list[int] = []
    for parent_at, (vtype, basename, name, vid, size, props), vrank, path in plan:
        v = add_vertex(
            vtype,
            basename,
            vid,
            name=name,
            rank=vrank,
            size=size,
            properties=props,
            paths={CONTAINMENT: path},
        )
        created.append(v)
        add_edge(cluster if parent_at < 0 else created[parent_at], v, CONTAINMENT)
