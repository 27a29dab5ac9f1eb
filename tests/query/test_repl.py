"""The REPL loop (io-and-cli-semantics.md §7.4)."""

from __future__ import annotations

import io

from _fakes import session

from fluxgraph.query.commands import dispatch
from fluxgraph.query.repl import control_loop, split_command


def test_split_command_uses_c_whitespace_only():
    assert split_command("  find  a=b \t and\vc=d\r\n") == ["find", "a=b", "and", "c=d"]
    assert split_command("   \n") == []
    assert split_command("cat x\u00a0y") == ["cat", "x\u00a0y"]


def test_control_loop_ends_at_end_of_input():
    s, _, stdout, _ = session()
    stdin = io.StringIO("help quit\n\n   \nstat")
    assert control_loop(s, stdin, dispatch) == 0
    lines = stdout.getvalue().splitlines()
    assert lines[0].startswith("INFO: quit (q)")
    assert lines[-1] == "INFO: Avg. Match Time: 0"


def test_control_loop_stops_at_quit():
    s, _, stdout, _ = session()
    assert control_loop(s, io.StringIO("quit\nstat\n"), dispatch) == 0
    assert stdout.getvalue() == ""


def test_control_loop_prints_no_prompt_when_not_a_tty():
    s, out, stdout, stderr = session()
    control_loop(s, io.StringIO("bogus\n# comment\n"), dispatch, prompt="resource-query> ")
    assert out.getvalue() == stdout.getvalue() == stderr.getvalue() == ""
