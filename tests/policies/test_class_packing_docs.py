"""docs/policies.md's class-packing example runs and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "policies.md"


def test_class_packing_example_prints_its_comments():
    section = DOC.read_text().split("### Class packing", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {})
    printed = out.getvalue().splitlines()
    assert printed == expected
    assert expected[1] == "classpack:slack=100 100 ['node0', 'node1']"  # it waited for class 1
