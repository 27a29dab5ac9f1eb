"""The ``rabbit`` match policy: chassis-aware choice of top-level groups (Fluxion paper §5.1).

Below the root it is ``low`` (id + 2, smaller first: lowest-id nodes, chunks and namespace
tokens inside a chassis). At the root it sorts the top-level candidate groups by an explicit
total key instead of the id score (rabbit spec §4.4), because with the id policies a slot
scores 1 + the id scores of its members and a job lands neither packed nor spread.

* node or slot groups (phase 1), ``compute="pack"``: ``(-k(ch), ch.id, creation order)``, where
  ``k(ch)`` is the number of groups chassis ``ch`` offers now: fewest chassis per job;
* ``compute="spread"``: ``(rank of the group within its chassis, -k(ch), ch.id)``: round robin;
* chassis groups (Lustre phases): ``chassis_key[ch] + (ch.id,)``, a context the placer sets
  before each such match (own-first, any, MGT placement), ``(ch.id,)`` without one.

>>> RabbitStorage("spread")
RabbitStorage(compute='spread')
"""

from __future__ import annotations

from typing import Any

from fluxgraph.errors import MatchError
from fluxgraph.policies.ids import IdOrder
from fluxgraph.policies.scoring import EGroup, ScoringObject

__all__ = ["COMPUTE_MODES", "RabbitStorage", "group_chassis"]

#: Phase-1 orders of the policy.
COMPUTE_MODES = ("pack", "spread")


def group_chassis(graph, group: EGroup) -> tuple[int, bool]:
    """The chassis vertex of a top-level group, and whether the group is that chassis itself.

    A slot's or node's group carries edges from its chassis; a chassis group the edge into it.
    """
    e = group.edges[0][3]
    v = graph.edge_dst[e]
    if graph.types[v] == "chassis":
        return v, True
    return graph.edge_src[e], False


class RabbitStorage:
    """``low`` below the root, chassis-aware keys at the root (see the module docstring).

    Parameters
    ----------
    compute : ``"pack"`` or ``"spread"``, the order of node / slot groups.

    Attributes
    ----------
    chassis_key : chassis vertex -> key prefix for chassis groups; set by the placer per match.
    """

    __slots__ = ("_below", "chassis_key", "compute")

    stop_on_k = 0
    exclusive_types: tuple[str, ...] = ()

    def __init__(self, compute: str = "pack") -> None:
        if compute not in COMPUTE_MODES:
            raise MatchError(f"rabbit policy: compute must be one of {COMPUTE_MODES}: {compute!r}")
        self.compute = compute
        self._below = IdOrder(prefer_high=False)
        self.chassis_key: dict[int, tuple] = {}

    def __repr__(self) -> str:
        return f"RabbitStorage(compute={self.compute!r})"

    def dom_discover_vtx(self, graph, u: int) -> int:
        """As ``low``."""
        return self._below.dom_discover_vtx(graph, u)

    def dom_finish_vtx(self, graph, dom: str, u: int, requests: Any, dfu: ScoringObject) -> int:
        """As ``low``: lowest ids first, score ``id + 2``."""
        return self._below.dom_finish_vtx(graph, dom, u, requests, dfu)

    def dom_finish_slot(self, graph, dom: str, dfu: ScoringObject) -> int:
        """As ``low``: slot members lowest ids first."""
        return self._below.dom_finish_slot(graph, dom, dfu)

    def dom_finish_graph(self, graph, dom: str, requests: Any, dfu: ScoringObject) -> int:
        """Choose each top-level request's groups in the order of :meth:`sorter`."""
        for r in requests:
            k = r.calc_count(dfu.qualified_count(dom, r.type))
            if k == 0:
                return -1
            sort = self.sorter(graph)
            if dfu.choose_accum_best_k(dom, r.type, k, False, sort) < 0:
                return -1
        return 0

    def sorter(self, graph):
        """An in-place sort of a top-level group vector by the keys of the module docstring."""

        def sort(groups: list[EGroup]) -> None:
            sites = [group_chassis(graph, g) for g in groups]
            ids = graph.ids
            if sites[0][1]:
                key = self.chassis_key
                keys = [
                    (g.score <= 0, *key.get(ch, ()), ids[ch], i)
                    for i, (g, (ch, _)) in enumerate(zip(groups, sites, strict=True))
                ]
            else:
                offered: dict[int, int] = {}
                rank = []
                for g, (ch, _) in zip(groups, sites, strict=True):
                    rank.append(offered.get(ch, 0))
                    if g.score > 0:
                        offered[ch] = offered.get(ch, 0) + g.count
                pack = self.compute == "pack"
                keys = [
                    (g.score <= 0, -offered.get(ch, 0), ids[ch], i)
                    if pack
                    else (g.score <= 0, rank[i], -offered.get(ch, 0), ids[ch], i)
                    for i, (g, (ch, _)) in enumerate(zip(groups, sites, strict=True))
                ]
            order = sorted(range(len(groups)), key=keys.__getitem__)
            groups[:] = [groups[i] for i in order]

        return sort
