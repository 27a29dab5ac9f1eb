"""The multilevel-id policy family: ``low``, ``high``, ``*node*``, ``*nodex``, ``first*``.

Every vertex scores ``id + 2`` plus, for node-centric variants, a factor of each open ancestor
node (matching-semantics §8.1); candidates are chosen by ascending (``low``) or descending
(``high``) score.
"""

from __future__ import annotations

from typing import Any

from fluxgraph.policies.scoring import ScoringObject

__all__ = ["IdOrder", "choose_children", "choose_top"]

#: Node score factor of the node-centric policies: ``add_by``, ``multiply_by``.
NODE_FACTOR = (1, 10000)


class IdOrder:
    """Prefer lower (or higher) vertex ids at every level.

    Parameters
    ----------
    prefer_high : choose higher scores first (``high``, ``hinode``, ``first``).
    node_centric : add the ancestor-node score factor (``*node*``, ``first*``).
    node_exclusive : take whole nodes (``*nodex``).
    stop_on_k : stop a level's exploration after ``k`` matches (1 for ``first*``).

    Examples
    --------
    >>> IdOrder(prefer_high=True, node_centric=True, stop_on_k=1)
    IdOrder(policy=high, node_centric=True, node_exclusive=False, stop_on_k=1)
    """

    __slots__ = ("_last", "_running", "exclusive_types", "node_centric", "prefer_high", "stop_on_k")

    def __init__(
        self,
        prefer_high: bool = False,
        node_centric: bool = False,
        node_exclusive: bool = False,
        stop_on_k: int = 0,
    ) -> None:
        self.prefer_high = prefer_high
        self.node_centric = node_centric
        self.exclusive_types = ("node",) if node_exclusive else ()
        self.stop_on_k = stop_on_k
        self._running = 0
        self._last = 0

    def __repr__(self) -> str:
        return (
            f"IdOrder(policy={'high' if self.prefer_high else 'low'}, "
            f"node_centric={self.node_centric}, node_exclusive={bool(self.exclusive_types)}, "
            f"stop_on_k={self.stop_on_k})"
        )

    @property
    def replay_visits(self) -> bool:
        """Whether the visit hooks keep no state between vertices (no node factor, no learned
        order): the traverser may then replay a recorded visit (``traverser.replay``)."""
        return not self.node_centric and not self.stop_on_k

    @property
    def replay_shared(self) -> bool:
        """Whether a vertex's score is its own (:meth:`leaf_score`) and scores are compared only
        between vertices of one type: subtrees alike up to a shift of each type's ids are
        then visited alike (a recorded visit is shared, ``traverser.replay``)."""
        return self.replay_visits

    def dom_discover_vtx(self, graph, u: int) -> int:
        if self.node_centric and graph.types[u] == "node":
            vid = graph.ids[u]
            uniq = graph.uniq_ids[u]
            if vid < -1 or uniq < 0:
                return -1
            add_by, multiply_by = NODE_FACTOR
            f = (vid + 1 + add_by) * multiply_by + abs(uniq % multiply_by - 1)
            self._last = f
            self._running += f
        return 0

    def dom_finish_vtx(self, graph, dom: str, u: int, requests: Any, dfu: ScoringObject) -> int:
        met = choose_children(dom, graph.types[u], requests, dfu, self.prefer_high)
        if self.node_centric and graph.types[u] == "node":
            self._running -= self._last
        dfu.overall_score = (1 + self._running + graph.ids[u] + 1) if met else 0
        return 0 if met else -1

    def leaf_score(self, graph, u: int) -> int | None:
        """The score :meth:`dom_discover_vtx` and :meth:`dom_finish_vtx` give a leaf ``u``
        that has nothing to choose (the traverser's fast leaf visit); ``None`` for a node of a
        node-centric policy, whose visit changes the running factor.

        >>> from fluxgraph.graph import ResourceGraph
        >>> g = ResourceGraph()
        >>> u = g.add_vertex("core", "core", id=3)
        >>> IdOrder().leaf_score(g, u)
        5
        """
        if self.node_centric and graph.types[u] == "node":
            return None
        return 1 + self._running + graph.ids[u] + 1

    def dom_finish_slot(self, graph, dom: str, dfu: ScoringObject) -> int:
        for sub, rtype in list(dfu.evals):
            if sub == dom:
                dfu.choose_accum_all(sub, rtype, self.prefer_high)
        return 0

    def dom_finish_graph(self, graph, dom: str, requests: Any, dfu: ScoringObject) -> int:
        self._running = 0
        return 0 if choose_top(dom, requests, dfu, self.prefer_high) else -1


def choose_children(dom: str, utype: str, requests, dfu: ScoringObject, descending: bool) -> bool:
    """Choose, for the request ``u`` matched, the best units of each child type; False if short."""
    for r in requests:
        if r.type == utype:
            for c in r.with_:
                k = c.calc_count(dfu.qualified_count(dom, c.type))
                if k == 0:
                    return False
                dfu.choose_accum_best_k(dom, c.type, k, descending)
    return True


def choose_top(dom: str, requests, dfu: ScoringObject, descending: bool) -> bool:
    """Choose the best units of each top-level request at the root; False if short."""
    for r in requests:
        k = r.calc_count(dfu.qualified_count(dom, r.type))
        if k == 0:
            return False
        dfu.choose_accum_best_k(dom, r.type, k, descending)
    return True
