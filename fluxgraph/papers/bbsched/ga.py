"""The multi-objective genetic algorithm of BBSched (paper §3.2.2-3.2.3, Fig. 3; spec §4.5).

A chromosome is a window mask (:mod:`fluxgraph.papers.bbsched.moo`). Defaults follow the paper:
``G = 500`` generations, population ``P = 20``, bit-flip probability ``p_m = 0.0005`` per gene,
crossover probability 1. One generation:

1. parents: shuffle the population, ``floor(|pop|/2)`` disjoint pairs;
2. one-point crossover at ``c = randint(1, k-1)`` (the paper's "random position");
3. mutation: every gene of every child flips with probability ``p_m`` (drawn as geometric gaps,
   the same distribution as one draw per gene);
4. children that are infeasible, already in the population or duplicates are discarded (no
   repair); survivors start at age 0;
5. survivors: Set1 = non-dominated members of population + children; keep the ``P`` youngest of
   Set1 (ties front-most) or all of Set1 plus the youngest of the rest; ages go up by one.

The initial population is the one-hot masks (all of them when ``k <= P``, else a random ``P``)
plus greedy random fills (shuffle the candidates, add each that still fits) until ``P`` distinct
members or ``10 P`` attempts. Objective vectors are cached per mask and new masks are evaluated
in one numpy batch per generation. ``variant="cqsim"`` is the authors' code for ablations:
``P = clamp(ceil(2^k/50), 10, 25)``, ``G = min(G, ceil(0.1 2^k))``, midpoint crossover,
``floor(0.05 |pool|)`` single-bit mutants of random pool members, random truncation of Set1.

>>> import random
>>> from fluxgraph.papers.bbsched.moo import Window
>>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
>>> sorted(ga_front(w, random.Random(1), generations=50))
[(15, (80, 90)), (17, (100, 20))]
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.moo import Member, Window, nondominated

__all__ = ["GAParams", "crossover", "ga_front", "survivors"]

VARIANTS = ("paper", "cqsim")


@dataclass(frozen=True)
class GAParams:
    """GA settings (spec §4.5 defaults)."""

    generations: int = 500
    population: int = 20
    mutation: float = 0.0005
    variant: str = "paper"

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise SimulationError(f"unknown GA variant {self.variant!r} (valid: paper, cqsim)")
        if self.generations < 0 or self.population < 2 or not 0 <= self.mutation < 1:
            raise SimulationError(f"bad GA parameters {self}")


class _Cache:
    """Feasibility and objective vectors per mask, new masks evaluated in one batch."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.ok: dict[int, bool] = {}
        self.vec: dict[int, tuple[int, ...]] = {}

    def fill(self, masks: list[int]) -> None:
        new = [m for m in dict.fromkeys(masks) if m not in self.ok]
        if not new:
            return
        ok, vectors = self.window.evaluate(new)
        for m, good, v in zip(new, ok.tolist(), vectors.tolist(), strict=True):
            self.ok[m] = good
            self.vec[m] = tuple(v)


def _greedy_fills(window: Window, rng: random.Random, pop: list[int], size: int) -> None:
    """Add random greedy fills to ``pop`` until ``size`` members or ``10 size`` attempts."""
    k = window.size
    n, b = window.nodes.tolist(), window.bb.tolist()
    large = [False] * k if window.ssd is None else (window.ssd > 128).tolist()
    seen = set(pop)
    order = list(range(k))
    for _ in range(10 * size):
        if len(pop) >= size:
            return
        rng.shuffle(order)
        fn, fb, fl = window.free_nodes, window.free_bb, window.free_large
        mask = 0
        for i in order:
            if n[i] <= fn and b[i] <= fb and (not large[i] or n[i] <= fl):
                fn, fb = fn - n[i], fb - b[i]
                fl -= n[i] if large[i] else 0
                mask |= 1 << (k - 1 - i)
        if mask not in seen:
            seen.add(mask)
            pop.append(mask)


def _front_flags(vectors: list[tuple[int, ...]]) -> list[bool]:
    """Which vectors no other dominates (a sweep for two objectives, numpy pairwise else)."""
    if len(vectors[0]) != 2:
        return nondominated(np.array(vectors)).tolist()
    order = sorted(range(len(vectors)), key=lambda i: (-vectors[i][0], -vectors[i][1]))
    flags = [False] * len(vectors)
    best_above = None  # the largest f2 among vectors with a larger f1
    group_f1, group_best = None, None
    for i in order:
        f1, f2 = vectors[i]
        if f1 != group_f1:
            if group_best is not None and (best_above is None or group_best > best_above):
                best_above = group_best
            group_f1, group_best = f1, f2
        flags[i] = f2 == group_best and (best_above is None or f2 > best_above)
    return flags


