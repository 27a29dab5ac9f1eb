"""The ``disagg`` study's analysis model and reproduction criteria R0-R9 (spec §6, §8 and its
amendment of 2026-11-28, part B).

A :class:`DisaggGrid` is one experiment's cells (E2 on lublin, E6 on KTH) under one model
profile, keyed by ``(S, X, allocator, window)``; it derives the normalised throughput ``NT =
throughput / throughput(S = 100, X, A-base)`` per window, window means and the memory savings
of spec §6. :func:`criteria` checks the required criteria (R0, R1, R3, R7, R8, R9) and reports
the paper's claims R2, R4, R5, R6 under the default profile beside the E9 ablation profiles
(``interference=none``, ``lending=dedicated``); E6 uses R1-R4 with doubled tolerances.

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion
from fluxgraph.papers.disagg.machines import MemoryMachineSpec, large_count

__all__ = [
    "ABLATIONS",
    "E9_CELLS",
    "E9_PROFILES",
    "MARGIN_CELLS",
    "MODEL_OPTIONS",
    "PAPER_SAVINGS",
    "DisaggGrid",
    "criteria",
    "options_of",
    "profile_of",
]

#: (S, X) cells where R3 asks A-dis for a margin of at least 0.10 over A-base.
MARGIN_CELLS = ((15, 50), (25, 50), (25, 75), (50, 75))
#: The paper's memory savings per mix X (§VI-B: 14, 20, 33 and 15%).
PAPER_SAVINGS = {15: 0.14, 25: 0.20, 50: 0.33, 75: 0.15}
#: The model options (cell parameters, spec amendment A.4) and their defaults.
MODEL_OPTIONS = {
    "lending": "shared",
    "interference": "model",
    "catalogue": "nodehours",
    "lender_compute": "never",
}
#: E9: the (S, X) cells of E2 window 0 run under every profile (spec amendment A.4).
E9_CELLS = ((0, 50), (25, 25), (50, 50), (25, 50), (15, 75))
#: The ablation profiles the reported claims show beside the default (amendment part B).
ABLATIONS = ("interference=none", "lending=dedicated")
#: E9's profiles (amendment A.4; ``catalogue=jobs`` is the spec's earlier workload).
E9_PROFILES = ("default", *ABLATIONS, "catalogue=jobs")

Key = tuple[int, int, str]


def profile_of(params: Mapping[str, Any]) -> str:
    """A cell's model profile: ``default``, or its options that differ from the defaults.

    >>> profile_of({"S": 0, "lending": "shared"}), profile_of({"interference": "none"})
    ('default', 'interference=none')
    """
    diff = [f"{k}={params[k]}" for k, v in MODEL_OPTIONS.items() if params.get(k, v) != v]
    return ", ".join(diff) or "default"


def options_of(params: Mapping[str, Any]) -> dict[str, str]:
    """A cell's model options (:data:`MODEL_OPTIONS`, the defaults filled in).

    >>> options_of({"lending": "dedicated"})["lending"], options_of({})["interference"]
    ('dedicated', 'model')
    """
    return {k: str(params.get(k, v)) for k, v in MODEL_OPTIONS.items()}


class DisaggGrid:
    """The done cells of ``experiment`` under model ``profile`` keyed by ``(S, X, alloc,
    window)``; ``windows`` and ``pairs`` (``(S, X)``; the ``S = 100`` references stay)
    restrict them. A-base's cells are the default profile's under every profile: A-base
    neither lends nor shares a node, and every large app of either catalogue needs more than
    a normal node and fits a large one, so its schedule is the same."""

    def __init__(
        self,
        rows: Iterable[CellRow],
        experiment: str,
        profile: str = "default",
        windows: Iterable[int] | None = None,
        pairs: Iterable[tuple[int, int]] | None = None,
    ) -> None:
        self.profile = profile
        self.cells: dict[tuple[int, int, str, int], dict[str, float | None]] = {}
        self.ids: dict[tuple[int, int, str, int], str] = {}
        self.nodes = 0
        keep_w = None if windows is None else set(windows)
        keep = None if pairs is None else set(pairs)
        for r in rows:
            p = r.params
            if r.status != "done" or p.get("experiment") != experiment:
                continue
            if profile_of(p) != (profile if p["alloc"] == "dis" else "default"):
                continue
            key = (int(p["S"]), int(p["X"]), str(p["alloc"]), int(p["window"]))
            if keep_w is not None and key[3] not in keep_w:
                continue
            if keep is not None and key[:2] not in keep and (key[0], key[2]) != (100, "base"):
                continue
            self.cells[key] = dict(r.metrics)
            self.ids[key] = r.cell_id
            self.nodes = int(p["nodes"])
        self.S = sorted({k[0] for k in self.cells})
        self.X = sorted({k[1] for k in self.cells})
        self.windows = sorted({k[3] for k in self.cells})

    @classmethod
    def e9(cls, rows: Iterable[CellRow]) -> dict[str, DisaggGrid]:
        """E9's grids: its cells (:data:`E9_CELLS` of E2, window 0) under each of
        :data:`E9_PROFILES`."""
        rows = list(rows)
        return {p: cls(rows, "E2", p, windows=(0,), pairs=E9_CELLS) for p in E9_PROFILES}

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

    def nt_at(self, s: int, x: int, alloc: str, w: int) -> float | None:
        """Normalised throughput of one window's cell (``None`` when missing)."""
        ref, thr = self.get(100, x, "base", w, "throughput"), self.get(s, x, alloc, w, "throughput")
        return thr / ref if ref and thr is not None else None

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


