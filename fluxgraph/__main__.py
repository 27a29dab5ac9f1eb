"""``fluxgraph`` / ``python3 -m fluxgraph``: one command with subcommands.

``fluxgraph simulate``  replay a job trace on a machine (:mod:`fluxgraph.sched.cli`);
``fluxgraph sweep``     run an experiment grid, resumable, locally or on Dask; ``sweep export``;
``fluxgraph report``    tables and plots of a sweep; ``fluxgraph reproduce`` a paper study
                        (:mod:`fluxgraph.experiments.cli`);
``fluxgraph query``     the ``resource-query``-compatible matcher (same as ``fluxgraph-query``);
``fluxgraph demo``      the Fluxion paper's planner example (Fig. 3/4), worked by Planner.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

import fluxgraph
from fluxgraph.planner.demo import demo

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fluxgraph`` with ``argv`` (without the program name); the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["query"]:
        from fluxgraph.query.cli import main as query_main

        return query_main(argv[1:], prog="fluxgraph query")
    from fluxgraph.experiments import cli as experiments_cli
    from fluxgraph.sched import cli as simulate_cli

    parser = argparse.ArgumentParser(
        prog="fluxgraph",
        description="fluxgraph: graph-based HPC resource matching, trace-driven scheduler "
        "simulation and paper reproductions. 'fluxgraph COMMAND --help' tells more.",
    )
    parser.add_argument("--version", action="version", version=f"fluxgraph {fluxgraph.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    simulate_cli.add_parser(sub)
    experiments_cli.add_parsers(sub)
    sub.add_parser("query", help="the resource-query-compatible matcher (fluxgraph-query)")
    sub.add_parser(
        "demo",
        help="the Fluxion paper's planner example (Fig. 3/4)",
        description="Work the planner example of the Fluxion paper (Patki et al., SC-W 2023, "
        "§4.1, Fig. 3/4) with fluxgraph's Planner: a pool of 8 units, three jobs, and the "
        "paper's four questions, answered for the tuples as printed and as drawn.",
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "simulate":
            return simulate_cli.run(args)
        if args.command in experiments_cli.COMMANDS:
            return experiments_cli.run(args)
        if args.command == "demo":
            return demo()
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    parser.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
