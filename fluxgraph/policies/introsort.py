"""libstdc++'s ``std::sort`` (introsort), reproduced for identical tie-breaking.

The reference picks the best candidates by sorting evaluation groups with GCC's unstable
``std::sort``; among equal scores the winner is whatever that algorithm leaves in front. This
module follows the algorithm described in the reference specification (matching-semantics §9.1)
step for step, so ties resolve exactly as the reference resolves them.

Sorting sequences of at most 16 items is a stable insertion sort there, and any correct sort
agrees with it when all keys are distinct, so :func:`sort_by_score` uses Python's ``list.sort`` on
those fast paths and runs the exact port only for longer, tie-bearing vectors.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key
from operator import attrgetter
from typing import Any, TypeVar

__all__ = ["introsort", "introsort_by_key", "sort_by_score"]

T = TypeVar("T")

#: libstdc++'s ``_S_threshold``: ranges at most this long are left to insertion sort.
_THRESHOLD = 16


def introsort(v: list[T], less: Callable[[T, T], bool]) -> None:
    """Sort ``v`` in place exactly as libstdc++ ``std::sort(v.begin(), v.end(), less)`` does.

    Each comparison calls ``less`` once, with the arguments in ``std::sort``'s order.

    Runtime complexity: O(n log n) comparisons.

    Examples
    --------
    >>> items = [(5, i) for i in range(17)]
    >>> introsort(items, lambda a, b: a[0] < b[0])
    >>> items[0]
    (5, 8)
    """
    key = cmp_to_key(lambda a, b: -1 if less(a, b) else 0)  # key(a) < key(b): less(a, b)
    introsort_by_key(v, key)


def introsort_by_key(v: list[T], key: Callable[[T], Any]) -> None:
    """:func:`introsort` with the comparison ``key(a) < key(b)`` (each key computed once).

    >>> words = ["bb", "a", "cc", "d"]
    >>> introsort_by_key(words, len)
    >>> words
    ['a', 'd', 'bb', 'cc']
    """
    n = len(v)
    if n < 2:
        return
    pairs = [(key(x), x) for x in v]
    _intro(pairs, 0, n, 2 * (n.bit_length() - 1))
    _final_insertion(pairs, 0, n)
    v[:] = [x for _, x in pairs]


# The steps below sort (key, item) pairs and compare the keys alone (``a[0] < b[0]``).


def _intro(v: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heapsort(v, first, last)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last)
        _intro(v, cut, last, depth)
        last = cut


def _partition_pivot(v: list, first: int, last: int) -> int:
    mid = first + (last - first) // 2
    a, b, c = first + 1, mid, last - 1
    ka, kb, kc = v[a][0], v[b][0], v[c][0]
    if ka < kb:
        if kb < kc:
            m = b
        elif ka < kc:
            m = c
        else:
            m = a
    elif ka < kc:
        m = a
    elif kb < kc:
        m = c
    else:
        m = b
    v[first], v[m] = v[m], v[first]
    lo, hi = first + 1, last
    pivot = v[first][0]
    while True:
        while v[lo][0] < pivot:
            lo += 1
        hi -= 1
        while pivot < v[hi][0]:
            hi -= 1
        if not lo < hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _final_insertion(v: list, first: int, last: int) -> None:
    if last - first > _THRESHOLD:
        _insertion(v, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(v, i)
    else:
        _insertion(v, first, last)


def _insertion(v: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        x = v[i]
        if x[0] < v[first][0]:
            v[first + 1 : i + 1] = v[first:i]
            v[first] = x
        else:
            _linear_insert(v, i)


def _linear_insert(v: list, i: int) -> None:
    x = v[i]
    k = x[0]
    j = i
    while k < v[j - 1][0]:
        v[j] = v[j - 1]
        j -= 1
    v[j] = x


def _heapsort(v: list, first: int, last: int) -> None:
    n = last - first
    if n >= 2:
        parent = (n - 2) // 2
        while True:
            _adjust(v, first, parent, n, v[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        x = v[last]
        v[last] = v[first]
        _adjust(v, first, 0, last - first, x)


def _adjust(v: list, f: int, hole: int, n: int, x: Any) -> None:
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if v[f + child][0] < v[f + child - 1][0]:
            child -= 1
        v[f + hole] = v[f + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[f + hole] = v[f + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and v[f + parent][0] < x[0]:
        v[f + hole] = v[f + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[f + hole] = x


_score = attrgetter("score")


def sort_by_score(groups: list, descending: bool) -> None:
    """Sort objects with a ``score`` attribute as ``std::sort`` with ``greater``/``less`` would.

    Runtime complexity: O(n log n); Python's built-in sort where the result cannot differ.

    Examples
    --------
    >>> from types import SimpleNamespace as G
    >>> gs = [G(score=s, tag=i) for i, s in enumerate([3, 5, 3])]
    >>> sort_by_score(gs, descending=True)
    >>> [g.tag for g in gs]
    [1, 0, 2]
    """
    n = len(groups)
    if n < 2:
        return
    if n <= _THRESHOLD or len({g.score for g in groups}) == n:
        groups.sort(key=_score, reverse=descending)
        return
    introsort_by_key(groups, _neg_score if descending else _score)


def _neg_score(g: Any) -> int:
    return -g.score
