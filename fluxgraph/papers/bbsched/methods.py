"""BBSched and the comparison methods of paper §4.3 and §5 (spec §4.7), one small class each.

Every method but ``Baseline`` answers one question per pass: which candidates of the window
start now (:meth:`select` returns a mask, see :mod:`fluxgraph.papers.bbsched.moo`). The window, the
candidates and the starvation bound are the pass's (:mod:`fluxgraph.papers.bbsched.window`).

======================  ==============================================================
``Baseline``            no window stage: in-order starts, then EASY (the paper's naive method)
``Weighted``            maximise ``f1/N + f2/B`` (50/50); with SSDs the 4-way average
``Weighted_CPU``/``_BB``  ``0.8 f1/N + 0.2 f2/B`` / ``0.2 f1/N + 0.8 f2/B``
``Constrained_CPU``     maximise ``f1``; ``Constrained_BB``: ``f2``; ``Constrained_SSD``: ``f3``
``Bin_Packing``         Tetris-like greedy on capacity-normalised dot products
``BBSched``             exact front (``k <= exact_below``) or the GA, then the decision rule
======================  ==============================================================

The weighted and constrained methods are solved exactly (:func:`~fluxgraph.papers.bbsched.knapsack.
best_mask`) in integers: ``0.5 f1/N + 0.5 f2/B`` is maximised as ``sum (n_i B + b_i N) x_i``.

>>> from fluxgraph.papers.bbsched.moo import Window
>>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
>>> {name: w.members(make_method(name).select(w)) for name in ("Weighted", "Bin_Packing")}
{'Weighted': [1, 2, 3, 4], 'Bin_Packing': [0, 4]}
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.decision import decide
from fluxgraph.papers.bbsched.ga import GAParams, ga_front
from fluxgraph.papers.bbsched.knapsack import best_linear, best_mask
from fluxgraph.papers.bbsched.machine import SSD_LARGE, SSD_SMALL
from fluxgraph.papers.bbsched.moo import Member, Window
from fluxgraph.papers.bbsched.oracle import exact_front

__all__ = [
    "METHODS",
    "SSD_METHODS",
    "BBSched",
    "Baseline",
    "BinPacking",
    "Constrained",
    "Method",
    "Weighted",
    "make_method",
]


class Method:
    """A window method: ``select(window) -> mask``; ``windowed`` is False for Baseline only."""

    name = "method"
    windowed = True

    def select(self, window: Window) -> int:
        """The mask of the candidates to start now."""
        raise NotImplementedError


class Baseline(Method):
    """The naive method: no window stage."""

    name = "Baseline"
    windowed = False

    def select(self, window: Window) -> int:
        raise SimulationError("Baseline has no window stage")


@dataclass
class Weighted(Method):
    """Maximise ``a f1/N + c f2/B`` (integer weights ``a``, ``c``); the 4-way average
    ``(f1/N + f2/B + f3/S + f4/S)/4`` on SSD windows (the bound ignores the spill)."""

    name: str = "Weighted"
    a: int = 1
    c: int = 1

    def select(self, window: Window) -> int:
        n, b = window.nodes.tolist(), window.bb.tolist()
        N, B = window.total_nodes, max(1, window.total_bb)
        if window.ssd is None:
            return best_linear(window, self.a * B, self.c * N)
        S = window.ssd_total
        values = []
        for i, s in enumerate(window.ssd.tolist()):
            per_node = SSD_LARGE if s > SSD_SMALL else SSD_SMALL  # f3 - waste, before spill
            values.append(n[i] * B * S + b[i] * N * S + (2 * s - per_node) * n[i] * N * B)
        return best_mask(window, values, spill_cost=SSD_SMALL * N * B)


@dataclass
class Constrained(Method):
    """Maximise one objective: ``nodes`` (f1), ``bb`` (f2) or ``ssd`` (f3)."""

    name: str = "Constrained_CPU"
    objective: str = "nodes"

    def select(self, window: Window) -> int:
        if self.objective == "nodes":
            return best_linear(window, 1, 0)
        if self.objective == "bb":
            return best_linear(window, 0, 1)
        if window.ssd is None:
            raise SimulationError("Constrained_SSD needs a machine with local SSDs")
        return best_mask(window, (window.ssd * window.nodes).tolist())


class BinPacking(Method):
    """Tetris-like greedy (spec §4.7): pick the fitting candidate with the largest
    ``(n/N)(F_N/N) + (b/B)(F_B/B) [+ (s n/S)(SSDfree/S)]``, ties to the earliest; repeat."""

    name = "Bin_Packing"

    def select(self, window: Window) -> int:
        k = window.size
        n, b = window.nodes.tolist(), window.bb.tolist()
        ssd = window.ssd.tolist() if window.ssd is not None else [0] * k
        N, B, S = window.total_nodes, max(1, window.total_bb), max(1, window.ssd_total)
        fn, fb = window.free_nodes, window.free_bb
        fs, fl = window.free_small, window.free_large
        left = set(range(k))
        mask = 0
        while True:
            best, best_score = -1, -1
            for i in sorted(left):
                large = ssd[i] > SSD_SMALL
                if n[i] > fn or b[i] > fb or (large and n[i] > fl):
                    continue
                score = n[i] * fn * B * B * S * S + b[i] * fb * N * N * S * S
                score += ssd[i] * n[i] * (SSD_SMALL * fs + SSD_LARGE * fl) * N * N * B * B
                if score > best_score:
                    best, best_score = i, score
            if best < 0:
                return mask
            left.discard(best)
            mask |= window.gene(best)
            fn, fb = fn - n[best], fb - b[best]
            if window.ssd is not None:
                if ssd[best] > SSD_SMALL:
                    fl -= n[best]
                else:
                    on_small = min(n[best], fs)
                    fs, fl = fs - on_small, fl - (n[best] - on_small)


@dataclass
class BBSched(Method):
    """The paper's method: front (exact when ``k <= exact_below``, else the GA with its own
    ``random.Random(ga_seed)``, one per run), then the decision rule."""

    name: str = "BBSched"
    ga: GAParams = field(default_factory=GAParams)
    exact_below: int = 10
    decision: str = "paper"
    ga_seed: int = 1
    rng: random.Random = field(init=False, repr=False)
    last_front: list[Member] = field(init=False, repr=False, default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.ga_seed)

    def front(self, window: Window) -> list[Member]:
        """The Pareto front this method decides on."""
        if window.size <= self.exact_below:
            return exact_front(window)
        g = self.ga
        return ga_front(window, self.rng, g.generations, g.population, g.mutation, g.variant)

    def select(self, window: Window) -> int:
        self.last_front = self.front(window)
        used = (
            window.total_nodes - window.free_nodes,
            window.total_bb - window.free_bb,
        )
        mask, _ = decide(
            self.last_front,
            window.total_nodes,
            max(1, window.total_bb),
            window.ssd_total,
            self.decision,
            used,
        )
        return mask


#: Method name -> factory taking the BBSched options (ignored by the others).
METHODS: Mapping[str, Callable[..., Method]] = MappingProxyType(
    {
        "Baseline": lambda **_: Baseline(),
        "BBSched": lambda **o: BBSched(**o),
        "Weighted": lambda **_: Weighted("Weighted", 1, 1),
        "Weighted_CPU": lambda **_: Weighted("Weighted_CPU", 4, 1),
        "Weighted_BB": lambda **_: Weighted("Weighted_BB", 1, 4),
        "Constrained_CPU": lambda **_: Constrained("Constrained_CPU", "nodes"),
        "Constrained_BB": lambda **_: Constrained("Constrained_BB", "bb"),
        "Constrained_SSD": lambda **_: Constrained("Constrained_SSD", "ssd"),
        "Bin_Packing": lambda **_: BinPacking(),
    }
)

#: The seven methods of paper §5 (SSD machines).
SSD_METHODS = (
    "Baseline",
    "BBSched",
    "Weighted",
    "Constrained_CPU",
    "Constrained_BB",
    "Constrained_SSD",
    "Bin_Packing",
)


def make_method(name: str, **options) -> Method:
    """A fresh method ``name`` (BBSched takes ``ga``, ``exact_below``, ``decision``,
    ``ga_seed``); one per simulation run."""
    if name not in METHODS:
        raise SimulationError(f"unknown method {name!r} (valid: {', '.join(METHODS)})")
    return METHODS[name](**options)
