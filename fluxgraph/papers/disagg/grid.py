"""The ``disagg`` study's analysis model and reproduction criteria R0-R8 (spec §6, §8).

A :class:`DisaggGrid` is one experiment's cells (E2 on lublin, E6 on KTH) keyed by
``(S, X, allocator, window)``; it derives the normalised throughput ``NT = throughput /
throughput(S = 100, X, A-base)`` per window, window means and the memory savings of spec §6.
:func:`criteria` checks R0-R8 on it; E6 uses R1-R4 with doubled tolerances (spec §8).

>>> row = lambda s, x, a, thr: CellRow("c", 0, "disagg", {"experiment": "E2", "S": s, "X": x,
...     "alloc": a, "window": 0, "nodes": 64}, {}, "done", 1, 1, 1, "", None, None,
...     {"throughput": thr})
>>> g = DisaggGrid([row(100, 50, "base", 2.0), row(25, 50, "base", 1.0),
...                 row(25, 50, "dis", 1.8)], "E2")
>>> g.nt_mean(25, 50, "base"), g.nt_mean(25, 50, "dis")
(0.5, 0.9)
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Iterable

from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion
from fluxgraph.papers.disagg.machines import MemoryMachineSpec, large_count

__all__ = ["MARGIN_CELLS", "PAPER_SAVINGS", "DisaggGrid", "criteria"]

#: (S, X) cells where R3 asks A-dis for a margin of at least 0.10 over A-base.
MARGIN_CELLS = ((15, 50), (25, 50), (25, 75), (50, 75))
#: The paper's memory savings per mix X (§VI-B: 14, 20, 33 and 15%).
PAPER_SAVINGS = {15: 0.14, 25: 0.20, 50: 0.33, 75: 0.15}

Key = tuple[int, int, str]


class DisaggGrid:
    """The done cells of ``experiment`` keyed by ``(S, X, alloc, window)``."""

    def __init__(self, rows: Iterable[CellRow], experiment: str) -> None:
        self.cells: dict[tuple[int, int, str, int], dict[str, float | None]] = {}
        self.ids: dict[tuple[int, int, str, int], str] = {}
        self.nodes = 0
        for r in rows:
            p = r.params
            if r.status != "done" or p.get("experiment") != experiment:
                continue
            key = (int(p["S"]), int(p["X"]), str(p["alloc"]), int(p["window"]))
            self.cells[key] = dict(r.metrics)
            self.ids[key] = r.cell_id
            self.nodes = int(p["nodes"])
        self.S = sorted({k[0] for k in self.cells})
        self.X = sorted({k[1] for k in self.cells})
        self.windows = sorted({k[3] for k in self.cells})

    def __bool__(self) -> bool:
        return bool(self.cells)

    def get(self, s: int, x: int, alloc: str, w: int, metric: str) -> float | None:
        """One cell's metric (``None`` when the cell or metric is missing)."""
        return self.cells.get((s, x, alloc, w), {}).get(metric)

    def mean(self, s: int, x: int, alloc: str, metric: str) -> float | None:
        """The window mean of a metric (``None`` when no window has it)."""
        values = [self.get(s, x, alloc, w, metric) for w in self.windows]
        values = [v for v in values if v is not None]
        return statistics.fmean(values) if values else None

    def nt(self, s: int, x: int, alloc: str) -> list[float]:
        """Normalised throughput per window (spec §6, Fig. 5)."""
        out = []
        for w in self.windows:
            ref = self.get(100, x, "base", w, "throughput")
            thr = self.get(s, x, alloc, w, "throughput")
            if ref and thr is not None:
                out.append(thr / ref)
        return out

    def nt_mean(self, s: int, x: int, alloc: str) -> float | None:
        values = self.nt(s, x, alloc)
        return statistics.fmean(values) if values else None

    def memory(self, s: int) -> float:
        """m(S): the machine's memory over ``N`` normal nodes' (spec §2.1 table)."""
        spec = MemoryMachineSpec(self.nodes, large_count(self.nodes, s))
        return spec.total_mib / (self.nodes * spec.normal_mib)

    def savings(self, x: int, tau: float) -> tuple[int | None, int | None, float | None]:
        """``(S_b, S_d, 1 - m(S_d) / m(S_b))``: the smallest S whose window-mean NT is within
        ``tau`` of 1 under A-base and A-dis (spec §6)."""

        def smallest(alloc: str) -> int | None:
            for s in self.S:
                nt = self.nt_mean(s, x, alloc)
                if nt is not None and nt >= 1 - tau:
                    return s
            return None

        sb, sd = smallest("base"), smallest("dis")
        if sb is None or sd is None:
            return sb, sd, None
        return sb, sd, 1 - self.memory(sd) / self.memory(sb)

    def pairs(self, test: Callable[[int, int], bool]) -> list[tuple[int, int]]:
        """The ``(S, X)`` of the grid with ``test(S, X)``."""
        return [(s, x) for x in self.X for s in self.S if test(s, x)]


