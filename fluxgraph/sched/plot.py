"""PNG figures of a simulation (the ``plot`` extra, matplotlib): the schedule as a Gantt chart
(jobs on node ranks over time), node and core utilisation over time, and queued and running
jobs over time. Every figure has a title; time runs in hours (days beyond three days) from
the trace's first submission."""

from __future__ import annotations

from pathlib import Path

from fluxgraph.errors import SimulationError
from fluxgraph.sched.records import SimulationResult

__all__ = ["plot_result", "running_series", "time_axis", "utilisation_series"]


def utilisation_series(result: SimulationResult, per: str = "nodes") -> list[tuple[int, float]]:
    """``(time, busy share)`` of nodes (or ``per="cores"``) at every start and end, as a step
    series.

    >>> from fluxgraph.sched.records import JobRecord
    >>> from fluxgraph.workload import Job
    >>> r = SimulationResult([JobRecord(Job(1, 0, 5, 5), 0, 5, (0,), 1)], [], 2, 4, "easy")
    >>> utilisation_series(r), utilisation_series(r, "cores")
    ([(0, 0.5), (5, 0.0)], [(0, 0.25), (5, 0.0)])
    """
    total = result.total_nodes if per == "nodes" else result.total_cores
    steps = _steps(result, lambda r: len(r.nodes) if per == "nodes" else r.cores)
    return [(t, busy / total) for t, busy in steps] if total else []


def running_series(result: SimulationResult) -> list[tuple[int, int]]:
    """``(time, jobs running)`` at every start and end, as a step series.

    >>> from fluxgraph.sched.records import JobRecord
    >>> from fluxgraph.workload import Job
    >>> jobs = [JobRecord(Job(1, 0, 5, 5), 0, 5, (0,)), JobRecord(Job(2, 0, 5, 5), 2, 7, (1,))]
    >>> running_series(SimulationResult(jobs, [], 2, 2, "easy"))
    [(0, 1), (2, 2), (5, 1), (7, 0)]
    """
    return _steps(result, lambda r: 1)


def _steps(result: SimulationResult, weight) -> list[tuple[int, int]]:
    deltas: dict[int, int] = {}
    for r in result.jobs:
        if r.completed:
            deltas[r.start] = deltas.get(r.start, 0) + weight(r)
            deltas[r.end] = deltas.get(r.end, 0) - weight(r)
    level, out = 0, []
    for t in sorted(deltas):
        level += deltas[t]
        out.append((t, level))
    return out


def time_axis(result: SimulationResult) -> tuple[int, float, str]:
    """``(origin, seconds per unit, label)`` of the figures' time axis: hours from the first
    submission, or days when the run spans more than three days.

    >>> from fluxgraph.sched.records import JobRecord
    >>> from fluxgraph.workload import Job
    >>> time_axis(SimulationResult([JobRecord(Job(1, 600, 5, 5), 700, 705)], [], 1, 1, "easy"))
    (600, 3600.0, 'time since the first submission (hours)')
    """
    origin = min((r.job.submit for r in result.jobs), default=0)
    end = max((r.end for r in result.jobs if r.completed), default=origin)
    if end - origin > 3 * 86400:
        return origin, 86400.0, "time since the first submission (days)"
    return origin, 3600.0, "time since the first submission (hours)"


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
    origin, unit, xlabel = time_axis(result)
    suffix = f" ({title})" if title else ""
    paths = []
    fig, ax = plt.subplots(figsize=(10, 5))
    polys, colours = [], []
    cmap = plt.get_cmap("tab20")
    for i, r in enumerate(j for j in result.jobs if j.completed):
        x0, x1 = (r.start - origin) / unit, (r.end - origin) / unit
        for lo, hi in _ranges(r.nodes):
            polys.append([(x0, lo), (x1, lo), (x1, hi + 1), (x0, hi + 1)])
            colours.append(cmap(i % 20))
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors="black", linewidths=0.3))
    ax.autoscale()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("node rank")
    ax.set_title(f"Schedule: jobs on nodes over time, one colour a job{suffix}")
    paths.append(_save(fig, out / "gantt.png", plt))
    figures = (
        (
            "utilisation.png",
            "Utilisation: share of the machine busy",
            "busy share (0-1)",
            [
                ("nodes", utilisation_series(result, "nodes")),
                ("cores", utilisation_series(result, "cores")),
            ],
        ),
        (
            "queue.png",
            "Jobs queued and running",
            "jobs",
            [("queued", result.queue_length), ("running", running_series(result))],
        ),
    )
    for name, heading, ylabel, series in figures:
        fig, ax = plt.subplots(figsize=(10, 3))
        for (label, points), style in zip(series, ("-", "--"), strict=True):
            if points:  # the second series dashed: it may lie on the first
                xs, ys = zip(*points, strict=True)
                xs = [(x - origin) / unit for x in xs]
                ax.step(xs, ys, style, where="post", label=label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{heading}{suffix}")
        ax.legend(loc="upper right")
        paths.append(_save(fig, out / name, plt))
    return paths


def _save(fig, path: Path, plt) -> Path:
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path
