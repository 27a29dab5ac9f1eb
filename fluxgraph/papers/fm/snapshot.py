"""What the FM allocator counts fits on (spec §4.3 step 2): the free nodes per rack and free GB
per pool over one window, and how many nodes can get a ``k`` GB chunk, for one job or (with
numpy) for many at once."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fluxgraph.papers.fm.placement import chunk_capacity

__all__ = ["FitSnapshot"]

#: The largest value :func:`_distinct` counts rather than sorts.
_COUNTING_LIMIT = 1 << 16


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(values, return_inverse=True)`` for small non-negative integers (GB),
    by counting instead of sorting."""
    top = int(values.max())
    if top > _COUNTING_LIMIT:
        return np.unique(values, return_inverse=True)
    present = np.bincount(values, minlength=top + 1) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _chunks_per_rack(caps: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """``sum(c // k for c in caps[r] if c > 0)`` per ``k`` of ``ks`` (ascending) and rack ``r``.

    In floating point where every ``c * k < 2**53``: a quotient ``c / k`` that is not a whole
    number lies at least ``1 / k`` from one, farther than its rounding error (``c / 2**53``),
    so its floor is exact (and numpy's float division is many times faster than its integer
    floor division).

    >>> _chunks_per_rack(np.array([[1024, 100], [-5, 441]]), np.array([100, 441])).tolist()
    [[11, 4], [2, 1]]
    """
    caps = np.maximum(caps, 0)
    if int(caps.max(initial=0)) * int(ks[-1]) < 2**53:
        quotients = np.floor(caps[None, :, :] / ks[:, None, None].astype(np.float64))
        return quotients.sum(axis=2).astype(np.int64)
    return (caps[None, :, :] // ks[:, None, None]).sum(axis=2)


class FitSnapshot:
    """Free nodes per rack and free GB per pool over one window, with fit counts per ``k``."""

    __slots__ = ("_listed", "_lister", "caps", "fit_counts", "free", "sizes")

    def __init__(
        self, sizes: list[int], caps: list[list[int]], lister: Callable[[], list[list[int]]]
    ) -> None:
        self.sizes = sizes  # free nodes per rack
        self.caps = caps
        self.free = sum(sizes)
        self.fit_counts: dict[int, int] = {}
        self._lister = lister
        self._listed: list[list[int]] | None = None

    @property
    def nodes(self) -> list[list[int]]:
        """The free nodes of each rack in ascending order (listed when first asked: the
        counts need only their number)."""
        if self._listed is None:
            self._listed = self._lister()
        return self._listed

    def counts_fit(self, procs: np.ndarray, remote: np.ndarray, system: bool) -> np.ndarray:
        """:meth:`fit_count` for many jobs at once: which have enough free nodes and, needing
        ``k > 0`` GB each, enough nodes that can get a chunk."""
        ok = procs <= self.free
        pos = ok & (remote > 0)
        if pos.any():
            ks, inverse = _distinct(remote[pos])
            chunks = _chunks_per_rack(np.array(self.caps, dtype=np.int64), ks)
            if system:
                counts = np.minimum(chunks.sum(axis=1), self.free)
            else:
                sizes = np.array(self.sizes, dtype=np.int64)
                counts = np.minimum(chunks, sizes[None, :]).sum(axis=1)
            ok[pos] = counts[inverse] >= procs[pos]
        return ok

    def fit_count(self, k: int, system: bool) -> int:
        """Nodes that can get a ``k`` GB chunk: from their own rack (exact for
        ``rack_balance``) or, in system scope, from any rack (an upper bound)."""
        if system:
            return min(self.free, sum(chunk_capacity(c, k) for c in self.caps))
        return sum(
            min(size, chunk_capacity(c, k)) for size, c in zip(self.sizes, self.caps, strict=True)
        )
