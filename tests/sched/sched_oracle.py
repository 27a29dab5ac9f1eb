"""A brute-force scheduler with the simulator's semantics: per-node busy intervals, no planner,
no matcher, no shortcuts. Nodes are chosen lowest rank first (the ``low`` match policy on a
flat machine with the ``node`` shape).

Each node holds a list of ``[start, end)`` intervals: running jobs over ``[start, start +
walltime)`` until they finish, and this pass's reservations.
"""

from __future__ import annotations

import math


def _free(busy, node, a, b):
    return all(e <= a or s >= b for s, e, _ in busy[node])


def _fit(busy, n_nodes, p, a, w):
    free = [n for n in range(n_nodes) if _free(busy, n, a, a + w)]
    return free[:p] if len(free) >= p else None


def oracle_schedule(jobs, n_nodes, cores_per_node, policy, depth=64, queue_depth=None):
    """``{job id: (start, end, nodes) or None (rejected)}`` for ``jobs`` (submit order).

    ``policy`` is fcfs, easy, hybrid (``depth`` reservations) or conservative.
    """
    reserve_depth = {"fcfs": 0, "easy": 1, "hybrid": depth, "conservative": math.inf}[policy]
    busy = {n: [] for n in range(n_nodes)}
    need = {j.id: (j.nodes or math.ceil(j.procs / cores_per_node)) for j in jobs}
    out = {}
    pending = sorted(jobs, key=lambda j: (j.submit, j.id))
    queue, running = [], {}  # running: id -> (end, nodes)
    i = 0
    while i < len(pending) or running:
        times = [e for e, _ in running.values()]
        if i < len(pending):
            times.append(pending[i].submit)
        now = min(times)
        for jid in sorted(k for k, (e, _) in running.items() if e == now):
            _, nodes = running.pop(jid)
            for n in nodes:
                busy[n] = [iv for iv in busy[n] if iv[2] != ("run", jid)]
        while i < len(pending) and pending[i].submit == now:
            job = pending[i]
            i += 1
            if need[job.id] > n_nodes:
                out[job.id] = None
            else:
                queue.append(job)
        if not queue:
            continue
        for n in busy:  # a pass first cancels the previous pass's reservations
            busy[n] = [iv for iv in busy[n] if iv[2][0] != "res"]
        queue.sort(key=lambda j: (j.submit, j.id))
        reserved, considered, started = 0, 0, []
        for job in queue:
            if queue_depth is not None and considered >= queue_depth:
                break
            considered += 1
            p, w = need[job.id], job.walltime
            nodes = _fit(busy, n_nodes, p, now, w)
            if nodes is not None:
                end = now + min(job.runtime, job.walltime)
                for n in nodes:
                    busy[n].append((now, now + w, ("run", job.id)))
                running[job.id] = (end, nodes)
                out[job.id] = (now, end, tuple(nodes))
                started.append(job)
                continue
            if policy == "fcfs":
                break
            if reserved >= reserve_depth:
                continue
            candidates = sorted({e for n in busy for _, e, _ in busy[n] if e > now})
            for t in candidates:
                nodes = _fit(busy, n_nodes, p, t, w)
                if nodes is not None:
                    for n in nodes:
                        busy[n].append((t, t + w, ("res", job.id)))
                    reserved += 1
                    break
        queue = [j for j in queue if j not in started]
    return out
