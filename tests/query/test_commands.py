"""REPL commands: messages, streams and job-counter rules (io-and-cli-semantics.md §7.5-§7.6).

The matcher is scripted (``_fakes.FakeMatcher``) so that each reporting rule is tested on its own.
"""

from __future__ import annotations

from errno import EBUSY, EINVAL, ENODEV

import pytest
from _fakes import FakeMatcher, Outcome, session

from fluxgraph.errors import GraphError
from fluxgraph.graph import STATUS_DOWN
from fluxgraph.query.commands import COMMANDS, dispatch, strtoll

BANNER = "INFO: " + "=" * 29 + "\n"
SELECTION = "      ---------core0[1:x]\n      ------node0[1:s]\n      ---c0[1:s]\n"


@pytest.fixture
def job(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text("version: 9999\n")
    return str(path)


def run(s, line):
    return dispatch(s, line.split())


def test_match_allocate_success_prints_selection_and_allocated_block(job):
    s, out, stdout, stderr = session()
    assert run(s, f"match allocate {job}") == 0
    assert out.getvalue() == SELECTION + (
        f"{BANNER}INFO: JOBID=1\nINFO: RESOURCES=ALLOCATED\nINFO: SCHEDULED AT=Now\n{BANNER}"
    )
    assert stderr.getvalue() == stdout.getvalue() == ""
    assert s.counter == 2
    assert s.jobs[1].state == "ALLOCATED" and s.jobs[1].path == job


def test_match_reservation_reports_reserved_at_time(job):
    s, out, _, _ = session(FakeMatcher(outcomes=[Outcome(at=3600)]))
    run(s, f"m allocate_orelse_reserve {job}")
    assert "INFO: RESOURCES=RESERVED\nINFO: SCHEDULED AT=3600\n" in out.getvalue()
    assert s.jobs[1].state == "RESERVED" and s.jobs[1].scheduled_at == 3600


def test_match_busy_failure_advances_counter_without_recording(job):
    s, out, _, stderr = session(FakeMatcher(outcomes=[Outcome(rc=-1, errno=EBUSY)]))
    run(s, f"match allocate {job}")
    assert out.getvalue() == f"{BANNER}INFO: No matching resources found\nINFO: JOBID=1\n{BANNER}"
    assert stderr.getvalue() == ""
    assert s.counter == 2 and not s.jobs


def test_match_unsatisfiable_failure_adds_unsatisfiable_line(job):
    s, out, _, _ = session(FakeMatcher(outcomes=[Outcome(rc=-1, errno=ENODEV)]))
    run(s, f"match allocate_with_satisfiability {job}")
    assert out.getvalue() == (
        f"{BANNER}INFO: No matching resources found\nINFO: Unsatisfiable request\n"
        f"INFO: JOBID=1\n{BANNER}"
    )
    assert s.counter == 2


def test_match_other_error_reports_strerror_and_keeps_counter(job):
    s, out, _, stderr = session(FakeMatcher(outcomes=[Outcome(rc=-1, errno=EINVAL)]))
    run(s, f"match allocate {job}")
    assert stderr.getvalue() == "match_allocate: ERROR: traverser: Invalid argument\n"
    assert "INFO: JOBID=1\n" in out.getvalue()
    assert s.counter == 1


def test_match_traverser_message_is_printed_verbatim(job):
    outcome = Outcome(rc=-1, errno=EINVAL, message="some traverser text.\n")
    s, _, _, stderr = session(FakeMatcher(outcomes=[outcome]))
    run(s, f"match allocate {job}")
    assert stderr.getvalue() == "match_allocate: ERROR: some traverser text.\n"


def test_satisfiability_reports_verdict_and_never_advances(job):
    matcher = FakeMatcher(outcomes=[Outcome(emit=False), Outcome(rc=-1, errno=ENODEV)])
    s, out, _, _ = session(matcher)
    run(s, f"match satisfiability {job}")
    run(s, f"match satisfiability {job}")
    assert out.getvalue() == (
        f"{BANNER}INFO: Satisfiable request\n{BANNER}{BANNER}INFO: Unsatisfiable request\n{BANNER}"
    )
    assert s.counter == 1 and not s.jobs


def test_without_allocating_prints_matched_with_current_counter(job):
    s, out, _, _ = session()
    run(s, f"match allocate {job}")
    run(s, f"match without_allocating {job}")
    assert out.getvalue().endswith(
        f"INFO: JOBID=2\nINFO: RESOURCES=MATCHED\nINFO: SCHEDULED AT=Now\n{BANNER}"
    )
    assert s.counter == 2 and list(s.jobs) == [1]


def test_jobspec_error_is_reported_with_counter(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("x")
    s, out, _, stderr = session()
    run(s, f"match allocate {bad}")
    run(s, f"match satisfiability {bad}")
    message = 'Missing key "resource" in top level mapping'
    assert stderr.getvalue() == f"match_allocate: ERROR: Jobspec error for 1: {message}\n" * 2
    assert out.getvalue() == (
        f"{BANNER}INFO: No matching resources found\nINFO: JOBID=1\n{BANNER}"
        f"{BANNER}INFO: Satisfiable request\n{BANNER}"
    )
    assert s.counter == 1


def test_match_unreadable_file_prints_only_an_error(tmp_path):
    s, out, _, stderr = session()
    run(s, f"match allocate {tmp_path / 'missing.yaml'}")
    assert stderr.getvalue() == f"ERROR: can't open {tmp_path / 'missing.yaml'}\n"
    assert out.getvalue() == ""


def test_rlite_emit_failure_skips_recording_and_counter(job):
    matcher = FakeMatcher(outcomes=[Outcome(rc=-1, errno=EBUSY), Outcome(emit=False), Outcome()])
    s, out, _, stderr = session(matcher, fmt="rlite")
    run(s, f"match allocate {job}")
    run(s, f"match satisfiability {job}")
    assert stderr.getvalue() == "match_allocate: ERROR: match writer emit: Invalid argument\n" * 2
    assert out.getvalue() == (
        f"{BANNER}INFO: No matching resources found\nINFO: JOBID=1\n{BANNER}"
        f"{BANNER}INFO: Satisfiable request\n{BANNER}"
    )
    assert s.counter == 1
    run(s, f"match allocate {job}")
    assert s.counter == 2
    assert '[{"rank": "0", "children": {"core": "0"}}]\n' in out.getvalue()


def test_elapse_lines_go_to_stdout_on_success_and_out_on_failure(job):
    matcher = FakeMatcher(outcomes=[Outcome(), Outcome(rc=-1, errno=EBUSY)])
    s, out, stdout, _ = session(matcher, elapse=True)
    run(s, f"match allocate {job}")
    run(s, f"match allocate {job}")
    assert stdout.getvalue() == (
        "INFO: ELAPSE=1.000000\nINFO: PREORDER VISIT COUNT=7\nINFO: POSTORDER VISIT COUNT=5\n"
        "INFO: PREORDER VISIT COUNT=7\nINFO: POSTORDER VISIT COUNT=5\n"
    )
    assert out.getvalue().endswith("INFO: JOBID=2\nINFO: ELAPSE=1.000000\n" + BANNER)


def test_elapse_lines_interleave_in_program_order_on_one_stream(job):
    s, _, stdout, _ = session(elapse=True, same_out=True)
    run(s, f"match allocate {job}")
    assert stdout.getvalue().endswith(
        "INFO: SCHEDULED AT=Now\nINFO: ELAPSE=1.000000\nINFO: PREORDER VISIT COUNT=7\n"
        f"INFO: POSTORDER VISIT COUNT=5\n{BANNER}"
    )


def test_match_argument_checks(job):
    s, out, _, stderr = session()
    run(s, "match allocate")
    run(s, f"match allocate {job} extra")
    run(s, f"match grab {job}")
    assert stderr.getvalue() == (
        "ERROR: malformed command\nERROR: malformed command\nERROR: unknown subcmd grab\n"
    )
    assert out.getvalue() == ""


def test_multi_match_stops_at_first_failure_but_not_at_unreadable_files(job, tmp_path):
    matcher = FakeMatcher(outcomes=[Outcome(), Outcome(rc=-1, errno=EBUSY), Outcome()])
    s, _, _, stderr = session(matcher)
    missing = tmp_path / "missing.yaml"
    run(s, f"M allocate {job} {missing} {job} {job}")
    assert matcher.runs == [("allocate", 1), ("allocate", 2)]
    assert stderr.getvalue() == f"ERROR: can't open {missing}\n"
    run(s, f"multi-match allocate {job}")
    assert stderr.getvalue().endswith("ERROR: malformed command\n")


def test_cancel_marks_job_canceled_and_prints_stats(job):
    s, out, stdout, stderr = session()
    run(s, f"match allocate {job}")
    run(s, "cancel 7")
    assert stderr.getvalue() == "cancel: ERROR: nonexistent job 7\n"
    run(s, "cancel 1 stats")
    assert s.jobs[1].state == "CANCELED"
    assert out.getvalue().endswith(
        f'{BANNER}INFO: CANCEL PREORDER COUNT="0"\nINFO: CANCEL POSTORDER COUNT="0"\n{BANNER}'
    )
    run(s, "list")
    assert stdout.getvalue() == f"INFO: 1, CANCELED, 0, {job}, 1\n"


def test_cancel_failure_reports_removal_error(job):
    s, _, _, stderr = session(FakeMatcher(cancel_fails=True))
    run(s, f"match allocate {job}")
    run(s, "c 1")
    assert stderr.getvalue() == "cancel: ERROR: error encountered while removing job 1\n"
    assert s.jobs[1].state == "ALLOCATED"


def test_list_info_and_stat(job):
    s, _, stdout, stderr = session(FakeMatcher(outcomes=[Outcome(), Outcome(at=60)]))
    run(s, "stat")
    assert stdout.getvalue() == (
        "INFO: Num. of Jobs Matched: 0\nINFO: Min. Match Time: 0\n"
        "INFO: Max. Match Time: 0\nINFO: Avg. Match Time: 0\n"
    )
    run(s, f"match allocate {job}")
    run(s, f"match allocate_orelse_reserve {job}")
    stdout.seek(0)
    stdout.truncate()
    run(s, "list")
    run(s, "info 2")
    run(s, "stat")
    assert stdout.getvalue() == (
        f"INFO: 1, ALLOCATED, 0, {job}, 1\nINFO: 2, RESERVED, 60, {job}, 1\n"
        f"INFO: 2, RESERVED, 60, {job}, 1\n"
        "INFO: Num. of Jobs Matched: 2\nINFO: Min. Match Time: 1.79769e+308\n"
        "INFO: Max. Match Time: 0\nINFO: Avg. Match Time: 0\n"
    )
    run(s, "info 9")
    run(s, "stat extra")
    assert stderr.getvalue() == "info: ERROR: nonexistent job 9\nERROR: malformed command\n"


def test_help_lists_every_command_or_the_named_ones():
    s, _, stdout, _ = session()
    run(s, "help")
    lines = stdout.getvalue().splitlines()
    assert len(lines) == len(COMMANDS) == 18
    assert lines[0].startswith("INFO: match (m) -- Allocate or reserve matching resources")
    assert lines[-1] == "INFO: quit (q) -- Quit the session: resource-query> quit"
    stdout.seek(0)
    stdout.truncate()
    run(s, "help j")
    run(s, "help bogus")
    run(s, "h a b")
    out = stdout.getvalue().splitlines()
    assert [line.split(" (")[0] for line in out[:2]] == ["INFO: attach", "INFO: remove"]
    assert out[2] == "ERROR: unknown command: bogus"
    assert len(out) == 3 + 18


def test_properties_round_trip_and_messages():
    matcher = FakeMatcher()
    s, out, _, _ = session(matcher)
    run(s, "get-property /c0/node0")
    run(s, "set-property /c0/node0 perf=a=b")
    run(s, "set-property /c0/node0 amd=")
    run(s, "set-property /c0/node0 =x")
    run(s, "set-property /nowhere k=v")
    run(s, "p /c0/node0 alpha=1")
    run(s, "g /c0/node0")
    run(s, "get-property /nowhere")
    bad = "Incorrect input format. \nPlease use `set-property <resource> PROPERTY=VALUE`.\n"
    assert out.getvalue() == (
        "No properties were found for /c0/node0 (vtx's uniq_id=1).\n"
        + bad * 2
        + "Couldn't find path /nowhere in resource graph.\n"
        "alpha=1\nperf=a=b\n"
        "Could not find path /nowhere in resource graph.\n"
    )
    assert matcher.property_edits == 2  # the two edits that changed a property


def test_status_commands():
    matcher = FakeMatcher()
    s, out, _, stderr = session(matcher)
    matcher.graph.status[1] = STATUS_DOWN
    run(s, "get-status /c0/node0")
    run(s, "e /c0")
    run(s, "get-status /nowhere")
    run(s, "set-status /nowhere up")
    run(s, "set-status /c0 sideways")
    missing = "Could not find path /nowhere in resource graph.\n"
    assert out.getvalue() == "/c0/node0 is down\n/c0 is up\n" + missing * 2
    assert stderr.getvalue() == "ERROR: unrecognized status\n"


def test_cat_prints_lines_then_info(tmp_path):
    path = tmp_path / "j.yaml"
    path.write_text("a: 1\nb: 2")
    s, _, stdout, _ = session()
    run(s, f"cat {path}")
    run(s, f"a {tmp_path / 'none'}")
    assert stdout.getvalue() == (
        f"a: 1\nb: 2\nINFO: Jobspec in {path}\nINFO: Jobspec in {tmp_path / 'none'}\n"
    )


def test_cat_without_argument_is_malformed():
    s, _, stdout, stderr = session()
    assert run(s, "cat") == 0
    assert stderr.getvalue() == "ERROR: malformed command\n" and stdout.getvalue() == ""


def test_unknown_commands_and_quit():
    s, out, stdout, stderr = session()
    assert run(s, "# a comment") == 0
    assert run(s, "bogus 1 2") == 0
    assert run(s, "Match allocate x") == 0
    assert out.getvalue() == stdout.getvalue() == stderr.getvalue() == ""
    assert run(s, "quit") != 0
    assert run(s, "q") != 0


def test_update_argument_checks(job):
    s, _, _, stderr = session()
    run(s, f"match allocate {job}")
    lines = [
        f"update allocate jgf {job} 1 0",
        f"update grab jgf {job} 1 0 10",
        f"update allocate hwloc {job} 1 0 10",
        "update allocate jgf /nonexistent/x 1 0 10",
        f"update allocate jgf {job} 1 0 10",
        f"update reserve jgf {job} 5 -1 10",
        f"update reserve rv1exec {job} 5 0 0",
        f"u reserve jgf_shorthand {job} 5 -3 -1",
    ]
    for line in lines:
        run(s, line)
    assert stderr.getvalue() == (
        "ERROR: malformed command\n"
        "ERROR: unknown subcmd grab\n"
        "ERROR: unsupported reader hwloc\n"
        "ERROR: can't open /nonexistent/x\n"
        "ERROR: existing Jobid \n"
        "ERROR: invalid time (-1, 10)\n"
        "ERROR: invalid time (0, 0)\n"
        "ERROR: invalid time (-3, 18446744073709551615)\n"
    )
    assert s.counter == 2  # none of these reached the traverser


def test_partial_cancel_argument_checks(job):
    s, _, _, stderr = session(FakeMatcher(outcomes=[Outcome(), Outcome(at=100)]))
    run(s, f"match allocate {job}")
    run(s, f"match allocate_orelse_reserve {job}")
    for line in (
        f"partial-cancel 1 jgf {job} stats extra",
        f"pc 1 grug {job}",
        "pc 1 jgf /nonexistent/x",
        f"pc 2 rv1exec {job}",
        f"pc 5 rv1exec {job}",
    ):
        run(s, line)
    assert stderr.getvalue() == (
        "ERROR: malformed command\nERROR: unsupported reader grug\n"
        "ERROR: can't open /nonexistent/x\n"
        "ERROR: reservations not currently supported by partial cancel\n"
        "ERROR: nonexistent job 5\n"
    )


def test_find_and_remove_argument_checks():
    s, _, _, stderr = session()
    run(s, "find")
    run(s, "remove /c0/node0 maybe")
    run(s, "remove /c0/node0")
    assert stderr.getvalue() == (
        "ERROR: malformed command: \nERROR: invalid path boolean input \nERROR: malformed command\n"
    )


def test_dispatch_reports_library_errors_and_continues(job):
    class Exploding(FakeMatcher):
        def run(self, *args, **kwargs):
            raise GraphError("vertex 3 vanished")

    s, _, _, stderr = session(Exploding())
    assert run(s, f"match allocate {job}") == 0
    assert stderr.getvalue() == "ERROR: match: vertex 3 vanished\n"


def test_strtoll_follows_c():
    assert strtoll("12abc") == 12
    assert strtoll("abc") == 0
    assert strtoll("  -3") == -3
    assert strtoll("+4") == 4
    assert strtoll("-99999999999999999999") == -(2**63)
