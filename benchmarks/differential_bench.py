"""Seeded differential run: the checks of tests/traverser/test_differential.py
on many more seeds, without a reference binary.

* ``sessions``: random ``resource-query`` sessions (random GRUG machines with racks, sockets, core
  and memory pools, gpus; jobspecs of the usual shapes with ranges and ``exclusive``; random
  ``allocate`` / ``allocate_orelse_reserve`` / ``allocate_with_satisfiability`` /
  ``satisfiability`` / ``cancel`` / ``info``; every id policy, writer and the usual prune
  filters), each run twice in-process through the CLI session code: with the early-termination
  shortcut and with the full walk. Compared byte for byte (measured times masked).
* ``satisfiability``: random jobspecs on tiny random machines, answered by every id policy and
  by an oracle written from the specification (``oracle_satisfiable``).

    python3 benchmarks/differential_bench.py --sessions 2000 --sat 3000 --seed 1

Prints the counts (compared / identical) and every differing seed; exit status 1 on any
difference. A seed reproduces its session: ``random_session(seed)`` in
``tests/traverser/_random_sessions.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from errno import ENODEV, ENOENT
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "traverser"))

from _random_sessions import (  # noqa: E402
    ID_POLICIES,
    PRUNES,
    load_machine,
    oracle_satisfiable,
    random_jobspec,
    random_machine,
    random_session,
    run_session,
    without_overheads,
)

from fluxgraph import jobspec  # noqa: E402
from fluxgraph.matcher import Matcher  # noqa: E402
from fluxgraph.writers.sink import SelectionCollector  # noqa: E402


def compare_sessions(seeds: range, verbose: bool) -> tuple[int, list[int]]:
    differing = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, seed in enumerate(seeds):
            s = random_session(seed)
            work = Path(tmp) / str(seed)
            try:
                fast = run_session(s, exact=False, workdir=work)
                full = run_session(s, exact=True, workdir=work)
                same = (
                    without_overheads(fast[0]) == without_overheads(full[0]) and fast[1] == full[1]
                )
            except Exception as exc:  # a crash is a difference too
                print(f"session seed {seed}: {type(exc).__name__}: {exc}")
                same = False
            if not same:
                differing.append(seed)
                print(f"session seed {seed} differs ({s.options()})")
            if verbose and (i + 1) % 100 == 0:
                print(f"  ... {i + 1} sessions", file=sys.stderr)
    return len(seeds), differing


def compare_satisfiability(seeds: range, per_machine: int) -> tuple[int, int, list[int]]:
    checks, satisfiable, differing = 0, 0, []
    for seed in seeds:
        rng = random.Random(seed)
        machine = random_machine(rng, max_nodes=4)
        prune = rng.choice(PRUNES)
        matchers = [Matcher(load_machine(machine), "CA", p, prune) for p in ID_POLICIES]
        for _ in range(per_machine):
            js = random_jobspec(rng, machine)
            expected = oracle_satisfiable(matchers[0].graph, js["resources"])
            spec = jobspec.load(js)
            answers = []
            for m in matchers:
                out = m.run(spec, "satisfiability", 1, SelectionCollector())
                answers.append(not (out.rc != 0 and out.errno in (ENODEV, ENOENT)))
            checks += 1
            satisfiable += expected
            if answers != [expected] * len(answers):
                differing.append(seed)
                print(f"satisfiability seed {seed}: oracle {expected}, policies {answers}")
    return checks, satisfiable, differing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=1000, help="random sessions to compare")
    ap.add_argument("--sat", type=int, default=1000, help="random machines for satisfiability")
    ap.add_argument("--per-machine", type=int, default=4, help="jobspecs per sat machine")
    ap.add_argument("--seed", type=int, default=1, help="first seed (seeds are consecutive)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    base = args.seed * 1_000_000
    t0 = time.perf_counter()
    n, bad = compare_sessions(range(base, base + args.sessions), args.verbose)
    t1 = time.perf_counter()
    checks, sat, bad_sat = compare_satisfiability(range(base, base + args.sat), args.per_machine)
    t2 = time.perf_counter()
    print(
        f"sessions: {n} compared, {n - len(bad)} identical (shortcut vs full walk, {t1 - t0:.0f} s)"
    )
    print(
        f"satisfiability: {checks} requests x {len(ID_POLICIES)} policies compared with the "
        f"oracle, {checks - len(bad_sat)} agree ({sat} satisfiable, {t2 - t1:.0f} s)"
    )
    return 1 if bad or bad_sat else 0


if __name__ == "__main__":
    sys.exit(main())
