"""The ``rlite`` match writer: the selection as an R_lite array (ranks grouped by shape)."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Any

from fluxgraph.errors import MatchError
from fluxgraph.hostlist import encode as encode_hostlist
from fluxgraph.idset import encode as encode_idset
from fluxgraph.writers._json import dumps
from fluxgraph.writers.sink import MatchWriter

if TYPE_CHECKING:
    pass

__all__ = ["RliteWriter"]

#: Types whose ids are reduced into a node's ``children`` (resource-type intern order).
_REDUCED = ("core", "gpu")
#: Types that close a group of reduced children.
_GATHERERS = ("node", "storage_node")


def _idset_text(ids: list[int]) -> str:
    """The idset of ``ids`` for a group key; negative ids (which fail at emit) kept verbatim."""
    try:
        return encode_idset(ids)
    except ValueError:
        return ",".join(map(str, ids))


class RliteWriter(MatchWriter):
    """``rlite``: one ``{"rank", "children"}`` entry per distinct node shape.

    Core and gpu ids are collected until a node (or storage_node) vertex arrives; the node then
    joins the group keyed by the JSON text of its children (``{"core": "0-35", "gpu": "0-1"}``).
    A node with no collected cores or gpus is dropped. ``emit()`` prints the groups ordered by
    that text; it fails with ``EINVAL`` when nothing was gathered or an id or rank is negative
    (nothing is cleared then). Edges, needs and exclusivity are ignored.

    Examples
    --------
    >>> from fluxgraph.graph import ResourceGraph
    >>> g = ResourceGraph()
    >>> cores = [g.add_vertex("core", "core", i) for i in range(3)]
    >>> n = g.add_vertex("node", "node", 0, rank=0)
    >>> w = RliteWriter()
    >>> for c in cores:
    ...     w.emit_vtx(g, c, 3, 1, True, False)
    >>> w.emit_vtx(g, n, 2, 1, False, False)
    >>> w.emit()
    '[{"rank": "0", "children": {"core": "0-2"}}]\\n'
    """

    name = "rlite"

    def __init__(self) -> None:
        self._reducers: dict[str, list[int]] = {t: [] for t in _REDUCED}
        self._groups: dict[str, list[tuple[int, str]]] = {}
        self._children: dict[str, dict[str, list[int]]] = {}
        self._props: dict[str, list[int]] = {}

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        """Reduce a core/gpu id, or gather a node with the ids reduced so far."""
        vtype = graph.types[v]
        reducer = self._reducers.get(vtype)
        if reducer is not None:
            reducer.append(graph.ids[v])
            return
        if vtype not in _GATHERERS or not any(self._reducers.values()):
            return
        children: dict[str, list[int]] = {}
        for t, ids in self._reducers.items():
            if ids:
                children[t] = sorted(set(ids))
                ids.clear()
        key = dumps({t: _idset_text(ids) for t, ids in children.items()})
        rank = graph.ranks[v]
        self._children[key] = children
        self._groups.setdefault(key, []).append((rank, graph.names[v]))
        for k, val in graph.properties[v].items():
            self._props.setdefault(k if val == "" else f"{k}={val}", []).append(rank)

    @property
    def empty(self) -> bool:
        """Whether no node has been gathered since the last successful emit."""
        return not self._groups

    def build(self) -> tuple[list[dict[str, Any]], list[str], dict[str, str] | None]:
        """The pending R_lite array, nodelist and properties, without clearing anything.

        Raises
        ------
        MatchError
            ``EINVAL`` when nothing was gathered or an id or rank is negative.
        """
        if not self._groups:
            raise MatchError("rlite writer: no node with cores or gpus was emitted", errno.EINVAL)
        rlite: list[dict[str, Any]] = []
        hosts: list[tuple[int, str]] = []
        try:
            for key in sorted(self._groups, key=lambda text: text.encode()):
                members = self._groups[key]
                children = {t: encode_idset(ids) for t, ids in self._children[key].items()}
                ranks = [rank for rank, _ in members]
                rlite.append({"rank": encode_idset(ranks), "children": children})
                hosts.extend(members)
            hosts.sort(key=lambda member: member[0])
            nodelist = [encode_hostlist([host for _, host in hosts])]
            props = None
            if self._props:
                props = {k: encode_idset(r) for k, r in sorted(self._props.items())}
        except ValueError as err:
            raise MatchError(f"rlite writer: {err}", errno.EINVAL) from err
        return rlite, nodelist, props

    def clear(self) -> None:
        """Forget the gathered groups and properties (pending core/gpu ids stay)."""
        self._groups.clear()
        self._children.clear()
        self._props.clear()

    def emit_json(self) -> list[dict[str, Any]]:
        """The R_lite array; clears the groups. Raises like :meth:`build`."""
        rlite = self.build()[0]
        self.clear()
        return rlite

    def emit(self) -> str:
        """The R_lite array as one JSON line; clears the groups. Raises like :meth:`build`."""
        return dumps(self.emit_json()) + "\n"
