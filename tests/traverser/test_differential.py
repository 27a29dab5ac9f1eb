"""Randomized differential checks that need no reference binary (issue 16, part 1).

* A whole random ``resource-query`` session (random GRUG machine, jobspecs, operations, policy,
  writer, prune filters; see :mod:`_random_sessions`) prints exactly the same with the traverser's
  early-termination shortcut as with the full walk (``exact_visit_counts=True``).
* ``satisfiability`` answers what an oracle written from the specification answers, for every
  id policy (on a free machine the answer cannot depend on the policy).
* On a fresh machine ``allocate`` never succeeds for an unsatisfiable request.

``benchmarks/differential_bench.py`` runs the same checks on many more seeds.
"""

from __future__ import annotations

import os
import random
from errno import ENODEV, ENOENT

from _random_sessions import (
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
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.writers.sink import SelectionCollector

SESSIONS = int(os.environ.get("FLUXGRAPH_DIFF_SESSIONS", "25"))
SAT_MACHINES = int(os.environ.get("FLUXGRAPH_DIFF_SAT", "40"))
SEEDS = st.integers(0, 2**32 - 1)


def _settings(n: int):
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@_settings(SESSIONS)
@given(seed=SEEDS)
def test_shortcut_session_prints_what_the_full_walk_prints(seed, tmp_path_factory):
    s = random_session(seed)
    note(f"{s.options()}\n{s.commands}")
    work = tmp_path_factory.mktemp("session")
    fast = run_session(s, exact=False, workdir=work)
    full = run_session(s, exact=True, workdir=work)
    assert without_overheads(fast[0]) == without_overheads(full[0])
    assert fast[1] == full[1]


def satisfiable(m: Matcher, spec) -> bool:
    out = m.run(spec, "satisfiability", 1, SelectionCollector())
    return not (out.rc != 0 and out.errno in (ENODEV, ENOENT))


@_settings(SAT_MACHINES)
@given(seed=SEEDS)
def test_satisfiability_matches_the_oracle_for_every_policy(seed):
    rng = random.Random(seed)
    machine = random_machine(rng, max_nodes=4)
    prune = rng.choice(PRUNES)
    matchers = [Matcher(load_machine(machine), "CA", p, prune) for p in ID_POLICIES]
    for _ in range(4):
        js = random_jobspec(rng, machine)
        note(f"{prune} {js['resources']}")
        expected = oracle_satisfiable(matchers[0].graph, js["resources"])
        spec = jobspec.load(js)
        assert [satisfiable(m, spec) for m in matchers] == [expected] * len(matchers)


@_settings(SAT_MACHINES)
@given(seed=SEEDS)
def test_allocate_on_a_fresh_machine_implies_satisfiable(seed):
    rng = random.Random(seed)
    machine = random_machine(rng, max_nodes=4)
    policy, prune = rng.choice(ID_POLICIES), rng.choice(PRUNES)
    for _ in range(3):
        js = random_jobspec(rng, machine)
        note(f"{policy} {prune} {js['resources']}")
        m = Matcher(load_machine(machine), "CA", policy, prune)
        out = m.run(jobspec.load(js), "allocate", 1, SelectionCollector())
        if not oracle_satisfiable(m.graph, js["resources"]):
            assert out.rc != 0
