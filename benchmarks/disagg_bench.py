"""Disaggregated-memory benchmark: the smoke grid of spec §8, timed per run (CPU seconds).

N = 64 nodes of 32 cores; S in {0, 25, 50, 100} % large nodes; X in {0, 50} % large node-hours;
the first ``--jobs`` lublin jobs (``nodes = ceil(procs / 32)``), load scaled to 1.10, the §3.4
seeds of window 0; A-base and A-dis (A-base is N/A at S = 0, X > 0). Prints, per run, CPU
seconds, matcher calls and the metrics, then the smoke checks: R0 (A-dis = A-base at X = 0 and
at S = 100), A-base rejects every large job at S = 0, A-dis completes every job at (0, 50),
NT(A-dis) > NT(A-base) at (25, 50).

    python3 benchmarks/disagg_bench.py                  # 300 jobs, the spec's smoke test
    python3 benchmarks/disagg_bench.py --jobs 100 --write
    python3 benchmarks/disagg_bench.py --engine graph   # placements by the graph matcher
    python3 benchmarks/disagg_bench.py --spec-cells --write   # spec-size runs, timed one by one
    PYTHONPATH=/path/to/old/checkout python3 benchmarks/disagg_bench.py --spec-cells --write \
        --out before.json                                    # the same cells on another commit

``--spec-cells`` times a few cells of the study's grid at the spec's size (1024 nodes, window 0
of 2000 jobs; lublin at 2 and KTH at 1 processors per node), as the study runs them, with a
digest of every job's placement to compare commits.

CPU seconds are the process's (``time.process_time``): the machine is shared, wall time is noisy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json
from disagg_fingerprint import digest

from fluxgraph.papers.disagg.machines import MemoryMachineSpec, large_count
from fluxgraph.papers.disagg.metrics import run_metrics
from fluxgraph.papers.disagg.mix import make_mix, map_trace, window
from fluxgraph.papers.disagg.sim import ENGINES, DisaggSimulator
from fluxgraph.workload import load_workload

REPO = Path(__file__).resolve().parents[1]
LUBLIN = REPO.parent / "shared" / "traces" / "lublin_256.swf"
KTH = REPO.parent / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf"
#: Spec-size cells timed by ``--spec-cells``: (trace, procs per node, S, X, allocator).
SPEC_CELLS = (
    (LUBLIN, 2, 100, 0, "base"),
    (LUBLIN, 2, 25, 25, "base"),
    (LUBLIN, 2, 50, 50, "base"),
    (LUBLIN, 2, 25, 25, "dis"),
    (LUBLIN, 2, 25, 50, "dis"),
    (LUBLIN, 2, 50, 75, "dis"),
    (LUBLIN, 2, 0, 50, "dis"),
    (LUBLIN, 2, 15, 75, "dis"),
    (KTH, 1, 25, 50, "base"),
    (KTH, 1, 25, 50, "dis"),
)


def spec_cells(engine: str, nodes: int = 1024, jobs: int = 2000) -> dict:
    """CPU seconds of each of :data:`SPEC_CELLS` (window 0), run one by one."""
    rows = []
    for trace, per_node, s, x, kind in SPEC_CELLS:
        first = window(map_trace(load_workload(trace), per_node=per_node), 0, jobs)
        mix = list(make_mix(first, x, nodes, 0))  # as the study's cells make it
        spec = MemoryMachineSpec(nodes, large_count(nodes, s))
        t0 = time.process_time()
        result = DisaggSimulator(spec, mix, kind, engine=engine).run()
        cpu = time.process_time() - t0
        row = {"trace": trace.stem, "S": s, "X": x, "alloc": kind, "cpu_s": round(cpu, 2)}
        row["digest"] = digest(result)  # every job's placement (disagg_fingerprint.py)
        row.update(result.stats)
        row.update({k: round(v, 4) for k, v in run_metrics(result).items()})
        rows.append(row)
        print(row, flush=True)
    return {"rows": rows, "nodes": nodes, "jobs": jobs}


def smoke(jobs: int, nodes: int = 64, engine: str = "arrays") -> dict:
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
                result = DisaggSimulator(spec, mix, kind, engine=engine).run()
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
    parser.add_argument("--engine", choices=ENGINES, default="arrays")
    parser.add_argument("--spec-cells", action="store_true", help="time spec-size cells")
    parser.add_argument("--write", action="store_true", help="save benchmarks/results JSON")
    parser.add_argument("--out", help="with --write: this file instead of the dated one")
    args = parser.parse_args()
    if not LUBLIN.exists():
        sys.exit(f"{LUBLIN} is missing")
    t0 = time.process_time()
    if args.spec_cells:
        out = spec_cells(args.engine)
    else:
        out = smoke(args.jobs, args.nodes, args.engine)
        print("checks:", out["checks"])
    out["engine"] = args.engine
    out["total_cpu_s"] = round(time.process_time() - t0, 1)
    print("total CPU s:", out["total_cpu_s"])
    if args.write:
        out["machine"] = machine_info(REPO)
        stamp = time.strftime("%Y-%m-%d", time.gmtime())
        name = "disagg_spec_cells" if args.spec_cells else "disagg_bench"
        path = args.out or REPO / "benchmarks" / "results" / f"{name}_{stamp}.json"
        write_json(Path(path), out)


if __name__ == "__main__":
    main()
