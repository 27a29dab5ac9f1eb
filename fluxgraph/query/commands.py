"""The ``resource-query`` commands: a table of ``{name, abbr, function, note}`` rows.

Every command takes the session and the command's tokens (the command word first) and returns
0 to continue or non-zero to end the session. Messages, streams and job-counter rules follow
the reference exactly (io-and-cli-semantics.md §7.5-§7.6).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from errno import EBUSY, EFBIG, EINVAL, ENODEV, ENOENT, ENOTTY

from fluxgraph.errors import FluxgraphError, JobspecError, MatchError
from fluxgraph.graph import STATUS_UP
from fluxgraph.limits import MAX_INPUT_BYTES, MAX_JOBSPEC_BYTES, parse_digits, read_text
from fluxgraph.query.fmt import fmt_f, fmt_g
from fluxgraph.query.repl import BANNER, OutputError, QueryJob, Session
from fluxgraph.query.session_ops import (
    attach,
    cancel,
    find,
    partial_cancel,
    remove_ranks,
    remove_subgraph,
    set_status,
    update,
)
from fluxgraph.writers.match import dumps

__all__ = ["COMMANDS", "MATCH_OPS", "Command", "dispatch", "strtoll"]

#: ``match`` sub-commands (exact spelling).
MATCH_OPS = (
    "allocate",
    "allocate_orelse_reserve",
    "allocate_with_satisfiability",
    "satisfiability",
    "without_allocating",
    "without_allocating_future",
)
_ALLOCATING = ("allocate", "allocate_with_satisfiability", "allocate_orelse_reserve")
_UPDATE_READERS = ("jgf", "jgf_shorthand", "rv1exec")
_PCANCEL_READERS = ("jgf", "rv1exec")
_INT64 = (-(2**63), 2**63 - 1)

CommandFn = Callable[[Session, list[str]], int]


@dataclass(frozen=True, slots=True)
class Command:
    """One REPL command: full name, abbreviation, implementation and help note."""

    name: str
    abbr: str
    function: CommandFn
    note: str


def strtoll(text: str) -> int:
    """C ``strtoll(text, NULL, 10)``: leading blanks, sign, digits; 0 if none; clamped.

    Examples
    --------
    >>> strtoll(" 42abc"), strtoll("x"), strtoll("-7"), strtoll("99999999999999999999")
    (42, 0, -7, 9223372036854775807)
    """
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    if s[:1] in ("+", "-"):
        s = s[1:]
    digits = len(s) - len(s.lstrip("0123456789"))
    magnitude = parse_digits(s[:digits], 2**63)  # None: beyond any int64, clamped below
    value = sign * (2**63 if magnitude is None else magnitude)
    return min(max(value, _INT64[0]), _INT64[1])


def _strtoull(text: str) -> int:
    """C ``strtoull``: like :func:`strtoll` but a negative value wraps modulo 2**64."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    if s[:1] in ("+", "-"):
        s = s[1:]
    digits = len(s) - len(s.lstrip("0123456789"))
    value = parse_digits(s[:digits], 2**64 - 1)
    value = 2**64 - 1 if value is None else value
    return (sign * value) % 2**64


def _malformed(s: Session, suffix: str = "") -> int:
    s.stderr_lines("ERROR: malformed command" + suffix)
    return 0


def _read(s: Session, path: str, limit: int | None = None) -> str | None:
    """The file's text, or ``None`` after printing ``ERROR: can't open <path>`` (or, for a file
    larger than ``limit`` bytes (default :data:`~fluxgraph.limits.MAX_INPUT_BYTES`),
    ``ERROR: can't read <path>: File too large ...``)."""
    try:
        return read_text(path, MAX_INPUT_BYTES if limit is None else limit)
    except OSError as err:
        if err.errno == EFBIG:
            s.stderr_lines(f"ERROR: can't read {path}: {err.strerror}")
        else:
            s.stderr_lines(f"ERROR: can't open {path}")
        return None


def _timing(s: Session, elapsed: float, preorder: int, postorder: int, elapse_to_out: bool):
    if not s.elapse:
        return
    line = f"INFO: ELAPSE={fmt_f(elapsed)}"
    if elapse_to_out:
        s.out_lines(line)
    else:
        s.stdout_lines(line)
    s.stdout_lines(
        f"INFO: PREORDER VISIT COUNT={preorder}", f"INFO: POSTORDER VISIT COUNT={postorder}"
    )


def _report(
    s: Session, op: str, job_id: int, rc: int, errno: int, at: int, times: tuple[float, int, int]
) -> None:
    """The ``INFO:`` block after a match or update (§7.6.1)."""
    if op == "satisfiability":
        verdict = "Unsatisfiable" if rc != 0 and errno in (ENODEV, ENOENT) else "Satisfiable"
        s.out_lines(BANNER, f"INFO: {verdict} request", BANNER)
        _timing(s, *times, elapse_to_out=False)
        return
    if rc == 0:
        if op.startswith("without_allocating"):
            resources = "MATCHED"
        else:
            resources = "ALLOCATED" if at == 0 else "RESERVED"
        when = "Now" if at == 0 else str(at)
        s.out_lines(
            BANNER,
            f"INFO: JOBID={job_id}",
            f"INFO: RESOURCES={resources}",
            f"INFO: SCHEDULED AT={when}",
        )
        _timing(s, *times, elapse_to_out=False)
    else:
        s.out_lines(BANNER, "INFO: No matching resources found")
        if errno in (ENODEV, ENOENT):
            s.out_lines("INFO: Unsatisfiable request")
        s.out_lines(f"INFO: JOBID={job_id}")
        _timing(s, *times, elapse_to_out=True)
    s.out_lines(BANNER)


