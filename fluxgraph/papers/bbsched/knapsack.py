"""Exact single-objective window selection: branch and bound (spec §4.7).

Maximise ``sum v_i x_i - c max(0, Ls - F_128)`` (``c = 0`` except for the 4-way Weighted
method, whose SSD waste spills) subject to the window's constraints. Depth-first over window
order, *include* before *exclude*; the bound is the current linear value plus the smaller of the
fractional-knapsack bounds (by nodes, by BB, and by the surrogate constraint
``n/F_N + b/F_B <= 2``) of the remaining positive-value items, which
never undercuts a completion (the spill penalty is >= 0). A branch is pruned when its bound
cannot beat the incumbent by 1 (values are integers); the incumbent is replaced only by a
strictly greater leaf. Leaves come in decreasing mask order, so the result is the front-most
optimum: zero-value jobs that fit are kept (spec §9.12).

Objectives linear in nodes and BB (``alpha f1 + beta f2``: the weighted and constrained
methods on two-objective windows) use :func:`best_linear` instead: a dynamic programme over the
reachable ``(nodes, BB / g)`` sums (``g`` = the gcd of the requests, the pool's chunk in the
simulator), exact in integers, with the same front-most answer read off suffix reachability.

>>> from fluxgraph.papers.bbsched.moo import Window
>>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
>>> w.members(best_mask(w, [80, 10, 40, 10, 20]))     # Constrained_CPU
[0, 4]
>>> w.members(best_mask(w, [20, 85, 5, 0, 0]))        # Constrained_BB
[1, 2, 3, 4]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fluxgraph.papers.bbsched.machine import SSD_SMALL
from fluxgraph.papers.bbsched.moo import Window

__all__ = ["DP_CELLS", "best_linear", "best_mask"]

#: Largest ``(F_N + 1) (F_B / g + 1)`` grid the dynamic programme takes (else branch and bound).
DP_CELLS = 1_000_000


def _order(values: Sequence[int], weights: Sequence[int]) -> list[int]:
    """Positive-value items by decreasing value per unit weight (weightless ones first)."""
    items = [i for i in range(len(values)) if values[i] > 0]
    return sorted(items, key=lambda i: -math.inf if weights[i] == 0 else -values[i] / weights[i])


def best_mask(window: Window, values: Sequence[int], spill_cost: int = 0) -> int:
    """The front-most feasible mask maximising the objective (see the module docstring)."""
    k = window.size
    v = [int(x) for x in values]
    n, b = window.nodes.tolist(), window.bb.tolist()
    large = [False] * k if window.ssd is None else (window.ssd > SSD_SMALL).tolist()
    small_n = [0 if large[i] else n[i] for i in range(k)]
    free_small = window.free_small
    by_nodes, by_bb = _order(v, n), _order(v, b)
    # surrogate constraint: n/F_N + b/F_B <= 2, scaled to integers
    fn0, fb0 = max(1, window.free_nodes), max(1, window.free_bb)
    mixed = [n[i] * fb0 + b[i] * fn0 for i in range(k)]
    by_mixed = _order(v, mixed)

    def fractional(order: list[int], weights: list[int], depth: int, cap: int) -> float:
        total = 0.0
        for i in order:
            if i < depth:
                continue
            w = weights[i]
            if w <= cap:
                total += v[i]
                cap -= w
            else:
                return total + v[i] * cap / w
        return total

    best = [-math.inf, 0]

    def visit(depth: int, value: int, mask: int, fn: int, fb: int, fl: int, ls: int) -> None:
        if depth == k:
            exact = value - spill_cost * max(0, ls - free_small)
            if exact > best[0]:
                best[0], best[1] = exact, mask
            return
        if best[0] > -math.inf:
            bound = min(
                fractional(by_nodes, n, depth, fn),
                fractional(by_bb, b, depth, fb),
                fractional(by_mixed, mixed, depth, fn * fb0 + fb * fn0),
            )
            if value + math.floor(bound + 1e-7 * max(1.0, bound)) <= best[0]:
                return
        i = depth
        if n[i] <= fn and b[i] <= fb and (not large[i] or n[i] <= fl):
            visit(
                depth + 1,
                value + v[i],
                mask | 1 << (k - 1 - i),
                fn - n[i],
                fb - b[i],
                fl - n[i] if large[i] else fl,
                ls + small_n[i],
            )
        visit(depth + 1, value, mask, fn, fb, fl, ls)

    visit(0, 0, 0, window.free_nodes, window.free_bb, window.free_large, 0)
    return best[1]


def best_linear(window: Window, alpha: int, beta: int) -> int:
    """The front-most feasible mask maximising ``alpha f1 + beta f2`` (two objectives).

    >>> from fluxgraph.papers.bbsched.moo import Window
    >>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
    >>> w.members(best_linear(w, 100, 100)), w.members(best_linear(w, 0, 1))
    ([1, 2, 3, 4], [1, 2, 3, 4])
    """
    k = window.size
    n, b = window.nodes.tolist(), window.bb.tolist()
    scale = math.gcd(*b, window.free_bb) or 1
    cap_n, cap_b = window.free_nodes, window.free_bb // scale
    if window.ssd is not None or (cap_n + 1) * (cap_b + 1) > DP_CELLS:
        return best_mask(window, [alpha * n[i] + beta * b[i] for i in range(k)])
    units = [x // scale for x in b]
    reach = [np.zeros((cap_n + 1, cap_b + 1), dtype=bool) for _ in range(k + 1)]
    reach[k][0, 0] = True
    for i in range(k - 1, -1, -1):
        here = reach[i]
        here |= reach[i + 1]
        dn, db = n[i], units[i]
        if dn <= cap_n and db <= cap_b:
            here[dn:, db:] |= reach[i + 1][: cap_n + 1 - dn, : cap_b + 1 - db]
    value = alpha * np.arange(cap_n + 1)[:, None] + beta * scale * np.arange(cap_b + 1)[None, :]
    best = value[reach[0]].max()
    target = reach[0] & (value == best)
    mask = 0
    for i in range(k):
        dn, db = n[i], units[i]
        if dn <= cap_n and db <= cap_b:
            rest = np.zeros_like(target)
            rest[: cap_n + 1 - dn, : cap_b + 1 - db] = target[dn:, db:]
            rest &= reach[i + 1]
            if rest.any():
                target = rest
                mask |= window.gene(i)
                continue
        target &= reach[i + 1]
    return mask
