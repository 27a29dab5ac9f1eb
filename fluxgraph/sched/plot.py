"""PNG figures of a simulation (the ``plot`` extra, matplotlib): the schedule as a Gantt chart
(jobs on node ranks over time), node utilisation over time and queue length over time."""

from __future__ import annotations

from pathlib import Path

from fluxgraph.errors import SimulationError
from fluxgraph.sched.records import SimulationResult

__all__ = ["plot_result", "utilisation_series"]


def utilisation_series(result: SimulationResult) -> list[tuple[int, float]]:
    """``(time, busy nodes / total nodes)`` at every start and end, as a step series.

    >>> from fluxgraph.sched.records import JobRecord
    >>> from fluxgraph.workload import Job
    >>> r = SimulationResult([JobRecord(Job(1, 0, 5, 5), 0, 5, (0,))], [], 2, 2, "easy")
    >>> utilisation_series(r)
    [(0, 0.5), (5, 0.0)]
    """
    deltas: dict[int, int] = {}
    for r in result.jobs:
        if r.completed:
            deltas[r.start] = deltas.get(r.start, 0) + len(r.nodes)
            deltas[r.end] = deltas.get(r.end, 0) - len(r.nodes)
    busy, out = 0, []
    for t in sorted(deltas):
        busy += deltas[t]
        out.append((t, busy / result.total_nodes))
    return out


def _ranges(nodes: tuple[int, ...]) -> list[tuple[int, int]]:
    """Runs of consecutive ranks: ``(0, 1, 2, 5)`` -> ``[(0, 2), (5, 5)]``."""
    out: list[tuple[int, int]] = []
    for n in nodes:
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise SimulationError("plots need matplotlib: pip install 'fluxgraph[plot]'") from err
    return plt


def plot_result(result: SimulationResult, out_dir: str | Path, title: str = "") -> list[Path]:
    """Write ``gantt.png``, ``utilisation.png`` and ``queue.png`` into ``out_dir``."""
    plt = _pyplot()
    from matplotlib.collections import PolyCollection

    out = Path(out_dir)
    paths = []
    fig, ax = plt.subplots(figsize=(10, 5))
    polys, colours = [], []
    cmap = plt.get_cmap("tab20")
    for i, r in enumerate(j for j in result.jobs if j.completed):
        for lo, hi in _ranges(r.nodes):
            polys.append([(r.start, lo), (r.end, lo), (r.end, hi + 1), (r.start, hi + 1)])
            colours.append(cmap(i % 20))
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors="black", linewidths=0.3))
    ax.autoscale()
    ax.set_xlabel("time (s)")
    ax.set_ylabel("node rank")
    ax.set_title(f"Schedule{': ' + title if title else ''}")
    paths.append(out / "gantt.png")
    fig.savefig(paths[-1], dpi=120, bbox_inches="tight")
    plt.close(fig)
    for name, series, label in (
        ("utilisation.png", utilisation_series(result), "busy nodes (fraction)"),
        ("queue.png", result.queue_length, "jobs waiting"),
    ):
        fig, ax = plt.subplots(figsize=(10, 3))
        if series:
            xs, ys = zip(*series, strict=True)
            ax.step(xs, ys, where="post")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(label)
        paths.append(out / name)
        fig.savefig(paths[-1], dpi=120, bbox_inches="tight")
        plt.close(fig)
    return paths
