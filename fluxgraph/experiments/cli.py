"""``fluxgraph sweep``, ``fluxgraph sweep export``, ``fluxgraph report``, ``fluxgraph reproduce``.

    fluxgraph sweep EXPERIMENT.yaml --out DIR [--workers N] [--dask ADDRESS|local|jobqueue]
    fluxgraph sweep export DIR --csv [PATH] | --parquet [PATH] [--long]
    fluxgraph report DIR [--metric M,...] [--rows AXES] [--cols AXES] [--plot AXIS]
    fluxgraph reproduce STUDY [--quick] [--compat MODE] [--out DIR] [--workers N] [--dask ...]
                        [--only AXIS=V[,V...]] [--report-only]

Bad input (an invalid experiment, an unknown axis) is reported in one message naming the key,
with exit status 2 and nothing run or written; an interrupted sweep exits 130 and resumes when
the same command is run again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from fluxgraph.errors import FluxgraphError
from fluxgraph.sched.cli import positive_int

__all__ = ["COMMANDS", "add_parsers", "run"]

COMMANDS = ("sweep", "report", "reproduce")


def _csv_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers", type=positive_int, help="worker processes (default: the CPU count; 1 = inline)"
    )
    p.add_argument(
        "--dask",
        metavar="ADDRESS|local|jobqueue|CLUSTER.yaml",
        help="run on Dask: a scheduler address, a LocalCluster of --workers workers, the "
        "experiment's dask-jobqueue 'cluster' section, or a file holding one "
        "(pip install 'fluxgraph[dask]')",
    )
    p.add_argument("--retry-failed", action="store_true", help="run failed cells again")
    p.add_argument("--verbose", action="store_true", help="a log line per finished cell")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")


def add_parsers(subparsers) -> None:
    """Add ``sweep``, ``report`` and ``reproduce`` to ``subparsers``."""
    p = subparsers.add_parser(
        "sweep",
        help="run an experiment grid (resumable), or export its results",
        description="Run the grid of EXPERIMENT.yaml into DIR (re-running resumes), or with "
        "'sweep export DIR' write DIR's results as CSV or Parquet.",
    )
    p.add_argument("target", nargs="+", metavar="EXPERIMENT.yaml | export DIR")
    p.add_argument("--out", help="result directory (created; required to run)")
    p.add_argument("--quick", action="store_true", help="the experiment's reduced 'quick' grid")
    _run_options(p)
    p.add_argument(
        "--csv",
        nargs="?",
        const="",
        metavar="PATH",
        help="export: CSV (default DIR/results-wide.csv)",
    )
    p.add_argument(
        "--parquet",
        nargs="?",
        const="",
        metavar="PATH",
        help="export: Parquet (needs pandas and pyarrow; default DIR/results.parquet)",
    )
    p.add_argument("--long", action="store_true", help="export: one row per cell and metric")

    p = subparsers.add_parser(
        "report",
        help="tables (and PNG plots) of a sweep's results",
        description="Print metric tables of DIR: rows are combinations of --rows axes, columns "
        "the metrics or (one metric) the values of --cols axes; entries aggregate the other "
        "axes (e.g. seeds). --plot AXIS draws each metric against AXIS, one line per --series.",
    )
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--metric", type=_csv_list, help="metrics (default: all kept)")
    p.add_argument(
        "--rows",
        type=_csv_list,
        help="row axes (default: every varying axis but seed and the --cols axes)",
    )
    p.add_argument("--cols", type=_csv_list, default=[], help="column axes (one table per metric)")
    p.add_argument("--agg", default="mean", help="mean, median, min, max, std or count")
    p.add_argument("--format", default="text", choices=("text", "md", "csv"))
    p.add_argument("--plot", metavar="AXIS", help="PNG of each metric against AXIS")
    p.add_argument(
        "--series",
        type=_csv_list,
        help="one line per combination of these axes (default: the varying axes but AXIS and seed)",
    )
    p.add_argument("--bar", action="store_true", help="grouped bars instead of lines")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--plot-dir", help="where PNGs go (default: DIR/plots)")
    p.add_argument("--failed", action="store_true", help="list the failed cells and errors")

    from fluxgraph.experiments.studies import STUDIES

    p = subparsers.add_parser(
        "reproduce",
        help="run a paper study and write results.csv, report.md and figures",
        description="Run a bundled study (" + ", ".join(STUDIES) + ") and write "
        "DIR/results.csv, DIR/report.md (our numbers beside the paper's, with criteria) and "
        "its PNG figures.",
    )
    p.add_argument("study", choices=tuple(STUDIES))
    p.add_argument("--quick", action="store_true", help="the reduced grid (under 2 minutes)")
    p.add_argument("--out", help="result directory (default: reproduce-STUDY[-quick])")
    p.add_argument(
        "--compat",
        default="",
        metavar="MODE",
        help="the study's grid under another simulator's rules (fm: fm-simulator)",
    )
    p.add_argument(
        "--only",
        action="append",
        type=_only_item,
        metavar="AXIS=V[,V...]",
        help="run and report only the cells with these axis values (repeatable; e.g. "
        "--only experiment=E2 --only window=0)",
    )
    p.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: write results.csv and report.md from the cells done in DIR",
    )
    _run_options(p)


def _only_item(text: str) -> tuple[str, list]:
    """``AXIS=V[,V...]`` -> ``(AXIS, [values])``, each value read as YAML (``0`` is a number)."""
    key, sep, values = text.partition("=")
    if not sep or not key or not values:
        raise argparse.ArgumentTypeError(f"{text!r}: expected AXIS=VALUE[,VALUE...]")
    try:
        return key, [yaml.safe_load(v) for v in values.split(",")]
    except yaml.YAMLError:
        raise argparse.ArgumentTypeError(f"{text!r}: a value is not valid YAML") from None


def _error(command: str, err: Exception) -> int:
    print(f"fluxgraph {command}: error: {err}", file=sys.stderr)
    return 2


def _summary(result, stream=None) -> None:
    stream = stream if stream is not None else sys.stdout
    state = "interrupted" if result.interrupted else "finished"
    if result.ran:
        ran = (
            f"{result.ran} run now on {result.backend} in {result.seconds:.1f} s "
            f"({result.cells_per_second:.2f} cells/s)"
        )
    else:
        ran = "nothing left to run"
    print(
        f"sweep {state}: {result.done}/{result.total} cells done, {result.failed} failed; "
        f"{ran}; results in {result.out_dir}/",
        file=stream,
    )
    if result.interrupted:
        print("re-run the same command to resume", file=stream)


def _sweep(args) -> int:
    from fluxgraph.experiments.report import export
    from fluxgraph.experiments.runner import run_sweep
    from fluxgraph.experiments.spec import load_experiment

    if args.target[0] == "export":
        if len(args.target) != 2:
            return _error("sweep export", ValueError("usage: fluxgraph sweep export DIR --csv"))
        out = Path(args.target[1])
        fmt = "parquet" if args.parquet is not None else "csv"
        given = args.parquet if fmt == "parquet" else args.csv
        default = "results.parquet" if fmt == "parquet" else "results-wide.csv"
        if args.long and not given:
            default = default.replace("-wide", "-long").replace("results.", "results-long.")
        path = Path(given) if given else out / default
        try:
            n = export(out, path, fmt, long=args.long)
        except FluxgraphError as err:
            return _error("sweep export", err)
        print(f"{n} rows written to {path}")
        return 0
    if len(args.target) != 1:
        return _error("sweep", ValueError("give one EXPERIMENT.yaml (or: sweep export DIR)"))
    if not args.out:
        return _error("sweep", ValueError("--out DIR is required"))
    try:
        exp = load_experiment(args.target[0])
        if args.quick:
            exp = exp.quick()
        result = run_sweep(
            exp,
            args.out,
            workers=args.workers,
            dask=args.dask,
            retry_failed=args.retry_failed,
            progress=False if args.quiet else None,
            verbose=args.verbose,
        )
    except FluxgraphError as err:
        return _error("sweep", err)
    if not args.quiet:
        _summary(result)
    if result.interrupted:
        return 130
    return _all_failed("sweep", result)


def _all_failed(command: str, result) -> int:
    """1 (naming the first failure) when every cell of the grid failed, else 0."""
    if not result.all_failed:
        return 0
    print(
        f"fluxgraph {command}: error: all {result.total} cells failed; the first: "
        f"{result.first_failure}",
        file=sys.stderr,
    )
    return 1


def _report(args) -> int:
    from fluxgraph.experiments.report import (
        format_table,
        pivot,
        plot_metric,
        varying_axes,
    )
    from fluxgraph.experiments.store import ResultStore

    try:
        with ResultStore(args.dir, readonly=True) as store:
            rows = list(store.rows())
            counts = store.counts()
            failed = list(store.rows(status=("failed",))) if args.failed else []
            exp = store.experiment() or {}
        print(
            f"{exp.get('name', '?')}: {counts['done']} cells done, {counts['failed']} failed, "
            f"{counts['pending']} pending"
        )
        for row in failed:
            print(f"  FAILED {row.cell_id} {row.axes}: {row.error}")
        if not rows:
            return 0
        varying = varying_axes(rows)
        known = {k for r in rows for k in r.params}
        metrics = args.metric or exp.get("metrics") or sorted({m for r in rows for m in r.metrics})
        have = {m for r in rows for m in r.metrics}
        for name in [
            *(args.rows or []),
            *args.cols,
            *([args.plot] if args.plot else []),
            *(args.series or []),
        ]:
            if name not in known:
                raise FluxgraphError(f"no axis {name!r} (axes: {', '.join(varying) or 'none'})")
        for m in metrics:
            if m not in have:
                raise FluxgraphError(f"no metric {m!r} (metrics: {', '.join(sorted(have))})")
        row_axes = (
            args.rows
            if args.rows is not None
            else [a for a in varying if a != "seed" and a not in args.cols]
        )
        if args.cols:
            for m in metrics:
                header, body = pivot(rows, [m], row_axes, args.cols, args.agg)
                print(f"\n{m} ({args.agg})")
                print(format_table(header, body, args.format))
        else:
            header, body = pivot(rows, metrics, row_axes, (), args.agg)
            print()
            print(format_table(header, body, args.format))
        if args.plot:
            series = (
                args.series
                if args.series is not None
                else [a for a in varying if a not in ("seed", args.plot)]
            )
            plot_dir = Path(args.plot_dir) if args.plot_dir else Path(args.dir) / "plots"
            for m in metrics:
                path = plot_dir / f"{m.replace('/', '_')}-vs-{args.plot}.png"
                plot_metric(
                    rows,
                    m,
                    args.plot,
                    series,
                    path,
                    bar=args.bar,
                    agg=args.agg,
                    title=f"{exp.get('name', '')}: {m}",
                    logx=args.logx,
                )
                print(f"wrote {path}")
    except FluxgraphError as err:
        return _error("report", err)
    return 0


def _reproduce(args) -> int:
    from fluxgraph.experiments.studies import reproduce

    only: dict[str, list] = {}
    for key, values in args.only or []:
        only.setdefault(key, []).extend(values)
    try:
        result, report = reproduce(
            args.study,
            args.out,
            quick=args.quick,
            compat=args.compat,
            workers=args.workers,
            dask=args.dask,
            retry_failed=args.retry_failed,
            progress=False if args.quiet else None,
            verbose=args.verbose,
            only=only or None,
            report_only=args.report_only,
        )
    except FluxgraphError as err:
        return _error("reproduce", err)
    if args.report_only and not args.quiet:
        print(
            f"report only: {result.done}/{result.total} cells done, {result.failed} failed "
            f"in {result.out_dir}/ (nothing run)"
        )
    elif not args.quiet:
        _summary(result)
    if report is None:
        return 130
    if not args.quiet:
        required = [c for c in report.criteria if c.required]
        held = sum(bool(c.passed) for c in required if c.passed is not None)
        evaluated = sum(c.passed is not None for c in required)
        print(f"{report.title}: {held} of {evaluated} criteria hold")
        for c in report.criteria:
            mark = {True: "pass", False: "FAIL", None: "n/a "}[c.passed] if c.required else c.claim
            print(f"  {c.id} {mark}  {c.rule}")
        print(f"report: {result.out_dir / 'report.md'}")
    return _all_failed("reproduce", result)


def run(args: argparse.Namespace) -> int:
    """Run the parsed ``sweep``/``report``/``reproduce`` command; the exit status."""
    return {"sweep": _sweep, "report": _report, "reproduce": _reproduce}[args.command](args)
