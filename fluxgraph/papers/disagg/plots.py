"""Figures of the ``disagg`` study: the paper's Fig. 1 (utilisation over time), Fig. 5
(normalised throughput against S per mix), Fig. 6 (response-time CDFs) and Fig. 7 (CPU against
memory utilisation per cell). Each takes plain numbers; matplotlib is the ``plot`` extra."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from fluxgraph.experiments.report import pyplot, save_figure

__all__ = ["plot_cdfs", "plot_nt", "plot_timelines", "plot_utilisation"]

Series = Sequence[tuple[float, float]]
LABELS = {"base": "A-base", "dis": "A-dis"}


def plot_timelines(panels: Mapping[str, Sequence[tuple[int, float, float]]], path: Path) -> Path:
    """Fig. 1: CPU and memory utilisation sampled over time, one panel per run, the run's
    means dashed."""
    plt = pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.6 * len(panels)), dpi=100)
    axes = list(axes) if len(panels) > 1 else [axes]
    for ax, (title, samples) in zip(axes, panels.items(), strict=True):
        t0 = samples[0][0] if samples else 0
        hours = [(t - t0) / 3600 for t, _, _ in samples]
        for idx, (name, colour) in enumerate((("CPU", "C0"), ("memory", "C1")), start=1):
            ys = [s[idx] for s in samples]
            mean = sum(ys) / len(ys) if ys else 0.0
            ax.plot(hours, ys, color=colour, linewidth=0.8, label=f"{name} (mean {mean:.0%})")
            ax.axhline(mean, color=colour, linestyle="--", linewidth=0.8)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("utilisation")
        ax.set_title(title, fontsize="small", loc="left")
        ax.legend(fontsize="small", loc="lower right")
    axes[-1].set_xlabel("time (h)")
    out = save_figure(fig, path)
    plt.close(fig)
    return out


def plot_nt(
    systems: Sequence[int],
    nt: Mapping[int, Mapping[str, Sequence[float | None]]],
    savings: Mapping[int, str],
    path: Path,
) -> Path:
    """Fig. 5: bars of normalised throughput against S (one panel per mix X, A-base beside
    A-dis); the panel title carries the mix's memory savings."""
    plt = pyplot()
    mixes = list(nt)
    cols = min(3, len(mixes))
    rows = (len(mixes) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), dpi=100, squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, x in zip(flat, mixes, strict=False):
        for i, alloc in enumerate(("base", "dis")):
            ys = nt[x][alloc]
            pos = [j + (i - 0.5) * 0.4 for j, y in enumerate(ys) if y is not None]
            ax.bar(pos, [y for y in ys if y is not None], 0.4, label=LABELS[alloc])
        ax.axhline(0.95, color="0.5", linestyle=":", linewidth=0.8)
        ax.set_xticks(range(len(systems)), [f"{s}%" for s in systems])
        ax.set_ylim(0, 1.1)
        ax.set_title(f"X = {x}%  {savings.get(x, '')}", fontsize="small")
        ax.set_xlabel("large nodes S")
        ax.set_ylabel("normalised throughput")
    for ax in flat[len(mixes) :]:
        ax.axis("off")
    flat[0].legend(fontsize="small", loc="lower right")
    out = save_figure(fig, path)
    plt.close(fig)
    return out


def plot_cdfs(panels: Mapping[str, Mapping[str, Sequence[float]]], path: Path) -> Path:
    """Fig. 6: CDFs of response time (hours, log scale), one panel per (S, X)."""
    plt = pyplot()
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), dpi=100, squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, (title, curves) in zip(flat, panels.items(), strict=False):
        for alloc, responses in curves.items():
            xs = sorted(r / 3600 for r in responses)
            ys = [(i + 1) / len(xs) for i in range(len(xs))]
            ax.step(xs, ys, where="post", label=LABELS.get(alloc, alloc))
        ax.set_xscale("log")
        ax.set_title(title, fontsize="small")
        ax.set_xlabel("response time (h)")
        ax.set_ylabel("CDF")
        ax.grid(True, alpha=0.3)
    for ax in flat[len(panels) :]:
        ax.axis("off")
    flat[0].legend(fontsize="small", loc="lower right")
    out = save_figure(fig, path)
    plt.close(fig)
    return out


def plot_utilisation(points: Mapping[str, Series], path: Path) -> Path:
    """Fig. 7: (CPU, memory) utilisation of every cell, one marker set per group."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2), dpi=100)
    for name, pts in points.items():
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.scatter(xs, ys, s=18, label=name)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("CPU utilisation")
    ax.set_ylabel("memory utilisation")
    ax.set_title("Fig. 7: CPU against memory utilisation per cell")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    out = save_figure(fig, path)
    plt.close(fig)
    return out
