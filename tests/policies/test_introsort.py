"""The libstdc++ introsort port (matching-semantics §9.1).

Property tests check that it sorts (ordered output, a permutation of the input) and that up to
16 items it is the stable sort. Where ``g++`` is installed, its permutations are compared with
libstdc++'s ``std::sort`` itself on tie-heavy vectors, including a McIlroy "antiqsort" input that
drives the partition depth to zero so the heap-sort fallback runs. The number of hypothesis
examples comes from ``FLUXGRAPH_ORACLE_EXAMPLES`` (default 300).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.policies import introsort as introsort_module
from fluxgraph.policies.introsort import introsort, sort_by_score

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None)

_keys = st.lists(st.integers(min_value=0, max_value=6), max_size=300)


def _less(a, b):
    return a[0] < b[0]


def _greater(a, b):
    return a[0] > b[0]


def _sorted_indices(keys: list[int], less=_less) -> list[int]:
    items = [(k, i) for i, k in enumerate(keys)]
    introsort(items, less)
    return [i for _, i in items]


@SETTINGS
@given(_keys, st.booleans())
def test_introsort_orders_a_permutation(keys, descending):
    order = _sorted_indices(keys, _greater if descending else _less)
    assert Counter(order) == Counter(range(len(keys)))
    out = [keys[i] for i in order]
    assert out == sorted(keys, reverse=descending)


@SETTINGS
@given(st.lists(st.integers(min_value=0, max_value=3), max_size=16), st.booleans())
def test_introsort_is_stable_up_to_16_items(keys, descending):
    order = _sorted_indices(keys, _greater if descending else _less)
    expected = sorted(range(len(keys)), key=keys.__getitem__, reverse=descending)
    assert order == expected


@pytest.mark.parametrize(("n", "first"), [(17, 8), (20, 10), (100, 62)])
def test_introsort_equal_keys_first_item(n, first):
    assert _sorted_indices([5] * n)[0] == first


def test_introsort_equal_keys_17_is_not_stable():
    assert _sorted_indices([0] * 17) != list(range(17))


def test_introsort_empty_and_single():
    for v in ([], [(1, 0)]):
        w = list(v)
        introsort(w, _less)
        assert w == v


def test_sort_by_score_agrees_with_introsort():
    rng = random.Random(0)
    for n in (3, 16, 17, 40, 200):
        for descending in (False, True):
            scores = [rng.randrange(4) for _ in range(n)]
            groups = [SimpleNamespace(score=s, i=i) for i, s in enumerate(scores)]
            sort_by_score(groups, descending)
            assert [g.i for g in groups] == _sorted_indices(
                scores, _greater if descending else _less
            )


def _antiqsort(n: int) -> list[int]:
    """McIlroy's adversary: an input on which this quicksort degrades to quadratic depth."""
    gas = n
    val = [gas] * n
    state = {"solid": 0, "candidate": 0}

    def less(x: int, y: int) -> bool:
        if val[x] == gas and val[y] == gas:
            z = x if x == state["candidate"] else y
            val[z] = state["solid"]
            state["solid"] += 1
        if val[x] == gas:
            state["candidate"] = x
        elif val[y] == gas:
            state["candidate"] = y
        return val[x] < val[y]

    introsort(list(range(n)), less)
    return val


def test_introsort_falls_back_to_heapsort_on_adversarial_input(monkeypatch):
    keys = _antiqsort(500)
    calls = []
    heapsort = introsort_module._heapsort

    def spy(v, first, last):
        calls.append(last - first)
        heapsort(v, first, last)

    monkeypatch.setattr(introsort_module, "_heapsort", spy)
    order = _sorted_indices(keys)
    assert calls
    assert [keys[i] for i in order] == sorted(keys)


_STD_SORT = r"""
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>
int main() {
    int t;
    if (std::scanf("%d", &t) != 1) return 1;
    while (t--) {
        int n, desc;
        std::scanf("%d %d", &n, &desc);
        std::vector<std::pair<int, int>> v(n);
        for (int i = 0; i < n; i++) { std::scanf("%d", &v[i].first); v[i].second = i; }
        if (desc)
            std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.first > b.first; });
        else
            std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.first < b.first; });
        for (int i = 0; i < n; i++) std::printf("%d ", v[i].second);
        std::printf("\n");
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def std_sort(tmp_path_factory):
    """Run libstdc++'s ``std::sort`` on vectors of int keys; skip without ``g++``."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    d = tmp_path_factory.mktemp("stdsort")
    (d / "s.cpp").write_text(_STD_SORT)
    exe = d / "s"
    subprocess.run([gxx, "-O1", "-std=c++17", "-o", str(exe), str(d / "s.cpp")], check=True)

    def run(cases: list[tuple[list[int], bool]]) -> list[list[int]]:
        lines = [str(len(cases))]
        for keys, desc in cases:
            lines.append(f"{len(keys)} {int(desc)} " + " ".join(map(str, keys)))
        out = subprocess.run(
            [str(exe)], input="\n".join(lines), capture_output=True, text=True, check=True
        ).stdout
        return [[int(x) for x in line.split()] for line in out.splitlines()]

    return run


def test_introsort_matches_gcc_std_sort(std_sort):
    rng = random.Random(0)
    cases = []
    for n in [*range(1, 70), 100, 257, 1000, 3000]:
        for distinct in (1, 2, 3, 7, n):
            cases.append(([rng.randrange(distinct) for _ in range(n)], rng.random() < 0.5))
    cases.append((_antiqsort(500), False))
    cases.append((list(range(200, 0, -1)) + [7] * 50, True))
    expected = std_sort(cases)
    for (keys, desc), want in zip(cases, expected, strict=True):
        assert _sorted_indices(keys, _greater if desc else _less) == want, (len(keys), desc)
