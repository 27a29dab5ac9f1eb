"""Sweep throughput: a 200-cell grid of small KTH-prefix simulations on ``nodes=100``.

Cells: 4 queue policies x 5 priorities x 10 windows of the bundled KTH sample (``skip`` 0, 50,
..., 450; ``limit`` jobs each, the windows playing the part of seeds). The same grid runs on each
backend into a fresh directory: inline (``--workers 1``), the process pool (2 workers) and a
Dask LocalCluster (1 and 2 workers). Prints cells per second, the load average before and after
each run, and checks that every backend stored the same result rows.

    python3 benchmarks/sweep_bench.py [--limit 50] [--backends serial,pool2,dask1,dask2]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fluxgraph.experiments import Experiment, run_sweep  # noqa: E402

BACKENDS = {
    "serial": {"workers": 1},
    "pool2": {"workers": 2},
    "dask1": {"workers": 1, "dask": "local"},
    "dask2": {"workers": 2, "dask": "local"},
}


def experiment(limit: int) -> Experiment:
    """The 200-cell grid."""
    return Experiment.from_dict(
        {
            "name": "kth-200",
            "fixed": {"machine": "nodes=100", "trace": "kth-sample.swf", "limit": limit},
            "axes": {
                "queue": ["fcfs", "easy", "hybrid", "conservative"],
                "priority": ["fcfs", "sjf", "ljf", "wfp3", "unicep"],
                "skip": list(range(0, 500, 50)),
            },
            "metrics": ["mean_wait", "mean_bsld", "node_utilisation", "makespan"],
        }
    )


def rows(out: Path) -> list[tuple]:
    db = sqlite3.connect(out / "results.sqlite")
    try:
        return db.execute("SELECT * FROM results ORDER BY 1, 2").fetchall()
    finally:
        db.close()


def cell_seconds(out: Path) -> tuple[float, float]:
    """Sum of the cells' own wall and CPU seconds."""
    db = sqlite3.connect(out / "results.sqlite")
    try:
        wall, cpu = db.execute("SELECT sum(seconds), sum(cpu_seconds) FROM cells").fetchone()
        return wall or 0.0, cpu or 0.0
    finally:
        db.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=50, help="jobs per cell (default 50)")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--rounds", type=int, default=1, help="repeat the backends in turn")
    args = ap.parse_args(argv)
    exp = experiment(args.limit)
    print(
        f"sweep_bench: {len(exp.cells())} cells, KTH windows of {args.limit} jobs, "
        f"nodes=100; {os.cpu_count()} CPUs"
    )
    reference = None
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for name in args.backends.split(","):
                out = Path(tmp) / f"{name}-{round_}"
                load0 = os.getloadavg()
                t0 = time.perf_counter()
                r = run_sweep(exp, out, progress=False, **BACKENDS[name])
                wall = time.perf_counter() - t0
                load1 = os.getloadavg()
                got = rows(out)
                same = reference is None or got == reference
                reference = reference or got
                cell_wall, cell_cpu = cell_seconds(out)
                results.setdefault(name, []).append(r.ran / wall)
                print(
                    f"{name:7} {r.ran} cells in {wall:6.1f} s = {r.ran / wall:5.2f} cells/s; "
                    f"cells' own wall {cell_wall:6.1f} s, CPU {cell_cpu:6.1f} s "
                    f"({cell_cpu / r.ran * 1e3:.0f} ms CPU per cell); load {load0[0]:.2f} -> "
                    f"{load1[0]:.2f}; rows identical: {same}",
                    flush=True,
                )
    best = {name: max(v) for name, v in results.items()}
    print("best cells/s: " + ", ".join(f"{k} {v:.2f}" for k, v in best.items()))
    if "pool2" in best and "dask2" in best:
        over = best["pool2"] / best["dask2"] - 1
        print(f"Dask LocalCluster(2) wall time vs pool(2): {over * 100:+.1f}%")
    if "serial" in best and "dask1" in best:
        over = best["serial"] / best["dask1"] - 1
        print(f"Dask LocalCluster(1) wall time vs inline (1): {over * 100:+.1f}%")
    if "serial" in best and "pool2" in best:
        print(f"speed-up 2 workers vs 1: {best['pool2'] / best['serial']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
