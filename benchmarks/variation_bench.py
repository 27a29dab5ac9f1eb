"""Variation case-study benchmark (Fluxion §6.3): the 200-job queue per match policy.

Per policy: build quartz-2418 with the seed's classes, then time the matcher's creation and the
static replay of the queue (one ``allocate_orelse_reserve`` per job at time 0) in CPU seconds
(``time.process_time``; the machine is shared) and wall seconds, with the fom row (Table 1),
the jobs started now, the preorder visits and the mean match time of the first 5 and of the
reserved jobs. ``--lod node`` runs the same on the pooled quartz (``node > core[36]``, 4,876
vertices): the same selections at a coarser level of detail (paper §3.3).

    python3 benchmarks/variation_bench.py                          # seed 1, all five policies
    python3 benchmarks/variation_bench.py --lod both --exact       # + pooled machine, exact visits
    python3 benchmarks/variation_bench.py --write   # + results/variation_bench_<date>.json
    python3 benchmarks/variation_bench.py --runs 5 --policies high,low,variation,classpack

The target (spec amendment of 2026-11-28, V5): under 5 s per policy for high, low, variation and
classpack on the socketed quartz with margin: a median of 5 runs <= 4.0 CPU s on a quiet host,
and variation <= 0.25x the reference's 20.4 s (flux-sched resource-query: 5.9 s for ``high``,
20.4 s for ``variation`` on this machine class, spec §7.1). ``--runs N`` repeats each policy N
times (fresh graph each) and prints the medians.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json

from fluxgraph.matcher import Matcher
from fluxgraph.papers.variation.quartz import build_quartz
from fluxgraph.papers.variation.static_queue import fom_histogram, run_static_queue
from fluxgraph.papers.variation.workload import perf_classes, variation_queue

REPO = Path(__file__).resolve().parents[1]
POLICIES = ("high", "low", "variation", "classpack", "classpack:slack=1800", "classpack-strict")
TARGET_S = 5.0
#: V5's margin: the median of 5 runs per policy, CPU s, and variation's share of the reference.
MARGIN_S = 4.0
MARGIN_OF_REFERENCE = 0.25
REFERENCE_S = {"high": 5.9, "variation": 20.4}


def run_once(seed: int, policy: str, pooled: bool, exact: bool, jobs: int) -> dict:
    """One replay of the queue; CPU and wall seconds and the schedule's figures."""
    classes = perf_classes(seed, 2418)
    queue = variation_queue(seed, jobs)
    graph = build_quartz(classes=classes, pooled=pooled)
    gc.collect()
    gc.freeze()  # the long-lived graph stays out of the cyclic collector
    c0, w0 = time.process_time(), time.perf_counter()
    matcher = Matcher(graph, "CA", policy, prune="ALL:core,ALL:node", exact_visit_counts=exact)
    shape = {"sockets": 0, "cores": 36} if pooled else {}
    records = run_static_queue(matcher, queue, **shape)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    gc.unfreeze()
    reserved = [r.seconds for r in records if r.start > 0]
    return {
        "policy": policy,
        "lod": "node" if pooled else "socket",
        "exact": exact,
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "fom": fom_histogram(records, classes),
        "now": sum(r.start == 0 for r in records),
        "visits": sum(r.preorder for r in records),
        "first5_ms": round(1000 * statistics.fmean(r.seconds for r in records[:5]), 2),
        "reserved_ms": round(1000 * statistics.fmean(reserved), 2) if reserved else 0.0,
    }


def _medians(runs: list[dict]) -> list[dict]:
    """Median CPU and wall seconds per (lod, exact, policy), in the order first run."""
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault((r["lod"], r["exact"], r["policy"]), []).append(r)
    return [
        {"lod": lod, "exact": exact, "policy": policy, "runs": len(rs),
         "cpu_s": round(statistics.median(r["cpu_s"] for r in rs), 3),
         "wall_s": round(statistics.median(r["wall_s"] for r in rs), 3)}
        for (lod, exact, policy), rs in groups.items()
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--lod", choices=("socket", "node", "both"), default="socket")
    ap.add_argument("--exact", action="store_true", help="also with exact_visit_counts on")
    ap.add_argument("--runs", type=int, default=1, help="runs per policy (medians printed)")
    ap.add_argument("--write", action="store_true", help="write benchmarks/results/*.json")
    args = ap.parse_args(argv)
    lods = {"socket": [False], "node": [True], "both": [False, True]}[args.lod]
    runs = []
    print(f"seed {args.seed}, {args.jobs} jobs; CPU s (wall s); target < {TARGET_S} s per policy")
    for pooled in lods:
        for exact in [False, True] if args.exact else [False]:
            for policy in args.policies.split(","):
                for _ in range(args.runs):
                    r = run_once(args.seed, policy, pooled, exact, args.jobs)
                    runs.append(r)
                    ref = REFERENCE_S.get(policy)
                    print(
                        f"  {r['lod']:6} exact={exact!s:5} {policy:20} {r['cpu_s']:7.2f} "
                        f"({r['wall_s']:.2f}) fom {r['fom']} now {r['now']} visits "
                        f"{r['visits']} first5 {r['first5_ms']} ms reserved {r['reserved_ms']} ms"
                        + (f"  [reference {ref} s]" if ref else ""),
                        flush=True,
                    )
    medians = _medians(runs)
    for m in medians:
        print(f"  median of {m['runs']}: {m['lod']:6} exact={m['exact']!s:5} {m['policy']:20} "
              f"{m['cpu_s']:.2f} CPU s ({m['wall_s']:.2f} wall)")  # fmt: skip
    if args.write:
        stamp = time.strftime("%Y-%m-%d")
        out = REPO / "benchmarks" / "results" / f"variation_bench_{stamp}.json"
        write_json(
            out,
            {"machine": machine_info(REPO), "seed": args.seed, "runs": runs, "medians": medians},
        )
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
