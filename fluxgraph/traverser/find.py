"""Find: emit the vertices that satisfy a criteria expression (matching-semantics §6.17).

An expression is a sequence of terms separated by blanks; a term is ``key=value`` or a
parenthesised sub-expression, and consecutive terms are joined by ``and``/``or`` (``and`` when
the keyword is left out). Evaluation is strictly **left to right, without precedence**:
``a or b and c`` means ``(a or b) and c``.

=================  ====================================  ==========================================
key                value                                 true for a vertex when
=================  ====================================  ==========================================
``status``         ``up`` / ``down``                     it and every ancestor are up / it or an
                                                         ancestor is down
``sched-now``      ``allocated`` / ``free``              it or an ancestor holds / no ancestor
                                                         holds an allocation
``sched-future``   ``reserved`` / ``free``               the same for reservations
``jobid-alloc``    flux job id                           it has an allocation span of that job
``jobid-reserved`` flux job id                           it has a reservation span of that job
``jobid-span``     flux job id                           its pruning aggregate holds that job
``jobid-tag``      flux job id                           that job's allocation crosses it
``names``          hostlist (``node[0-3]``)              its name is in the list
``property``       property name                         it has that property
``agfilter``       ``true|t`` / ``false|f``              always (an output option, see below)
=================  ====================================  ==========================================

Values are case-insensitive except job ids. Job ids are decimal, ``0x`` hex, dotted hex
(``0000.0000.0000.0001``), KVS (``job.0000.0000.0000.0001``) or F58 (``ƒ2`` or ``f2``).

The walk (:func:`find`) visits the dominant subsystem depth-first, children first. A vertex is
emitted when it satisfies the expression or a descendant was emitted, with ``needs`` = its size
and ``exclusive`` true. With ``agfilter=true`` each emitted vertex carries its pruning
aggregate's usage per tracked type — for all jobs at ``now``, or for the job of the last
``jobid-*`` term — and vertices without an aggregate (or without a span of that job) are
silently left out (the reference's quirk 22).

Examples
--------
>>> e = parse("status=up (sched-now=allocated or sched-future=reserved)")
>>> e
Expression('status=up (sched-now=allocated or sched-future=reserved)')
>>> parse("status=UP agfilter=t").agfilter
True
>>> try:
...     parse("status=sideways")
... except ExpressionError as err:
...     print(err.reference_message)
find: invalid criteria: status=sideways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fluxgraph import hostlist
from fluxgraph.errors import PlannerError, QueryError
from fluxgraph.graph import STATUS_UP

if TYPE_CHECKING:
    from fluxgraph.graph import ResourceGraph
    from fluxgraph.traverser.core import Traverser

__all__ = ["MAX_NESTING", "Expression", "ExpressionError", "find", "parse", "parse_jobid"]

_F58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_U64_MAX = (1 << 64) - 1
_BOOL = {"true": True, "t": True, "false": False, "f": False}


class ExpressionError(QueryError):
    """A ``find`` expression that does not parse.

    ``str(err)`` names the offending part; ``reference_message`` is the text the reference's
    ``resource-query`` prints after ``find`` (``find: invalid criteria: <expression>.``).
    """

    def __init__(self, expression: str, reason: str) -> None:
        super().__init__(f"invalid find expression {expression!r}: {reason}")
        self.expression = expression
        self.reason = reason
        self.reference_message = f"find: invalid criteria: {expression}."


def parse_jobid(text: str) -> int:
    """A flux job id in decimal, ``0x`` hex, dotted hex, KVS or F58 form.

    Raises
    ------
    ValueError
        If ``text`` is none of these or does not fit in 64 bits.

    Examples
    --------
    >>> parse_jobid("42"), parse_jobid("0x2a"), parse_jobid("0000.0000.0000.002a")
    (42, 42, 42)
    >>> parse_jobid("job.0000.0000.0000.002a"), parse_jobid("ƒj"), parse_jobid("fj")
    (42, 42, 42)
    """
    if text.isascii() and text.isdigit():
        value = int(text)
    elif text[:2] in ("0x", "0X") and len(text) > 2 and _is_hex(text[2:]):
        value = int(text[2:], 16)
    elif text.startswith(("ƒ", "f")) and len(text) > 1:
        value = 0
        for ch in text[1:]:
            digit = _F58.find(ch)
            if digit < 0:
                raise ValueError(f"invalid F58 job id {text!r}: bad character {ch!r}")
            value = value * 58 + digit
    else:
        groups = text.split(".")
        if len(groups) == 5 and groups[0] == "job":
            groups = groups[1:]
        if len(groups) != 4 or not all(len(x) == 4 and _is_hex(x) for x in groups):
            raise ValueError(f"invalid job id {text!r}")
        value = 0
        for x in groups:
            value = (value << 16) | int(x, 16)
    if value > _U64_MAX:
        raise ValueError(f"job id {text!r} does not fit in 64 bits")
    return value


def _is_hex(text: str) -> bool:
    return text.isascii() and all(c in "0123456789abcdefABCDEF" for c in text)


# -- evaluators ----------------------------------------------------------------------------------
# Each leaf is called as leaf(graph, v, down, allocated, reserved) with the vertex's inherited
# states; a _Seq combines leaves left to right.


@dataclass(frozen=True, slots=True)
class _Status:
    down: bool

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return down == self.down


@dataclass(frozen=True, slots=True)
class _SchedNow:
    allocated: bool

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return alloc == self.allocated


@dataclass(frozen=True, slots=True)
class _SchedFuture:
    reserved: bool

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return res == self.reserved


@dataclass(frozen=True, slots=True)
class _JobIn:
    slot: str  # a ScheduleState list: allocations, reservations, job2span or tags
    jobid: int

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        table = getattr(g.schedule, self.slot)[v]
        return bool(table) and self.jobid in table


@dataclass(frozen=True, slots=True)
class _Names:
    names: hostlist.HostSet

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return g.names[v] in self.names


@dataclass(frozen=True, slots=True)
class _Property:
    key: str

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return self.key in g.properties[v]


@dataclass(frozen=True, slots=True)
class _True:
    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class _Seq:
    """``terms[0] ops[0] terms[1] ops[1] ...`` evaluated left to right (``ops``: True = and)."""

    terms: tuple[Any, ...]
    ops: tuple[bool, ...]

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        terms = self.terms
        result = terms[0](g, v, down, alloc, res)
        for op, term in zip(self.ops, terms[1:], strict=True):
            value = term(g, v, down, alloc, res)  # every term is evaluated, as the reference
            result = (result and value) if op else (result or value)
        return result


class Expression:
    """A parsed find expression: call it as ``expr(graph, v, down, allocated, reserved)``.

    Attributes
    ----------
    text : the expression as given.
    agfilter : whether emitted vertices carry their aggregate usage.
    jobid : the job of the last ``jobid-*`` term (``None`` without one); with ``agfilter``
        the usage shown is that job's.
    """

    __slots__ = ("_root", "agfilter", "jobid", "text")

    def __init__(self, text: str, root: Any, agfilter: bool, jobid: int | None) -> None:
        self.text = text
        self._root = root
        self.agfilter = agfilter
        self.jobid = jobid

    def __call__(self, g: ResourceGraph, v: int, down: bool, alloc: bool, res: bool) -> bool:
        return self._root(g, v, down, alloc, res)

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


# -- parser ----------------------------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in text.split():
        start = 0
        for k, ch in enumerate(word):
            if ch in "()":
                if k > start:
                    out.append(word[start:k])
                out.append(ch)
                start = k + 1
        if start < len(word):
            out.append(word[start:])
    return out


class _Parser:
    __slots__ = ("agfilter", "jobid", "pos", "text", "tokens")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0
        self.agfilter = False
        self.jobid: int | None = None

    def fail(self, reason: str) -> ExpressionError:
        return ExpressionError(self.text, reason)

    def seq(self, depth: int) -> Any:
        terms = [self.term(depth)]
        ops: list[bool] = []
        tokens = self.tokens
        while self.pos < len(tokens) and tokens[self.pos] != ")":
            tok = tokens[self.pos]
            if tok in ("and", "or"):
                self.pos += 1
                ops.append(tok == "and")
            else:
                ops.append(True)
            terms.append(self.term(depth))
        return terms[0] if not ops else _Seq(tuple(terms), tuple(ops))

    def term(self, depth: int) -> Any:
        tokens = self.tokens
        if self.pos >= len(tokens):
            raise self.fail("expected a term at the end")
        tok = tokens[self.pos]
        self.pos += 1
        if tok == "(":
            if depth >= MAX_NESTING:  # the parser and the evaluation recurse per level
                raise self.fail(f"parentheses nested deeper than {MAX_NESTING} levels")
            inner = self.seq(depth + 1)
            if self.pos >= len(tokens):
                raise self.fail("unbalanced '('")
            self.pos += 1  # the ')'
            return inner
        if tok in (")", "and", "or"):
            raise self.fail(f"expected a term, found {tok!r}")
        return self.leaf(tok)

    def leaf(self, tok: str) -> Any:
        key, sep, raw = tok.partition("=")
        if not sep or not key or not raw:
            raise self.fail(f"term {tok!r} is not key=value")
        value = raw.lower()
        if key == "status":
            return _Status(self.choice(key, value, {"up": False, "down": True}))
        if key == "sched-now":
            return _SchedNow(self.choice(key, value, {"allocated": True, "free": False}))
        if key == "sched-future":
            return _SchedFuture(self.choice(key, value, {"reserved": True, "free": False}))
        if key == "agfilter":
            self.agfilter = self.choice(key, value, _BOOL)
            return _True()
        if key == "names":
            try:
                names = hostlist.HostSet(value)  # not expanded: n[0-1048575] is one range
            except ValueError as err:
                raise self.fail(f"value of 'names' is not a hostlist ({err})") from err
            return _Names(names)
        if key == "property":
            return _Property(value)
        slot = _JOB_SLOTS.get(key)
        if slot is None:
            raise self.fail(f"unknown key {key!r}")
        try:
            jobid = parse_jobid(raw)
        except ValueError as err:
            raise self.fail(f"value of {key!r} is not a job id ({err})") from err
        self.jobid = jobid
        return _JobIn(slot, jobid)

    def choice(self, key: str, value: str, table: dict[str, bool]) -> bool:
        try:
            return table[value]
        except KeyError:
            names = " or ".join(dict.fromkeys(table))
            raise self.fail(f"value {value!r} of {key!r} must be {names}") from None


#: Deepest parenthesis nesting accepted in an expression.
MAX_NESTING = 64

_JOB_SLOTS = {
    "jobid-alloc": "allocations",
    "jobid-reserved": "reservations",
    "jobid-span": "job2span",
    "jobid-tag": "tags",
}


def parse(expression: str) -> Expression:
    """Parse a find expression (see the module docstring for the grammar).

    Raises
    ------
    ExpressionError
        For an empty expression, unbalanced parentheses, parentheses nested deeper than
        :data:`MAX_NESTING`, a misplaced ``and``/``or``, a term that is not ``key=value``, an
        unknown key or an invalid value.
    """
    p = _Parser(expression)
    if not p.tokens:
        raise p.fail("the expression is empty")
    root = p.seq(0)
    if p.pos < len(p.tokens):
        raise p.fail("unbalanced ')'")
    return Expression(expression, root, p.agfilter, p.jobid)


# -- the walk -------------------------------------------------------------------------------------


def find(traverser: Traverser, expression: str | Expression, writer: Any, now: int = 0) -> int:
    """Emit to ``writer`` every vertex satisfying ``expression`` and its ancestors.

    The walk is post-order on the dominant subsystem (children in out-edge order), each
    vertex emitted as ``emit_vtx(graph, v, level, size, True, False, agfilter)`` and each edge
    into an emitted subtree right after it; then ``emit_tm(0, 0)``. ``now`` is the time of the
    ``agfilter`` usage. Nothing but the traverser's colours changes.

    Returns
    -------
    int
        The number of vertices emitted.

    Raises
    ------
    ExpressionError
        If ``expression`` does not parse; nothing is emitted then.
    """
    expr = expression if isinstance(expression, Expression) else parse(expression)
    g = traverser.graph
    dom = traverser.dom
    colors = traverser.colors
    colors.reset()
    walk = _Walk(g, dom, colors.marks[dom], colors.base, expr, writer, now)
    root = g.roots.get(dom)
    if root is not None:
        walk.visit(root, 1, False, False, False)
    writer.emit_tm(0, 0)
    return walk.emitted


class _Walk:
    __slots__ = (
        "allocations",
        "base",
        "child_edges",
        "dom",
        "dst",
        "emitted",
        "expr",
        "g",
        "marks",
        "now",
        "reservations",
        "sizes",
        "status",
        "writer",
    )

    def __init__(self, g, dom, marks, base, expr, writer, now) -> None:
        self.g = g
        self.dom = dom
        self.marks = marks
        self.base = base
        self.expr = expr
        self.writer = writer
        self.now = now
        self.emitted = 0
        # bound once: the walk touches these for every vertex
        self.child_edges = g.child_edges(dom)
        self.dst = g.edge_dst
        self.sizes = g.sizes
        self.status = g.status
        self.allocations = g.schedule.allocations
        self.reservations = g.schedule.reservations

    def visit(self, u: int, level: int, down: bool, alloc: bool, res: bool) -> bool:
        marks, base = self.marks, self.base
        marks[u] = base + 1
        # states inherited downward: a vertex below a down/allocated/reserved one is too
        down = down or self.status[u] != STATUS_UP
        alloc = alloc or bool(self.allocations[u])
        res = res or bool(self.reservations[u])
        g, writer, dst = self.g, self.writer, self.dst
        below = False
        for e in self.child_edges[u]:
            t = dst[e]
            if marks[t] > base:
                continue
            if self.visit(t, level + 1, down, alloc, res):
                writer.emit_edg(g, e, False)
                below = True
        marks[u] = base + 2
        if not self.expr(g, u, down, alloc, res) and not below:
            return False
        usage = None
        if self.expr.agfilter:
            usage = self.usage(u)
            if usage is None:
                return False
        # find starts a new traversal epoch, so every label a match left is stale: the vertex is
        # emitted without one and its store is cleared (as the reference's find does)
        ephemeral = g.schedule.ephemeral
        if u < len(ephemeral):
            ephemeral[u] = None
        writer.emit_vtx(g, u, level, self.sizes[u], True, False, usage)
        self.emitted += 1
        return True

    def usage(self, u: int) -> list[tuple[str, int, int]] | None:
        """``(type, used, total)`` of ``u``'s aggregate, or ``None`` when not shown."""
        sched = self.g.schedule
        subplans = sched.subplans[u]
        agg = subplans.get(self.dom) if subplans else None
        if agg is None:
            return None
        jobid = self.expr.jobid
        span = -1
        if jobid is not None:
            job2span = sched.job2span[u]
            span = job2span.get(jobid, -1) if job2span else -1
            if span < 0:
                return None
        out = []
        try:
            for i, t in enumerate(agg.resource_types):
                total = agg.resource_total_at(i)
                if span < 0:
                    used = total - agg.avail_resources_at(self.now, i)
                else:
                    used = agg.span_planned_at(span, i)
                out.append((t, used, total))
        except PlannerError:
            return None
        return out
