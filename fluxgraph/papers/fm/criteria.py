"""The FM study's criteria C1-C10 (spec §8 as amended on 2026-11-28) and its claim-by-rules table.

A :class:`Grid` holds the done cells by ``(config, priority, options)``; :meth:`Grid.view` picks
one option set (``rules``, ``admission``, ... with the paper's code as the default). Each claim
of the paper is a small function of a :class:`View`: ``True``/``False``, or ``None`` when the
view lacks a cell it needs (never a pass without data). A criterion applies claims to the views
the amendment names; the claim-by-rules table applies each claim to
``{code, easy} x {per_config, common}``.

>>> g = Grid({}, jobs=0, full=True)
>>> [c.passed for c in criteria(g)]
[None, None, None, None, None, None, None, None, None, None]
>>> claim_table(g)[2][0]
['H1: FM lowest bsld at limited pools, comparable when ample', 'not evaluated', \
'not evaluated', 'not evaluated', 'not evaluated']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from fluxgraph.experiments.studies import Criterion
from fluxgraph.papers.fm.machine import FmMachineSpec, juwels_like, perlmutter_like
from fluxgraph.papers.fm.metrics import savings
from fluxgraph.papers.fm.study_compat import PEER, WHOLE_PEER, compat_check

__all__ = [
    "BASELINES",
    "OPTIONS",
    "POOLS",
    "REJECTED",
    "Grid",
    "View",
    "claim_table",
    "criteria",
    "option_key",
]

BASELINES = ("fcfs", "sjf", "wfp3", "f1", "fair")
POOLS = tuple(range(4, 52, 4))
#: Rejected jobs per pool size on the whole trace (spec §4.6).
REJECTED = dict(zip(POOLS, (93, 60, 54, 44, 42, 28, 28, 6, 4, 3, 0, 0), strict=True))
#: The options of a cell and their defaults (the paper's code; spec amendment of 2026-11-28).
OPTIONS = {
    "rules": "code",
    "admission": "per_config",
    "warmup_switch": "arrival",
    "system_alloc": "local_first",
    "latency_scope": "job",
    "model": "paper",
}


def option_key(params: dict) -> tuple:
    """A cell's options (defaults filled in), then its job count: the grid's variant key."""
    return (*(params.get(k, v) for k, v in OPTIONS.items()), int(params.get("jobs", 0)))


@dataclass(frozen=True)
class View:
    """The cells of one option set as ``(config, priority) -> metrics``; ``label`` names it."""

    t: dict[tuple[str, str], dict[str, float]]
    label: str

    @property
    def pools(self) -> list[int]:
        """The rack pools (TB/rack) the view has."""
        return sorted({int(c[4:]) for c, _ in self.t if c.startswith("rack")})

    def get(self, pool: int, prio: str, metric: str) -> float | None:
        """``metric`` of ``prio`` at ``pool`` TB/rack (rack scope), or None."""
        return self.t.get((f"rack{pool}", prio), {}).get(metric)

    def cell(self, config: str, prio: str = "fm") -> dict[str, float] | None:
        return self.t.get((config, prio))


@dataclass(frozen=True)
class Grid:
    """The done cells by ``(config, priority, option_key)``; ``jobs``: the main grid's job count
    (0: the whole trace); ``full``: the full grid (C8 reads the whole trace only)."""

    cells: dict[tuple[str, str, tuple], dict[str, float]]
    jobs: int
    full: bool
    _views: dict = field(default_factory=dict, compare=False)

    def view(self, jobs: int | None = None, **options: str) -> View:
        """The cells of the default options updated by ``options`` (and ``jobs``)."""
        chosen = {**OPTIONS, **options}
        key = (*chosen.values(), self.jobs if jobs is None else jobs)
        if key not in self._views:
            t = {(c, p): m for (c, p, k), m in self.cells.items() if k == key}
            label = ", ".join(f"{k}={v}" for k, v in chosen.items() if v != OPTIONS[k])
            self._views[key] = View(t, label or "default options")
        return self._views[key]


Claim = Callable[[View], "bool | None"]


def _all(checks: list[bool]) -> bool | None:
    return all(checks) if checks else None


def fm_lowest(v: View) -> bool | None:
    """H1 (Fig. 7a): at every pool <= 20 TB/rack fm <= 1.05 x the best baseline and <= 0.8 x
    fcfs and f1; at >= 36, fm <= 1.15 x the best. Every pool of the sweep must be there."""
    checks = []
    for pool in POOLS:
        fm = v.get(pool, "fm", "bsld")
        base = [v.get(pool, p, "bsld") for p in BASELINES]
        if fm is None or None in base:
            return None
        low = min(base)
        if pool <= 20:
            checks.append(fm <= 1.05 * low and fm <= 0.8 * base[0] and fm <= 0.8 * base[3])
        elif pool >= 36:
            checks.append(fm <= 1.15 * low)
    return _all(checks)


def _series(v: View, prio: str, metric: str) -> list[float] | None:
    ys = [v.get(p, prio, metric) for p in POOLS]
    return None if None in ys else ys  # type: ignore[return-value]


def bsld_falls(v: View) -> bool | None:
    """Fig. 7a: every scheduler's bsld is non-increasing in the pool (5% slack)."""
    checks = []
    for prio in (*BASELINES, "fm"):
        ys = _series(v, prio, "bsld")
        if ys is None:
            return None
        checks.append(all(b <= 1.05 * a for a, b in itertools.pairwise(ys)))
    return _all(checks)


