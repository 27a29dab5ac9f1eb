"""The paper's claims the amendment of 2026-11-28 reports without a threshold ("paper claim,
reported, expected not to reproduce"), the largest BBSched gain of any ablation, and the
verdict line.

Each claim is one function of a :class:`~fluxgraph.papers.bbsched.criteria.Grid` returning
``(ours, holds)`` (``holds`` is None without data); :func:`claims` evaluates it under the W1
(saturated) and W2 (wait-scaled) pools and gives the row the verdict ``reproduced`` (holds
under both), ``partly`` (one) or ``not reproduced`` (neither). A claim without data under
either pool is a required row marked not evaluated.

>>> claims([])
[]
"""

from __future__ import annotations

import math
from collections.abc import Callable

from fluxgraph.experiments.store import CellRow
from fluxgraph.experiments.studies import Criterion
from fluxgraph.papers.bbsched.criteria import METHODS8, Grid, count, setting

__all__ = ["CLAIMS", "Gains", "claims", "verdict"]

Check = tuple[str, bool | None]

#: The axes of H3-c, as the Kiviat charts orient them (larger is better).
_AXES = ("node_usage", "bb_usage", "avg_wait", "avg_slowdown")


def _gain(g: Grid, a: str, wl: str, method: str, metric: str) -> float | None:
    """``method``'s gain over Baseline on ``metric`` (pp for usages, -relative for times)."""
    mine, base = g.runs.get(a, wl, method, metric), g.runs.get(a, wl, "Baseline", metric)
    if mine is None or base is None:
        return None
    return mine - base if metric.endswith("usage") else 1 - mine / base


def _h1c_node_gain(a: str) -> Callable[[Grid], Check]:
    def check(g: Grid) -> Check:
        node, base, ccpu = (
            g.runs.get(a, "S4", m, "node_usage") for m in ("BBSched", "Baseline", "Constrained_CPU")
        )
        if None in (node, base, ccpu):
            return "-", None
        return f"{node / base - 1:+.2%}", node >= 1.05 * base and node >= ccpu

    return check


def _h1e_bb_methods_below(g: Grid) -> Check:
    """Weighted_BB and Constrained_BB below BBSched in nodes on every S-workload, below
    Baseline on one or more."""
    s_wl = [(a, w) for a, w in g.bbw if w != "Original"]
    under, under_base = [], []
    for a, w in s_wl:
        node = g.runs.get(a, w, "BBSched", "node_usage")
        base = g.runs.get(a, w, "Baseline", "node_usage")
        for m in ("Weighted_BB", "Constrained_BB"):
            mine = g.runs.get(a, w, m, "node_usage")
            under.append(None if None in (mine, node) else mine < node)
            under_base.append(None if None in (mine, base) else mine < base)
    ok, text = count(under, len(under), len(under))
    if ok is None or not s_wl:
        return text, None
    return f"below BBSched {text}, below Baseline {sum(filter(None, under_base))}", (
        ok and any(under_base)
    )


def _h2c_largest_reduction(g: Grid) -> Check:
    """The largest BBSched wait reduction on each trace is 20% or more."""
    best = {}
    for a in ("kth", "lublin"):
        cuts = [_gain(g, a, w, "BBSched", "avg_wait") for a2, w in g.bbw if a2 == a]
        if not cuts or None in cuts:
            return "-", None
        best[a] = max(cuts)
    return ", ".join(f"{a} {v:+.1%}" for a, v in best.items()), min(best.values()) >= 0.20


def _h2d_theta_s4_over_original(g: Grid) -> Check:
    """On the Theta analogue, BBSched's S4 wait reduction exceeds its Original one."""
    s4, orig = (_gain(g, "lublin", w, "BBSched", "avg_wait") for w in ("S4", "Original"))
    if s4 is None or orig is None:
        return "-", None
    return f"S4 {s4:+.1%}, Original {orig:+.1%}", s4 > orig


def _h2b_lowest_wait(g: Grid) -> Check:
    """BBSched has the lowest mean wait of the eight methods on 6+ of the 8 S-workloads."""
    checks = []
    for a, w in g.bbw:
        if w == "Original":
            continue
        mine = g.runs.get(a, w, "BBSched", "avg_wait")
        waits = [g.runs.get(a, w, m, "avg_wait") or math.inf for m in METHODS8]
        checks.append(None if mine is None else mine <= min(waits))
    ok, text = count(checks, 6, 8)
    return text, ok


def _largest_area(workloads: str, need: int, of: int) -> Callable[[Grid], Check]:
    def check(g: Grid) -> Check:
        wls = g.bbw if workloads == "bb" else g.ssd_wl
        best = [
            None
            if k not in g.areas or "BBSched" not in g.areas[k]
            else g.areas[k]["BBSched"] >= max(g.areas[k].values())
            for k in wls
        ]
        ok, text = count(best, need, of)
        return text, ok

    return check


