"""FM runs for the report (FM spec §7-§8): a grid of pools x priorities, CPU time per run.

    python3 benchmarks/fm_bench.py s1      # S1 grid: first 1,000 jobs, warm-up 200, P machine
    python3 benchmarks/fm_bench.py peer    # first 3,000 jobs, no warm-up, slowdown none
    python3 benchmarks/fm_bench.py compat4 # the same at 4 TB/rack, the public simulator's rules
    python3 benchmarks/fm_bench.py compat  # ... at 4, 8, 12 and 48 TB/rack (the issue's table)
    python3 benchmarks/fm_bench.py whole 32 fm,sjf [--json FILE]   # whole-trace E1 cells
    python3 benchmarks/fm_bench.py estimate FILE   # E1's time from the cells of a whole run
    python3 benchmarks/fm_bench.py latency [--json FILE]   # D8's two readings, system scope

``whole POOLS PRIORITIES`` runs E1 cells on the whole trace (W1, warm-up 3,000, slowdown P1,
rack scope), one at a time, and prints CPU seconds, passes, bsld and rejections per run
(``reference`` is the A4 reference run of the pool); ``--json`` also writes them with the
machine's facts (``benchmarks/results/``). ``estimate FILE`` reads such a file and estimates
the whole E1 sweep (pools 4..48 step 4 x the schedulers measured, plus a reference run per
pool): cells not measured are interpolated linearly per scheduler between the nearest measured
pools; the wall time on 2 workers is half the CPU seconds (each reference run made once, or
by both workers).

``latency`` runs FM on the whole trace in system scope at 16 and 48 TB/rack under both
readings of spec §9 D8 (``latency_scope`` ``job`` and ``experiment``).

Prints one JSON object per run (metrics, fairness against the reference run, CPU seconds).
``peer`` uses this project's EASY (§4.3), not the public simulator's rules; its ``bsld_all`` is
the mean bounded slowdown over all completed jobs, as the peer measurement reports.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from _harness import machine_info, write_json

from fluxgraph.papers.fm.machine import perlmutter_like
from fluxgraph.papers.fm.metrics import TAU, fm_metrics, run_fairness
from fluxgraph.papers.fm.run import run_fm
from fluxgraph.papers.fm.workload import map_trace, read_trace

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT.parent / "shared" / "traces" / "perlmutter-fm-jobs.csv"
_SIX = ("fm_code", "sjf", "fair", "wfp3", "fcfs", "f1")
GRIDS = {
    "s1": (1000, 200, "paper", (4, 8, 48), (*_SIX, "fm", "f1_asc")),
    "peer": (3000, 0, "none", (4, 8, 12, 48), (*_SIX, "fm")),
    "peer4": (3000, 0, "none", (4,), _SIX),
    "compat4": (3000, 0, "none", (4,), _SIX),
    "compat": (3000, 0, "none", (4, 8, 12, 48), _SIX),
}


def whole(pools: list[int], names: list[str], out: Path | None) -> None:
    """Whole-trace E1 cells, timed one by one (CPU time of this process)."""
    jobs = map_trace(read_trace(TRACE))
    runs = []
    for pool in pools:
        for name in names:
            reference = name == "reference"
            t0 = time.process_time()
            run = run_fm(
                jobs,
                perlmutter_like(pool),
                "rack",
                "fcfs" if reference else name,
                reference=reference,
            )
            cpu = time.process_time() - t0
            row = {"pool_tb": pool, "priority": name, "cpu_s": round(cpu, 2)}
            row["passes"] = run.result.info["matcher_calls"]["passes"]
            row["rejected"] = sum(r.rejected for r in run.result.jobs)
            if not reference:
                row["bsld"] = round(fm_metrics(run, 3000).bsld, 4)
            print(json.dumps(row), flush=True)
            runs.append(row)
    if out is not None:
        write_json(out, {"machine": machine_info(ROOT), "grid": "whole", "runs": runs})


def latency(out: Path | None) -> None:
    """FM, whole trace, system scope at 16 and 48 TB/rack, under both D8 readings."""
    jobs = map_trace(read_trace(TRACE))
    runs = []
    for pool in (16, 48):
        for scope in ("job", "experiment"):
            t0 = time.process_time()
            run = run_fm(jobs, perlmutter_like(pool), "system", "fm", latency_scope=scope)
            row = {"pool_tb": pool, "latency_scope": scope}
            row["cpu_s"] = round(time.process_time() - t0, 2)
            m = fm_metrics(run, 3000)
            for name in ("bsld", "bsld_code", "wait", "throughput", "degradation", "deg_below_5"):
                row[name] = round(getattr(m, name), 4)
            row["cross_rack_jobs"] = sum(1 for v in run.stretched.values() if v[1] > 0)
            print(json.dumps(row), flush=True)
            runs.append(row)
    if out is not None:
        write_json(out, {"machine": machine_info(ROOT), "grid": "latency", "runs": runs})


def estimate(path: Path) -> dict[str, float]:
    """E1's CPU seconds from the measured whole-trace cells of ``path`` (see the module doc)."""
    cpu = {(r["pool_tb"], r["priority"]): r["cpu_s"] for r in json.loads(path.read_text())["runs"]}
    total = {"policy": 0.0, "reference": 0.0}
    for name in sorted({n for _, n in cpu}):
        measured = sorted(p for p, n in cpu if n == name)
        for pool in range(4, 49, 4):
            lo = max((p for p in measured if p <= pool), default=measured[0])
            hi = min((p for p in measured if p >= pool), default=measured[-1])
            a, b = cpu[(lo, name)], cpu[(hi, name)]
            value = a if hi == lo else a + (b - a) * (pool - lo) / (hi - lo)
            total["reference" if name == "reference" else "policy"] += value
    total["minutes_2_workers"] = (total["policy"] + total["reference"]) / 2 / 60
    # the study caches a reference run per worker: at worst both workers make every one
    total["minutes_2_workers_each_reference"] = (total["policy"] + 2 * total["reference"]) / 120
    return {k: round(v, 1) for k, v in total.items()}


