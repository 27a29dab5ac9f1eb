"""Exact single-objective window selection: branch and bound (spec §4.7).

Maximise ``sum v_i x_i - c max(0, Ls - F_128)`` (``c = 0`` except for the 4-way Weighted
method, whose SSD waste spills) subject to the window's constraints. Depth-first over window
order, *include* before *exclude*; the bound is the current linear value plus the smaller of the
two fractional-knapsack bounds (by nodes, by BB) of the remaining positive-value items, which
never undercuts a completion (the spill penalty is >= 0). A branch is pruned when its bound
cannot beat the incumbent by 1 (values are integers); the incumbent is replaced only by a
strictly greater leaf. Leaves come in decreasing mask order, so the result is the front-most
optimum: zero-value jobs that fit are kept (spec §9.12).

>>> from fluxgraph.bbsched.moo import Window
>>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
>>> w.members(best_mask(w, [80, 10, 40, 10, 20]))     # Constrained_CPU
[0, 4]
>>> w.members(best_mask(w, [20, 85, 5, 0, 0]))        # Constrained_BB
[1, 2, 3, 4]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fluxgraph.bbsched.machine import SSD_SMALL
from fluxgraph.bbsched.moo import Window

__all__ = ["best_mask"]


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
            bound = min(fractional(by_nodes, n, depth, fn), fractional(by_bb, b, depth, fb))
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
