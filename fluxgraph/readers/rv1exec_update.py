"""rv1exec selections: an R document read back against an rv1exec-built graph.

``update … rv1exec …`` re-creates an allocation from R (§4.3 of the reference's I/O
specification). The document is walked as the loader walks it, but every vertex is *found*
(containment path ``/cluster0/<host>[/<child>]``, rank, id, size 1 and type) instead of created:

* every listed child (``core``, ``gpu``, ...) is planned exclusively over the window;
* a node is planned only when every vertex of its rank is listed;
* the in-edge of every listed vertex is marked exclusive with ``needs`` = the target's size, and
  the virtual edge into the containment root is marked shared with the root's size.

``partial-cancel … rv1exec …`` only needs the ranks of the R_lite entries (:func:`read_ranks`).
Nothing here changes the graph; :mod:`fluxgraph.traverser.elastic` applies the result.
"""

from __future__ import annotations

from fluxgraph import hostlist
from fluxgraph.errors import PlannerError, ReaderError
from fluxgraph.graph import CONTAINMENT, ResourceGraph
from fluxgraph.readers.jgf_update import Selection
from fluxgraph.readers.rv1exec import CLUSTER_PATH, loads, read_document

__all__ = ["read_ranks", "read_update"]


def _fail(source: str, problem: str, reference: str = "") -> ReaderError:
    return ReaderError(f"{source}: {problem}", reference_message=reference)


def _parse(text: str | dict, source: str):
    return read_document(loads(text, source) if isinstance(text, str) else text, source)


def read_ranks(text: str | dict, *, source: str = "<string>") -> list[int]:
    """The ranks of the R_lite entries of the R document ``text``, ascending, without repeats.

    Raises
    ------
    ReaderError
        If ``text`` is not a valid version-1 R document.

    Examples
    --------
    >>> read_ranks('{"version": 1, "execution": {"R_lite": [{"rank": "3,1", "children": {}},'
    ...            ' {"rank": "1-2", "children": {}}], "nodelist": []}}')
    [1, 2, 3]
    """
    entries, _hosts, _props = _parse(text, source)
    return sorted({r for ranks, _ in entries for r in ranks})


def _lookup(g: ResourceGraph, path: str, rank: int, vtype: str, vid: int) -> int | None:
    for v in g.by_path.get(path, ()):
        if g.ranks[v] == rank and g.types[v] == vtype and g.ids[v] == vid and g.sizes[v] == 1:
            return v
    return None


def read_update(
    graph: ResourceGraph,
    text: str | dict,
    at: int,
    duration: int,
    *,
    source: str = "<string>",
) -> Selection:
    """The vertices, planner spans and edge marks that re-create the allocation R ``text``.

    Raises
    ------
    ReaderError
        If the document is invalid, names a vertex the graph does not have (``add_or_update:
        couldn't find vertex ...``), or a vertex cannot take the job over the window.

    Examples
    --------
    >>> from fluxgraph.readers.rv1exec import from_rv1exec
    >>> r = {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-1"}}],
    ...      "nodelist": ["n0"]}}
    >>> sel = read_update(from_rv1exec(r), r, 0, 60)
    >>> sel.spans, sel.roots
    ([(2, 1), (3, 1), (1, 1)], {'containment': (1, False)})
    >>> sel.edges
    [(0, 1, True), (1, 1, True), (2, 1, True)]
    """
    if at < 0 or duration <= 0:
        raise _fail(
            source,
            f"invalid time window ({at}, {duration})",
            f"update: invalid time ({at}, {duration}).\n",
        )
    entries, hosts, _props = _parse(text, source)
    all_ranks = sorted({r for ranks, _ in entries for r in ranks})
    if len(hosts) < len(all_ranks):
        raise _fail(source, f"{len(all_ranks)} ranks but only {len(hosts)} hosts in nodelist")
    host_of = dict(zip(all_ranks, hosts, strict=False))
    g = graph
    sel = Selection()
    listed: dict[int, int] = {}
    nodes: list[tuple[int, int]] = []
    planned: set[int] = set()
    for ranks, children in entries:
        for r in ranks:
            host = host_of[r]
            rank_error = f"unpack_rank: failed unpacking rank for {host}.\n"
            try:
                _basename, hid = hostlist.split_hostname(host)
            except ValueError as err:
                raise _fail(
                    source, str(err), f"unpack_rank: error splitting hostname={host}; "
                ) from err
            node_path = f"{CLUSTER_PATH}/{host}"
            node = _lookup(g, node_path, r, "node", hid)
            if node is None:
                raise _fail(
                    source,
                    f"no node {host!r} of rank {r} at {node_path!r}",
                    f"add_or_update: couldn't find vertex in graph for {host}.\n{rank_error}",
                )
            _mark_in_edge(g, node, sel)
            nodes.append((r, node))
            listed[r] = listed.get(r, 0) + 1
            for ctype, ids in children:
                for k in ids:
                    name = f"{ctype}{k}"
                    v = _lookup(g, f"{node_path}/{name}", r, ctype, k)
                    if v is None:
                        raise _fail(
                            source,
                            f"no {name!r} of rank {r} below {node_path!r}",
                            f"add_or_update: couldn't find vertex in graph for {name}.\n"
                            f"unpack_child: failed unpacking child for {name}.\n{rank_error}",
                        )
                    _plan(g, v, at, duration, sel, planned, source)
                    _mark_in_edge(g, v, sel)
                    listed[r] += 1
    for r, node in nodes:
        if listed[r] == len(g.by_rank.get(r, ())):
            _plan(g, node, at, duration, sel, planned, source)
    root = g.roots.get(CONTAINMENT)
    if root is not None:
        sel.roots[CONTAINMENT] = (g.sizes[root], False)
    return sel


def _mark_in_edge(g: ResourceGraph, v: int, sel: Selection) -> None:
    for e in g.in_edges[v]:
        if g.edge_subsystem[e] == CONTAINMENT:
            sel.edges.append((e, g.sizes[v], True))
            return


def _plan(
    g: ResourceGraph, v: int, at: int, duration: int, sel: Selection, planned: set[int], source: str
) -> None:
    plans = g.schedule.plans
    plan = plans[v] if v < len(plans) else None
    try:
        free = g.sizes[v] if plan is None else plan.avail_resources_during(at, duration)
    except PlannerError:
        free = -1
    if free < g.sizes[v] or v in planned:
        raise _fail(
            source,
            f"vertex {g.names[v]!r} cannot take {g.sizes[v]} units",
            f"update_vtx_plan: can't add span into {g.names[v]}.\n",
        )
    planned.add(v)
    sel.spans.append((v, g.sizes[v]))
