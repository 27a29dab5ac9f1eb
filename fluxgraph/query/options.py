"""Command line of ``resource-query``: GNU ``getopt_long`` parsing, messages and usage text.

:func:`parse_args` reproduces ``getopt_long`` with the option string
``L:f:W:S:P:T:F:g:o:p:t:r:edh``: arguments are permuted (options may follow operands), ``--``
ends the options, clustered short options (``-ed``, ``-Lfile``), ``--opt=value`` and
``--opt value``, and unique prefixes of long options. Options are processed left to right and the
first invalid one stops the parse with the reference's message.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from fluxgraph.data import local_or_bundled
from fluxgraph.errors import FluxgraphError, QueryError
from fluxgraph.limits import parse_digits
from fluxgraph.readers import READERS
from fluxgraph.writers.match import MATCH_FORMATS

__all__ = [
    "DEFAULT_PRUNE_FILTERS",
    "LONG_OPTIONS",
    "USAGE",
    "Options",
    "UsageError",
    "parse_args",
]

DEFAULT_PRUNE_FILTERS = "ALL:core,ALL:node"
_RESERVE_MAX = 2000000

#: (long name, takes an argument, short letter), in the order getopt lists ambiguities.
LONG_OPTIONS: tuple[tuple[str, bool, str], ...] = (
    ("help", False, "h"),
    ("load-file", True, "L"),
    ("load-format", True, "f"),
    ("load-allowlist", True, "W"),
    ("match-subsystems", True, "S"),
    ("match-policy", True, "P"),
    ("match-format", True, "F"),
    ("traverser-policy", True, "T"),
    ("prune-filters", True, "p"),
    ("graph-format", True, "g"),
    ("reserve-vtx-vec", True, "r"),
    ("elapse-time", False, "e"),
    ("disable-prompt", False, "d"),
    ("graph-output", True, "o"),
    ("test-output", True, "t"),
)
_SHORT_TAKES_ARG = {short: takes for _, takes, short in LONG_OPTIONS}
_LONG_OF_SHORT = {short: name for name, _, short in LONG_OPTIONS}


@dataclass(frozen=True, slots=True)
class Options:
    """The parsed command line (defaults are the reference's)."""

    load_file: str = "conf/default"
    load_format: str = "grug"
    load_allowlist: str = ""
    match_subsystems: str = "CA"
    match_policy: str = "first"
    traverser: str = "simple"
    match_format: str = "simple"
    graph_format: str = "dot"
    graph_output: str | None = None
    prune_filters: str = ""
    test_output: str | None = None
    reserve_vtx_vec: int = 0
    elapse_time: bool = False
    disable_prompt: bool = False
    help: bool = False

    @property
    def prune_spec(self) -> str:
        """The ``-p`` values joined by commas, or the default ``ALL:core,ALL:node``."""
        return self.prune_filters or DEFAULT_PRUNE_FILTERS


class UsageError(QueryError):
    """A command-line error: ``str(err)`` is the message printed before the usage text."""


def _atoi(text: str) -> int:
    """C ``atoi``: optional blanks and sign, then the longest digit prefix (0 if none)."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = 1
    if s[:1] in ("+", "-"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    digits = len(s) - len(s.lstrip("0123456789"))
    value = parse_digits(s[:digits], 2**63)  # None: out of any range (the caller warns)
    return sign * (2**63 if value is None else value)


def _apply(opts: Options, short: str, arg: str, warn: Callable[[str], None]) -> Options:
    """Process one option; raise :class:`UsageError` for an invalid value."""
    if short == "h":
        return replace(opts, help=True)
    if short == "e":
        return replace(opts, elapse_time=True)
    if short == "d":
        return replace(opts, disable_prompt=True)
    if short == "L":
        arg = _bundled_machine(arg)
        if not os.path.exists(arg):
            raise UsageError(f"[ERROR] file does not exist for --load-file: {arg}\n")
        if os.path.isdir(arg):
            raise UsageError(f"[ERROR] path passed to --load-file is a directory: {arg}\n")
        return replace(opts, load_file=arg)
    if short == "f":
        if arg not in READERS:
            raise UsageError(f"[ERROR] unknown format for --load-format: {arg}\n")
        return replace(opts, load_format=arg)
    if short == "W":
        if not arg.strip():
            return opts
        return replace(opts, load_allowlist=opts.load_allowlist + "cluster," + arg)
    if short == "S":
        return replace(opts, match_subsystems=arg)
    if short == "P":
        return replace(opts, match_policy=arg)
    if short == "T":
        return replace(opts, traverser=arg)
    if short == "F":
        if arg not in MATCH_FORMATS:
            raise UsageError(f"[ERROR] unknown format for --match-format: {arg}\n")
        return replace(opts, match_format=arg)
    if short == "g":
        if arg.lower() not in ("dot", "graphml"):
            raise UsageError(f"[ERROR] unknown format for --graph-format: {arg}\n")
        return replace(opts, graph_format=arg.lower())
    if short == "o":
        return replace(opts, graph_output=arg)
    if short == "p":
        if not arg.strip():
            return opts
        joined = f"{opts.prune_filters},{arg}" if opts.prune_filters else arg
        return replace(opts, prune_filters=joined)
    if short == "t":
        return replace(opts, test_output=arg)
    # short == "r"
    size = _atoi(arg)
    if not 0 <= size <= _RESERVE_MAX:
        warn(f"WARN: out of range specified for --reserve-vtx-vec: {arg}\n")
        size = 0
    return replace(opts, reserve_vtx_vec=size)


def _long_option(body: str, prog: str) -> tuple[str, bool, str | None]:
    """Resolve ``--body`` (``name`` or ``name=value``) to (short letter, takes arg, value)."""
    name, eq, value = body.partition("=")
    exact = [opt for opt in LONG_OPTIONS if opt[0] == name]
    found = exact or [opt for opt in LONG_OPTIONS if name and opt[0].startswith(name)]
    if not found:
        raise UsageError(f"{prog}: unrecognized option '--{body}'\n")
    if len(found) > 1:
        options = " ".join(f"'--{opt[0]}'" for opt in found)
        raise UsageError(f"{prog}: option '--{body}' is ambiguous; possibilities: {options}\n")
    long_name, takes, short = found[0]
    if eq and not takes:
        raise UsageError(f"{prog}: option '--{long_name}' doesn't allow an argument\n")
    return short, takes, value if eq else None


def _bundled_machine(path: str) -> str:
    """``-L``'s file: as given, or for a bare name that is no file here, the bundled machine of
    that name (``-L medium``; :mod:`fluxgraph.data`). The reference cannot read such a name,
    so every name it reads is read the same here (``docs/deviations.md``)."""
    with contextlib.suppress(FluxgraphError):
        return str(local_or_bundled("machines", path))
    return path


def parse_args(
    args: Sequence[str],
    prog: str = "resource-query",
    warn: Callable[[str], None] | None = None,
) -> Options:
    """Parse ``args`` (without the program name) the way ``resource-query`` does.

    Parameters
    ----------
    args
        The command-line arguments.
    prog
        ``argv[0]`` as typed; getopt's messages start with it.
    warn
        Called with each warning line (``-r`` out of range) as it is met; default: ignore.

    Returns
    -------
    Options
        ``help`` is set when ``-h`` was met (parsing stops there).

    Raises
    ------
    UsageError
        On the first invalid option, with getopt's or the reference's message (``""`` for a
        leftover operand); the caller prints it, then :data:`USAGE`, and exits with status 1.

    Examples
    --------
    >>> parse_args(["-L", "/", "-e"])
    Traceback (most recent call last):
    ...
    fluxgraph.query.options.UsageError: [ERROR] path passed to --load-file is a directory: /
    <BLANKLINE>
    >>> opts = parse_args(["-P", "high", "--match-f=jgf", "-ed", "-p", "rack:node"])
    >>> opts.match_policy, opts.match_format, opts.elapse_time, opts.prune_spec
    ('high', 'jgf', True, 'rack:node')
    >>> parse_args(["--load"], prog="rq")
    Traceback (most recent call last):
    ...
    fluxgraph.query.options.UsageError: rq: option '--load' is ambiguous; possibilities: \
'--load-file' '--load-format' '--load-allowlist'
    <BLANKLINE>
    """
    warn = warn or (lambda _line: None)
    opts = Options()
    operands: list[str] = []
    i, n = 0, len(args)
    while i < n:
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--"):
            short, takes, value = _long_option(arg[2:], prog)
            if takes and value is None:
                if i >= n:
                    name = _LONG_OF_SHORT[short]
                    raise UsageError(f"{prog}: option '--{name}' requires an argument\n")
                value, i = args[i], i + 1
            opts = _apply(opts, short, value or "", warn)
        elif arg.startswith("-") and arg != "-":
            pos = 1
            while pos < len(arg):
                short = arg[pos]
                pos += 1
                if short not in _SHORT_TAKES_ARG:
                    raise UsageError(f"{prog}: invalid option -- '{short}'\n")
                value = ""
                if _SHORT_TAKES_ARG[short]:
                    if pos < len(arg):
                        value, pos = arg[pos:], len(arg)
                    elif i < n:
                        value, i = args[i], i + 1
                    else:
                        raise UsageError(f"{prog}: option requires an argument -- '{short}'\n")
                opts = _apply(opts, short, value, warn)
                if opts.help:
                    return opts
        else:
            operands.append(arg)
        if opts.help:
            return opts
    if operands:
        raise UsageError("")
    return opts


USAGE = """
usage: resource-query [OPTIONS...]

Command-line utility that takes in an HPC resource request written in
Flux's Canonical Job Specification (or simply a jobspec) (RFC 14) and
selects the best-matching compute and other resources in accordance
with a selection policy.

Read in a resource-graph generation recipe written in the GRUG format
and populate the resource-graph data store representing the compute and
other HPC resources and their relationships (RFC 4).

Provide a simple command-line interface (cli) to allow users to allocate
or reserve the resource set in this resource-graph data store
using a jobspec as an input.
Traverse the resource graph in a predefined order for resource selection.
Currently only support one traversal type: depth-first traversal on the
dominant subsystem and up-walk traversal on one or more auxiliary
subsystems.

OPTIONS allow for using a predefined matcher that is configured
to use a different set of subsystems as its dominant and/or auxiliary
ones to perform the matches on.

OPTIONS also allow for instantiating a different resource-matching
selection policy--e.g., select resources with high or low IDs first.

OPTIONS allow for exporting the filtered graph of the used matcher
in a selected graph format at the end of the cli session.

To see cli commands, type in "help" in the cli: i.e.,
  % resource-query> help

OPTIONS:
    -h, --help
            Display this usage information

    -L, --load-file=filepath
            Input file from which to load the resource graph data store
            (default=conf/default)

    -f, --load-format=<grug|hwloc|jgf|rv1exec|rv1exec_force>
            Format of the load file (default=grug)

    -W, --load-allowlist=<resource1[,resource2[,resource3...]]>
            Allowlist of resource types to be loaded
            Resources that are not included in this list will be filtered out

    -S, --match-subsystems="
         "<CA|IBA|IBBA|PFS1BA|PA|C+IBA|C+PFS1BA|C+PA|IB+IBBA|"
              "C+P+IBA|VA|V+PFS1BA|ALL>
            Set the predefined matcher to use. Available matchers are:
                CA: Containment Aware
                IBA: InfiniBand connection-Aware
                IBBA: InfiniBand Bandwidth-Aware
                PFS1BA: Parallel File System 1 Bandwidth-aware
                PA: Power-Aware
                C+IBA: Containment- and InfiniBand connection-Aware
                C+PFS1BA: Containment- and PFS1 Bandwidth-Aware
                C+PA: Containment- and Power-Aware
                IB+IBBA: InfiniBand connection and Bandwidth-Aware
                C+P+IBA: Containment-, Power- and InfiniBand connection-Aware
                VA: Virtual Hierarchy-Aware
                V+PFS1BA: Virtual Hierarchy and PFS1 Bandwidth-Aware
                ALL: Aware of everything.
            (default=CA).

    -P, --match-policy=<low|high|lonode|hinode|lonodex|hinodex|first|firstnodex|locality|variation>
            Set the resource match selection policy. Available policies are:
                low: Select resources with low ID first
                high: Select resources with high ID first
                lonode: Select resources with lowest node ID first,
                        low ID first otherwise (e.g., node-local resource types)
                hinode: Select resources with highest node ID first,
                        high ID first otherwise (e.g., node-local resource types)
                lonodex: Same as lonode except each node is exclusively allocated
                hinodex: Same as hinode except each node is exclusively allocated
                first: Select the first matching resources and stop the search
                firstnodex: Select the first matching resources, node exclusive,
                        and stop the search
                locality: Select contiguous resources first in their ID space
                variation: Allocate resources based on performance classes.
                                (perf_class must be set using set-property).
                (default=first).

    -F, --match-format=<simple|pretty_simple|jgf|jgf_shorthand|rlite|rv1|rv1_nosched>
            Specify the emit format of the matched resource set.
            (default=simple).

    -T, --traverser-policy=<simple|flexible>
            Specify the traverser policy.
            (default=simple)

    -p, --prune-filters=<HL-resource1:LL-resource1[,HL-resource2:LL-resource2...]...]>
            Install a planner-based filter at each High-Level (HL) resource
                vertex which tracks the state of the Low-Level (LL) resources
                in aggregate, residing under its subtree. If a jobspec requests
                1 node with 4 cores, and the visiting compute-node vertex has
                only a total of 2 available cores in aggregate at its
                subtree, this filter allows the traverser to prune a further descent
                to accelerate the search.
                Use the ALL keyword for HL-resource if you want LL-resource to be
                tracked at all of the HL-resource vertices. Examples:
                    rack:node,node:core
                    ALL:core,cluster:node,rack:node
                (default=ALL:core).

    -g, --graph-format=<dot|graphml>
            Specify the graph format of the output file
            (default=dot).

    -r, --reserve-vtx-vec=<size>
            Reserve the graph vertex size to optimize resource graph loading.
            The size value must be a non-zero integer up to 2000000.

    -e, --elapse-time
            Print the elapse time per scheduling operation.

    -d, --disable-prompt
            Don't print the prompt.

    -o, --graph-output=<basename>
            Set the basename of the graph output file
            For AT&T Graphviz dot, <basename>.dot
            For GraphML, <basename>.graphml.

    -t, --test-output=<filename>
            Set the output filename where allocated or reserved resource
            information is stored into.

"""
