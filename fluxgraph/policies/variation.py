"""The variation-aware policy (``variation``): fill jobs from the best performance class first.

Nodes carry a ``perf_class`` property (1 = most efficient). Every vertex scores
``1 + perf_class`` (9999 when the property is missing or invalid), and candidates are chosen
lowest score first, so a job takes nodes of the best class still free and spans as few classes
as it can: the rank-to-rank variation mitigation of the Fluxion paper's case study
(matching-semantics §8.4). Slot members alone are ordered highest score first, as in the
reference.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from fluxgraph.policies.ids import choose_children, choose_top
from fluxgraph.policies.introsort import sort_by_score
from fluxgraph.policies.scoring import ScoringObject

__all__ = ["PERF_CLASS_DEFAULT", "VariationAware", "perf_class"]

#: The class of a vertex without a usable ``perf_class``: after every real class.
PERF_CLASS_DEFAULT = 9999

#: ``std::stoi``'s accepted prefix: C-locale blanks, an optional sign, decimal digits.
_STOI_PREFIX = re.compile(r"[ \t\n\v\f\r]*([+-]?)0*([0-9]+)", re.ASCII)


def perf_class(properties: dict[str, str]) -> int:
    """A vertex's performance class, read from ``properties["perf_class"]`` like ``std::stoi``.

    Leading blanks, a sign and trailing garbage are accepted as ``stoi`` accepts them (``"3x"``
    is 3). A missing key, a value without a leading integer, or an integer outside
    ``0..9999`` gives :data:`PERF_CLASS_DEFAULT`.

    Examples
    --------
    >>> [perf_class({"perf_class": v}) for v in ("3", " +2x", "-0", "random", "-6666", "8888888")]
    [3, 2, 0, 9999, 9999, 9999]
    >>> perf_class({})
    9999
    """
    text = properties.get("perf_class")
    if text is None:
        return PERF_CLASS_DEFAULT
    return _parse_class(text)


@functools.lru_cache(maxsize=4096)
def _parse_class(text: str) -> int:
    """:func:`perf_class` of a present value (a pure function of the text: cached)."""
    m = _STOI_PREFIX.match(text)
    if m is None:
        return PERF_CLASS_DEFAULT
    sign, digits = m.groups()
    if len(digits) > 4:  # leading zeros are stripped: five digits exceed 9999 (or int range)
        return PERF_CLASS_DEFAULT
    value = int(digits)
    if sign == "-" and value != 0:
        return PERF_CLASS_DEFAULT
    return value


@dataclass(frozen=True, slots=True)
class VariationAware:
    """Prefer vertices of the lowest ``perf_class``; ties keep ``std::sort`` order.

    The reference's ``var_aware_t``. It has no options and keeps no state between matches.

    Examples
    --------
    >>> VariationAware()
    VariationAware()
    """

    #: Explore every child (no dynamic early stop).
    stop_on_k: ClassVar[int] = 0
    #: No resource type is taken whole.
    exclusive_types: ClassVar[tuple[str, ...]] = ()
    #: The visit hooks keep no state between vertices: a recorded visit may be replayed.
    replay_visits: ClassVar[bool] = True
    #: A vertex's score is its own (:meth:`leaf_score`) and scores are compared only between
    #: vertices of one type: subtrees alike up to a shift of each type's scores are visited
    #: alike (a recorded visit is shared, ``traverser.replay``).
    replay_shared: ClassVar[bool] = True

    def candidate_score(self, graph, u: int) -> int:
        """The score a top-level candidate that matches gets (:meth:`dom_finish_vtx`), known
        before the walk: the traverser's shortcut orders candidates by it."""
        return 1 + perf_class(graph.properties[u])

    def order_candidates(self, graph, rtype: str, groups: list, k: int) -> bool:
        """Order the top-level candidates ``groups`` of one request for ``k`` units as
        :meth:`dom_finish_graph` does (objects with ``score`` and ``count``); False where it
        rejects the start time."""
        sort_by_score(groups, False)  # lowest first, as choose_top(..., False) sorts
        return True

    def leaf_score(self, graph, u: int) -> int:
        """The score :meth:`dom_finish_vtx` gives a leaf that has nothing to choose (the
        traverser's fast leaf visit): its class score.

        >>> from fluxgraph.graph import ResourceGraph
        >>> g = ResourceGraph()
        >>> u = g.add_vertex("core", "core", 0, properties={"perf_class": "2"})
        >>> VariationAware().leaf_score(g, u)
        3
        """
        return 1 + perf_class(graph.properties[u])

    def dom_discover_vtx(self, graph, u: int) -> int:
        """Nothing to do before the children are visited."""
        return 0

    def dom_finish_vtx(self, graph, dom: str, u: int, requests: Any, dfu: ScoringObject) -> int:
        """Choose children lowest score first; score ``u`` as ``1 + perf_class`` (0 if short)."""
        met = choose_children(dom, graph.types[u], requests, dfu, False)
        dfu.overall_score = 1 + perf_class(graph.properties[u]) if met else 0
        return 0 if met else -1

    def dom_finish_slot(self, graph, dom: str, dfu: ScoringObject) -> int:
        """Order every member type of a slot highest score first (the reference's quirk 16)."""
        for sub, rtype in list(dfu.evals):
            if sub == dom:
                dfu.choose_accum_all(sub, rtype, True)
        return 0

    def dom_finish_graph(self, graph, dom: str, requests: Any, dfu: ScoringObject) -> int:
        """Choose each top-level request's units lowest score first."""
        return 0 if choose_top(dom, requests, dfu, False) else -1
