"""FM diagnostic (spec §4.6 A6 and the amendment of 2026-11-28): why bsld jumps at 32 TB/rack.

From 28 to 32 TB/rack the submission check (A6) admits 22 more jobs of the whole Perlmutter
trace (28 -> 6 rejected), each asking for 512-526 nodes with 329-396 GB per node. 8 of them
are warm-up jobs (among the first 3,000). Under the former warm-up rule (spec §9 D12,
``warmup_switch=started``: strict FCFS without backfilling until every warm-up job has
started) those 8 hold the strict-FCFS warm-up until each has drained the machine: the switch
moves from 39,111 s to 56,712 s, and that is about 90% of the jump (FM 2.90 -> 1.34 without
only those 8; 2.70 without only the 14 others). It is the warm-up rule, not the EASY
reservations. Under the paper's code's rule (``warmup_switch=arrival``: the switch at job
3,000's arrival, 38,617 s, in every configuration) the warm-up members do not move it.

The script runs each scheduler on the whole trace at 28 and 32 TB/rack, and at 32 TB/rack
without all 22, without the 8 warm-up members and without the 14 others (ids kept, so the
warm-up set is the same jobs in every case), and prints bsld, the switch time, mean wait,
throughput and node utilisation (spec §6.2). ``--rules``/``--warmup-switch`` choose the
options (default: the former ones, ``easy`` and ``started``, where the jump was measured).

    python3 benchmarks/fm_pool_jump.py --traces ../shared/traces [--priorities fm,sjf]
        [--rules code] [--warmup-switch arrival]
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
    ap.add_argument("--rules", default="easy", choices=("code", "easy"))
    ap.add_argument("--warmup-switch", default="started", choices=("arrival", "started", "none"))
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
    warm = {i for i in extra if i < WARMUP}
    print(f"of which warm-up jobs (ids < {WARMUP}): {len(warm)}")
    cases = (
        ("28", 28, set()),
        ("32", 32, set()),
        ("32 without all", 32, extra),
        ("32 without warm-up", 32, warm),
        ("32 without others", 32, extra - warm),
    )
    options = {"rules": args.rules, "warmup_switch": args.warmup_switch}
    rows = []
    print(
        f"{'priority':8} {'case':18} {'bsld':>6} {'t_switch':>8} {'wait s':>8} {'thr/100s':>8} "
        f"{'node util':>9} {'cpu s':>6}"
    )
    for priority in args.priorities.split(","):
        for label, pool, left_out in cases:
            subset = [j for j in jobs if j.id not in left_out]
            c0 = time.process_time()
            run = run_fm(subset, perlmutter_like(pool), priority=priority, **options)
            m = fm_metrics(run)
            cpu = time.process_time() - c0
            rows.append(
                {
                    "priority": priority,
                    "case": label,
                    **options,
                    "bsld": m.bsld,
                    "t_switch": m.t_switch,
                    "wait": m.wait,
                    "throughput": m.throughput,
                    "node_utilisation": m.node_utilisation,
                    "cpu_s": cpu,
                }
            )
            print(
                f"{priority:8} {label:18} {m.bsld:6.2f} {m.t_switch:8d} {m.wait:8.0f} "
                f"{m.throughput:8.2f} {m.node_utilisation:9.3f} {cpu:6.1f}",
                flush=True,
            )
    if args.json:
        write_json(
            args.json,
            {
                "machine": machine_info(Path(__file__).resolve().parents[1]),
                "extra_jobs": len(extra),
                "warmup_members": len(warm),
                "rows": rows,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
