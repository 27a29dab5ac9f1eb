"""The locality-aware policy (``locality``): keep a job's top-level units in one id run.

Every vertex scores ``id + 2``; children and slot members are chosen highest score first. At
the root the top-level candidates are ordered by the *run of consecutive scores* they belong to,
highest run first (matching-semantics §8.3): the scores of every candidate are gathered into one
joined interval set, shared by all top-level requests of the job, and a candidate's sort key is
the lower bound of its interval. Candidates inside one run tie; the tie is resolved by the
reference's introsort (§9.1), not by graph order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from fluxgraph.policies.ids import choose_children
from fluxgraph.policies.introsort import introsort_by_key
from fluxgraph.policies.scoring import EGroup, ScoringObject

__all__ = ["LocalityAware", "run_starts"]

#: ``libstdc++``'s insertion-sort threshold: at most this many groups sort stably.
_STABLE_MAX = 16


def run_starts(scores: set[int]) -> dict[int, int]:
    """Map each score to the lower bound of its run of consecutive integers.

    This is the joined interval set of the points ``[s, s]`` (touching intervals merge), asked
    for the interval holding each point.

    Runtime complexity: O(n log n).

    Examples
    --------
    >>> run_starts({2, 3, 4, 7, 9, 10})
    {2: 2, 3: 2, 4: 2, 7: 7, 9: 9, 10: 9}
    """
    starts: dict[int, int] = {}
    lower = prev = None
    for s in sorted(scores):
        if prev is None or s != prev + 1:
            lower = s
        starts[s] = lower
        prev = s
    return starts


@dataclass(frozen=True, slots=True)
class LocalityAware:
    """Prefer top-level units whose ids form the highest run of consecutive ids.

    The reference's ``greater_interval_first_t``. It has no options and keeps no state between
    matches.

    Examples
    --------
    >>> LocalityAware()
    LocalityAware()
    """

    #: Explore every child (no dynamic early stop).
    stop_on_k: ClassVar[int] = 0
    #: No resource type is taken whole.
    exclusive_types: ClassVar[tuple[str, ...]] = ()

    def dom_discover_vtx(self, graph, u: int) -> int:
        """Nothing to do before the children are visited."""
        return 0

    def dom_finish_vtx(self, graph, dom: str, u: int, requests: Any, dfu: ScoringObject) -> int:
        """Choose children highest score first; score ``u`` as ``id + 2`` (0 if short)."""
        met = choose_children(dom, graph.types[u], requests, dfu, True)
        dfu.overall_score = graph.ids[u] + 2 if met else 0
        return 0 if met else -1

    def dom_finish_slot(self, graph, dom: str, dfu: ScoringObject) -> int:
        """Order every member type of a slot highest score first."""
        for sub, rtype in list(dfu.evals):
            if sub == dom:
                dfu.choose_accum_all(sub, rtype, True)
        return 0

    def dom_finish_graph(self, graph, dom: str, requests: Any, dfu: ScoringObject) -> int:
        """Choose each top-level request's units by descending score run (§8.3)."""
        scores: set[int] = set()  # the interval set, shared across the top-level requests
        for r in requests:
            k = r.calc_count(dfu.qualified_count(dom, r.type))
            if k == 0:
                return -1
            ev = dfu.evals.get((dom, r.type))
            if ev is not None:
                scores.update(g.score for g in ev.groups)
            starts = run_starts(scores)
            dfu.choose_accum_best_k(dom, r.type, k, True, lambda gs, st=starts: _sort(gs, st))
        return 0


def _sort(groups: list[EGroup], starts: dict[int, int]) -> None:
    """Sort ``groups`` by descending run start, ties placed as ``std::sort`` places them."""
    if len(groups) <= _STABLE_MAX or len({starts[g.score] for g in groups}) == len(groups):
        groups.sort(key=lambda g: starts[g.score], reverse=True)  # same order: stable or no ties
        return
    introsort_by_key(groups, lambda g: -starts[g.score])  # (descending start)
