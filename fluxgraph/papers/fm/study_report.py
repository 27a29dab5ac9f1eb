"""The FM report's tables beside the criteria: every option set's rows, and "Does not reproduce".

Every row names its options (the table title or an ``options`` column) and every pool row its
rejected jobs with their shares of the trace's node-seconds and pool demand (spec amendment of
2026-11-28). The "Does not reproduce" section states, as results, what the paper claims and the
grid does not show, with the measured mechanism.

>>> from fluxgraph.papers.fm.criteria import Grid
>>> title, head, body = does_not_reproduce(Grid({}, jobs=0, full=False))
>>> [row[2] for row in body] == ["not in the grid"] * 4
True
"""

from __future__ import annotations

import itertools

from fluxgraph.papers.fm.criteria import BASELINES, POOLS, Grid, View
from fluxgraph.papers.fm.priority import FM_PRIORITIES

__all__ = ["does_not_reproduce", "option_tables"]

Table = tuple[str, list[str], list[list]]
_SIX = (*BASELINES, "fm")
_REJECTED = ["rejected", "rejected node-s share", "rejected pool share"]


def _rejected(v: View, pool: int) -> list:
    cell = v.cell(f"rack{pool}") or {}
    return [cell.get("rejected"), cell.get("rejected_node_share"), cell.get("rejected_pool_share")]


def _pool_table(v: View, metric: str, prios: tuple[str, ...]) -> Table | None:
    if not v.pools:
        return None
    body = [[p, *(v.get(p, q, metric) for q in prios), *_rejected(v, p)] for p in v.pools]
    return (f"E1 ({v.label}): {metric} by TB/rack", ["TB/rack", *prios, *_REJECTED], body)


def option_tables(g: Grid) -> list[Table]:
    """The E1 tables of the default options and of each ablation, the former warm-up switch at
    28/32 TB/rack, FM by scope (E3) and W2 (E1J)."""
    tables: list[Table | None] = []
    main = g.view()
    for metric in ("bsld", "bsld_code", "wait", "throughput", "node_utilisation", "MD"):
        tables.append(_pool_table(main, metric, FM_PRIORITIES))
    for options, metrics in (
        ({"rules": "easy"}, ("bsld", "throughput")),
        ({"admission": "common"}, ("bsld", "throughput", "node_utilisation")),
        ({"rules": "easy", "admission": "common"}, ("bsld", "throughput")),
    ):
        for metric in metrics:
            tables.append(_pool_table(g.view(**options), metric, _SIX))
    switch = []
    for rules in ("code", "easy"):
        for warm in ("arrival", "started"):
            v = g.view(rules=rules, warmup_switch=warm)
            for pool in (28, 32):
                for prio in ("sjf", "fm"):
                    cell = v.cell(f"rack{pool}", prio)
                    if cell:
                        switch.append(
                            [v.label, pool, prio, cell["bsld"], cell["t_switch"], cell["wait"]]
                        )
    if switch:
        tables.append(
            (
                "The warm-up switch at 28 and 32 TB/rack (arrival: the paper's code; started: "
                "the former spec §9 D12)",
                ["options", "TB/rack", "priority", "bsld", "t_switch s", "mean wait s"],
                switch,
            )
        )
    e3 = []
    for config, v in (
        ("rack16", main),
        ("system16", main),
        ("system16", g.view(system_alloc="balance")),
        ("system16", g.view(latency_scope="experiment")),
        ("rack48", main),
        ("system48", main),
        ("base", main),
    ):
        cell = v.cell(config)
        if cell:
            e3.append(
                [
                    config,
                    v.label,
                    cell["bsld"],
                    cell["bsld_p99"],
                    cell["wait"],
                    cell["degradation"],
                    cell.get("ks_rack"),
                ]
            )
    tables.append(
        (
            "E3: FM by scope",
            ["config", "options", "bsld", "p99", "wait s", "mean deg", "KS vs rack (per job)"],
            e3,
        )
    )
    jpools = sorted({int(c[6:]) for c, _ in main.t if c.startswith("juwels")})
    if jpools:
        body = [
            [p, *((main.cell(f"juwels{p}", q) or {}).get("bsld") for q in _SIX)] for p in jpools
        ]
        tables.append((f"E1J (W2, {main.label}): bsld by TB/rack", ["TB/rack", *_SIX], body))
    return [t for t in tables if t is not None]


def _sjf_versus_fm(v: View) -> tuple[list[int], list[int]] | None:
    """The pools (of those with both cells) where SJF's bsld is below FM's, and those pools."""
    pairs = [(p, v.get(p, "fm", "bsld"), v.get(p, "sjf", "bsld")) for p in POOLS]
    pairs = [(p, fm, sjf) for p, fm, sjf in pairs if fm is not None and sjf is not None]
    if not pairs:
        return None
    return [p for p, fm, sjf in pairs if sjf < fm], [p for p, _, _ in pairs]


