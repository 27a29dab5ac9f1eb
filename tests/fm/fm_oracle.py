"""A brute-force FM scheduler (spec §4.1-§4.4, rack scope) for the oracle tests.

Independent of the simulator, the allocator's index and the planners: resources are free over
a window when no booking covers any second of it; the placement rule itself is the shared
``rack_balance`` (checked on its own against exhaustive search).
"""

from __future__ import annotations

from fluxgraph.sched.fm.placement import rack_balance
from fluxgraph.sched.fm.priority import make_priorities


def simulate(jobs, racks, per_rack, pools_per_rack, local_gb, priority, warmup):
    """``{job id: (start, end)}`` and the rejected ids; ``jobs`` sized by ``fm_jobs``."""
    cap = 1024
    prio = make_priorities(local_gb)[priority]
    bookings: list[tuple[int, int, list]] = []  # (start, end, chunks) of running jobs
    out: dict[int, tuple[int, int]] = {}
    rejected: set[int] = set()
    queue: list = []
    pending = set()
    for j in sorted(jobs, key=lambda j: (j.submit, j.id))[:warmup]:
        pending.add(j.id)
    warming = True

    def k_of(job):
        return max(0, int(job.memory) - local_gb)

    def never(job):
        k = k_of(job)
        if job.procs > racks * per_rack:
            return True
        if k == 0:
            return False
        return sum(min(per_rack, pools_per_rack * (cap // k)) for _ in range(racks)) < job.procs

    def place(job, at, extra):
        d = job.walltime
        window = range(at, at + d)
        busy, peak = set(), [0] * (racks * pools_per_rack)
        everything = bookings + extra
        for t in window:
            use = [0] * len(peak)
            for s, e, chunks in everything:
                if s <= t < e:
                    for g, m, gb in chunks:
                        busy.add(g)
                        if gb:
                            use[m] += gb
            peak = [max(a, b) for a, b in zip(peak, use, strict=True)]
        free = [
            [g for g in range(r * per_rack, (r + 1) * per_rack) if g not in busy]
            for r in range(racks)
        ]
        caps = [
            [cap - peak[r * pools_per_rack + q] for q in range(pools_per_rack)]
            for r in range(racks)
        ]
        return rack_balance(free, caps, job.procs, k_of(job))

    def start(job, t, chunks):
        bookings.append((t, t + job.walltime, chunks))
        out[job.id] = (t, t + job.walltime)
        queue.remove(job)

    times = sorted({j.submit for j in jobs})
    while times:
        t = times.pop(0)
        bookings[:] = [b for b in bookings if b[1] > t]
        for j in jobs:
            if j.submit == t:
                if never(j):
                    rejected.add(j.id)
                    pending.discard(j.id)
                else:
                    queue.append(j)
        ends_before = {b[1] for b in bookings}
        if warming:
            for j in sorted(queue, key=lambda j: (j.submit, j.id)):
                if not pending:
                    break
                chunks = place(j, t, [])
                if chunks is None:
                    break
                start(j, t, chunks)
                pending.discard(j.id)
            warming = bool(pending) or any(j.id < warmup for j in jobs if j.submit > t)
        if not warming:
            order = sorted(queue, key=lambda j: (prio(j, t), j.submit, j.id))
            reservation: list = []
            for j in order:
                chunks = place(j, t, reservation)
                if chunks is not None:
                    start(j, t, chunks)
                elif not reservation:
                    for at in sorted({b[1] for b in bookings if b[1] > t}):
                        chunks = place(j, at, [])
                        if chunks is not None:
                            reservation = [(at, at + j.walltime, chunks)]
                            break
        new = {b[1] for b in bookings} - ends_before | {b[1] for b in bookings}
        times = sorted(set(times) | {e for e in new if e > t})
    return out, rejected
