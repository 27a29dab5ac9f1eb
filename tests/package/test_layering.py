"""Dependencies point one way: planner <- graph <- {readers, writers, jobspec} <- policies <-
traverser <- matcher <- {query, front ends} <- experiments <- papers. The papers are leaves: no
shared part imports one, and no paper imports another. Annotation-only imports are exempt."""

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
    "sched": 7,
    "query": 7,
    "grug2dot": 7,
    "experiments": 8,
    "__main__": 9,
    "__init__": 9,
    "papers": 10,
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


def _paper(module: str) -> str | None:
    """The paper a module belongs to (``fluxgraph.papers.fm.run`` -> ``fm``), or None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "papers" else None


def test_no_paper_imports_another():
    crossing = []
    for path in sorted((PACKAGE / "papers").rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        own = _paper(module)
        for target, line in _runtime_imports(ast.parse(path.read_text())):
            other = _paper(target)
            if other is not None and other != own:
                crossing.append(f"{module}:{line} imports {target}")
    assert not crossing, "papers importing papers:\n" + "\n".join(crossing)


def test_papers_is_the_top_layer_and_every_paper_has_a_readme():
    assert LAYERS["papers"] > max(v for k, v in LAYERS.items() if k != "papers")
    papers = [p for p in (PACKAGE / "papers").iterdir() if p.is_dir() and p.name[0] != "_"]
    assert {p.name for p in papers} == {
        "fluxion",
        "variation",
        "rabbit",
        "bbsched",
        "ioaware",
        "fm",
        "disagg",
    }
    for paper in papers:
        readme = paper / "README.md"
        assert readme.is_file(), paper.name
        assert "../shared/reproductions/" in readme.read_text() or paper.name == "fluxion"
