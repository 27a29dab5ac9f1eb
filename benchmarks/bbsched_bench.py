"""BBSched speed: Baseline on KTH with zero BB, and BBSched's decision time.

The anchor: the authors' CQSim BBSched branch replays KTH-SP2 with a zero BB column in 57 s and
1 GB RSS on this machine class; the target is 5x faster (<= 11.4 s). This
script replays the same trace (``--limit`` jobs, default all; ``--slice`` = the 120-day
Cori-analogue slice of spec §3.2) with the Baseline method (FCFS + EASY through the window pass,
every start and reservation a matcher call on the ``bbsched-kth`` graph, with the matcher's fast
path for flat machines) and reports CPU seconds (the machine is shared), wall seconds and peak
RSS. ``--compare`` replays it again with ``fastpath="off"`` (every call a traverser walk) and
checks that every job has the same start time and node set; ``--pool-jobs N`` does the same for
the first N lublin S4 jobs with their burst-buffer requests on the W2 pool (whole nodes beside
whole pool chunks). Then the median ``select`` time of
BBSched at w = 20 (G = 500, P = 20) on seeded windows, and in a simulated run when
``--run-jobs`` > 0.

    python3 benchmarks/bbsched_bench.py --traces ../shared/traces [--limit N] [--slice] [--compare]
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import sys
import time
from pathlib import Path

from _harness import machine_info, write_json

from fluxgraph.papers.bbsched.calibration import machine_for, run_pool
from fluxgraph.papers.bbsched.probes import decision_times
from fluxgraph.papers.bbsched.run import RunOptions, simulate_method
from fluxgraph.papers.bbsched.workloads import trace_slice
from fluxgraph.papers.bbsched.workloads import workload as bb_workload
from fluxgraph.workload import load_workload

CQSIM_SECONDS = 57.0
CQSIM_RSS_MB = 1024.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="../shared/traces")
    ap.add_argument("--limit", type=int, default=0, help="first N jobs (0 = all)")
    ap.add_argument("--slice", action="store_true", help="the 120-day slice of spec §3.2")
    ap.add_argument("--run-jobs", type=int, default=0, help="BBSched run on lublin S4 prefix")
    ap.add_argument("--compare", action="store_true", help="also the traverser path; same?")
    ap.add_argument("--pool-jobs", type=int, default=0, help="lublin S4 Baseline with BB, A/B")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    traces = Path(args.traces)
    if args.slice:
        jobs = trace_slice("kth", traces, args.limit or None)
    else:
        raw = load_workload(traces / "KTH-SP2-1996-2.1-cln.swf", limit=args.limit or None)
        jobs = [dataclasses.replace(j, nodes=j.procs) for j in raw]
    schedules, times = {}, {}
    for fastpath in ("auto", "off") if args.compare else ("auto",):
        c0, t0 = time.process_time(), time.perf_counter()
        result, _ = simulate_method(jobs, "bbsched-kth", "Baseline", RunOptions(fastpath=fastpath))
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        done = sum(r.completed for r in result.jobs)
        schedules[fastpath] = [(r.job.id, r.start, tuple(r.nodes)) for r in result.jobs]
        times[fastpath] = {"jobs": len(jobs), "cpu_s": cpu, "wall_s": wall, "rss_mb": rss}
        print(
            f"Baseline on KTH ({len(jobs)} jobs, zero BB, fastpath={fastpath}): CPU {cpu:.1f} s, "
            f"wall {wall:.1f} s, peak RSS {rss:.0f} MB, {done} completed; CQSim anchor "
            f"{CQSIM_SECONDS} s, {CQSIM_RSS_MB:.0f} MB: {CQSIM_SECONDS / cpu:.2f}x "
            f"(target 5x: {CQSIM_SECONDS / 5:.1f} s)"
        )
    if args.compare:
        same = schedules["auto"] == schedules["off"]
        print(f"same start times and node sets with and without the fast path: {same}")
        if not same:
            return 1
    if args.pool_jobs and not pool_ab(traces, args.pool_jobs):
        return 1
    decision = decision_times("BBSched", 20, windows=100)
    print(
        f"BBSched select at w=20 (G=500, P=20), 100 seeded windows: median "
        f"{decision['median_ms']:.1f} ms, p99 {decision['p99_ms']:.1f} ms"
    )
    out = {
        "machine": machine_info(Path(__file__).resolve().parents[1]),
        "baseline": times,
        "decision_w20": decision,
    }
    if args.run_jobs:
        jobs = list(bb_workload("lublin", "S4", traces, args.run_jobs).jobs)
        options = RunOptions(base="wfp")
        _, scheduler = simulate_method(jobs, "bbsched-lublin", "BBSched", options)
        times = [t * 1000 for t in scheduler.decision_times]
        med = statistics.median(times) if times else float("nan")
        print(f"BBSched, lublin-S4 ({len(jobs)} jobs): {len(times)} decisions, median {med:.0f} ms")
        out["decision_in_run"] = {"jobs": len(jobs), "decisions": len(times), "median_ms": med}
    if args.json:
        write_json(args.json, out)
    return 0


def pool_ab(traces: Path, limit: int) -> bool:
    """Baseline on the first ``limit`` lublin S4 jobs (W2 pool) with and without the fast path;
    whether every job has the same start time and node set."""
    jobs = list(bb_workload("lublin", "S4", traces, limit).jobs)
    machine = machine_for("lublin", "W2", bb=run_pool("lublin", "W2", traces))
    schedules = {}
    for fastpath in ("auto", "off"):
        c0 = time.process_time()
        result, _ = simulate_method(jobs, machine, "Baseline", RunOptions(fastpath=fastpath))
        cpu = time.process_time() - c0
        schedules[fastpath] = [(r.job.id, r.start, tuple(r.nodes)) for r in result.jobs]
        print(
            f"Baseline, lublin S4 with BB ({len(jobs)} jobs, fastpath={fastpath}): CPU {cpu:.1f} s"
        )
    same = schedules["auto"] == schedules["off"]
    print(f"same start times and node sets with and without the fast path: {same}")
    return same


if __name__ == "__main__":
    sys.exit(main())
