"""The traverser's working copy of a jobspec's resource tree.

Each :class:`Request` mirrors one jobspec resource with the fields the walk reads in its inner
loop, plus ``user_data``: the units of each pruning type needed below one instance, computed by
:func:`prime_requests` (matching-semantics §6.4). Built fresh for every match, so repeated matches
of one parsed jobspec never accumulate (the reference's quirk 20 is not reproduced).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fluxgraph.jobspec.counts import UINT_MAX, calc_count

__all__ = ["Request", "build_requests", "prime_requests"]


class Request:
    """One resource request of the jobspec tree, as the traverser walks it."""

    __slots__ = (
        "count_max",
        "count_min",
        "count_operand",
        "count_operator",
        "eff_max",
        "exclusive",
        "label",
        "type",
        "user_data",
        "with_",
    )

    def __init__(
        self,
        rtype: str,
        cmin: int,
        cmax: int,
        operator: str,
        operand: int,
        exclusive: bool | None,
        label: str,
        with_: tuple[Request, ...],
    ) -> None:
        self.type = rtype
        self.count_min = cmin
        self.count_max = cmax
        self.count_operator = operator
        self.count_operand = operand
        self.exclusive = exclusive
        self.label = label
        self.with_ = with_
        self.user_data: dict[str, int] = {}
        self.eff_max = calc_count(self, UINT_MAX)

    def calc_count(self, qualified: int) -> int:
        """Units of this request to take when ``qualified`` are available."""
        return calc_count(self, qualified)

    def __repr__(self) -> str:
        return f"Request({self.type}[{self.count_min}], with={list(self.with_)})"


def build_requests(resources: Iterable[Any]) -> list[Request]:
    """Mirror a jobspec model's resource list (objects with the jobspec package's fields)."""
    out = []
    for r in resources:
        out.append(
            Request(
                r.type,
                r.count_min,
                r.count_max,
                r.count_operator,
                r.count_operand,
                r.exclusive,
                r.label or "",
                tuple(build_requests(r.with_)),
            )
        )
    return out


def prime_requests(
    requests: list[Request],
    to_parent: dict[str, int],
    is_pruning_type: Callable[[str], bool],
    exclusive_types: set[str],
) -> None:
    """Fill ``user_data`` bottom-up and add each request's pruning-type needs to ``to_parent``.

    Also adds the type of every ``exclusive: true`` request to ``exclusive_types``.
    """
    for r in requests:
        if r.exclusive is True:
            exclusive_types.add(r.type)
        if is_pruning_type(r.type):
            to_parent[r.type] = to_parent.get(r.type, 0) + r.count_min
        r.user_data.clear()  # priming twice must not accumulate (the reference's quirk 20)
        prime_requests(list(r.with_), r.user_data, is_pruning_type, exclusive_types)
        for t, n in r.user_data.items():
            if is_pruning_type(t):
                to_parent[t] = (to_parent.get(t, 0) + r.count_min * n) & UINT_MAX
