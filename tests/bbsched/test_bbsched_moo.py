"""BBSched optimisers: the Table 1 worked example (spec §4.8), the exact oracle against brute
force, the GA against the oracle, the decision rule and the exact single-objective solvers."""

from __future__ import annotations

import itertools
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.papers.bbsched.decision import decide
from fluxgraph.papers.bbsched.ga import _front_flags, crossover, ga_front, survivors
from fluxgraph.papers.bbsched.knapsack import best_linear
from fluxgraph.papers.bbsched.methods import METHODS, make_method
from fluxgraph.papers.bbsched.moo import Window, nondominated
from fluxgraph.papers.bbsched.oracle import exact_front, generational_distance
from fluxgraph.papers.bbsched.probes import ga_accuracy, random_window

TABLE1 = [(80, 20), (10, 85), (40, 5), (10, 0), (20, 0)]
N, B = 100, 188_513


def table1() -> Window:
    return Window.of(TABLE1, 100, 100, 100, 100)


def test_table1_front_and_every_method():
    w = table1()
    assert exact_front(w) == [
        (w.masks_of([[0, 4]])[0], (100, 20)),
        (w.masks_of([[1, 2, 3, 4]])[0], (80, 90)),
    ]
    expected = {
        "BBSched": [1, 2, 3, 4],
        "Weighted": [1, 2, 3, 4],
        "Weighted_CPU": [0, 4],
        "Weighted_BB": [1, 2, 3, 4],
        "Constrained_CPU": [0, 4],
        "Constrained_BB": [1, 2, 3, 4],
        "Bin_Packing": [0, 4],
    }
    for name, members in expected.items():
        assert w.members(make_method(name).select(w)) == members, name
    # the GA reaches the same decision on this window, with and without exact solving
    ga = make_method("BBSched", exact_below=0)
    assert w.members(ga.select(w)) == [1, 2, 3, 4]


def _brute_front(w: Window) -> set[tuple[int, ...]]:
    vectors = []
    for bits in itertools.product([0, 1], repeat=w.size):
        mask = int("".join(map(str, bits)) or "0", 2)
        ok, vec = w.evaluate([mask])
        if ok[0]:
            vectors.append(tuple(vec[0].tolist()))

    def dominated(v: tuple[int, ...]) -> bool:
        return any(u != v and all(a >= b for a, b in zip(u, v, strict=True)) for u in vectors)

    return {v for v in vectors if not dominated(v)}


def _random_window(rng: random.Random, k: int, ssd: bool = False) -> Window:
    fn = rng.randint(20, 100)
    fb = int(rng.uniform(0.2 * B, B))
    small = rng.randint(0, min(50, fn))
    demands = []
    while len(demands) < k:
        n = rng.randint(1, 32)
        b = round(5000 * 13 ** rng.random()) if rng.random() < 0.75 else 0
        s = rng.randint(0, 256)
        if n <= fn and b <= fb and (s <= 128 or n <= fn - small):
            demands.append((n, b, s) if ssd else (n, b))
    return Window.of(demands, fn, fb, N, B, small, fn - small)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 9), st.booleans())
def test_oracle_equals_brute_force(seed, k, ssd):
    w = _random_window(random.Random(seed), k, ssd)
    front = exact_front(w)
    assert {v for _, v in front} == _brute_front(w)
    for mask, vec in front:  # each vector's mask is the front-most one reaching it
        ok, vectors = w.evaluate(np.arange(1 << k))
        same = [m for m in range(1 << k) if ok[m] and tuple(vectors[m].tolist()) == vec]
        assert mask == max(same)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 12), st.booleans())
def test_ga_front_is_feasible_and_never_beats_the_oracle(seed, k, ssd):
    w = _random_window(random.Random(seed), k, ssd)
    exact = [v for _, v in exact_front(w)]
    found = ga_front(w, random.Random(seed), generations=60)
    assert found
    ok, vectors = w.evaluate([m for m, _ in found])
    assert ok.all()
    for (_, vec), row in zip(found, vectors.tolist(), strict=True):
        assert tuple(row) == vec
        assert any(all(a >= b for a, b in zip(e, vec, strict=True)) for e in exact)


