"""rv1exec reader: the ``execution`` section of an RV1 resource set -> resource graph.

Input: ``{"version": 1, "execution": {"R_lite": [...], "nodelist": [...], "properties": {...}}}``
(everything else ignored). The graph is ``cluster0`` (path ``/cluster0``, the containment root),
one ``node`` vertex per rank named after its host (``nodelist`` expanded and concatenated, the
n-th host belonging to the n-th smallest rank), and under each node its ``children`` vertices
(``core``, ``gpu``, ...), named ``type + id``, in R_lite order, ranks ascending, child types in
object order and ids ascending. Nodes carry the names of the ``properties`` whose rank idset holds
their rank, with empty values. ``uniq_id`` is the creation index. Formats ``rv1exec`` and
``rv1exec_force`` load identically.

The input is validated before the graph is touched. The reference reports most rv1exec errors
with an empty message; :class:`~fluxgraph.errors.ReaderError` carries that (or the reference's
text where it has one) as ``reference_message`` and a detailed ``str``.
"""

from __future__ import annotations

import json
from typing import Any

from fluxgraph import hostlist, idset, limits
from fluxgraph.errors import ReaderError
from fluxgraph.graph import CONTAINMENT, ResourceGraph
from fluxgraph.readers._unicode import unicode_problem

__all__ = ["CLUSTER_PATH", "from_rv1exec", "load_document", "loads", "read_document", "unpack"]

#: Containment path of the cluster vertex every rv1exec graph starts with.
CLUSTER_PATH = "/cluster0"


def _fail(source: str, problem: str, reference: str = "") -> ReaderError:
    return ReaderError(f"{source}: {problem}", reference_message=reference)


def _idset(text: Any, source: str, where: str) -> list[int]:
    if not isinstance(text, str):
        raise _fail(source, f"{where} must be an idset string, not {type(text).__name__}")
    try:
        return idset.decode(text)
    except ValueError as err:
        raise _fail(source, f"{where}: {err}") from err


_Entry = tuple[list[int], list[tuple[str, list[int]]]]  # (ranks, [(child type, ids)])


def _read(doc: Any, source: str) -> tuple[list[_Entry], list[str], dict[str, list[int]]]:
    """Validate ``doc``; return the R_lite entries, the host list and the property idsets."""
    if not isinstance(doc, dict):
        raise _fail(source, "an R document must be a JSON object")
    version = doc.get("version")
    if isinstance(version, bool) or version != 1 or not isinstance(version, int):
        raise _fail(source, f"'version' must be 1, not {version!r}")
    execution = doc.get("execution")
    if not isinstance(execution, dict):
        raise _fail(source, "'execution' must be an object")
    r_lite, nodelist = execution.get("R_lite"), execution.get("nodelist")
    if not isinstance(r_lite, list):
        raise _fail(source, "'execution.R_lite' must be an array")
    if not isinstance(nodelist, list):
        raise _fail(source, "'execution.nodelist' must be an array")
    entries: list[_Entry] = []
    for i, entry in enumerate(r_lite):
        where = f"R_lite[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("children"), dict):
            raise _fail(source, f"{where} must be an object with 'rank' and 'children'")
        ranks = _idset(entry.get("rank"), source, f"{where}.rank")
        children = [
            (ctype, _idset(ids, source, f"{where}.children.{ctype}"))
            for ctype, ids in entry["children"].items()
        ]
        entries.append((ranks, children))
    hosts: list[str] = []
    for i, text in enumerate(nodelist):
        if not isinstance(text, str):
            raise _fail(source, f"nodelist[{i}] must be a hostlist string")
        try:
            hosts.extend(hostlist.decode(text))
        except ValueError as err:
            raise _fail(source, f"nodelist[{i}]: {err}") from err
    properties = execution.get("properties", {})
    if not isinstance(properties, dict):
        raise _fail(source, "'execution.properties' must be an object")
    props = {
        name: _idset(ranks, source, f"properties.{name}") for name, ranks in properties.items()
    }
    return entries, hosts, props


def read_document(
    doc: Any, source: str = "<dict>"
) -> tuple[list[tuple[list[int], list[tuple[str, list[int]]]]], list[str], dict[str, list[int]]]:
    """Validate the parsed R document ``doc`` without building anything.

    Returns the R_lite entries as ``(ranks, [(child type, ids)])``, the expanded host list and
    the property idsets (name -> ranks).

    Raises
    ------
    ReaderError
        If ``doc`` is not a valid version-1 R document.

    Examples
    --------
    >>> read_document({"version": 1, "execution": {"R_lite": [
    ...     {"rank": "0-1", "children": {"core": "0-1"}}], "nodelist": ["n[0-1]"]}})
    ([([0, 1], [('core', [0, 1])])], ['n0', 'n1'], {})
    """
    return _read(doc, source)


