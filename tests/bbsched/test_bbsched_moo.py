"""BBSched optimisers: the Table 1 worked example (spec §4.8), the exact oracle against brute
force, the GA against the oracle, the decision rule and the exact single-objective solvers."""

from __future__ import annotations

import itertools
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.bbsched.decision import decide
from fluxgraph.bbsched.ga import ga_front
from fluxgraph.bbsched.knapsack import best_linear
from fluxgraph.bbsched.methods import METHODS, make_method
from fluxgraph.bbsched.moo import Window
from fluxgraph.bbsched.oracle import exact_front, generational_distance
from fluxgraph.bbsched.probes import random_window

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


def test_ga_agrees_with_the_oracle_on_seeded_windows():
    """Spec §8 smoke windows (30, k = 12, P = 20): decision agreement >= 90% at G = 500.

    The paper's p_m = 0.0005 reaches about 50% and G = 200 about 75% (the study reports both,
    E1b); this checks the GA machinery with p_m = 0.05 per gene."""
    agree = 0
    gds = []
    for seed in range(30):
        w = _random_window(random.Random(seed), 12)
        exact = exact_front(w)
        found = ga_front(w, random.Random(1000 + seed), generations=500, mutation=0.05)
        agree += decide(exact, N, B)[1] == decide(found, N, B)[1]
        gds.append(generational_distance(found, exact, w))
    assert agree >= 27
    assert sum(gds) / len(gds) <= 0.02


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
