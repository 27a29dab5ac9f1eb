"""The ``resource-query`` session (job table, counter, writer, streams) and its read loop."""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from fluxgraph.errors import QueryError

__all__ = ["OutputError", "QueryJob", "Session", "control_loop", "split_command"]

#: The banner line of every ``INFO:`` block.
BANNER = "INFO: " + "=" * 29
PROMPT = "resource-query> "

# C++ ``operator>>`` splits on the C locale's whitespace only.
_BLANKS = re.compile(r"[ \t\n\v\f\r]+")


class OutputError(QueryError):
    """A session stream could not be written (a full disk, a closed pipe): the session ends.

    ``stream`` is the stream that failed; ``str(err)`` is ``can't write to <name>: <reason>``.
    """

    def __init__(self, stream: TextIO, err: OSError) -> None:
        name = getattr(stream, "name", None)
        if isinstance(name, int):  # a stream opened on a file descriptor
            name = {1: "stdout", 2: "stderr"}.get(name, f"file descriptor {name}")
        elif not isinstance(name, str) or not name:
            name = "output"
        elif name.startswith("<") and name.endswith(">"):  # <stdout>
            name = name[1:-1]
        reason = err.strerror or str(err)
        super().__init__(f"can't write to {name}: {reason}", errno=err.errno)
        self.stream = stream


def split_command(line: str) -> list[str]:
    """Split a command line into tokens the way C++ ``>>`` reads words.

    Examples
    --------
    >>> split_command("  match  allocate\\tjob.yaml ")
    ['match', 'allocate', 'job.yaml']
    """
    return [token for token in _BLANKS.split(line) if token]


@dataclass(slots=True)
class QueryJob:
    """One row of the job table: id, state, start time, file as typed, match overhead (s)."""

    job_id: int
    state: str
    scheduled_at: int
    path: str
    overhead: float


class Session:
    """What one ``resource-query`` run keeps between commands.

    Parameters
    ----------
    matcher
        A :class:`~fluxgraph.matcher.Matcher`.
    writer
        The match writer selected by ``-F``.
    out
        The match output stream (``-t`` file, else ``stdout``).
    stdout, stderr
        The process streams.
    elapse
        ``-e``: print timings and visit counts.
    jobspecs
        A jobspec loader with ``load(path)`` (a cache; default: a new
        :class:`~fluxgraph.jobspec.JobspecCache`).
    check_types
        ``check_types(jobspec, known_types)`` raises
        :class:`~fluxgraph.errors.JobspecError` when the jobspec names a resource type the
        graph does not know (default: the jobspec package's check).
    clock
        Monotonic seconds (timing lines only).
    """

    def __init__(
        self,
        matcher: Any,
        writer: Any,
        *,
        out: TextIO,
        stdout: TextIO,
        stderr: TextIO,
        elapse: bool = False,
        jobspecs: Any = None,
        check_types: Callable[[Any, Any], None] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if jobspecs is None or check_types is None:
            from fluxgraph import jobspec

            jobspecs = jobspecs or jobspec.JobspecCache()
            check_types = check_types or jobspec.check_known_types
        self.matcher = matcher
        self.writer = writer
        self.out = out
        self.stdout = stdout
        self.stderr = stderr
        self.elapse = elapse
        self.jobspecs = jobspecs
        self.check_types = check_types
        self.clock = clock
        self.jobs: dict[int, QueryJob] = {}
        self.counter = 1
        self.min_match_time = sys.float_info.max
        self.max_match_time = 0.0
        self.total_match_time = 0.0

    # Every line is flushed at once, as C++ ``std::endl`` does, so that interleaving with the
    # other streams (``2>&1``, or stderr appended to the ``-t`` file) matches the reference.
    def _write(self, stream: TextIO, text: str) -> None:
        if text:
            try:
                stream.write(text)
                stream.flush()
            except OSError as err:
                raise OutputError(stream, err) from err

    def to_out(self, text: str) -> None:
        """Write ``text`` (already newline-terminated) to the match output stream."""
        self._write(self.out, text)

    def to_stdout(self, text: str) -> None:
        """Write ``text`` to stdout."""
        self._write(self.stdout, text)

    def to_stderr(self, text: str) -> None:
        """Write ``text`` to stderr."""
        self._write(self.stderr, text)

    def out_lines(self, *lines: str) -> None:
        """Write each line plus ``\\n`` to the match output stream."""
        self.to_out("".join(line + "\n" for line in lines))

    def stdout_lines(self, *lines: str) -> None:
        """Write each line plus ``\\n`` to stdout."""
        self.to_stdout("".join(line + "\n" for line in lines))

    def stderr_lines(self, *lines: str) -> None:
        """Write each line plus ``\\n`` to stderr."""
        self.to_stderr("".join(line + "\n" for line in lines))

    def record_match_time(self, seconds: float) -> None:
        """Feed the ``stat`` minimum/maximum/total (only ``update`` does, as in the reference)."""
        self.min_match_time = min(self.min_match_time, seconds)
        self.max_match_time = max(self.max_match_time, seconds)
        self.total_match_time += seconds


def _tty_lines(prompt: str) -> Iterable[str]:
    """Lines typed on a terminal, with ``readline`` editing and in-memory history."""
    with contextlib.suppress(ImportError):  # a platform without readline edits nothing
        import readline  # noqa: F401  (importing it enables line editing for input())
    while True:
        try:
            yield input(prompt)
        except EOFError:
            return


def control_loop(
    session: Session,
    stdin: TextIO,
    dispatch: Callable[[Session, list[str]], int],
    prompt: str = PROMPT,
) -> int:
    """Read and run commands until one returns non-zero or input ends; return 0.

    ``dispatch(session, tokens)`` runs one command (see :mod:`fluxgraph.query.commands`). On a
    terminal the prompt (empty with ``-d``) is shown and lines can be edited; otherwise lines
    are read silently (at most :data:`MAX_LINE` characters a line). Blank lines are skipped.
    Unlike the reference, which spins forever at end of input, the loop ends cleanly.
    """
    lines: Iterable[str] = _tty_lines(prompt) if stdin.isatty() else _bounded_lines(session, stdin)
    for line in lines:
        tokens = split_command(line)
        if tokens and dispatch(session, tokens) != 0:
            break
    return 0


#: Longest command line read (characters): a stream without newlines (``< /dev/zero``) would
#: otherwise be read into memory without end.
MAX_LINE = 1 << 20


def _bounded_lines(session: Session, stdin: TextIO) -> Iterable[str]:
    """The lines of ``stdin``; a line longer than :data:`MAX_LINE` ends the input with
    ``ERROR: command line longer than <n> characters``."""
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE:
            session.stderr_lines(f"ERROR: command line longer than {MAX_LINE} characters")
            return
        yield line
