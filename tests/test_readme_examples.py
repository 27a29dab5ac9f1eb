"""Every example of the README runs from an empty directory (as after ``pip install``): the
Python blocks, the main command's simulation and the query demo; nothing may need the
repository's root as the working directory."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```(python|sh)\n(.*?)```", README.read_text(), re.S)


def _python(name: str) -> str:
    """A console script of ours run through this interpreter (the same install)."""
    module = {"fluxgraph": "fluxgraph", "fluxgraph-query": "fluxgraph.query"}[name]
    return f"{shlex.quote(sys.executable)} -m {module}"


def _commands(text: str) -> list[str]:
    """The shell commands of a block after its install step, console scripts made explicit."""
    out = []
    for line in text.strip().splitlines():
        for command in line.split("&&"):
            command = command.strip()
            if not command or "pip install" in command or command.startswith("python3 -m pytest"):
                continue
            out.append(re.sub(r"^(fluxgraph-query|fluxgraph)\b", lambda m: _python(m[1]), command))
    return out


@pytest.mark.parametrize(
    "code", [code for kind, code in BLOCKS if kind == "python"], ids=lambda c: c.split("\n")[0]
)
def test_python_example_runs_from_an_empty_directory(code, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_main_command_runs_from_an_empty_directory(tmp_path):
    commands = [c for kind, code in BLOCKS if kind == "sh" for c in _commands(code)]
    assert commands and "simulate" in commands[0]
    done = subprocess.run(
        commands[0], shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "sim-out"
    for name in ("jobs.csv", "schedule.swf", "summary.json", "gantt.png"):
        assert (out / name).is_file(), name
    assert len((out / "jobs.csv").read_text().splitlines()) == 501


def test_query_demo_of_the_readme_runs_from_any_directory(tmp_path):
    found = re.search(r"`(cd \"\$\(python3 -c .*?jobspecs/demo\.in)`", README.read_text(), re.S)
    assert found, "the README's query demo"
    command = " ".join(found.group(1).split())
    command = command.replace("python3 -c", f"{shlex.quote(sys.executable)} -c")
    command = re.sub(r"&& fluxgraph-query\b", f"&& {_python('fluxgraph-query')}", command)
    done = subprocess.run(
        command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "INFO: RESOURCES=RESERVED" in done.stdout
