"""Small-planner benchmark: the per-operation cost of the tiny planners a simulator creates.

A scheduler simulation gives every graph vertex one or two planners that hold a handful of
spans each, and the matcher's allocate/cancel add and remove spans on a few of them per vertex.
There the constant factor of one operation dominates, not its growth. Timed cases (one planner
of total 1 ("fresh") or 16 over a year in seconds, like the simulator's):

* ``add_rem_fresh``: ``add_span`` + ``rem_span`` on an empty planner (one op = the pair)
* ``add_rem_5``: ``add_span`` + ``rem_span`` of a sixth span while 5 spans stay live
* ``avail_during``: ``avail_during(t, d, r)`` on the planner with 5 live spans
* ``avail_res_during``: ``avail_resources_during(t, d)`` on the same planner
* ``multi_add_rem``: a ``PlannerMulti`` with 2 types, ``add_span`` + ``rem_span``
* ``multi_during``: that ``PlannerMulti`` with 5 live multi-spans, ``avail_during``

Arguments are drawn once from a seeded generator. Each case runs once to warm up, then
``--repeat`` times; it prints the min, median and max microseconds per op over the repeats,
in process CPU time (on a shared machine wall time also counts the other jobs' turns).

    python3 benchmarks/planner_small_bench.py [--ops 20000] [--repeat 5] [--seed 0]
                                              [--json PATH]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine_info, write_json  # noqa: E402

from fluxgraph.planner import Planner, PlannerMulti  # noqa: E402

HORIZON = 3153600000  # 100 years in seconds, as a simulator's planners
TOTAL = 16
LIVE = 5


def _live_planner(rng: random.Random) -> Planner:
    """A planner of ``TOTAL`` units holding ``LIVE`` spans at random times."""
    p = Planner(0, HORIZON, TOTAL, "core")
    for _ in range(LIVE):
        p.add_span(rng.randint(0, 5000), rng.randint(1, 2000), rng.randint(1, TOTAL // LIVE))
    return p


def _live_multi(rng: random.Random) -> PlannerMulti:
    m = PlannerMulti(0, HORIZON, [TOTAL, 4 * TOTAL], ["core", "memory"])
    for _ in range(LIVE):
        c = rng.randint(1, TOTAL // LIVE)
        m.add_span(rng.randint(0, 5000), rng.randint(1, 2000), [c, 4 * c])
    return m


def cases(ops: int, rng: random.Random) -> dict[str, Callable[[], None]]:
    """One closure per case; each performs ``ops`` operations."""
    windows = [(rng.randint(0, 8000), rng.randint(1, 3000)) for _ in range(ops)]
    amounts = [rng.randint(1, TOTAL // LIVE) for _ in range(ops)]

    def add_rem_fresh() -> None:
        p = Planner(0, HORIZON, 1, "core")
        add, rem = p.add_span, p.rem_span
        for t, d in windows:
            rem(add(t, d, 1))

    live = _live_planner(rng)

    def add_rem_5() -> None:
        add, rem = live.add_span, live.rem_span
        for (t, d), c in zip(windows, amounts, strict=True):
            rem(add(t, d, c))

    def avail_during() -> None:
        during = live.avail_during
        for (t, d), c in zip(windows, amounts, strict=True):
            during(t, d, c)

    def avail_res_during() -> None:
        during = live.avail_resources_during
        for t, d in windows:
            during(t, d)

    def multi_add_rem() -> None:
        m = PlannerMulti(0, HORIZON, [TOTAL, 4 * TOTAL], ["core", "memory"])
        add, rem = m.add_span, m.rem_span
        for (t, d), c in zip(windows, amounts, strict=True):
            rem(add(t, d, [c, 4 * c]))

    multi = _live_multi(rng)
    vectors = [[c, 4 * c] for c in amounts]

    def multi_during() -> None:
        during = multi.avail_during
        for (t, d), v in zip(windows, vectors, strict=True):
            during(t, d, v)

    return {
        "add_rem_fresh": add_rem_fresh,
        "add_rem_5": add_rem_5,
        "avail_during": avail_during,
        "avail_res_during": avail_res_during,
        "multi_add_rem": multi_add_rem,
        "multi_during": multi_during,
    }


def run(ops: int, repeat: int, seed: int) -> list[dict]:
    results = []
    clock = time.process_time  # CPU time: the machine may be shared (wall time inflates)
    for name, fn in cases(ops, random.Random(seed)).items():
        fn()  # warm-up
        per_op = []
        for _ in range(repeat):
            t0 = clock()
            fn()
            per_op.append((clock() - t0) / ops * 1e6)
        row = {
            "case": name,
            "min_us": round(min(per_op), 3),
            "median_us": round(statistics.median(per_op), 3),
            "max_us": round(max(per_op), 3),
        }
        results.append(row)
        print(
            f"  {name:<17} min {row['min_us']:8.3f} us   median {row['median_us']:8.3f} us"
            f"   max {row['max_us']:8.3f} us",
            flush=True,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=20000, help="operations per case and repeat")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats per case")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    info = machine_info(REPO)
    print(f"planner_small_bench: seed {args.seed}, {args.ops} ops per case; {info}")
    data = {"results": run(args.ops, args.repeat, args.seed)}
    data["machine"] = info
    data["seed"] = args.seed
    data["ops"] = args.ops
    if args.json:
        write_json(args.json, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