def loads(text: str, source: str = "<string>") -> Any:
    """Parse the JSON text of an R document.

    Raises
    ------
    ReaderError
        If ``text`` is not JSON.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        bad = unicode_problem(text[: err.pos])
        if bad is not None:
            raise _fail(source, f"not JSON: {bad[0]} (offset {bad[1]})") from None
        raise _fail(source, f"not JSON: {err}") from err
    except (ValueError, RecursionError) as err:
        raise _fail(source, f"not JSON: {err}") from err
    bad = unicode_problem(text)
    if bad is not None:
        raise _fail(source, f"not JSON: {bad[0]} (offset {bad[1]})")
    return doc


def load_document(graph: ResourceGraph, doc: Any, source: str = "<dict>") -> None:
    """Add the resources of the parsed R document ``doc`` to ``graph``.

    Runtime complexity: O(V + size of the id sets).

    Raises
    ------
    ReaderError
        If ``doc`` is not a valid version-1 R document with enough hosts, or describes more than
        :data:`~fluxgraph.limits.MAX_GENERATED_VERTICES` vertices; ``graph`` is then unchanged.
    """
    entries, hosts, props = _read(doc, source)
    planned = sum(len(ranks) * (1 + sum(len(ids) for _, ids in kids)) for ranks, kids in entries)
    if planned > limits.MAX_GENERATED_VERTICES:
        raise _fail(
            source,
            f"the document describes {planned} vertices "
            f"(more than {limits.MAX_GENERATED_VERTICES})",
        )
    all_ranks = sorted({r for ranks, _ in entries for r in ranks})
    if len(hosts) < len(all_ranks):
        raise _fail(source, f"{len(all_ranks)} ranks but only {len(hosts)} hosts in nodelist")
    host_of = dict(zip(all_ranks, hosts, strict=False))
    rank_props: dict[int, dict[str, str]] = {}
    for name, ranks in props.items():
        for r in ranks:
            rank_props.setdefault(r, {})[name] = ""

    # Plan every vertex (parent index in the plan, fields) and detect duplicates first.
    plan: list[tuple[int, str, str, str, int, int, str]] = []
    seen: set[tuple[str, int]] = {
        (path, graph.ranks[v]) for path, vs in graph.by_path.items() for v in vs
    }
    for ranks, children in entries:
        for r in ranks:
            host = host_of[r]
            try:
                basename, hid = hostlist.split_hostname(host)
            except ValueError as err:
                raise _fail(
                    source, str(err), f"unpack_rank: error splitting hostname={host}; "
                ) from err
            node_path = f"{CLUSTER_PATH}/{host}"
            if (node_path, r) in seen:
                raise _fail(
                    source,
                    f"rank {r} (host {host!r}) is listed twice",
                    f"add_or_update: found duplicate vertex in graph for {host}.\n"
                    f"unpack_rank: failed unpacking rank for {host}.\n",
                )
            seen.add((node_path, r))
            node_at = len(plan)
            plan.append((-1, "node", basename, host, hid, r, node_path))
            for ctype, ids in children:
                for k in ids:
                    name = f"{ctype}{k}"
                    path = f"{node_path}/{name}"
                    if (path, r) in seen:
                        raise _fail(
                            source,
                            f"{name} of rank {r} is listed twice",
                            f"add_or_update: found duplicate vertex in graph for {name}.\n"
                            f"unpack_child: failed unpacking child for {name}.\n"
                            f"unpack_rank: failed unpacking rank for {host}.\n",
                        )
                    seen.add((path, r))
                    plan.append((node_at, ctype, ctype, name, k, r, path))

    add_vertex, add_edge = graph.add_vertex, graph.add_edge
    cluster = add_vertex("cluster", "cluster", 0, paths={CONTAINMENT: CLUSTER_PATH})
    if CONTAINMENT not in graph.roots:
        graph.set_root(CONTAINMENT, cluster)
    created: list[int] = []
    for parent_at, vtype, basename, name, vid, r, path in plan:
        v = add_vertex(
            vtype,
            basename,
            vid,
            name=name,
            rank=r,
            properties=rank_props.get(r) if parent_at < 0 else None,
            paths={CONTAINMENT: path},
        )
        created.append(v)
        add_edge(cluster if parent_at < 0 else created[parent_at], v, CONTAINMENT)


def unpack(
    graph: ResourceGraph,
    text: str,
    *,
    source: str = "<string>",
    rank: int = -1,
    allowlist: frozenset[str] | None = None,
) -> None:
    """Add the resources of the RV1 JSON text ``text`` to ``graph`` (``rank`` and ``allowlist``
    are ignored, as by the reference).

    Raises
    ------
    ReaderError
        If ``text`` is not JSON or not a valid R document; ``graph`` is then unchanged.

    Examples
    --------
    >>> g = ResourceGraph()
    >>> unpack(g, '{"version": 1, "execution": {"R_lite": [{"rank": "0-1", '
    ...   '"children": {"core": "0-1"}}], "nodelist": ["node[0-1]"]}}')
    >>> g.names
    ['cluster0', 'node0', 'core0', 'core1', 'node1', 'core0', 'core1']
    >>> g.paths[6]["containment"]
    '/cluster0/node1/core1'
    """
    load_document(graph, loads(text, source), source)


def from_rv1exec(doc: Any, *, source: str = "<dict>") -> ResourceGraph:
    """A new graph built from the parsed R document ``doc``.

    Examples
    --------
    >>> g = from_rv1exec({"version": 1, "execution": {"R_lite": [
    ...     {"rank": "7", "children": {"gpu": "1", "core": "0-1"}},
    ...     {"rank": "3", "children": {"core": "2"}}],
    ...     "nodelist": ["fluke", "x007"], "properties": {"zeta": "3", "alpha": "3,7"}}})
    >>> g.names
    ['cluster0', 'x007', 'gpu1', 'core0', 'core1', 'fluke', 'core2']
    >>> g.basenames[1], g.ids[1], g.ranks[1], g.properties[5]
    ('x', 7, 7, {'alpha': '', 'zeta': ''})
    """
    graph = ResourceGraph()
    load_document(graph, doc, source)
    return graph
