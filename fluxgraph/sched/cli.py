"""``fluxgraph simulate``: replay a trace on a machine under a queue policy and write outputs.

Example (the bundled sample trace on a 100-node machine)::

    fluxgraph simulate --machine nodes=100 --trace kth-sample.swf --queue easy --out out/

Writes ``out/jobs.csv`` (Batsim layout), ``out/schedule.swf`` (the simulated schedule as SWF)
and ``out/summary.json``, and with ``--plot`` the PNG figures of :mod:`fluxgraph.sched.plot`.
Bad values stop the command before anything is written; a trace with no job to replay is an
error (``--lenient``: a note, no metrics).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from fluxgraph import data
from fluxgraph.errors import FluxgraphError, SimulationError
from fluxgraph.limits import MAX_GENERATED_JOBS
from fluxgraph.machines import load_machine, parse_machine_spec
from fluxgraph.policies import POLICIES, create_policy
from fluxgraph.sched.metrics import format_number, summarize
from fluxgraph.sched.output import write_outputs
from fluxgraph.sched.priority import PRIORITIES
from fluxgraph.sched.queueing import QUEUE_POLICIES, make_queue_policy
from fluxgraph.sched.shapes import SHAPES
from fluxgraph.sched.simulator import Simulator
from fluxgraph.workload import Workload, load_workload

__all__ = ["add_parser", "positive_int", "run"]

#: Metrics printed in the closing summary table, with their labels.
_TABLE = (
    ("jobs", "jobs"),
    ("completed", "completed"),
    ("rejected", "rejected"),
    ("makespan", "makespan (s)"),
    ("mean_wait", "mean wait (s)"),
    ("median_wait", "median wait (s)"),
    ("p95_wait", "p95 wait (s)"),
    ("mean_bsld", "mean bounded slowdown"),
    ("p95_bsld", "p95 bounded slowdown"),
    ("node_utilisation", "node utilisation"),
    ("core_utilisation", "core utilisation"),
    ("throughput_per_hour", "throughput (jobs/h)"),
)


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (a clear usage error otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < 0.5:
        raise argparse.ArgumentTypeError(f"must be in [0, 0.5), got {value}")
    return value


_CUSTOM_POLICY = (
    "policy=low|high [node_centric=true] [node_exclusive=true] [stop_on_1_matches=true]"
)
#: Class packing with a start-time budget (docs/policies.md).
_BUDGET_POLICY = "classpack:slack=S[,tie=bestfit|fastest]"


def _policy(text: str) -> str:
    """An argparse type: a named match policy or a custom one (naming the choices if not)."""
    try:
        create_policy(text)
    except FluxgraphError:
        raise argparse.ArgumentTypeError(
            f"unknown policy {text!r}; choose one of {', '.join(POLICIES)}, "
            f"a budgeted '{_BUDGET_POLICY}', or a custom '{_CUSTOM_POLICY}'"
        ) from None
    return text


def _columns(text: str) -> dict[str, str]:
    """An argparse type: a CSV column mapping ``field=column[,field=column...]``."""
    mapping: dict[str, str] = {}
    for piece in text.split(","):
        field, sep, column = (part.strip() for part in piece.partition("="))
        if not sep or not field or not column:
            raise argparse.ArgumentTypeError(
                f"bad item {piece!r} in {text!r}: expected field=column"
            )
        mapping[field] = column
    return mapping


def _check_prune(spec: str, graph) -> None:
    """Reject a pruning filter naming a resource type the machine does not have (a typo would
    otherwise silently prune nothing)."""
    types = set(graph.by_type)
    for piece in spec.split(","):
        high, sep, low = (part.strip() for part in piece.partition(":"))
        if not sep or not high or not low:
            raise SimulationError(f"--prune {spec!r}: bad filter {piece!r} (expected HIGH:LOW)")
        for name in (high, low):
            if name != "ALL" and name not in types:
                raise SimulationError(
                    f"--prune {spec!r}: the machine has no resource type {name!r} "
                    f"(types: ALL, {', '.join(sorted(types))})"
                )


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand to ``subparsers``."""
    p = subparsers.add_parser(
        "simulate",
        help="replay a job trace on a machine graph",
        description="Replay a job trace on a machine under a queue policy and write jobs.csv "
        "(Batsim layout), schedule.swf, summary.json and, with --plot, figures.",
    )
    p.add_argument(
        "--machine",
        default="nodes=100",
        help="a bundled machine name (see --list-machines), a GRUG (.graphml) or JGF (.json) "
        "file, or a spec nodes=N[,cores=C][,gpus=G][,memory=GB][,racks=R] (default: nodes=100)",
    )
    p.add_argument(
        "--list-machines", action="store_true", help="list the bundled machines and exit"
    )
    p.add_argument("--list-traces", action="store_true", help="list the bundled traces and exit")
    p.add_argument(
        "--trace",
        default="kth-sample.swf",
        help="SWF/CSV/Batsim JSON file, a bundled trace name (see --list-traces), or a "
        f"generator lublin:N / poisson:N (N <= {MAX_GENERATED_JOBS:,}; default: the bundled "
        "kth-sample.swf)",
    )
    p.add_argument(
        "--columns",
        type=_columns,
        help="CSV traces: job field -> column, e.g. id=JobID,submit=Submit,runtime=Elapsed "
        "(over the columns recognised by name)",
    )
    p.add_argument(
        "--format",
        choices=("swf", "csv", "batsim"),
        help="trace format (default: from the extension)",
    )
    p.add_argument("--limit", type=positive_int, help="replay only the first N jobs")
    p.add_argument(
        "--lenient",
        action="store_true",
        help="skip and count malformed trace lines instead of stopping",
    )
    p.add_argument(
        "--queue",
        default="easy",
        choices=tuple(QUEUE_POLICIES),
        help="queue policy (default: easy)",
    )
    p.add_argument(
        "--reservation-depth",
        type=positive_int,
        default=64,
        help="reservations per pass for --queue hybrid (default: 64)",
    )
    p.add_argument(
        "--queue-depth",
        type=positive_int,
        help="most queued jobs one pass considers (default: all)",
    )
    p.add_argument(
        "--priority", default="fcfs", choices=tuple(PRIORITIES), help="queue order (default: fcfs)"
    )
    p.add_argument(
        "--policy",
        default="first",
        type=_policy,
        help=f"match policy: {', '.join(POLICIES)}, a budgeted '{_BUDGET_POLICY}', "
        f"or a custom '{_CUSTOM_POLICY}' (default: first)",
    )
    p.add_argument(
        "--shape",
        default="node",
        choices=tuple(SHAPES),
        help="how a job becomes a request (default: node)",
    )
    p.add_argument(
        "--prune",
        default="ALL:node,ALL:core",
        help="pruning filters HIGH:LOW[,...] over the machine's resource types "
        "(default: ALL:node,ALL:core)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of a generated trace (default: 0)")
    p.add_argument(
        "--exclude",
        type=_fraction,
        default=0.0,
        help="drop this fraction of jobs at each end from the per-job statistics",
    )
    p.add_argument("--out", default="sim-out", help="output directory (created; default: sim-out)")
    p.add_argument(
        "--plot",
        action="store_true",
        help="also write gantt.png, utilisation.png and queue.png (needs matplotlib)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary table")
    return p


