"""``fluxgraph reproduce fm``: disaggregated memory, rack pools and FM scheduling (Li et al.).

One cell runs one configuration (``config``: ``rack<TB>``, ``system<TB>``, ``base``, or W2's
``juwels<TB>`` and ``jbase``) with one priority on the Perlmutter trace (spec §3.2) and, for
the fairness measures, the A4 reference run of the same configuration (cached per worker); a
system-scope cell also runs its rack-scope twin for C4's per-job KS distance. The options of
the specification's amendment of 2026-11-28 are cell parameters, shown in every report row:
``rules`` (``code``, the public simulator's, or ``easy``), ``warmup_switch``
(``arrival``/``started``/``none``), ``admission`` (``per_config``, or ``common``: the jobs A6
admits at the sweep's smallest pool, 4 TB/rack on P and 2 on W2, at every pool and for the
baseline), ``system_alloc`` (``local_first``/``balance``) and ``latency_scope`` (§9 D8).
``analyse`` judges C1-C10 (:mod:`.criteria`), puts the claim-by-rules table and the "Does not
reproduce" section first and draws the figures (:mod:`.figures`). ``fluxgraph reproduce fm
--compat fm-simulator`` runs C10's cells alone (``fm_compat.yaml``).

>>> parse_config("rack28"), parse_config("system16"), parse_config("base")
(('rack', 28), ('system', 16), ('nodes', 0))
>>> parse_config("juwels6"), parse_config("jbase")
(('rack', 6), ('nodes', 0))
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.kinds import CellContext, Kind
from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import StudyReport, parameters_text
from fluxgraph.papers.fm.allocator import SYSTEM_ALLOCS
from fluxgraph.papers.fm.criteria import BASELINES, OPTIONS, Grid, claim_table, criteria, option_key
from fluxgraph.papers.fm.figures import distribution_metrics, fm_figures, ks_distance
from fluxgraph.papers.fm.machine import FmMachineSpec, juwels_like, perlmutter_like
from fluxgraph.papers.fm.metrics import TAU, evaluated, fm_metrics, run_fairness
from fluxgraph.papers.fm.passes import WARMUP_SWITCHES
from fluxgraph.papers.fm.priority import FM_PRIORITIES
from fluxgraph.papers.fm.run import RULES, FmRun, run_fm
from fluxgraph.papers.fm.slowdown import LATENCY_SCOPES
from fluxgraph.papers.fm.study_compat import PEER, WHOLE_PEER_CPU, compat_table
from fluxgraph.papers.fm.study_report import does_not_reproduce, option_tables
from fluxgraph.papers.fm.workload import map_trace, read_trace

__all__ = [
    "BASELINES",
    "COMPAT",
    "KIND",
    "NAME",
    "PEER",
    "TITLE",
    "YAML",
    "analyse",
    "grid",
    "measure",
    "parse_config",
    "results",
]

NAME = "fm"
TITLE = "Li et al.: disaggregated memory, rack pools and FM scheduling"
YAML = "fm.yaml"
#: ``--compat`` modes: C10's cells alone, the public simulator's runs (spec §7).
COMPAT = {"fm-simulator": "fm_compat.yaml"}
#: The sweep's smallest pool (TB/rack): ``admission=common`` admits what A6 admits there.
SMALLEST = {"P": 4, "J": 2}


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


def _admit_on(config: str, admission: str) -> FmMachineSpec | None:
    if admission == "per_config":
        return None
    return juwels_like(SMALLEST["J"]) if _w2(config) else perlmutter_like(SMALLEST["P"])


@functools.lru_cache(maxsize=2)
def _jobs(trace: str, count: int, seed: int, w2: bool) -> tuple:
    jobs = map_trace(read_trace(trace), seed=seed, submit_scale=1.6 if w2 else 1.0)
    return tuple(jobs[:count] if count else jobs)


@functools.lru_cache(maxsize=8)
def _run(trace: str, config: str, priority: str, reference: bool, key: tuple) -> FmRun:
    """One run, cached per worker (the reference runs and the rack twins are shared)."""
    opts = dict(key)
    jobs = _jobs(trace, opts["jobs"], opts["seed"], _w2(config))
    return run_fm(
        jobs,
        _machine(config),
        parse_config(config)[0],
        priority,
        opts["model"],
        opts["warmup"],
        reference=reference,
        rules=opts["rules"],
        latency_scope=opts["latency_scope"],
        warmup_switch=opts["warmup_switch"],
        system_alloc=opts["system_alloc"],
        admit_on=_admit_on(config, opts["admission"]),
    )


def _bslds(run: FmRun) -> dict[int, float]:
    return {
        r.job.id: max((r.end - r.job.submit) / max(r.job.extra["d"], TAU), 1.0)
        for r in evaluated(run)
    }


def _scope_twin(trace: str, config: str, key: tuple, run: FmRun) -> dict[str, float]:
    """C4: per-job bsld of a system-scope run against its rack-scope twin, over the jobs both
    evaluate: the KS distance and both means."""
    twin = _run(trace, "rack" + config[len("system") :], "fm", False, key)
    ours, theirs = _bslds(run), _bslds(twin)
    both = sorted(ours.keys() & theirs.keys())
    if not both:
        return {}
    a, b = [ours[i] for i in both], [theirs[i] for i in both]
    return {
        "ks_rack": ks_distance(a, b),
        "bsld_common": sum(a) / len(a),
        "bsld_rack_common": sum(b) / len(b),
        "common_jobs": len(both),
    }


def measure(params: dict[str, Any], trace: str) -> dict[str, float]:
    """Metrics of one cell (spec §6), fairness against the cached reference run."""
    opts = {k: params.get(k, v) for k, v in OPTIONS.items()}
    opts.update(jobs=int(params["jobs"]), seed=int(params["seed"]), warmup=int(params["warmup"]))
    key = tuple(sorted(opts.items()))
    config, priority = params["config"], params["priority"]
    started = time.process_time()
    run = _run.__wrapped__(trace, config, priority, False, key)
    cpu = time.process_time() - started
    done = [r for r in run.result.jobs if not r.rejected]
    bsld_all = sum(map(_bsld_code, done)) / len(done)
    if not evaluated(run):  # C10's 3,000-job prefix: every job is a warm-up job
        return {
            "bsld_all": bsld_all,
            "rejected": len(run.result.jobs) - len(done),
            "run_cpu_s": cpu,
        }
    m = fm_metrics(run)
    bslds = sorted(_bslds(run).values())
    submits = [r.job.submit for r in run.result.jobs] + [j.submit for j in run.excluded]
    span = max(submits) - min(submits)
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
        "rejected_node_share": m.rejected_node_share,
        "rejected_pool_share": m.rejected_pool_share,
        "evaluated": m.jobs,
        "t_switch": m.t_switch,
        "arrival_rate": len(submits) / span * 100 if span else 0.0,
        "bsld_all": bsld_all,
        "run_cpu_s": cpu,
    }
    if params.get("fairness", True):
        # the reference run (strict FCFS for the whole trace) ignores the rules and the switch
        ref_key = tuple(sorted({**opts, "rules": "code", "warmup_switch": "arrival"}.items()))
        fair = run_fairness(run, _run(trace, config, "fcfs", True, ref_key), 10)
        out.update(D=fair["D"], MD=fair["MD"], D10=fair["D_x"], MD10=fair["MD_x"])
    if priority == "fm":
        out.update(distribution_metrics(bslds, m.memory_histogram, m.degradation_histogram))
        if config.startswith("system"):
            out.update(_scope_twin(trace, config, key, run))
    return out


def _bsld_code(r) -> float:
    """The public simulator's bounded slowdown (stretched runtime in the denominator)."""
    return max((r.end - r.job.submit) / max(r.end - r.start, TAU), 1.0)