def _h3c_bin_packing_smaller(g: Grid) -> Check:
    """Bin_Packing's gains on S3/S4 are smaller than BBSched's on every Kiviat axis."""
    checks = []
    for a, w in g.bbw:
        if w not in ("S3", "S4"):
            continue
        for metric in _AXES:
            bp, bb = (_gain(g, a, w, m, metric) for m in ("Bin_Packing", "BBSched"))
            checks.append(None if bp is None or bb is None else bp < bb)
    ok, text = count(checks, len(checks), 16)
    return f"{text} axis-workloads", ok


def _e6_ssd_orderings(g: Grid) -> Check:
    """Fig. 14: Constrained_CPU, Constrained_SSD and Bin_Packing waste more SSD than Baseline
    on 4+ of 6, and Weighted's Kiviat area is below BBSched's on 4+ of 6."""
    parts, oks = [], []
    for method in ("Constrained_CPU", "Constrained_SSD", "Bin_Packing"):
        more = []
        for a, w in g.ssd_wl:
            mine = g.runs.get(a, w, method, "ssd_waste")
            base = g.runs.get(a, w, "Baseline", "ssd_waste")
            more.append(None if mine is None or base is None else mine > base)
        ok, text = count(more, 4, 6)
        parts.append(f"{method} {text}")
        oks.append(ok)
    below = [
        g.areas[k]["Weighted"] < g.areas[k]["BBSched"]
        if g.areas.get(k, {}).keys() >= {"Weighted", "BBSched"}
        else None
        for k in g.ssd_wl
    ]
    ok, text = count(below, 4, 6)
    parts.append(f"Weighted below BBSched {text}")
    oks.append(ok)
    return "; ".join(parts), None if None in oks else all(oks)


def _pm_insensitive(g: Grid) -> Check:
    """The paper's p_m has negligible effect: 0.5 <= GD(p_m = 0.05)/GD(p_m = 0.0005) <= 2."""
    low, high = g.ga16().get((500, 20, "paper")), g.ga16(0.05).get((500, 20, "paper"))
    if low is None or high is None:
        return "-", None
    ratio = high["gd"] / low["gd"]
    mid = g.ga16(0.005).get((500, 20, "paper"))
    extra = f", p_m=0.005 {mid['gd']:.4f}" if mid else ""
    text = f"GD {low['gd']:.4f} -> {high['gd']:.4f} (ratio {ratio:.2f}){extra}"
    return text, 0.5 <= ratio <= 2


#: ``(id, the paper's value, the rule, check, whether the W1 pool applies)``, report order.
CLAIMS: tuple[tuple[str, str, str, Callable[[Grid], Check], bool], ...] = (
    (
        "H1-c-kth",
        "+16.28% nodes (Cori-S4)",
        ">= 1.05 x Baseline and >= C_CPU",
        _h1c_node_gain("kth"),
        True,
    ),
    (
        "H1-c-lublin",
        "+20.03% nodes (Theta-S4)",
        ">= 1.05 x Baseline and >= C_CPU",
        _h1c_node_gain("lublin"),
        True,
    ),
    (
        "H1-e",
        "Weighted_BB -6.11%, Constrained_BB -4.84% nodes (Theta-S1)",
        "W_BB, C_BB below BBSched in nodes on all 8, below Baseline on 1+",
        _h1e_bb_methods_below,
        True,
    ),
    (
        "H2-c",
        "wait -33.44% (Cori), -41% (Theta)",
        "largest reduction >= 20% on each trace",
        _h2c_largest_reduction,
        True,
    ),
    (
        "H2-d",
        "Theta-S4 -41% vs Theta-Orig -21.30%",
        "lublin S4 reduction > Original's",
        _h2d_theta_s4_over_original,
        True,
    ),
    (
        "H2-b",
        "BBSched lowest wait (Fig. 8)",
        "lowest of 8 methods on 6+ of 8 S-workloads",
        _h2b_lowest_wait,
        True,
    ),
    (
        "H3-a",
        "BBSched largest Kiviat area (Fig. 13)",
        "largest on 8+ of 10 (noise axes r = 1)",
        _largest_area("bb", 8, 10),
        True,
    ),
    (
        "H3-b",
        "BBSched best with SSDs (Fig. 14)",
        "largest on 4+ of 6 (noise axes r = 1)",
        _largest_area("ssd", 4, 6),
        True,
    ),
    (
        "H3-c",
        "Bin_Packing poorest after Baseline (Fig. 13)",
        "Bin_Packing gain < BBSched's on every axis, S3/S4",
        _h3c_bin_packing_smaller,
        True,
    ),
    (
        "E6",
        "C_CPU, C_SSD, Bin_Packing waste more SSD; Weighted below BBSched (Fig. 14)",
        "each 4+ of 6",
        _e6_ssd_orderings,
        True,
    ),
    (
        "E1b-pm",
        "p_m has negligible effect (§3.2.3)",
        "0.5 <= GD(0.05)/GD(0.0005) <= 2",
        _pm_insensitive,
        False,
    ),
)


