"""``resource-query``'s entry point: start-up (graph, matcher, writer), the session loop and
its output streams.

The command line itself is parsed by :mod:`fluxgraph.query.options` (re-exported here).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from collections.abc import Sequence
from errno import EFBIG, EPIPE
from typing import TextIO

from fluxgraph.errors import MatchError, ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.limits import read_text
from fluxgraph.matcher import SUBSYSTEM_SETS, Matcher
from fluxgraph.policies import create_policy
from fluxgraph.query.commands import dispatch
from fluxgraph.query.fmt import fmt_g
from fluxgraph.query.options import (
    DEFAULT_PRUNE_FILTERS,
    LONG_OPTIONS,
    USAGE,
    Options,
    UsageError,
    parse_args,
)
from fluxgraph.query.repl import PROMPT, OutputError, Session, control_loop
from fluxgraph.readers import reader
from fluxgraph.writers import write_dot, write_graphml
from fluxgraph.writers.match import create as create_writer

__all__ = [
    "DEFAULT_PRUNE_FILTERS",
    "LONG_OPTIONS",
    "USAGE",
    "Options",
    "UsageError",
    "main",
    "parse_args",
]


# -- start-up ---------------------------------------------------------------------------------


def _runtime_error(stderr: TextIO, where: str, message: str) -> int:
    """The reference's uncaught-exception report: ``: Runtime error: <where>: ERROR: ...``."""
    stderr.write(f": Runtime error: {where}: ERROR: {message}\n\n")
    stderr.flush()
    return 1


def _subsystems(name: str) -> tuple[str, ...] | None:
    """The subsystems of a ``-S`` name (exact, or the all-lowercase spelling), else ``None``."""
    for key, value in SUBSYSTEM_SETS.items():
        if name in (key, key.lower()):
            return value
    return None


def _load_statistics(graph: ResourceGraph, seconds: float) -> str:
    lines = [
        f"INFO: Graph Load Time: {fmt_g(seconds)}",
        f"INFO: Vertex Count: {graph.num_vertices}",
        f"INFO: Edge Count: {graph.num_edges}",
        f"INFO: by_type Key-Value Pairs: {len(graph.by_type)}",
        f"INFO: by_name Key-Value Pairs: {len(graph.by_name)}",
        f"INFO: by_path Key-Value Pairs: {len(graph.by_path)}",
    ]
    for rank in sorted(graph.by_rank):
        lines.append(f"INFO: number of vertices with rank {rank}: {len(graph.by_rank[rank])}")
    return "".join(line + "\n" for line in lines)


def _dispatch_and_freeze(session: Session, tokens: list[str]) -> int:
    """Run one command, then collect its cyclic garbage and freeze what it left behind.

    What a command leaves (planner spans, job records) is long-lived session state. Frozen, it
    is never rescanned by the cyclic GC, whose full collections would otherwise grow with the
    session (about 10% of a long allocate-until-full run); each collection here only sees the
    objects of one command.
    """
    try:
        return dispatch(session, tokens)
    finally:
        gc.collect()
        gc.freeze()


def _build(opts: Options, stderr: TextIO) -> tuple[Matcher, float] | int:
    """Load the graph and build the matcher as the reference's start-up does, or report why not.

    Returns the matcher and the load time, or the exit status after printing the error.
    """
    try:
        create_policy(opts.match_policy)
    except MatchError:
        return _runtime_error(stderr, "resource_query_t", "can't create matcher")
    if opts.traverser not in ("simple", "flexible"):
        # The reference crashes (SIGSEGV) here.
        return _runtime_error(
            stderr, "resource_query_t", f"unknown traverser policy {opts.traverser!r}"
        )
    try:
        text = read_text(opts.load_file)
    except OSError as err:
        if err.errno == EFBIG:
            message = f"can't read {opts.load_file}: {err.strerror}"
            return _runtime_error(
                stderr, "resource_query_t", message + "\nERROR: error generating resources"
            )
        text = ""
    allow = frozenset(item for item in opts.load_allowlist.split(",") if item)
    graph = ResourceGraph()
    start = time.perf_counter()
    try:
        reader(opts.load_format)(
            graph, text, source=opts.load_file, rank=-1, allowlist=allow or None
        )
    except ReaderError as err:
        message = err.reference_message + "\nERROR: error generating resources"
        return _runtime_error(stderr, "resource_query_t", message)
    seconds = time.perf_counter() - start
    subsystems = _subsystems(opts.match_subsystems)
    if subsystems is None:
        # The reference aborts (uncaught std::out_of_range) here.
        valid = ", ".join(SUBSYSTEM_SETS)
        return _runtime_error(
            stderr,
            "initialize_matchers_and_traversers",
            f"unknown match subsystems {opts.match_subsystems!r} (valid: {valid})",
        )
    try:
        matcher = Matcher(
            graph,
            subsystems=subsystems,
            policy=opts.match_policy,
            prune=opts.prune_spec,
            traverser=opts.traverser,
            exact_visit_counts=opts.elapse_time,
        )
    except MatchError as err:
        return _runtime_error(stderr, "initialize_matchers_and_traversers", str(err))
    # The graph lives as long as the session: move it out of the cyclic GC's generations so
    # that collections triggered by matching do not rescan it (measured: -10% match time).
    gc.collect()
    gc.freeze()
    return matcher, seconds


