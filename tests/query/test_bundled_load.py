"""``-L`` finds bundled machines by name from any directory; a file of that name still wins."""

from __future__ import annotations

import subprocess
import sys

from fluxgraph import bundled


def _query(cwd, *args, commands="quit\n"):
    return subprocess.run(
        [sys.executable, "-m", "fluxgraph.query", *args],
        input=commands,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_a_bundled_machine_loads_by_name_from_any_directory(tmp_path):
    spec = bundled("jobspecs", "slot-core-memory-gpu")
    done = _query(tmp_path, "-L", "medium", "-P", "high", commands=f"match allocate {spec}\nquit\n")
    assert done.returncode == 0, done.stderr
    assert "INFO: RESOURCES=ALLOCATED" in done.stdout


def test_a_file_in_the_working_directory_comes_first(tmp_path):
    (tmp_path / "medium").write_text(bundled("machines", "tiny").read_text())
    spec = bundled("jobspecs", "slot-core-memory-gpu")
    done = _query(tmp_path, "-L", "medium", commands=f"match allocate {spec}\nquit\n")
    assert "INFO: RESOURCES=ALLOCATED" not in done.stdout  # tiny has no gpus


def test_an_unknown_name_is_the_reference_error(tmp_path):
    done = _query(tmp_path, "-L", "no-such-machine")
    assert done.returncode != 0
    assert "[ERROR] file does not exist for --load-file: no-such-machine" in done.stderr
