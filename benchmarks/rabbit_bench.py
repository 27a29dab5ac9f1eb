"""E-R11 (rabbit spec §7.2): synthetic rabbit storage on a trace, five placement set-ups.

Runs the same jobs (spec §3.2 synthetic storage, seed 1) through the EASY storage simulation
(:mod:`fluxgraph.papers.rabbit.sim`) as: no storage, pack + own-first, spread + own-first,
pack + any, pack + coral2; prints the §6 rabbit metrics as a markdown table and checks the §8
orderings (own-first puts a larger share of OST GiB on the job's own chassis than any; spread
spans more chassis per node-local job than pack). CPU seconds per run are ``process_time``.

    python3 benchmarks/rabbit_bench.py                          # Lublin 1000 jobs, 16 chassis
    python3 benchmarks/rabbit_bench.py --trace perlmutter --limit 2000 --chassis 72
    python3 benchmarks/rabbit_bench.py --write   # + benchmarks/results/rabbit_bench_<date>.json

Nodes are ``core[1]`` of 96 cores, no GPUs (a coarser node than spec §2.2's 4 x 24 cores and
4 GPUs; node contents play no part in storage placement).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json

from fluxgraph.papers.rabbit import elcap
from fluxgraph.papers.rabbit.placer import RabbitPlacer
from fluxgraph.papers.rabbit.sim import simulate
from fluxgraph.papers.rabbit.simulate import storage_metrics
from fluxgraph.papers.rabbit.workload import storage_jobs, without_storage
from fluxgraph.workload import load_workload

REPO = Path(__file__).resolve().parents[1]
TRACES = {
    "lublin": REPO.parent / "shared" / "traces" / "lublin_256.swf",
    "perlmutter": REPO.parent / "shared" / "traces" / "perlmutter-fm-jobs.csv",
}
RUNS = (
    ("no storage", "pack", "own-first"),
    ("pack + own-first", "pack", "own-first"),
    ("spread + own-first", "spread", "own-first"),
    ("pack + any", "pack", "any"),
    ("pack + coral2", "pack", "coral2"),
)
COLUMNS = (
    "mean wait s",
    "mean bounded slowdown",
    "delayed by storage",
    "storage utilisation",
    "rounding waste",
    "OST GiB on own chassis",
    "rabbits per Lustre FS",
    "chassis per node-local job",
    "rejected",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", choices=sorted(TRACES), default="lublin")
    ap.add_argument("--limit", type=int, default=1000, help="first N jobs of the trace")
    ap.add_argument("--chassis", type=int, default=16, help="rabbits (16 nodes each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--persistent", type=int, default=20, help="storage-only Lustre jobs")
    ap.add_argument("--write", action="store_true", help="also write a JSON result file")
    args = ap.parse_args(argv)
    path = TRACES[args.trace]
    if not path.exists():
        print(f"{path} is absent: nothing to run", file=sys.stderr)
        return 1
    trace = load_workload(path, limit=args.limit)
    jobs = storage_jobs(trace, seed=args.seed, persistent=args.persistent)
    print(
        f"E-R11: {args.trace} first {len(trace)} jobs + {args.persistent} persistent, seed "
        f"{args.seed}, elcap(chassis={args.chassis}) = {16 * args.chassis} nodes, EASY, FCFS\n"
    )
    rows, baseline = {}, None
    for name, compute, lustre in RUNS:
        placer = RabbitPlacer(
            elcap(chassis=args.chassis, cores=(1, 96), gpus=0), compute=compute, lustre=lustre
        )
        t0 = time.process_time()
        out = simulate(placer, without_storage(jobs) if baseline is None else jobs)
        cpu = time.process_time() - t0
        metrics = storage_metrics(out, placer, baseline)
        metrics["cpu s"] = cpu
        if baseline is None:
            baseline = out
        rows[name] = metrics
        print(f"  {name}: {cpu:.1f} CPU s", file=sys.stderr, flush=True)
    print("| run | " + " | ".join(COLUMNS) + " | CPU s |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for name, m in rows.items():
        cells = [_cell(m.get(c, float("nan"))) for c in COLUMNS]
        print(f"| {name} | " + " | ".join(cells) + f" | {m['cpu s']:.1f} |")
    own, spread, any_ = rows["pack + own-first"], rows["spread + own-first"], rows["pack + any"]
    checks = {
        "own-first OST share > any": own["OST GiB on own chassis"] > any_["OST GiB on own chassis"],
        "spread chassis per node-local job > pack": spread["chassis per node-local job"]
        > own["chassis per node-local job"],
    }
    print()
    for text, ok in checks.items():
        print(f"- {text}: {'yes' if ok else 'NO'}")
    rejected = {k: v for k, v in own.items() if k.startswith("rejected ")}
    print(f"- rejections (pack + own-first) by reason: {rejected or 'none'}")
    if args.write:
        stamp = time.strftime("%Y-%m-%d")
        write_json(
            REPO / "benchmarks" / "results" / f"rabbit_bench_{stamp}.json",
            {"args": vars(args), "machine": machine_info(REPO), "runs": rows, "checks": checks},
        )
    return 0 if all(checks.values()) else 1


def _cell(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value)}"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"


if __name__ == "__main__":
    sys.exit(main())
