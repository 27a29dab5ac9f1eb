"""The one GRUG recipe emitter: every machine builder writes its recipe through it.

A GRUG recipe (the reference's ``resource-query -L`` input) is a GraphML document of *template*
vertices and edges whose ``multi_scale`` multiplies the targets. Builders describe their
machine as :func:`grug_vertex` and :func:`grug_edge` lines and wrap them with
:func:`grug_document`, which declares the standard keys.

>>> text = grug_document([grug_vertex("cluster", "cluster", root=True),
...                       grug_vertex("node", "node")],
...                      [grug_edge("cluster", "node", [("multi_scale", 4)])])
>>> from fluxgraph.machines import load_machine
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "four.graphml"
>>> _ = path.write_text(text)
>>> len(load_machine(path).by_type["node"])
4
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["grug_document", "grug_edge", "grug_vertex"]


def _data(items: Sequence[tuple[str, object]]) -> str:
    return "".join(f'<data key="{key}">{value}</data>' for key, value in items)


def grug_vertex(
    vid: str,
    vtype: str,
    *,
    basename: str | None = None,
    size: int = 1,
    unit: str = "",
    root: bool = False,
    subsystem: str = "",
) -> str:
    """A template vertex line: ``root`` (if set), ``type``, ``basename`` (default: the type),
    then ``size``, ``unit`` and ``subsystem`` where they differ from the defaults.

    >>> print(grug_vertex("n", "node", size=2, root=True).replace("><", ">\\n<"))
        <node id="n">
    <data key="root">1</data>
    <data key="type">node</data>
    <data key="basename">node</data>
    <data key="size">2</data>
    </node>
    """
    items: list[tuple[str, object]] = [("root", 1)] if root else []
    items += [("type", vtype), ("basename", basename or vtype)]
    if size != 1:
        items.append(("size", size))
    if unit:
        items.append(("unit", unit))
    if subsystem:
        items.append(("subsystem", subsystem))
    return f'    <node id="{vid}">{_data(items)}</node>'


def grug_edge(
    src: str, dst: str, data: Sequence[tuple[str, object]], *, edge_id: str = ""
) -> str:
    """A template edge line with ``data`` (key, value) in the order given.

    >>> grug_edge("cluster", "node", [("multi_scale", 4)], edge_id="e0")
    '    <edge id="e0" source="cluster" target="node"><data key="multi_scale">4</data></edge>'
    """
    ident = f' id="{edge_id}"' if edge_id else ""
    return f'    <edge{ident} source="{src}" target="{dst}">{_data(data)}</edge>'


#: ``(name, for, type, default)`` of the GRUG keys every generated recipe declares.
_GRUG_KEYS = (
    ("root", "node", "int", "0"),
    ("type", "node", "string", None),
    ("basename", "node", "string", None),
    ("size", "node", "long", "1"),
    ("unit", "node", "string", None),
    ("subsystem", "node", "string", "containment"),
    ("e_subsystem", "edge", "string", "containment"),
    ("relation", "edge", "string", "contains"),
    ("rrelation", "edge", "string", "in"),
    ("gen_method", "edge", "string", "MULTIPLY"),
    ("multi_scale", "edge", "int", "1"),
    ("id_scope", "edge", "int", "0"),
    ("id_start", "edge", "int", "0"),
    ("id_stride", "edge", "int", "1"),
    ("as_tgt_subsystem", "edge", "string", "containment"),
    ("as_tgt_uplvl", "edge", "int", "1"),
    ("as_src_uplvl", "edge", "int", "1"),
)


def _grug_key(name: str, owner: str, kind: str, default: str | None) -> str:
    head = f'  <key id="{name}" for="{owner}" attr.name="{name}" attr.type="{kind}"'
    return head + ("/>" if default is None else f"><default>{default}</default></key>")


def grug_document(
    vertices: Sequence[str],
    edges: Sequence[str],
    *,
    graph_id: str = "machine",
    comment: str = "",
    after: Sequence[str] = (),
) -> str:
    """A GRUG recipe: the standard key declarations, then ``vertices`` and ``edges`` (their
    ``<node>``/``<edge>`` lines, indented) in a graph named ``graph_id``, then ``after``
    (lines a builder adds to a generated machine, e.g. a pool under its root).

    >>> text = grug_document(['    <node id="n"><data key="root">1</data></node>'], [])
    >>> text.count("<key "), '<graph id="machine"' in text
    (17, True)
    """
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            *([f"<!-- {comment} -->"] if comment else []),
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
            *(_grug_key(*k) for k in _GRUG_KEYS),
            f'  <graph id="{graph_id}" edgedefault="directed">',
            *vertices,
            *edges,
            *after,
            "  </graph>",
            "</graphml>",
            "",
        ]
    )
