"""Tables and figures of a sweep's results, and their exports.

:func:`pivot` aggregates a metric over the cells sharing the chosen *row* and *column* axes
(mean over seeds by default); :func:`format_table` prints it as text, Markdown or CSV;
:func:`plot_metric` draws a metric against one axis, one line (or bar group) per series (per
scheduler), as PNG (needs matplotlib, the ``plot`` extra); :func:`export` writes the results as
one wide CSV/Parquet row per cell, or long rows ``cell_id, axes..., metric, value``.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fluxgraph.errors import ExperimentError
from fluxgraph.experiments.spec import canonical
from fluxgraph.experiments.store import CellRow, ResultStore
from fluxgraph.sched.metrics import format_number

__all__ = [
    "AGGREGATES",
    "export",
    "format_table",
    "label",
    "line_plot",
    "pivot",
    "plot_metric",
    "varying_axes",
]


def _std(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


#: Aggregates over the cells that share a table entry (e.g. the seeds).
AGGREGATES: dict[str, Callable[[Sequence[float]], float]] = {
    "mean": statistics.fmean,
    "median": statistics.median,
    "min": min,
    "max": max,
    "std": _std,
    "count": len,
}


def label(value: Any) -> str:
    """A parameter value as table text: scalars as themselves, mappings as ``k=v,k=v``.

    >>> label(100), label("easy"), label({"generator": "lublin", "n_jobs": 50}), label([1, 2])
    ('100', 'easy', 'generator=lublin,n_jobs=50', '1,2')
    """
    if isinstance(value, Mapping):
        return ",".join(f"{k}={label(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ",".join(label(v) for v in value)
    return str(value)


def varying_axes(rows: Iterable[CellRow]) -> list[str]:
    """The axes (in grid order) that take more than one value among ``rows``."""
    seen: dict[str, set[str]] = {}
    for row in rows:
        for key, value in row.axes.items():
            seen.setdefault(key, set()).add(canonical(value))
    return [k for k, values in seen.items() if len(values) > 1]


def _sort_key(text: str) -> tuple:
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)


def _key(row: CellRow, axes: Sequence[str]) -> tuple[str, ...]:
    return tuple(label(row.params.get(a, "")) for a in axes)


def pivot(
    rows: Sequence[CellRow],
    metrics: Sequence[str],
    row_axes: Sequence[str],
    col_axes: Sequence[str] = (),
    agg: str = "mean",
) -> tuple[list[str], list[list[Any]]]:
    """A table: one row per combination of ``row_axes``; columns are the ``metrics`` (no
    ``col_axes``) or, for a single metric, the combinations of ``col_axes``. Each entry
    aggregates (``agg``) the cells that share it; ``None`` where there is none.

    Returns ``(header, body)``.
    """
    if agg not in AGGREGATES:
        raise ExperimentError(f"unknown aggregate {agg!r} (valid: {', '.join(AGGREGATES)})")
    fn = AGGREGATES[agg]
    if col_axes and len(metrics) != 1:
        raise ExperimentError("a table with column axes shows one metric at a time")
    groups: dict[tuple, dict[tuple, list[float]]] = {}
    cols: set[tuple] = set()
    for row in rows:
        rkey = _key(row, row_axes)
        for metric in metrics:
            value = row.metrics.get(metric)
            if value is None:
                continue
            ckey = _key(row, col_axes) if col_axes else (metric,)
            cols.add(ckey)
            groups.setdefault(rkey, {}).setdefault(ckey, []).append(value)
    if col_axes:
        col_keys = sorted(cols, key=lambda k: [_sort_key(x) for x in k])
    else:
        col_keys = [(m,) for m in metrics]
    header = [*row_axes, *("/".join(k) for k in col_keys)]
    body = []
    for rkey in sorted(groups, key=lambda k: [_sort_key(x) for x in k]):
        entries = groups[rkey]
        body.append([*rkey, *(fn(entries[c]) if c in entries else None for c in col_keys)])
    return header, body


def _cell_text(value: Any) -> str:
    """A table cell: ``-`` for no value, numbers by :func:`~fluxgraph.sched.metrics.format_number`.

    >>> [_cell_text(v) for v in (9159.5, 3140.0, None, "x")]
    ['9159.5', '3140', '-', 'x']
    """
    if value is None:
        return "-"
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def format_table(header: Sequence[str], body: Sequence[Sequence[Any]], fmt: str = "text") -> str:
    """``header`` and ``body`` as aligned ``text``, Markdown (``md``) or ``csv``."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([["" if v is None else v for v in r] for r in body])
        return out.getvalue().rstrip("\n")
    cells = [[_cell_text(v) for v in r] for r in body]
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in cells]
        return "\n".join(lines)
    if fmt != "text":
        raise ExperimentError(f"unknown table format {fmt!r} (valid: text, md, csv)")
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    numeric = [
        all(_sort_key(r[i])[0] == 0 or r[i] == "-" for r in cells) for i in range(len(header))
    ]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, cells)])