def _verdict(checks: list[bool], bad: list[str], extra: str = "") -> tuple[str, bool | None]:
    if not checks:
        return "not in the grid", None
    head = f"{sum(checks)}/{len(checks)} checks hold"
    shown = "; ".join(bad[:4]) + (f"; {len(bad) - 4} more" if len(bad) > 4 else "")
    text = head + (f"; failing: {shown}" if bad else "") + (f"; {extra}" if extra else "")
    return text, all(checks)


def _check(checks: list[bool], bad: list[str], ok: bool, what: str) -> None:
    checks.append(ok)
    if not ok:
        bad.append(what)


def _r0(g: DisaggGrid) -> Criterion:
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: x == 0 or s == 100):
        for w in g.windows:
            a, b = g.get(s, x, "base", w, "schedule"), g.get(s, x, "dis", w, "schedule")
            if a is not None and b is not None:
                _check(checks, bad, a == b, f"({s},{x}) w{w}")
    text, ok = _verdict(checks, bad)
    return Criterion(
        "R0", "(identity: spec §8)", text, "A-dis starts = A-base starts at X=0 and at S=100", ok
    )


def _r1(g: DisaggGrid, k: float) -> Criterion:
    checks: list[bool] = []
    bad: list[str] = []
    for x in g.X:
        series = [(s, g.nt_mean(s, x, "base")) for s in g.S]
        series = [(s, v) for s, v in series if v is not None]
        for (s0, a), (s1, b) in itertools.pairwise(series):
            _check(checks, bad, b >= a - 0.02 * k, f"X={x}: NT {a:.3f} at S={s0} > {b:.3f} at {s1}")
        for s, v in series:
            if s >= x:
                _check(checks, bad, v >= 1 - 0.05 * k, f"({s},{x}) NT {v:.3f}")
            elif s > 0:
                cap = min(1.0, 1.2 * s / x) + 0.02 * k
                _check(checks, bad, v <= cap, f"({s},{x}) NT {v:.3f} > {cap:.3f}")
    text, ok = _verdict(checks, bad)
    return Criterion(
        "R1",
        "A-base NT ~1 for X <= S, 'decreases substantially' for X > S",
        text,
        f"NT(base) non-decreasing in S (slack {0.02 * k:g}); >= {1 - 0.05 * k:g} for S >= X; "
        f"<= min(1, 1.2 S/X) + {0.02 * k:g} for 0 < S < X",
        ok,
    )


def _r2(g: DisaggGrid, k: float) -> Criterion:
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: s >= x):
        dis, base = g.nt_mean(s, x, "dis"), g.nt_mean(s, x, "base")
        if dis is None or base is None:
            continue
        ok = abs(dis - base) <= 0.03 * k if s > x else dis >= base - 0.03 * k
        _check(checks, bad, ok, f"({s},{x}) dis {dis:.3f} base {base:.3f}")
    text, ok = _verdict(checks, bad)
    return Criterion(
        "R2",
        "A-dis NT same as A-base for X <= S",
        text,
        f"|NT(dis) - NT(base)| <= {0.03 * k:g} for S > X; NT(dis) >= NT(base) - {0.03 * k:g} "
        "for S = X",
        ok,
    )


