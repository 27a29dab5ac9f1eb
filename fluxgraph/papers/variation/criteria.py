"""The variation study's criteria (spec §8 as amended on 2026-11-28), one small function each.

Each takes the study's done cells (:class:`Cells`) and returns one
:class:`~fluxgraph.experiments.studies.Criterion`, readable against the spec's row.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from fluxgraph.experiments.studies import Criterion

__all__ = [
    "BUDGET",
    "CRITERIA",
    "NCLASSES",
    "POLICIES",
    "REFERENCE",
    "Cells",
    "criteria",
    "fom_row",
    "primary_view",
]

#: The policies, named as everywhere a policy is named (``Matcher(policy=...)``, the CLIs).
POLICIES = ("high", "low", "variation", "classpack", "classpack:slack=1800", "classpack-strict")
#: Class packing with the amended criterion 3's start-time budget (1800 s).
BUDGET = "classpack:slack=1800"
#: The amendment's two seed groups of criterion 3.
SEED_GROUPS = ((1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12))
NCLASSES = 5
#: Spec §7.1: the reference (flux-sched resource-query) on the same inputs: (layout, seed) ->
#: fom 0..4 of high, low, variation, and variation's now/reserved.
REFERENCE: dict[tuple[str, int], dict[str, Any]] = {
    ("iid", 1): {"high": [52, 10, 11, 30, 97], "low": [58, 8, 15, 29, 90],
                 "variation": [174, 15, 4, 6, 1], "now": (94, 106)},
    ("iid", 2): {"high": [51, 21, 22, 24, 82], "low": [53, 16, 12, 33, 86],
                 "variation": [182, 7, 4, 3, 4], "now": (150, 50)},
    ("iid", 3): {"high": [62, 8, 8, 21, 101], "low": [63, 8, 7, 27, 95],
                 "variation": [180, 6, 1, 6, 7], "now": (96, 104)},
    ("iid", 4): {"high": [58, 8, 18, 17, 99], "low": [60, 18, 12, 18, 92],
                 "variation": [181, 7, 4, 2, 6], "now": (103, 97)},
    ("iid", 5): {"high": [65, 10, 15, 21, 89], "low": [63, 21, 9, 16, 91],
                 "variation": [176, 4, 12, 0, 8], "now": (92, 108)},
    ("iid", 6): {"high": [46, 13, 11, 40, 90], "low": [52, 4, 17, 22, 105],
                 "variation": [177, 11, 8, 1, 3], "now": (126, 74)},
    ("rack0.8", 1): {"high": [72, 27, 30, 29, 42], "low": [66, 24, 28, 37, 45],
                     "variation": [174, 16, 3, 6, 1], "now": (94, 106)},
    ("rack0.95", 1): {"high": [85, 44, 25, 17, 29], "low": [76, 48, 27, 17, 32],
                      "variation": [174, 16, 3, 6, 1], "now": (94, 106)},
}  # fmt: skip
#: Spec §7.1 finding 4: fom > 0 jobs of the reference's variation policy for which one class had
#: the job's nodes free at its start, seeds 1-6.
REFERENCE_AVOIDABLE = {1: 18, 2: 10, 3: 13, 4: 11, 5: 14, 6: 21}
#: The reference's seed-1 run times on this machine class (spec §7.1 finding 3), seconds.
REFERENCE_SECONDS = {"high": 5.9, "variation": 20.4}
#: Spec V5's speed target (amendment of 2026-11-28): the 200-job case study per policy (seconds).
TARGET_SECONDS = 5.0
#: The policies the speed target (spec V5) names: the three of the paper and class packing
#: (slack 0, spec §4.3's default); the budgeted and strict variants are timed beside.
SPEED_POLICIES = ("high", "low", "variation", "classpack")
#: V5's margin (amendment of 2026-11-28): the median of 5 benchmark runs per policy, CPU s, and
#: variation's share of the reference's time.
MARGIN_SECONDS = 4.0
MARGIN_OF_REFERENCE = 0.25
#: The committed medians of ``benchmarks/variation_bench.py --runs 5`` (CPU s, seed 1, socketed
#: quartz; a shared 2-core host at load average 4-8), which V5 judges.
BENCH_MEDIANS = {"high": 2.53, "low": 2.74, "variation": 3.32, "classpack": 3.39}
BENCH_SOURCE = "benchmarks/results/variation_bench_2026-11-28.json"


def primary_view(cells: dict[tuple, dict]) -> dict[tuple, dict]:
    """(layout, seed, policy, exact) -> metrics, from the pooled machine where it ran (its
    selections are the socketed machine's), else from the socketed one."""
    out: dict[tuple, dict] = {}
    for key, m in sorted(cells.items(), key=lambda kv: kv[0][4] != "node"):
        out.setdefault(key[:4], m)
    return out


def fom_row(m: dict[str, float | None], prefix: str = "fom") -> list[int]:
    return [int(m.get(f"{prefix}{k}") or 0) for k in range(NCLASSES)]


@dataclass(frozen=True)
class Cells:
    """The study's cells by ``(layout, seed, policy, exact, lod)``, the keys of those on the
    reference's machine and queue size (``full``), the primary view by ``(layout, seed,
    policy, exact)`` and the iid seeds in it."""

    all: dict[tuple, dict]
    full: set
    cells: dict[tuple, dict]
    iid: list[int]

    @classmethod
    def of(cls, allcells: dict[tuple, dict], full: set) -> Cells:
        cells = primary_view(allcells)
        return cls(allcells, full, cells, sorted({k[1] for k in cells if k[0] == "iid"}))

    def ratio_of_starts(self, m: dict, var: dict) -> float:
        """``m``'s mean start over variation's (the same seed)."""
        return (m["mean_start"] or 0) / max(var["mean_start"] or 1, 1)


def _v1_parity(c: Cells) -> Criterion:
    """V1: parity with the reference rows of spec §7.1, on both machines."""
    checked, bad = 0, []
    for (layout, seed, policy, exact, lod), m in sorted(c.all.items()):
        ref = REFERENCE.get((layout, seed))
        if (
            exact
            or ref is None
            or policy not in ref
            or (layout, seed, policy, exact, lod) not in c.full
        ):
            continue
        checked += 1
        same = fom_row(m) == ref[policy]
        if policy == "variation":
            same = same and (int(m["now"] or 0), int(m["reserved"] or 0)) == ref["now"]
        if not same or m.get("rejected"):
            bad.append(f"{layout}/{seed}/{policy}/{lod}")
    return Criterion(
        "V1",
        "-",
        f"{checked - len(bad)} of {checked} rows equal" + (f"; differ: {bad}" if bad else ""),
        "high/low/variation fom 0..4 (and variation's now/reserved) equal the reference rows "
        "of spec §7.1 exactly; no job rejected",
        None if not checked else not bad,
        "spec §7.1 rows",
    )


def _v1a_avoidable(c: Cells) -> Criterion:
    """V1a: variation's avoidable spread against the reference's count (§7.1 finding 4)."""
    ours, same = [], []
    for seed in c.iid:
        m = c.cells.get(("iid", seed, "variation", False))
        if m is not None and seed in REFERENCE_AVOIDABLE:
            ours.append(f"s{seed} {int(m['avoidable'] or 0)}")
            same.append(int(m["avoidable"] or 0) == REFERENCE_AVOIDABLE[seed])
    return Criterion(
        "V1a",
        "-",
        ", ".join(ours) or "-",
        "variation's fom > 0 jobs that one class could have held at their start equal the "
        "reference's count (spec §7.1 finding 4)",
        all(same) if same else None,
        ", ".join(f"s{k} {v}" for k, v in REFERENCE_AVOIDABLE.items()),
    )


def _v2_orderings(c: Cells) -> Criterion:
    """V2 (H1): variation places far more jobs in one class than high and low."""
    ours, ok, facts = [], [], []
    for seed in c.iid:
        m = {p: c.cells.get(("iid", seed, p, False)) for p in ("high", "low", "variation")}
        if not all(m.values()):
            continue
        f0 = {p: m[p]["fom0"] or 0 for p in m}
        mf = {p: m[p]["mean_fom"] or 0 for p in m}
        rh, rl = f0["variation"] / max(f0["high"], 1), f0["variation"] / max(f0["low"], 1)
        ok.append(
            rh >= 2 and rl >= 2 and f0["variation"] >= 170 and mf["variation"] < 0.35
            and mf["variation"] < min(mf["high"], mf["low"]) / 4
        )  # fmt: skip
        facts.append(2.0 <= rh <= 4.0 and 2.0 <= rl <= 4.0)
        ours.append(f"s{seed} {rh:.2f}×/{rl:.2f}×")
    return Criterion(
        "V2",
        "184 fom=0 vs 66/79: 2.8× / 2.3×",
        ", ".join(ours) or "-",
        "every seed: variation #fom=0 ≥ 2× each baseline and ≥ 170; mean fom < 0.35 and < ¼ "
        "of each baseline's; reductions within 2.0-4.0× (order of magnitude of the paper's)",
        (all(ok) and all(facts)) if ok else None,
        "2.71-3.85× / 2.79-3.43×",
    )


def _fom0_and_starts(c: Cells, policy: str, seeds) -> tuple[list[int], list[int], list[float]]:
    """#fom=0 of ``policy`` and of variation, and the mean-start ratio, on the ``seeds`` run."""
    got, var0, starts = [], [], []
    for seed in seeds:
        m = c.cells.get(("iid", seed, policy, False))
        var = c.cells.get(("iid", seed, "variation", False))
        if m and var:
            got.append(int(m["fom0"] or 0))
            var0.append(int(var["fom0"] or 0))
            starts.append(c.ratio_of_starts(m, var))
    return got, var0, starts


def _v3_packing(c: Cells) -> Criterion:
    """V3 (criterion 3 as amended on 2026-11-28): class packing with S = 1800 s."""
    texts, held, complete = [], [], True
    for seeds in SEED_GROUPS:
        got, var0, starts = _fom0_and_starts(c, BUDGET, seeds)
        complete = complete and len(got) == len(seeds)
        mean = statistics.fmean(got) if got else 0.0
        held.append(
            all(g >= v for g, v in zip(got, var0, strict=True))
            and mean >= 190
            and all(s <= 1.05 for s in starts)
        )
        zero = _fom0_and_starts(c, "classpack", seeds)[0]
        texts.append(
            f"seeds {seeds[0]}-{seeds[-1]}: {got} (mean {mean:.1f}) vs variation {var0}, "
            f"mean start ratio {', '.join(f'{s:.3f}' for s in starts) or '-'}; S = 0 (no "
            f"verdict): mean {statistics.fmean(zero) if zero else 0:.1f}"
        )
    return Criterion(
        "V3",
        "184 (variation, one seed of real data)",
        "; ".join(texts),
        f"{BUDGET}: #fom=0 ≥ variation's on every seed, ≥ 190 averaged over seeds 1-6 and over "
        "seeds 7-12, mean start ≤ 1.05 × variation's on every seed (S = 0 reported beside the "
        "paper's 184, no verdict)",
        all(held) if complete else None,
        "variation 174-182",
    )


def _v3s_strict(c: Cells) -> Criterion:
    """V3s: strict class packing (S = inf) keeps every job that fits one class in one class."""
    strict_ok, mean0 = [], []
    for seed in c.iid:
        strict = c.cells.get(("iid", seed, "classpack-strict", False))
        if strict:
            strict_ok.append(strict["spread_fitting"] == 0)
            mean0.append(int(strict["fom0"] or 0))
    starts = _fom0_and_starts(c, "classpack-strict", c.iid)[2]
    return Criterion(
        "V3s",
        "-",
        f"{sum(strict_ok)} of {len(strict_ok)} seeds with fom=0 for every job that fits one "
        f"class (#fom=0 {mean0}); mean start ratio {', '.join(f'{s:.3f}' for s in starts)}",
        "slack ∞: fom 0 for every job whose size fits in some class (all 200 on quartz); its "
        "start-time cost reported",
        all(strict_ok) if strict_ok else None,
    )


def _v4_timing(c: Cells) -> Criterion:
    """V4 (H2): timing with exact visit counts on."""
    var, high = c.cells.get(("iid", 1, "variation", True)), c.cells.get(("iid", 1, "high", True))
    if var and high:
        # CPU seconds of the whole replay: on a shared machine the wall-time sums of the match
        # calls (shown beside) measure the other processes as much as the matcher
        ratio = (var["cpu_s"] or 0) / max(high["cpu_s"] or 1e-9, 1e-9)
        wall = (var["match_s"] or 0) / max(high["match_s"] or 1e-9, 1e-9)
        early = (var["first5_ms"] or 0) / max(var["reserved_ms"] or 1e-9, 1e-9)
        text = (
            f"variation/high {ratio:.2f} in CPU s ({var['cpu_s']:.1f} / {high['cpu_s']:.1f}; "
            f"wall-time sums {wall:.2f}); first 5 / reserved {early:.1f}×"
        )
        passed: bool | None = ratio <= 1.5 and early > 2
    else:
        text, passed = "not measured (needs exact=true, seed 1)", None
    return Criterion(
        "V4",
        "similar times; variation ~10 % faster than high; first jobs cost most",
        text,
        "exact visits: variation's CPU time for the queue ≤ 1.5× high's; mean match time of "
        "the first 5 jobs > 2× the reserved jobs' mean",
        passed,
        "variation 20.4 s vs high 5.9 s (3.5×)",
    )


def _v5_speed(c: Cells) -> Criterion:
    """V5 (amended): judged on the benchmark's committed medians; this run's timing beside."""

    def seconds(lod: str) -> dict[str, float]:
        got = {p: c.all.get(("iid", 1, p, False, lod)) for p in POLICIES}
        return {p: m["cpu_s"] or 0.0 for p, m in got.items() if m is not None}

    bench = ", ".join(f"{p} {t:.2f} s" for p, t in BENCH_MEDIANS.items())
    ours = f"benchmark ({BENCH_SOURCE}), median of 5 on the socketed machine: {bench}"
    for lod, label in (("socket", "this run, socketed"), ("node", "pooled")):
        times = seconds(lod)
        ours += f"; {label}: " + (", ".join(f"{p} {t:.1f} s" for p, t in times.items()) or "-")
    var_share = BENCH_MEDIANS["variation"] / REFERENCE_SECONDS["variation"]
    return Criterion(
        "V5",
        "Fig. 7b totals 54.96 s, 52.87 s",
        ours + f" (variation {var_share:.2f}× the reference's)",
        f"the 200-job case study (seed 1, the spec's socketed machine) under {TARGET_SECONDS:g} "
        f"s for each of {', '.join(SPEED_POLICIES)} with margin: median of 5 benchmark runs "
        f"≤ {MARGIN_SECONDS:g} CPU s each, variation ≤ {MARGIN_OF_REFERENCE:g}× the "
        "reference's 20.4 s",
        all(BENCH_MEDIANS[p] <= MARGIN_SECONDS for p in SPEED_POLICIES)
        and var_share <= MARGIN_OF_REFERENCE,
        ", ".join(f"{p} {t} s" for p, t in REFERENCE_SECONDS.items()),
    )


#: The criteria (spec §7), one function each, in the report's order.
CRITERIA = (
    _v1_parity,
    _v1a_avoidable,
    _v2_orderings,
    _v3_packing,
    _v3s_strict,
    _v4_timing,
    _v5_speed,
)


def criteria(allcells: dict[tuple, dict], full: set) -> list[Criterion]:
    """The criteria; ``full``: keys of cells on the reference's machine and queue size."""
    cells = Cells.of(allcells, full)
    return [criterion(cells) for criterion in CRITERIA]
