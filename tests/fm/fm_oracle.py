"""A brute-force FM scheduler (spec §4.1-§4.4, rack scope) for the oracle tests.

Independent of the simulator, the allocator's index and the planners: resources are free over
a window when no booking covers any second of it; the placement rule itself is the shared
``rack_balance`` (checked on its own against exhaustive search).
"""

from __future__ import annotations

import math

from fluxgraph.papers.fm.placement import rack_balance
from fluxgraph.papers.fm.priority import make_priorities


def _switch_time(jobs, warmup, switch):
    """When a ``switch="arrival"`` warm-up ends: the first arrival of a job after the warm-up
    ids ``0..warmup-1``; ``none``: at once; ``started``: ``None`` (decided as jobs start)."""
    if switch == "none":
        return -1
    if switch == "arrival":
        later = [j.submit for j in jobs if j.id >= warmup]
        return min(later) if later else math.inf
    return None


def simulate(jobs, racks, per_rack, pools_per_rack, local_gb, priority, warmup, switch="started"):
    """``{job id: (start, end)}`` and the rejected ids; ``jobs`` sized by ``fm_jobs``; EASY
    after the warm-up (ids ``0..warmup-1``) ends by ``switch``."""
    cap = 1024
    prio = make_priorities(local_gb)[priority]
    bookings: list[tuple[int, int, list]] = []  # (start, end, chunks) of running jobs
    out: dict[int, tuple[int, int]] = {}
    rejected: set[int] = set()
    queue: list = []
    pending = set()
    for j in jobs:
        if j.id < warmup:
            pending.add(j.id)
    warming = True
    switch_at = _switch_time(jobs, warmup, switch)

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
        if switch_at is not None:
            warming = t < switch_at
            for j in sorted(queue, key=lambda j: (j.submit, j.id)) if warming else []:
                chunks = place(j, t, [])
                if chunks is None:
                    break
                start(j, t, chunks)
        elif warming:
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


#: The paper's "larger runs first" values of spec §4.2 on a drifted submit ``s`` at time ``t``.
_COMPAT_VALUES = {
    "fcfs": lambda t, s, r, n, mo: -s,
    "sjf": lambda t, s, r, n, mo: -r,
    "wfp3": lambda t, s, r, n, mo: ((t - s) / r) ** 3 * n,
    "f1": lambda t, s, r, n, mo: math.log10(r) * n + 870 * math.log10(s + 1),
    "f1_asc": lambda t, s, r, n, mo: -(math.log10(r) * n + 870 * math.log10(s + 1)),
    "fair": lambda t, s, r, n, mo: (t - s) / r,
    "fm": lambda t, s, r, n, mo: (t - s) / ((math.log10(n) + 1) * r * mo),
    "fm_code": lambda t, s, r, n, mo: (t - s) / r / mo,
}


def simulate_compat(jobs, racks, per_rack, pools_per_rack, local_gb, priority, warmup=0):
    """The public simulator's rules (spec §9 D11, D17, D22), one pass every second, after a
    strict-FCFS warm-up until the first job after ids ``0..warmup-1`` arrives (``warmup=0``:
    none); ``{job id: (start, end)}`` and the rejected ids."""
    cap = 1024
    value = _COMPAT_VALUES[priority]
    free = [list(range(r * per_rack, (r + 1) * per_rack)) for r in range(racks)]
    caps = [[cap] * pools_per_rack for _ in range(racks)]
    pending = sorted(jobs, key=lambda j: (j.submit, j.id))
    queue: list[list] = []  # [job, drifted submit]
    running: list[tuple[int, object, list]] = []
    out: dict[int, tuple[int, int]] = {}
    rejected: set[int] = set()

    def k_of(job):
        return max(0, int(job.memory) - local_gb)

    def mo(job):
        return job.memory / local_gb if job.memory > local_gb else 1.0

    def start(entry, t):
        job = entry[0]
        placed = rack_balance(free, caps, job.procs, k_of(job))
        if placed is None:
            return False
        for g, m, gb in placed:
            free[g // per_rack].remove(g)
            if gb:
                caps[m // pools_per_rack][m % pools_per_rack] -= gb
        running.append((t + job.walltime, job, placed))
        out[job.id] = (t, t + job.walltime)
        queue.remove(entry)
        return True

    switch_at = _switch_time(jobs, warmup, "arrival" if warmup else "none")
    t = 0
    while pending or queue or running:
        for item in [x for x in running if x[0] <= t]:
            running.remove(item)
            for g, m, gb in item[2]:
                free[g // per_rack].append(g)
                free[g // per_rack].sort()
                if gb:
                    caps[m // pools_per_rack][m % pools_per_rack] += gb
        while pending and pending[0].submit <= t:
            job = pending.pop(0)
            k = k_of(job)
            never = job.procs > racks * per_rack or (
                k > 0 and racks * min(per_rack, pools_per_rack * (cap // k)) < job.procs
            )
            if never:
                rejected.add(job.id)
            else:
                queue.append([job, job.submit])
        for entry in sorted(queue, key=lambda e: (e[0].submit, e[0].id)) if t < switch_at else []:
            if not start(entry, t):
                break
        while queue and t >= switch_at:
            order = sorted(
                queue,
                key=lambda e: (-value(t, e[1], e[0].walltime, e[0].procs, mo(e[0])), e[1], e[0].id),
            )
            head = order[0]
            if start(head, t):
                continue
            nfree = sum(map(len, free))
            if nfree >= head[0].procs:
                head[1] += 1
            count, left = nfree, None
            for end, _, chunks in sorted(running, key=lambda x: x[0]):
                count += len(chunks)
                if count >= head[0].procs:
                    left = end - t
                    break
            cands = [e for e in order[1:] if left is not None and e[0].walltime <= left]
            if not cands:
                break
            if start(cands[0], t):
                continue
            if nfree >= cands[0][0].procs:
                cands[0][1] += 1
            break
        t += 1
    return out, rejected
