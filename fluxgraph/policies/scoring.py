"""Scoring objects: the candidate groups a vertex gathers from its children, and best-k choice.

A :class:`ScoringObject` maps ``(subsystem, type)`` to an :class:`Evals` vector of evaluation
groups (:class:`EGroup`), each standing for one child vertex (or one slot) with its score and
available count. Policies sort these vectors and choose the best ``k`` units
(matching-semantics §6.12).
"""

from __future__ import annotations

from collections.abc import Callable

from fluxgraph.policies.introsort import sort_by_score

__all__ = ["EGroup", "Evals", "ScoringObject"]


class EGroup:
    """One candidate: ``score``, ``count`` units, and the edges ``(count, needs, excl, edge)``."""

    __slots__ = ("count", "edges", "exclusive", "needs", "root", "score")

    def __init__(
        self,
        score: int,
        count: int,
        exclusive: bool,
        root: bool,
        edges: list[tuple[int, int, bool, int]],
    ) -> None:
        self.score = score
        self.count = count
        self.needs = 0
        self.exclusive = exclusive
        self.root = root
        self.edges = edges

    def __repr__(self) -> str:
        return f"EGroup(score={self.score}, count={self.count}, edges={self.edges})"


class Evals:
    """The candidate groups of one type, with qualified/total counts and the best-k cut."""

    __slots__ = ("best_i", "best_k", "cursor", "groups", "qual_count", "total_count")

    def __init__(self) -> None:
        self.groups: list[EGroup] = []
        self.qual_count = 0
        self.total_count = 0
        self.best_k = 0
        self.best_i = 0
        self.cursor = 0

    def add(self, g: EGroup) -> None:
        """Append ``g``; it counts as qualified when its score is positive."""
        self.total_count += g.count
        if g.score > 0:
            self.qual_count += g.count
        self.groups.append(g)

    def choose_best_k(self, k: int, descending: bool, sorter: Callable | None = None) -> int:
        """Sort the groups and mark the shortest prefix covering ``k`` units; -1 if impossible."""
        if k == 0 or k > self.qual_count:
            return -1
        groups = self.groups
        if sorter is None:
            sort_by_score(groups, descending)
        else:
            sorter(groups)
        remaining = k
        i = 0
        for g in groups:
            g.needs = remaining if remaining < g.count else g.count
            remaining -= g.count
            i += 1
            if remaining <= 0:
                break
        previous = self.best_k
        self.best_k = k
        self.best_i = i
        return previous


class ScoringObject:
    """Per-vertex gathering of child candidates, keyed by ``(subsystem, type)``."""

    __slots__ = ("avail", "evals", "hier_constrain_now", "overall_score")

    def __init__(self) -> None:
        self.evals: dict[tuple[str, str], Evals] = {}
        self.avail = 0
        self.overall_score = -1
        self.hier_constrain_now = False

    def add(self, subsystem: str, rtype: str, g: EGroup) -> None:
        """Append group ``g`` to the ``(subsystem, rtype)`` vector."""
        key = (subsystem, rtype)
        ev = self.evals.get(key)
        if ev is None:
            ev = self.evals[key] = Evals()
        ev.add(g)

    def merge(self, other: ScoringObject) -> None:
        """Append every vector of ``other`` to this object's vectors (counts added)."""
        evals = self.evals
        for key, oev in other.evals.items():
            ev = evals.get(key)
            if ev is None:
                ev = evals[key] = Evals()
                ev.groups = list(oev.groups)
            else:
                ev.groups.extend(oev.groups)
            ev.qual_count += oev.qual_count
            ev.total_count += oev.total_count

    def qualified_count(self, subsystem: str, rtype: str) -> int:
        """Units of ``rtype`` offered by qualified (score > 0) groups."""
        ev = self.evals.get((subsystem, rtype))
        return 0 if ev is None else ev.qual_count

    def total_count(self, subsystem: str, rtype: str) -> int:
        """Units of ``rtype`` offered by all groups."""
        ev = self.evals.get((subsystem, rtype))
        return 0 if ev is None else ev.total_count

    def choose_accum_best_k(
        self, subsystem: str, rtype: str, k: int, descending: bool, sorter=None
    ) -> int:
        """Choose the best ``k`` units of ``rtype``; return the chosen groups' score sum or -1."""
        ev = self.evals.get((subsystem, rtype))
        if ev is None or ev.choose_best_k(k, descending, sorter) < 0:
            return -1
        self.hier_constrain_now = True
        return sum(g.score for g in ev.groups[: ev.best_i])

    def choose_accum_all(self, subsystem: str, rtype: str, descending: bool, sorter=None) -> int:
        """Choose every qualified unit of ``rtype`` (sorting the vector); score sum or -1."""
        ev = self.evals.get((subsystem, rtype))
        if ev is None:
            return -1
        return self.choose_accum_best_k(subsystem, rtype, ev.qual_count, descending, sorter)