def _r3(g: DisaggGrid, k: float) -> Criterion:
    checks: list[bool] = []
    bad: list[str] = []
    gains = []
    for s, x in g.pairs(lambda s, x: 0 < s < x):
        dis, base = g.nt_mean(s, x, "dis"), g.nt_mean(s, x, "base")
        if dis is None or base is None:
            continue
        need = 0.10 if (s, x) in MARGIN_CELLS else 0.02
        need /= k  # doubled tolerances (E6): half the margin
        gains.append(f"({s},{x}) {dis - base:+.3f}")
        _check(checks, bad, dis >= base + need, f"({s},{x}) {dis - base:+.3f} < {need:g}")
    text, ok = _verdict(checks, bad, "gains " + ", ".join(gains) if gains else "")
    return Criterion(
        "R3",
        "under-provisioned: A-dis well above A-base",
        text,
        "NT(dis) >= NT(base) + 0.02 for 0 < S < X; + 0.10 at (15,50), (25,50), (25,75), (50,75)"
        + (" (tolerances doubled: margins halved)" if k > 1 else ""),
        ok,
    )


def _r4(g: DisaggGrid, k: float) -> Criterion:
    nt = g.nt_mean(0, 50, "dis")
    rejected = [
        f"({s},{x},w{w}): {v:g}"
        for (s, x, a, w), m in g.cells.items()
        if a == "dis" and (v := m.get("rejected")) is not None and v > 0
    ]
    floor = 1 - 0.15 * k
    ok = None if nt is None else nt >= floor and not rejected
    ours = f"NT(dis, 0, 50) = {nt:.3f}" if nt is not None else "(0, 50) not in the grid"
    ours += "; A-dis rejects " + (", ".join(rejected[:4]) if rejected else "nothing")
    return Criterion(
        "R4",
        "X=50%, S=0%: A-dis loses ~5% (NT ~0.95)",
        ours,
        f"NT(dis, 0, 50) >= {floor:g}; A-dis completes every job in every cell",
        ok,
    )


def _r5(g: DisaggGrid) -> Criterion:
    got = {x: g.savings(x, 0.10)[2] for x in PAPER_SAVINGS if x in g.X}
    ours = []
    for x in PAPER_SAVINGS:
        if x not in g.X:
            continue
        at05, at10 = g.savings(x, 0.05)[2], got[x]
        ours.append(f"X={x}: {_pct(at05)} (tau .05), {_pct(at10)} (tau .10)")
    rules = {50: (0.30, 1.0), 25: (0.15, 1.0), 15: (0.10, 1.0), 75: (0.10, 0.30)}
    checks, bad = [], []
    for x, (lo, hi) in rules.items():
        if x in got:
            v = got[x]
            _check(checks, bad, v is not None and lo <= v <= hi, f"X={x}: {_pct(v)}")
    order = [got.get(x) for x in (50, 25, 15) if x in got]
    if len(order) > 1:
        ok = None not in order and all(a >= b for a, b in itertools.pairwise(order))
        _check(checks, bad, ok, "not savings(50) >= savings(25) >= savings(15)")
    text, ok = _verdict(checks, bad, "; ".join(ours))
    return Criterion(
        "R5",
        "savings 14% / 20% / 33% / 15% for X = 15 / 25 / 50 / 75%",
        text,
        "tau 0.10: savings(50) >= 0.30, (25) >= 0.15, (15) >= 0.10, (75) in [0.10, 0.30]; "
        "savings(50) >= (25) >= (15)",
        ok,
    )


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.0%}"