def _load_jobspec(s: Session, path: str):
    jobspec = s.jobspecs.load(path)
    s.check_types(jobspec, s.matcher.known_types)
    return jobspec


def _match_one(s: Session, op: str, path: str) -> int:
    """``match <op> <path>``; returns the match's rc (an unreadable file is not an error)."""
    if _read(s, path, MAX_JOBSPEC_BYTES) is None:
        return 0
    job_id = s.counter
    start = s.clock()
    err, text = "", ""
    at = preorder = postorder = 0
    advance = False
    try:
        jobspec = _load_jobspec(s, path)
    except JobspecError as exc:
        message = getattr(exc, "reason", "") or str(exc)
        err = f"match_allocate: ERROR: Jobspec error for {job_id}: {message}\n"
        rc, errno = -1, EINVAL
    else:
        outcome = s.matcher.run(jobspec, op, job_id, s.writer)
        rc, errno, at = outcome.rc, outcome.errno, outcome.at
        preorder, postorder = outcome.preorder, outcome.postorder
        if rc != 0 and outcome.message:
            err = f"match_allocate: ERROR: {outcome.message}"
        elif rc != 0 and errno not in (EBUSY, ENODEV):
            # A failure that set no errno (an update that found nothing to allocate, §6.13)
            # prints the stale one: in a piped session, ENOTTY from reading the command line.
            err = f"match_allocate: ERROR: traverser: {os.strerror(errno or ENOTTY)}\n"
        if rc == 0 or errno in (EBUSY, ENODEV):
            try:
                text = s.writer.emit()
            except MatchError as exc:
                errno = exc.errno or EINVAL
                err += f"match_allocate: ERROR: match writer emit: {os.strerror(errno)}\n"
                rc = -1
            else:
                advance = op in _ALLOCATING
    elapsed = s.clock() - start
    if advance:
        if rc == 0:
            state = "ALLOCATED" if at == 0 else "RESERVED"
            s.jobs[job_id] = QueryJob(job_id, state, at, path, elapsed)
        s.counter += 1
    s.to_stderr(err)
    s.to_out(text)
    _report(s, op, job_id, rc, errno, at, (elapsed, preorder, postorder))
    return rc


def cmd_match(s: Session, args: list[str]) -> int:
    """``match <op> <jobspec>``."""
    if len(args) != 3:
        return _malformed(s)
    if args[1] not in MATCH_OPS:
        s.stderr_lines(f"ERROR: unknown subcmd {args[1]}")
        return 0
    _match_one(s, args[1], args[2])
    return 0


def cmd_multi_match(s: Session, args: list[str]) -> int:
    """``multi-match <op> <jobspec> <jobspec> ...``: stop after the first failing match."""
    if len(args) < 4:
        return _malformed(s)
    if args[1] not in MATCH_OPS:
        s.stderr_lines(f"ERROR: unknown subcmd {args[1]}")
        return 0
    for path in args[2:]:
        if _match_one(s, args[1], path) != 0:
            break
    return 0


def cmd_update(s: Session, args: list[str]) -> int:
    """``update <allocate|reserve> <reader> <file> <jobid> <at> <duration>``."""
    if len(args) != 7:
        return _malformed(s)
    if args[1] not in ("allocate", "reserve"):
        s.stderr_lines(f"ERROR: unknown subcmd {args[1]}")
        return 0
    if args[2] not in _UPDATE_READERS:
        s.stderr_lines(f"ERROR: unsupported reader {args[2]}")
        return 0
    text = _read(s, args[3])
    if text is None:
        return 0
    job_id = strtoll(args[4])
    job = s.jobs.get(job_id)
    if job is not None and job.state in ("ALLOCATED", "RESERVED"):
        s.stderr_lines("ERROR: existing Jobid ")
        return 0
    at, duration = strtoll(args[5]), _strtoull(args[6])
    if at < 0 or duration == 0:
        s.stderr_lines(f"ERROR: invalid time ({at}, {duration})")
        return 0
    start = s.clock()
    outcome = update(s.matcher, args[2], text, job_id, at, duration, s.writer)
    out = ""
    rc = outcome.rc
    if rc != 0:
        s.stderr_lines("ERROR: traverser run () returned error ")
        if outcome.message:
            s.to_stderr("ERROR: " + outcome.message)
    else:
        try:
            out = s.writer.emit()
        except MatchError as exc:
            s.stderr_lines(f"ERROR: match writer emit: {os.strerror(exc.errno or EINVAL)}")
            rc = -1
    elapsed = s.clock() - start
    if rc == 0:
        state = "ALLOCATED" if at == 0 else "RESERVED"
        s.jobs[job_id] = QueryJob(job_id, state, at, args[3], elapsed)
    s.record_match_time(elapsed)
    s.to_out(out)
    times = (elapsed, outcome.preorder, outcome.postorder)
    _report(s, "allocate", job_id, rc, 0, at, times)
    s.counter = job_id + 1
    return 0


def cmd_attach(s: Session, args: list[str]) -> int:
    """``attach <jgf-file>``: add a JGF subgraph to the graph."""
    if len(args) != 2:
        return _malformed(s)
    text = _read(s, args[1])
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
        return _malformed(s)
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
        return _malformed(s, ": ")
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
        return _malformed(s)
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
        return _malformed(s)
    if args[2] not in _PCANCEL_READERS:
        s.stderr_lines(f"ERROR: unsupported reader {args[2]}")
        return 0
    text = _read(s, args[3])
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
        return _malformed(s)
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
        return _malformed(s)
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
        return _malformed(s)
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
        return _malformed(s)
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
        return _malformed(s)
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
        return _malformed(s)
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
        return _malformed(s)
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