def _informative(s: int, x: int) -> bool:
    """Whether A-dis can differ from A-base at ``(S, X)``: at X = 0 and S = 100 the local pass
    always succeeds, so their schedules are identical by construction (R0)."""
    return x > 0 and s < 100


#: A check of a reported claim on a grid: ``(checks, failing, extra text)``.
Checks = tuple[list[bool], list[str], str]


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
            if s >= x:  # (S = X is a knife-edge at load 1.10: amendment part B)
                floor = 1 - (0.05 if s > x else 0.10) * k
                _check(checks, bad, v >= floor, f"({s},{x}) NT {v:.3f} < {floor:g}")
            elif s > 0:
                cap = min(1.0, 1.2 * s / x) + 0.02 * k
                _check(checks, bad, v <= cap, f"({s},{x}) NT {v:.3f} > {cap:.3f}")
    text, ok = _verdict(checks, bad)
    return Criterion(
        "R1",
        "A-base NT ~1 for X <= S, 'decreases substantially' for X > S",
        text,
        f"NT(base) non-decreasing in S (slack {0.02 * k:g}); >= {1 - 0.05 * k:g} for S > X, "
        f">= {1 - 0.10 * k:g} for S = X; <= min(1, 1.2 S/X) + {0.02 * k:g} for 0 < S < X",
        ok,
    )


def _r2(g: DisaggGrid, k: float = 1) -> Checks:
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: s >= x and _informative(s, x)):
        dis, base = g.nt_mean(s, x, "dis"), g.nt_mean(s, x, "base")
        if dis is None or base is None:
            continue
        ok = abs(dis - base) <= 0.03 * k if s > x else dis >= base - 0.03 * k
        _check(checks, bad, ok, f"({s},{x}) dis {dis:.3f} base {base:.3f}")
    return checks, bad, ""


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


def _r4(g: DisaggGrid, k: float = 1) -> Checks:
    nt = g.nt_mean(0, 50, "dis")
    if nt is None:
        return [], [], ""
    rejected = [
        f"({s},{x},w{w}): {v:g}"
        for (s, x, a, w), m in g.cells.items()
        if a == "dis" and (v := m.get("rejected")) is not None and v > 0
    ]
    checks: list[bool] = []
    bad: list[str] = []
    _check(checks, bad, nt >= 1 - 0.15 * k, f"NT(dis, 0, 50) {nt:.3f}")
    _check(checks, bad, not rejected, "A-dis rejects " + ", ".join(rejected[:4]))
    return checks, bad, f"NT(dis, 0, 50) = {nt:.3f}"


def _savings(g: DisaggGrid) -> Checks:
    got = {x: g.savings(x, 0.10)[2] for x in PAPER_SAVINGS if x in g.X}
    ours = []
    for x in PAPER_SAVINGS:
        if x in g.X:
            ours.append(f"X={x}: {_pct(g.savings(x, 0.05)[2])} (tau .05), {_pct(got[x])} (.10)")
    rules = {50: (0.30, 1.0), 25: (0.15, 1.0), 15: (0.10, 1.0), 75: (0.10, 0.30)}
    checks: list[bool] = []
    bad: list[str] = []
    for x, (lo, hi) in rules.items():
        if x in got:
            v = got[x]
            _check(checks, bad, v is not None and lo <= v <= hi, f"X={x}: {_pct(v)}")
    order = [got.get(x) for x in (50, 25, 15) if x in got]
    if len(order) > 1:
        ok = None not in order and all(a >= b for a, b in itertools.pairwise(order))
        _check(checks, bad, ok, "not savings(50) >= savings(25) >= savings(15)")
    return checks, bad, "; ".join(ours)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.0%}"