def _rises(v: View) -> list[str] | None:
    """FM's bsld steps up by more than 5% between neighbouring pools of the view."""
    ys = [(p, v.get(p, "fm", "bsld")) for p in v.pools if v.get(p, "fm", "bsld") is not None]
    if len(ys) < 2:
        return None
    return [
        f"{a} -> {b} TB: {x:.2f} -> {y:.2f} (rejected {_rejected(v, a)[0]:g} -> "
        f"{_rejected(v, b)[0]:g})"
        for (a, x), (b, y) in itertools.pairwise(ys)
        if y > 1.05 * x  # type: ignore[operator]
    ]


def _pools(ps: list[int]) -> str:
    return ", ".join(map(str, ps)) or "none"


def does_not_reproduce(g: Grid) -> Table:
    """What the paper claims and the grid does not show, each with the measured mechanism."""
    main, easy = g.view(), g.view(rules="easy")
    rows = []
    parts, behind = [], {}
    for label, found in (
        ("rules=easy", _sjf_versus_fm(easy)),
        ("rules=code", _sjf_versus_fm(main)),
    ):
        if found is not None:
            behind[label] = bool(found[0])
            parts.append(
                f"{label}: SJF below FM at {_pools(found[0])} (pools run: {_pools(found[1])} "
                "TB/rack)"
            )
    if behind.get("rules=code") is False:
        why = "FM's lead holds under the public simulator's rules, not under textbook EASY"
    elif behind:
        why = (
            "the rules decide the order of FM and SJF pool by pool (E1 tables under each); "
            "textbook EASY reserves pool memory for the head, the code's shadow counts nodes only"
        )
    else:
        why = "-"
    rows.append(
        [
            "FM beats SJF at every pool",
            "up to 54% below SJF",
            "; ".join(parts) or "not in the grid",
            why,
        ]
    )
    rises = _rises(main)
    started = g.view(warmup_switch="started", rules="easy").cell("rack32")
    arrival = g.view(rules="easy").cell("rack32")
    if rises is None:
        ours = "not in the grid"
    else:
        ours = "fm's bsld rises at " + ("; ".join(rises) or "no step")
        if started and arrival:
            ours += (
                f"; rules=easy at 32 TB: warmup_switch=started {started['bsld']:.2f} "
                f"(t_switch {started['t_switch']:.0f} s), arrival {arrival['bsld']:.2f}"
            )
    rows.append(
        [
            "bsld non-increasing in the pool (per-configuration admission)",
            "Fig. 7a",
            ours,
            "A6 admits more wide, memory-heavy jobs at each larger pool (a different workload per "
            "pool: the rejected shares of the E1 tables); under the former D12 (started) 8 of the "
            "22 admitted at 32 TB/rack are warm-up jobs that hold the switch (about 90% of that "
            "jump under rules=easy, benchmarks/fm_pool_jump.py); under warmup_switch=arrival the "
            "22 still enter the policy's queue at 32 TB/rack",
        ]
    )
    ratio = None
    base = main.cell("base")
    thr = {p: main.get(p, "fm", "thr_per_dollar") for p in main.pools}
    thr = {p: x for p, x in thr.items() if x is not None}
    if base and thr:
        best = max(thr, key=lambda p: thr[p])
        rate = base.get("arrival_rate", 0.0)
        ratio = (
            f"thr/$ peak {thr[best] / base['thr_per_dollar']:.2f}x at {best} TB (of "
            f"{_pools(sorted(thr))}); FM throughput {main.get(best, 'fm', 'throughput'):.2f} "
            f"jobs/100 s, trace arrival rate {rate:.2f}"
        )
    rows.append(
        [
            "thr/$ height and throughput level",
            "2.1x at 28 TB/rack; 4.8-5.5 jobs/100 s",
            ratio or "not in the grid",
            "our 21-day extract is denser than the paper's 3-day one (spec §9 D18)",
        ]
    )
    r16, s16 = main.cell("rack16"), main.cell("system16")
    rows.append(
        [
            "rack scope's shorter bsld tail at 16 TB/rack",
            "Fig. 9",
            f"p99 rack {r16['bsld_p99']:.2f}, system {s16['bsld_p99']:.2f}"
            if r16 and s16
            else "not in the grid",
            "system scope places rack-local first (D7) and pays 280 ns only on cross-rack chunks",
        ]
    )
    return (
        "Does not reproduce (stated as results)",
        ["paper's claim", "paper", "ours", "mechanism"],
        rows,
    )
