"""The job-creating ``resource-query`` commands: ``match``, ``multi-match`` and ``update``, with
the ``INFO:`` block they print (io-and-cli-semantics.md §7.6.1)."""

from __future__ import annotations

import os
from errno import EBUSY, EINVAL, ENODEV, ENOENT, ENOTTY

from fluxgraph.errors import JobspecError, MatchError
from fluxgraph.limits import MAX_JOBSPEC_BYTES
from fluxgraph.query.fmt import fmt_f
from fluxgraph.query.parsing import malformed, read_input, strtoll, strtoull
from fluxgraph.query.repl import BANNER, QueryJob, Session
from fluxgraph.query.session_ops import update

__all__ = ["MATCH_OPS", "cmd_match", "cmd_multi_match", "cmd_update"]

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
    if read_input(s, path, MAX_JOBSPEC_BYTES) is None:
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
        return malformed(s)
    if args[1] not in MATCH_OPS:
        s.stderr_lines(f"ERROR: unknown subcmd {args[1]}")
        return 0
    _match_one(s, args[1], args[2])
    return 0


def cmd_multi_match(s: Session, args: list[str]) -> int:
    """``multi-match <op> <jobspec> <jobspec> ...``: stop after the first failing match."""
    if len(args) < 4:
        return malformed(s)
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
        return malformed(s)
    if args[1] not in ("allocate", "reserve"):
        s.stderr_lines(f"ERROR: unknown subcmd {args[1]}")
        return 0
    if args[2] not in _UPDATE_READERS:
        s.stderr_lines(f"ERROR: unsupported reader {args[2]}")
        return 0
    text = read_input(s, args[3])
    if text is None:
        return 0
    job_id = strtoll(args[4])
    job = s.jobs.get(job_id)
    if job is not None and job.state in ("ALLOCATED", "RESERVED"):
        s.stderr_lines("ERROR: existing Jobid ")
        return 0
    at, duration = strtoll(args[5]), strtoull(args[6])
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
