"""The fast path's verify mode: record what a match emits and compare two traversers' states.

``Matcher(..., fastpath="verify")`` runs every operation on its graph and on a walk-only copy,
and checks with these helpers that outcomes, emitted selections and the whole scheduling state
(every planner's spans, every job map, the aggregates and the learned exploration weights) are
the same.

>>> r = Recorder(None)
>>> r.emit_tm(0, 10); r.calls
[('tm', 0, 10)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fluxgraph.traverser.core import Traverser

__all__ = ["Recorder", "assert_same_state", "expect", "schedule_state"]


def expect(holds: bool, message: str) -> None:
    """Raise ``AssertionError(message)`` unless ``holds`` (verify mode checks even under
    ``python -O``, where ``assert`` statements are dropped)."""
    if not holds:
        raise AssertionError(message)


class Recorder:
    """A match writer that records every call (vertex and edge ids) and forwards it."""

    def __init__(self, forward: Any) -> None:
        self.forward = forward
        self.calls: list[tuple] = []

    def emit_vtx(self, graph, v, level, needs, exclusive, excl_parent, agfilter=None) -> None:
        self.calls.append(("vtx", v, level, needs, exclusive, excl_parent, agfilter))
        if self.forward is not None:
            self.forward.emit_vtx(graph, v, level, needs, exclusive, excl_parent, agfilter)

    def emit_edg(self, graph, e, excl_parent) -> None:
        self.calls.append(("edg", e, excl_parent))
        if self.forward is not None:
            self.forward.emit_edg(graph, e, excl_parent)

    def emit_tm(self, start: int, end: int) -> None:
        self.calls.append(("tm", start, end))
        if self.forward is not None:
            self.forward.emit_tm(start, end)

    def emit_attrs(self, key: str, value: str) -> None:
        self.calls.append(("attrs", key, value))
        if self.forward is not None:
            self.forward.emit_attrs(key, value)


def _planner(p: Any) -> Any:
    """A planner's spans as ``(id, start, duration, amounts)``, ids included."""
    if p is None:
        return None
    if hasattr(p, "span_planned_at"):  # an aggregate: its multi-spans and each type's planner
        n = len(p.resource_types)
        spans = [(sid, tuple(p.span_planned_at(sid, i) for i in range(n))) for sid in p.span_ids()]
        return spans, [_planner(p.planner_at(i)) for i in range(n)]
    return [
        (sid, p.span_start_time(sid), p.span_duration(sid), p.span_resource_count(sid))
        for sid in p.span_ids()
    ]


def schedule_state(tr: Traverser, v: int) -> tuple:
    """Everything the scheduling state holds for vertex ``v`` (spans by id, job maps)."""
    sched = tr.graph.schedule
    subplans = sched.subplans[v]
    return (
        _planner(sched.plans[v]),
        _planner(sched.x_checkers[v]),
        {s: _planner(sp) for s, sp in (subplans or {}).items()},
        sched.allocations[v] or {},
        sched.reservations[v] or {},
        sched.tags[v] or {},
        sched.x_spans[v] or {},
        sched.job2span[v] or {},
    )


def assert_same_state(a: Traverser, b: Traverser) -> None:
    """Assert that two traversers over copies of one graph hold the same scheduling state and
    exploration weights, and that ``a``'s fast path (if any) agrees with its planners."""
    if a.fastpath is not None:
        a.fastpath.flush()  # (its deferred reservations, written: see :mod:`.fastpath_defer`)
    n = a.graph.num_vertices
    expect(n == b.graph.num_vertices, "the graphs differ in size")
    for v in range(n):
        sa, sb = schedule_state(a, v), schedule_state(b, v)
        expect(sa == sb, f"vertex {v}: fast path state {sa} != walk state {sb}")
    expect(a.e_weight == b.e_weight, "exploration weights differ")
    expect(list(a.graph.status) == list(b.graph.status), "statuses differ")
    if a.fastpath is not None:
        a.fastpath._check()
