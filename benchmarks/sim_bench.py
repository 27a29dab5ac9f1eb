"""Simulator benchmark: the KTH-SP2 trace replayed through the full graph matcher.

The issue's setting: 100 single-core nodes, FCFS priority, ``node`` shape, match policy
``first``; queue policies ``easy`` (the headline), ``conservative`` and ``hybrid``; and the cost
growth over job prefixes (should be near linear). Prints, per run, wall seconds, jobs per
second, the matcher calls made and skipped, and the schedule's metrics (mean wait, mean bounded
slowdown, node utilisation) beside the anchors the issue names.

    python3 benchmarks/sim_bench.py                       # easy on 1K/3K/10K/28K prefixes
    python3 benchmarks/sim_bench.py --queues easy,conservative,hybrid --prefixes 3000
    python3 benchmarks/sim_bench.py --write   # + benchmarks/results/sim_bench_<date>.json
    python3 benchmarks/sim_bench.py --prefixes 3000,0 --cqsim   # + CQSim on the same prefixes

``--cqsim`` runs ``../shared/peers/cqsim/run_cqsim.sh TRACE [LIMIT]`` (FCFS + EASY) right after
each of our runs, whatever its queue policy, and prints the ratio of the two wall times (only
the ratio means anything: both run on the same host in the same minute). Run it against older
code with ``PYTHONPATH`` pointing at another checkout (e.g. a ``git worktree``) for a
before/after table.

Without ``../shared/traces`` the bundled 500-job KTH sample is used.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json

from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator, make_queue_policy, summarize
from fluxgraph.workload import WorkloadWarning, bundled_trace, load_workload

REPO = Path(__file__).resolve().parents[1]
KTH = REPO.parent / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf"
CQSIM = REPO.parent / "shared" / "peers" / "cqsim" / "run_cqsim.sh"

#: The issue's anchors for KTH-SP2 with FCFS priority and EASY backfilling.
ANCHORS = {
    "CQSim (counts only) seconds": 8.1,
    "AccaSim seconds": 9.9,
    "CQSim mean wait": 5773,
    "CQSim mean bsld": 67.9,
    "AccaSim mean bsld": 81.3,
    "SchedGym mean bsld": 98.7,
    "trace log mean wait": 15291,
}


def run_once(jobs, queue: str, policy: str, depth: int, incremental: bool = True) -> dict:
    """One simulation; wall and CPU seconds, matcher calls, metrics and the schedule's digest
    (sha256 of the list of every job's ``(id, start, end, nodes, cores, reason)``)."""
    graph = build_machine("nodes=100,cores=1")
    gc.collect()
    gc.freeze()  # the long-lived graph and jobs stay out of the cyclic collector
    t0, c0 = time.perf_counter(), time.process_time()
    sim = Simulator(
        graph,
        jobs,
        queue=make_queue_policy(queue, depth),
        priority="fcfs",
        shape="node",
        policy=policy,
        incremental=incremental,
    )
    result = sim.run()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    gc.unfreeze()
    m = summarize(result)
    schedule = [(j.job.id, j.start, j.end, j.nodes, j.cores, j.reason) for j in result.jobs]
    return {
        "queue": queue,
        "jobs": len(jobs),
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "jobs_per_second": round(len(jobs) / seconds, 1),
        "matcher_calls": result.info["matcher_calls"],
        "mean_wait": round(m["mean_wait"], 1),
        "mean_bsld": round(m["mean_bsld"], 2),
        "node_utilisation": round(m["node_utilisation"], 4),
        "rejected": m["rejected"],
        "digest": hashlib.sha256(repr(schedule).encode()).hexdigest()[:16],
    }


def run_cqsim(trace: str, limit: int) -> dict:
    """CQSim (FCFS + EASY) on the first ``limit`` jobs (0: all): its wall time and metrics."""
    cmd = ["bash", str(CQSIM), trace] + ([str(limit)] if limit else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    got = dict(re.findall(r"(\w+)=([\d.]+)", out))
    return {k: float(v) for k, v in got.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--trace", default=str(KTH if KTH.exists() else bundled_trace("kth-sample.swf"))
    )
    ap.add_argument("--queues", default="easy", help="comma-separated queue policies")
    ap.add_argument(
        "--prefixes",
        default="1000,3000,10000,0",
        help="comma-separated job counts (0 = the whole trace)",
    )
    ap.add_argument("--policy", default="first")
    ap.add_argument("--reservation-depth", type=int, default=64)
    ap.add_argument("--write", action="store_true", help="write the results JSON")
    ap.add_argument("--cqsim", action="store_true", help="also time CQSim on each prefix")
    ap.add_argument(
        "--no-incremental",
        action="store_true",
        help="re-make every reservation at every pass (Simulator(incremental=False))",
    )
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkloadWarning)  # the drops are printed below
        workload = load_workload(args.trace)
    rows = []
    print(
        f"trace {args.trace}: {len(workload)} jobs (dropped: {dict(workload.dropped)}); "
        f"100 nodes, fcfs priority, node shape, policy {args.policy}"
    )
    for queue in args.queues.split(","):
        for prefix in (int(p) for p in args.prefixes.split(",")):
            jobs = workload.head(prefix) if prefix and prefix < len(workload) else workload
            row = run_once(
                jobs, queue, args.policy, args.reservation_depth, not args.no_incremental
            )
            rows.append(row)
            calls = row["matcher_calls"]
            print(
                f"{queue:>12} {row['jobs']:>6} jobs {row['seconds']:>9.2f} s "
                f"(cpu {row['cpu_seconds']:.2f} s) "
                f"{row['jobs_per_second']:>8.1f} jobs/s  wait {row['mean_wait']:>9.1f} s  "
                f"bsld {row['mean_bsld']:>7.2f}  util {row['node_utilisation']:.3f}  "
                f"calls alloc {calls['allocate']} reserve {calls['reserve']} "
                f"cancel {calls['cancel']} skipped {calls['skipped']} "
                f"kept {calls.get('kept', 0)} passes {calls['passes']} "
                f"(resumed {calls['resumed_passes']})  digest {row['digest']}",
                flush=True,
            )
            if args.cqsim:  # (after every queue: the targets compare them all with its EASY)
                peer = run_cqsim(args.trace, prefix)
                row["cqsim"] = peer
                row["ratio_to_cqsim"] = round(row["seconds"] / peer["wall_s"], 3)
                print(
                    f"{'cqsim easy':>12} {int(peer['jobs']):>6} jobs {peer['wall_s']:>9.2f} s"
                    f"  wait {peer['avg_wait']:>9.1f} s  bsld {peer['bsld']:>7.2f}"
                    f"  -> ours / cqsim = {row['ratio_to_cqsim']:.2f}x",
                    flush=True,
                )
    print("anchors: " + ", ".join(f"{k} {v}" for k, v in ANCHORS.items()))
    if args.write:
        info = machine_info(REPO)
        path = REPO / "benchmarks" / "results" / f"sim_bench_{info['date']}.json"
        write_json(
            path,
            {
                "machine": info,
                "anchors": ANCHORS,
                "runs": rows,
                "policy": args.policy,
                "trace": Path(args.trace).name,
            },
        )
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
