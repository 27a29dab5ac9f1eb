"""The Fluxion paper's planner example (Fig. 3/4), worked by :class:`Planner`
(``fluxgraph demo``).

The paper (Patki et al., SC-W 2023, §4.1) plans a pool of 8 units and adds three jobs written
``<amount, duration, start>``: ``<8,1,0>``, ``<3,3,1>`` and ``<7,1,6>``. It then asks whether 5
units fit for 2 ticks at t1 and at t6, and for the earliest start of 6 units for 1 and for 2
ticks. Taking the tuples literally (half-open spans, ``<3,3,1>`` occupies ``[1, 4)``) the free
run at t4 is 8 units wide, so both earliest starts are t4. The paper's answers (t5 and t7)
follow from its figure, where the second job's end point sits at t5; the demo prints both.

>>> demo()  # doctest: +ELLIPSIS
Fluxion Fig. 3/4, a pool of 8 units, tuples as printed:
...
0
"""

from __future__ import annotations

from collections.abc import Sequence

from fluxgraph.planner.planner import Planner

__all__ = ["demo"]

_TOTAL = 8
_WINDOW = 10


def _example(jobs: Sequence[tuple[int, int, int]], title: str) -> list[str]:
    """Plan ``jobs`` (``(amount, duration, start)``) and answer the paper's four questions."""
    p = Planner(0, _WINDOW, _TOTAL, "memory")
    lines = [title]
    for amount, duration, start in jobs:
        sid = p.add_span(start, duration, amount)
        lines.append(
            f"  span {sid}: <{amount},{duration},{start}> uses {amount} units over "
            f"[t{start}, t{start + duration})"
        )
    times = sorted({0} | {t for _, d, s in jobs for t in (s, s + d)})
    points = " ".join(f"t{at}:{p.avail_resources_at(at)}" for at in times)
    lines.append(f"  scheduled points (time:free): {points}")
    for at in (1, 6):
        answer = "yes" if p.avail_during(at, 2, 5) else "no"
        lines.append(f"  5 units for 2 ticks at t{at}? {answer}")
    for duration in (1, 2):
        t = p.avail_time_first(0, duration, 6)
        lines.append(f"  earliest start of 6 units for {duration} tick(s): t{t}")
    return lines


def demo() -> int:
    """Print the planner's worked example; returns the process exit status."""
    literal = [(8, 1, 0), (3, 3, 1), (7, 1, 6)]
    drawn = [(8, 1, 0), (3, 4, 1), (7, 1, 6)]
    out = _example(literal, f"Fluxion Fig. 3/4, a pool of {_TOTAL} units, tuples as printed:")
    out += _example(drawn, "As drawn in Fig. 4 (second job ending at t5), the paper's t5/t7:")
    print("\n".join(out))
    return 0
