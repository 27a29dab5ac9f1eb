"""I/O-aware scheduling benchmark: CPU time of one W1 or W2 run per scheduler (issue 14's
target: under 2 s a run), the matcher calls and cycles, and the makespans.

Each run is timed with ``time.process_time`` (CPU seconds: the machine may be shared, so wall
time measures the other processes as well), best of ``--repeat`` runs.

    python3 benchmarks/ioaware_bench.py                 # W1 and W2, every scheduler
    python3 benchmarks/ioaware_bench.py --workloads W2 --repeat 3
    python3 benchmarks/ioaware_bench.py --write   # + benchmarks/results/ioaware_bench_<date>.json

The whole study (``fluxgraph reproduce ioaware``) is timed separately, with ``time``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json

from fluxgraph.papers.ioaware.run import run_io
from fluxgraph.papers.ioaware.workload import w1, w2

REPO = Path(__file__).resolve().parents[1]

#: ``(label, scheduler, R_limit, pre-trained)`` of the study's runs.
RUNS = [
    ("S0", "S0", 20.0, True),
    ("S1@20", "S1", 20.0, True),
    ("S1@15", "S1", 15.0, True),
    ("S2@20", "S2", 20.0, True),
    ("S2@20 untrained", "S2", 20.0, False),
    ("S2@15", "S2", 15.0, True),
    ("S2n@20", "S2n", 20.0, True),
    ("S2n@15", "S2n", 15.0, True),
]
#: The issue's target, CPU seconds per run.
TARGET_S = 2.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="W1,W2")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    loads = {"W1": w1(), "W2": w2()}
    results = []
    print(f"{'run':22} {'CPU s':>7} {'cycles':>7} {'makespan':>9}  target {TARGET_S} s")
    for name in args.workloads.split(","):
        jobs = loads[name]
        for label, scheduler, limit, trained in RUNS:
            best = None
            for _ in range(args.repeat):
                cpu = time.process_time()
                out = run_io(jobs, scheduler, limit, trained)
                cpu = time.process_time() - cpu
                best = cpu if best is None else min(best, cpu)
            row = {
                "workload": name,
                "run": label,
                "cpu_s": round(best or 0.0, 3),
                "cycles": len(out.log.times),
                "makespan": out.makespan,
                "matcher": dict(out.result.info.get("matcher_calls", {})),
            }
            results.append(row)
            flag = "" if row["cpu_s"] < TARGET_S else "  (over target)"
            print(
                f"{name + ' ' + label:22} {row['cpu_s']:7.2f} {row['cycles']:7d} "
                f"{row['makespan']:9d}{flag}"
            )
    if args.write:
        path = REPO / "benchmarks" / "results" / f"ioaware_bench_{time.strftime('%Y-%m-%d')}.json"
        write_json(path, {"machine": machine_info(REPO), "runs": results})
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
