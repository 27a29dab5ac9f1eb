"""Per-vertex scheduling state: lazily created planners, job maps and traversal colours.

Vertex planners (``size`` units over ``[0, INT64_MAX)``) and exclusivity checkers are created on
first use: a vertex without a planner has all of its units free, so a fresh 80K-vertex graph costs
no planner objects at all. They start as :class:`SmallPlanner` (a few spans in a dict; most
vertices never hold more than a handful at a time) and become a full :class:`Planner` when they
grow or when an operation beyond the common few is asked for.
"""

from __future__ import annotations

from collections.abc import Iterator

from fluxgraph.errors import PlannerError
from fluxgraph.graph import ResourceGraph
from fluxgraph.planner import INT64_MAX, Planner, PlannerInvalidError, PlannerRangeError
from fluxgraph.planner import ids as _ids

__all__ = [
    "CONSTRAINED_TYPES",
    "INT64_MAX",
    "X_CHECKER_NJOBS",
    "Colors",
    "JobMeta",
    "SmallPlanner",
    "avail_during",
    "learned_weight",
    "own_planner",
    "put",
    "x_checker",
]

#: Total of an exclusivity-checker planner: one unit per job touching the vertex.
X_CHECKER_NJOBS = 1 << 30
#: What a match books (``JobMeta.alloc_type``): an allocation, nothing, a reservation, or
#: nothing while ignoring status (satisfiability).
ALLOC, NO_ALLOC, ALLOC_ORELSE_RESERVE, SATISFIABILITY = range(4)
#: Vertex types a match's constraint (``attributes.system.constraints``) applies to.
CONSTRAINED_TYPES = ("node", "storage_node")


class JobMeta:
    """One match request's time window and bookkeeping (``jobmeta_t``).

    >>> m = JobMeta(7, at=100, duration=60)
    >>> (m.jobid, m.at, m.now, m.duration, m.alloc_type == ALLOC)
    (7, 100, 100, 60, True)
    """

    __slots__ = ("alloc_type", "at", "constraint", "duration", "jobid", "now", "queue")

    def __init__(self, jobid: int, at: int, duration: int, constraint=None, queue: str = ""):
        self.jobid = jobid
        self.at = at
        self.now = at
        self.duration = duration
        self.alloc_type = ALLOC
        self.constraint = constraint
        self.queue = queue


#: Spans a :class:`SmallPlanner` holds before it becomes a :class:`Planner`.
SMALL_SPANS = 8


