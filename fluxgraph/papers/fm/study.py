"""``fluxgraph reproduce fm``: disaggregated memory, rack pools and FM scheduling (Li et al.).

One cell runs one configuration (``config``: ``rack<TB>``, ``system<TB>``, ``base``, or W2's
``juwels<TB>`` and ``jbase``) with one priority on the Perlmutter trace (spec §3.2) and, for
the fairness measures, the A4 reference run of the same configuration (cached per worker).
``analyse`` checks the criteria of spec §8 the grid covers and draws Fig. 7a. The parameter
``compat: fm-simulator`` runs the public simulator's rules (:mod:`fluxgraph.papers.fm.compat`)
instead of the §4.3 EASY; ``fluxgraph reproduce fm --compat fm-simulator`` runs the specification's
cross-check grid (``fm_compat.yaml``, analysed by :mod:`.fm_compat`). The parameter
``latency_scope`` (``job``, the default, or ``experiment``) is spec §9 D8's latency class
(:class:`~fluxgraph.papers.fm.slowdown.SlowdownModel`). Figures: :mod:`.fm_figures`.

>>> parse_config("rack28"), parse_config("system16"), parse_config("base")
(('rack', 28), ('system', 16), ('nodes', 0))
>>> parse_config("juwels6"), parse_config("jbase")
(('rack', 6), ('nodes', 0))
"""

from __future__ import annotations

import functools
import itertools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion, StudyReport, parameters_text
from fluxgraph.papers.fm.figures import (
    distribution_metrics,
    fm_figures,
    ks_distance,
    percentiles,
)
from fluxgraph.papers.fm.machine import FmMachineSpec, juwels_like, perlmutter_like
from fluxgraph.papers.fm.metrics import TAU, evaluated, fm_metrics, run_fairness, savings
from fluxgraph.papers.fm.priority import FM_PRIORITIES
from fluxgraph.papers.fm.run import FmRun, run_fm
from fluxgraph.papers.fm.slowdown import LATENCY_SCOPES
from fluxgraph.papers.fm.study_compat import PEER, compat_criteria, compat_table
from fluxgraph.papers.fm.workload import map_trace, read_trace

__all__ = [
    "COMPAT",
    "KIND",
    "NAME",
    "PEER",
    "TITLE",
    "YAML",
    "analyse",
    "parse_config",
    "results",
]

NAME = "fm"
TITLE = "Li et al.: disaggregated memory, rack pools and FM scheduling"
YAML = "fm.yaml"
#: ``--compat`` modes: the public simulator's rules on the cross-check grid (spec §7).
COMPAT = {"fm-simulator": "fm_compat.yaml"}
BASELINES = ("fcfs", "sjf", "wfp3", "f1", "fair")
#: Rejected jobs per pool size on the whole trace (spec §4.6).
REJECTED = dict(zip(range(4, 52, 4), (93, 60, 54, 44, 42, 28, 28, 6, 4, 3, 0, 0), strict=True))


def parse_config(text: str) -> tuple[str, int]:
    """``(scope, TB per rack)`` of a ``config`` value (``juwels<TB>``/``jbase``: W2)."""
    if text in ("base", "jbase"):
        return "nodes", 0
    for prefix, scope in (("rack", "rack"), ("system", "system"), ("juwels", "rack")):
        if text.startswith(prefix) and text[len(prefix) :].isdigit():
            return scope, int(text[len(prefix) :])
    raise ExperimentError(
        f"fm: config {text!r} is not rack<TB>, system<TB>, juwels<TB>, base or jbase"
    )


def _w2(config: str) -> bool:
    return config.startswith("j")


def _machine(config: str) -> FmMachineSpec:
    scope, pool = parse_config(config)
    racks, per_rack = (20, 48) if _w2(config) else (6, 256)
    if scope == "nodes":
        return FmMachineSpec(racks, per_rack, 512)
    return juwels_like(pool) if _w2(config) else perlmutter_like(pool)


