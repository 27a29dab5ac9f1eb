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

``slack`` S (seconds) is the start-time budget of spec §4.3 step 2: with ``T_any`` the earliest
start at which any ``n`` nodes fit (where ``variation`` would start the job) and ``T_W`` the
earliest start inside window ``W``, the job takes the narrowest width ``w`` with some
``T_W <= T_any + S``, at the earliest such ``T_W`` (ties: the key of ``tie``):

* ``0`` (``classpack``): never later than ``variation``: at ``T_any``, the narrowest window then.
* ``S > 0`` (``classpack:slack=S``): at ``T_any`` the policy looks ahead over the nodes'
  planners (a node is free over ``[t, t + d)`` when no job holds it or anything in it then, the
  exact pre-filter §4.3 allows for whole-node jobs) and rejects the earlier starts until the
  chosen window's ``T_W``. It needs the traverser's ``match_window`` call (the job's window).
* ``inf`` (``classpack-strict``): the earliest start at which a window of the narrowest width
  that the whole machine allows (0 when some class has ``n`` nodes) fits, however late.

Names (:func:`fluxgraph.policies.create_policy`): ``classpack``, ``classpack-strict``, and
``classpack:slack=S[,tie=bestfit|fastest]`` with ``S`` a number of seconds or ``inf``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

from fluxgraph.errors import MatchError
from fluxgraph.graph import STATUS_UP
from fluxgraph.policies.ids import choose_top
from fluxgraph.policies.introsort import sort_by_score
from fluxgraph.policies.scoring import EGroup, ScoringObject
from fluxgraph.policies.variation import VariationAware, perf_class

__all__ = ["ClassPacking", "narrowest_windows"]

_TIES = ("bestfit", "fastest")
#: :meth:`ClassPacking._budgeted`'s answer before the planned start: reject this start time.
_LATER = (1, 0)


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
    slack : the start-time budget S in seconds, ``>= 0`` or ``math.inf`` (module docstring).
    tie : ``"bestfit"`` (fewest free nodes in the window) or ``"fastest"`` (lowest class).

    Raises
    ------
    MatchError
        For a negative or non-numeric slack or another tie.

    Examples
    --------
    >>> ClassPacking(), ClassPacking(slack=1800), ClassPacking(slack=math.inf, tie="fastest")
    (ClassPacking(slack=0, tie='bestfit'), ClassPacking(slack=1800, tie='bestfit'), \
ClassPacking(slack=inf, tie='fastest'))
    """

    slack: float = 0
    tie: str = "bestfit"
    #: The match being walked (the traverser's ``match_window``) and its plan: ``[meta,
    #: plan]``, plan None until the job first fits, then ``(start, lo, hi)`` or ``()``.
    _match: list = field(
        default_factory=lambda: [None, None], init=False, repr=False, compare=False
    )

    #: Explore every child (no dynamic early stop).
    stop_on_k: ClassVar[int] = 0
    #: No resource type is taken whole.
    exclusive_types: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.slack, int | float) or not self.slack >= 0:
            raise MatchError(f"classpack: slack must be a number of seconds >= 0 or inf, "
                             f"got {self.slack!r}")  # fmt: skip
        if self.tie not in _TIES:
            raise MatchError(f"classpack: tie must be one of {', '.join(_TIES)}, got {self.tie!r}")

    def match_window(self, meta: Any) -> None:
        """The traverser's call before each select of a match (``meta``: the job's ``at``,
        ``duration``, ``constraint``); a new ``meta`` object is a new match."""
        state = self._match
        if state[0] is not meta:
            state[0], state[1] = meta, None

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
        if 0 < self.slack < math.inf:
            chosen = self._budgeted(graph, counts, n, width)
            if chosen is _LATER:
                return None
            if chosen is not None:
                return chosen
        elif width > 0 and self.slack == math.inf:
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

    def _budgeted(self, graph, counts: dict[int, int], n: int, width: int):
        """Spec §4.3 step 2 for a finite budget: ``(lo, hi)`` at the planned start,
        :data:`_LATER` before it, None for the narrowest window now (none narrower in budget)."""
        meta, plan = self._match
        if meta is None:
            raise MatchError("classpack: a finite slack needs the traverser's match_window call")
        if plan is None:  # the job fits for the first time: meta.at is T_any
            found = None
            if width > 0:
                found = _look_ahead(graph, meta, n, width, meta.at + self.slack, self.tie)
            plan = self._match[1] = found or ()
        if not plan:
            return None
        start, lo, hi = plan
        if meta.at < start:
            return _LATER
        if meta.at == start and sum(c for p, c in counts.items() if lo <= p <= hi) >= n:
            return lo, hi
        return None

    def __repr__(self) -> str:
        slack = "inf" if self.slack == math.inf else f"{self.slack:g}"
        return f"ClassPacking(slack={slack}, tie={self.tie!r})"


def _look_ahead(
    graph, meta: Any, n: int, width: int, until: float, tie: str
) -> tuple[int, int, int] | None:
    """The narrowest window narrower than ``width`` whose earliest start ``T_W`` is at most
    ``until``: ``(T_W, lo, hi)``, the earliest start then the ``tie`` key deciding among those
    of one width; None when there is none.

    A node counts in its class when it is up, meets the job's constraint and neither its planner
    nor its exclusivity checker holds a span over ``[t, t + d)``. Candidate starts are
    ``meta.at`` and the ends of spans up to ``until``: a window's earliest start is among them.
    """
    t0, d = meta.at, meta.duration
    schedule, constraint = graph.schedule, meta.constraint
    always: dict[int, int] = {}
    busy: list[tuple[int, list[tuple[int, int]]]] = []
    ends: set[int] = set()
    for v in graph.by_type.get("node", ()):
        if graph.status[v] != STATUS_UP or (
            constraint is not None and not constraint.matches(graph.vertex(v))
        ):
            continue
        p = perf_class(graph.properties[v])
        spans = []
        for plan in (schedule.plans[v], schedule.x_checkers[v]):
            if plan is None:
                continue
            for i in plan.span_ids():
                s = plan.span_start_time(i)
                e = s + plan.span_duration(i)
                if s < until + d and e > t0:
                    spans.append((s, e))
                    if e <= until:
                        ends.add(e)
        if spans:
            busy.append((p, spans))
        else:
            always[p] = always.get(p, 0) + 1
    times = sorted(ends | {t0})
    free = []
    for t in times:
        count = dict(always)
        for p, spans in busy:
            if all(e <= t or s >= t + d for s, e in spans):
                count[p] = count.get(p, 0) + 1
        free.append(count)
    classes = sorted({p for count in free for p in count})
    for w in range(width):
        best = None
        for a in classes:
            for t, count in zip(times, free, strict=True):
                units = sum(c for p, c in count.items() if a <= p <= a + w)
                if units >= n:
                    key = (t, units, a) if tie == "bestfit" else (t, a)
                    if best is None or key < best[0]:
                        best = (key, t, a)
                    break
        if best is not None:
            return best[1], best[2], best[2] + w
    return None


def _window_first(groups: list, window: tuple[int, int]) -> None:
    """The window's candidates first, lowest score first (``std::sort``), then the others."""
    lo, hi = window
    inside = [g for g in groups if lo <= g.score - 1 <= hi]
    sort_by_score(inside, False)
    groups[:] = inside + [g for g in groups if not lo <= g.score - 1 <= hi]
