"""FM diagnostic (issue 12, spec §4.6 A6): why every scheduler's bsld jumps at 32 TB/rack.

From 28 to 32 TB/rack the submission check (A6) admits 22 more jobs of the whole Perlmutter
trace (28 -> 6 rejected). Each asks for about 512 nodes with 329-396 GB per node, so it fits
only when nearly every pool of the machine is free: at the head of the queue its EASY
reservation drains the machine. This script runs each scheduler on the whole trace at 28 and
32 TB/rack, and at 32 TB/rack without the jobs that 28 TB/rack rejects, and prints bsld,
mean wait, throughput and node utilisation of each (spec §6.2; warm-up 3,000 jobs).

    python3 benchmarks/fm_pool_jump.py --traces ../shared/traces [--priorities fm,sjf]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _harness import machine_info, write_json

from fluxgraph.papers.fm.allocator import FmAllocator
from fluxgraph.papers.fm.machine import build_fm_machine, perlmutter_like
from fluxgraph.papers.fm.metrics import fm_metrics
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.workload import map_trace, read_trace

PRIORITIES = ("fcfs", "sjf", "wfp3", "f1", "fair", "fm")
WARMUP = 3000


def admitted_between(jobs, small_tb: int, large_tb: int) -> set[int]:
    """Ids of the jobs A6 rejects at ``small_tb`` but admits at ``large_tb`` TB/rack."""
    small = FmAllocator(build_fm_machine(perlmutter_like(small_tb)), "rack")
    large = FmAllocator(build_fm_machine(perlmutter_like(large_tb)), "rack")
    return {j.id for j in jobs if small.check(j) and not large.check(j)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="../shared/traces")
    ap.add_argument("--priorities", default=",".join(PRIORITIES))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    trace = Path(args.traces) / "perlmutter-fm-jobs.csv"
    if not trace.exists():
        sys.exit(f"fm_pool_jump: {trace} not found (spec §3.2)")
    jobs = map_trace(read_trace(trace), seed=1)
    extra = admitted_between(jobs, 28, 32)
    shapes = sorted((j.procs, j.memory) for j in jobs if j.id in extra)
    print(
        f"admitted at 32 but not at 28 TB/rack: {len(extra)} jobs, (nodes, GB per node) "
        f"{shapes[0]} .. {shapes[-1]}"
    )
    cases = (
        ("28", 28, jobs),
        ("32", 32, jobs),
        ("32 without them", 32, [j for j in jobs if j.id not in extra]),
    )
    rows = []
    print(
        f"{'priority':8} {'case':16} {'bsld':>6} {'wait s':>8} {'thr/100s':>8} "
        f"{'node util':>9} {'cpu s':>6}"
    )
    for priority in args.priorities.split(","):
        for label, pool, subset in cases:
            c0 = time.process_time()
            m = fm_metrics(run_fm(subset, perlmutter_like(pool), priority=priority), WARMUP)
            cpu = time.process_time() - c0
            rows.append(
                {
                    "priority": priority,
                    "case": label,
                    "bsld": m.bsld,
                    "wait": m.wait,
                    "throughput": m.throughput,
                    "node_utilisation": m.node_utilisation,
                    "cpu_s": cpu,
                }
            )
            print(
                f"{priority:8} {label:16} {m.bsld:6.2f} {m.wait:8.0f} {m.throughput:8.2f} "
                f"{m.node_utilisation:9.3f} {cpu:6.1f}",
                flush=True,
            )
    if args.json:
        write_json(
            args.json,
            {
                "machine": machine_info(Path(__file__).resolve().parents[1]),
                "extra_jobs": len(extra),
                "rows": rows,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
