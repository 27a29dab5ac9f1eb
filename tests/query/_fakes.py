"""A scripted stand-in for the Matcher, so the REPL's rules can be tested without matching."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from errno import EINVAL

from fluxgraph.errors import JobspecError, MatchError, ReaderError
from fluxgraph.graph import ResourceGraph
from fluxgraph.query.repl import Session
from fluxgraph.writers.match import create


@dataclass
class Outcome:
    """What the scripted matcher returns for one ``run`` (the MatchOutcome fields)."""

    rc: int = 0
    errno: int = 0
    at: int = 0
    duration: int = 3600
    message: str = ""
    preorder: int = 7
    postorder: int = 5
    emit: bool = True


def small_graph() -> ResourceGraph:
    """cluster c0 -> node0 (rank 0) -> core0, core1."""
    g = ResourceGraph()
    c = g.add_vertex("cluster", "c", 0, paths={"containment": "/c0"})
    g.set_root("containment", c)
    n = g.add_vertex("node", "node", 0, rank=0, paths={"containment": "/c0/node0"})
    g.add_edge(c, n, "containment")
    for i in range(2):
        core = g.add_vertex("core", "core", i, rank=0, paths={"containment": f"/c0/node0/core{i}"})
        g.add_edge(n, core, "containment")
    return g


@dataclass
class FakeMatcher:
    """Returns scripted outcomes; a successful (or ``emit``) outcome emits core0/node0/c0."""

    graph: ResourceGraph = field(default_factory=small_graph)
    outcomes: list[Outcome] = field(default_factory=list)
    runs: list[tuple[str, int]] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)
    cancel_fails: bool = False
    property_edits: int = 0

    @property
    def known_types(self):
        return self.graph.type_names

    def run(self, jobspec, op, job_id, writer, now=0):
        self.runs.append((op, job_id))
        out = self.outcomes.pop(0) if self.outcomes else Outcome()
        if out.emit and (out.rc == 0):
            g = self.graph
            writer.emit_vtx(g, 2, 3, 1, True, False)
            writer.emit_edg(g, 1, True)
            writer.emit_vtx(g, 1, 2, 1, False, False)
            writer.emit_edg(g, 0, False)
            writer.emit_vtx(g, 0, 1, 1, False, False)
            writer.emit_tm(out.at, out.at + out.duration)
        return out

    def cancel(self, job_id):
        if self.cancel_fails:
            raise MatchError(f"cancel of job {job_id} failed", errno=EINVAL)
        self.cancelled.append(job_id)

    def properties_changed(self):
        self.property_edits += 1


class FakeJobspecs:
    """``load(path)`` returns the path; paths containing ``bad`` fail to parse."""

    def load(self, path):
        if "bad" in str(path):
            raise JobspecError('Missing key "resource" in top level mapping')
        return path


def session(matcher=None, fmt="simple", elapse=False, same_out=False):
    """A session writing to StringIO streams: (session, out, stdout, stderr)."""
    out, stdout, stderr = io.StringIO(), io.StringIO(), io.StringIO()
    s = Session(
        matcher or FakeMatcher(),
        create(fmt),
        out=stdout if same_out else out,
        stdout=stdout,
        stderr=stderr,
        elapse=elapse,
        jobspecs=FakeJobspecs(),
        check_types=lambda jobspec, types: None,
        clock=iter(range(1000)).__next__,
    )
    return s, out, stdout, stderr


@dataclass
class FullFakeMatcher(FakeMatcher):
    """Also offers the graph-changing operations the REPL bridges to (see session_ops)."""

    update_outcome: Outcome = field(default_factory=Outcome)
    statuses: list[tuple[str, str]] = field(default_factory=list)
    partial_full: bool = False

    def find(self, expression, writer):
        if "bad" in expression:
            raise MatchError(f"find: invalid criteria: {expression}.\n", errno=EINVAL)
        g = self.graph
        if "cores" in expression:
            writer.emit_vtx(g, 2, 3, 1, True, False)
            writer.emit_edg(g, 1, False)
        writer.emit_vtx(g, 1, 2, 1, True, False)
        writer.emit_edg(g, 0, False)
        writer.emit_vtx(g, 0, 1, 1, True, False)
        writer.emit_tm(0, 0)

    def update(self, reader, text, job_id, at, duration, writer):
        out = self.update_outcome
        if out.rc == 0:
            self.run(None, "allocate", job_id, writer)
        return Outcome(out.rc, out.errno, at, duration, out.message, 3, 2)

    def attach(self, text):
        if text.startswith("bad"):
            raise ReaderError("bad JGF", errno=EINVAL, reference_message="unpack: bad input.\n")

    def remove_subgraph(self, path):
        if path not in self.graph.by_path:
            raise MatchError(f"remove: path {path} not found.\n")

    def remove_ranks(self, ranks):
        if 5 in ranks:
            err = MatchError("remove: 5 not found in by_rank map.")
            err.stage = "partial_cancel"
            raise err

    def partial_cancel(self, job_id, reader, text):
        if text.startswith("bad"):
            raise MatchError("remove: partial_cancel returned error.\n")
        return self.partial_full

    def set_status(self, path, status):
        if path == "/c0/node0/core1":
            raise MatchError("mark failed")
        self.statuses.append((path, status))
