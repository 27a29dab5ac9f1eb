"""Disaggregated-memory schedules as digests: compare two commits' placements run by run.

Runs a fixed, representative set of ``DisaggSimulator`` runs and records, per run, a digest of
every job's start, end, compute nodes, local shares, lent pieces, remote fraction and rejection
reason, plus the run's CPU seconds. Run it on two checkouts and compare:

    PYTHONPATH=/tmp/base python3 benchmarks/disagg_fingerprint.py --out before.json
    python3 benchmarks/disagg_fingerprint.py --out after.json --compare before.json

The set: seeded random workloads (2-8 nodes, 1-20 jobs; both allocators, backfill depth 2 or
100, both lending rules, self-interference; both engines), lublin and KTH windows at 32 nodes x
150 jobs across S x X (windows 0-2), smoke-size (64 x 300) and 256 x 300 lublin runs, and with
``--spec`` two spec-size runs (1024 nodes x 2000 jobs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

from fluxgraph.papers.disagg.contention import APPS
from fluxgraph.papers.disagg.machines import MemoryMachineSpec, large_count
from fluxgraph.papers.disagg.mix import make_mix, map_trace, window
from fluxgraph.papers.disagg.sim import DisaggSimulator
from fluxgraph.workload import Job, load_workload

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
LUBLIN = TRACES / "lublin_256.swf"
KTH = TRACES / "KTH-SP2-1996-2.1-cln.swf"


def digest(result) -> str:
    """A digest of every job's record (start, end, nodes, shares, pieces, r, reason)."""
    rows = [
        (r.job.id, r.start, r.end, r.nodes, r.local, r.lent, round(r.remote, 12), r.rejected)
        for r in result.records
    ]
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def random_runs(count: int) -> list[tuple[str, MemoryMachineSpec, list[Job], dict]]:
    """Seeded small random workloads with varied options."""
    runs = []
    mibs = [1024, 16384, 30000, 40000, 49152, 60000, 90000]
    apps = sorted(APPS)
    for seed in range(count):
        rng = random.Random(seed)
        n = rng.randint(2, 8)
        spec = MemoryMachineSpec(n, rng.randint(0, n))
        jobs = []
        for i in range(rng.randint(1, 20)):
            runtime = rng.randint(1, 60)
            extra = {"mem_mib": rng.choice(mibs), "app_id": rng.choice(apps)}
            submit, walltime = rng.randint(0, 80), runtime + rng.randint(0, 30)
            jobs.append(Job(i + 1, submit, runtime, walltime, nodes=rng.randint(1, 3), extra=extra))
        options = {
            "backfill_depth": rng.choice([2, 100]),
            "lending": rng.choice(["shared", "shared", "dedicated"]),
            "self_interference": rng.random() < 0.3,
        }
        for kind in ("base", "dis"):
            for engine in ("arrays", "graph"):
                name = f"random{seed}-{kind}-{engine}"
                runs.append((name, spec, jobs, {**options, "allocator": kind, "engine": engine}))
    return runs


def trace_runs(
    trace: Path, per_node: int, nodes: int, jobs: int, cells, windows=(0,), **options
) -> list[tuple[str, MemoryMachineSpec, list[Job], dict]]:
    """Study-style runs of ``trace``: ``cells`` are (S, X, allocator)."""
    mapped = map_trace(load_workload(trace), per_node=per_node)
    runs = []
    for w in windows:
        first = window(mapped, w, jobs)
        for s, x, kind in cells:
            mix = list(make_mix(first, x, nodes, w))
            spec = MemoryMachineSpec(nodes, large_count(nodes, s))
            tag = "".join(f"-{k}={v}" for k, v in sorted(options.items()))
            name = f"{trace.stem}-{nodes}n{jobs}j-w{w}-S{s}X{x}-{kind}{tag}"
            runs.append((name, spec, mix, {**options, "allocator": kind}))
    return runs


def all_runs(spec_size: bool) -> list[tuple[str, MemoryMachineSpec, list[Job], dict]]:
    grid = [
        (0, 50, "dis"), (15, 75, "base"), (15, 75, "dis"), (25, 50, "base"), (25, 50, "dis"),
        (50, 50, "base"), (50, 50, "dis"), (75, 75, "dis"), (100, 0, "base"), (25, 100, "dis"),
        (15, 25, "dis"), (0, 100, "dis"),
    ]  # fmt: skip
    runs = random_runs(60)
    runs += trace_runs(LUBLIN, 64, 32, 150, grid, windows=(0, 1, 2))
    runs += trace_runs(LUBLIN, 64, 32, 150, [(25, 50, "dis"), (0, 75, "dis")], engine="graph")
    runs += trace_runs(LUBLIN, 64, 32, 150, [(15, 50, "dis")], lending="dedicated")
    runs += trace_runs(LUBLIN, 64, 32, 150, [(15, 50, "dis")], interference="none")
    runs += trace_runs(LUBLIN, 64, 32, 150, [(15, 50, "dis")], lender_compute="if-memory-fits")
    runs += trace_runs(LUBLIN, 64, 32, 150, [(25, 75, "dis")], self_interference=True)
    runs += trace_runs(LUBLIN, 64, 32, 150, [(25, 50, "dis")], backfill_depth=5)
    runs += trace_runs(KTH, 32, 32, 150, [(25, 50, "base"), (25, 50, "dis"), (0, 75, "dis")])
    smoke = [(25, 50, "base"), (25, 50, "dis"), (0, 50, "dis"), (50, 0, "base")]
    runs += trace_runs(LUBLIN, 32, 64, 300, smoke)
    runs += trace_runs(LUBLIN, 8, 256, 300, [(25, 50, "base"), (25, 50, "dis"), (15, 75, "dis")])
    if spec_size:
        runs += trace_runs(LUBLIN, 2, 1024, 2000, [(100, 0, "base"), (25, 50, "dis")])
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="JSON of {run: {digest, cpu_s}}")
    parser.add_argument("--compare", help="a previous --out to compare digests with")
    parser.add_argument("--spec", action="store_true", help="add two 1024 x 2000 runs")
    parser.add_argument("--only", help="run only the runs whose name contains this")
    args = parser.parse_args()
    out = {}
    for name, spec, jobs, options in all_runs(args.spec):
        if args.only and args.only not in name:
            continue
        t0 = time.process_time()
        result = DisaggSimulator(spec, jobs, **options).run()
        out[name] = {"digest": digest(result), "cpu_s": round(time.process_time() - t0, 3)}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    total = sum(v["cpu_s"] for v in out.values())
    print(f"{len(out)} runs, {total:.1f} CPU s -> {args.out}")
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        common = [k for k in out if k in before]
        differ = [k for k in common if out[k]["digest"] != before[k]["digest"]]
        for k in differ:
            print("DIFFERS", k)
        was = sum(before[k]["cpu_s"] for k in common)
        now = sum(out[k]["cpu_s"] for k in common)
        print(f"{len(common) - len(differ)} of {len(common)} identical; CPU {was:.1f} -> {now:.1f}")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