def throughput_plateaus(v: View) -> bool | None:
    """Fig. 7b/c: throughput and node utilisation non-decreasing in the pool (3% slack), 40,
    44 and 48 TB/rack within 3% of each other, per scheduler."""
    checks = []
    for prio in (*BASELINES, "fm"):
        for metric in ("throughput", "node_utilisation"):
            ys = _series(v, prio, metric)
            if ys is None:
                return None
            tail = ys[-3:]
            checks.append(all(b >= 0.97 * a for a, b in itertools.pairwise(ys)))
            checks.append(max(tail) <= 1.03 * min(tail))
    return _all(checks)


def fm_throughput_median(v: View) -> bool | None:
    """Fig. 7b: fm's throughput within 10% of the baselines' median at every pool >= 28."""
    checks = []
    for pool in (p for p in POOLS if p >= 28):
        others = [v.get(pool, p, "throughput") for p in BASELINES]
        fm = v.get(pool, "fm", "throughput")
        if fm is None or None in others:
            return None
        median = sorted(others)[len(others) // 2]
        checks.append(abs(fm - median) <= 0.10 * median)
    return _all(checks)


def fairest(v: View) -> bool | None:
    """H2 (Fig. 8): at 16 and 32 TB/rack fm has the lowest MD, its MD10 within 5% of the
    lowest, its D and D10 below sjf's, wfp3's and f1's."""
    checks = []
    for pool in (16, 32):
        cells = {p: v.cell(f"rack{pool}", p) for p in (*BASELINES, "fm")}
        if None in cells.values() or any("MD" not in c for c in cells.values()):
            return None
        md = {p: c["MD"] for p, c in cells.items()}
        md10 = {p: c["MD10"] for p, c in cells.items()}
        low10 = min(md10.values())
        fm = cells["fm"]
        checks.append(
            md["fm"] == min(md.values())
            and md10["fm"] <= low10 + 0.05 * abs(low10)
            and all(
                fm["D"] < cells[p]["D"] and fm["D10"] < cells[p]["D10"]
                for p in ("sjf", "wfp3", "f1")
            )
        )
    return _all(checks)


def scopes_alike(v: View) -> bool | None:
    """Fig. 9: at 48 TB/rack the KS distance of rack- and system-scope bsld over the jobs both
    evaluate (per-job values) <= 0.10 and their mean bsld within 5%."""
    s48 = v.cell("system48")
    if s48 is None or "ks_rack" not in s48:
        return None
    mean_r, mean_s = s48["bsld_rack_common"], s48["bsld_common"]
    return s48["ks_rack"] <= 0.10 and abs(mean_s - mean_r) <= 0.05 * mean_r


def _thr_ratio(v: View) -> dict[int, float] | None:
    base = v.cell("base")
    ratio = {p: v.get(p, "fm", "thr_per_dollar") for p in POOLS}
    if base is None or None in ratio.values():
        return None
    return {p: r / base["thr_per_dollar"] for p, r in ratio.items()}  # type: ignore[operator]


def cost_peak(v: View) -> bool | None:
    """H3 (Fig. 10): the thr/$ maximum lies at 20-32 TB/rack and is >= 1.6x the baseline."""
    ratio = _thr_ratio(v)
    if ratio is None:
        return None
    best = max(ratio, key=ratio.__getitem__)
    return 20 <= best <= 32 and ratio[best] >= 1.6


def memory_use(v: View) -> bool | None:
    """H3 (Fig. 11): baseline memory utilisation 0.20-0.32; at 28 TB/rack 0.55-0.85 and more
    than twice the baseline."""
    base, m28 = v.cell("base"), v.cell("rack28")
    if base is None or m28 is None:
        return None
    b, m = base["memory_utilisation"], m28["memory_utilisation"]
    return 0.20 <= b <= 0.32 and 0.55 <= m <= 0.85 and m > 2 * b


def degradation(v: View) -> bool | None:
    """H3 (Fig. 12): at 28 TB/rack >= 70% of E below 5%, mean 0.06-0.12, none at 150%."""
    deg = v.cell("rack28")
    if deg is None:
        return None
    return (
        deg["deg_below_5"] >= 0.70
        and 0.06 <= deg["degradation"] <= 0.12
        and deg["deg_at_least_150"] == 0
    )


def juwels(v: View) -> bool | None:
    """W2 (Fig. 7d, 10): fm <= 0.8 x fcfs and f1 at 2 and 4 TB/rack, fm <= min(fcfs, f1) at 6;
    the thr/$ maximum at <= 8 TB/rack."""
    jpools = range(2, 26, 2)
    rows = {
        p: {q: (v.cell(f"juwels{p}", q) or {}).get("bsld") for q in ("fm", "fcfs", "f1")}
        for p in (2, 4, 6)
    }
    thr = {p: (v.cell(f"juwels{p}") or {}).get("thr_per_dollar") for p in jpools}
    if any(None in r.values() for r in rows.values()) or None in thr.values():
        return None
    if v.cell("jbase") is None:
        return None
    ok = [rows[p]["fm"] <= 0.8 * min(rows[p]["fcfs"], rows[p]["f1"]) for p in (2, 4)]
    ok.append(rows[6]["fm"] <= min(rows[6]["fcfs"], rows[6]["f1"]))
    ok.append(max(thr, key=thr.__getitem__) <= 8)  # type: ignore[arg-type]
    return all(ok)


#: The paper's claims of the claim-by-rules table, each a function of one view.
CLAIMS: tuple[tuple[str, Claim], ...] = (
    ("H1: FM lowest bsld at limited pools, comparable when ample", fm_lowest),
    ("Fig. 7a: bsld falls as the pool grows", bsld_falls),
    ("Fig. 7b/c: throughput and node utilisation rise, then plateau", throughput_plateaus),
    ("Fig. 7b: FM's throughput near the others' at >= 28 TB/rack", fm_throughput_median),
    ("H2: FM fairest (D, MD, D10, MD10)", fairest),
    ("Fig. 9: rack and system scope alike at 48 TB/rack", scopes_alike),
    ("H3: thr/$ peak at 20-32 TB/rack, >= 1.6x", cost_peak),
    ("H3: memory utilisation 26% -> 69%", memory_use),
    ("H3: degradation mostly < 5%", degradation),
    ("JUWELS (W2): FM ahead at limited pools, thr/$ peak <= 8 TB/rack", juwels),
)
_RULE_SETS = [(r, a) for r in ("code", "easy") for a in ("per_config", "common")]


def _word(ok: bool | None) -> str:
    return {True: "holds", False: "fails", None: "not evaluated"}[ok]


def claim_table(g: Grid) -> tuple[str, list[str], list[list]]:
    """Each claim x ``{code, easy} x {per_config, common}``: holds / fails / not evaluated."""
    body = [
        [name, *(_word(claim(g.view(rules=r, admission=a))) for r, a in _RULE_SETS)]
        for name, claim in CLAIMS
    ]
    return (
        "Claims by modelling rules (warmup_switch=arrival; rules=code is the public simulator's, "
        "easy the former textbook EASY; admission=common runs the jobs A6 admits at 4 TB/rack "
        "at every pool)",
        ["paper's claim", *(f"{r}, {a}" for r, a in _RULE_SETS)],
        body,
    )


# -- the criteria, one function each -------------------------------------------------------


def _margin(v: View) -> str:
    pairs = [(p, v.get(p, "fm", "bsld"), v.get(p, "sjf", "bsld")) for p in v.pools]
    pairs = [(p, fm, sjf) for p, fm, sjf in pairs if fm and sjf]
    if not pairs:
        return "no fm/sjf pair"
    p, fm, sjf = max(pairs, key=lambda x: 1 - x[1] / x[2])
    return f"largest margin below SJF {1 - fm / sjf:.0%} at {p} TB (paper: up to 54%)"


def _c1(g: Grid) -> Criterion:
    v, common = g.view(), g.view(admission="common")
    ours = [
        f"{p} TB: fm {v.get(p, 'fm', 'bsld'):.2f}, best other "
        f"{min(v.get(p, q, 'bsld') or 1e9 for q in BASELINES):.2f}"
        for p in v.pools
        if v.get(p, "fm", "bsld") is not None
    ]
    low, falls = fm_lowest(v), bsld_falls(common)
    return Criterion(
        "C1",
        "FM lowest avg bsld at every pool (up to 54% below SJF); bsld falls with the pool",
        "; ".join(ours) + f"; {_margin(v)}; bsld non-increasing on admission=common: "
        f"{_word(falls)}",
        "rules=code: pool <= 20: fm <= 1.05 x min, <= 0.8 x fcfs and f1; >= 36: <= 1.15 x min; "
        "admission=common: every bsld non-increasing in pool (5% slack)",
        None if low is None or falls is None else low and falls,
    )


def _c2(g: Grid) -> Criterion:
    v, common = g.view(), g.view(admission="common")
    plateau, near = throughput_plateaus(common), fm_throughput_median(v)
    rate = next((c["arrival_rate"] for c in v.t.values() if "arrival_rate" in c), None)
    top = [v.get(p, "fm", "throughput") for p in (40, 44, 48)]
    return Criterion(
        "C2",
        "throughput and node utilisation rise, then plateau; FAIR 5.5, FCFS 4.8 jobs/100 s",
        (f"trace arrival rate {rate:.2f} jobs/100 s; " if rate else "")
        + (f"fm at 40/44/48 TB: {', '.join(f'{x:.2f}' for x in top)}; " if None not in top else "")
        + f"admission=common rise and plateau: {_word(plateau)}; fm near the median at >= 28 "
        f"TB: {_word(near)}",
        "admission=common: non-decreasing in pool (3% slack), 40/44/48 within 3%; per_config: "
        "fm within 10% of the baselines' median at >= 28 TB",
        None if plateau is None or near is None else plateau and near,
    )


def _complete_rows(
    pools: tuple[int, ...],
    row: Callable[[int], dict[str, float | None]],
    line: Callable[[int, dict[str, float]], str],
) -> list[str]:
    """``line(pool, row(pool))`` for each pool whose row has no missing value.

    >>> _complete_rows((1, 2), lambda p: {"x": p if p > 1 else None}, lambda p, r: f"{p}:{r['x']}")
    ['2:2']
    """
    rows = ((pool, row(pool)) for pool in pools)
    return [line(pool, r) for pool, r in rows if None not in r.values()]


def _lowest_md(pool: int, md: dict[str, float]) -> str:
    low = min(md, key=md.__getitem__)
    return f"{pool} TB: MD fm {md['fm']:.3g}, lowest {low} {md[low]:.3g}"


def _c3(g: Grid) -> Criterion:
    v = g.view()
    ours = _complete_rows(
        (16, 32), lambda pool: {p: v.get(pool, p, "MD") for p in (*BASELINES, "fm")}, _lowest_md
    )
    return Criterion(
        "C3",
        "FM fairest (lowest D, MD, D10, MD10)",
        "; ".join(ours) or "16/32 TB not in the grid",
        "rules=code, 16 and 32 TB: fm lowest MD, MD10 within 5% of lowest, D and D10 below "
        "sjf, wfp3, f1",
        fairest(v),
    )


def _c4(g: Grid) -> Criterion:
    v = g.view()
    s48 = v.cell("system48")
    parts = []
    if s48 and "ks_rack" in s48:
        parts.append(
            f"48 TB: KS {s48['ks_rack']:.3f} over {s48['common_jobs']:g} jobs, mean bsld rack "
            f"{s48['bsld_rack_common']:.3f}, system {s48['bsld_common']:.3f}"
        )
    r16 = v.cell("rack16")
    for label, cell in (
        ("system", v.cell("system16")),
        ("system balance", g.view(system_alloc="balance").cell("system16")),
        ("system experiment", g.view(latency_scope="experiment").cell("system16")),
    ):
        if r16 and cell:
            parts.append(
                f"16 TB {label}: p99 {cell['bsld_p99']:.2f} (rack {r16['bsld_p99']:.2f}), wait "
                f"{cell['wait']:.0f} s (rack {r16['wait']:.0f}), deg {cell['degradation']:.3f}"
            )
    return Criterion(
        "C4",
        "rack scope has the shorter bsld tail at 16 TB/rack; similar when pools suffice",
        "; ".join(parts) or "48 TB not in the grid",
        "48 TB/rack: KS(rack, system) <= 0.10 over the jobs both evaluate (per-job values) and "
        "mean bsld within 5% (16 TB/rack reported, no verdict)",
        scopes_alike(v),
    )


def _c5(g: Grid) -> Criterion:
    v = g.view()
    ratio = _thr_ratio(v)
    frac, dollars = savings(perlmutter_like(28).total_gb, FmMachineSpec(6, 256, 512).total_gb)
    jfrac, jdollars = savings(juwels_like(6).total_gb, FmMachineSpec(20, 48, 512).total_gb)
    text = f"savings {frac:.0%}, ${dollars / 1e6:.2f}M (J {jfrac:.1%}, ${jdollars / 1e6:.2f}M)"
    if ratio:
        best = max(ratio, key=ratio.__getitem__)
        base = v.cell("base") or {}
        thr = (v.get(best, "fm", "throughput") or 0) / base.get("throughput", 1)
        text = (
            f"peak at {best} TB = {ratio[best]:.2f}x (paper 2.1x at 28); cost factor "
            f"768/(96 + 6P) = {768 / (96 + 6 * best):.2f}, throughput ratio {thr:.2f}; " + text
        )
    return Criterion(
        "C5",
        "thr/$ peak at 28 TB/rack = 2.1x baseline; 66%, $2.5M (J: 63%, $1.5M) saved",
        text,
        "rules=code: the thr/$ maximum at 20-32 TB/rack and >= 1.6x the baseline",
        cost_peak(v),
    )


def _c6(g: Grid) -> Criterion:
    v = g.view()
    base, m28 = v.cell("base"), v.cell("rack28")
    return Criterion(
        "C6",
        "memory utilisation 26% -> 69% (28 TB/rack)",
        f"baseline {base['memory_utilisation']:.2f}, 28 TB {m28['memory_utilisation']:.2f}"
        if base and m28
        else "not in the grid",
        "baseline 0.20-0.32; 28 TB 0.55-0.85 and > 2x baseline",
        memory_use(v),
    )


def _c7(g: Grid) -> Criterion:
    deg = g.view().cell("rack28")
    return Criterion(
        "C7",
        "88% of jobs < 5% degradation, mean 4.5%, none at 150%",
        f"{deg['deg_below_5']:.2f} below 5%, mean {deg['degradation']:.3f}, "
        f"{deg['deg_at_least_150']:.4f} at >= 150%"
        if deg
        else "not in the grid",
        "fraction < 5% >= 0.70; mean 0.06-0.12; none >= 150%",
        degradation(g.view()),
    )


def _c8(g: Grid) -> Criterion:
    v = g.view()
    got = {p: v.get(p, "fm", "rejected") for p in POOLS}
    have = {p: x for p, x in got.items() if x is not None}
    complete = g.full and len(have) == len(POOLS)
    return Criterion(
        "C8",
        "rejections exact (spec §4.6); deterministic runs",
        ", ".join(f"{p} TB: {x:g}" for p, x in have.items()) or "no pool in the grid",
        "rejected counts equal spec §4.6 at all 12 pools of the whole trace (else not "
        "evaluated; determinism: tests)",
        all(x == REJECTED[p] for p, x in have.items()) if complete else None,
    )


def _c9(g: Grid) -> Criterion:
    v = g.view()
    ours = _complete_rows(
        (2, 4, 6),
        lambda pool: {
            q: (v.cell(f"juwels{pool}", q) or {}).get("bsld") for q in ("fm", "fcfs", "f1")
        },
        lambda pool, r: f"{pool} TB: fm {r['fm']:.2f}, fcfs {r['fcfs']:.2f}, f1 {r['f1']:.2f}",
    )
    jbase = v.cell("jbase")
    thr = {p: (v.cell(f"juwels{p}") or {}).get("thr_per_dollar") for p in range(2, 26, 2)}
    thr = {p: x for p, x in thr.items() if x is not None}
    if thr and jbase:
        best = max(thr, key=thr.__getitem__)
        ours.append(f"thr/$ peak at {best} TB = {thr[best] / jbase['thr_per_dollar']:.2f}x")
    return Criterion(
        "C9",
        "JUWELS: FM lowest at limited pools; thr/$ peak at 6 TB/rack = 2.3x",
        "; ".join(ours) or "W2 not in the grid",
        "W2, rules=code: fm <= 0.8 x fcfs and f1 at 2 and 4 TB/rack, <= min(fcfs, f1) at 6; "
        "thr/$ peak at <= 8",
        juwels(v),
    )


def _c10(g: Grid) -> Criterion:
    peer = g.view(jobs=3000, warmup_switch="none", model="none")
    whole = g.view(jobs=0, warmup_switch="none", model="none")
    ours = {p: {q: m["bsld_all"] for (c, q), m in peer.t.items() if c == f"rack{p}"} for p in PEER}
    pair = {q: (whole.cell("rack48", q) or {}).get("bsld_all") for q in WHOLE_PEER}
    text, passed = compat_check(ours, pair)
    return Criterion(
        "C10",
        "the public simulator (3,000-job prefix at 4/8/12/48 TB/rack; whole trace at 48 TB/rack "
        "FCFS 2.50, fm_code 1.24)",
        text,
        "rules=code, no warm-up, slowdown none: same order where the peer separates two "
        "schedulers by >= 5%, every value within 25%; whole trace within 10%",
        passed,
    )


#: The criteria of spec §8 as amended, one function each, in the report's order.
CRITERIA = (_c1, _c2, _c3, _c4, _c5, _c6, _c7, _c8, _c9, _c10)


def criteria(g: Grid) -> list[Criterion]:
    """C1-C10 on ``g`` (each ``None``, not evaluated, where its cells are missing)."""
    return [c(g) for c in CRITERIA]
