"""Brute-force oracle of the reference planner (matching-semantics §1 and §2).

A literal, slow model written straight from the specification: every scheduled point is an
object in a dict keyed by time, the MT tree is an ``in_mt`` flag plus the key copied at insertion,
the tracked points are a set, and AVAILAT/SPANOK are the loops of §1.7. Nothing here is optimised,
so it can serve as the reference the real planner is compared against.

Errors are raised as :class:`OracleError` carrying the errno of the reference. "No" answers follow
the fluxgraph API: ``None`` for an earliest-time search without an answer, ``False`` for
``avail_during`` failing with EBUSY.
"""

from __future__ import annotations

import copy
from errno import EEXIST, EINVAL, ENOENT, ERANGE

INT64_MAX = (1 << 63) - 1


class OracleError(Exception):
    """An error of the modelled reference, with its errno."""

    def __init__(self, errno: int | None) -> None:
        super().__init__(errno)
        self.errno = errno


class _Point:
    __slots__ = ("at", "in_mt", "key", "ref", "rem", "sched")

    def __init__(self, at, sched, rem, ref):
        self.at = at
        self.sched = sched
        self.rem = rem
        self.ref = ref
        self.in_mt = True
        self.key = rem


class OraclePlanner:
    """Literal model of one reference planner."""

    def __init__(self, base, duration, total, rtype):
        if duration < 1 or rtype is None:
            raise OracleError(EINVAL)
        if total < 0 or total > INT64_MAX:
            raise OracleError(ERANGE)
        self.total = total
        self.rtype = rtype
        self._init(base, duration)

    def _init(self, base, duration):
        self.start = base
        self.end = base + duration
        self.points = {base: _Point(base, 0, self.total, 1)}
        self.tracked = set()
        self.spans = {}  # id -> [start, last, planned]
        self.counter = 0
        self.iter_set = False
        self.req = None

    # -- trees ------------------------------------------------------------------------------------

    def _times(self):
        return sorted(self.points)

    def _state(self, t):
        best = None
        for at in self.points:
            if at <= t and (best is None or at > best):
                best = at
        return best

    def _scan_from_state(self, t, end):
        """Points from get_state(t) while at < end, in time order."""
        st = self._state(t)
        if st is None:
            return []
        return [self.points[a] for a in self._times() if st <= a < end]

    def _overlap(self, t, d):
        return [self.points[a] for a in self._times() if t <= a < t + d]

    def _get_mintime(self, c):
        best = None
        for p in self.points.values():
            if p.in_mt and p.key >= c and (best is None or p.at < best.at):
                best = p
        return best

    def _mt_insert(self, p):
        p.in_mt = True
        p.key = p.rem

    def _restore(self):
        for at in self.tracked:
            self._mt_insert(self.points[at])
        self.tracked = set()

    def _track(self, p):
        p.in_mt = False
        self.tracked.add(p.at)

    def _resync(self, lst):
        for p in lst:
            p.in_mt = False
            if p.ref != 0:
                self._mt_insert(p)

    def _get_or_new(self, t):
        p = self.points.get(t)
        if p is None:
            st = self.points[self._state(t)]
            p = _Point(t, st.sched, st.rem, 0)
            self.points[t] = p
        return p

    def _availat(self, on, d, c):
        while True:
            p = self._get_mintime(c)
            if p is None:
                return None
            if p.at < on:
                self._track(p)
                continue
            ok = True
            for q in self._times():
                if q < p.at:
                    continue
                if q >= p.at + d:
                    break
                if self.points[q].rem < c:
                    ok = False
                    break
            self._track(p)
            if ok:
                return p.at if p.at + d <= self.end else None

    # -- API ---------------------------------------------------------------------------------

    def add_span(self, start, duration, request):
        if start + duration > self.end:
            raise OracleError(EINVAL)
        for p in self._scan_from_state(start, start + duration):
            if p.rem < request:
                raise OracleError(EINVAL)
        if start < self.start or duration < 1 or start + duration - 1 > self.end:
            raise OracleError(EINVAL)
        if request > self.total or request < 0:
            raise OracleError(ERANGE)
        self.counter += 1
        if self.counter in self.spans:
            raise OracleError(EEXIST)
        sid = self.counter
        self._restore()
        sp = self._get_or_new(start)
        sp.ref += 1
        lp = self._get_or_new(start + duration)
        lp.ref += 1
        ov = self._overlap(start, duration)
        for q in ov:
            q.sched += request
            q.rem -= request
        self._resync(ov)
        self.spans[sid] = [start, start + duration, request]
        self.iter_set = False
        return sid

    def rem_span(self, sid):
        if sid not in self.spans:
            raise OracleError(EINVAL)
        start, last, planned = self.spans[sid]
        self._restore()
        sp = self.points[start]
        lp = self.points[last]
        sp.ref -= 1
        lp.ref -= 1
        ov = self._overlap(start, last - start)
        for q in ov:
            q.sched -= planned
            q.rem += planned
        self._resync(ov)
        for p in (sp, lp):
            if p.ref == 0:
                del self.points[p.at]
        del self.spans[sid]
        self.iter_set = False

    def reduce_span(self, sid, to_remove):
        if sid not in self.spans:
            raise OracleError(EINVAL)
        span = self.spans[sid]
        if to_remove == span[2]:
            self.rem_span(sid)
            return True
        if to_remove == 0:
            return False
        if to_remove < span[2]:
            self._restore()
            span[2] -= to_remove
            ov = self._overlap(span[0], span[1] - span[0])
            for q in ov:
                q.sched -= to_remove
                q.rem += to_remove
                if q.sched < 0 or q.rem > self.total:
                    break
            self._resync(ov)
            return False
        raise OracleError(EINVAL)

    def avail_during(self, at, duration, request):
        if duration < 1:
            raise OracleError(EINVAL)
        if request > self.total:
            raise OracleError(ERANGE)
        if at + duration > self.end:
            raise OracleError(ERANGE)
        return all(p.rem >= request for p in self._scan_from_state(at, at + duration))

    def avail_at(self, at, request):
        return self.avail_during(at, 1, request)

    def avail_resources_during(self, at, duration):
        if at > self.end or duration < 1:
            raise OracleError(EINVAL)
        if at + duration > self.end:
            raise OracleError(ERANGE)
        if at < self.start:
            raise OracleError(EINVAL)
        return min(p.rem for p in self._scan_from_state(at, at + duration))

    def avail_resources_at(self, at):
        if at > self.end or at < self.start:
            raise OracleError(ERANGE)
        return self.points[self._state(at)].rem

    def avail_time_first(self, on_or_after, duration, request):
        if on_or_after < self.start or on_or_after >= self.end or duration < 1:
            raise OracleError(EINVAL)
        if request > self.total:
            raise OracleError(ERANGE)
        self._restore()
        self.iter_set = True
        self.req = (on_or_after, duration, request)
        return self._availat(on_or_after, duration, request)

    def avail_time_next(self):
        if not self.iter_set:
            raise OracleError(EINVAL)
        on, d, c = self.req
        if c > self.total:
            raise OracleError(ERANGE)
        return self._availat(on, d, c)

    def update_total(self, total):
        if total < 0 or total > INT64_MAX:
            raise OracleError(ERANGE)
        delta = total - self.total
        if delta == 0:
            return
        self.total = total
        for p in self.points.values():
            p.rem = max(0, p.rem + delta)

    def reset(self, base, duration):
        if duration < 1:
            raise OracleError(EINVAL)
        self._init(base, duration)

    def span_ids(self):
        return sorted(self.spans)

    def span_size(self):
        return len(self.spans)

    def _span(self, sid):
        if sid not in self.spans:
            raise OracleError(EINVAL)
        return self.spans[sid]

    def is_active_span(self, sid):
        self._span(sid)
        return True

    def span_start_time(self, sid):
        return self._span(sid)[0]

    def span_duration(self, sid):
        s = self._span(sid)
        return s[1] - s[0]

    def span_resource_count(self, sid):
        return self._span(sid)[2]

    def points_view(self):
        """``[(at, scheduled, remaining, ref_count)]`` in time order."""
        return [(a, p.sched, p.rem, p.ref) for a, p in sorted(self.points.items())]