def main(grid: str) -> None:
    count, warmup, model, pools, names = GRIDS[grid]
    jobs = map_trace(read_trace(TRACE))[:count]
    for pool in pools:
        machine = perlmutter_like(pool)
        reference = run_fm(jobs, machine, "rack", model=model, warmup=warmup, reference=True)
        for name in names:
            t0 = time.process_time()
            run = run_fm(
                jobs,
                machine,
                "rack",
                name,
                model=model,
                warmup=warmup,
                compat="fm-simulator" if grid.startswith("compat") else "",
            )
            cpu = time.process_time() - t0
            done = [r for r in run.result.jobs if not r.rejected]
            bsld_all = sum(
                max((r.end - r.job.submit) / max(r.end - r.start, TAU), 1.0) for r in done
            ) / len(done)
            out = {"grid": grid, "pool_tb": pool, "priority": name, "cpu_s": round(cpu, 2)}
            out["bsld_all"] = round(bsld_all, 3)
            metrics = asdict(fm_metrics(run, warmup))
            metrics.pop("memory_histogram")
            metrics.pop("degradation_histogram")
            out.update(metrics)
            out.update(run_fairness(run, reference, warmup))
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    json_out = Path(sys.argv[sys.argv.index("--json") + 1]) if "--json" in sys.argv else None
    if len(sys.argv) > 1 and sys.argv[1] == "estimate":
        print(json.dumps(estimate(Path(sys.argv[2]))))
    elif len(sys.argv) > 1 and sys.argv[1] == "latency":
        latency(json_out)
    elif len(sys.argv) > 1 and sys.argv[1] == "whole":
        whole([int(p) for p in sys.argv[2].split(",")], sys.argv[3].split(","), json_out)
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "s1")
