"""A brute-force model of A-base and A-dis (spec §4.3, §4.4), independent of the matcher.

Bookings are plain records; every predicate of spec §2.3 is evaluated by scanning them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Booking:
    start: int
    end: int
    local: dict[int, int]  # compute rank -> MiB held locally
    lent: list[tuple[int, int, int]]  # (lender, borrower, MiB)
    whole: bool  # A-base: the compute nodes are held whole


class OracleAllocator:
    def __init__(
        self,
        capacity: list[int],
        kind: str,
        lending: str = "shared",
        lender_compute: str = "never",
    ) -> None:
        self.capacity = capacity
        self.kind = kind
        self.lending = lending
        self.lender_compute = lender_compute
        self.books: list[Booking] = []

    def _overlapping(self, s: int, e: int):
        return [b for b in self.books if b.start < e and s < b.end]

    def _usage(self, r: int, t: int) -> int:
        used = 0
        for b in self.books:
            if b.start <= t < b.end:
                if r in b.local:
                    used += self.capacity[r] if b.whole else b.local[r]
                used += sum(m for lender, _, m in b.lent if lender == r)
        return used

    def free(self, r: int, s: int, e: int) -> int:
        points = {s} | {b.start for b in self.books if s < b.start < e}
        return self.capacity[r] - max(self._usage(r, t) for t in points)

    def cores_free(self, r: int, s: int, e: int) -> bool:
        return not any(r in b.local for b in self._overlapping(s, e))

    def lends(self, r: int, s: int, e: int) -> bool:
        return any(lender == r for b in self._overlapping(s, e) for lender, _, _ in b.lent)

    def idle(self, r: int, s: int, e: int) -> bool:
        """No span of any booking on ``r`` over ``[s, e)``."""
        return self.cores_free(r, s, e) and not self.lends(r, s, e)

    def allocate(self, n: int, m: int, s: int, e: int):
        """``(nodes, local, lent)`` booked, or None."""
        caps = self.capacity
        ranks = range(len(caps))
        eligible = [r for r in ranks if self.idle(r, s, e)]
        computable = eligible
        if self.lender_compute == "if-memory-fits":  # D1's ablation: lenders compute locally
            computable = [r for r in ranks if self.cores_free(r, s, e)]
        fit = (r for r in computable if self.free(r, s, e) >= m)
        local = sorted(fit, key=lambda r: (caps[r], r))
        if len(local) >= n:
            chosen = sorted(local[:n])
            self.books.append(Booking(s, e, dict.fromkeys(chosen, m), [], self.kind == "base"))
            return tuple(chosen), (m,) * n, ()
        if self.kind == "base":
            return None
        whole = [r for r in eligible if self.free(r, s, e) == caps[r]]
        if len(whole) < n:
            return None
        compute = sorted(whole, key=lambda r: (-caps[r], r))[:n]
        loc = {r: min(m, caps[r]) for r in compute}
        deficits = [[r, m - loc[r]] for r in compute if loc[r] < m]
        lent: list[tuple[int, int, int]] = []
        if self.lending == "dedicated":  # D17: idle nodes, each lending to one deficit
            idle = [r for r in eligible if r not in loc]
            for borrower, need in deficits:
                while need:
                    if not idle:
                        return None
                    lender = idle.pop(0)
                    take = min(caps[lender], need)
                    lent.append((lender, borrower, take))
                    need -= take
        else:
            spare = {r: self.free(r, s, e) for r in ranks if r not in loc}
            for borrower, need in deficits:
                for lender in sorted(spare):
                    take = min(spare[lender], need)
                    if take > 0:
                        lent.append((lender, borrower, take))
                        spare[lender] -= take
                        need -= take
                if need:
                    return None
        self.books.append(Booking(s, e, loc, lent, False))
        nodes = tuple(sorted(loc))
        return nodes, tuple(loc[r] for r in nodes), tuple(lent)

    def release(self, index: int) -> None:
        del self.books[index]


def oracle_schedule(
    capacity, kind, jobs, depth=100, contention=True, interference="model", **options
):
    """The scheduler of spec §4.1/§4.2 on :class:`OracleAllocator` (``options``: ``lending``,
    ``lender_compute``): ``{job id: (start, end, nodes, lent)}`` and the ids rejected. Memory
    vertices are stood for by node ranks."""
    from fluxgraph.papers.disagg.contention import MemoryContention
    from fluxgraph.sched.runtime import RunningJob

    alloc = OracleAllocator(capacity, kind, **options)
    model = MemoryContention({r: r for r in range(len(capacity))}, interference=interference)
    jobs = sorted(jobs, key=lambda j: (j.submit, j.id))
    queue, running, ends, out, rejected = [], {}, {}, {}, []
    i = 0

    def book(job, s):
        got = alloc.allocate(job.nodes, job.extra["mem_mib"], s, s + job.walltime)
        return None if got is None else (got, alloc.books[-1])

    def never(job):
        empty = OracleAllocator(capacity, kind, **options)
        return empty.allocate(job.nodes, job.extra["mem_mib"], 0, 1) is None

    while i < len(jobs) or ends:
        now = min([*ends.values(), *([jobs[i].submit] if i < len(jobs) else [])])
        done = sorted(k for k, e in ends.items() if e == now)
        for k in done:
            del ends[k]
            booking, run = running.pop(k)
            alloc.books.remove(booking)
            model.finish(run, now)
            out[k] = (*out[k][:1], now, *out[k][2:])
        moved = list(model.retime(now)) if contention else []
        for k, end in moved:
            ends[k] = end
            running[k][0].end = max(model.planned_end(k), end)
        while i < len(jobs) and jobs[i].submit == now:
            (rejected if never(jobs[i]) else queue).append(jobs[i])
            i += 1
        started = []
        for job in list(queue):
            got = book(job, now)
            if got is None:
                break
            queue.remove(job)
            started.append((job, got))
        reserved = []
        for job in list(queue[:depth]):
            times = sorted(
                {
                    now,
                    *(b.end for b, _ in running.values()),
                    *(b.end for _, (_, b) in started),
                    *(b.end for b in reserved),
                }
            )
            for t in times:
                got = book(job, t)
                if got is not None:
                    break
            else:
                continue
            if t == now:
                queue.remove(job)
                started.append((job, got))
            else:
                reserved.append(got[1])
        for b in reserved:
            alloc.books.remove(b)
        for job, ((nodes, local, lent), booking) in started:
            held = [(r, "memory", m) for r, m in zip(nodes, local, strict=True)]
            held += [(lender, "memory", m) for lender, _, m in lent]
            run = RunningJob(job.id, job, now, nodes, 0, held=tuple(held))
            ends[job.id] = model.start(run, now) if contention else now + job.runtime
            if contention:
                booking.end = max(model.planned_end(job.id), ends[job.id])
            running[job.id] = (booking, run)
            out[job.id] = (now, -1, nodes, lent)
        if contention:
            for k, end in model.retime(now):
                ends[k] = end
                running[k][0].end = max(model.planned_end(k), end)
    return out, [j.id for j in rejected]
