"""The SWF reader: header metadata, the mapping rules, errors, lenient mode, limit, real traces."""

from __future__ import annotations

import io
import time
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workload_helpers import swf_line, trace

from fluxgraph.errors import WorkloadError
from fluxgraph.workload import (
    Job,
    Workload,
    WorkloadWarning,
    bundled_trace,
    parse_swf,
    poisson,
    read_swf,
    write_swf,
)

HEADER = """\
; Version: 2.2
; Computer: IBM SP2
; Information: http://www.pdc.kth.se/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; EndTime:   Fri Aug 29 10:55:01 CEST 1997
; MaxNodes: 100
; MaxProcs: 128
;
; Note: first note
;       continued
; Note: second note
"""


def parse(*lines: str, **kwargs) -> Workload:
    """Parse ``lines`` as the file ``t.swf``, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return parse_swf(list(lines), source="t.swf", **kwargs)


def test_header_comments_become_metadata_with_continuations_and_int_sizes():
    w = parse(*HEADER.splitlines(), swf_line(1, 0, 0, 10, 1))
    md = w.metadata
    assert md["Version"] == "2.2" and md["Computer"] == "IBM SP2"
    assert md["Information"] == (
        "http://www.pdc.kth.se/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/"
    )
    assert md["EndTime"] == "Fri Aug 29 10:55:01 CEST 1997"
    assert md["Note"] == "first note\ncontinued\nsecond note"
    assert (w.max_nodes, w.max_procs) == (100, 128)
    assert md["memory_unit"] == "kb-per-proc"


def test_requested_processors_win_over_allocated_ones():
    w = parse(swf_line(1, 0, 0, 10, 4, -1, -1, 8), swf_line(2, 0, 0, 10, 4, -1, -1, -1))
    assert [j.procs for j in w] == [8, 4]
    assert w[0].extra["alloc_procs"] == 4


def test_walltime_is_the_requested_time_or_else_the_runtime():
    w = parse(swf_line(1, 0, 0, 50, 1, -1, -1, 1, 60), swf_line(2, 0, 0, 50, 1, -1, -1, 1, -1))
    assert [(j.runtime, j.walltime) for j in w] == [(50, 60), (50, 50)]


def test_times_are_at_least_one_second():
    w = parse(swf_line(1, 0, 0, 0, 1, -1, -1, 1, 0), swf_line(2, 0, 0, 0, 1, -1, -1, 1, 30))
    assert [(j.runtime, j.walltime) for j in w] == [(1, 1), (1, 30)]


def test_a_job_past_its_walltime_is_killed_at_it():
    w = parse(swf_line(1, 0, 0, 90, 1, -1, -1, 1, 60), swf_line(2, 5, 0, 30, 1, -1, -1, 1, 60))
    assert [(j.runtime, j.walltime) for j in w] == [(60, 60), (30, 60)]
    assert w.metadata["killed_at_walltime"] == "1"


def test_submit_times_keep_the_trace_origin_and_jobs_are_sorted():
    w = parse(
        swf_line(9, 600850, 0, 5, 1), swf_line(3, 599850, 0, 5, 1), swf_line(2, 600850, 0, 5, 1)
    )
    assert [(j.id, j.submit) for j in w] == [(3, 599850), (2, 600850), (9, 600850)]


def test_bad_jobs_are_dropped_counted_and_summed_up_in_one_warning():
    lines = [
        swf_line(1, 0, 0, 10, 0, -1, -1, 0),  # no processors
        swf_line(2, 0, 0, 10, -1, -1, -1, -1),  # unknown processors
        swf_line(3, 0, 0, -1, 4),  # unknown (negative) run time
        swf_line(4, -1, 0, 10, 4),  # unknown submit time
        swf_line(5, 0, 0, 10, 4),
    ]
    with pytest.warns(WorkloadWarning) as record:
        w = parse_swf(lines, source="t.swf")
    assert [j.id for j in w] == [5]
    assert dict(w.dropped) == {
        "procs <= 0": 2,
        "negative runtime": 1,
        "negative submit time": 1,
    }
    assert len(record) == 1
    assert str(record[0].message) == (
        "t.swf: dropped 4 jobs (negative runtime: 1, negative submit time: 1, procs <= 0: 2)"
    )


def test_user_group_and_queue_fields():
    w = parse(swf_line(1, 0, 0, 10, 1, -1, -1, 1, 20, -1, 1, 12, 7, -1, 3), swf_line(2, 0, 0, 1, 1))
    j = w[0]
    assert (j.user, j.group, j.queue) == (12, 7, "3")
    assert parse(swf_line(1, 0, 0, 10, 1))[0].queue == ""


def test_unused_fields_go_to_extra_when_known():
    j = parse("7 100 35 10 2 9.5 -1 2 60 -1 0 1 1 4 1 2 6 30")[0]
    assert dict(j.extra) == {
        "wait": 35,
        "alloc_procs": 2,
        "cpu_time": 9.5,
        "status": 0,
        "executable": 4,
        "partition": 2,
        "preceding_job": 6,
        "think_time": 30,
    }
    with pytest.raises(TypeError):
        j.extra["wait"] = 0  # type: ignore[index]


def test_memory_is_kb_per_processor_in_plain_swf():
    # 2 GB per processor (2 * 2**20 KB) on 4 processors: 8 GB for the job, nodes unknown
    j = parse(swf_line(1, 0, 0, 10, 4, -1, -1, 4, 20, 2 * 2**20))[0]
    assert j.extra["memory_job_gb"] == 8.0
    assert (j.nodes, j.memory) == (0, 0.0)


def test_memory_unit_can_be_forced_and_is_validated():
    line = swf_line(1, 0, 0, 10, 4, -1, -1, 4, 20, 3 * 2**30)
    w = parse(line, memory_unit="bytes-per-job")
    assert w[0].extra["memory_job_gb"] == 3.0 and w.metadata["memory_unit"] == "bytes-per-job"
    with pytest.raises(WorkloadError, match="memory_unit must be one of auto, kb-per-proc"):
        parse(line, memory_unit="GB")


ALEA = (
    "0 1356996147 0 56011 64 1 1024 64 86400 68719476736 1 62 1 1 -1 1 1 1 "
    "{1241,1241} q_1d 1:ppn=64:x86_64:cl_zewura#excl",
    "5 1356996200 0 100 7 1 1024 7 3600 7516192768 1 62 1 1 -1 1 1 1 "
    "{1257,1276,1276,1278,1278,1285,1285} q_2h 1:ppn=1+3:ppn=2",
)


def test_extended_alea_swf_memory_is_bytes_per_job_and_nodes_come_from_the_node_spec():
    w = parse(*ALEA)
    a, b = w
    assert w.metadata["memory_unit"] == "bytes-per-job"
    assert (a.nodes, a.memory, a.extra["memory_job_gb"], a.queue) == (1, 64.0, 64.0, "q_1d")
    assert (b.nodes, b.procs, b.memory, b.queue) == (4, 7, 7.0 / 4, "q_2h")
    assert a.extra["field19"] == "{1241,1241}"
    assert a.extra["field21"] == "1:ppn=64:x86_64:cl_zewura#excl"


def test_tabs_and_runs_of_spaces_separate_fields():
    j = parse("\t3\t 10   -1\t20 2 -1 -1 -1 40 -1 1 3 1 -1 batch -1 -1 -1  ")[0]
    assert (j.id, j.submit, j.runtime, j.walltime, j.procs, j.queue) == (3, 10, 20, 40, 2, "batch")


def test_fractional_values_round_to_whole_seconds_and_processors():
    j = parse("4 10.4 -1 59.5 2.0 -1 -1 -1 120.6 -1 1 3 1 -1 -1 -1 -1 -1")[0]
    assert (j.id, j.submit, j.runtime, j.walltime, j.procs) == (4, 10, 60, 121, 2)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (swf_line(1, 0, 0, "abc", 1), "t.swf:2: field 4 (run time): 'abc' is not a number"),
        ("1 0 0 10 1", "t.swf:2: expected 18 fields, found 5"),
        (swf_line(1.5, 0, 0, 1, 1), "t.swf:2: field 1 (job number): '1.5' is not an integer"),
        (swf_line(1, "nan", 0, 1, 1), "t.swf:2: field 2 (submit time): 'nan' is not a finite"),
        (swf_line(1, 0, 0, 1, 1, "x"), "t.swf:2: field 6 (average CPU time): 'x' is not a"),
        (swf_line(1, 0, "5-", 1, 1), "t.swf:2: field 3 (wait time): '5-' is not a number"),
        (swf_line(1, 0, 0, "1_0", 1), "t.swf:2: field 4 (run time): '1_0' is not a number"),
        (swf_line(1, 0, 0, 1, 1, 2, "-"), "t.swf:2: field 7 (used memory): '-' is not a number"),
    ],
)
def test_malformed_lines_name_file_line_and_field(line, message):
    with pytest.raises(WorkloadError) as info:
        parse("; Version: 2", line)
    assert str(info.value).startswith(message)
    assert (info.value.source, info.value.line) == ("t.swf", 2)


def test_the_error_carries_the_field_separately():
    with pytest.raises(WorkloadError) as info:
        parse(swf_line(1, 0, 0, 5, 1, -1, -1, -1, "2h"))
    assert info.value.field == "9 (requested time)"


def test_lenient_mode_skips_and_records_malformed_lines():
    lines = [swf_line(1, 0, 0, 5, 1), "garbage", swf_line(2, 0, 0, "x", 1), swf_line(3, 1, 0, 5, 1)]
    with pytest.warns(WorkloadWarning, match="skipped 2 malformed lines"):
        w = parse_swf(lines, source="t.swf", lenient=True)
    assert [j.id for j in w] == [1, 3]
    assert [line for line, _ in w.skipped_lines] == [2, 3]
    assert w.skipped_lines[1][1] == "t.swf:3: field 4 (run time): 'x' is not a number"


def test_limit_stops_reading_after_n_kept_jobs():
    consumed = []

    def lines():
        yield "; MaxProcs: 4"
        for i in range(1, 1000):
            consumed.append(i)
            yield swf_line(i, i, 0, 5, 0 if i == 2 else 1)  # job 2 is dropped
        raise AssertionError("read past the limit")

    with pytest.warns(WorkloadWarning, match="procs <= 0: 1"):
        w = parse_swf(lines(), limit=3, source="t.swf")
    assert [j.id for j in w] == [1, 3, 4]
    assert len(consumed) == 5  # the fifth line is read, seen to be past the limit, not parsed
    assert len(parse(swf_line(1, 0, 0, 5, 1), limit=0)) == 0
    with pytest.raises(WorkloadError, match="limit must be None or an integer >= 0"):
        parse(swf_line(1, 0, 0, 5, 1), limit=-1)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 10**6),
    st.integers(-1, 10**8),
    st.integers(-5, 10**6),
    st.integers(-1, 512),
    st.integers(-1, 512),
    st.integers(-1, 10**6),
    st.integers(-1, 10**4),
    st.integers(-1, 10**4),
)
def test_any_well_formed_line_follows_the_rules(jid, submit, run, alloc, req, req_time, u, g):
    line = swf_line(jid, submit, 0, run, alloc, -1, -1, req, req_time, -1, 1, u, g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkloadWarning)
        w = parse_swf([line])
    procs = req if req > 0 else alloc
    if procs <= 0 or run < 0 or submit < 0:
        assert len(w) == 0 and sum(w.dropped.values()) == 1
        return
    walltime = max(1, req_time) if req_time > 0 else max(1, run)
    runtime = min(max(1, run), walltime)
    assert w.jobs == (Job(jid, submit, runtime, walltime, procs, 0, 0.0, u, g),)
    j = w[0]
    assert 1 <= j.runtime <= j.walltime and j.procs >= 1


def test_write_swf_then_read_gives_the_same_jobs():
    w = poisson(200, rate=1 / 30, max_procs=32, runtime=(1, 500), overestimate=(1.0, 3.0), seed=4)
    buf = io.StringIO()
    write_swf(w, buf)
    again = parse_swf(buf.getvalue().splitlines())
    assert again.jobs == w.jobs
    assert again.max_procs == 32 and again.metadata["generator"] == "poisson"


def test_write_swf_keeps_multi_line_metadata_and_memory(tmp_path):
    w = parse(*HEADER.splitlines(), *ALEA)
    path = tmp_path / "out.swf"
    write_swf(w, path)
    again = read_swf(path)
    assert again.metadata["Note"] == w.metadata["Note"]
    assert again.metadata["Information"] == w.metadata["Information"]
    assert [j.extra["field21"] for j in again] == [j.extra["field21"] for j in w]
    assert [j.nodes for j in again] == [1, 4]
    # lines in the Alea layout keep field 10 in bytes per job, so memory survives the trip
    assert again.metadata["memory_unit"] == "bytes-per-job"
    assert [j.memory for j in again] == [j.memory for j in w] == [64.0, 7.0 / 4]


def test_the_bundled_kth_sample_is_the_head_of_the_kth_log():
    w = read_swf(bundled_trace("kth-sample.swf"))
    assert (len(w), w.name, w.max_procs, w.max_nodes) == (500, "kth-sample", 100, 100)
    assert w.metadata["Installation"] == "Swedish Royal Institute of Technology (KTH)"
    first = w[0]
    assert (first.id, first.submit, first.runtime, first.walltime, first.procs) == (
        15,
        599850,
        3477,
        53940,
        4,
    )
    assert bundled_trace("kth-sample.swf").stat().st_size < 100_000


def test_missing_file_is_a_workload_error(tmp_path):
    with pytest.raises(WorkloadError, match=r"nope\.swf: cannot open"):
        read_swf(tmp_path / "nope.swf")


# --- the public traces of ../shared/traces (skipped when absent) ---------------------------


def _check_invariants(w: Workload) -> None:
    assert all(1 <= j.runtime <= j.walltime and j.procs >= 1 and j.submit >= 0 for j in w)
    keys = [(j.submit, j.id) for j in w]
    assert keys == sorted(keys)


def test_the_full_kth_trace_reads_fast_with_its_one_bad_record():
    path = trace("KTH-SP2-1996-2.1-cln.swf")
    start = time.perf_counter()
    with pytest.warns(WorkloadWarning, match=r"procs <= 0: 1"):
        w = read_swf(path)
    elapsed = time.perf_counter() - start
    print(f"KTH: {len(w)} jobs in {elapsed:.3f} s")
    assert len(w) + sum(w.dropped.values()) == int(w.metadata["MaxRecords"]) == 28476
    assert (w.max_procs, w.max_nodes, w.metadata["UnixStartTime"]) == (100, 100, "843480031")
    assert int(w.metadata["killed_at_walltime"]) > 0
    _check_invariants(w)
    assert elapsed < 5.0  # ~0.4 s of CPU; generous for a loaded machine


def test_the_wagap_extended_trace_reads_with_memory_per_node():
    with pytest.warns(WorkloadWarning, match=r"negative runtime: 2"):
        w = read_swf(trace("wagap-2013.swf"))
    assert len(w) == 17898 and w.metadata["memory_unit"] == "bytes-per-job"
    first = w[0]
    assert (first.id, first.procs, first.nodes, first.memory, first.queue) == (
        0,
        64,
        1,
        64.0,
        "q_1d",
    )
    assert all(j.nodes >= 1 for j in w)
    assert sum(j.memory > 0 for j in w) == len(w)
    _check_invariants(w)


def test_the_lublin_model_trace_reads():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = read_swf(trace("lublin_256.swf"))
    assert (len(w), w.max_nodes) == (10000, 256)
    assert max(j.runtime for j in w) <= int(w.metadata["MaxRuntime"])
    assert all(j.walltime == j.runtime for j in w)  # the model has no requested times
    _check_invariants(w)


def test_limit_on_a_real_trace_is_fast_and_keeps_file_order():
    path = trace("KTH-SP2-1996-2.1-cln.swf")
    start = time.perf_counter()
    w = read_swf(path, limit=100)
    assert time.perf_counter() - start < 0.5
    assert len(w) == 100 and w.metadata["MaxProcs"] == "100"
    assert sorted(j.id for j in w) == list(range(15, 115))
