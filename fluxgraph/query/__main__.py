"""``python3 -m fluxgraph.query``: run the resource-query front end."""

from __future__ import annotations

import sys

from fluxgraph.query.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="resource-query"))