def _r6(g: DisaggGrid) -> Criterion:
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: s > 0):
        d = [g.mean(s, x, "dis", m) for m in ("mean_response", "p90_response")]
        b = [g.mean(s, x, "base", m) for m in ("mean_response", "p90_response")]
        if None in d or None in b:
            continue
        if s < x:
            ok = d[0] < b[0] and d[1] < b[1]
            _check(checks, bad, ok, f"({s},{x}) mean {d[0]:.0f} vs {b[0]:.0f} s")
        else:
            ok = abs(d[0] - b[0]) <= 0.10 * b[0]
            _check(checks, bad, ok, f"({s},{x}) mean {d[0]:.0f} vs {b[0]:.0f} s")
    text, ok = _verdict(checks, bad)
    return Criterion(
        "R6",
        "Fig. 6: CDFs overlap for X <= S; A-dis fewer long responses for X > S",
        text,
        "0 < S < X: A-dis lower mean and p90 response; S >= X: means within 10%",
        ok,
    )


def _r7(g: DisaggGrid) -> Criterion:
    ratios, cpus = [], []
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: 0 < s < x):
        dm, bm = g.mean(s, x, "dis", "util_mem"), g.mean(s, x, "base", "util_mem")
        dc, bc = g.mean(s, x, "dis", "util_cpu"), g.mean(s, x, "base", "util_cpu")
        if None in (dm, bm, dc, bc):
            continue
        ratios.append(dm / bm)
        cpus.append(dc)
        _check(checks, bad, dc > bc, f"({s},{x}) cpu {dc:.2f} <= {bc:.2f}")
    extra = ""
    if ratios:
        ratio, cpu = statistics.fmean(ratios), statistics.fmean(cpus)
        _check(checks, bad, ratio >= 1.3, f"memory ratio {ratio:.2f}")
        _check(checks, bad, cpu >= 0.75, f"mean A-dis CPU {cpu:.2f}")
        extra = f"memory x{ratio:.2f}, A-dis CPU {cpu:.2f}"
    text, ok = _verdict(checks, bad, extra)
    return Criterion(
        "R7",
        "under-provisioned: memory utilisation x1.6, 'almost 90%' CPU",
        text,
        "0 < S < X: mean util_mem ratio >= 1.3; util_cpu(dis) > util_cpu(base) per cell; "
        "mean util_cpu(dis) >= 0.75",
        ok,
    )


def _r8(g: DisaggGrid) -> Criterion:
    w = g.windows[0] if g.windows else 0
    a = g.get(25, 25, "base", w, "util_cpu")
    b = [g.get(25, 50, "base", w, m) for m in ("util_cpu", "util_mem")]
    checks: list[bool] = []
    bad: list[str] = []
    ours = []
    if a is not None:
        ours.append(f"(a) CPU {a:.2f}")
        _check(checks, bad, a >= 0.70, "(a)")
    if None not in b:
        ours.append(f"(b) CPU {b[0]:.2f}, memory {b[1]:.2f}")
        _check(checks, bad, max(b) <= 0.55, "(b)")
    text, ok = _verdict(checks, bad, "; ".join(ours))
    return Criterion(
        "R8",
        "Fig. 1: (a) S=X=25% CPU 81%; (b) S=25%, X=50% CPU and memory < 48%",
        text,
        f"E1(a) util_cpu >= 0.70; E1(b) util_cpu and util_mem <= 0.55 (A-base, window {w})",
        ok,
    )


def criteria(grid: DisaggGrid, robustness: bool = False) -> list[Criterion]:
    """R0-R8 on ``grid`` (spec §8); with ``robustness`` (E6) R1-R4 with doubled tolerances."""
    if robustness:
        out = [_r1(grid, 2), _r2(grid, 2), _r3(grid, 2), _r4(grid, 2)]
        return [
            Criterion(f"E6 {c.id}", "(not in the paper)", c.ours, c.rule, c.passed) for c in out
        ]
    return [
        _r0(grid),
        _r1(grid, 1),
        _r2(grid, 1),
        _r3(grid, 1),
        _r4(grid, 1),
        _r5(grid),
        _r6(grid),
        _r7(grid),
        _r8(grid),
    ]
