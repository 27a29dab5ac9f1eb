"""The ``disagg`` study at another scale: the bundled grid with other nodes, window size, procs per
node and window, run and reported exactly as ``fluxgraph reproduce disagg`` does.

    python3 benchmarks/disagg_study_bench.py --out runs/disagg-32            # docs' "Results"
    python3 benchmarks/disagg_study_bench.py --nodes 64 --jobs 300 --per-node 32 16 --out ...

Defaults are the small grid of docs/disaggregated-memory.md "Results": 32 nodes, window 0 of 150
jobs, lublin at 64 and KTH at 32 processors per node (1..4 nodes, within the 5 large nodes of the
15% machine). Resumable like any sweep; prints the criteria and the CPU seconds of the runs.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from fluxgraph.experiments.runner import run_sweep
from fluxgraph.experiments.spec import Experiment
from fluxgraph.experiments.store import ResultStore
from fluxgraph.experiments.studies import RESULTS_COLUMNS, study_experiment, write_report
from fluxgraph.papers.disagg import study


def scaled(nodes: int, jobs: int, per_node: tuple[int, int], window: int) -> Experiment:
    """The bundled grid at ``nodes`` nodes, window ``window`` of ``jobs`` jobs."""
    exp = study_experiment("disagg")
    doc = exp.to_dict()
    doc["name"] = f"disagg-{nodes}n-{jobs}j"
    doc["fixed"].update(jobs=jobs, window=window)
    doc["axes"].pop("window")
    doc["zip"][0]["nodes"] = [nodes] * len(doc["zip"][0]["nodes"])
    # (E9's rules name window 0: the fixed window plays its part)
    doc["only"] = [{k: v for k, v in r.items() if k != "window"} for r in doc.get("only", [])]
    doc["zip"][0]["per_node"][:2] = list(per_node)  # (E7 keeps wagap's)
    doc.pop("quick", None)
    return Experiment.from_dict(doc, base_dir=exp.base_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=150)
    parser.add_argument(
        "--per-node", type=int, nargs=2, default=(64, 32), metavar=("LUBLIN", "KTH")
    )
    parser.add_argument("--window", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    exp = scaled(args.nodes, args.jobs, tuple(args.per_node), args.window)
    out = Path(args.out)
    sweep = run_sweep(exp, out, workers=args.workers, progress=False)
    if sweep.interrupted:
        sys.exit(130)
    with ResultStore(out, readonly=True) as store:
        rows = list(store.rows())
    with open(out / "results.csv", "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(RESULTS_COLUMNS)
        writer.writerows(study.results(rows))
    report = study.analyse(rows, out, quick=False)
    write_report(report, out / "report.md", sweep, quick=False)
    for c in report.criteria:
        print(f"{c.id:6} {c.verdict}")
    cpu = sum(r.cpu_seconds or 0 for r in rows if r.status == "done")
    print(f"{sweep.done} cells done, {sweep.failed} failed; runs' CPU {cpu:.0f} s; {out}/report.md")


if __name__ == "__main__":
    main()
