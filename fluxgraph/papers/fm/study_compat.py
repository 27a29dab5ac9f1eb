"""C10: our runs beside the public FM simulator's (spec §7 and its amendment of 2026-11-28).

The specification's cross-check (spec §7, "Cross-check reference"): the public simulator
(Artlands/DisaggregationAwareScheduler) on the first 3,000 jobs, no warm-up, slowdown ``none``,
its EASY and submit drift, ``rack_balance``, 1 TB memnodes; the mean bounded slowdown over all
completed jobs (its ``analytics/util.py`` definition, stretched runtime in the denominator).
Ours runs the same configuration under ``rules=code`` (:mod:`fluxgraph.papers.fm.compat`).
C10: at every pool the six schedulers in the same order as the peer's (pairs the peer
separates by less than 5% are not judged), each value within 25% of the peer's; on the whole
trace at 48 TB/rack FCFS and fm_code within 10% of the peer's 2.50 and 1.24. The peer's CPU
seconds per run (``../shared/reproductions/peers/fm_simulator_perlmutter_p3000.txt``) give the
speed ratios.

>>> rows = {4: {"fm_code": 4.9, "sjf": 5.6, "fair": 8.0, "wfp3": 26.0, "fcfs": 35.0, "f1": 49.0}}
>>> compat_check(rows, {"fcfs": 2.4, "fm_code": 1.25})[1] is None   # 8, 12, 48 TB missing
True
"""

from __future__ import annotations

import itertools

__all__ = ["PEER", "PEER_CPU", "SCHEDULERS", "WHOLE_PEER", "compat_check", "compat_table"]

#: The six schedulers, in the order of the specification's table.
SCHEDULERS = ("fm_code", "sjf", "fair", "wfp3", "fcfs", "f1")

#: The public simulator's mean bsld per TB/rack (spec §7, peer measurement; 3,000 jobs).
PEER: dict[int, dict[str, float]] = {
    4: {"fcfs": 34.17, "sjf": 5.76, "wfp3": 25.38, "f1": 50.35, "fair": 8.69, "fm_code": 4.76},
    8: {"fcfs": 14.03, "sjf": 2.83, "wfp3": 11.37, "f1": 27.47, "fair": 3.99, "fm_code": 2.44},
    12: {"fcfs": 5.96, "sjf": 1.71, "wfp3": 4.74, "f1": 12.65, "fair": 2.37, "fm_code": 1.65},
    48: {"fcfs": 1.03, "sjf": 1.03, "wfp3": 1.03, "f1": 1.09, "fair": 1.01, "fm_code": 1.01},
}

#: The public simulator's CPU seconds per run (the peer file; same runs, same rules).
PEER_CPU: dict[int, dict[str, float]] = {
    4: {"fcfs": 247.6, "sjf": 254.3, "wfp3": 458.2, "f1": 539.6, "fair": 264.5, "fm_code": 271.1},
    8: {"fcfs": 148.9, "sjf": 153.2, "wfp3": 235.4, "f1": 331.9, "fair": 150.6, "fm_code": 153.0},
    12: {"fcfs": 112.9, "sjf": 108.3, "wfp3": 127.3, "f1": 187.0, "fair": 108.8, "fm_code": 113.3},
    48: {"fcfs": 86.6, "sjf": 97.0, "wfp3": 87.5, "f1": 88.1, "fair": 82.7, "fm_code": 88.5},
}
#: The whole trace at 48 TB/rack: the peer's bsld and CPU seconds (spec §7; amendment C10, Speed).
WHOLE_PEER = {"fcfs": 2.50, "fm_code": 1.24}
WHOLE_PEER_CPU = {"fcfs": 903.0, "fm_code": 867.0}

_TOLERANCE = 0.25  # values within 25% (spec §7)
_WHOLE_TOLERANCE = 0.10
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


def compat_check(
    ours: dict[int, dict[str, float]], whole: dict[str, float | None]
) -> tuple[str, bool | None]:
    """C10's text and verdict from ``ours`` (TB -> scheduler -> bsld, 3,000-job prefix) and
    ``whole`` (scheduler -> bsld, whole trace at 48 TB/rack); ``None`` unless every run is
    there."""
    parts, checks = [], []
    for pool, peer in PEER.items():
        got = ours.get(pool, {})
        if any(got.get(s) is None for s in SCHEDULERS):
            parts.append(f"{pool} TB: missing")
            checks.append(None)
            continue
        wrong = _order_kept(got, peer)
        far = [s for s in SCHEDULERS if abs(got[s] - peer[s]) > _TOLERANCE * peer[s]]
        worst = max(abs(got[s] / peer[s] - 1) for s in SCHEDULERS)
        parts.append(
            f"{pool} TB: largest difference {worst:.0%}"
            + (f", order differs: {', '.join(wrong)}" if wrong else "")
            + (f", beyond 25%: {', '.join(far)}" if far else "")
        )
        checks.append(not wrong and not far)
    for name, value in whole.items():
        if value is None:
            parts.append(f"whole trace {name}: missing")
            checks.append(None)
        else:
            parts.append(f"whole trace {name} {value:.3f} (peer {WHOLE_PEER[name]:.2f})")
            checks.append(abs(value - WHOLE_PEER[name]) <= _WHOLE_TOLERANCE * WHOLE_PEER[name])
    verdict = None if None in checks or not checks else all(checks)
    return "; ".join(parts), verdict


def _seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


def _ratio(peer: float, ours: float | None) -> str | None:
    return None if not ours else f"{peer / ours:.0f}x"


def compat_table(
    ours: dict[int, dict[str, float]], cpu: dict[int, dict[str, float]], jobs: int = 3000
) -> tuple[str, list[str], list[list]]:
    """The report table: per pool, the peer's bsld and ours, our CPU seconds per run and the
    peer's CPU seconds over ours (``jobs``: our prefix; the peer's is 3,000 jobs)."""
    body: list[list] = []
    for pool, peer in PEER.items():
        got, sec = ours.get(pool, {}), cpu.get(pool, {})
        body.append([pool, "public simulator", *(peer[s] for s in SCHEDULERS)])
        body.append([pool, "ours (rules=code)", *(got.get(s) for s in SCHEDULERS)])
        body.append([pool, "ours: CPU s per run", *(_seconds(sec.get(s)) for s in SCHEDULERS)])
        if jobs == 3000:  # the peer's runs: the speed ratio per run
            ratios = [_ratio(PEER_CPU[pool][s], sec.get(s)) for s in SCHEDULERS]
            body.append([pool, "speed: peer CPU / ours", *ratios])
    return (
        f"C10: mean bsld over all completed jobs, first {jobs:,} jobs (the peer: 3,000), "
        "rules=code, no warm-up, slowdown none (public simulator 83-540 CPU s per run)",
        ["TB/rack", "run", *SCHEDULERS],
        body,
    )
