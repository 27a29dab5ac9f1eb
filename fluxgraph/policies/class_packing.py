"""Class packing (``classpack``): put a job's nodes into one performance class where it can.

The Fluxion paper's §5.2 wording of the variation-aware policy, "an application's ranks are
allocated either to the same performance class if possible; and if not, ... not spread across
a wide set of performance efficiency classes" (spec §4.3; the reference ``variation`` policy
instead takes the best free classes greedily). Below the root it is ``variation``. At the root,
among the free candidate nodes of the top-level ``node`` request, it looks for the narrowest
window ``W = {a, ..., a+w}`` of consecutive classes holding ``n`` candidates and takes the job's
nodes from ``W`` in ``variation`` order (as ``variation`` under a ``pc<p>`` constraint would).
Among windows of that width, ``tie="bestfit"`` takes the one with the fewest free nodes
(then the lowest ``a``), ``tie="fastest"`` the lowest ``a``.

``slack`` decides when (spec §4.3, ``T_W`` the earliest start inside ``W``):

* ``0``: never later than ``variation`` would start the job: at its earliest start, the
  narrowest window that fits then.
* ``inf`` (``classpack-strict``): the earliest start at which a window of the narrowest width
  that the whole machine allows (0 when some class has ``n`` nodes) fits, however late.

The traverser tries start times in increasing order and calls :meth:`dom_finish_graph` at each,
so both are one walk per tried time; an intermediate slack would need the start of a second
probe and is not offered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from fluxgraph.errors import MatchError
from fluxgraph.policies.ids import choose_top
from fluxgraph.policies.introsort import sort_by_score
from fluxgraph.policies.scoring import EGroup, ScoringObject
from fluxgraph.policies.variation import VariationAware, perf_class

__all__ = ["ClassPacking", "narrowest_windows"]

_TIES = ("bestfit", "fastest")


def narrowest_windows(counts: dict[int, int], n: int) -> tuple[int, list[tuple[int, int]]]:
    """The narrowest class windows holding ``n`` units: ``(width, [(start, units), ...])``.

    ``counts`` maps a class to its units. A window ``[a, a + width]`` of class values starts at
    a class that has units; ``units`` is what the window holds. ``(-1, [])`` when even all
    classes together hold fewer than ``n``.

    Runtime complexity: O(c) for c classes (two pointers over the sorted classes).

    Examples
    --------
    >>> narrowest_windows({1: 3, 2: 5, 4: 2, 5: 6}, 5)
    (0, [(2, 5), (5, 6)])
    >>> narrowest_windows({1: 3, 2: 1, 3: 2}, 4)
    (1, [(1, 4)])
    >>> narrowest_windows({1: 1}, 2)
    (-1, [])
    """
    classes = sorted(counts)
    best = -1
    found: list[tuple[int, int]] = []
    j, units = 0, 0
    for a in classes:
        while j < len(classes) and units < n:
            units += counts[classes[j]]
            j += 1
        if units < n:
            break
        width = classes[j - 1] - a
        if best < 0 or width < best:
            best, found = width, []
        if width == best:
            found.append((a, units))  # the window [a, a + width] is classes[i:j]
        units -= counts[a]
    return best, found


@dataclass(frozen=True, slots=True)
class ClassPacking(VariationAware):
    """``variation`` below the root; the job's nodes from one narrowest class window at it.

    Parameters
    ----------
    slack : 0 (default) or ``math.inf`` (see the module docstring).
    tie : ``"bestfit"`` (fewest free nodes in the window) or ``"fastest"`` (lowest class).

    Raises
    ------
    MatchError
        For another slack or tie.

    Examples
    --------
    >>> ClassPacking(), ClassPacking(slack=math.inf, tie="fastest")
    (ClassPacking(slack=0, tie='bestfit'), ClassPacking(slack=inf, tie='fastest'))
    """

    slack: float = 0
    tie: str = "bestfit"

    #: Explore every child (no dynamic early stop).
    stop_on_k: ClassVar[int] = 0
    #: No resource type is taken whole.
    exclusive_types: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        if self.slack not in (0, math.inf):
            raise MatchError(f"classpack: slack must be 0 or inf, got {self.slack!r}")
        if self.tie not in _TIES:
            raise MatchError(f"classpack: tie must be one of {', '.join(_TIES)}, got {self.tie!r}")

    def dom_finish_graph(self, graph, dom: str, requests: Any, dfu: ScoringObject) -> int:
        """Choose the top-level ``node`` units from one window; -1 to try a later start."""
        rest = []
        for r in requests:
            if r.type != "node":
                rest.append(r)
                continue
            n = r.calc_count(dfu.qualified_count(dom, "node"))
            if n == 0:
                return -1
            ev = dfu.evals[dom, "node"]
            window = self._window(graph, ev.groups, n)
            if window is None:
                return -1
            dfu.choose_accum_best_k(dom, "node", n, False, partial(_window_first, window=window))
        return 0 if choose_top(dom, rest, dfu, False) else -1

    def order_candidates(self, graph, rtype: str, groups: list, k: int) -> bool:
        """Order the top-level candidates ``groups`` of one request for ``k`` units as
        :meth:`dom_finish_graph` does; False where it rejects the start time."""
        if rtype != "node":
            return VariationAware.order_candidates(self, graph, rtype, groups, k)
        window = self._window(graph, groups, k)
        if window is None:
            return False
        _window_first(groups, window)
        return True

    def _window(self, graph, groups: list[EGroup], n: int) -> tuple[int, int] | None:
        """The chosen class window ``(lo, hi)`` among the candidates, None to reject."""
        counts: dict[int, int] = {}
        for g in groups:  # a qualified node scores 1 + perf_class (VariationAware)
            counts[g.score - 1] = counts.get(g.score - 1, 0) + g.count
        width, windows = narrowest_windows(counts, n)
        if width < 0:
            return None
        if width > 0 and self.slack == math.inf:
            machine: dict[int, int] = {}
            for v in graph.by_type.get("node", ()):
                p = perf_class(graph.properties[v])
                machine[p] = machine.get(p, 0) + 1
            if width > narrowest_windows(machine, n)[0]:
                return None
        # bestfit: fewest free nodes, then the lowest class; fastest: the lowest class
        key = (lambda w: (w[1], w[0])) if self.tie == "bestfit" else (lambda w: w[0])
        a = min(windows, key=key)[0]
        return a, a + width

    def __repr__(self) -> str:
        slack = "inf" if self.slack == math.inf else f"{self.slack:g}"
        return f"ClassPacking(slack={slack}, tie={self.tie!r})"


def _window_first(groups: list, window: tuple[int, int]) -> None:
    """The window's candidates first, lowest score first (``std::sort``), then the others."""
    lo, hi = window
    inside = [g for g in groups if lo <= g.score - 1 <= hi]
    sort_by_score(inside, False)
    groups[:] = inside + [g for g in groups if not lo <= g.score - 1 <= hi]
