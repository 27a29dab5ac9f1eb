"""The top level exposes exactly the curated names the README and docs use.

The list itself lives once, in ``fluxgraph.__all__``; these tests check what it must hold instead
of restating it: every name resolves, is documented and public; ``import *`` gives exactly it; the
names the README's examples import are in it; each exported error is the one an exported entry
point raises on bad input.
"""

from __future__ import annotations

import inspect
import re
import tomllib
import types
from pathlib import Path

import pytest

import fluxgraph

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


#: ``from fluxgraph import a, b as c`` in a code block or a doctest line
IMPORT_LINE = re.compile(r"^(?:>>> )?from fluxgraph import ([\w ,]+)$", re.M)


def test_every_export_resolves_is_public_and_documented():
    prose = "\n".join(p.read_text(encoding="utf-8") for p in DOCS)
    assert fluxgraph.__all__ == sorted(fluxgraph.__all__), "keep __all__ sorted"
    assert len(set(fluxgraph.__all__)) == len(fluxgraph.__all__)
    for name in fluxgraph.__all__:
        obj = getattr(fluxgraph, name)
        if name == "__version__":
            continue
        assert not name.startswith("_"), name
        assert not isinstance(obj, types.ModuleType), f"{name} is a module, not an entry point"
        assert obj.__module__.startswith("fluxgraph."), (name, obj.__module__)
        assert inspect.getdoc(obj), f"{name} has no docstring"
        is_error = isinstance(obj, type) and issubclass(obj, fluxgraph.FluxgraphError)
        if not is_error:  # the errors are documented by what raises them: see RAISERS below
            assert re.search(rf"\b{name}\b", prose), f"{name} appears in no README/docs page"


def test_star_import_gives_exactly_the_public_attributes():
    namespace: dict = {}
    exec("from fluxgraph import *", namespace)
    star = {n for n in namespace if n != "__builtins__"}
    public = {
        n
        for n, v in vars(fluxgraph).items()
        # ``annotations`` is the ``from __future__`` feature flag, not an export
        if not n.startswith("_") and not isinstance(v, types.ModuleType) and n != "annotations"
    }
    assert star == set(fluxgraph.__all__)
    assert public == star - {"__version__"}, "a public attribute is missing from __all__"


def test_names_the_readme_and_docs_import_from_the_top_level_are_exported():
    imported = set()
    for path in DOCS:
        for names in IMPORT_LINE.findall(path.read_text(encoding="utf-8")):
            imported |= {n.split(" as ")[0].strip() for n in names.split(",")}
    submodules = {n for n in imported if (ROOT / "fluxgraph" / n).exists()}
    assert {"Matcher", "bundled", "load_graph", "load_jobspec"} <= imported
    assert imported - submodules <= set(fluxgraph.__all__)


def test_version_is_the_packaged_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert fluxgraph.__version__ == project["version"]


def _medium():
    return fluxgraph.load_graph(fluxgraph.bundled("machines", "medium"))


#: (exported error name, a call through the exported entry points that must raise it)
RAISERS = [
    ("ReaderError", lambda: fluxgraph.load_graph(ROOT / "pyproject.toml")),
    ("JobspecError", lambda: fluxgraph.load_jobspec(ROOT / "pyproject.toml")),
    ("GraphError", lambda: _medium().vertex(10**6)),
    ("MatchError", lambda: fluxgraph.Matcher(_medium(), subsystems=[])),
    ("QueryError", lambda: fluxgraph.Matcher(_medium()).find("status=((", None)),
    ("PlannerError", lambda: fluxgraph.Planner(0, 0, 1, "core")),
    ("PlannerError", lambda: fluxgraph.PlannerMulti(0, 10, [1], [])),
]


@pytest.mark.parametrize(("error", "call"), RAISERS, ids=[e for e, _ in RAISERS])
def test_each_exported_error_is_what_an_entry_point_raises(error, call):
    cls = getattr(fluxgraph, error)
    assert issubclass(cls, fluxgraph.FluxgraphError)
    with pytest.raises(cls):
        call()


def test_every_exported_error_has_a_raiser():
    errors = {n for n in fluxgraph.__all__ if n.endswith("Error")}
    assert errors - {"FluxgraphError"} == {e for e, _ in RAISERS}


def test_top_level_entry_points_match_a_bundled_job():
    graph = fluxgraph.load_graph(ROOT / "grug_recipes" / "medium.graphml")
    assert isinstance(graph, fluxgraph.ResourceGraph)
    m = fluxgraph.Matcher(graph, policy="high")
    r = m.match(fluxgraph.load_jobspec(ROOT / "jobspecs" / "slot-core-memory-gpu.yaml"))
    assert r.job_id == 1 and r.at == 0 and not r.reserved
    assert {v.type for v in r.resources} >= {"core", "gpu", "memory", "socket", "node"}
