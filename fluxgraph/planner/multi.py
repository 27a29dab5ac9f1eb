"""PlannerMulti: one :class:`Planner` per resource type, queried together (matching-semantics §2).

Pruning filters keep one ``PlannerMulti`` per high-level vertex: sub-planner ``i`` tracks the
aggregate free amount of resource type ``i`` in the vertex's subtree, and every job adds one
multi-span with an amount per type (possibly 0) to all sub-planners at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from errno import EBUSY, ENOENT, ERANGE
from operator import attrgetter

from fluxgraph.errors import PlannerError
from fluxgraph.planner.errors import (
    PlannerExistsError,
    PlannerInvalidError,
    PlannerNotFoundError,
    PlannerRangeError,
)
from fluxgraph.planner.planner import INT64_MAX, Planner

__all__ = ["PlannerMulti"]

#: The fields :meth:`PlannerMulti.__eq__` compares.
_FIELDS = attrgetter("_types", "_planners", "_spans", "_counter")


def _check_totals(totals: Sequence[int]) -> None:
    for total in totals:
        if total < 0 or total > INT64_MAX:
            raise PlannerRangeError(f"planner total {total!r} outside [0, INT64_MAX]")


class PlannerMulti:
    """Planners for several resource types over one planning window.

    Sub-planners are indexed in construction order; a repeated type is silently dropped (the
    reference's unique-by-type index refuses it). Multi-span ids start at **0** (single-planner
    span ids start at 1).

    Parameters
    ----------
    base_time, duration : int
        Planning window of every sub-planner (``duration >= 1``).
    totals : sequence of int
        Units per type, ``0 <= total <= INT64_MAX``.
    types : sequence of str
        Type names, parallel to ``totals``.

    Raises
    ------
    PlannerInvalidError
        ``duration < 1``, ``totals``/``types`` missing or of different lengths (EINVAL).
    PlannerRangeError
        A total outside ``[0, INT64_MAX]`` (ERANGE).

    Examples
    --------
    >>> m = PlannerMulti(0, 100, [4, 16], ["core", "memory"])
    >>> m.add_span(0, 10, [4, 8]), m.add_span(0, 20, [0, 8])
    (0, 1)
    >>> m.avail_during(0, 5, [1, 0]), m.avail_time_first(0, 5, [2, 8])
    (False, 10)
    """

    __slots__ = (
        "_base",
        "_counter",
        "_duration",
        "_index",
        "_iter",
        "_planners",
        "_spans",
        "_types",
        "search_errno",
    )

    def __init__(
        self, base_time: int, duration: int, totals: Sequence[int], types: Sequence[str]
    ) -> None:
        if duration < 1 or totals is None or types is None or len(totals) != len(types):
            raise PlannerInvalidError(f"invalid planner_multi: duration={duration!r}")
        _check_totals(totals)
        if any(t is None for t in types):
            raise PlannerInvalidError("resource type None")
        self._base = base_time
        self._duration = duration
        self._planners: list[Planner] = []
        seen: set[str] = set()
        for total, rtype in zip(totals, types, strict=True):
            if rtype not in seen:
                seen.add(rtype)
                self._planners.append(Planner(base_time, duration, total, rtype))
        self._reindex()
        self._spans: dict[int, list[int]] = {}
        self._counter = 0
        self._iter: tuple[int, int, dict[str, int]] | None = None
        #: The errno the reference's last earliest-time search call (``avail_time_first`` /
        #: ``avail_time_next``) left behind: ENOENT when it found nothing, else EBUSY or ERANGE
        #: if another type rejected a candidate on the way, else 0 (errno untouched). Callers
        #: that reproduce the reference's *stale* errno read it (see ``Traverser._reserve``).
        self.search_errno = 0

    def _reindex(self) -> None:
        self._types = tuple(p.resource_type for p in self._planners)
        self._index = {t: i for i, t in enumerate(self._types)}

    # -- getters --------------------------------------------------------------------------------

    @property
    def base_time(self) -> int:
        """Start of the planning window."""
        return self._planners[0].base_time if self._planners else self._base

    @property
    def duration(self) -> int:
        """Length of the planning window."""
        return self._planners[0].duration if self._planners else self._duration

    @property
    def resource_types(self) -> tuple[str, ...]:
        """Type names in index order."""
        return self._types

    def __len__(self) -> int:
        return len(self._planners)

    def resources_len(self) -> int:
        """Number of sub-planners (resource types)."""
        return len(self._planners)

    def _at(self, i: int) -> Planner:
        if i < 0 or i >= len(self._planners):
            raise PlannerInvalidError(f"resource index {i!r} outside [0, {len(self._planners)})")
        return self._planners[i]

    def planner_at(self, i: int) -> Planner:
        """Sub-planner at index ``i`` (EINVAL error when out of range)."""
        return self._at(i)

    def resource_type_at(self, i: int) -> str:
        """Type name at index ``i`` (EINVAL error when out of range)."""
        return self._at(i).resource_type

    def resource_total_at(self, i: int) -> int:
        """Total at index ``i`` (EINVAL error when out of range)."""
        return self._at(i).resource_total

    def resource_total_by_type(self, resource_type: str) -> int:
        """Total of type ``resource_type`` (EINVAL error when the type is not tracked).

        Examples
        --------
        >>> PlannerMulti(0, 10, [4, 16], ["core", "memory"]).resource_total_by_type("memory")
        16
        """
        i = self._index.get(resource_type)
        if i is None:
            raise PlannerInvalidError(f"unknown resource type {resource_type!r}")
        return self._planners[i].resource_total

    def __repr__(self) -> str:
        totals = [p.resource_total for p in self._planners]
        return (
            f"PlannerMulti(base_time={self.base_time}, duration={self.duration}, "
            f"totals={totals}, types={list(self._types)}, spans={len(self._spans)})"
        )

    # -- queries --------------------------------------------------------------------------------

    def avail_during(self, at: int, duration: int, counts: Sequence[int]) -> bool:
        """Whether every type ``i`` has ``counts[i]`` units free over ``[at, at + duration)``.

        Checks the sub-planners in index order and stops at the first that answers no.

        Runtime complexity: the sum of the sub-planners' :meth:`Planner.avail_during`.

        Raises
        ------
        PlannerInvalidError
            ``len(counts)`` differs from the number of types, or ``duration < 1`` (EINVAL).
        PlannerRangeError
            A count above its total, or the window ends after the plan end (ERANGE).

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4, 16], ["core", "memory"])
        >>> _ = m.add_span(0, 5, [3, 16])
        >>> m.avail_during(0, 5, [1, 0]), m.avail_during(0, 5, [1, 1])
        (True, False)
        """
        planners = self._planners
        if counts is None or len(counts) != len(planners):
            raise PlannerInvalidError(f"{len(planners)} counts expected, got {counts!r}")
        for p, c in zip(planners, counts, strict=True):  # noqa: SIM110 (all() adds a frame)
            if not p.avail_during(at, duration, c):
                return False
        return True

    def _rest_ok(self, t: int, duration: int, counts: Sequence[int]) -> bool:
        planners = self._planners
        for i in range(1, len(planners)):
            try:
                if not planners[i].avail_during(t, duration, counts[i]):
                    self.search_errno = EBUSY
                    return False
            except PlannerError as err:
                self.search_errno = err.errno or ERANGE
                return False
        return True

    def avail_time_first(
        self, on_or_after: int, duration: int, counts: Sequence[int]
    ) -> int | None:
        """Earliest time at or after ``on_or_after`` when every type has its count free.

        Candidate times come from sub-planner 0's :meth:`Planner.avail_time_first` /
        :meth:`Planner.avail_time_next`; each is confirmed with ``avail_during`` on the other
        sub-planners (a sub-planner error counts as "no").

        Runtime complexity: per candidate, sub-planner 0's search step plus one
        ``avail_during`` per other type.

        Returns
        -------
        int or None
            The time, or None where the reference fails with ENOENT.

        Raises
        ------
        PlannerInvalidError
            No types, ``len(counts)`` mismatch, or sub-planner 0 rejects the window (EINVAL).
        PlannerRangeError
            ``counts[0]`` above sub-planner 0's total (ERANGE).

        Examples
        --------
        >>> m = PlannerMulti(0, 100, [4, 16], ["core", "memory"])
        >>> _ = m.add_span(0, 10, [1, 16]), m.add_span(10, 10, [4, 0])
        >>> m.avail_time_first(0, 5, [1, 1]), m.avail_time_next()
        (20, None)
        """
        planners = self._planners
        n = len(planners)
        if counts is None or n < 1 or len(counts) != n:
            raise PlannerInvalidError(f"{n} counts expected, got {counts!r}")
        self._iter = (on_or_after, duration, dict(zip(self._types, counts, strict=True)))
        self.search_errno = 0
        p0 = planners[0]
        t = p0.avail_time_first(on_or_after, duration, counts[0])
        while t is not None and not self._rest_ok(t, duration, counts):
            t = p0.avail_time_next()
        if t is None:
            self.search_errno = ENOENT
        return t

    def avail_time_next(self) -> int | None:
        """Next answer of the search started by :meth:`avail_time_first`.

        Runtime complexity: as :meth:`avail_time_first`.

        Raises
        ------
        PlannerInvalidError
            No types, sub-planner 0 has no active search, or a type added by :meth:`update`
            has no saved count (EINVAL).
        """
        planners = self._planners
        if not planners or (self._iter is None and len(planners) > 1):
            raise PlannerInvalidError("avail_time_next without an active avail_time_first")
        p0 = planners[0]
        self.search_errno = 0
        while True:
            t = p0.avail_time_next()
            if t is None:
                self.search_errno = ENOENT
                return None
            _, duration, saved = self._iter or (0, 0, {})
            try:
                counts = [0] + [saved[p.resource_type] for p in planners[1:]]
            except KeyError as err:
                raise PlannerInvalidError(f"no saved count for type {err.args[0]!r}") from None
            if self._rest_ok(t, duration, counts):
                return t

    def avail_resources_at(self, at: int, i: int) -> int:
        """Units of type index ``i`` free at ``at`` (:meth:`Planner.avail_resources_at`)."""
        return self._at(i).avail_resources_at(at)

    def avail_resources_array_at(self, at: int) -> list[int]:
        """Units free at ``at`` for every type, in index order.

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4, 16], ["core", "memory"])
        >>> _ = m.add_span(0, 5, [3, 6])
        >>> m.avail_resources_array_at(0), m.avail_resources_array_during(0, 10)
        ([1, 10], [1, 10])
        """
        return [p.avail_resources_at(at) for p in self._planners]

    def avail_resources_array_during(self, at: int, duration: int) -> list[int]:
        """Minimum units free over ``[at, at + duration)`` for every type (EINVAL if no types)."""
        if not self._planners:
            raise PlannerInvalidError("planner_multi without resource types")
        return [p.avail_resources_during(at, duration) for p in self._planners]

    # -- spans ----------------------------------------------------------------------------------

    def add_span(self, start: int, duration: int, counts: Sequence[int]) -> int:
        """Add a span of ``counts[i]`` units of every type ``i``; return the multi-span id.

        **Reference quirk**: when sub-planner ``i`` rejects its span, the sub-spans already
        added to sub-planners ``0..i-1`` are *not* removed, and the multi-span id is consumed;
        the error of sub-planner ``i`` is raised. A ``len(counts)`` mismatch raises a plain
        :class:`~fluxgraph.errors.PlannerError` with ``errno`` None (the reference sets no
        errno).

        Runtime complexity: the sum of the sub-planners' :meth:`Planner.add_span`.

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4, 16], ["core", "memory"])
        >>> m.add_span(0, 5, [3, 6]), m.span_planned_at(0, 1)
        (0, 6)
        """
        planners = self._planners
        if counts is None or len(counts) != len(planners):
            raise PlannerError(f"{len(planners)} counts expected, got {counts!r}")
        mid = self._counter
        if mid in self._spans:
            raise PlannerExistsError(f"multi-span id {mid} already exists")
        self._counter = mid + 1
        ids: list[int] = []
        self._spans[mid] = ids
        try:
            for p, c in zip(planners, counts, strict=True):
                ids.append(p.add_span(start, duration, c))
        except PlannerError:
            del self._spans[mid]
            raise
        return mid

    def _vector(self, mid: int) -> list[int]:
        if mid < 0:
            raise PlannerInvalidError(f"multi-span id {mid!r} < 0")
        vec = self._spans.get(mid)
        if vec is None:
            raise PlannerNotFoundError(f"unknown multi-span id {mid!r}")
        return vec

    def rem_span(self, mid: int) -> None:
        """Remove multi-span ``mid`` from every sub-planner still holding a part of it.

        Runtime complexity: the sum of the sub-planners' :meth:`Planner.rem_span`.

        Raises
        ------
        PlannerInvalidError
            ``mid < 0``, or a sub-span is missing (after :meth:`reset`/:meth:`update`) (EINVAL;
            nothing is removed).
        PlannerNotFoundError
            Unknown id (ENOENT).

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4], ["core"])
        >>> m.rem_span(m.add_span(0, 5, [3])); m.span_size()
        0
        """
        vec = self._vector(mid)
        planners = self._planners
        if len(vec) > len(planners) or any(
            sid != -1 and sid not in planners[i]._spans for i, sid in enumerate(vec)
        ):
            raise PlannerInvalidError(f"multi-span {mid} does not match its sub-planners")
        for i, sid in enumerate(vec):
            if sid != -1:
                planners[i].rem_span(sid)
        del self._spans[mid]

    def reduce_span(self, mid: int, amounts: Sequence[int], types: Sequence[str]) -> bool:
        """Release ``amounts[k]`` units of type ``types[k]`` from multi-span ``mid``.

        Types this planner does not track are skipped. Every type not listed is then reduced
        by 0, which removes sub-spans of 0 units. A sub-span released completely is marked
        gone; when all are gone the multi-span is removed and True is returned. Unlike the
        reference, a failing call changes nothing (all reductions are checked first).

        Runtime complexity: the sum of the sub-planners' :meth:`Planner.reduce_span`.

        Raises
        ------
        PlannerInvalidError
            ``mid < 0``, mismatched ``amounts``/``types``, or an amount above what a sub-span
            still holds (EINVAL).
        PlannerNotFoundError
            Unknown id (ENOENT).
        PlannerRangeError
            An amount outside ``[0, INT64_MAX]`` (ERANGE).

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4, 16], ["core", "memory"])
        >>> mid = m.add_span(0, 5, [3, 0])
        >>> m.reduce_span(mid, [1], ["core"]), m.span_planned_at(mid, 0)
        (False, 2)
        >>> m.reduce_span(mid, [2], ["core"]), m.span_size()
        (True, 0)
        """
        if mid < 0 or amounts is None or types is None or len(amounts) != len(types):
            raise PlannerInvalidError(f"invalid reduce of multi-span {mid!r}")
        vec = self._vector(mid)
        for a in amounts:
            if a < 0 or a > INT64_MAX:
                raise PlannerRangeError(f"amount {a!r} outside [0, INT64_MAX]")
        planners = self._planners
        index = self._index
        plan = [(index[t], a) for a, t in zip(amounts, types, strict=True) if t in index]
        listed = {i for i, _ in plan}
        plan += [(i, 0) for i in range(len(planners)) if i not in listed]
        # Dry run on the planned amounts so that a failure leaves everything unchanged.
        held: dict[int, int | None] = {}
        for i, a in plan:
            if i not in held:
                span = planners[i]._spans.get(vec[i] if i < len(vec) else -1)
                held[i] = None if span is None else span[2]
            planned = held[i]
            if planned is None:
                continue
            if a == planned:  # checked first, as in the reference: 0 removes a 0-unit part
                held[i] = None
            elif a == 0:
                continue
            elif a < planned:
                held[i] = planned - a
            else:
                raise PlannerInvalidError(
                    f"cannot release {a} {planners[i].resource_type} of multi-span {mid}"
                )
        for i, a in plan:
            sid = vec[i] if i < len(vec) else -1
            if sid in planners[i]._spans and planners[i].reduce_span(sid, a):
                vec[i] = -1
        if all(sid == -1 for sid in vec):
            del self._spans[mid]
            return True
        return False

    def span_planned_at(self, mid: int, i: int) -> int:
        """Units of type index ``i`` held by multi-span ``mid`` (0 once that part is released).

        Raises
        ------
        PlannerInvalidError
            ``mid < 0`` or ``i`` out of range (EINVAL).
        PlannerNotFoundError
            Unknown id (ENOENT).
        """
        if mid < 0 or i < 0 or i >= len(self._planners):
            raise PlannerInvalidError(f"invalid multi-span {mid!r} or index {i!r}")
        vec = self._vector(mid)
        if i >= len(vec) or vec[i] == -1:
            return 0
        return self._planners[i].span_resource_count(vec[i])

    def span_ids(self) -> Iterator[int]:
        """Iterate over the multi-span ids in ascending order (a snapshot)."""
        return iter(tuple(self._spans))

    def span_size(self) -> int:
        """Number of multi-spans."""
        return len(self._spans)

    # -- update, reset, copy --------------------------------------------------------------------

    def update(self, totals: Sequence[int], types: Sequence[str], *, remap: bool = False) -> None:
        """Re-shape the planner: listed types are moved to their list index with the new total.

        For each ``i``: an existing type is moved to index ``i`` and gets
        :meth:`Planner.update_total`; a new type gets a fresh planner (the window of
        sub-planner 0) inserted at index ``i``. Then, if ``types`` is not empty, types not
        listed are deleted. Existing multi-spans are not re-mapped (as in the reference), so a
        reshape leaves their parts pointing at the wrong sub-planners; with ``remap=True`` they
        follow their sub-planners instead (a new type holds no part of them, a deleted type
        takes its part along), so :meth:`rem_span` and :meth:`reduce_span` still find every
        part. The traverser re-primes its aggregates with ``remap=True`` after the graph
        changes (docs/deviations.md).

        Runtime complexity: ``O(L^2)`` for ``L`` types plus :meth:`Planner.update_total` of
        each kept type.

        Raises
        ------
        PlannerInvalidError
            Missing or mismatched ``totals``/``types`` (EINVAL).
        PlannerRangeError
            A total outside ``[0, INT64_MAX]`` (ERANGE; nothing is changed).

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4, 16], ["core", "memory"])
        >>> m.update([8, 2], ["gpu", "core"]); m.resource_types, m.resource_total_at(1)
        (('gpu', 'core'), 2)
        >>> m = PlannerMulti(0, 10, [4], ["core"])
        >>> mid = m.add_span(0, 5, [3])
        >>> m.update([2, 4], ["gpu", "core"], remap=True); m.rem_span(mid); m.span_size()
        0
        """
        if totals is None or types is None or len(totals) != len(types):
            raise PlannerInvalidError("totals and types must be sequences of the same length")
        _check_totals(totals)
        planners = self._planners
        before = list(planners)
        base, duration = self.base_time, self.duration
        for i, (total, rtype) in enumerate(zip(totals, types, strict=True)):
            pos = next((k for k, p in enumerate(planners) if p.resource_type == rtype), None)
            if pos is None:
                planners.insert(i, Planner(base, duration, total, rtype))
            else:
                p = planners.pop(pos)
                planners.insert(i, p)
                p.update_total(total)
        if types:
            keep = set(types)
            planners[:] = [p for p in planners if p.resource_type in keep]
            if self._iter is not None:
                saved = self._iter[2]
                for t in [t for t in saved if t not in keep]:
                    del saved[t]
        if remap and self._spans and [id(p) for p in planners] != [id(p) for p in before]:
            where = {id(p): i for i, p in enumerate(planners)}
            moved = [where.get(id(p)) for p in before]
            for mid, vec in self._spans.items():
                new = [-1] * len(planners)
                for i, sid in enumerate(vec):
                    j = moved[i] if i < len(moved) else None
                    if j is not None:
                        new[j] = sid
                self._spans[mid] = new
        self._reindex()

    def reset(self, base_time: int, duration: int) -> None:
        """Reset every sub-planner to a new window (multi-span ids are kept, as in the reference).

        Raises
        ------
        PlannerInvalidError
            ``duration < 1`` (EINVAL).
        """
        if duration < 1:
            raise PlannerInvalidError(f"duration {duration!r} < 1")
        self._base = base_time
        self._duration = duration
        for p in self._planners:
            p.reset(base_time, duration)

    def copy(self) -> PlannerMulti:
        """Deep copy.

        Examples
        --------
        >>> m = PlannerMulti(0, 10, [4], ["core"])
        >>> c = m.copy(); _ = c.add_span(0, 1, [1])
        >>> m == c, m == m.copy()
        (False, True)
        """
        new = PlannerMulti.__new__(PlannerMulti)
        new._base = self._base
        new._duration = self._duration
        new._planners = [p.copy() for p in self._planners]
        new._types = self._types
        new._index = dict(self._index)
        new._spans = {k: v[:] for k, v in self._spans.items()}
        new._counter = self._counter
        it = self._iter
        new._iter = None if it is None else (it[0], it[1], dict(it[2]))
        new.search_errno = self.search_errno
        return new

    def __eq__(self, other: object) -> bool:
        """Structural equality (the reference's ``planner_multis_equal``)."""
        if not isinstance(other, PlannerMulti):
            return NotImplemented
        return _FIELDS(self) == _FIELDS(other)

    __hash__ = None  # type: ignore[assignment]

    def _check(self) -> None:
        """Assert every structural invariant; for tests."""
        for p in self._planners:
            p._check()
        assert self._types == tuple(p.resource_type for p in self._planners)
        assert len(set(self._types)) == len(self._types), "duplicate resource type"
        assert self._index == {t: i for i, t in enumerate(self._types)}
        assert all(0 <= mid < self._counter for mid in self._spans), "multi-span id range"
