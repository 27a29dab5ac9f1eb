"""GRUG load benchmark: vertices, edges, load time and peak memory per recipe.

Loads the four level-of-detail recipes (``grug_recipes/lod-*.graphml``) and the largest GRUG of
the conformance suite (skipped when ``../shared`` is absent). Each recipe gets one warm-up load,
then ``--repeat`` timed loads (min / median / max printed; ``load_s`` is the median), then one
load under ``tracemalloc`` for the peak of Python allocations. The reference's load times
measured on this machine class are printed beside ours where known.

    python3 benchmarks/load_bench.py [--repeat 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fluxgraph.readers import load  # noqa: E402

SHARED_GRUGS = REPO / ".." / "shared" / "conformance" / "data" / "data" / "resource" / "grugs"
#: Reference ``resource-query`` load times (seconds) measured on this machine class.
REFERENCE_S = {"lod-high": 0.79, "lod-med": 0.42, "lod-low": 0.17, "lod-low2": 0.16}


def recipes() -> list[tuple[str, Path]]:
    """(name, path) of every recipe to measure."""
    out = [
        (f"lod-{lod}", REPO / "grug_recipes" / f"lod-{lod}.graphml")
        for lod in ("high", "med", "low", "low2")
    ]
    if SHARED_GRUGS.is_dir():
        largest = max(SHARED_GRUGS.glob("**/*.graphml"), key=lambda p: load(p).num_vertices)
        out.append((f"conformance:{largest.stem}", largest))
    return out


def measure(path: Path, repeat: int) -> dict:
    """Warm-up, ``repeat`` timed loads, then one traced load."""
    graph = load(path)
    counts = graph.num_vertices, graph.num_edges
    times = []
    for _ in range(repeat):
        del graph
        gc.collect()
        t0 = time.perf_counter()
        graph = load(path)
        times.append(time.perf_counter() - t0)
    del graph
    gc.collect()
    tracemalloc.start()
    load(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "vertices": counts[0],
        "edges": counts[1],
        "load_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "peak_mib": peak / 2**20,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed loads per recipe")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(f"# load_bench  {time.strftime('%Y-%m-%d')}  commit {commit or '?'}")
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.platform()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}, repeat {args.repeat}"
    )
    header = f"{'recipe':<22}{'vertices':>10}{'edges':>10}{'min_s':>8}{'load_s':>8}{'max_s':>8}"
    print(header + f"{'peak_mib':>10}{'ref_s':>8}{'ratio':>7}")
    results = []
    for name, path in recipes():
        row = {"recipe": name, **measure(path, args.repeat)}
        results.append(row)
        ref = REFERENCE_S.get(name)
        tail = f"{ref:>8.2f}{row['load_s'] / ref:>7.2f}" if ref else f"{'-':>8}{'-':>7}"
        print(
            f"{name:<22}{row['vertices']:>10}{row['edges']:>10}{row['min_s']:>8.3f}"
            f"{row['load_s']:>8.3f}{row['max_s']:>8.3f}{row['peak_mib']:>10.1f}{tail}"
        )
    if args.json:
        keys = ("recipe", "vertices", "edges", "load_s", "peak_mib")
        doc = {"results": [{k: row[k] for k in keys} for row in results]}
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
