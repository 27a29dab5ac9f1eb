"""Figures of the ``ioaware`` study: the paper's Fig. 3/5 (throughput and running jobs over
time, one panel per scheduler), Fig. 4 (throughput against concurrent writers) and Fig. 6
(makespans over noisy repeats)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from fluxgraph.experiments.report import pyplot, save_figure
from fluxgraph.papers.ioaware.metrics import concurrency, sample
from fluxgraph.papers.ioaware.run import IORun
from fluxgraph.papers.ioaware.workload import THREADS

__all__ = ["plot_curve", "plot_makespans", "plot_runs"]


def plot_runs(runs: Mapping[str, IORun], nodes: int, path: Path, title: str) -> Path:
    """One panel per run: delivered GiB/s (10 s means, left axis) and running jobs per type
    (right axis), as the paper's Fig. 3 and Fig. 5; times in seconds whatever the run's clock."""
    plt = pyplot()
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 2.3 * len(runs)), dpi=100, sharex=True)
    axes = list(axes) if len(runs) > 1 else [axes]
    end = max(r.makespan_s for r in runs.values())
    for ax, (name, run) in zip(axes, runs.items(), strict=True):
        k = run.ticks_per_s
        times, rates = sample(run.filesystem.steps, run.makespan, every=10.0 * k)
        ax.fill_between([t / k for t in times], rates, step="pre", color="0.8", label="GiB/s")
        ax.set_ylabel("GiB/s")
        ax.set_ylim(0, 17)
        ax.set_title(f"{name}: makespan {run.makespan_s:g} s", fontsize="small", loc="left")
        twin = ax.twinx()
        for kind in THREADS:
            steps = concurrency(run.result.jobs, kind)
            if len(steps) > 1:
                xs, ys = zip(*steps, strict=True)
                twin.step([x / k for x in xs], ys, where="post", linewidth=0.8, label=kind)
        twin.set_ylim(0, nodes + 0.5)
        twin.set_ylabel("running jobs")
        if run.log.target:
            ax.plot([t / k for t in run.log.times], run.log.target, ":", color="k",
                    linewidth=0.8, label="R~")  # fmt: skip
    axes[0].figure.suptitle(title)
    handles, labels = [], []
    for axis in (axes[-1], twin):
        h, lab = axis.get_legend_handles_labels()
        handles += h
        labels += lab
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(0, end)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    out = path
    plt.close(fig)
    return out


def plot_curve(ours: Sequence[float], spec: Sequence[float], path: Path) -> Path:
    """X1: delivered GiB/s against concurrent write8 jobs, ours beside the spec's table."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    ax.plot(range(len(ours)), ours, "o-", label="fluid model")
    ax.plot(range(1, len(spec) + 1), spec, "x", color="k", label="spec §5.1 table")
    ax.axhline(15, linestyle=":", color="0.5", label="long-term ~15 GiB/s")
    ax.set_xlabel("concurrent write8 jobs (8 streams each)")
    ax.set_ylabel("aggregate GiB/s")
    ax.set_title("Fig. 4 shape: concave file-system throughput")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    out = save_figure(fig, path)
    plt.close(fig)
    return out


def plot_makespans(
    noisy: Mapping[str, Sequence[float]], deterministic: Mapping[str, float | None], path: Path
) -> Path:
    """Fig. 6: box plots of the noisy makespans per run, the deterministic run as a cross."""
    plt = pyplot()
    names = [n for n in deterministic if noisy.get(n)]
    fig, ax = plt.subplots(figsize=(7, 3.8), dpi=100)
    ax.boxplot([noisy[n] for n in names], tick_labels=names)
    det = [deterministic[n] for n in names]
    ax.plot(range(1, len(names) + 1), det, "x", color="k", label="deterministic model")
    ax.set_ylabel("makespan (s)")
    ax.set_title("W2 makespan over noisy runs (Fig. 6)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    out = save_figure(fig, path)
    plt.close(fig)
    return out
