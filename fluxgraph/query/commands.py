"""The ``resource-query`` commands: a table of ``{name, abbr, function, note}`` rows.

Every command takes the session and the command's tokens (the command word first) and returns
0 to continue or non-zero to end the session. Messages, streams and job-counter rules follow
the reference exactly (io-and-cli-semantics.md §7.5-§7.6). The job-creating commands (``match``,
``multi-match``, ``update``) live in :mod:`.match_commands`, the argument handling they share
with the others in :mod:`.parsing`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from errno import EFBIG, EINVAL

from fluxgraph.errors import FluxgraphError, MatchError
from fluxgraph.graph import STATUS_UP
from fluxgraph.limits import read_text
from fluxgraph.query.fmt import fmt_g
from fluxgraph.query.match_commands import MATCH_OPS, cmd_match, cmd_multi_match, cmd_update
from fluxgraph.query.parsing import malformed, read_input, strtoll
from fluxgraph.query.repl import BANNER, OutputError, QueryJob, Session
from fluxgraph.query.session_ops import (
    attach,
    cancel,
    find,
    partial_cancel,
    remove_ranks,
    remove_subgraph,
    set_status,
)
from fluxgraph.writers.match import dumps

__all__ = ["COMMANDS", "MATCH_OPS", "Command", "dispatch", "strtoll"]

_PCANCEL_READERS = ("jgf", "rv1exec")

CommandFn = Callable[[Session, list[str]], int]


@dataclass(frozen=True, slots=True)
class Command:
    """One REPL command: full name, abbreviation, implementation and help note."""

    name: str
    abbr: str
    function: CommandFn
    note: str


def cmd_attach(s: Session, args: list[str]) -> int:
    """``attach <jgf-file>``: add a JGF subgraph to the graph."""
    if len(args) != 2:
        return malformed(s)
    text = read_input(s, args[1])
    if text is None:
        return 0
    error = attach(s.matcher, text)
    if error is not None:
        errno, reader_message = error
        s.stderr_lines("ERROR: can't attach JGF subgraph ")
        s.to_stderr(
            f"ERROR: add_subgraph: ERROR: add subgraph error: {os.strerror(errno)}\n"
            f"add_subgraph: ERROR: reader returned error: {reader_message}\n\n"
        )
    return 0


def cmd_remove(s: Session, args: list[str]) -> int:
    """``remove <path|idset> <true|false>``."""
    if len(args) != 3:
        return malformed(s)
    if args[2] == "true":
        message = remove_subgraph(s.matcher, args[1])
        if message is not None:
            # The reference prints a stale errno here; piped sessions always show ENOTTY's text.
            s.stderr_lines("ERROR: can't remove subgraph ")
            s.to_stderr(
                "ERROR: remove_subgraph: ERROR: remove_subgraph error: "
                "Inappropriate ioctl for device\n"
                f"remove_subgraph: ERROR: traverser returned error: {message}\n\n"
            )
    elif args[2] == "false":
        failure = remove_ranks(s.matcher, args[1])
        if failure is not None:
            s.stderr_lines(*failure)
    else:
        s.stderr_lines("ERROR: invalid path boolean input ")
    return 0


def cmd_find(s: Session, args: list[str]) -> int:
    """``find <expression...>``: emit the matching vertices with the ``-F`` writer."""
    if len(args) < 2:
        return malformed(s, ": ")
    expression = " ".join(args[1:])
    message = find(s.matcher, expression, s.writer)
    if message is not None:
        s.to_stderr("find" + message)
        return 0
    try:
        result = s.writer.emit_json()
    except MatchError as exc:
        s.to_stderr(f"find: ERROR: find writer emit: {os.strerror(exc.errno or EINVAL)}\n")
        return 0
    if isinstance(result, str):
        s.to_out(result)
    elif result is not None:
        s.to_out(dumps(result) + "\n")
    s.out_lines(BANNER, f'INFO: EXPRESSION="{expression}"', BANNER)
    return 0


def cmd_cancel(s: Session, args: list[str]) -> int:
    """``cancel <jobid> [stats]``."""
    if len(args) not in (2, 3):
        return malformed(s)
    job_id = strtoll(args[1])
    job = s.jobs.get(job_id)
    if job is None or job.state == "CANCELED":  # a canceled job no longer exists for cancel
        s.stderr_lines(f"cancel: ERROR: nonexistent job {job_id}")
        return 0
    rc, preorder, postorder = cancel(s.matcher, job_id)
    if rc == 0:
        job.state = "CANCELED"
    else:
        s.stderr_lines(f"cancel: ERROR: error encountered while removing job {job_id}")
    if len(args) == 3 and args[2] == "stats":
        s.out_lines(
            BANNER,
            f'INFO: CANCEL PREORDER COUNT="{preorder}"',
            f'INFO: CANCEL POSTORDER COUNT="{postorder}"',
            BANNER,
        )
    return 0


def cmd_partial_cancel(s: Session, args: list[str]) -> int:
    """``partial-cancel <jobid> <jgf|rv1exec> <file> [stats]``."""
    if len(args) not in (4, 5):
        return malformed(s)
    if args[2] not in _PCANCEL_READERS:
        s.stderr_lines(f"ERROR: unsupported reader {args[2]}")
        return 0
    text = read_input(s, args[3])
    if text is None:
        return 0
    job_id = strtoll(args[1])
    job = s.jobs.get(job_id)
    if job is not None and job.state == "RESERVED":
        s.stderr_lines("ERROR: reservations not currently supported by partial cancel")
        return 0
    if job is None:
        s.stderr_lines(f"ERROR: nonexistent job {job_id}")
        return 0
    outcome = partial_cancel(s.matcher, job_id, args[2], text)
    if outcome.rc != 0:
        s.to_stdout(outcome.message)
        s.stderr_lines(f"ERROR: error encountered while removing job {job_id}")
    elif outcome.full:
        job.state = "CANCELED"
    if len(args) == 5 and args[4] == "stats":
        s.out_lines(
            BANNER,
            f'INFO: PARTIAL CANCEL PREORDER COUNT="{outcome.preorder}"',
            f'INFO: PARTIAL CANCEL POSTORDER COUNT="{outcome.postorder}"',
            BANNER,
        )
    return 0


def _vertices_at(s: Session, path: str) -> list[int] | None:
    """The vertices registered under ``path``; ``None`` (after the reference's message) if none."""
    vertices = s.matcher.graph.by_path.get(path)
    if not vertices:
        s.out_lines(f"Could not find path {path} in resource graph.")
        return None
    return vertices


def cmd_set_property(s: Session, args: list[str]) -> int:
    """``set-property <path> <KEY=VALUE>``: set (replace) a property on the path's vertices."""
    if len(args) != 3:
        return malformed(s)
    path, prop = args[1], args[2]
    pos = prop.find("=")
    if pos <= 0 or pos == len(prop) - 1:
        s.out_lines(
            "Incorrect input format. ", "Please use `set-property <resource> PROPERTY=VALUE`."
        )
        return 0
    graph = s.matcher.graph
    vertices = graph.by_path.get(path)
    if not vertices:
        s.out_lines(f"Couldn't find path {path} in resource graph.")
        return 0
    key, value = prop[:pos], prop[pos + 1 :]
    for v in vertices:
        props = dict(graph.properties[v])
        props[key] = value
        graph.properties[v] = dict(sorted(props.items()))
    s.matcher.properties_changed()
    return 0


def cmd_get_property(s: Session, args: list[str]) -> int:
    """``get-property <path>``: print the properties of the path's vertices."""
    if len(args) != 2:
        return malformed(s)
    path = args[1]
    graph = s.matcher.graph
    vertices = _vertices_at(s, path)
    if vertices is None:
        return 0
    for v in vertices:
        props = graph.properties[v]
        if not props:
            uniq_id = graph.uniq_ids[v]
            s.out_lines(f"No properties were found for {path} (vtx's uniq_id={uniq_id}).")
        else:
            s.out_lines(*(f"{k}={val}" for k, val in sorted(props.items())))
    return 0


def cmd_set_status(s: Session, args: list[str]) -> int:
    """``set-status <path> <up|down>``; a failing status change ends the session."""
    if len(args) != 3:
        return malformed(s)
    path, status = args[1], args[2]
    if _vertices_at(s, path) is None:
        return 0
    if status not in ("up", "down"):
        s.stderr_lines("ERROR: unrecognized status")
        return 0
    return 0 if set_status(s.matcher, path, status) == 0 else 1


def cmd_get_status(s: Session, args: list[str]) -> int:
    """``get-status <path>``: ``<path> is up|down`` per vertex registered under the path."""
    if len(args) != 2:
        return malformed(s)
    path = args[1]
    graph = s.matcher.graph
    vertices = _vertices_at(s, path)
    if vertices is None:
        return 0
    s.out_lines(
        *(f"{path} is {'up' if graph.status[v] == STATUS_UP else 'down'}" for v in vertices)
    )
    return 0


def _job_line(job: QueryJob) -> str:
    return f"INFO: {job.job_id}, {job.state}, {job.scheduled_at}, {job.path}, {fmt_g(job.overhead)}"


def cmd_list(s: Session, args: list[str]) -> int:
    """``list``: one line per recorded job, ascending id."""
    s.stdout_lines(*(_job_line(s.jobs[j]) for j in sorted(s.jobs)))
    return 0


def cmd_info(s: Session, args: list[str]) -> int:
    """``info <jobid>``."""
    if len(args) != 2:
        return malformed(s)
    job_id = strtoll(args[1])
    job = s.jobs.get(job_id)
    if job is None:
        s.stderr_lines(f"info: ERROR: nonexistent job {job_id}")
    else:
        s.stdout_lines(_job_line(job))
    return 0


def cmd_stat(s: Session, args: list[str]) -> int:
    """``stat``: job count and the match-time statistics."""
    if len(args) != 1:
        return malformed(s)
    n = len(s.jobs)
    if n:
        low, high, avg = s.min_match_time, s.max_match_time, s.total_match_time / n
    else:
        low = high = avg = 0.0
    s.stdout_lines(
        f"INFO: Num. of Jobs Matched: {n}",
        f"INFO: Min. Match Time: {fmt_g(low)}",
        f"INFO: Max. Match Time: {fmt_g(high)}",
        f"INFO: Avg. Match Time: {fmt_g(avg)}",
    )
    return 0


def cmd_cat(s: Session, args: list[str]) -> int:
    """``cat <file>``: print a (jobspec) file."""
    if len(args) < 2:
        return malformed(s)
    path = args[1]
    try:
        text = read_text(path)
    except OSError as err:
        if err.errno == EFBIG:
            s.stderr_lines(f"ERROR: can't read {path}: {err.strerror}")
            return 0
        text = ""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    s.stdout_lines(*lines, f"INFO: Jobspec in {path}")
    return 0


def cmd_help(s: Session, args: list[str]) -> int:
    """``help [command]``."""
    rows = COMMANDS
    if len(args) == 2:
        rows = tuple(c for c in COMMANDS if args[1] in (c.name, c.abbr))
        if not rows:
            s.stdout_lines(f"ERROR: unknown command: {args[1]}")
            return 0
    s.stdout_lines(*(f"INFO: {c.name} ({c.abbr}) -- {c.note}" for c in rows))
    return 0


def cmd_quit(s: Session, args: list[str]) -> int:
    """``quit``: end the session."""
    return 1


_P = "resource-query> "
COMMANDS: tuple[Command, ...] = (
    Command(
        "match",
        "m",
        cmd_match,
        "Allocate or reserve matching resources (subcmd: allocate | "
        "allocate_with_satisfiability | allocate_orelse_reserve) | satisfiability | "
        f"without_allocating | without_allocating_future: {_P}match allocate jobspec",
    ),
    Command(
        "multi-match",
        "M",
        cmd_multi_match,
        "Allocate or reserve for multiple jobspecs (subcmd: allocate | "
        "allocate_with_satisfiability | allocate_orelse_reserve | without_allocating | "
        f"without_allocating_future): {_P}multi-match allocate jobspec1 jobspec2 ...",
    ),
    Command(
        "update",
        "u",
        cmd_update,
        "Update resources with a JGF subgraph (subcmd: allocate | reserve), "
        f"(reader: jgf | jgf_shorthand | rv1exec): {_P}update allocate jgf jgf_file jobid "
        "starttime duration",
    ),
    Command(
        "attach",
        "j",
        cmd_attach,
        f"Attach a JGF subgraph to the resource graph: {_P}attach jgf_file",
    ),
    Command(
        "remove",
        "j",
        cmd_remove,
        "Remove a subgraph from the resource graph, specifying whether the target is a path "
        f"(true) or idset (false): {_P}remove (/path/to/node/ | idset) (true|false)",
    ),
    Command(
        "find",
        "f",
        cmd_find,
        "Find resources matched with criteria (predicates: status={up|down} "
        "sched-now={allocated|free} sched-future={reserved|free} agfilter={true|false} "
        "names=hostlist jobid-alloc=jobid jobid-span=jobid jobid-tag=jobid "
        f"jobid-reserved=jobid property=name): {_P}find status=down and sched-now=allocated",
    ),
    Command(
        "cancel",
        "c",
        cmd_cancel,
        f"Cancel an allocation or reservation: {_P}cancel jobid (optional subcmd: stats)",
    ),
    Command(
        "partial-cancel",
        "pc",
        cmd_partial_cancel,
        f"Partially release an allocation: {_P}partial-cancel jobid (file format: jgf | "
        "rv1exec) R_to_cancel.file (optional subcmd: stats)",
    ),
    Command(
        "set-property",
        "p",
        cmd_set_property,
        f"Add a property to a resource: {_P}set-property resource PROPERTY=VALUE",
    ),
    Command(
        "get-property",
        "g",
        cmd_get_property,
        f"Get all properties of a resource: {_P}get-property resource",
    ),
    Command(
        "set-status",
        "t",
        cmd_set_status,
        f"Set resource status on vertex: {_P}set-status PATH_TO_VERTEX {{up|down}}",
    ),
    Command(
        "get-status",
        "e",
        cmd_get_status,
        f"Get the graph resource vertex status: {_P}get-status PATH_TO_VERTEX",
    ),
    Command("list", "l", cmd_list, f"List all jobs: {_P}list"),
    Command("info", "i", cmd_info, f"Print info on a jobid: {_P}info jobid"),
    Command("stat", "s", cmd_stat, f"Print overall stats: {_P}stat jobid"),
    Command("cat", "a", cmd_cat, f"Print jobspec file: {_P}cat jobspec"),
    Command("help", "h", cmd_help, f"Print help message: {_P}help"),
    Command("quit", "q", cmd_quit, f"Quit the session: {_P}quit"),
)


def dispatch(s: Session, tokens: list[str]) -> int:
    """Run the command named by ``tokens[0]`` (full name or abbreviation, first row wins).

    Unknown commands are ignored silently, as in the reference. A command that raises a
    :class:`~fluxgraph.errors.FluxgraphError` reports it on stderr and the session goes on,
    except for :class:`~fluxgraph.query.repl.OutputError` (an unwritable stream), raised on.
    """
    word = tokens[0]
    for command in COMMANDS:
        if word == command.name or word == command.abbr:
            try:
                return command.function(s, tokens)
            except OutputError:
                raise  # the session cannot go on: cli.main reports it
            except FluxgraphError as exc:
                s.stderr_lines(f"ERROR: {command.name}: {exc}")
                return 0
    return 0
