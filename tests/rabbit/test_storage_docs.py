"""docs/storage.md: its Python examples run and its query-tool example shows what it says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "storage.md"


def test_python_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})


def test_query_tool_example():
    command = re.search(r"\$ (printf .*?)\n```", DOC.read_text(), re.DOTALL).group(1)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        command.replace("python3", sys.executable),
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    second = out.split("JOBID=1")[1]
    nodes = re.findall(r"-(node\d+)\[1:x\]", second)
    assert nodes == ["node0", "node1", "node4", "node5", "node8", "node9"]
    assert second.count("ssd2[100:x]") == second.count("ssd3[100:x]") == 3
