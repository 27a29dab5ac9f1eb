"""The exact Pareto front of a window by enumeration (paper §3.2.2, Fig. 2; spec §4.4).

All ``2^k`` masks are enumerated with incremental sums (``F[mask | g] = F[mask] + v_g``, one
numpy doubling per candidate), the feasible ones kept, and the non-dominated vectors extracted,
each with its front-most mask. ``k <= 24``; the tests use it as the GA's oracle for ``k <= 16``
and BBSched uses it whenever ``k <= exact_below`` (spec §4.4).

>>> from fluxgraph.papers.bbsched.moo import Window
>>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
>>> exact_front(w)
[(17, (100, 20)), (15, (80, 90))]
"""

from __future__ import annotations

import numpy as np

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.moo import Member, Window, pareto_front

__all__ = ["MAX_EXACT", "all_sums", "exact_front", "generational_distance"]

#: Largest window the enumeration accepts (2^24 rows of sums).
MAX_EXACT = 24


def all_sums(window: Window) -> np.ndarray:
    """Column sums of every mask ``0 .. 2^k - 1`` (row ``mask``)."""
    k = window.size
    if k > MAX_EXACT:
        raise SimulationError(f"exact enumeration is limited to {MAX_EXACT} candidates, got {k}")
    cols = window._columns
    sums = np.zeros((1, cols.shape[1]), dtype=np.int64)
    for bit in range(k):  # bit b is candidate k - 1 - b
        sums = np.concatenate([sums, sums + cols[k - 1 - bit]])
    return sums


def exact_front(window: Window) -> list[Member]:
    """The exact front: ``(front-most mask, vector)`` per non-dominated vector, by f1 desc."""
    ok, vectors = window.judge(all_sums(window))
    masks = np.flatnonzero(ok).astype(np.int64)
    return pareto_front(masks, vectors[ok])


def generational_distance(found: list[Member], exact: list[Member], window: Window) -> float:
    """Mean over ``found`` of the Euclidean distance to the nearest ``exact`` vector, in the
    space ``(f1/N, f2/B[, f3/S, f4/S])`` (spec §6).

    >>> w = Window.of([(1, 0)], 1, 0, 10, 10)
    >>> generational_distance([(1, (0, 0))], [(1, (1, 0))], w)
    0.1
    """
    if not found:
        return float("nan")
    scale = [window.total_nodes, window.total_bb or 1]
    if window.objectives == 4:
        scale += [window.ssd_total, window.ssd_total]
    s = np.asarray(scale, dtype=float)
    a = np.asarray([v for _, v in found], dtype=float) / s
    b = np.asarray([v for _, v in exact], dtype=float) / s
    dist = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
    return float(dist.mean())