def _agreement(generations: int, variant: str, mutation: float = 0.0005) -> int:
    """Windows of the spec §8 smoke check (30, k = 12, exact_below = 0, P = 20) on which the
    decision rule picks the same vector from the GA front as from the exact front."""
    agree = 0
    for index in range(30):
        w = random_window(random.Random(index), 12)
        found = ga_front(w, random.Random(1), generations, 20, mutation, variant)
        agree += decide(exact_front(w), N, B)[1] == decide(found, N, B)[1]
    return agree


def test_spec_smoke_oracle_check():
    """Spec §8 smoke as the amendment of 2026-11-28 rewords it (D1): on 30 seeded windows
    (k = 12, G = 200, P = 20, the paper's p_m) every GA front is feasible, no GA vector
    dominates an exact one, and the GA reaches the node-maximal x* of the decision rule on
    28+ of 30; the decision agreement is only reported."""
    m = ga_accuracy(200, 20, windows=30, seeds=1, k=12)
    assert m["smoke_windows"] == 30
    assert m["smoke_infeasible"] == 0 and m["smoke_dominating"] == 0
    assert m["smoke_xstar_f1"] >= 28


def test_ga_reaches_the_oracle_with_more_mutation():
    """Not a spec criterion: the same GA with p_m = 0.05 per gene (G = 500) agrees with the
    oracle on >= 90% of the smoke windows with mean GD <= 0.02, so what limits the paper's
    setting is its mutation rate, not the operators."""
    assert _agreement(500, "paper", mutation=0.05) >= 27
    gds = []
    for index in range(30):
        w = random_window(random.Random(index), 12)
        found = ga_front(w, random.Random(1), 500, 20, 0.05)
        gds.append(generational_distance(found, exact_front(w), w))
    assert sum(gds) / len(gds) <= 0.02


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=12))
def test_two_objective_front_sweep_equals_pairwise_dominance(vectors):
    assert _front_flags(vectors) == nondominated(np.array(vectors)).tolist()


def test_crossover_swaps_the_tails_at_the_cut():
    k = 6
    for cut in range(1, k):
        a, b = crossover(0b111111, 0, cut, k)
        assert format(a, "06b") == "1" * cut + "0" * (k - cut)
        assert format(b, "06b") == "0" * cut + "1" * (k - cut)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 63), st.integers(0, 3), st.booleans()),
        min_size=1,
        max_size=12,
        unique_by=lambda t: t[0],
    ),
    st.integers(2, 6),
)
def test_survivors_follow_spec_step_2e(members, size):
    pool = [m for m, _, _ in members]
    ages = [a for _, a, _ in members]
    front = [f for _, _, f in members]
    kept = survivors(pool, ages, front, size)
    set1 = [i for i, f in enumerate(front) if f]
    assert len(kept) == min(size, len(pool)) and len(set(kept)) == len(kept)
    if len(set1) >= size:  # only Set1, and nobody left out is younger (or as young, front-most)
        assert set(kept) <= set(set1)
        dropped = set(set1) - set(kept)
    else:  # all of Set1, then the youngest of the rest
        assert set(set1) <= set(kept)
        dropped = set(range(len(pool))) - set(kept)
    for i in kept:
        if not front[i] or len(set1) >= size:
            for j in dropped:
                assert (ages[i], -pool[i]) < (ages[j], -pool[j])


def test_ga_is_deterministic_per_seed_and_cqsim_variant_runs():
    w = _random_window(random.Random(5), 14)
    a = ga_front(w, random.Random(3), generations=100)
    b = ga_front(w, random.Random(3), generations=100)
    assert a == b
    c = ga_front(w, random.Random(3), generations=100, variant="cqsim")
    assert c and all(w.evaluate([m])[0][0] for m, _ in c)


