"""The bundled examples run: every jobspec in jobspecs/ matches the recipe its header names.

Each jobspec documents its target in a header comment line
``#   fluxgraph-query -L grug_recipes/<recipe>.graphml -S <set> -P <policy>``; the tests read
that line, so the documentation and the check cannot drift apart.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.readers import load
from fluxgraph.writers.sink import SelectionCollector

ROOT = Path(__file__).resolve().parents[1]
JOBSPECS = sorted((ROOT / "jobspecs").glob("*.yaml"))
TARGET = re.compile(r"^#\s+fluxgraph-query -L (\S+) -S (\S+) -P (\S+)\s*$", re.MULTILINE)


def target_of(path: Path) -> tuple[Path, str, str]:
    """The (recipe, subsystem set, policy) named in the header comment of jobspec ``path``."""
    found = TARGET.search(path.read_text())
    assert found, f"{path.name}: no '#   fluxgraph-query -L ... -S ... -P ...' header line"
    recipe, subsystems, policy = found.groups()
    return ROOT / recipe, subsystems, policy


def test_bundled_jobspecs_are_present() -> None:
    assert len(JOBSPECS) >= 5


@pytest.mark.parametrize("path", JOBSPECS, ids=lambda p: p.stem)
def test_bundled_jobspec_documents_an_existing_recipe(path: Path) -> None:
    recipe, _, _ = target_of(path)
    assert recipe.parent == ROOT / "grug_recipes" and recipe.is_file()


@pytest.mark.parametrize("path", JOBSPECS, ids=lambda p: p.stem)
def test_bundled_jobspec_matches_its_recipe(path: Path) -> None:
    recipe, subsystems, policy = target_of(path)
    matcher = Matcher(load(recipe), subsystems, policy)
    spec = jobspec.load(path)
    jobspec.check_known_types(spec, matcher.known_types)
    selection = SelectionCollector()
    outcome = matcher.run(spec, "allocate", 1, selection)
    assert (outcome.rc, outcome.errno, outcome.at) == (0, 0, 0)
    assert selection.vertices
    requested = {vtype for vtype, _ in spec.totals} - {"slot"}
    assert requested <= {v.type for v in selection.vertices}


def test_demo_script_runs_on_medium() -> None:
    demo = (ROOT / "jobspecs" / "demo.in").read_text()
    cmd = [sys.executable, "-m", "fluxgraph.query", "-L", "grug_recipes/medium.graphml"]
    done = subprocess.run(
        [*cmd, "-P", "high"], input=demo, capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stdout + done.stderr
    assert done.stdout.count("INFO: RESOURCES=ALLOCATED") >= 1
    assert "INFO: RESOURCES=RESERVED" in done.stdout  # the demo's header promises one
