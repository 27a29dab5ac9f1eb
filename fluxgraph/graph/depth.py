"""How deep a resource graph is, and the deepest one fluxgraph accepts.

The traverser's walks (selection, update, cancel, find, status) recurse once per level of the
dominant subsystem, a few Python frames a level, so a graph must not be deeper than
:data:`MAX_GRAPH_DEPTH` levels. Real machines use fewer than 20 (cluster, rack, node, socket,
NUMA groups, caches, core, PU). The readers refuse deeper documents before they change the graph
and the :class:`~fluxgraph.matcher.Matcher` refuses a deeper hand-built graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["MAX_GRAPH_DEPTH", "graph_depth", "is_tree", "tree_depth", "walk_depth"]

#: Deepest graph accepted, in vertices on the longest root-to-leaf path.
MAX_GRAPH_DEPTH = 128


def walk_depth(
    roots: Iterable[int], children: Callable[[int], Iterable[int]], limit: int = MAX_GRAPH_DEPTH
) -> int:
    """The largest stack a depth-first walk from ``roots`` reaches (a root is at depth 1).

    The walk is iterative and visits each vertex once (as the traverser does, by colour); it
    stops as soon as the depth exceeds ``limit`` and then returns ``limit + 1``.

    Examples
    --------
    >>> chain = {0: [1], 1: [2], 2: [], 3: [0]}
    >>> walk_depth([0], chain.__getitem__), walk_depth([3], chain.__getitem__, limit=2)
    (3, 3)
    """
    seen: set[int] = set()
    deepest = 0
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [iter(children(root))]
        deepest = max(deepest, 1)
        while stack:
            for v in stack[-1]:
                if v not in seen:
                    seen.add(v)
                    stack.append(iter(children(v)))
                    if len(stack) > deepest:
                        deepest = len(stack)
                        if deepest > limit:
                            return limit + 1
                    break
            else:
                stack.pop()
    return deepest


def graph_depth(
    graph, subsystems: Sequence[str] | None = None, limit: int = MAX_GRAPH_DEPTH
) -> int:
    """The depth of ``graph`` below its roots in ``subsystems`` (default: every root).

    Runtime complexity: O(V + E), stopping early once ``limit`` is exceeded.
    """
    depth = 0
    for sub, root in graph.roots.items():
        if subsystems is not None and sub not in subsystems:
            continue
        levels = tree_depth(graph, sub, root, limit)
        if levels is None:
            levels = walk_depth([root], graph.children(sub).__getitem__, limit)
        depth = max(depth, levels)
        if depth > limit:
            break
    return depth


def tree_depth(graph, subsystem: str, root: int, limit: int = MAX_GRAPH_DEPTH) -> int | None:
    """The depth below ``root`` level by level, where ``subsystem`` is a tree hanging from it
    (no vertex with two parents, none above ``root``): a depth-first walk's deepest stack is
    then the number of levels. ``None`` where it is not such a tree.

    >>> from fluxgraph.machines import build_machine
    >>> g = build_machine("nodes=2,cores=2")
    >>> tree_depth(g, "containment", g.roots["containment"])
    3
    """
    esub = graph.edge_subsystem
    if not is_tree(graph, subsystem) or any(esub[e] == subsystem for e in graph.in_edges[root]):
        return None
    out, dst = graph.child_edges(subsystem), graph.edge_dst
    level, depth = [root], 0
    while level:
        depth += 1
        if depth > limit:
            return limit + 1
        level = [dst[e] for u in level for e in out[u]]
    return depth


def is_tree(graph, subsystem: str) -> bool:
    """Whether ``subsystem``'s edges form a forest: no vertex with two parents and no cycle.

    With at most one parent per vertex, a cycle is a loop of vertices none of which hangs
    below a parentless vertex, so the test counts the vertices reachable from the parentless
    ones. Every walk that expands children level by level without colours (visit replay's
    subtrees, :func:`tree_depth`) relies on this to terminate.

    Runtime complexity: O(V + E).

    >>> from fluxgraph.machines import build_machine
    >>> g = build_machine("nodes=2,cores=2")
    >>> is_tree(g, "containment")
    True
    >>> _ = g.add_edge(max(g.children("containment")[1]), 0, "containment")  # core -> cluster
    >>> is_tree(g, "containment")
    False
    """
    n = graph.num_vertices
    has_parent = bytearray(n)
    dst = graph.edge_dst
    out = graph.child_edges(subsystem)
    for edges in out:
        for e in edges:
            v = dst[e]
            if has_parent[v]:
                return False
            has_parent[v] = 1
    todo = [v for v in range(n) if not has_parent[v]]
    reached = len(todo)
    while todo:
        for e in out[todo.pop()]:
            todo.append(dst[e])
            reached += 1
    return reached == n