class Gains:
    """BBSched against Baseline over every run pair of the grid (ablations included): the
    largest node and BB usage gains (pp) and the largest wait cut, each with its setting, and
    the ranges of the differences (for the verdict line)."""

    def __init__(self, rows: list[CellRow]) -> None:
        base: dict[tuple, dict] = {}
        mine: list[tuple[dict, dict]] = []
        for r in rows:
            p = r.params
            if p["task"] != "run" or r.status != "done":
                continue
            if p["method"] == "Baseline":
                base[_pair(p)] = r.metrics
            elif p["method"] == "BBSched":
                mine.append((p, r.metrics))
        self.diffs: list[tuple[str, float, float, float]] = []
        for p, m in mine:
            b = base.get(_pair(p))
            if b is None or not b.get("avg_wait"):
                continue
            self.diffs.append(
                (
                    _label(p),
                    m["node_usage"] - b["node_usage"],
                    m["bb_usage"] - b["bb_usage"],
                    m["avg_wait"] / b["avg_wait"] - 1,
                )
            )

    def best(self, index: int) -> str:
        """The largest gain in column ``index`` (1 nodes, 2 BB, 3 wait) and where."""
        if not self.diffs:
            return "-"
        pick = min if index == 3 else max
        row = pick(self.diffs, key=lambda d: d[index])
        unit = f"{row[index]:+.1%}" if index == 3 else f"{100 * row[index]:+.2f} pp"
        return f"{unit} ({row[0]})"


def _pair(p: dict) -> tuple:
    """What a Baseline run shares with a BBSched run it is compared with (Baseline does not
    depend on w, G, the GA, the exact front or the bound)."""
    s = setting(p)
    return (p["analogue"], p["workload"], s["calibration"], s["copies"], p.get("limit", 0))


def _label(p: dict) -> str:
    s = setting(p)
    parts = [p["analogue"], p["workload"], s["calibration"]]
    parts += [f"w={p['window']}"] if p["window"] != 20 else []
    parts += [f"G={p['generations']}"] if p["generations"] != 500 else []
    parts += [f"exact<={s['exact_below']}"] if s["exact_below"] != 10 else []
    parts += [f"starve={s['starve']}"] if s["starve"] != "pass" else []
    return " ".join(parts)


def claims(rows: list[CellRow]) -> list[Criterion]:
    """The reported claims of ``rows`` (see the module docstring), then the verdict row."""
    grids = {c: Grid.of(rows, c) for c in ("W1", "W2")}
    if not any(g.bbw or g.ga for g in grids.values()):
        return []
    best = Gains(rows)
    extra = f"; best of any ablation: nodes {best.best(1)}, wait {best.best(3)}"
    out = []
    for cid, paper, rule, check, both in CLAIMS:
        results = {c: check(g) for c, g in grids.items()} if both else {"": check(grids["W2"])}
        known = [ok for _, ok in results.values() if ok is not None]
        ours = "; ".join(f"{c}: {text}" if c else text for c, (text, _) in results.items())
        if not known:
            out.append(Criterion(cid, paper, ours, f"{rule} (paper claim, reported)", None))
            continue
        held = sum(known)
        claim = "reproduced" if held == len(results) else "partly" if held else "not reproduced"
        if both:
            ours += extra
        out.append(Criterion(cid, paper, ours, rule, all(known), required=False, claim=claim))
    out.insert(0, verdict(best, out))
    return out


def verdict(best: Gains, rows: list[Criterion]) -> Criterion:
    """The verdict line (amendment B), with the ranges this grid measured."""
    judged = [c.claim for c in rows if not c.required and c.id != "E1b-pm"]
    if not judged:
        return Criterion("verdict", "BBSched gains (§4.4)", "no claim judged", "-", None)
    if all(c == "reproduced" for c in judged):
        state = "reproduced"
    elif all(c == "not reproduced" for c in judged):
        state = "not reproduced"
    else:
        state = "partly"
    if best.diffs:
        node = max(abs(d[1]) for d in best.diffs)
        bb = max(abs(d[2]) for d in best.diffs)
        lo, hi = min(d[3] for d in best.diffs), max(d[3] for d in best.diffs)
        spread = (
            f"Over {len(best.diffs)} BBSched runs (every calibration and ablation in this grid) "
            f"BBSched stays within {100 * node:.1f} pp of Baseline in node usage, "
            f"{100 * bb:.1f} pp in BB usage and within {lo:+.0%} to {hi:+.0%} in mean wait."
        )
    else:
        spread = "No BBSched run with its Baseline in this grid."
    head = {
        "not reproduced": "The paper's gains are not reproduced on the KTH/lublin substitutes.",
        "partly": "The paper's gains are partly reproduced on the KTH/lublin substitutes.",
        "reproduced": "The paper's gains are reproduced on the KTH/lublin substitutes.",
    }[state]
    return Criterion(
        "verdict",
        "BBSched +16-20% nodes, -33/-41% wait (§4.4)",
        f"{head} {spread}",
        "the reported claims below",
        None,
        required=False,
        claim=state,
    )
