"""Slots (matching-semantics §6.11): how many whole slots a vertex's gathered members fill, and
one slot group built from them.

>>> from fluxgraph.policies.scoring import EGroup, ScoringObject
>>> from types import SimpleNamespace
>>> core = SimpleNamespace(type="core", calc_count=lambda n: 2 if n >= 2 else 0)
>>> sdfu = ScoringObject()
>>> for e in range(5):
...     sdfu.add("containment", "core", EGroup(e + 2, 1, True, False, [(1, 1, True, e)]))
>>> count_slots("containment", [core], sdfu)
2
>>> fill_slot("containment", [core], sdfu, lambda elem, ev: ev.qual_count).edges
[(1, 1, True, 0), (1, 1, True, 1)]
"""

from __future__ import annotations

from fluxgraph.policies.scoring import EGroup, ScoringObject

__all__ = ["count_slots", "fill_slot"]


def fill_slot(dom: str, shape, sdfu: ScoringObject, available) -> EGroup | None:
    """Build one slot group from whole member vertices, in the members' current order.

    For each member request ``elem`` of ``shape``, ``elem.calc_count(available(elem, evals))``
    units are taken from the type's cursor (the cursor persists across slots); the excess of the
    last member is wasted. ``None`` when the members run out.
    """
    score = 1
    edges = []
    for elem in shape:
        ev = sdfu.evals.get((dom, elem.type))
        k = elem.calc_count(available(elem, ev))
        taken = 0
        while taken < k:
            if ev is None or ev.cursor >= len(ev.groups):
                return None
            m = ev.groups[ev.cursor]
            ev.cursor += 1
            c, _, _, e = m.edges[0]
            edges.append((c, c, True, e))
            score += m.score
            taken += c
    return EGroup(score, 1, True, False, edges)


def _tally_add(tl: list[int], c: int) -> None:
    # tl = [per_share, acc, shares, prev]
    tl[1] += c
    if tl[0] > 0 and tl[1] >= tl[0]:
        tl[2] += 1
        tl[1] = 0


def count_slots(dom: str, shape, sdfu: ScoringObject) -> int:
    """How many whole slots the gathered members can fill (``cnt_slot``)."""
    n = 0xFFFFFFFF
    for elem in shape:
        ev = sdfu.evals.get((dom, elem.type))
        k = elem.calc_count(ev.qual_count if ev is not None else 0)
        shares = 0
        if k != 0 and ev is not None:
            tl = [k, 0, 0, 0]
            for m in ev.groups:
                _tally_add(tl, m.edges[0][0])
            shares = tl[2]
        n = min(n, shares)
        if ev is not None:
            ev.cursor = 0
    return n
