"""The fast path's mirror of the bookings on a flat machine's nodes and pool leaves.

:class:`Mirror` (the base of :mod:`.fastpath`'s engine) keeps, per node and root pool leaf
position, the windows of every job there, and answers whether the mirror can be trusted now
(:meth:`Mirror.ready`): the graph and statuses unchanged, every vertex up, and the job ids
tagged at the root equal to the ones it knows (a job booked or cancelled by the walk is read in
by :meth:`Mirror.adopt` / :meth:`Mirror.forget`, anything else by :meth:`Mirror.resync`).
:meth:`Mirror._check` compares it with the planners.

>>> from fluxgraph.machines import build_machine
>>> from fluxgraph.matcher import Matcher
>>> m = Matcher(build_machine("nodes=2,cores=1"))
>>> fast = m.traverser.fastpath
>>> fast.ready() is not None, fast.busy
(True, [[], []])
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

from fluxgraph.graph import STATUS_UP
from fluxgraph.traverser.fastpath_shape import Shape, flat_shape

if TYPE_CHECKING:
    from fluxgraph.traverser.core import Traverser

__all__ = ["Mirror"]


def _alloc_kind(j: int, node_allocs: dict, allocations: list, leaves: list[int]) -> int:
    """1: job ``j`` allocates the node; 2: only some of its ``leaves``; 0: neither."""
    if j in node_allocs:
        return 1
    return 2 if any(allocations[c] and j in allocations[c] for c in leaves) else 0


class Mirror:
    """Per-position bookings of one traverser's flat machine (see the module docstring)."""

    def __init__(self, tr: Traverser) -> None:
        self.tr = tr
        self.shape: Shape | None = None
        self._shape_key: tuple | None = None
        #: per position (the nodes, then the root's own leaves, see
        #: :class:`~fluxgraph.traverser.fastpath_shape.Shape`): [(start, end, jobid, alloc)] of
        #: every job there; ``alloc`` is 1 for an allocation of the node (leaf), 2 for one of
        #: some of a node's leaves only (a shared node), else 0
        self.busy: list[list[tuple[int, int, int, int]]] = []
        #: per position: jobs allocating it (a match made now fails the node or leaf)
        self.nalloc: list[int] = []
        #: per position: jobs allocating a node's leaves only (a match made now is left to the
        #: walk where no such job's window covers the match's: its leaves then decide)
        self.npartial: list[int] = []
        #: job id -> positions (ascending)
        self.jobs: dict[int, list[int]] = {}
        #: job id -> which node kinds serve its request, for jobs this engine booked on a
        #: machine of several node kinds (see :data:`~.fastpath_shape.Want`)
        self.serving: dict[int, list[bool]] = {}
        self._known_root: set[int] = set()
        self._status_epoch = -1
        self._all_up = False
        self._valid = False

    # -- trust ---------------------------------------------------------------------------------

    def invalidate(self) -> None:
        """Forget the mirror (re-read from the planners on next use)."""
        self._valid = False

    def ready(self) -> Shape | None:
        """The flat shape when the mirror can be trusted now, else ``None``."""
        tr = self.tr
        g = tr.graph
        key = (g.num_vertices, g.num_edges)
        if key != self._shape_key:
            self._shape_key = key
            self.shape = flat_shape(tr)
            self._valid = False
            self._status_epoch = -1  # (new vertices: statuses are read again)
        shape = self.shape
        if shape is None:
            return None
        epoch = getattr(tr, "status_epoch", 0)
        if epoch != self._status_epoch:
            self._status_epoch = epoch
            self._all_up = all(s == STATUS_UP for s in g.status)
        if not self._all_up:
            return None
        tags = g.schedule.tags[shape.root]
        if not self._valid or (tags or {}).keys() != self._known_root:
            self._valid = self.resync()
        return shape if self._valid else None

    def resync(self) -> bool:
        """Re-read every job on the nodes and pool leaves from the planners; False when some
        booking is not one the mirror can stand for (a job holding a node twice, a tag without
        its span)."""
        shape = self.shape
        assert shape is not None
        tags = self.tr.graph.schedule.tags
        n = len(shape.nodes)
        self.busy = [[] for _ in range(n + len(shape.extra))]
        self.nalloc = [0] * len(self.busy)
        self.npartial = [0] * len(self.busy)
        self.jobs = {}
        dst = self.tr.graph.edge_dst
        for i, v in enumerate(shape.nodes):
            leaves = [dst[e] for e in shape.node_edges[i]]
            if not self._read(i, v, leaves):
                return False
        for k, (_, c) in enumerate(shape.extra):
            if not self._read(n + k, c, ()):
                return False
        root_tags = tags[shape.root] or {}
        if any(j not in root_tags for j in self.jobs):
            return False
        self._known_root = set(root_tags)
        self.serving = {j: k for j, k in self.serving.items() if j in self.jobs}
        return True

    def _read(self, i: int, v: int, leaves) -> bool:
        """Read the bookings of position ``i`` (vertex ``v``, its ``leaves``) from the
        planners; False when some is not one the mirror can stand for."""
        sched = self.tr.graph.schedule
        tags, allocations = sched.tags, sched.allocations
        held = tags[v]
        spans = sched.x_spans[v] or {}
        xc = sched.x_checkers[v]
        if (
            len(held or ()) != len(spans)
            or (spans and (xc is None or xc.span_size() != len(spans)))
            or (held and any(j not in spans for j in held))
        ):
            return False
        mine = allocations[v] or {}
        if any(j not in spans for j in mine):
            return False  # an allocation no live job explains
        for c in leaves:
            if any(j not in spans for j in tags[c] or ()) or any(
                j not in spans for j in allocations[c] or ()
            ):
                return False
        for j, sid in spans.items():
            start = xc.span_start_time(sid)
            end = start + xc.span_duration(sid)
            alloc = _alloc_kind(j, mine, allocations, leaves)
            self.busy[i].append((start, end, j, alloc))
            self.nalloc[i] += alloc == 1
            self.npartial[i] += alloc == 2
            self.jobs.setdefault(j, []).append(i)
        return True

    def owns(self, jobid: int) -> bool:
        """Whether :meth:`cancel` may remove ``jobid`` (a job the mirror holds, mirror valid)."""
        return self._valid and jobid in self._known_root and self.ready() is not None

    def adopt(self, jobid: int) -> None:
        """The walk booked ``jobid``: read it into the mirror (or stop trusting the mirror
        when it cannot stand for the booking)."""
        shape = self.shape
        if not self._valid or shape is None:
            return
        sched = self.tr.graph.schedule
        tags, x_spans, x_checkers = sched.tags, sched.x_spans, sched.x_checkers
        allocations, dst = sched.allocations, self.tr.graph.edge_dst
        mine = []
        n = len(shape.nodes)
        for i, v in enumerate(chain(shape.nodes, (c for _, c in shape.extra))):
            held = tags[v]
            if not held or jobid not in held:
                continue
            spans, xc = x_spans[v], x_checkers[v]
            if not spans or jobid not in spans or xc.span_size() != len(spans):
                self._valid = False
                return
            sid = spans[jobid]
            start = xc.span_start_time(sid)
            leaves = [dst[e] for e in shape.node_edges[i]] if i < n else ()
            alloc = _alloc_kind(jobid, allocations[v] or {}, allocations, leaves)
            mine.append((i, (start, start + xc.span_duration(sid), jobid, alloc)))
        for i, b in mine:
            self.busy[i].append(b)
            self.nalloc[i] += b[3] == 1
            self.npartial[i] += b[3] == 2
        if mine:
            self.jobs[jobid] = [i for i, _ in mine]
        self._known_root = set(sched.tags[shape.root] or ())

    def _drop(self, i: int, jobid: int) -> None:
        """Remove ``jobid``'s booking from node position ``i``'s list."""
        lst = self.busy[i]
        for k, b in enumerate(lst):
            if b[2] == jobid:
                del lst[k]
                if b[3] == 1:
                    self.nalloc[i] -= 1
                elif b[3] == 2:
                    self.npartial[i] -= 1
                return

    def forget(self, jobid: int) -> None:
        """``jobid`` was cancelled by the walk: drop it from the mirror."""
        for i in self.jobs.pop(jobid, []):
            self._drop(i, jobid)
        self.serving.pop(jobid, None)
        self._known_root.discard(jobid)

    # -- invariants ----------------------------------------------------------------------------

    def _check(self) -> None:
        """Assert that the mirror equals what :meth:`resync` reads from the planners."""
        if not self._valid or self.shape is None:
            return
        busy, nalloc, npartial = self.busy, self.nalloc, self.npartial
        jobs, known = self.jobs, set(self._known_root)
        assert self.resync(), "the planners hold a booking the mirror cannot stand for"
        assert [sorted(b) for b in busy] == [sorted(b) for b in self.busy], "busy lists differ"
        assert nalloc == self.nalloc, "allocation counts differ"
        assert npartial == self.npartial, "shared allocation counts differ"
        assert {j: sorted(v) for j, v in jobs.items()} == {
            j: sorted(v) for j, v in self.jobs.items()
        }, "job positions differ"
        assert known == self._known_root, "root jobs differ"
        for i, lst in enumerate(self.busy):
            for s, e, _, _ in lst:
                assert 0 <= s < e, f"bad window at position {i}"
