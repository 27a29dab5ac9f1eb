"""FM runs for the report (FM spec §7-§8): a grid of pools x priorities, CPU time per run.

    python3 benchmarks/fm_bench.py s1      # S1 grid: first 1,000 jobs, warm-up 200, P machine
    python3 benchmarks/fm_bench.py peer    # first 3,000 jobs, no warm-up, slowdown none
    python3 benchmarks/fm_bench.py compat4 # the same at 4 TB/rack, the public simulator's rules
    python3 benchmarks/fm_bench.py compat  # ... at 4, 8, 12 and 48 TB/rack (the issue's table)
    python3 benchmarks/fm_bench.py whole 32 fm,sjf [--json FILE]   # whole-trace E1 cells
    python3 benchmarks/fm_bench.py estimate FILE   # E1's time from the cells of a whole run
    python3 benchmarks/fm_bench.py latency [--json FILE]   # D8's two readings, system scope
    python3 benchmarks/fm_bench.py speed [--json FILE]     # C10's runs: CPU against the peer's

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

``speed`` runs C10's cells (spec amendment of 2026-11-28): ``rules=code``, no warm-up, slowdown
``none``, the 3,000-job prefix at 4/8/12/48 TB/rack (six schedulers) and the whole trace at 48
TB/rack (FCFS, fm_code), and prints a table of our CPU seconds beside the public simulator's
(``../shared/reproductions/peers/fm_simulator_perlmutter_p3000.txt``; the whole-trace pair
903 and 867 s) with the ratio per run; the target is >= 20x for every run.

Prints one JSON object per run (metrics, fairness against the reference run, CPU seconds).
``s1`` and ``peer`` use the former rules (textbook EASY, §4.3; ``rules=easy``, warm-up until
every warm-up job started), ``compat`` the public simulator's (``rules=code``); ``bsld_all``
is the mean bounded slowdown over all completed jobs, as the peer measurement reports.
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
from fluxgraph.papers.fm.study_compat import PEER, PEER_CPU, SCHEDULERS, WHOLE_PEER, WHOLE_PEER_CPU
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
                row["bsld"] = round(fm_metrics(run).bsld, 4)
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
            m = fm_metrics(run)
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


def _bsld_all(run) -> float:
    done = [r for r in run.result.jobs if not r.rejected]
    return sum(max((r.end - r.job.submit) / max(r.end - r.start, TAU), 1.0) for r in done) / len(
        done
    )


def speed(out: Path | None) -> None:
    """C10's runs under ``rules=code``, our CPU seconds beside the public simulator's."""
    trace = map_trace(read_trace(TRACE))
    cases = [(3000, pool, name) for pool in PEER for name in SCHEDULERS]
    cases += [(0, 48, name) for name in WHOLE_PEER]
    runs = []
    print(
        f"{'jobs':>6} {'TB':>3} {'scheduler':9} {'peer s':>7} {'ours s':>7} {'ratio':>6} "
        f"{'bsld':>7} {'peer bsld':>9}"
    )
    for count, pool, name in cases:
        jobs = trace[:count] if count else trace
        t0 = time.process_time()
        run = run_fm(
            jobs, perlmutter_like(pool), "rack", name, "none", rules="code", warmup_switch="none"
        )
        cpu = time.process_time() - t0
        peer = PEER_CPU[pool][name] if count else WHOLE_PEER_CPU[name]
        peer_bsld = PEER[pool][name] if count else WHOLE_PEER[name]
        row = {
            "jobs": count or len(trace),
            "pool_tb": pool,
            "priority": name,
            "peer_cpu_s": peer,
            "cpu_s": round(cpu, 2),
            "ratio": round(peer / cpu, 1),
            "bsld_all": round(_bsld_all(run), 3),
            "peer_bsld": peer_bsld,
        }
        print(
            f"{row['jobs']:>6} {pool:>3} {name:9} {peer:7.1f} {cpu:7.2f} {peer / cpu:5.0f}x "
            f"{row['bsld_all']:7.3f} {peer_bsld:9.2f}",
            flush=True,
        )
        runs.append(row)
    worst = min(r["ratio"] for r in runs)
    print(f"lowest ratio {worst:.0f}x (target >= 20x)")
    if out is not None:
        write_json(out, {"machine": machine_info(ROOT), "grid": "speed", "runs": runs})


def main(grid: str) -> None:
    count, warmup, model, pools, names = GRIDS[grid]
    jobs = map_trace(read_trace(TRACE))[:count]
    code = grid.startswith("compat")
    rules = {"rules": "code"} if code else {"rules": "easy", "warmup_switch": "started"}
    for pool in pools:
        machine = perlmutter_like(pool)
        reference = run_fm(jobs, machine, "rack", model=model, warmup=warmup, reference=True)
        for name in names:
            t0 = time.process_time()
            run = run_fm(jobs, machine, "rack", name, model=model, warmup=warmup, **rules)
            cpu = time.process_time() - t0
            bsld_all = _bsld_all(run)
            out = {"grid": grid, "pool_tb": pool, "priority": name, "cpu_s": round(cpu, 2)}
            out["bsld_all"] = round(bsld_all, 3)
            metrics = asdict(fm_metrics(run))
            metrics.pop("memory_histogram")
            metrics.pop("degradation_histogram")
            out.update(metrics)
            out.update(run_fairness(run, reference))
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    json_out = Path(sys.argv[sys.argv.index("--json") + 1]) if "--json" in sys.argv else None
    if len(sys.argv) > 1 and sys.argv[1] == "estimate":
        print(json.dumps(estimate(Path(sys.argv[2]))))
    elif len(sys.argv) > 1 and sys.argv[1] == "latency":
        latency(json_out)
    elif len(sys.argv) > 1 and sys.argv[1] == "speed":
        speed(json_out)
    elif len(sys.argv) > 1 and sys.argv[1] == "whole":
        whole([int(p) for p in sys.argv[2].split(",")], sys.argv[3].split(","), json_out)
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "s1")
