"""Commands that change the graph or query it through the matcher (§7.6.3-§7.6.10).

``FullFakeMatcher`` pins down the matcher methods the REPL calls (``find``, ``update``,
``attach``, ``remove_subgraph``, ``remove_ranks``, ``partial_cancel``, ``set_status``) and the
exact text the REPL prints around them.
"""

from __future__ import annotations

from errno import EINVAL

import pytest
from _fakes import FakeMatcher, FullFakeMatcher, Outcome, session

from fluxgraph.query.commands import dispatch

BANNER = "INFO: " + "=" * 29 + "\n"


@pytest.fixture
def afile(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{}")
    return str(path)


@pytest.fixture
def badfile(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("bad")
    return str(path)


def run(s, line):
    return dispatch(s, line.split())


def test_find_prints_result_then_expression_block():
    s, out, _, _ = session(FullFakeMatcher())
    run(s, "find  status=up   and cores=1")
    assert out.getvalue() == (
        "      ---------core0[1:x]\n      ------node0[1:x]\n      ---c0[1:x]\n"
        f'{BANNER}INFO: EXPRESSION="status=up and cores=1"\n{BANNER}'
    )


def test_find_invalid_criteria_doubles_the_prefix():
    s, out, _, stderr = session(FullFakeMatcher())
    run(s, "f bad=1")
    assert stderr.getvalue() == "findfind: invalid criteria: bad=1.\n"
    assert out.getvalue() == ""


def test_find_with_json_writers():
    s, out, _, _ = session(FullFakeMatcher(), fmt="rv1_nosched")
    run(s, "find cores=1")
    assert out.getvalue() == (
        '{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}], '
        '"nodelist": ["node0"], "starttime": 0, "expiration": 0}}\n'
        f'{BANNER}INFO: EXPRESSION="cores=1"\n{BANNER}'
    )


def test_find_writer_emit_failure():
    s, out, _, stderr = session(FullFakeMatcher(), fmt="rlite")
    run(s, "find status=up")
    assert stderr.getvalue() == "find: ERROR: find writer emit: Invalid argument\n"
    assert out.getvalue() == ""


def test_find_without_matcher_support_reports_invalid_criteria():
    s, _, _, stderr = session(FakeMatcher())
    run(s, "find status=up")
    assert stderr.getvalue() == "findfind: invalid criteria: status=up.\n"


def test_update_success_records_job_and_sets_counter(afile):
    s, out, _, stderr = session(FullFakeMatcher())
    run(s, f"update allocate jgf {afile} 5 0 3600")
    run(s, f"update reserve rv1exec {afile} 9 100 3600")
    assert stderr.getvalue() == ""
    blocks = out.getvalue().split(BANNER)
    assert blocks[1] == "INFO: JOBID=5\nINFO: RESOURCES=ALLOCATED\nINFO: SCHEDULED AT=Now\n"
    assert blocks[3] == "INFO: JOBID=9\nINFO: RESOURCES=RESERVED\nINFO: SCHEDULED AT=100\n"
    assert (s.jobs[5].state, s.jobs[9].state, s.jobs[9].scheduled_at) == (
        "ALLOCATED",
        "RESERVED",
        100,
    )
    assert s.jobs[5].path == afile
    assert s.counter == 10
    assert (s.min_match_time, s.max_match_time, s.total_match_time) == (1, 1, 2)


def test_update_failure_prints_traverser_message_once(afile):
    failing = Outcome(rc=-1, errno=EINVAL, message="find_vtx: inconsistent.\n id=(1, 2).\n")
    s, out, _, stderr = session(FullFakeMatcher(update_outcome=failing))
    run(s, f"update allocate jgf {afile} 3 0 10")
    assert stderr.getvalue() == (
        "ERROR: traverser run () returned error \nERROR: find_vtx: inconsistent.\n id=(1, 2).\n"
    )
    assert out.getvalue() == f"{BANNER}INFO: No matching resources found\nINFO: JOBID=3\n{BANNER}"
    assert s.counter == 4 and not s.jobs


def test_attach_failure_text(afile, badfile):
    s, _, _, stderr = session(FullFakeMatcher())
    run(s, f"attach {afile}")
    assert stderr.getvalue() == ""
    run(s, f"j {badfile}")
    assert stderr.getvalue() == (
        "ERROR: can't attach JGF subgraph \n"
        "ERROR: add_subgraph: ERROR: add subgraph error: Invalid argument\n"
        "add_subgraph: ERROR: reader returned error: unpack: bad input.\n\n\n"
    )


def test_remove_subgraph_failure_shows_stale_errno_text():
    s, _, _, stderr = session(FullFakeMatcher())
    run(s, "remove /c0/node0 true")
    assert stderr.getvalue() == ""
    run(s, "remove /does/not/exist true")
    assert stderr.getvalue() == (
        "ERROR: can't remove subgraph \n"
        "ERROR: remove_subgraph: ERROR: remove_subgraph error: Inappropriate ioctl for device\n"
        "remove_subgraph: ERROR: traverser returned error: remove: path /does/not/exist not "
        "found.\n\n\n"
    )


def test_remove_ranks_messages():
    s, _, _, stderr = session(FullFakeMatcher())
    run(s, "remove [0-1] false")
    run(s, "remove 1-x false")
    run(s, "remove [5] false")
    assert stderr.getvalue() == (
        "ERROR: failed to decode ranks.\n"
        "ERROR: can't partial cancel subgraph \nERROR: remove: 5 not found in by_rank map.\n"
    )


def test_partial_cancel_outcomes(afile, badfile, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("x: 1\n")
    matcher = FullFakeMatcher()
    s, out, stdout, stderr = session(matcher)
    run(s, f"match allocate {job}")
    run(s, f"partial-cancel 1 rv1exec {afile}")
    assert s.jobs[1].state == "ALLOCATED"
    run(s, f"pc 1 jgf {badfile} stats")
    assert stdout.getvalue() == "remove: partial_cancel returned error.\n"
    assert stderr.getvalue() == "ERROR: error encountered while removing job 1\n"
    assert out.getvalue().endswith(
        f'{BANNER}INFO: PARTIAL CANCEL PREORDER COUNT="0"\n'
        f'INFO: PARTIAL CANCEL POSTORDER COUNT="0"\n{BANNER}'
    )
    matcher.partial_full = True
    run(s, f"pc 1 rv1exec {afile}")
    assert s.jobs[1].state == "CANCELED"


def test_set_status_calls_matcher_and_failure_ends_session():
    matcher = FullFakeMatcher()
    s, out, _, stderr = session(matcher)
    assert run(s, "set-status /c0/node0 down") == 0
    assert run(s, "t /c0 up") == 0
    assert matcher.statuses == [("/c0/node0", "down"), ("/c0", "up")]
    assert out.getvalue() == stderr.getvalue() == ""
    assert run(s, "set-status /c0/node0/core1 down") != 0