def _workload(args) -> Workload:
    name, _, count = args.trace.partition(":")
    if name in ("lublin", "poisson") and count:
        from fluxgraph.workload import generators

        try:
            n = int(count)
        except ValueError:
            raise SimulationError(f"--trace {args.trace}: {count!r} is not a job count") from None
        if not 1 <= n <= MAX_GENERATED_JOBS:
            raise SimulationError(
                f"--trace {args.trace}: the job count must be in [1, {MAX_GENERATED_JOBS:,}]"
            )
        return getattr(generators, name)(n, seed=args.seed)
    path = Path(args.trace)
    with contextlib.suppress(FluxgraphError):
        path = data.local_or_bundled("traces", args.trace)
    return load_workload(
        path, args.format, lenient=args.lenient, limit=args.limit, mapping=args.columns
    )


#: A machine or generated trace this large gets stage lines on stderr while it is made.
_LARGE = 100_000


def _large(args) -> bool:
    """Whether the machine spec or the generated trace is large enough to take seconds."""
    with contextlib.suppress(FluxgraphError, ValueError):
        if "=" in args.machine and parse_machine_spec(args.machine).vertices >= _LARGE:
            return True
        name, _, count = args.trace.partition(":")
        return name in ("lublin", "poisson") and int(count or 0) >= _LARGE
    return False