class SmallPlanner:
    """A :class:`~fluxgraph.planner.Planner` over ``[0, INT64_MAX)`` for a few spans.

    Answers every query exactly as a ``Planner`` with the same spans (same span ids, same
    errors). The spans live in a dict and each query scans them, which for the handful of spans
    a vertex planner usually holds is several times cheaper than the planner's scheduled-point
    structure. Beyond :data:`SMALL_SPANS` live spans, or on any ``Planner`` method not
    implemented here (``avail_time_first``, ``reduce_span``, ``update_total``, ...), it builds the
    equivalent ``Planner`` (replaying the spans so that ids match) and delegates to it from
    then on.

    Examples
    --------
    >>> p = SmallPlanner(4, "core")
    >>> p.add_span(10, 5, 3), p.add_span(12, 10, 1)
    (1, 2)
    >>> p.avail_resources_during(0, 11), p.avail_resources_during(12, 3), p.avail_resources_at(15)
    (1, 0, 3)
    >>> p.avail_time_first(1, 5, 4)  # not kept small: answered by the full planner
    22
    """

    __slots__ = ("_big", "_counter", "_spans", "_total", "_type")

    def __init__(self, total: int, resource_type: str) -> None:
        self._total = total
        self._type = resource_type
        self._spans: dict[int, tuple[int, int, int]] = {}
        self._counter = 0
        self._big: Planner | None = None

    @classmethod
    def holding(cls, total: int, resource_type: str, start: int, end: int, amount: int):
        """A new planner holding one span ``[start, end)`` of ``amount`` (span id 1), built
        without the checks of :meth:`add_span`: the caller has checked that
        ``0 <= start < end <= INT64_MAX`` and ``0 <= amount <= total``.

        >>> SmallPlanner.holding(4, "core", 10, 15, 3).avail_resources_during(12, 1)
        1
        """
        p = object.__new__(cls)
        p._total = total
        p._type = resource_type
        p._spans = {1: (start, end, amount)}
        p._counter = 1
        p._big = None
        return p

    def take_id(self, count: int = 1) -> int:
        """The ``count`` ids :meth:`add_span` would give next, taken; the first of them (see
        :mod:`fluxgraph.planner.ids`).

        >>> p = SmallPlanner(4, "core"); late = p.take_id(); p.add_span(0, 5, 1)
        2
        >>> p.add_span_id(late, 5, 5, 4); sorted(p.span_ids())
        [1, 2]
        """
        return _ids.take_id(self if self._big is None else self._big, count)

    def add_span_id(self, sid: int, start: int, duration: int, amount: int) -> None:
        """:meth:`add_span` under the id ``sid`` taken by :meth:`take_id` (same checks)."""
        kept_small = self._big is None and len(self._spans) < SMALL_SPANS
        _ids.add_span_id(self if kept_small else self._promote(), sid, start, duration, amount)

    def _promote(self) -> Planner:
        big = self._big
        if big is None:
            big = Planner(0, INT64_MAX, self._total, self._type)
            spans = self._spans
            for sid in range(1, self._counter + 1):  # span ids are a counter: replay the gaps
                span = spans.get(sid)
                if span is None:
                    big.rem_span(big.add_span(0, 1, 0))
                else:
                    big.add_span(span[0], span[1] - span[0], span[2])
            self._big = big
            self._spans = {}
        return big

    def __getattr__(self, name: str):
        if name.startswith("__") or name in SmallPlanner.__slots__:
            raise AttributeError(name)  # (copy/pickle probing, or a slot not yet set)
        return getattr(self._promote(), name)

    def __repr__(self) -> str:
        if self._big is not None:
            return repr(self._big)
        return f"SmallPlanner(total={self._total}, type={self._type!r}, spans={self._spans})"

    @property
    def resource_total(self) -> int:
        return self._total if self._big is None else self._big.resource_total

    @property
    def resource_type(self) -> str:
        return self._type

    @property
    def base_time(self) -> int:
        return 0

    @property
    def duration(self) -> int:
        return INT64_MAX if self._big is None else self._big.duration

    def _used(self, t0: int, t1: int) -> int:
        """Largest amount in use at one time over ``[t0, t1)`` (``0 <= t0 < t1``)."""
        spans = self._spans.values()
        if len(spans) == 1:  # the usual case: one job holds the vertex
            for s, e, a in spans:
                return a if s < t1 and e > t0 else 0
        worst = 0
        for s, e, _ in spans:
            # usage only rises at span starts: the peak is at t0 or at a start inside
            if s < t1 and e > t0:
                t = s if s > t0 else t0
                used = 0
                for s2, e2, a2 in spans:
                    if s2 <= t < e2:
                        used += a2
                if used > worst:
                    worst = used
        return worst

    def add_span(self, start: int, duration: int, request: int) -> int:
        spans = self._spans
        if not spans and self._big is None:  # the usual case: the vertex's first job
            end = start + duration
            if start >= 0 and duration >= 1 and end <= INT64_MAX and 0 <= request <= self._total:
                self._counter = sid = self._counter + 1
                spans[sid] = (start, end, request)
                return sid
        big = self._big
        if big is not None or len(spans) >= SMALL_SPANS:
            return (big or self._promote()).add_span(start, duration, request)
        end = start + duration
        for s, e, a in spans.values():
            if s < end and e > start and a:
                used = self._used(start, end)
                break
        else:  # the usual case: no span in the window (one pass, no peak to find)
            used = 0
        if (
            start >= 0 and duration >= 1 and end <= INT64_MAX and 0 <= request <= self._total - used
        ):  # the usual case: a valid span that fits (else the checks below name the error)
            self._counter = sid = self._counter + 1
            spans[sid] = (start, end, request)
            return sid
        if end > INT64_MAX:
            raise PlannerInvalidError(f"span [{start}, {end}) ends after the plan end")
        if (
            self._spans
            and duration >= 1
            and start >= 0
            and self._total - self._used(start, end) < request
        ) or (request > self._total and duration >= 1 and start >= 0):
            raise PlannerInvalidError(f"{request} units not free over [{start}, {end})")
        if start < 0 or duration < 1:
            raise PlannerInvalidError(
                f"span start={start}, duration={duration} outside the planning window"
            )
        if request > self._total or request < 0:
            raise PlannerRangeError(f"span amount {request} outside [0, {self._total}]")
        self._counter = sid = self._counter + 1
        self._spans[sid] = (start, end, request)
        return sid

    def rem_span(self, span_id: int) -> None:
        if self._big is not None:
            self._big.rem_span(span_id)
        elif self._spans.pop(span_id, None) is None:
            raise PlannerInvalidError(f"unknown span id {span_id!r}")

    def avail_resources_during(self, at: int, duration: int) -> int:
        if self._big is not None:
            return self._big.avail_resources_during(at, duration)
        if at > INT64_MAX or duration < 1:
            raise PlannerInvalidError(f"invalid window at={at!r}, duration={duration!r}")
        end = at + duration
        if end > INT64_MAX:
            raise PlannerRangeError(f"window [{at}, {end}) ends after the plan end")
        if at < 0:
            raise PlannerInvalidError(f"time {at} before the base time 0")
        return self._total - self._used(at, end) if self._spans else self._total

    def avail_during(self, at: int, duration: int, request: int) -> bool:
        if self._big is not None:
            return self._big.avail_during(at, duration, request)
        if duration < 1:
            raise PlannerInvalidError(f"duration {duration!r} < 1")
        if request > self._total:
            raise PlannerRangeError(f"request {request} > total {self._total}")
        end = at + duration
        if end > INT64_MAX:
            raise PlannerRangeError(f"window [{at}, {end}) ends after the plan end")
        if at < 0:
            return True  # no state point before the window: vacuous success (quirk)
        return self._total - self._used(at, end) >= request

    def avail_resources_at(self, at: int) -> int:
        if self._big is not None:
            return self._big.avail_resources_at(at)
        if at > INT64_MAX or at < 0:
            raise PlannerRangeError(f"time {at} outside [0, {INT64_MAX}]")
        return self._total - sum(a for s, e, a in self._spans.values() if s <= at < e)

    def span_ids(self) -> Iterator[int]:
        if self._big is not None:
            return self._big.span_ids()
        return iter(sorted(self._spans))

    def span_size(self) -> int:
        return self._big.span_size() if self._big is not None else len(self._spans)

    def _span(self, span_id: int) -> tuple[int, int, int]:
        span = self._spans.get(span_id)
        if span is None:
            raise PlannerInvalidError(f"unknown span id {span_id!r}")
        return span

    def is_active_span(self, span_id: int) -> bool:
        if self._big is not None:
            return self._big.is_active_span(span_id)
        self._span(span_id)
        return True

    def span_start_time(self, span_id: int) -> int:
        if self._big is not None:
            return self._big.span_start_time(span_id)
        return self._span(span_id)[0]

    def span_duration(self, span_id: int) -> int:
        if self._big is not None:
            return self._big.span_duration(span_id)
        start, end, _ = self._span(span_id)
        return end - start

    def span_resource_count(self, span_id: int) -> int:
        if self._big is not None:
            return self._big.span_resource_count(span_id)
        return self._span(span_id)[2]

    def copy(self) -> SmallPlanner:
        new = SmallPlanner(self._total, self._type)
        if self._big is not None:
            new._big = self._big.copy()
        else:
            new._spans = dict(self._spans)
            new._counter = self._counter
        return new

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SmallPlanner):
            other = other.copy()._promote()
        return self.copy()._promote() == other

    __hash__ = None  # type: ignore[assignment]