def _cell(params: dict[str, Any], ctx: CellContext) -> dict[str, float]:
    trace = ctx.path(params["trace"])
    if not trace.exists():
        raise ExperimentError(f"fm: trace {trace} not found (spec §3.2: perlmutter-fm-jobs.csv)")
    return measure(params, str(trace))


KIND = Kind(
    "fm",
    _cell,
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
        "rules": {"enum": list(RULES)},
        "admission": {"enum": ["per_config", "common"]},
        "warmup_switch": {"enum": list(WARMUP_SWITCHES)},
        "system_alloc": {"enum": list(SYSTEM_ALLOCS)},
        "latency_scope": {"enum": list(LATENCY_SCOPES)},
        "fairness": {"type": "boolean"},
    },
    required=("trace", "config", "priority", "jobs", "warmup", "seed"),
)


def results(rows: list[CellRow]) -> list[list[Any]]:
    """The long rows of ``results.csv`` (E1 for the rack sweep, E1J for W2, E3 otherwise);
    the parameters column names every option."""
    out = []
    for r in rows:
        config = r.params["config"]
        exp = "E1J" if _w2(config) else "E1" if config.startswith("rack") else "E3"
        params = parameters_text({**OPTIONS, **r.params}, skip=("priority", "trace"))
        for metric, value in sorted(r.metrics.items()):
            out.append([exp, r.params["priority"], params, metric, value])
    return out