def test_decision_rule_exact_integers_and_ties():
    # gain 0.2 BB vs loss 0.1 nodes: exactly 2x is not enough (strict)
    front = [(4, (100, 0)), (2, (90, 20))]
    assert decide(front, 100, 100) == (4, (100, 0))
    front = [(4, (100, 0)), (2, (90, 21)), (1, (90, 21))]
    assert decide(front, 100, 100) == (2, (90, 21))  # tie in gain and loss: front-most
    front = [(4, (100, 0)), (2, (80, 50)), (1, (95, 40))]
    assert decide(front, 100, 100) == (2, (80, 50))  # largest gain wins


def test_decision_rule_four_objectives():
    # S = 19200; x: +1000 BB of 10000 and 0 SSD terms vs 1 node of 100 lost: 0.1 > 4 * 0.01
    front = [(8, (50, 0, 0, -1000)), (4, (49, 1000, 0, -1000))]
    assert decide(front, 100, 10_000, 19_200) == (4, (49, 1000, 0, -1000))
    front = [(8, (50, 0, 0, -1000)), (4, (40, 1000, 0, -1000))]  # 0.1 < 4 * 0.1
    assert decide(front, 100, 10_000, 19_200) == (8, (50, 0, 0, -1000))


def _brute_best(w: Window, value) -> int:
    best, best_mask = None, 0
    ok, vectors = w.evaluate(np.arange(1 << w.size))
    for mask in range(1 << w.size):
        if ok[mask]:
            v = value(mask, vectors[mask])
            if best is None or v > best or (v == best and mask > best_mask):
                best, best_mask = v, mask
    return best_mask


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10))
def test_exact_methods_equal_brute_force(seed, k):
    w = _random_window(random.Random(seed), k)
    Bp = w.total_bb
    objectives = {
        "Constrained_CPU": lambda m, v: v[0],
        "Constrained_BB": lambda m, v: v[1],
        "Weighted": lambda m, v: v[0] * Bp + v[1] * N,
        "Weighted_CPU": lambda m, v: 4 * v[0] * Bp + v[1] * N,
        "Weighted_BB": lambda m, v: v[0] * Bp + 4 * v[1] * N,
    }
    for name, value in objectives.items():
        assert make_method(name).select(w) == _brute_best(w, value), name


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 11))
def test_linear_programme_equals_brute_force_on_chunked_windows(seed, k):
    w = random_window(random.Random(seed), k, chunk=1000)
    for alpha, beta in ((1, 0), (0, 1), (4 * w.total_bb, N), (w.total_bb, 4 * N), (3, 0)):
        value = lambda m, v, a=alpha, b=beta: a * v[0] + b * v[1]  # noqa: E731
        assert best_linear(w, alpha, beta) == _brute_best(w, value), (alpha, beta)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 9))
def test_ssd_methods_equal_brute_force(seed, k):
    w = _random_window(random.Random(seed), k, ssd=True)
    S = w.ssd_total
    objectives = {
        "Constrained_SSD": lambda m, v: v[2],
        "Weighted": lambda m, v: (
            v[0] * w.total_bb * S + v[1] * N * S + (v[2] + v[3]) * N * w.total_bb
        ),
    }
    for name, value in objectives.items():
        assert make_method(name).select(w) == _brute_best(w, value), name


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 12), st.booleans())
def test_bin_packing_selection_is_feasible_and_maximal(seed, k, ssd):
    w = _random_window(random.Random(seed), k, ssd)
    mask = make_method("Bin_Packing").select(w)
    assert w.evaluate([mask])[0][0]
    for i in range(k):  # nothing left out still fits
        if not mask & w.gene(i):
            assert not w.evaluate([mask | w.gene(i)])[0][0]


def test_every_method_is_registered():
    assert set(METHODS) >= {"Baseline", "BBSched", "Bin_Packing", "Constrained_SSD"}