def put(table: list, v: int, key: int, value: int) -> None:
    """``table[v][key] = value`` for a per-vertex job map (``None`` until its first entry).

    >>> tags = [None]; put(tags, 0, 7, 7); tags
    [{7: 7}]
    """
    d = table[v]
    if d is None:
        table[v] = {key: value}
    else:
        d[key] = value


def own_planner(graph: ResourceGraph, v: int) -> SmallPlanner:
    """The vertex planner of ``v``, created on first use."""
    plans = graph.schedule.plans
    p = plans[v]
    if p is None:
        p = plans[v] = SmallPlanner(graph.sizes[v], graph.types[v])
    return p


def x_checker(graph: ResourceGraph, v: int) -> SmallPlanner:
    """The exclusivity-checker planner of ``v``, created on first use."""
    checkers = graph.schedule.x_checkers
    p = checkers[v]
    if p is None:
        p = checkers[v] = SmallPlanner(X_CHECKER_NJOBS, "jobs")
    return p


def learned_weight(aggregate, now: int) -> int | None:
    """The ``first`` policies' new exploration weight of an edge into a vertex just booked,
    whose aggregate is ``aggregate`` (``Booker._upd_by_outedges``): what it has free of its
    last type at ``now`` (0 where the planner refuses the query); ``None`` where the weight
    stays as it is (no aggregate or no types, or nothing free and no span held at all).

    >>> from fluxgraph.planner import PlannerMulti
    >>> m = PlannerMulti(0, 100, [4, 2], ["core", "node"])
    >>> learned_weight(m, 0), learned_weight(None, 0)
    (2, None)
    """
    if aggregate is None:
        return None
    n = len(aggregate.resource_types)
    if n == 0:
        return None
    try:
        free = aggregate.avail_resources_at(now, n - 1)
    except PlannerError:
        return 0
    if free == 0 and aggregate.span_size() == 0:
        return None
    return free


def avail_during(p: Planner | None, total: int, at: int, duration: int) -> int:
    """Units of ``p`` free over ``[at, at + duration)`` (``total`` when ``p`` is not created)."""
    if p is None:
        return total
    return p.avail_resources_during(at, duration)


class Colors:
    """White/gray/black traversal colours per subsystem, reset in O(1) by an epoch bump.

    A colour value ``c`` is white when ``c <= base``, gray at ``base + 1``, black at
    ``base + 2`` (matching-semantics §3.4).
    """

    __slots__ = ("base", "marks")

    def __init__(self, graph: ResourceGraph, subsystems: list[str]) -> None:
        n = graph.num_vertices
        self.marks = {s: [0] * n for s in subsystems}
        self.base = 0

    def reset(self) -> None:
        """Make every vertex white again."""
        self.base += 3
