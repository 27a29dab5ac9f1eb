"""Seeded fuzz campaign: the checks of ``tests/fuzz`` on many more cases.

Kinds (``--kinds``, default all): ``jobspec`` (mutated conformance and inline jobspecs: load,
``dump`` round trip, matching with every writer), ``grug``, ``jgf``, ``hwloc`` (mutated graph
documents: read, matcher, a short session), ``repl`` (command streams with injected bad commands,
compared with the same stream without them), ``cli`` (random option combinations), ``api``
(random workloads through the Python API, simple and flexible traversers, graph mutations
included, planner consistency after every step; the command line also over real file
descriptors), and the semantic properties of ``tests/fuzz/_properties.py`` with brute-force
oracles on tiny machines: ``windows`` (no over-allocation in overlapping windows, cancel of
every job restores the start), ``sat`` (satisfiability against allocate on the empty machine,
quirk 7 aside, and against a slot count), ``cycle`` (graphs with back edges and cycles from every
reader terminate and match as without the back edge), ``rejects`` (a rejected input leaves a
busy graph unchanged). Every case runs in-process under a CPU bound (a hang), a traced-memory
bound and an address-space limit for the whole process (unbounded memory), and may raise only the
layer's own error type (anything else is a traceback). See ``tests/fuzz/_fuzzlib.py``.

    python3 benchmarks/fuzz_campaign.py --cases 500 --seed 1

Prints, per kind, the cases run, how many were accepted and rejected, CPU and wall seconds,
and every defect found
(deduplicated by kind, defect and location, with the first seed that shows it); exit status 1 if
any. ``run_case(kind, seed)`` in ``tests/fuzz/_fuzzlib.py`` reproduces a case.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "fuzz"))

from _fuzzlib import KINDS, Defect, run_case, seeds  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200, help="cases per kind (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="first case seed (default 0)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds")
    ap.add_argument(
        "--memory-gb", type=float, default=3.0, help="address-space limit of the process (GiB)"
    )
    ap.add_argument(
        "--no-trace", action="store_true", help="skip the per-case traced-memory bound (faster)"
    )
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds: {', '.join(sorted(unknown))} (valid: {', '.join(KINDS)})")
    limit = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for kind in ("jobspec", "grug", "jgf", "hwloc", "rv1exec"):
        seeds(kind)  # load the seed documents outside the per-case bounds
    print(
        "seed documents: "
        + ", ".join(f"{k} {len(seeds(k))}" for k in ("jobspec", "grug", "jgf", "hwloc", "rv1exec"))
    )
    defects: dict[tuple[str, str, str], tuple[int, str]] = {}
    total_start, wall_start = time.process_time(), time.perf_counter()
    print(
        f"{'kind':8} {'cases':>6} {'accepted':>9} {'rejected':>9} {'defects':>8} {'cpu s':>7} "
        f"{'wall s':>7}"
    )
    for kind in kinds:
        counts: Counter[str] = Counter()
        start, wall = time.process_time(), time.perf_counter()
        for seed in range(args.seed, args.seed + args.cases):
            try:
                outcome = run_case(kind, seed, trace_memory=not args.no_trace)
            except Defect as d:
                outcome = "defect"
                where = d.detail.rsplit("@", 1)[-1].strip() if "@" in d.detail else d.detail[:60]
                defects.setdefault((kind, d.what, where), (seed, str(d)))
            except MemoryError:
                outcome = "defect"
                defects.setdefault((kind, "memory", "MemoryError"), (seed, "MemoryError"))
            counts[outcome] += 1
        cpu = time.process_time() - start
        print(
            f"{kind:8} {args.cases:>6} {counts['ok']:>9} {counts['rejected']:>9} "
            f"{counts['defect']:>8} {cpu:>7.1f} {time.perf_counter() - wall:>7.1f}",
            flush=True,
        )
    total = args.cases * len(kinds)
    print(
        f"total: {total} cases, {time.process_time() - total_start:.0f} s CPU, "
        f"{time.perf_counter() - wall_start:.0f} s wall, {len(defects)} distinct defects"
    )
    for (kind, what, where), (seed, text) in sorted(defects.items()):
        print(f"  [{kind} seed {seed}] {what} @ {where}\n      {text[:300]}")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