def grid(rows: list[CellRow], quick: bool) -> Grid:
    """The done cells of ``rows`` as a :class:`~.criteria.Grid`."""
    cells = {
        (r.params["config"], r.params["priority"], option_key(r.params)): dict(r.metrics)
        for r in rows
        if r.status == "done"
    }
    model = list(OPTIONS).index("model")
    main = [k[-1] for _, _, k in cells if k[model] == "paper"]  # C10's cells run model none
    jobs = max(set(main), key=main.count) if main else 0
    return Grid(cells, jobs, full=not quick and jobs == 0)


def analyse(rows: list[CellRow], out: Path, quick: bool) -> StudyReport:
    """C1-C10 (each a row, "not evaluated" where the grid lacks its cells), the claim-by-rules
    table and "Does not reproduce" first, then the tables of every option set and the figures."""
    g = grid(rows, quick)
    model_at = list(OPTIONS).index("model")
    report = StudyReport(TITLE, criteria(g))
    if rows and not g.cells:
        report.notes.append(
            f"All {len(rows)} cells failed: nothing was measured and no criterion is evaluated "
            "(`fluxgraph report DIR --failed` shows why)."
        )
    report.lead.append(claim_table(g))
    report.tables.append(does_not_reproduce(g))
    report.tables += option_tables(g)
    prefixes = sorted({k[-1] for _, _, k in g.cells if k[-1] and k[model_at] == "none"})
    prefix = 3000 if 3000 in prefixes or not prefixes else prefixes[0]  # quick: 600 jobs
    peer = g.view(jobs=prefix, warmup_switch="none", model="none")
    ours = {p: {} for p in PEER}
    cpu: dict[int, dict[str, float]] = {p: {} for p in PEER}
    for (config, prio), m in peer.t.items():
        pool = parse_config(config)[1]
        if pool in PEER:
            ours[pool][prio] = m["bsld_all"]
            cpu[pool][prio] = round(m["run_cpu_s"], 1)
    report.tables.append(compat_table(ours, cpu, prefix))
    whole = g.view(jobs=0, warmup_switch="none", model="none")
    report.tables.append(_whole_speed(whole))
    figures, notes = fm_figures(g.view().t, g.view().pools, out)
    report.figures += figures
    report.notes += notes
    report.notes.append(
        "C3's MD = D - B = sum over E of (evaluated wait - reference wait) = |E| x (mean wait "
        "- mean reference wait): it ranks the schedulers by mean wait (spec §6.4)."
    )
    if quick:
        report.notes.append(
            "Quick grid: the first 1,000 jobs (warm-up 200) at a few pool sizes; the criteria "
            "are stated for the whole trace, so they are not evaluated where their pools are "
            "missing and quick results only show the shape."
        )
    return report


def _whole_speed(whole) -> tuple[str, list[str], list[list]]:
    body = []
    for prio, peer_cpu in WHOLE_PEER_CPU.items():
        cell = whole.cell("rack48", prio) or {}
        sec = cell.get("run_cpu_s")
        body.append(
            [prio, cell.get("bsld_all"), peer_cpu, sec, f"{peer_cpu / sec:.0f}x" if sec else None]
        )
    return (
        "C10: whole trace at 48 TB/rack, rules=code, no warm-up, slowdown none (peer CPU s)",
        ["scheduler", "bsld (all jobs)", "peer CPU s", "ours CPU s", "speed ratio"],
        body,
    )
