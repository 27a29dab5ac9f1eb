"""The Python examples of the docs pages run (from the repository root, as the pages say).

Each page's ``python`` blocks that are programs (not ``>>>`` sessions, which the pages' own
doctest tests run) are executed in order in one namespace, so a block may continue the one
before it. Pages whose blocks are sketches of a protocol or need files the reader makes first
are listed with the reason; pages that read ``../shared`` skip where it is absent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
#: pages whose python blocks are not complete programs, and why
NOT_PROGRAMS = {
    "experiments.md": "reads a YAML file the page writes out only as text",
    "formats.md": "a sketch of the reader API over files the reader supplies",
    "simulator.md": "protocol sketches (its examples are doctests: tests/sched/test_doctests.py)",
}


def _programs(page: Path) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    return [b for b in blocks if not b.lstrip().startswith(">>>")]


@pytest.mark.parametrize("page", [p for p in DOCS if _programs(p)], ids=lambda p: p.name)
def test_docs_python_examples_run(page, monkeypatch):
    if page.name in NOT_PROGRAMS:
        pytest.skip(NOT_PROGRAMS[page.name])
    code = "\n".join(_programs(page))
    if "../shared" in code and not (ROOT.parent / "shared").is_dir():
        pytest.skip("needs ../shared")
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__docs__"}
    exec(compile(code, str(page), "exec"), namespace)
