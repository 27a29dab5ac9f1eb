"""``grug2dot``: draw a GRUG recipe graph as GraphViz DOT (the reference's ``grug2dot``).

``grug2dot [-m|--more] [-h|--help] <genspec>.graphml`` writes ``<genspec>.dot`` in the current
directory: one line per recipe vertex labelled with its ``basename`` (``subsystem:basename:size``
with ``--more``) and one per recipe edge labelled with its ``relation``
(``relation:gen_method:multi_scale`` with ``--more``). Labels are written unescaped.
"""

from __future__ import annotations

import getopt
import sys
from collections.abc import Sequence
from pathlib import Path

from fluxgraph.errors import ReaderError
from fluxgraph.readers.grug_recipe import Recipe, parse_recipe

__all__ = ["USAGE", "main", "recipe_to_dot"]

#: The usage text, printed to stderr.
USAGE = """Usage: grug2dot <genspec>.graphml
    Convert a resource-graph generator spec (<genspec>.graphml)
    to AT&T GraphViz format (<genspec>.dot). The output
    file only contains the basic information unless --more is given.

    OPTIONS:
    -h, --help
            Display this usage information

    -m, --more
            More information in the output file

"""


def recipe_to_dot(recipe: Recipe, *, more: bool = False) -> str:
    """The DOT text of a recipe graph.

    Examples
    --------
    >>> doc = '''<graphml>
    ...   <key id="b" for="node" attr.name="basename" attr.type="string"/>
    ...   <key id="r" for="edge" attr.name="relation" attr.type="string">
    ...     <default>contains</default></key>
    ...   <graph edgedefault="directed">
    ...     <node id="c"><data key="b">tiny</data></node>
    ...     <edge source="c" target="n"/>
    ...   </graph>
    ... </graphml>'''
    >>> print(recipe_to_dot(parse_recipe(doc)), end="")
    digraph G {
    0[label="tiny"];
    1[label=""];
    0->1 [label="contains"];
    }
    """
    lines = ["digraph G {"]
    for i, v in enumerate(recipe.vertices):
        label = f"{v.subsystem}:{v.basename}:{v.size}" if more else v.basename
        lines.append(f'{i}[label="{label}"];')
    for out in recipe.out_edges:
        for k in out:
            e = recipe.edges[k]
            label = f"{e.relation}:{e.gen_method}:{e.multi_scale}" if more else e.relation
            lines.append(f'{e.source}->{e.target} [label="{label}"];')
    lines.append("}\n")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``grug2dot`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        opts, rest = getopt.gnu_getopt(args, "hm", ["help", "more"])
    except getopt.GetoptError as err:
        sys.stderr.write(f"grug2dot: {err}\n{USAGE}")
        return 1
    more = False
    for opt, _ in opts:
        if opt in ("-h", "--help"):
            sys.stderr.write(USAGE)
            return 0
        more = True
    if len(rest) != 1:
        sys.stderr.write(USAGE)
        return 1
    path = Path(rest[0])
    try:
        recipe = parse_recipe(path.read_bytes(), source=str(path))
    except (OSError, ReaderError):
        sys.stderr.write(f"Error in reading {rest[0]}\n")
        return 255
    out = f"{path.stem}.dot"
    try:
        Path(out).write_text(recipe_to_dot(recipe, more=more))
    except OSError:
        sys.stderr.write(f"Error in writing {out}\n")
        return 255
    return 0


if __name__ == "__main__":
    sys.exit(main())