def _initial(window: Window, rng: random.Random, size: int) -> list[int]:
    k = window.size
    genes = range(k) if k <= size else rng.sample(range(k), size)
    pop = [1 << (k - 1 - i) for i in genes]
    _greedy_fills(window, rng, pop, size)
    return pop


def _flip_genes(children: list[int], k: int, rate: float, rng: random.Random) -> None:
    """Flip each gene of ``children`` with probability ``rate`` (geometric gaps)."""
    if rate <= 0 or not children:
        return
    total = len(children) * k
    log_keep = math.log1p(-rate)
    pos = -1
    while True:
        pos += 1 + int(math.log(1.0 - rng.random()) / log_keep)
        if pos >= total:
            return
        children[pos // k] ^= 1 << (pos % k)


def crossover(p1: int, p2: int, cut: int, k: int) -> list[int]:
    """One-point crossover of two ``k``-gene masks at ``cut`` (spec §4.5 step 2b): child 1 has
    genes ``0..cut-1`` of ``p1`` and ``cut..k-1`` of ``p2``, child 2 the reverse.

    >>> [format(c, "05b") for c in crossover(0b11100, 0b00011, 2, 5)]
    ['11011', '00100']
    """
    low = (1 << (k - cut)) - 1  # genes cut..k-1
    high = ((1 << k) - 1) ^ low
    return [(p1 & high) | (p2 & low), (p2 & high) | (p1 & low)]


def survivors(
    pool: list[int],
    ages: list[int],
    front: list[bool],
    size: int,
    rng: random.Random | None = None,
) -> list[int]:
    """Indices of ``pool`` that survive (spec §4.5 step 2e): Set1 = the ``front`` members; if
    there are at least ``size``, the ``size`` youngest of them, else all of Set1 plus the
    youngest of the rest (age ties to the front-most mask). With ``rng`` (the ``cqsim``
    variant) an oversized Set1 is truncated at random instead.

    >>> survivors([8, 4, 2, 1], [3, 0, 1, 0], [True, True, False, False], 3)
    [0, 1, 3]
    >>> survivors([8, 4, 2, 1], [3, 0, 1, 0], [True, True, True, False], 2)
    [1, 2]
    """
    set1 = [i for i in range(len(pool)) if front[i]]
    youngest = lambda i: (ages[i], -pool[i])  # noqa: E731
    if len(set1) >= size:
        return rng.sample(set1, size) if rng is not None else sorted(set1, key=youngest)[:size]
    rest = sorted((i for i in range(len(pool)) if not front[i]), key=youngest)
    return set1 + rest[: size - len(set1)]


def ga_front(
    window: Window,
    rng: random.Random,
    generations: int = 500,
    population: int = 20,
    mutation: float = 0.0005,
    variant: str = "paper",
) -> list[Member]:
    """Set1 of the final population: ``(mask, vector)`` of its non-dominated members."""
    params = GAParams(generations, population, mutation, variant)
    k = window.size
    if k < 2:
        raise SimulationError("the GA needs at least 2 candidates")
    cqsim = params.variant == "cqsim"
    size = params.population
    gens = params.generations
    if cqsim:
        size = min(25, max(10, math.ceil(2**k / 50)))
        gens = min(gens, math.ceil(0.1 * 2**k))
    cache = _Cache(window)
    pop = _initial(window, rng, size)
    cache.fill(pop)
    ages = [0] * len(pop)
    ok, vec = cache.ok, cache.vec
    draw = rng.random
    for _ in range(gens):
        keys = [draw() for _ in pop]  # a random order (one draw per member)
        order = sorted(range(len(pop)), key=keys.__getitem__)
        children: list[int] = []
        for j in range(0, len(order) - 1, 2):
            p1, p2 = pop[order[j]], pop[order[j + 1]]
            children += crossover(p1, p2, k // 2 if cqsim else 1 + int(draw() * (k - 1)), k)
        if cqsim:
            pool_size = len(pop) + len(children)
            for _ in range(int(0.05 * pool_size)):
                r = rng.randrange(pool_size)
                base = pop[r] if r < len(pop) else children[r - len(pop)]
                children.append(base ^ (1 << rng.randrange(k)))
        else:
            _flip_genes(children, k, params.mutation, rng)
        cache.fill(children)
        members = set(pop)
        kept = []
        for c in children:
            if ok[c] and c not in members:
                members.add(c)
                kept.append(c)
        pool = pop + kept
        pool_ages = ages + [0] * len(kept)
        front = _front_flags([vec[m] for m in pool])
        chosen = survivors(pool, pool_ages, front, size, rng if cqsim else None)
        pop = [pool[i] for i in chosen]
        ages = [pool_ages[i] + 1 for i in chosen]
    front = _front_flags([vec[m] for m in pop])
    return [(m, vec[m]) for m, keep in zip(pop, front, strict=True) if keep]
