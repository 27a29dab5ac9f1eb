"""Scale benchmark: a large machine and a long generated trace under EASY.

Builds ``nodes=N,cores=C[,racks=R]``, generates ``--jobs`` Lublin–Feitelson jobs of at most
``--max-procs`` processors (default 256, as ``fluxgraph simulate --trace lublin:N`` makes them;
``--max-procs 0`` sizes them for the whole machine, ``N * C``), replays them FCFS + EASY with
the ``node`` shape and policy ``first``, and prints the stages' CPU and wall seconds, the
per-job cost, jobs completed and the process's peak RSS. The targets of the issue (10,000 nodes
x 100,000 jobs: under 5 minutes and under 4 GiB) are printed beside the measured values; the
script does not fail on them (targets live here, not in tests).

    python3 benchmarks/scale_bench.py                          # 10,000 x 64 cores, 100,000 jobs
    python3 benchmarks/scale_bench.py --jobs 5000 --racks 100  # a quick look, racked machine
    python3 benchmarks/scale_bench.py --jobs 200 --max-procs 0 # jobs sized for the machine
    python3 benchmarks/scale_bench.py --write                  # + benchmarks/results/ json

Each node a job holds is booked with every leaf below it (65 vertices here), so the cost of a
job grows with its node count: whole-machine Lublin sizes average ~870 nodes a job.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json

from fluxgraph.machines import build_machine
from fluxgraph.sched import Simulator, make_queue_policy, summarize
from fluxgraph.sched.allocator import MatcherAllocator
from fluxgraph.sched.shapes import JobShape
from fluxgraph.workload.generators import lublin

REPO = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 300.0
TARGET_RSS_MB = 4096.0


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(label: str, fn):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    line = f"  {label:<10} CPU {cpu:8.1f} s  wall {wall:8.1f} s  peak RSS {_rss_mb():7.0f} MB"
    print(line, flush=True)
    return out, cpu, wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--cores", type=int, default=64)
    ap.add_argument("--racks", type=int, default=0, help="0: nodes directly under the cluster")
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--max-procs", type=int, default=256, help="0: nodes * cores")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", action="store_true", help="also write a JSON result file")
    args = ap.parse_args(argv)
    spec = f"nodes={args.nodes},cores={args.cores}"
    spec += f",racks={args.racks}" if args.racks else ""
    max_procs = args.max_procs or args.nodes * args.cores
    print(f"scale: {spec}, {args.jobs:,} Lublin jobs (max_procs {max_procs:,})")
    graph, build_cpu, build_wall = _timed("machine", lambda: build_machine(spec))
    jobs, _, _ = _timed("trace", lambda: lublin(args.jobs, max_procs, args.seed))

    def simulate():
        alloc = MatcherAllocator(graph, JobShape("node", args.cores), "first")
        return Simulator(graph, jobs, queue=make_queue_policy("easy"), allocator=alloc).run()

    result, sim_cpu, sim_wall = _timed("simulate", simulate)
    s = summarize(result)
    total = build_wall + sim_wall
    rss = _rss_mb()
    print(
        f"  {s['completed']:,} completed, {s['rejected']:,} rejected, node utilisation "
        f"{s['node_utilisation']:.3f}, mean wait {s['mean_wait']:,.0f} s; "
        f"{1000 * sim_cpu / max(1, len(jobs)):.2f} ms CPU per job"
    )
    sys.stdout.flush()
    print(
        f"  total wall {total:.1f} s (target < {TARGET_SECONDS:.0f} s), "
        f"peak RSS {rss:.0f} MB (target < {TARGET_RSS_MB:.0f} MB)"
    )
    if args.write:
        out = REPO / "benchmarks" / "results" / f"scale_bench_{date.today()}.json"
        write_json(
            out,
            {
                "machine": machine_info(REPO),
                "spec": spec,
                "jobs": len(jobs),
                "max_procs": max_procs,
                "build": {"cpu": build_cpu, "wall": build_wall},
                "simulate": {"cpu": sim_cpu, "wall": sim_wall},
                "completed": s["completed"],
                "rejected": s["rejected"],
                "node_utilisation": s["node_utilisation"],
                "peak_rss_mb": rss,
            },
        )
        print(f"  wrote {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
