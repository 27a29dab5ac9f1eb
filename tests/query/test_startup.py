"""Start-up of the resource-query front end: errors, load statistics, -t/-o (§7.2, §8.2)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from fluxgraph.query.cli import USAGE, main
from fluxgraph.readers import load
from fluxgraph.writers import to_dot

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "grug_recipes" / "tiny.graphml"


def _main(args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    rc = main(args, prog="rq", stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def test_help_prints_usage_and_exits_zero():
    assert _main(["-h"]) == (0, "", USAGE)


def test_usage_error_prints_message_then_usage():
    assert _main(["-Z"]) == (1, "", "rq: invalid option -- 'Z'\n" + USAGE)
    assert _main(["operand"]) == (1, "", USAGE)


def test_bad_policy_is_reported_before_loading(tmp_path):
    empty = tmp_path / "empty.graphml"
    empty.write_text("")
    expected = ": Runtime error: resource_query_t: ERROR: can't create matcher\n\n"
    assert _main(["-L", str(empty), "-P", "bogus"]) == (1, "", expected)
    assert _main(["-L", str(TINY), "-P", "policy"]) == (1, "", expected)


def test_load_failure_wraps_the_reader_message(tmp_path):
    empty = tmp_path / "empty.graphml"
    empty.write_text("")
    rc, out, err = _main(["-L", str(empty)])
    assert (rc, out) == (1, "")
    assert err == (
        ": Runtime error: resource_query_t: ERROR: error in reading grug string; \n"
        "ERROR: error generating resources\n\n"
    )


def test_bad_prune_filters_and_missing_root_are_matcher_errors():
    prefix = ": Runtime error: initialize_matchers_and_traversers: ERROR: "
    assert _main(["-L", str(TINY), "-p", "core"]) == (
        1,
        "",
        prefix + "can't set pruning filters\n\n",
    )
    assert _main(["-L", str(TINY), "-S", "PA"]) == (
        1,
        "",
        prefix + "can't initialize traverser\n\n",
    )


def test_unknown_subsystems_is_a_clean_error():
    rc, _, err = _main(["-L", str(TINY), "-S", "Ca"])
    assert rc == 1
    assert err.startswith(
        ": Runtime error: initialize_matchers_and_traversers: ERROR: unknown match subsystems 'Ca'"
    )
    assert _main(["-L", str(TINY), "-S", "ca"], "quit\n") == (0, "", "")


def test_unknown_traverser_is_a_clean_error():
    rc, _, err = _main(["-L", str(TINY), "-T", "fancy"])
    assert (rc, err) == (
        1,
        ": Runtime error: resource_query_t: ERROR: unknown traverser policy 'fancy'\n\n",
    )


def test_unwritable_test_output_is_a_clean_error(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "out"
    rc, _, err = _main(["-L", str(TINY), "-t", str(target)])
    assert rc == 1
    assert err == f"ERROR: can't open --test-output file {target}: No such file or directory\n"


def test_load_statistics_describe_the_graph():
    rc, out, err = _main(["-L", str(TINY), "-e"], "quit\n")
    assert (rc, err) == (0, "")
    graph = load(TINY)
    lines = out.splitlines()
    assert lines[0].startswith("INFO: Graph Load Time: ")
    float(lines[0].rsplit(" ", 1)[1])
    assert lines[1:6] == [
        f"INFO: Vertex Count: {graph.num_vertices}",
        f"INFO: Edge Count: {graph.num_edges}",
        f"INFO: by_type Key-Value Pairs: {len(graph.by_type)}",
        f"INFO: by_name Key-Value Pairs: {len(graph.by_name)}",
        f"INFO: by_path Key-Value Pairs: {len(graph.by_path)}",
    ]
    ranks = sorted(graph.by_rank)
    assert ranks[0] == -1
    assert lines[6:] == [
        f"INFO: number of vertices with rank {r}: {len(graph.by_rank[r])}" for r in ranks
    ]


def test_test_output_receives_the_match_stream(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old content")
    rc, out, err = _main(["-L", str(TINY), "-t", str(target)], "get-status /tiny0\nhelp q\n")
    assert (rc, err) == (0, "")
    assert target.read_text() == "/tiny0 is up\n"
    assert out == "INFO: quit (q) -- Quit the session: resource-query> quit\n"


def test_graph_output_writes_dot_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _main(["-L", str(TINY), "-o", "g", "-g", "DOT"], "quit\n") == (0, "", "")
    assert (tmp_path / "g.dot").read_text() == to_dot(load(TINY), subsystems=["containment"])
    assert _main(["-L", str(TINY), "-o", "g2", "-g", "graphml"], "") == (0, "", "")
    assert (tmp_path / "g2.graphml").read_text().startswith("<?xml")


@pytest.mark.parametrize("args", [["-Z"], ["--load"]])
def test_module_entry_point_reports_getopt_errors(args):
    proc = subprocess.run(
        [sys.executable, "-m", "fluxgraph.query", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("resource-query: ")
    assert proc.stderr.endswith(USAGE)
    assert proc.stdout == ""
