"""The decision rule: one selection from a Pareto front (paper §3.2.4, §5; spec §4.6).

``paper`` (two objectives): ``x*`` = the member with the most nodes (ties front-most). Another
member ``x`` is eligible iff its BB gain is more than twice its node loss, both normalised by the
totals and compared exactly in integers: ``(f2(x) - f2(x*)) N > 2 (f1(x*) - f1(x)) B``. The
eligible member with the largest gain wins (ties: smaller loss, then front-most), else ``x*``.
With four objectives (§5) the gain is ``df2/B + df3/S + (waste(x*) - waste(x))/S`` and the
factor is 4. ``cqsim`` is the authors' code's rule for ablations (spec §4.6).

>>> front = [(17, (100, 20)), (15, (80, 90))]
>>> decide(front, 100, 100)
(15, (80, 90))
>>> decide(front, 100, 1000)
(17, (100, 20))
"""

from __future__ import annotations

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.moo import Member

__all__ = ["DECISIONS", "decide"]

DECISIONS = ("paper", "cqsim")


def _gain(x: tuple[int, ...], best: tuple[int, ...], bb: int, ssd: int) -> int:
    """The gain of ``x`` over ``best`` in units of ``1/(B S)`` (``S = 1`` with 2 objectives)."""
    gain = (x[1] - best[1]) * ssd
    if len(x) == 4:
        gain += ((x[2] - best[2]) + (x[3] - best[3])) * bb
    return gain


def decide(
    front: list[Member],
    nodes: int,
    bb: int,
    ssd: int = 0,
    rule: str = "paper",
    used: tuple[int, ...] = (),
) -> Member:
    """The member of ``front`` the rule picks (``nodes``, ``bb``, ``ssd`` = the totals N, B,
    S_tot; ``used`` = resources in use before the selection, for ``cqsim`` only)."""
    if not front:
        raise SimulationError("the decision rule needs a non-empty front")
    if rule not in DECISIONS:
        raise SimulationError(f"unknown decision rule {rule!r} (valid: paper, cqsim)")
    best = max(front, key=lambda m: (m[1][0], m[0]))
    if rule == "cqsim":
        return _cqsim(front, best, nodes, bb, ssd, used)
    four = len(best[1]) == 4
    scale = ssd if four else 1
    factor = 4 if four else 2
    chosen, chosen_key = best, None
    for member in front:
        if member is best:
            continue
        x = member[1]
        gain = _gain(x, best[1], bb, scale)
        loss = best[1][0] - x[0]
        if gain * nodes > factor * loss * bb * scale:
            key = (gain, -loss, member[0])
            if chosen_key is None or key > chosen_key:
                chosen, chosen_key = member, key
    return chosen


def _cqsim(
    front: list[Member], best: Member, nodes: int, bb: int, ssd: int, used: tuple[int, ...]
) -> Member:
    """CQSim's ``best_from_ga``: replace ``x*`` by the member with the largest non-node
    utilisation if it is > 30% higher than ``x*``'s and loses < 0.1 node utilisation."""
    used_nodes, used_bb, used_ssd = (*used, 0, 0, 0)[:3]

    def others(v: tuple[int, ...]) -> float:
        u = (used_bb + v[1]) / bb if bb else 0.0
        if len(v) == 4 and ssd:
            u += (used_ssd + v[2]) / ssd
        return u

    def node_use(v: tuple[int, ...]) -> float:
        return (used_nodes + v[0]) / nodes

    base = others(best[1])
    chosen = best
    for member in sorted(front, key=lambda m: -m[0]):
        v = member[1]
        better = others(v) - base > 0.3 * base and node_use(best[1]) - node_use(v) < 0.1
        if better and others(v) > others(chosen[1]):
            chosen = member
    return chosen
