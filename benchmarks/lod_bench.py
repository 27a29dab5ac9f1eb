"""Fluxion paper §6.1 level-of-detail study: fill each LOD machine with one job shape.

For every LOD recipe (``grug_recipes/lod-*.graphml``), policy and prune setting, load the graph,
then ``match allocate`` the job ``node{slot{10 core, 8 memory, 1 bb}}`` (High:
``node{slot{socket{10 core, 8 memory, 1 bb}}}``) until the machine is full. Prints jobs matched,
median and total match time. With ``--reference CMD`` the same command file also goes through a
reference ``resource-query`` binary and the ratio of per-job match times is printed.

    python3 benchmarks/lod_bench.py --lod high,med,low,low2 --policy first,high,low
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fluxgraph.papers.fluxion.lod import LODS, jobspec_text, measure  # noqa: E402


def run_ours(lod: str, policy: str, prune: str) -> dict:
    """Fill the machine (the ``lod`` study's measurement): jobs, median_ms, total_s."""
    got = measure(lod, policy, prune or "none")
    return {k: got[k] for k in ("jobs", "median_ms", "total_s")}


def run_reference(cmd: str, lod: str, policy: str, prune: str, jobs: int) -> tuple[int, float]:
    """Jobs the reference matched, and its seconds spent matching: wall(cmds) - wall(quit)."""
    recipe = REPO / "grug_recipes" / f"lod-{lod}.graphml"
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "job.yaml"
        spec.write_text(jobspec_text(lod))
        full = Path(tmp) / "cmds"
        full.write_text(f"match allocate {spec}\n" * (jobs + 1) + "quit\n")
        quit_only = Path(tmp) / "quit"
        quit_only.write_text("quit\n")
        args = [*cmd.split(), "-L", str(recipe), "-P", policy, "-d"]
        if prune:
            args += ["-p", prune]

        def wall(path: Path) -> tuple[str, float]:
            t0 = time.perf_counter()
            with path.open() as fh:
                done = subprocess.run(args, stdin=fh, capture_output=True, text=True, check=False)
            return done.stdout, time.perf_counter() - t0

        out, full_s = wall(full)
        _, quit_s = wall(quit_only)
        return out.count("RESOURCES=ALLOCATED"), full_s - quit_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--lod", default=",".join(LODS))
    ap.add_argument("--policy", default="first,high,low")
    ap.add_argument("--prune", default="ALL:core", help="prune filter spec, or 'none'")
    ap.add_argument("--reference", default="", help="command of a reference resource-query")
    ap.add_argument("--json", default="", help="write results as JSON to this path")
    args = ap.parse_args(argv)
    prune = "" if args.prune == "none" else args.prune
    rows = []
    print(f"{'lod':6} {'policy':7} {'prune':10} {'jobs':>6} {'median_ms':>10} {'total_s':>9}")
    for lod in args.lod.split(","):
        for policy in args.policy.split(","):
            row = {"lod": lod, "policy": policy, "prune": args.prune}
            row.update(run_ours(lod, policy, prune))
            line = (
                f"{lod:6} {policy:7} {args.prune:10} {row['jobs']:>6} "
                f"{row['median_ms']:>10.3f} {row['total_s']:>9.2f}"
            )
            if args.reference:
                ref_jobs, ref_s = run_reference(args.reference, lod, policy, prune, row["jobs"])
                row["reference_jobs"] = ref_jobs
                row["reference_total_s"] = ref_s
                row["ratio"] = (row["total_s"] / max(row["jobs"], 1)) / (ref_s / max(ref_jobs, 1))
                line += f"  ref {ref_s:8.2f}s  ratio {row['ratio']:.2f}"
            print(line, flush=True)
            rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps({"results": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
