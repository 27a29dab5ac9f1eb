"""Brute-force oracle of the static-queue driver: replays a run decision by decision.

For every job, in queue order, it recomputes from the nodes' busy intervals alone (no graph,
no planner) the start the policy must pick and the classes it must take, and compares with what
the engine did; then books the engine's nodes. Policies: ``high``/``low`` (exact node ids),
``variation`` (class counts: lowest classes first), ``classpack``/``classpack-strict`` (the
narrowest class window by brute force over all windows, best fit, lowest classes first in it).
"""

from __future__ import annotations

from collections import Counter

NCLASSES = 5


def _free(busy, nodes, t, d):
    return [v for v in range(nodes) if all(e <= t or s >= t + d for s, e in busy[v])]


def _greedy(free, classes, n, lo=1, hi=NCLASSES):
    """Class counts of n nodes taken lowest class first among free nodes of classes lo..hi."""
    ps = sorted(classes[v] for v in free if lo <= classes[v] <= hi)
    return Counter(ps[:n])


def _windows(counts, n):
    """All (width, units, a) windows [a, a+width] holding >= n units, by brute force."""
    out = []
    for a in range(1, NCLASSES + 1):
        for w in range(NCLASSES - a + 1):
            units = sum(counts.get(p, 0) for p in range(a, a + w + 1))
            if units >= n:
                out.append((w, units, a))
    return out


def check_run(policy, classes, jobs, records, slack=0):
    """Assert the engine's ``records`` follow ``policy`` exactly; returns the number checked.

    ``slack`` > 0 (``classpack`` only): the driver's start-time budget (spec §4.3 step 2): a
    job spread over ``w`` classes at ``T_any`` takes the narrowest window whose earliest start
    is at most ``T_any + slack``, then the earliest, the fewest free nodes, the lowest class."""
    nodes = len(classes)
    busy = [[] for _ in range(nodes)]
    machine = Counter(classes)
    for job, rec in zip(jobs, records, strict=True):
        n, d = job.nodes, job.walltime
        assert rec.id == job.id and rec.nodes == n
        times = sorted({0} | {e for iv in busy for _, e in iv})
        fits = [t for t in times if len(_free(busy, nodes, t, d)) >= n]
        if not fits:
            assert rec.start == -1 and rec.node_ids == ()
            continue
        t_any = fits[0]
        start, lo, hi = t_any, 1, NCLASSES
        if policy in ("classpack", "classpack-strict"):
            if policy == "classpack-strict":
                w_static = min(w for w, _, _ in _windows(machine, n))
                for t in fits:
                    free = Counter(classes[v] for v in _free(busy, nodes, t, d))
                    if any(w == w_static for w, _, _ in _windows(free, n)):
                        start = t
                        break
            free = Counter(classes[v] for v in _free(busy, nodes, start, d))
            found = _windows(free, n)
            w_min = min(w for w, _, _ in found)
            _, lo = min((units, a) for w, units, a in found if w == w_min)  # best fit
            hi = lo + w_min
            if slack > 0:
                starts = {}  # (w, a) -> (earliest start within the budget, free units then)
                for t in fits:
                    if t > t_any + slack:
                        break
                    counts = Counter(classes[v] for v in _free(busy, nodes, t, d))
                    for w, units, a in _windows(counts, n):
                        starts.setdefault((w, a), (t, units))
                w_best = min(w for w, _ in starts)
                if w_best < w_min:
                    start, _, lo = min(  # spec §4.3: (T_W, free_W, a), best fit
                        (t, u, a) for (w, a), (t, u) in starts.items() if w == w_best
                    )
                    hi = lo + w_best
        assert rec.start == start, (job, rec.start, start)
        free = _free(busy, nodes, start, d)
        assert len(rec.node_ids) == n and set(rec.node_ids) <= set(free), (job, rec)
        if policy in ("high", "low"):
            want = sorted(free)[-n:] if policy == "high" else sorted(free)[:n]
            assert list(rec.node_ids) == want, (job, rec.node_ids, want)
        else:
            got = Counter(classes[v] for v in rec.node_ids)
            assert got == _greedy(free, classes, n, lo, hi), (job, got, lo, hi)
        for v in rec.node_ids:
            busy[v].append((start, start + d))
    return len(records)
