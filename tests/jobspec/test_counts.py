"""calc_count / calc_effective_max against a brute-force oracle of the count lattice."""

from __future__ import annotations

import os
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.jobspec import UINT_MAX, calc_count, calc_effective_max, load

EXAMPLES = int(os.environ.get("FLUXGRAPH_ORACLE_EXAMPLES", "300"))


def _lattice(cmin: int, cmax: int, op: str, operand: int) -> list[int]:
    """Every count the request allows, smallest first (no wrap-around: small values only)."""
    out = []
    cur = cmin
    while cur <= cmax:
        out.append(cur)
        if op == "+":
            cur += operand
        elif op == "*":
            cur *= operand
        else:
            cur **= operand
    return out


def _oracle(cmin: int, cmax: int, op: str, operand: int, qc: int) -> int:
    fits = [c for c in _lattice(cmin, cmax, op, operand) if c <= qc]
    return fits[-1] if fits else 0


@st.composite
def _counts(draw: st.DrawFn) -> tuple[int, int, str, int]:
    op = draw(st.sampled_from("+*^"))
    cmin = draw(st.integers(2 if op == "^" else 1, 50))
    cmax = draw(st.integers(cmin, 5000))
    operand = draw(st.integers(1, 10) if op == "+" else st.integers(2, 5))
    return cmin, cmax, op, operand


@settings(max_examples=EXAMPLES, deadline=None)
@given(_counts(), st.integers(0, 6000))
def test_calc_count_matches_lattice_oracle(spec: tuple[int, int, str, int], qc: int) -> None:
    cmin, cmax, op, operand = spec
    r = SimpleNamespace(count_min=cmin, count_max=cmax, count_operator=op, count_operand=operand)
    assert calc_count(r, qc) == _oracle(cmin, cmax, op, operand, qc)


def test_calc_count_plain_and_open_ended() -> None:
    js = load(
        {
            "version": 1,
            "resources": [
                {"type": "node", "count": 3},
                {"type": "core", "count": {"min": 2}},
                {"type": "gpu", "count": 0},
            ],
            "tasks": [],
            "attributes": {},
        }
    )
    node, core, gpu = js.resources
    assert [calc_count(node, q) for q in (2, 3, 9)] == [0, 3, 3]
    assert [calc_count(core, q) for q in (1, 2, 77)] == [0, 2, 77]
    assert calc_count(gpu, 5) == 0
    assert (node.effective_max, core.effective_max, gpu.effective_max) == (3, UINT_MAX, 0)
    assert calc_effective_max(core) == UINT_MAX


def test_calc_count_wraps_like_32_bit_unsigned_without_hanging() -> None:
    r = SimpleNamespace(count_min=2, count_max=UINT_MAX, count_operator="*", count_operand=2)
    assert calc_effective_max(r) == 2**31
    r = SimpleNamespace(count_min=2, count_max=UINT_MAX, count_operator="^", count_operand=2)
    assert calc_effective_max(r) == 2**16
    r = SimpleNamespace(count_min=1, count_max=10, count_operator="+", count_operand=1)
    assert calc_count(r, 2**32 + 5) == 5  # the qualified count is read as 32-bit unsigned


def test_calc_count_unknown_operator_is_zero() -> None:
    r = SimpleNamespace(count_min=1, count_max=4, count_operator="%", count_operand=1)
    assert calc_count(r, 4) == 0