@functools.lru_cache(maxsize=2)
def _jobs(trace: str, count: int, seed: int, w2: bool) -> tuple:
    jobs = map_trace(read_trace(trace), seed=seed, submit_scale=1.6 if w2 else 1.0)
    return tuple(jobs[:count] if count else jobs)


@functools.lru_cache(maxsize=4)
def _reference(
    trace: str, count: int, seed: int, config: str, model: str, warmup: int, latency: str
) -> FmRun:
    scope = parse_config(config)[0]
    jobs = _jobs(trace, count, seed, _w2(config))
    machine = _machine(config)
    return run_fm(
        jobs, machine, scope, model=model, warmup=warmup, reference=True, latency_scope=latency
    )


def measure(params: dict[str, Any], trace: str) -> dict[str, float]:
    """Metrics of one cell (spec §6), fairness against the cached reference run."""
    count, seed, warmup = int(params["jobs"]), int(params["seed"]), int(params["warmup"])
    config, model = params["config"], params["model"]
    scope = parse_config(config)[0]
    jobs = _jobs(trace, count, seed, _w2(config))
    started = time.process_time()
    compat = params.get("compat", "")
    latency = params.get("latency_scope", "job")
    run = run_fm(
        jobs,
        _machine(config),
        scope,
        params["priority"],
        model,
        warmup,
        compat=compat,
        latency_scope=latency,
    )
    cpu = time.process_time() - started
    m = fm_metrics(run, warmup)
    reference = _reference(trace, count, seed, config, model, warmup, latency)
    fair = run_fairness(run, reference, warmup, 10)
    bslds = sorted(
        max((r.end - r.job.submit) / max(r.job.extra["d"], TAU), 1.0)
        for r in evaluated(run, warmup)
    )
    done = [r for r in run.result.jobs if not r.rejected]
    out = {
        "bsld": m.bsld,
        "bsld_code": m.bsld_code,
        "bsld_p99": bslds[min(len(bslds) - 1, int(0.99 * len(bslds)))],
        "wait": m.wait,
        "max_wait": m.max_wait,
        "throughput": m.throughput,
        "node_utilisation": m.node_utilisation,
        "memory_utilisation": m.memory_utilisation,
        "degradation": m.degradation,
        "deg_below_5": m.deg_below_5,
        "deg_at_least_150": m.deg_at_least_150,
        "thr_per_dollar": m.thr_per_dollar,
        "total_gb": m.total_gb,
        "rejected": m.rejected,
        "evaluated": m.jobs,
        "D": fair["D"],
        "MD": fair["MD"],
        "D10": fair["D_x"],
        "MD10": fair["MD_x"],
        "bsld_all": sum(map(_bsld_code, done)) / len(done),
        "run_cpu_s": cpu,
    }
    if params["priority"] == "fm":
        out.update(distribution_metrics(bslds, m.memory_histogram, m.degradation_histogram))
    return out


def _bsld_code(r) -> float:
    """The public simulator's bounded slowdown (stretched runtime in the denominator)."""
    return max((r.end - r.job.submit) / max(r.end - r.start, TAU), 1.0)