class OracleMulti:
    """Literal model of the reference planner_multi (§2) over :class:`OraclePlanner`."""

    def __init__(self, base, duration, totals, types):
        if duration < 1 or totals is None or types is None or len(totals) != len(types):
            raise OracleError(EINVAL)
        for t in totals:
            if t < 0 or t > INT64_MAX:
                raise OracleError(ERANGE)
        self.base = base
        self.duration = duration
        self.entries = []  # [type, planner]
        for total, rtype in zip(totals, types, strict=True):
            if rtype is None:
                raise OracleError(EINVAL)
            if any(e[0] == rtype for e in self.entries):
                continue
            self.entries.append([rtype, OraclePlanner(base, duration, total, rtype)])
        self.spans = {}
        self.counter = 0
        self.iter = None

    def types(self):
        return [e[0] for e in self.entries]

    def totals(self):
        return [e[1].total for e in self.entries]

    def _check_len(self, seq):
        if seq is None or len(seq) != len(self.entries):
            raise OracleError(EINVAL)

    def avail_time_first(self, on_or_after, duration, counts):
        if counts is None or len(self.entries) < 1 or len(counts) != len(self.entries):
            raise OracleError(EINVAL)
        self.iter = (
            on_or_after,
            duration,
            {e[0]: c for e, c in zip(self.entries, counts, strict=True)},
        )
        p0 = self.entries[0][1]
        t = p0.avail_time_first(on_or_after, duration, counts[0])
        while t is not None:
            if self._others_ok(t, duration, lambda i: counts[i]):
                return t
            t = p0.avail_time_next()
        return None

    def _others_ok(self, t, duration, count_of):
        for i in range(1, len(self.entries)):
            try:
                ok = self.entries[i][1].avail_during(t, duration, count_of(i))
            except OracleError:
                ok = False
            if not ok:
                return False
        return True

    def avail_time_next(self):
        if len(self.entries) < 1:
            raise OracleError(EINVAL)
        if self.iter is None and len(self.entries) > 1:
            raise OracleError(EINVAL)
        p0 = self.entries[0][1]
        while True:
            t = p0.avail_time_next()
            if t is None:
                return None
            _, duration, counts = self.iter or (0, 0, {})
            for e in self.entries[1:]:
                if e[0] not in counts:
                    raise OracleError(EINVAL)
            saved = [counts[e[0]] if k else 0 for k, e in enumerate(self.entries)]
            if self._others_ok(t, duration, saved.__getitem__):
                return t

    def avail_during(self, at, duration, counts):
        self._check_len(counts)
        for (_, p), c in zip(self.entries, counts, strict=True):
            if not p.avail_during(at, duration, c):
                return False
        return True

    def avail_resources_at(self, at, i):
        if i < 0 or i >= len(self.entries):
            raise OracleError(EINVAL)
        return self.entries[i][1].avail_resources_at(at)

    def avail_resources_array_at(self, at):
        return [e[1].avail_resources_at(at) for e in self.entries]

    def avail_resources_array_during(self, at, duration):
        if len(self.entries) < 1:
            raise OracleError(EINVAL)
        return [e[1].avail_resources_during(at, duration) for e in self.entries]

    def add_span(self, start, duration, counts):
        if counts is None or len(counts) != len(self.entries):
            raise OracleError(None)
        mid = self.counter
        if mid in self.spans:
            raise OracleError(EEXIST)
        self.counter += 1
        self.spans[mid] = []
        for (_, p), c in zip(self.entries, counts, strict=True):
            try:
                sid = p.add_span(start, duration, c)
            except OracleError:
                del self.spans[mid]
                raise
            self.spans[mid].append(sid)
        return mid

    def rem_span(self, mid):
        if mid < 0:
            raise OracleError(EINVAL)
        if mid not in self.spans:
            raise OracleError(ENOENT)
        vec = self.spans[mid]
        if len(vec) > len(self.entries) or any(
            sid != -1 and sid not in self.entries[i][1].spans for i, sid in enumerate(vec)
        ):
            raise OracleError(EINVAL)
        for i, sid in enumerate(vec):
            if sid != -1:
                self.entries[i][1].rem_span(sid)
        del self.spans[mid]

    def reduce_span(self, mid, amounts, types):
        if mid < 0 or amounts is None or types is None or len(amounts) != len(types):
            raise OracleError(EINVAL)
        if mid not in self.spans:
            raise OracleError(ENOENT)
        for a in amounts:
            if a < 0 or a > INT64_MAX:
                raise OracleError(ERANGE)
        # The oracle applies the reductions to a scratch copy first so that a failing call
        # leaves everything unchanged (fluxgraph's documented atomicity), then for real.
        vec = self.spans[mid]
        for real in (False, True):
            planners = [e[1] if real else _clone(e[1]) for e in self.entries]
            work = vec if real else list(vec)
            done = set()
            plan = []
            for a, t in zip(amounts, types, strict=True):
                idx = next((i for i, e in enumerate(self.entries) if e[0] == t), None)
                if idx is None:
                    continue
                plan.append((idx, a))
                done.add(idx)
            plan += [(i, 0) for i in range(len(self.entries)) if i not in done]
            for idx, a in plan:
                sid = work[idx] if idx < len(work) else -1
                try:
                    removed = planners[idx].reduce_span(sid, a)
                except OracleError:
                    if sid in planners[idx].spans:
                        raise OracleError(EINVAL) from None
                    removed = False
                if removed:
                    work[idx] = -1
        if all(s == -1 for s in vec):
            del self.spans[mid]
            return True
        return False

    def span_planned_at(self, mid, i):
        if mid < 0 or i < 0 or i >= len(self.entries):
            raise OracleError(EINVAL)
        if mid not in self.spans:
            raise OracleError(ENOENT)
        vec = self.spans[mid]
        if i >= len(vec) or vec[i] == -1:
            return 0
        return self.entries[i][1].span_resource_count(vec[i])

    def span_ids(self):
        return sorted(self.spans)

    def span_size(self):
        return len(self.spans)

    def update(self, totals, types):
        if totals is None or types is None or len(totals) != len(types):
            raise OracleError(EINVAL)
        for t in totals:
            if t < 0 or t > INT64_MAX:
                raise OracleError(ERANGE)
        for i, (total, rtype) in enumerate(zip(totals, types, strict=True)):
            pos = next((k for k, e in enumerate(self.entries) if e[0] == rtype), None)
            if pos is None:
                self.entries.insert(
                    i, [rtype, OraclePlanner(self.base, self.duration, total, rtype)]
                )
            else:
                e = self.entries.pop(pos)
                self.entries.insert(i, e)
                e[1].update_total(total)
        if types:
            keep = set(types)
            self.entries = [e for e in self.entries if e[0] in keep]
            if self.iter is not None:
                for t in list(self.iter[2]):
                    if t not in keep:
                        del self.iter[2][t]

    def reset(self, base, duration):
        if duration < 1:
            raise OracleError(EINVAL)
        self.base = base
        self.duration = duration
        for e in self.entries:
            e[1].reset(base, duration)


def _clone(p):
    return copy.deepcopy(p)
