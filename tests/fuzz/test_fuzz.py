"""Property-based fuzzing of every input kind (issue 16, part 4).

Hypothesis draws a seed document (the conformance data's when ``../shared`` is present, inline
ones otherwise) and a short list of mutations; each example must end in the layer's own error or
a valid result, within a CPU and a memory bound, and a rejected input must leave the state
unchanged. REPL streams with injected bad commands must print, for their valid commands, exactly
what the stream without them prints. The semantic properties of :mod:`_properties` (no
over-allocation in overlapping windows, cancel of everything restores the start, satisfiability
against allocate and a brute-force count, the flexible traverser, graphs with back edges and
cycles from every reader, rejected inputs on a busy graph) run on tiny machines. The examples
are kept few so the suite stays well under two minutes; ``benchmarks/fuzz_campaign.py`` runs
the same checks at scale.
"""

from __future__ import annotations

import random

import _fuzzlib as fz
import _properties as props
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(
    max_examples=12,
    deadline=None,  # time is bounded per example by fz.bounded (CPU time), not wall time
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

text_ops = st.lists(
    st.tuples(
        st.sampled_from(fz.TEXT_OPS),
        st.floats(0, 1, exclude_max=True),
        st.integers(0, len(fz.PAYLOADS) - 1),
        st.integers(1, 8),
    ),
    min_size=0,
    max_size=3,
)


@st.composite
def mutated(draw, kind: str) -> str:
    """A seed document of ``kind`` under structural edits (a seeded edit script) and text
    mutations (shrinkable)."""
    seed = draw(st.sampled_from(fz.seeds(kind)))
    edits = draw(st.integers(0, 3))
    text = seed
    if edits:
        rng = random.Random(draw(st.integers(0, 2**32)))
        if kind in ("grug", "hwloc"):
            text = fz.mutate_xml(seed, rng, edits)
        else:
            import json

            import yaml

            doc = yaml.safe_load(seed) if kind == "jobspec" else json.loads(seed)
            if draw(st.booleans()):
                doc = fz.plausible_edit(doc, rng, edits)
            else:
                doc = fz.mutate_structure(doc, rng, edits)
            text = fz._dump_json(doc)
    return fz.mutate_text(text, draw(text_ops), xml=kind in ("grug", "hwloc"))


@SETTINGS
@given(text=mutated("jobspec"), seed=st.integers(0, 1000))
def test_fuzz_jobspecs(text, seed):
    with fz.bounded("jobspec"):
        fz.check_jobspec(text, random.Random(seed))


@SETTINGS
@given(text=mutated("grug"), seed=st.integers(0, 1000))
def test_fuzz_grug_recipes(text, seed):
    with fz.bounded("grug"):
        fz.check_graph("grug", text, random.Random(seed))


@SETTINGS
@given(text=mutated("jgf"), seed=st.integers(0, 1000))
def test_fuzz_jgf_documents(text, seed):
    with fz.bounded("jgf"):
        fz.check_graph("jgf", text, random.Random(seed))


@settings(SETTINGS, max_examples=6)
@given(text=mutated("hwloc"), seed=st.integers(0, 1000))
def test_fuzz_hwloc_topologies(text, seed):
    with fz.bounded("hwloc"):
        fz.check_graph("hwloc", text, random.Random(seed))


@SETTINGS
@given(text=mutated("rv1exec"), seed=st.integers(0, 1000))
def test_fuzz_rv1exec_documents(text, seed):
    with fz.bounded("rv1exec"):
        fz.check_graph("rv1exec", text, random.Random(seed))


@settings(SETTINGS, max_examples=8)
@given(seed=st.integers(0, 2**32), n_valid=st.integers(1, 10), n_bad=st.integers(1, 8))
def test_fuzz_repl_bad_commands_change_nothing(seed, n_valid, n_bad):
    with fz.bounded("repl"):
        fz.check_repl(random.Random(seed), n_valid, n_bad)


argv_items = st.one_of(
    st.sampled_from(fz.FLAGS),
    st.sampled_from(sorted(fz.OPTION_VALUES)).flatmap(
        lambda opt: st.sampled_from(fz.OPTION_VALUES[opt]).map(lambda value: (opt, value))
    ),
)


@settings(SETTINGS, max_examples=10)
@given(items=st.lists(argv_items, min_size=1, max_size=6))
def test_fuzz_command_line_options(items):
    argv: list[str] = []
    for item in items:
        argv += [item] if isinstance(item, str) else list(item)
    with fz.bounded("cli"):
        fz.check_cli(argv)
        props.check_cli_fds(argv)  # the same over real file descriptors


@settings(SETTINGS, max_examples=6)
@given(seed=st.integers(0, 2**32), steps=st.integers(1, 14))
def test_fuzz_api_workloads_keep_planners_consistent(seed, steps):
    with fz.bounded("api"):
        fz.check_api(random.Random(seed), steps)


@settings(SETTINGS, max_examples=30)
@given(seed=st.integers(0, 2**32))
def test_fuzz_no_overbooking_and_cancel_restores(seed):
    with fz.bounded("windows"):
        props.check_windows(random.Random(seed))


@settings(SETTINGS, max_examples=60)
@given(seed=st.integers(0, 2**32))
def test_fuzz_satisfiability_agrees_with_allocate_and_a_count(seed):
    with fz.bounded("sat"):
        props.check_satisfiability(random.Random(seed))


@settings(SETTINGS, max_examples=20)
@given(seed=st.integers(0, 2**32))
def test_fuzz_graphs_with_back_edges_and_cycles(seed):
    with fz.bounded("cycle"):
        props.check_cycles(random.Random(seed))


@settings(SETTINGS, max_examples=30)
@given(seed=st.integers(0, 2**32))
def test_fuzz_rejected_inputs_keep_a_busy_graph(seed):
    with fz.bounded("rejects"):
        props.check_rejects(random.Random(seed))


def test_campaign_cases_are_reproducible():
    assert fz.make_document("jobspec", random.Random(5)) == fz.make_document(
        "jobspec", random.Random(5)
    )
    assert fz.run_case("jgf", 3, trace_memory=False) == fz.run_case("jgf", 3, trace_memory=False)