def _run(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    trace = ctx.path(params["trace"])
    if not trace.exists():
        raise ExperimentError(f"fm: trace {trace} not found (spec §3.2: perlmutter-fm-jobs.csv)")
    return measure(params, str(trace))


KIND = Kind(
    "fm",
    _run,
    {
        "trace": {"type": "string", "minLength": 1},
        "config": {
            "type": "string",
            "pattern": "^(rack[0-9]+|system[0-9]+|juwels[0-9]+|base|jbase)$",
        },
        "priority": {"enum": list(FM_PRIORITIES)},
        "jobs": {"type": "integer", "minimum": 0},
        "warmup": {"type": "integer", "minimum": 0},
        "model": {"enum": ["paper", "none", "code"]},
        "seed": {"type": "integer", "minimum": 0},
        "compat": {"enum": ["", "fm-simulator"]},
        "latency_scope": {"enum": list(LATENCY_SCOPES)},
    },
    required=("trace", "config", "priority"),
)


def results(rows: list[CellRow]) -> list[list[Any]]:
    """The long rows of ``results.csv`` (experiment E1 for the rack sweep, E3 otherwise)."""
    out = []
    for r in rows:
        config = r.params["config"]
        exp = "E1J" if _w2(config) else "E1" if config.startswith("rack") else "E3"
        params = parameters_text(r.params, skip=("priority", "trace"))
        for metric, value in sorted(r.metrics.items()):
            out.append([exp, r.params["priority"], params, metric, value])
    return out


def _table(rows: list[CellRow]) -> dict[tuple[str, str], dict[str, float]]:
    return {
        (r.params["config"], r.params["priority"]): dict(r.metrics)
        for r in rows
        if r.status == "done"
    }


def _percent(fraction: float) -> int:
    """A fraction as a whole percent, halves up (J saves 62.5% = the paper's 63%)."""
    return int(fraction * 100 + 0.5 + 1e-9)


@dataclass(frozen=True)
class _Grid:
    """The cells as ``(config, priority) -> metrics``, the rack pools (TB/rack) in the grid, and
    whether the grid is the full one (C8 reads the whole trace only)."""

    t: dict
    pools: list[int]
    full: bool

    def get(self, pool: int, prio: str, metric: str) -> float | None:
        """``metric`` of ``prio`` at ``pool`` TB/rack (rack scope), or None."""
        return self.t.get((f"rack{pool}", prio), {}).get(metric)


def _c1_bsld(g: _Grid) -> Criterion:
    """C1: FM has the lowest mean bounded slowdown at every pool; bsld falls with the pool."""
    checks, ours = [], []
    for pool in g.pools:
        fm = g.get(pool, "fm", "bsld")
        base = [g.get(pool, p, "bsld") for p in BASELINES]
        if fm is None or None in base:
            continue
        low = min(base)
        ours.append(f"{pool} TB: fm {fm:.2f}, best other {low:.2f}")
        if pool <= 20:
            checks.append(fm <= 1.05 * low and fm <= 0.8 * base[0] and fm <= 0.8 * base[3])
        elif pool >= 36:
            checks.append(fm <= 1.15 * low)
    for prio in (*BASELINES, "fm"):
        ys = [g.get(p, prio, "bsld") for p in g.pools]
        if len(ys) > 1 and None not in ys:
            checks.append(all(b <= 1.05 * a for a, b in itertools.pairwise(ys)))
    return Criterion(
        "C1",
        "FM lowest avg bsld at every pool (up to 54% below SJF)",
        "; ".join(ours),
        "pool <= 20: fm <= 1.05 x min, <= 0.8 x fcfs and f1; >= 36: <= 1.15 x min; "
        "every bsld non-increasing in pool (5% slack)",
        all(checks) if checks else None,
    )


def _c2_throughput(g: _Grid) -> Criterion:
    """C2: throughput and node utilisation rise with the pool, then plateau."""
    checks, ours = [], []
    for prio in (*BASELINES, "fm"):
        for metric in ("throughput", "node_utilisation"):
            ys = [g.get(p, prio, metric) for p in g.pools]
            if None in ys or len(ys) < 2:
                continue
            checks.append(all(b >= 0.97 * a for a, b in itertools.pairwise(ys)))
            tail = [g.get(p, prio, metric) for p in (40, 44, 48)]
            if None not in tail:
                checks.append(max(tail) <= 1.03 * min(tail))
    for pool in (p for p in g.pools if p >= 28):
        others = sorted(g.get(pool, p, "throughput") or 0 for p in BASELINES)
        fm = g.get(pool, "fm", "throughput")
        if fm is not None and others[0]:
            median = others[len(others) // 2]
            checks.append(abs(fm - median) <= 0.10 * median)
            ours.append(f"{pool} TB: fm {fm:.2f}, median {median:.2f} jobs/100 s")
    return Criterion(
        "C2",
        "throughput and node utilisation rise, then plateau; FAIR 5.5, FCFS 4.8 jobs/100 s",
        "; ".join(ours) or "-",
        "non-decreasing in pool (3% slack), 40/44/48 within 3%, fm within 10% of the "
        "median of the baselines at >= 28 TB",
        all(checks) if checks else None,
    )


def _c3_fairness(g: _Grid) -> Criterion:
    """C3: FM is the fairest (lowest D, MD, D10, MD10) at 16 and 32 TB/rack."""
    checks, ours = [], []
    for pool in (16, 32):
        md = {p: g.get(pool, p, "MD") for p in (*BASELINES, "fm")}
        if None in md.values():
            continue
        d = {p: g.get(pool, p, "D") for p in md}
        d10 = {p: g.get(pool, p, "D10") for p in md}
        md10 = {p: g.get(pool, p, "MD10") for p in md}
        ours.append(f"{pool} TB: MD fm {md['fm']:.3g} vs min {min(md.values()):.3g}")
        lowest10 = min(md10.values())
        checks.append(
            md["fm"] == min(md.values())
            and md10["fm"] <= lowest10 + 0.05 * abs(lowest10)
            and all(d["fm"] < d[p] and d10["fm"] < d10[p] for p in ("sjf", "wfp3", "f1"))
        )
    return Criterion(
        "C3",
        "FM fairest (lowest D, MD, D10, MD10)",
        "; ".join(ours) or "16/32 TB not in the grid",
        "16 and 32 TB: fm lowest MD, MD10 within 5% of lowest, D and D10 below sjf, wfp3, f1",
        all(checks) if checks else None,
    )


def _c4_scope_tail(g: _Grid) -> Criterion:
    """C4: the rack scope has the shorter bsld tail at 16 TB/rack, and the two scopes' bsld
    distributions are alike at 48 TB/rack."""
    ks = None
    q48 = [percentiles(g.t.get((c, "fm"), {})) for c in ("rack48", "system48")]
    if None not in q48:
        ks = ks_distance(q48[0], q48[1])
    s16, r16 = g.t.get(("system16", "fm")), g.t.get(("rack16", "fm"))
    parts = [f"48 TB: KS {ks:.3f}" if ks is not None else "48 TB: not in the grid"]
    if s16 and r16:
        parts.append(
            f"16 TB: p99 bsld rack {r16['bsld_p99']:.2f}, system {s16['bsld_p99']:.2f} "
            f"(wait {r16['wait']:.0f} / {s16['wait']:.0f} s, deg {r16['degradation']:.3f} / "
            f"{s16['degradation']:.3f})"
        )
    checks = [ks <= 0.05] if ks is not None else []
    if s16 and r16:
        checks.append(r16["bsld_p99"] <= s16["bsld_p99"])
    return Criterion(
        "C4",
        "rack scope has the shorter bsld tail at 16 TB/rack; similar when pools suffice",
        "; ".join(parts),
        "KS(rack, system) <= 0.05 at 48 TB/rack (from 1% percentiles); p99 bsld(rack) "
        "<= p99 bsld(system) at 16 TB/rack",
        all(checks) if checks else None,
    )


def _c5_cost(g: _Grid) -> Criterion:
    """C5: throughput per dollar peaks near 28 TB/rack; the memory savings arithmetic."""
    base = g.t.get(("base", "fm"))
    ratio = {p: g.get(p, "fm", "thr_per_dollar") for p in g.pools}
    ratio = {p: v / base["thr_per_dollar"] for p, v in ratio.items() if v and base}
    frac, dollars = savings(perlmutter_like(28).total_gb, FmMachineSpec(6, 256, 512).total_gb)
    jfrac, jdollars = savings(juwels_like(6).total_gb, FmMachineSpec(20, 48, 512).total_gb)
    pct, jpct = _percent(frac), _percent(jfrac)
    arithmetic = (
        pct == 66
        and round(dollars / 1e6, 2) == 2.53
        and jpct == 63
        and round(jdollars / 1e6, 2) == 1.51
    )
    best = max(ratio, key=ratio.__getitem__) if ratio else None
    return Criterion(
        "C5",
        "thr/$ peak at 28 TB/rack = 2.1x baseline; 66%, $2.5M (J: 63%, $1.5M) saved",
        (f"peak at {best} TB = {ratio[best]:.2f}x" if best else "no baseline in the grid")
        + f"; savings {pct}%, ${dollars / 1e6:.2f}M (J {jpct}%, ${jdollars / 1e6:.2f}M)",
        "peak at 20-32 TB/rack, 1.6-3.0x baseline; savings 66%, $2.53M and 63%, $1.51M",
        (20 <= best <= 32 and 1.6 <= ratio[best] <= 3.0 and arithmetic) if best else None,
    )


def _c6_memory(g: _Grid) -> Criterion:
    """C6: memory utilisation from the baseline (no pools) to 28 TB/rack."""
    base = g.t.get(("base", "fm"))
    m28 = g.get(28, "fm", "memory_utilisation")
    covered = base is not None and m28 is not None
    b = base["memory_utilisation"] if base else None
    return Criterion(
        "C6",
        "memory utilisation 26% -> 69% (28 TB/rack)",
        f"baseline {b:.2f}, 28 TB {m28:.2f}" if covered else "not in the grid",
        "baseline 0.20-0.32; 28 TB 0.55-0.85 and > 2x baseline",
        (0.20 <= b <= 0.32 and 0.55 <= m28 <= 0.85 and m28 > 2 * b) if covered else None,
    )


def _c7_degradation(g: _Grid) -> Criterion:
    """C7: the remote-memory degradation of FM's jobs at 28 TB/rack."""
    deg = g.t.get(("rack28", "fm"))
    return Criterion(
        "C7",
        "88% of jobs < 5% degradation, mean 4.5%, none at 150%",
        f"{deg['deg_below_5']:.2f} below 5%, mean {deg['degradation']:.3f}, "
        f"{deg['deg_at_least_150']:.4f} at >= 150%"
        if deg
        else "not in the grid",
        "fraction < 5% >= 0.70; mean 0.06-0.12; none >= 150%",
        deg["deg_below_5"] >= 0.70
        and 0.06 <= deg["degradation"] <= 0.12
        and deg["deg_at_least_150"] == 0
        if deg
        else None,
    )


def _c8_rejections(g: _Grid) -> Criterion:
    """C8: the rejected counts of spec §4.6 on the whole trace."""
    got = {p: g.get(p, "fm", "rejected") for p in g.pools}
    wrong = [p for p, v in got.items() if v is not None and v != REJECTED[p]]
    return Criterion(
        "C8",
        "rejections exact (spec §4.6); deterministic runs",
        ", ".join(f"{p} TB: {v:g}" for p, v in got.items() if v is not None),
        "rejected counts equal spec §4.6 on the whole trace (determinism: tests)",
        not wrong if g.full else None,
    )


def _c9_juwels(g: _Grid) -> Criterion:
    """C9 (W2): on JUWELS, FM lowest at limited pools; thr/$ peaks at a small pool."""
    jpools = sorted({parse_config(c)[1] for c, _ in g.t if c.startswith("juwels")})
    jbase = g.t.get(("jbase", "fm"))
    checks, ours = [], []
    for pool in (p for p in jpools if p <= 6):
        row = {p: g.t.get((f"juwels{pool}", p), {}).get("bsld") for p in ("fm", "fcfs", "f1")}
        if None not in row.values():
            ours.append(
                f"{pool} TB: fm {row['fm']:.2f}, fcfs {row['fcfs']:.2f}, f1 {row['f1']:.2f}"
            )
            checks.append(row["fm"] <= 0.8 * row["fcfs"] and row["fm"] <= 0.8 * row["f1"])
    thr = {p: g.t.get((f"juwels{p}", "fm"), {}).get("thr_per_dollar") for p in jpools}
    thr = {p: v for p, v in thr.items() if v is not None}
    if thr and jbase:
        best = max(thr, key=thr.__getitem__)
        ours.append(f"thr/$ peak at {best} TB = {thr[best] / jbase['thr_per_dollar']:.2f}x")
        checks.append(best <= 8)
    return Criterion(
        "C9",
        "JUWELS: FM lowest at limited pools; thr/$ peak at 6 TB/rack = 2.3x",
        "; ".join(ours) or "W2 not in the grid",
        "W2: fm <= 0.8 x fcfs and f1 at every pool <= 6 TB/rack; thr/$ peak at <= 8",
        all(checks) if checks else None,
    )


#: The criteria of spec §8, one function each, in the report's order.
CRITERIA = (
    _c1_bsld,
    _c2_throughput,
    _c3_fairness,
    _c4_scope_tail,
    _c5_cost,
    _c6_memory,
    _c7_degradation,
    _c8_rejections,
    _c9_juwels,
)


def _criteria(t: dict, pools: list[int], full: bool) -> list[Criterion]:
    grid = _Grid(t, pools, full)
    return [criterion(grid) for criterion in CRITERIA]


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """Criteria C1-C9 (each a row, "not evaluated" where the grid does not cover it), the E1
    and E3 tables and the figures; for a ``--compat fm-simulator`` grid, the cross-check."""
    if any(r.params.get("compat") for r in rows):
        return _analyse_compat(rows)
    t = _table(rows)
    pools = sorted({parse_config(c)[1] for c, _ in t if c.startswith("rack")})
    full = not quick and not any(r.params.get("jobs") for r in rows)
    report = StudyReport(TITLE, _criteria(t, pools, full))
    for metric in ("bsld", "bsld_code", "wait", "throughput", "node_utilisation", "MD"):
        body = [
            [pool] + [t.get((f"rack{pool}", p), {}).get(metric) for p in FM_PRIORITIES]
            for pool in pools
        ]
        report.tables.append((f"E1: {metric} by TB/rack", ["TB/rack", *FM_PRIORITIES], body))
    e3 = [
        [c, *(t.get((c, "fm"), {}).get(m) for m in ("bsld", "bsld_p99", "wait", "degradation"))]
        for c in ("rack16", "system16", "rack48", "system48", "base")
    ]
    report.tables.append(("E3: FM by scope", ["config", "bsld", "p99", "wait", "deg"], e3))
    figures, notes = fm_figures(t, pools, out)
    report.figures += figures
    report.notes += notes
    if quick:
        report.notes.append(
            "Quick grid: the first 1,000 jobs (warm-up 200) at a few pool sizes; the criteria "
            "are stated for the whole trace (spec §8), so quick results only show the shape."
        )
    return report


def _analyse_compat(rows: list[CellRow]) -> StudyReport:
    """The ``--compat fm-simulator`` report: our bsld beside the public simulator's."""
    ours: dict[int, dict[str, float]] = {}
    cpu: dict[int, dict[str, float]] = {}
    for r in rows:
        if r.status != "done" or not r.params["config"].startswith("rack"):
            continue
        pool = parse_config(r.params["config"])[1]
        ours.setdefault(pool, {})[r.params["priority"]] = r.metrics["bsld_all"]
        cpu.setdefault(pool, {})[r.params["priority"]] = round(r.metrics["run_cpu_s"], 1)
    jobs = {r.params.get("jobs") for r in rows}
    criteria = compat_criteria(ours, judged=jobs == {3000})
    report = StudyReport(TITLE + " (--compat fm-simulator)", criteria)
    report.tables.append(compat_table(ours, cpu))
    if jobs != {3000}:
        report.notes.append(
            f"jobs = {sorted(jobs)}: the public simulator's numbers are for the first 3,000 "
            "jobs, so the criteria are shown without a verdict."
        )
    report.notes.append(
        "The public simulator's rules (fluxgraph.papers.fm.compat): a pass every second, one "
        "job per step, counts-only EASY with one candidate, submit drift of memory-blocked "
        "jobs; no warm-up, slowdown none; mean bsld over all completed jobs with the "
        "stretched runtime in the denominator."
    )
    return report
