"""Dependencies point one way: planner <- graph <- {readers, writers, jobspec} <- policies <-
traverser <- matcher <- {query, front ends}. Annotation-only imports are exempt."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "fluxgraph"

#: Layer of each top-level part of the package; a module may import only from its own layer or
#: lower ones.
LAYERS = {
    "errors": 0,
    "data": 0,
    "limits": 0,
    "planner": 1,
    "idset": 1,
    "hostlist": 1,
    "workload": 1,
    "graph": 2,
    "readers": 3,
    "writers": 3,
    "jobspec": 3,
    "policies": 4,
    "traverser": 5,
    "matcher": 6,
    "machines": 6,
    "memory_machines": 6,
    "storage": 6,
    "sched": 7,
    "bbsched": 7,
    "query": 7,
    "grug2dot": 7,
    "experiments": 8,
    "__main__": 9,
    "__init__": 9,
}


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def _runtime_imports(tree: ast.Module):
    """Imports outside ``if TYPE_CHECKING:`` blocks."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "fluxgraph":
            for alias in node.names:  # from fluxgraph import jobspec
                yield f"fluxgraph.{alias.name}", node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno


def test_package_imports_point_down_the_layers():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts)
        part = rel.parts[1] if len(rel.parts) > 1 else "__init__"
        if part == "__init__.py":
            part = "__init__"
        own = LAYERS[part.removesuffix(".py")]
        tree = ast.parse(path.read_text())
        for target, line in _runtime_imports(tree):
            if not target.startswith("fluxgraph.") and target != "fluxgraph":
                continue
            other = _part(target)
            if other != part and LAYERS[other] > own:
                upward.append(f"{module}:{line} imports {target}")
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_every_part_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    parts = {p for p in parts if not p.startswith("__pycache__") and p != "py"}
    assert parts - {"py"} <= set(LAYERS) | {"py"}
