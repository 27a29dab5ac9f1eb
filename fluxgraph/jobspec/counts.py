"""Count semantics of jobspec resources (matching-semantics §4.2).

A resource asks for ``count_min`` to ``count_max`` units on a lattice: ``+ k`` steps by ``k``,
``* k`` multiplies by ``k``, ``^ k`` raises to the power ``k``. Selection is greedy: as many units
as are available, up to ``count_max``, rounded down to the lattice. Arithmetic is the reference's
32-bit unsigned arithmetic (:data:`UINT_MAX` means "unbounded").
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["UINT_MAX", "CountSpec", "calc_count", "calc_effective_max"]

#: The reference's "unbounded" count: the largest 32-bit unsigned value.
UINT_MAX = 0xFFFFFFFF


class CountSpec(Protocol):
    """Anything with a jobspec count (a :class:`~fluxgraph.jobspec.Resource` is one)."""

    @property
    def count_min(self) -> int: ...

    @property
    def count_max(self) -> int: ...

    @property
    def count_operator(self) -> str: ...

    @property
    def count_operand(self) -> int: ...


def calc_count(resource: CountSpec, qualified: int) -> int:
    """How many units of ``resource`` to take when ``qualified`` units are available.

    Returns 0 when fewer than ``count_min`` are available. ``qualified`` is read as a 32-bit
    unsigned value, as in the reference. Where the reference's ``*``/``^`` loop would wrap around
    2**32 and never end, this stops at the last value reached before the wrap.

    Runtime complexity: O(1) for ``+``; O(log(count_max)) steps for ``*`` and ``^``.

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> calc_count(R(count_min=2, count_max=8, count_operator="+", count_operand=2), 7)
    6
    >>> calc_count(R(count_min=2, count_max=64, count_operator="*", count_operand=2), 40)
    32
    >>> calc_count(R(count_min=2, count_max=64, count_operator="^", count_operand=2), 40)
    16
    >>> calc_count(R(count_min=3, count_max=3, count_operator="+", count_operand=1), 2)
    0
    """
    qc = qualified & UINT_MAX
    cmin, cmax = resource.count_min, resource.count_max
    if cmin > cmax or cmin > qc:
        return 0
    op, operand = resource.count_operator, resource.count_operand
    if op == "+":
        c = qc if qc < cmax else cmax
        return c - (c - cmin) % operand
    if op == "*":
        if operand == 1:
            return cmin
        c, cur = 0, cmin
        while cur <= qc and cur <= cmax:
            c = cur
            cur = (cur * operand) & UINT_MAX
            if cur <= c:
                break
        return c
    if op == "^":
        if operand < 2 or cmin == 1:
            return cmin
        c, cur = 0, cmin
        while cur <= qc and cur <= cmax:
            c = cur
            cur = pow(cur, operand, UINT_MAX + 1)
            if cur <= c:
                break
        return c
    return 0


def calc_effective_max(resource: CountSpec) -> int:
    """The most units ``resource`` can ever take: ``calc_count(resource, UINT_MAX)``.

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> calc_effective_max(R(count_min=4, count_max=4, count_operator="+", count_operand=1))
    4
    >>> calc_effective_max(R(count_min=1, count_max=UINT_MAX, count_operator="+", count_operand=1))
    4294967295
    >>> calc_effective_max(R(count_min=1, count_max=100, count_operator="+", count_operand=3))
    100
    """
    return calc_count(resource, UINT_MAX)