def _r6(g: DisaggGrid) -> Checks:
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: s > 0 and _informative(s, x)):
        d = [g.mean(s, x, "dis", m) for m in ("mean_response", "p90_response")]
        b = [g.mean(s, x, "base", m) for m in ("mean_response", "p90_response")]
        if None in d or None in b:
            continue
        ok = d[0] < b[0] and d[1] < b[1] if s < x else abs(d[0] - b[0]) <= 0.10 * b[0]
        _check(checks, bad, ok, f"({s},{x}) mean {d[0]:.0f} vs {b[0]:.0f} s")
    return checks, bad, ""


def _r7(g: DisaggGrid) -> Criterion:
    ratios, cpus, refs = [], [], []
    checks: list[bool] = []
    bad: list[str] = []
    for s, x in g.pairs(lambda s, x: 0 < s < x):
        dm, bm = g.mean(s, x, "dis", "util_mem"), g.mean(s, x, "base", "util_mem")
        dc, bc = g.mean(s, x, "dis", "util_cpu"), g.mean(s, x, "base", "util_cpu")
        ref = g.mean(100, x, "base", "util_cpu")
        if None in (dm, bm, dc, bc, ref):
            continue
        ratios.append(dm / bm)
        cpus.append(dc)
        refs.append(ref)
        _check(checks, bad, dc > bc, f"({s},{x}) cpu {dc:.2f} <= {bc:.2f}")
    extra = ""
    if ratios:
        ratio, cpu, ref = statistics.fmean(ratios), statistics.fmean(cpus), statistics.fmean(refs)
        _check(checks, bad, ratio >= 1.3, f"memory ratio {ratio:.2f}")
        _check(checks, bad, cpu >= 0.85 * ref, f"A-dis CPU {cpu:.2f} < 0.85 x {ref:.2f}")
        extra = f"memory x{ratio:.2f}; A-dis CPU {cpu:.2f} = {cpu / ref:.2f} x A-base at S=100"
    text, ok = _verdict(checks, bad, extra)
    return Criterion(
        "R7",
        "under-provisioned: memory utilisation x1.6, 'almost 90%' CPU (D9 as a ratio)",
        text,
        "0 < S < X: mean util_mem(dis)/util_mem(base) >= 1.3; util_cpu(dis) > util_cpu(base) "
        "per cell; mean util_cpu(dis) >= 0.85 x mean util_cpu(base, S=100, same X)",
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


def _r9(none: DisaggGrid | None) -> Criterion:
    """The ablation's sanity check (amendment part B): without interference sets A-dis keeps
    A-base's throughput where memory suffices and loses little at (0, 50)."""
    checks: list[bool] = []
    bad: list[str] = []
    ours = []
    if none is not None:
        w = 0
        for s, x in none.pairs(lambda s, x: s >= x and _informative(s, x)):
            dis, base = none.nt_at(s, x, "dis", w), none.nt_at(s, x, "base", w)
            if dis is not None and base is not None:
                ours.append(f"({s},{x}) {dis:.3f} vs {base:.3f}")
                _check(checks, bad, dis >= base - 0.03, f"({s},{x}) dis {dis:.3f} base {base:.3f}")
        nt = none.nt_at(0, 50, "dis", w)
        if nt is not None:
            ours.append(f"NT(dis, 0, 50) = {nt:.3f}")
            _check(checks, bad, nt >= 0.85, f"NT(dis, 0, 50) {nt:.3f}")
    text, ok = _verdict(checks, bad, "; ".join(ours))
    return Criterion(
        "R9",
        "(ablation sanity: amendment part B)",
        text,
        "interference=none, E2 window 0: NT(dis) >= NT(base) - 0.03 for S >= X; "
        "NT(dis, 0, 50) >= 0.85",
        ok,
    )


def _r2_rule(k: float) -> str:
    return (
        f"|NT(dis) - NT(base)| <= {0.03 * k:g} for S > X; NT(dis) >= NT(base) - {0.03 * k:g} "
        "for S = X (informative pairs: X > 0, S < 100)"
    )


#: The reported claims: id, the paper's statement, the rule, the check (spec §8).
CLAIMS: tuple[tuple[str, str, str, Callable[..., Checks]], ...] = (
    ("R2", "A-dis NT same as A-base for X <= S", _r2_rule(1), _r2),
    (
        "R4",
        "X=50%, S=0%: A-dis loses ~5% (NT ~0.95)",
        "NT(dis, 0, 50) >= 0.85; A-dis completes every job in every cell",
        _r4,
    ),
    (
        "R5",
        "savings 14% / 20% / 33% / 15% for X = 15 / 25 / 50 / 75%",
        "tau 0.10: savings(50) >= 0.30, (25) >= 0.15, (15) >= 0.10, (75) in [0.10, 0.30]; "
        "savings(50) >= (25) >= (15)",
        _savings,
    ),
    (
        "R6",
        "Fig. 6: CDFs overlap for X <= S; A-dis fewer long responses for X > S",
        "0 < S < X: A-dis lower mean and p90 response; S >= X: means within 10% "
        "(informative pairs)",
        _r6,
    ),
)

#: The verdicts of a reported claim (amendment part B); the second is reported as ``partly``.
ONLY_WITHOUT_CONTENTION = "reproduced only without the contention model"


def _claim(
    cid: str,
    paper: str,
    rule: str,
    check: Callable[..., Checks],
    g: DisaggGrid,
    e9: Mapping[str, DisaggGrid],
    e8: DisaggGrid | None,
) -> Criterion:
    """A reported claim: the default profile's checks (all windows), then the E9 cells
    (window 0) under the default and each ablation profile, and E8 (the authors' trace)."""
    text, ok = _verdict(*check(g))
    held: dict[str, bool | None] = {}
    parts = []
    for name, grid in e9.items():
        if check is _savings:  # (a saving needs the S sweep, which E9 does not run)
            parts.append(f"{name} not run (needs every S)")
            continue
        checks, bad, extra = check(grid)
        held[name] = all(checks) if checks else None
        got = f"{sum(checks)}/{len(checks)}" if checks else "not run"
        notes = [extra] if extra and checks else []
        notes += [f"failing {', '.join(bad[:3])}"] if bad else []
        parts.append(f"{name} {got}" + (f" ({'; '.join(notes)})" if notes else ""))
    e8_text = "not run (--authors-trace)"
    if e8 is not None and e8:
        e8_text, _ = _verdict(*check(e8))
    ours = f"default: {text}; E9 cells (window 0): {', '.join(parts)}; E8: {e8_text}"
    if ok is None:
        return Criterion(cid, paper, ours, f"{rule} (paper claim, reported)", None)
    if ok:
        claim = "reproduced"
    elif held.get("interference=none"):
        claim, ours = "partly", f"{ONLY_WITHOUT_CONTENTION}: {ours}"
    else:
        claim = "not reproduced"
    return Criterion(cid, paper, ours, rule, ok, required=False, claim=claim)


def _reported(cid: str, rule: str, checks: Checks) -> Criterion:
    """A claim reported on one grid (E6): reproduced or not, or not evaluated."""
    text, ok = _verdict(*checks)
    if ok is None:
        return Criterion(cid, "", text, f"{rule} (paper claim, reported)", None)
    claim = "reproduced" if ok else "not reproduced"
    return Criterion(cid, "", text, rule, ok, required=False, claim=claim)


def criteria(
    grid: DisaggGrid,
    robustness: bool = False,
    e9: Mapping[str, DisaggGrid] | None = None,
    e8: DisaggGrid | None = None,
) -> list[Criterion]:
    """R0-R9 on ``grid`` (spec §8 as amended): R0, R1, R3, R7, R8 and R9 required; R2, R4,
    R5, R6 reported with ``e9``'s ``default`` and :data:`ABLATIONS` grids (profile -> its grid
    of the E9 cells, window 0, as :meth:`DisaggGrid.e9` makes them) and ``e8`` beside them. With
    ``robustness`` (E6): R1-R4 with doubled tolerances."""
    if robustness:
        r2 = _reported("R2", _r2_rule(2), _r2(grid, 2))
        r4 = _reported("R4", "NT(dis, 0, 50) >= 0.7; A-dis completes every job", _r4(grid, 2))
        return [
            replace(c, id=f"E6 {c.id}", paper="(not in the paper)")
            for c in (_r1(grid, 2), r2, _r3(grid, 2), r4)
        ]
    given = e9 or {}
    e9 = {p: given[p] for p in ("default", *ABLATIONS) if p in given}
    claims = {
        cid: _claim(cid, paper, rule, check, grid, e9, e8) for cid, paper, rule, check in CLAIMS
    }
    return [
        _r0(grid),
        _r1(grid, 1),
        claims["R2"],
        _r3(grid, 1),
        claims["R4"],
        claims["R5"],
        claims["R6"],
        _r7(grid),
        _r8(grid),
        _r9(e9.get("interference=none")),
    ]
