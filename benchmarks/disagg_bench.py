"""Disaggregated-memory benchmark: the smoke grid of spec §8, timed per run (CPU seconds).

N = 64 nodes of 32 cores; S in {0, 25, 50, 100} % large nodes; X in {0, 50} % large node-hours;
the first ``--jobs`` lublin jobs (``nodes = ceil(procs / 32)``), load scaled to 1.10, the §3.4
seeds of window 0; A-base and A-dis (A-base is N/A at S = 0, X > 0). Prints, per run, CPU
seconds, matcher calls and the metrics, then the smoke checks: R0 (A-dis = A-base at X = 0 and
at S = 100), A-base rejects every large job at S = 0, A-dis completes every job at (0, 50),
NT(A-dis) > NT(A-base) at (25, 50).

    python3 benchmarks/disagg_bench.py                  # 300 jobs, the spec's smoke test
    python3 benchmarks/disagg_bench.py --jobs 100 --write

CPU seconds are the process's (``time.process_time``): the machine is shared, wall time is noisy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json

from fluxgraph.memory_machines import MemoryMachineSpec, large_count
from fluxgraph.sched.disagg.metrics import run_metrics
from fluxgraph.sched.disagg.sim import DisaggSimulator
from fluxgraph.workload import load_workload
from fluxgraph.workload.disagg_mix import make_mix, map_trace

REPO = Path(__file__).resolve().parents[1]
LUBLIN = REPO.parent / "shared" / "traces" / "lublin_256.swf"


def smoke(jobs: int, nodes: int = 64) -> dict:
    """Run the smoke grid; per-run rows and the checks."""
    trace = sorted(load_workload(LUBLIN), key=lambda j: (j.submit, j.id))[:jobs]
    mapped = map_trace(trace, per_node=32)
    rows, records = [], {}
    for x in (0, 50):
        mix = make_mix(mapped, x, nodes=nodes)
        for s in (0, 25, 50, 100):
            for kind in ("base", "dis"):
                if kind == "base" and s == 0 and x > 0:
                    continue
                spec = MemoryMachineSpec(nodes, large_count(nodes, s))
                t0 = time.process_time()
                result = DisaggSimulator(spec, mix, kind).run()
                cpu = time.process_time() - t0
                row = {"S": s, "X": x, "alloc": kind, "cpu_s": round(cpu, 2)}
                row.update(result.stats)
                row.update({k: round(v, 4) for k, v in run_metrics(result).items()})
                rows.append(row)
                records[(s, x, kind)] = result.records
                print(row, flush=True)
    ref = {x: next(r for r in rows if (r["S"], r["X"], r["alloc"]) == (100, x, "base"))
           for x in (0, 50)}  # fmt: skip
    for row in rows:
        row["NT"] = round(row["throughput"] / ref[row["X"]]["throughput"], 4)

    def starts(key):
        return [(r.start, r.nodes) for r in records[key]]

    nt = {(r["S"], r["X"], r["alloc"]): r["NT"] for r in rows}
    checks = {
        "R0": all(starts((s, 0, "base")) == starts((s, 0, "dis")) for s in (0, 25, 50, 100))
        and starts((100, 50, "base")) == starts((100, 50, "dis")),
        "base rejects large at S=0": all(
            (r.rejected != "") == r.job.extra["large"]
            for r in DisaggSimulator(
                MemoryMachineSpec(nodes, 0), make_mix(mapped, 50, nodes=nodes), "base"
            )
            .run()
            .records
        ),
        "dis completes all at (0,50)": all(r.completed for r in records[(0, 50, "dis")]),
        "NT(dis) > NT(base) at (25,50)": nt[(25, 50, "dis")] > nt[(25, 50, "base")],
    }
    return {"rows": rows, "checks": checks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--write", action="store_true", help="save benchmarks/results JSON")
    args = parser.parse_args()
    if not LUBLIN.exists():
        sys.exit(f"{LUBLIN} is missing")
    t0 = time.process_time()
    out = smoke(args.jobs, args.nodes)
    out["total_cpu_s"] = round(time.process_time() - t0, 1)
    print("checks:", out["checks"])
    print("total CPU s:", out["total_cpu_s"])
    if args.write:
        out["machine"] = machine_info(REPO)
        stamp = time.strftime("%Y-%m-%d", time.gmtime())
        write_json(REPO / "benchmarks" / "results" / f"disagg_bench_{stamp}.json", out)


if __name__ == "__main__":
    main()