def _write_graph(opts: Options, matcher: Matcher, stderr: TextIO) -> int:
    """``-o``: write the matcher's graph as ``<basename>.dot`` or ``<basename>.graphml``."""
    subsystems = matcher.subsystems
    if opts.graph_format == "graphml":
        path, write = f"{opts.graph_output}.graphml", write_graphml
    else:
        path, write = f"{opts.graph_output}.dot", write_dot
    try:
        write(matcher.graph, path, subsystems=subsystems)
    except OSError as err:
        stderr.write(f"ERROR: can't write graph output {path}: {err.strerror}\n")
        return 1
    return 0


def main(
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``resource-query`` with ``argv`` (without the program name); return the exit status.

    Streams default to the process streams; ``prog`` (getopt's message prefix) to ``argv[0]``.
    A stream that cannot be written ends the run with status 1 (see :class:`OutputError`).
    """
    stdin = stdin or _tolerant(sys.stdin)
    stdout = stdout or _tolerant(sys.stdout)
    stderr = stderr or _tolerant(sys.stderr)
    if argv is None:
        argv = sys.argv[1:]
    prog = prog or sys.argv[0]
    try:
        return _main(argv, prog, stdin, stdout, stderr)
    except OutputError as err:  # start-up and usage text (the session reports its own)
        return _output_failed(err, stderr)


class _Checked:
    """A stream whose write/flush failures raise :class:`OutputError` (start-up messages)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            n = self._stream.write(text)
            self._stream.flush()
        except OSError as err:
            raise OutputError(self._stream, err) from err
        return n

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as err:
            raise OutputError(self._stream, err) from err


def _main(argv, prog: str, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    checked_err = _Checked(stderr)
    checked_out = _Checked(stdout)
    try:
        opts = parse_args(argv, prog, warn=checked_err.write)
    except UsageError as err:
        checked_err.write(str(err) + USAGE)
        return 1
    if opts.help:
        checked_err.write(USAGE)
        return 0
    built = _build(opts, checked_err)  # type: ignore[arg-type]
    if isinstance(built, int):
        return built
    matcher, seconds = built
    writer = create_writer(opts.match_format)
    if opts.elapse_time:
        checked_out.write(_load_statistics(matcher.graph, seconds))
    out = stdout
    if opts.test_output is not None:
        try:
            # Bytes that were not UTF-8 on input come back out unchanged (surrogateescape).
            out = open(  # noqa: SIM115 (closed below)
                opts.test_output, "w", encoding="utf-8", errors="surrogateescape"
            )
        except OSError as err:
            # The reference aborts (uncaught std::ios_base::failure) here.
            checked_err.write(
                f"ERROR: can't open --test-output file {opts.test_output}: {err.strerror}\n"
            )
            return 1
    status = 0
    try:
        session = Session(
            matcher, writer, out=out, stdout=stdout, stderr=stderr, elapse=opts.elapse_time
        )
        control_loop(session, stdin, _dispatch_and_freeze, "" if opts.disable_prompt else PROMPT)
    except OutputError as err:
        status = _output_failed(err, stderr)
    finally:
        if out is not stdout:
            try:
                out.close()
            except OSError as err:  # the last buffered text could not be written
                if not status:
                    status = _output_failed(OutputError(out, err), stderr)
    if status:
        return status
    if opts.graph_output is not None:
        return _write_graph(opts, matcher, checked_err)  # type: ignore[arg-type]
    return 0


def _tolerant(stream: TextIO) -> TextIO:
    """A process stream set to pass undecodable bytes through (``surrogateescape``), as the
    reference's byte streams do: a command line holding them is echoed back unchanged."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="surrogateescape")
    return stream


def _output_failed(err: OutputError, stderr: TextIO) -> int:
    """Report an unwritable stream (``ERROR: can't write to <name>: <reason>``); exit status 1.

    A closed pipe (``| head``) ends the session silently, as SIGPIPE ends the reference.
    """
    if err.errno != EPIPE:
        try:
            stderr.write(f"ERROR: {err}\n")
            stderr.flush()
        except (OSError, ValueError):
            _drop(stderr)
    _drop(err.stream)
    return 1


def _drop(stream: TextIO) -> None:
    """Point the process's stdout or stderr at ``/dev/null``: the text it could not write is
    then discarded by the interpreter's final flush instead of failing there again."""
    if stream is not sys.stdout and stream is not sys.stderr:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
