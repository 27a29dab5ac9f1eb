"""``fluxgraph reproduce fm --compat fm-simulator``: our runs beside the public FM simulator's.

The specification's cross-check (spec §7, "Cross-check reference"): the public simulator
(Artlands/DisaggregationAwareScheduler) on the first 3,000 jobs, no warm-up, slowdown ``none``,
``fm_code``, its EASY and submit drift, ``rack_balance``, 1 TB memnodes; the mean bounded
slowdown over all completed jobs (its ``analytics/util.py`` definition, stretched runtime in
the denominator). Ours runs the same configuration with :mod:`fluxgraph.papers.fm.compat`.
The criteria: at every pool the six schedulers in the same order as the peer's (pairs the
peer separates by less than 5% are not judged) and each value within 25% of the peer's.

>>> rows = {4: {"fm_code": 4.9, "sjf": 5.6, "fair": 8.0, "wfp3": 26.0, "fcfs": 35.0, "f1": 49.0}}
>>> [c.passed for c in compat_criteria(rows)]
[True]
"""

from __future__ import annotations

import itertools

from fluxgraph.experiments.studies import Criterion

__all__ = ["PEER", "SCHEDULERS", "compat_criteria", "compat_table"]

#: The six schedulers, in the order of the specification's table.
SCHEDULERS = ("fm_code", "sjf", "fair", "wfp3", "fcfs", "f1")

#: The public simulator's mean bsld per TB/rack (spec §7, peer measurement; 3,000 jobs).
PEER: dict[int, dict[str, float]] = {
    4: {"fcfs": 34.17, "sjf": 5.76, "wfp3": 25.38, "f1": 50.35, "fair": 8.69, "fm_code": 4.76},
    8: {"fcfs": 14.03, "sjf": 2.83, "wfp3": 11.37, "f1": 27.47, "fair": 3.99, "fm_code": 2.44},
    12: {"fcfs": 5.96, "sjf": 1.71, "wfp3": 4.74, "f1": 12.65, "fair": 2.37, "fm_code": 1.65},
    48: {"fcfs": 1.03, "sjf": 1.03, "wfp3": 1.03, "f1": 1.09, "fair": 1.01, "fm_code": 1.01},
}

_TOLERANCE = 0.25  # values within 25% (spec §7)
_SEPARATED = 0.05  # peer values closer than this are a tie: their order is not judged


def _order_kept(ours: dict[str, float], peer: dict[str, float]) -> list[str]:
    """Pairs the peer separates (by >= 5%) that ours orders the other way."""
    wrong = []
    for a, b in itertools.combinations(SCHEDULERS, 2):
        lo, hi = sorted((peer[a], peer[b]))
        if hi < (1 + _SEPARATED) * lo:
            continue
        if (peer[a] < peer[b]) != (ours[a] < ours[b]):
            wrong.append(f"{a}/{b}")
    return wrong


def compat_criteria(ours: dict[int, dict[str, float]], judged: bool = True) -> list[Criterion]:
    """One criterion per pool size of :data:`PEER` that ``ours`` (TB -> scheduler -> bsld) has;
    ``judged=False`` (not the 3,000-job runs) reports without a verdict."""
    out = []
    for pool, peer in PEER.items():
        got = ours.get(pool, {})
        if any(got.get(s) is None for s in SCHEDULERS):
            continue
        wrong = _order_kept(got, peer)
        far = [s for s in SCHEDULERS if abs(got[s] - peer[s]) > _TOLERANCE * peer[s]]
        worst = max(abs(got[s] / peer[s] - 1) for s in SCHEDULERS)
        out.append(
            Criterion(
                f"X{pool}",
                f"public simulator at {pool} TB/rack: "
                + ", ".join(f"{s} {peer[s]:.2f}" for s in SCHEDULERS),
                ", ".join(f"{s} {got[s]:.2f}" for s in SCHEDULERS)
                + f" (largest difference {worst:.0%}"
                + (f"; order differs: {', '.join(wrong)}" if wrong else "")
                + (f"; beyond 25%: {', '.join(far)}" if far else "")
                + ")",
                "same order (pairs the peer separates by >= 5%), every value within 25%",
                (not wrong and not far) if judged else None,
            )
        )
    return out


def _seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


def compat_table(
    ours: dict[int, dict[str, float]], cpu: dict[int, dict[str, float]]
) -> tuple[str, list[str], list[list]]:
    """The report table: per pool, the peer's row, ours and our CPU seconds per run."""
    body: list[list] = []
    for pool, peer in PEER.items():
        got, sec = ours.get(pool, {}), cpu.get(pool, {})
        body.append([pool, "public simulator", *(peer[s] for s in SCHEDULERS)])
        body.append([pool, "ours (compat)", *(got.get(s) for s in SCHEDULERS)])
        body.append([pool, "ours: CPU s per run", *(_seconds(sec.get(s)) for s in SCHEDULERS)])
    return (
        "Cross-check: mean bsld over all completed jobs, first 3,000 jobs (public simulator "
        "89-900 s per run)",
        ["TB/rack", "run", *SCHEDULERS],
        body,
    )
