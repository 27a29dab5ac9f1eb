"""The placement rules of FM spec §4.5 (A5) on a snapshot of free nodes and pool capacities.

Pure functions: ``free[r]`` is the ascending list of free node indices of rack ``r``, ``caps[r]``
the free GB of each pool of rack ``r`` (pool ``q`` of rack ``r`` is ``r * P + q``). A placement
is a list of ``(node, pool, gb)``: one entry per node (``pool = -1`` and ``gb = 0`` when the job
needs no remote memory, ``k = 0``). Ties: lower rack, lower pool, lower node index.

``rack_balance`` (rack scope; "consolidate in as few racks as possible while balancing racks")
    racks by free nodes, most first; ``k = 0``: lowest free nodes rack by rack; ``k > 0``: in each
    rack its pools by free GB, most first, each taking ``min(cap // k, free nodes left, still
    needed)`` chunks of ``k`` GB, each paired with the rack's next free node.
``system_local_first`` (system scope, §9 D7)
    ``rack_balance``; failing that, nodes by the ``k = 0`` rule, each node's chunk from the
    fullest pool of its own rack that holds it, else the fullest such pool machine-wide.
``system_balance`` (system scope, ``system_alloc=balance``: the public simulator's
    ``system_balance_allocation``, spec amendment of 2026-11-28)
    nodes by the ``k = 0`` rule, each node's chunk from the fullest pool machine-wide, wherever
    its rack (locality ignored).

Worked example of spec §4.5 (2 racks x 4 nodes, one 1,024 GB memnode per rack):

>>> free, caps = [[0, 1, 2, 3], [4, 5, 6, 7]], [[1024], [1024]]
>>> rack_balance(free, caps, 3, 336)
[(0, 0, 336), (1, 0, 336), (2, 0, 336)]
"""

from __future__ import annotations

import heapq

__all__ = ["Chunk", "chunk_capacity", "rack_balance", "system_balance", "system_local_first"]

#: ``(node, pool, gb)``: one node of a placement and where its remote chunk lives.
Chunk = tuple[int, int, int]


def _rack_order(free: list[list[int]]) -> list[int]:
    return sorted(range(len(free)), key=lambda r: (-len(free[r]), r))


def chunk_capacity(caps: list[int], k: int) -> int:
    """How many ``k`` GB chunks pools with free ``caps`` hold (one chunk never spans pools).

    >>> chunk_capacity([1024, 1024, 100], 441)
    4
    """
    return sum(c // k for c in caps if c > 0) if k > 0 else 0


def _nodes_only(free: list[list[int]], n: int) -> list[int] | None:
    if sum(len(f) for f in free) < n:
        return None
    taken: list[int] = []
    for r in _rack_order(free):
        take = min(n - len(taken), len(free[r]))
        taken += free[r][:take]
        if len(taken) == n:
            break
    return taken


def rack_balance(
    free: list[list[int]], caps: list[list[int]], n: int, k: int, counted: bool = False
) -> list[Chunk] | None:
    """The rack-scope placement of ``n`` nodes with ``k`` GB of remote memory each, or ``None``.

    ``counted``: the caller found at least ``n`` nodes that can get a chunk from their own rack
    (``sum(min(len(free[r]), chunk_capacity(caps[r], k)))``), so it is not counted again.

    >>> free, caps = [[3], [4, 5, 6, 7]], [[16], [1024]]   # the example, after jobs A and B
    >>> rack_balance(free, caps, 2, 136)
    [(4, 1, 136), (5, 1, 136)]
    >>> rack_balance([[3], [6, 7]], [[16], [752]], 2, 536) is None   # job C waits
    True
    """
    if k <= 0:
        nodes = _nodes_only(free, n)
        return None if nodes is None else [(g, -1, 0) for g in nodes]
    if not counted:
        fits = sum(min(len(f), chunk_capacity(c, k)) for f, c in zip(free, caps, strict=True))
        if fits < n:
            return None
    pools_per_rack = len(caps[0]) if caps else 0
    placed: list[Chunk] = []
    for r in _rack_order(free):
        nodes = free[r]
        used = 0
        for q in sorted(range(len(caps[r])), key=lambda q: (-caps[r][q], q)):
            cap = caps[r][q]
            if cap < k:
                break
            c = min(cap // k, len(nodes) - used, n - len(placed))
            pool = r * pools_per_rack + q
            placed += [(g, pool, k) for g in nodes[used : used + c]]
            used += c
            if len(placed) == n or used == len(nodes):
                break
        if len(placed) == n:
            return placed
    raise AssertionError("rack_balance: the capacity count and the walk disagree")


def system_local_first(
    free: list[list[int]], caps: list[list[int]], n: int, k: int
) -> list[Chunk] | None:
    """The system-scope placement: ``rack_balance``, else chunks from any rack (own first).

    >>> system_local_first([[0, 1], [2, 3]], [[1024], [0]], 3, 400) is None   # 2 chunks fit
    True
    >>> system_local_first([[0, 1], [2, 3]], [[1024], [0]], 2, 400)
    [(0, 0, 400), (1, 0, 400)]
    >>> system_local_first([[0], [2, 3]], [[1024], [0]], 2, 400)
    [(2, 0, 400), (3, 0, 400)]
    """
    placed = rack_balance(free, caps, n, k)
    if placed is not None or k <= 0:
        return placed
    nodes = _nodes_only(free, n)
    if nodes is None:
        return None
    pools_per_rack = len(caps[0]) if caps else 0
    if pools_per_rack == 0:
        return None
    left = [list(c) for c in caps]
    rack_of = {g: r for r, f in enumerate(free) for g in f}
    placed = []
    for g in nodes:
        own = rack_of[g]
        q = max(range(pools_per_rack), key=lambda q: (left[own][q], -q))
        r = own
        if left[own][q] < k:
            r, q = max(
                ((r, q) for r in range(len(left)) for q in range(pools_per_rack)),
                key=lambda rq: (left[rq[0]][rq[1]], -rq[0], -rq[1]),
            )
            if left[r][q] < k:
                return None
        left[r][q] -= k
        placed.append((g, r * pools_per_rack + q, k))
    return placed


def system_balance(
    free: list[list[int]], caps: list[list[int]], n: int, k: int
) -> list[Chunk] | None:
    """The locality-blind system-scope placement: nodes by the ``k = 0`` rule, each node's chunk
    from the pool with the most free GB machine-wide (ties: lower pool index).

    It places exactly when ``n`` nodes are free and the pools hold ``n`` chunks (each chunk
    taken from a pool holding one lowers that count by one), as ``system_local_first`` does.

    >>> system_balance([[0, 1], [2, 3]], [[600], [900]], 2, 400)   # the fullest pool, each time
    [(0, 1, 400), (1, 0, 400)]
    >>> system_balance([[0, 1], [2, 3]], [[1024], [0]], 3, 400) is None
    True
    """
    nodes = _nodes_only(free, n)
    if nodes is None or k <= 0:
        return None if nodes is None else [(g, -1, 0) for g in nodes]
    per_rack = len(caps[0]) if caps else 0
    heap = [(-c, r * per_rack + q) for r, row in enumerate(caps) for q, c in enumerate(row)]
    heapq.heapify(heap)
    placed: list[Chunk] = []
    for g in nodes:
        if not heap or -heap[0][0] < k:
            return None
        cap, pool = heapq.heappop(heap)
        placed.append((g, pool, k))
        heapq.heappush(heap, (cap + k, pool))
    return placed