def pyplot():
    """matplotlib's ``pyplot`` on the file-only Agg backend (ExperimentError without the
    ``plot`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ExperimentError("plots need matplotlib: pip install 'fluxgraph[plot]'") from None
    return plt


def line_plot(
    xs: Sequence[Any],
    series: Mapping[str, Sequence[float | None]],
    path: str | Path,
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    bar: bool = False,
    logx: bool = False,
    logy: bool = False,
    errors: Mapping[str, Sequence[float | None]] | None = None,
) -> Path:
    """Draw ``series`` (label -> y per x) against ``xs`` as lines (or grouped bars) to
    ``path`` (PNG)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    numeric = not bar and all(_sort_key(str(x))[0] == 0 for x in xs)
    positions = [float(x) for x in xs] if numeric else list(range(len(xs)))
    width = 0.8 / max(len(series), 1)
    for i, (name, ys) in enumerate(series.items()):
        err = (errors or {}).get(name)
        pts = [
            (p, y, (err[j] if err else None))
            for j, (p, y) in enumerate(zip(positions, ys, strict=True))
            if y is not None
        ]
        if not pts:
            continue
        px, py, pe = zip(*pts, strict=True)
        yerr = [e or 0.0 for e in pe] if err else None
        if bar:
            offset = (i - (len(series) - 1) / 2) * width
            ax.bar([p + offset for p in px], py, width, label=name, yerr=yerr, capsize=2)
        else:
            ax.errorbar(px, py, yerr=yerr, marker="o", capsize=2, label=name)
    if not numeric:
        ax.set_xticks(positions, [str(x) for x in xs])
    if logx and numeric:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if len(series) > 1 or bar:
        ax.legend(fontsize="small")
    out = save_figure(fig, path)
    plt.close(fig)
    return out


def save_figure(fig, path: str | Path) -> Path:
    """Lay out ``fig`` and write it to ``path`` (its folder created); the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out)
    return out


def plot_metric(
    rows: Sequence[CellRow],
    metric: str,
    x: str,
    series: Sequence[str],
    path: str | Path,
    *,
    bar: bool = False,
    agg: str = "mean",
    title: str = "",
    logx: bool = False,
    logy: bool = False,
) -> Path:
    """``metric`` (aggregated over the other axes, with their standard deviation as error
    bars) against axis ``x``, one line or bar group per combination of ``series``."""
    header, body = pivot(rows, [metric], list(series), [x], agg)
    _, spread = pivot(rows, [metric], list(series), [x], "std")
    if not body:
        raise ExperimentError(f"no values of metric {metric!r} to plot")
    xs = header[len(series) :]
    n = len(series)
    lines = {" ".join(r[:n]) or metric: r[n:] for r in body}
    errors = {" ".join(r[:n]) or metric: r[n:] for r in spread}
    return line_plot(
        xs,
        lines,
        path,
        xlabel=x,
        ylabel=metric,
        title=title,
        bar=bar,
        logx=logx,
        logy=logy,
        errors=errors,
    )


def export(out_dir: str | Path, path: str | Path, fmt: str = "csv", long: bool = False) -> int:
    """Write the done cells of the sweep in ``out_dir`` to ``path`` (``csv`` or ``parquet``);
    returns the number of rows written. Wide: one row per cell (``cell_id``, every parameter,
    every metric); long: one row per cell and metric."""
    with ResultStore(out_dir, readonly=True) as store:
        rows = list(store.rows())
    params = list(dict.fromkeys(k for r in rows for k in r.params))
    metrics = list(dict.fromkeys(m for r in rows for m in r.metrics))

    def param(row: CellRow, key: str) -> Any:
        value = row.params.get(key)
        return canonical(value) if isinstance(value, dict | list) else value

    if long:
        header = ["cell_id", *params, "metric", "value"]
        table = [
            [r.cell_id, *(param(r, k) for k in params), m, v]
            for r in rows
            for m, v in r.metrics.items()
        ]
    else:
        header = ["cell_id", *params, *metrics]
        table = [
            [r.cell_id, *(param(r, k) for k in params), *(r.metrics.get(m) for m in metrics)]
            for r in rows
        ]
    target = Path(path)
    if fmt == "csv":
        target.write_text(format_table(header, table, "csv") + "\n")
    elif fmt == "parquet":
        try:
            import pandas as pd
        except ImportError:
            raise ExperimentError("--parquet needs pandas and pyarrow") from None
        frame = pd.DataFrame(table, columns=header)
        try:
            frame.to_parquet(target, index=False)
        except ImportError as err:
            raise ExperimentError(f"--parquet needs pyarrow (or fastparquet): {err}") from None
    else:
        raise ExperimentError(f"unknown export format {fmt!r} (valid: csv, parquet)")
    return len(table)
