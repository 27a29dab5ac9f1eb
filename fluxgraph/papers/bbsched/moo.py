"""The multi-objective formulation of one window (paper §3.2.1, §5; spec §4.3).

A :class:`Window` holds the candidates' demands (nodes ``n_i``, burst buffer ``b_i`` GB and, on
SSD machines, per-node SSD ``s_i`` GB) and the free aggregates ``F_N``, ``F_B``, ``F_128``,
``F_256``. A selection is a *mask*: gene ``i`` (candidate ``i``, position ``i + 1`` of the
window) is bit ``k - 1 - i``, so a larger mask is more *front-most* (spec §4.2): comparing masks
as integers is the final tie-break everywhere.

Objectives, all maximised: ``f1 = sum n_i x_i``, ``f2 = sum b_i x_i`` and, with SSDs,
``f3 = sum s_i n_i x_i`` and ``f4 = -waste(x)``, where small-class jobs (``s <= 128``) fill
128-GB nodes first and spill onto 256-GB nodes:
``waste = 128 Ls + 128 max(0, Ls - F_128) + 256 Ll - f3``. Constraints: ``f1 <= F_N``,
``f2 <= F_B`` and, with SSDs, ``Ll <= F_256``, ``Ls + Ll <= F_128 + F_256``.

>>> w = Window.of([(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)], 100, 100, 100, 100)
>>> w.masks_of([[0, 4], [1, 2, 3, 4]])
[17, 15]
>>> w.evaluate([17, 15, 31])
(array([ True,  True, False]), array([[100,  20],
       [ 80,  90],
       [160, 110]]))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from fluxgraph.errors import SimulationError
from fluxgraph.papers.bbsched.machine import SSD_LARGE, SSD_SMALL

__all__ = ["Window", "nondominated", "pareto_front"]

#: A front member: ``(mask, objective vector)``.
Member = tuple[int, tuple[int, ...]]


@dataclass
class Window:
    """The optimisation problem of one pass (see the module docstring).

    ``ssd`` is ``None`` on machines without local SSDs (two objectives), else the per-node SSD
    request of each candidate (four objectives).
    """

    nodes: np.ndarray
    bb: np.ndarray
    free_nodes: int
    free_bb: int
    total_nodes: int
    total_bb: int
    ssd: np.ndarray | None = None
    free_small: int = 0
    free_large: int = 0
    ssd_total: int = 0
    _columns: np.ndarray = field(init=False, repr=False)
    _shifts: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.nodes = np.asarray(self.nodes, dtype=np.int64)
        self.bb = np.asarray(self.bb, dtype=np.int64)
        if len(self.nodes) > 62:
            raise SimulationError(f"a window holds at most 62 candidates, got {len(self.nodes)}")
        cols = [self.nodes, self.bb]
        if self.ssd is not None:
            self.ssd = np.asarray(self.ssd, dtype=np.int64)
            large = self.ssd > SSD_SMALL
            cols += [self.ssd * self.nodes, np.where(large, 0, self.nodes)]
            cols += [np.where(large, self.nodes, 0)]
        self._columns = np.stack(cols, axis=1) if len(self.nodes) else np.zeros((0, len(cols)))
        self._shifts = np.arange(len(self.nodes) - 1, -1, -1, dtype=np.int64)

    @classmethod
    def of(
        cls,
        demands: Sequence[tuple[int, ...]],
        free_nodes: int,
        free_bb: int,
        total_nodes: int,
        total_bb: int,
        free_small: int = 0,
        free_large: int = 0,
    ) -> Window:
        """A window from ``(n, b)`` pairs, or ``(n, b, s)`` triples on an SSD machine."""
        ssd = None
        total_ssd = 0
        if demands and len(demands[0]) == 3:
            ssd = [d[2] for d in demands]
            total_ssd = SSD_SMALL * (total_nodes // 2) + SSD_LARGE * (
                total_nodes - total_nodes // 2
            )
        return cls(
            [d[0] for d in demands],
            [d[1] for d in demands],
            free_nodes,
            free_bb,
            total_nodes,
            total_bb,
            ssd,
            free_small,
            free_large,
            total_ssd,
        )

    @property
    def size(self) -> int:
        """``k``, the number of candidates."""
        return len(self.nodes)

    @property
    def objectives(self) -> int:
        """2 (nodes, BB) or 4 (plus SSD used and SSD waste)."""
        return 2 if self.ssd is None else 4

    def gene(self, i: int) -> int:
        """The mask bit of candidate ``i``."""
        return 1 << (self.size - 1 - i)

    def masks_of(self, selections: Iterable[Iterable[int]]) -> list[int]:
        """Masks of candidate-index selections."""
        return [sum(self.gene(i) for i in set(sel)) for sel in selections]

    def members(self, mask: int) -> list[int]:
        """The candidate indices of ``mask``, in window order."""
        return [i for i in range(self.size) if mask >> (self.size - 1 - i) & 1]

    def sums(self, masks: Sequence[int] | np.ndarray) -> np.ndarray:
        """Column sums ``(n, b[, s n, Ls, Ll])`` of each mask (rows)."""
        m = np.asarray(masks, dtype=np.int64)
        bits = (m[:, None] >> self._shifts) & 1
        return bits @ self._columns

    def judge(self, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(feasible, objective vectors)`` from column sums (vectorised over rows)."""
        ok = (sums[:, 0] <= self.free_nodes) & (sums[:, 1] <= self.free_bb)
        if self.ssd is None:
            return ok, sums[:, :2]
        small, large = sums[:, 3], sums[:, 4]
        ok &= (large <= self.free_large) & (small + large <= self.free_small + self.free_large)
        spill = np.maximum(0, small - self.free_small)
        waste = SSD_SMALL * (small + spill) + SSD_LARGE * large - sums[:, 2]
        return ok, np.stack([sums[:, 0], sums[:, 1], sums[:, 2], -waste], axis=1)

    def evaluate(self, masks: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(feasible, objective vectors)`` of ``masks``."""
        return self.judge(self.sums(masks))


def nondominated(vectors: np.ndarray) -> np.ndarray:
    """Which rows no other row dominates (strict dominance; equal rows do not dominate).

    >>> nondominated(np.array([[3, 1], [1, 3], [2, 1], [3, 1]])).tolist()
    [True, True, False, True]
    """
    v = np.asarray(vectors)
    if len(v) == 0:
        return np.zeros(0, dtype=bool)
    ge = (v[:, None, :] >= v[None, :, :]).all(axis=2)
    gt = (v[:, None, :] > v[None, :, :]).any(axis=2)
    return ~(ge & gt).any(axis=0)


def pareto_front(masks: np.ndarray, vectors: np.ndarray) -> list[Member]:
    """The non-dominated vectors of a feasible set, each with its front-most mask, sorted by
    decreasing ``f1`` (then the other objectives)."""
    if len(masks) == 0:
        return []
    m = vectors.shape[1]
    keys = [masks] + [vectors[:, j] for j in range(m - 1, -1, -1)]
    order = np.lexsort(keys)[::-1]  # f1 desc, ..., then mask desc
    v, mk = vectors[order], masks[order]
    if m == 2:
        out: list[Member] = []
        best = None
        for (f1, f2), mask in zip(v.tolist(), mk.tolist(), strict=True):
            if best is None or f2 > best:
                out.append((mask, (f1, f2)))
                best = f2
        return out
    front: list[Member] = []
    kept = np.zeros((0, m), dtype=np.int64)
    previous = None
    for row, mask in zip(v, mk.tolist(), strict=True):
        vec = tuple(row.tolist())
        if vec == previous:
            continue
        previous = vec
        if len(kept) and ((kept >= row).all(axis=1) & (kept > row).any(axis=1)).any():
            continue
        front.append((mask, vec))
        kept = np.vstack([kept, row])
    return front
