"""The FM study's figures (Li et al. Fig. 7a-12 analogues) and the distribution metrics they need.

FM cells keep their per-job distributions as metrics (the result store holds numbers): bsld
percentiles ``bsld_p000`` .. ``bsld_p100`` (Fig. 9 and the KS distance of C4), the memory
utilisation histogram in 10% bins ``mem_hist_00`` .. (Fig. 11) and the degradation histogram
in 5% bins ``deg_hist_00`` .. (Fig. 12).

>>> m = distribution_metrics([1.0, 2.0, 3.0], (0.5, 0.5), (1.0,))
>>> m["bsld_p000"], m["bsld_p050"], m["bsld_p100"], m["mem_hist_01"], m["deg_hist_00"]
(1.0, 2.0, 3.0, 0.5, 1.0)
>>> ks_distance([1.0] * 101, [1.0] * 101), ks_distance([1.0] * 101, [2.0] * 101)
(0.0, 1.0)
"""

from __future__ import annotations

import bisect
import importlib.util
from collections.abc import Sequence
from pathlib import Path

from fluxgraph.experiments.report import line_plot

__all__ = ["distribution_metrics", "fm_figures", "ks_distance", "percentiles"]

_DEG_BINS = 30  # 5% bins up to 150% (no job reaches it in rack scope, spec §5)
_MEM_BINS = 11  # 10% bins, the last one for 100%
_FAIRNESS = ("D", "MD", "D10", "MD10")
_SIX = ("fcfs", "sjf", "wfp3", "f1", "fair", "fm")

Table = dict[tuple[str, str], dict[str, float]]


def distribution_metrics(
    bslds: Sequence[float], memory: Sequence[float], degradation: Sequence[float]
) -> dict[str, float]:
    """Percentiles of ``bslds`` (sorted) and the two histograms, as metric name -> value."""
    out = {f"bsld_p{p:03d}": bslds[min(len(bslds) - 1, p * len(bslds) // 100)] for p in range(101)}
    out.update({f"mem_hist_{i:02d}": (list(memory) + [0.0] * _MEM_BINS)[i] for i in range(11)})
    deg = list(degradation) + [0.0] * _DEG_BINS
    out.update({f"deg_hist_{i:02d}": deg[i] for i in range(_DEG_BINS)})
    return out


def percentiles(metrics: dict[str, float]) -> list[float] | None:
    """The 101 bsld percentiles of an FM cell (``None`` if the cell has none)."""
    if "bsld_p000" not in metrics:
        return None
    return [metrics[f"bsld_p{p:03d}"] for p in range(101)]


def ks_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Kolmogorov-Smirnov distance of two distributions given by their percentiles (each
    point weighs 1/101: resolution about 1%)."""
    sa, sb = sorted(a), sorted(b)
    worst = 0.0
    for x in sa + sb:
        fa = bisect.bisect_right(sa, x) / len(sa)
        fb = bisect.bisect_right(sb, x) / len(sb)
        worst = max(worst, abs(fa - fb))
    return worst


def fm_figures(t: Table, pools: list[int], out: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """The figures the grid covers, as ``(caption, path)``, and notes on what is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        return [], ["matplotlib is not installed: no figures"]
    figs: list[tuple[str, Path]] = []

    def get(config: str, prio: str, metric: str) -> float | None:
        return t.get((config, prio), {}).get(metric)

    if pools:
        for metric, label, name in (
            ("bsld", "average bounded slowdown", "7a"),
            ("throughput", "jobs per 100 s", "7b"),
            ("node_utilisation", "node utilisation", "7c"),
        ):
            series = {p: [get(f"rack{x}", p, metric) for x in pools] for p in (*_SIX, "fm_code")}
            path = line_plot(
                pools,
                series,
                out / f"fm-fig{name}-{metric}.png",
                xlabel="pool per rack (TB)",
                ylabel=label,
                title=f"Fig. {name}: {label} vs rack pool",
            )
            figs.append((f"Fig. {name}: {label}", path))
    for pool in (16, 32):
        if all(get(f"rack{pool}", p, "MD") is not None for p in _SIX):
            ev = {p: get(f"rack{pool}", p, "evaluated") or 1 for p in _SIX}
            series = {m: [get(f"rack{pool}", p, m) / ev[p] for p in _SIX] for m in _FAIRNESS}
            path = line_plot(
                list(_SIX),
                series,
                out / f"fm-fig8-fairness-{pool}.png",
                xlabel="scheduler",
                ylabel="seconds per evaluated job (lower is fairer)",
                title=f"Fig. 8: fairness at {pool} TB/rack",
                bar=True,
            )
            figs.append((f"Fig. 8: fairness D, MD, D10, MD10 at {pool} TB/rack", path))
    for pool, level in ((16, "limited"), (48, "sufficient")):
        series = {
            label: percentiles(t.get((config, "fm"), {}))
            for label, config in (
                (f"rack {pool}", f"rack{pool}"),
                (f"system {pool}", f"system{pool}"),
                ("baseline", "base"),
            )
        }
        series = {k: v for k, v in series.items() if v is not None}
        if len(series) > 1:
            path = line_plot(
                list(range(101)),
                series,
                out / f"fm-fig9-bsld-{pool}.png",
                xlabel="percent of evaluated jobs (CDF, axes swapped)",
                ylabel="bounded slowdown",
                title=f"Fig. 9: FM bsld by scope, {level} pool ({pool} TB/rack)",
                logy=True,
            )
            figs.append((f"Fig. 9: bsld quantiles by scope at {pool} TB/rack", path))
    base = t.get(("base", "fm"), {}).get("thr_per_dollar")
    ratio = [get(f"rack{x}", "fm", "thr_per_dollar") for x in pools]
    if base and any(v is not None for v in ratio):
        path = line_plot(
            pools,
            {
                "FM, rack pools": [v / base if v is not None else None for v in ratio],
                "baseline (512 GB nodes)": [1.0] * len(pools),
            },
            out / "fm-fig10-thr-per-dollar.png",
            xlabel="pool per rack (TB)",
            ylabel="throughput per memory dollar / baseline",
            title="Fig. 10: cost-benefit",
        )
        figs.append(("Fig. 10: throughput per memory dollar", path))
    mem = {
        label: [get(config, "fm", f"mem_hist_{i:02d}") for i in range(_MEM_BINS)]
        for label, config in (("baseline", "base"), ("28 TB/rack", "rack28"))
    }
    mem = {k: v for k, v in mem.items() if None not in v}
    if mem:
        path = line_plot(
            [f"{10 * i}%" for i in range(_MEM_BINS)],
            mem,
            out / "fm-fig11-memory-utilisation.png",
            xlabel="memory utilisation (10% bins)",
            ylabel="fraction of time",
            title="Fig. 11: memory utilisation, FM",
            bar=True,
        )
        figs.append(("Fig. 11: memory utilisation histogram", path))
    deg = [get("rack28", "fm", f"deg_hist_{i:02d}") for i in range(_DEG_BINS)]
    if None not in deg:
        last = max((i for i, v in enumerate(deg) if v), default=0) + 1
        path = line_plot(
            [f"{5 * i}%" for i in range(last)],
            {"FM, 28 TB/rack": deg[:last]},
            out / "fm-fig12-degradation.png",
            xlabel="runtime degradation (5% bins)",
            ylabel="fraction of evaluated jobs",
            title="Fig. 12: job degradation, FM at 28 TB/rack",
            bar=True,
        )
        figs.append(("Fig. 12: degradation histogram at 28 TB/rack", path))
    return figs, []
