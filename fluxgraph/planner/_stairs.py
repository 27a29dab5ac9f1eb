"""Staircases: per-block upper bounds on the longest free stretch for every threshold.

For a threshold ``c``, a *stretch* of a block is a maximal run of consecutive scheduled points
whose ``remaining`` values are all ``>= c``; its length is the time from its first point to the
point after it. The block's last stretch is measured into the next block, up to the first point
there below ``c`` (infinite when there is none, or no next block). The block's staircase
``G(c)`` is the longest stretch for threshold ``c``: an earliest-fit search for ``(c, d)`` can
skip the block when ``G(c) < d``, as no window of ``d`` starting in it can be clear.

A staircase is stored as two parallel ascending arrays: ``snr`` (negated thresholds,
``array("q")``) and ``sln`` (lengths, ``array("d")``, rounded up so they stay upper bounds), with
``G(c) = sln[k - 1]`` for ``k = bisect_right(snr, -c)`` (``k == 0``: no point has ``remaining
>= c``). Internal nodes store the Pareto union of their children's staircases, an upper bound
for every block below them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from math import nextafter

__all__: list[str] = []

INF = float("inf")

#: Leaf state bits (``st``): the leaf's own free amounts shrank since its staircases were
#: computed (both are upper bounds, the interior one no longer), or only the next leaf's did
#: (the full staircase is an upper bound, the interior one stays valid). Nodes use ``st`` as a
#: plain "looser than the union of the children" flag.
_OWN = 1
_NEXT = 2


def pareto(entries: list[tuple[int, float]]) -> tuple[array, array]:
    """Staircase of ``(negated threshold, length)`` entries (sorted in place)."""
    entries.sort()
    snr: list[int] = []
    sln: list[float] = []
    best = -1.0
    for nv, ln in entries:
        if ln > best:
            if snr and snr[-1] == nv:
                sln[-1] = ln
            else:
                snr.append(nv)
                sln.append(ln)
            best = ln
    out = array("d", sln)
    for i, ln in enumerate(sln):
        if out[i] < ln:  # an int beyond 2**53: round up, the staircase is an upper bound
            out[i] = nextafter(out[i], INF)
    return array("q", snr), out


def leaf_stairs(
    at: array, rem: array, nat: array | None, nrem: array | None
) -> tuple[array, array, array, array]:
    """Full and interior staircases of one block, given the next block (or None).

    Interior stretches end inside the block. The block's last stretch (for a threshold at
    most its last point's remaining) continues into the next block: its length is measured to
    the first point there below the threshold, or is infinite when the next block has none
    (or there is no next block). The interior staircase alone lets a search skip everything
    but the last stretch. Monotonic stack plus a two-pointer walk, ``O(len + len(next))``.
    """
    last = rem[-1]
    inner: list[tuple[int, float]] = []
    append = inner.append
    stack: list[int] = []
    push = stack.append
    pop = stack.pop
    for i, r in enumerate(rem):
        while stack and rem[stack[-1]] > r:
            j = pop()
            append((-rem[j], at[i] - at[stack[-1] + 1 if stack else 0]))
        push(i)
    full = inner[:]
    if nrem is None:
        full.append((-last, INF))
    else:
        # Thresholds c from ``last`` down: s = start of the last stretch, e = first point of
        # the next block below c; both only move as c drops to rem[s - 1] or nrem[e].
        s = len(rem) - 1
        e = 0
        m = len(nrem)
        c = last
        while True:
            while s and rem[s - 1] >= c:
                s -= 1
            while e < m and nrem[e] >= c:
                e += 1
            if e == m:
                full.append((-c, INF))
                break
            full.append((-c, nat[e] - at[s]))
            c = nrem[e]
            if s and rem[s - 1] > c:
                c = rem[s - 1]
    return (*pareto(full), *pareto(inner))


def merge(stairs: Iterable[tuple[array, array]]) -> tuple[array, array]:
    """Pareto union of several staircases (an upper bound of each)."""
    entries: list[tuple[int, float]] = []
    for snr, sln in stairs:
        entries.extend(zip(snr, sln, strict=True))
    return pareto(entries)


def shift(snr: array, sln: array, delta: int, full: bool = True) -> tuple[array, array]:
    """Staircase after every ``remaining`` moved by ``delta`` and was clamped at 0.

    For thresholds ``c >= 1`` the stretches are those of threshold ``c - delta`` before; for
    ``c <= 0`` every point qualifies, so the block is one stretch reaching its end (infinite
    in a ``full`` staircase, absent from an interior one).
    """
    entries = [(nv - delta, ln) for nv, ln in zip(snr, sln, strict=True) if nv - delta < 0]
    if full:
        entries.append((0, INF))
    return pareto(entries)