@contextlib.contextmanager
def _stage(what: str, show: bool):
    """Print ``what...`` and, when it is done, its wall time (on stderr, when ``show``)."""
    started = time.perf_counter()
    if show:
        print(f"{what}...", file=sys.stderr, flush=True)
    yield
    if show:
        print(f"  done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)


def _listing(kind: str) -> int:
    """Print the bundled files of ``kind``, one a line; the exit status."""
    for name in data.names(kind):
        print(name)
    return 0


class _Progress:
    """A tqdm bar of jobs finished, with the simulated time, when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="job", file=sys.stderr, dynamic_ncols=True)
        self.done = 0

    def __call__(self, done: int, total: int, now: int) -> None:
        if self.bar is not None and done != self.done:
            self.bar.update(done - self.done)
            self.done = done
            self.bar.set_postfix_str(f"t={now}s", refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _table(metrics: dict) -> str:
    rows = []
    for key, label in _TABLE:
        value = metrics[key]
        text = format_number(value) if isinstance(value, float) else str(value)
        rows.append(f"  {label:<24} {text:>16}")
    return "\n".join(rows)


def run(args: argparse.Namespace) -> int:
    """Run ``fluxgraph simulate`` with parsed ``args``; returns the exit status."""
    if args.list_machines or args.list_traces:
        return _listing("machines" if args.list_machines else "traces")
    started = time.perf_counter()
    try:
        queue = make_queue_policy(args.queue, args.reservation_depth, args.queue_depth)
        show = not args.quiet and _large(args)
        with _stage(f"building machine {args.machine}", show):
            graph = load_machine(args.machine)
        _check_prune(args.prune, graph)
        with _stage(f"reading trace {args.trace}", show):
            workload = _workload(args)
        if args.limit:
            workload = workload.head(args.limit)
        if not len(workload):
            dropped = sum(dict(workload.dropped).values()) + len(workload.skipped_lines)
            why = f"all {dropped} jobs were dropped or skipped" if dropped else "it has no jobs"
            if not args.lenient:
                raise SimulationError(f"nothing to replay in {args.trace}: {why}")
            print(f"{args.trace}: no jobs ({why}); no metrics", file=sys.stderr)
            return 0
        progress = _Progress(len(workload), not args.quiet and sys.stderr.isatty())
        try:
            sim = Simulator(
                graph,
                workload,
                queue=queue,
                priority=args.priority,
                shape=args.shape,
                policy=args.policy,
                prune=args.prune,
                progress=progress,
            )
            result = sim.run()
        finally:
            progress.close()
    except FluxgraphError as err:
        print(f"fluxgraph simulate: error: {err}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - started
    metrics = summarize(result, exclude=args.exclude)
    parameters = {
        "machine": args.machine,
        "trace": args.trace,
        "workload": workload.name,
        "jobs": len(workload),
        "dropped": dict(workload.dropped),
        "skipped_lines": len(workload.skipped_lines),
        "queue": queue.name,
        "reservation_depth": queue.reservation_depth,
        "queue_depth": queue.queue_depth,
        "priority": args.priority,
        "policy": args.policy,
        "shape": args.shape,
        "prune": args.prune,
        "seed": args.seed,
        "exclude": args.exclude,
    }
    try:
        out = write_outputs(result, args.out, metrics, parameters, workload=workload.name)
        if args.plot:
            from fluxgraph.sched.plot import plot_result

            plot_result(result, out, title=f"{workload.name}, {queue.name}")
    except OSError as err:
        print(f"fluxgraph simulate: error: cannot write {args.out}: {err}", file=sys.stderr)
        return 1
    except SimulationError as err:
        print(f"fluxgraph simulate: error: {err}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(
            f"{workload.name} on {args.machine}: {queue.name}, priority {args.priority}, "
            f"{args.shape} shape, policy {args.policy} ({seconds:.2f} s)"
        )
        print(_table(metrics))
        print(f"  outputs in {out}/")
    return 0
