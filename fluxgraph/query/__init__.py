"""A ``resource-query``-compatible front end: command line, REPL and commands.

Run it as ``python3 -m fluxgraph.query [OPTIONS...]``; see ``docs/query.md``.
"""

from __future__ import annotations

from fluxgraph.query.cli import USAGE, Options, UsageError, main, parse_args
from fluxgraph.query.commands import COMMANDS, Command, dispatch
from fluxgraph.query.repl import QueryJob, Session, control_loop

__all__ = [
    "COMMANDS",
    "USAGE",
    "Command",
    "Options",
    "QueryJob",
    "Session",
    "UsageError",
    "control_loop",
    "dispatch",
    "main",
    "parse_args",
]
