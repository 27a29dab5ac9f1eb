"""The CSV reader: detected and explicit column mappings, the rules, errors, lenient mode."""

from __future__ import annotations

import gzip
import time
import warnings

import pytest
from workload_helpers import trace

from fluxgraph.errors import WorkloadError
from fluxgraph.workload import WorkloadWarning, detect_mapping, read_csv

PERLMUTTER_HEAD = """\
jobid,submit,start,end,nnodes,duration,memory
2373390,165955826,165955826,165960154,128,4328,96
2374250,165971056,165971056,165975378,4,4321,143
"""


def write(tmp_path, text: str, name: str = "t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def read(path, *args, **kwargs):
    """read_csv failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_csv(path, *args, **kwargs)


def test_the_perlmutter_columns_map_out_of_the_box(tmp_path):
    w = read(write(tmp_path, PERLMUTTER_HEAD))
    j = w[0]
    assert (j.id, j.submit, j.runtime, j.walltime) == (2373390, 165955826, 4328, 4328)
    assert (j.nodes, j.procs, j.memory) == (128, 128, 96.0)
    assert dict(j.extra) == {"start": 165955826, "end": 165960154}
    assert w[1].memory == 143.0 and w.name == "t"


def test_detect_mapping_prefers_a_runtime_column_over_start_and_end():
    assert detect_mapping(["JobID", "Submit", "Start", "End"]) == {
        "id": "JobID",
        "submit": "Submit",
        "start": "Start",
        "end": "End",
    }
    assert "start" not in detect_mapping(["submit", "start", "end", "elapsed"])


def test_without_a_runtime_column_start_and_end_give_it(tmp_path):
    w = read(write(tmp_path, "id,submit,start,end\n1,10,15,75\n"))
    assert (w[0].runtime, w[0].walltime, w[0].procs, w[0].nodes) == (60, 60, 1, 0)


def test_an_explicit_mapping_overrides_and_disables_defaults(tmp_path):
    path = write(
        tmp_path,
        "job,t_sub,len,limit,cores,mem,who,partition\n5,0,100,60,8,4.5,alice,debug\n",
    )
    mapping = {"submit": "t_sub", "runtime": "len", "walltime": "limit", "procs": "cores"}
    w = read(path, mapping)
    j = w[0]
    assert (j.id, j.runtime, j.walltime, j.procs, j.memory, j.queue) == (5, 60, 60, 8, 4.5, "debug")
    assert w.metadata["killed_at_walltime"] == "1"
    assert j.extra["who"] == "alice"  # not a recognised user column: kept in extra
    no_memory = read(path, {**mapping, "memory": None, "user": "who"})[0]
    assert (no_memory.memory, no_memory.extra["mem"]) == (0.0, 4.5)  # numbers stay numbers
    assert (no_memory.user, no_memory.extra["user_name"]) == (0, "alice")


def test_column_names_match_case_insensitively(tmp_path):
    w = read(write(tmp_path, "ID,SUBMIT,Duration\n3,7,9\n"), {"runtime": "duration"})
    assert (w[0].id, w[0].submit, w[0].runtime) == (3, 7, 9)


def test_user_and_group_names_become_stable_small_integers(tmp_path):
    text = "id,submit,runtime,user,group\n1,0,5,bob,hpc\n2,1,5,amy,hpc\n3,2,5,bob,\n4,3,5,17,2\n"
    w = read(write(tmp_path, text))
    assert [(j.user, j.group) for j in w] == [(0, 0), (1, 0), (0, -1), (17, 2)]
    assert w[1].extra["user_name"] == "amy" and "user_name" not in w[3].extra


def test_procs_per_node_counts_cores_of_node_exclusive_jobs(tmp_path):
    path = write(tmp_path, PERLMUTTER_HEAD)
    assert [j.procs for j in read(path, procs_per_node=128)] == [128 * 128, 4 * 128]
    with pytest.raises(WorkloadError, match="procs_per_node must be >= 1"):
        read(path, procs_per_node=0)


def test_ids_without_a_number_get_fresh_ones_and_keep_the_original(tmp_path):
    text = "jobid,submit,runtime\n12_3,0,5\n40,1,5\nabc,2,5\n40,3,5\n"
    w = read(write(tmp_path, text))
    assert [j.id for j in w] == [41, 40, 42, 43]
    assert [j.extra.get("orig_id") for j in w] == ["12_3", None, "abc", "40"]
    numbered = read(write(tmp_path, "submit,runtime\n5,1\n3,1\n", "n.csv"))
    assert [(j.id, j.submit) for j in numbered] == [(2, 3), (1, 5)]


def test_bad_jobs_are_dropped_and_counted(tmp_path):
    text = "id,submit,runtime,nodes\n1,0,5,0\n2,0,-3,1\n3,-1,5,1\n4,0,5,1\n"
    with pytest.warns(WorkloadWarning, match=r"t.csv: dropped 3 jobs"):
        w = read_csv(write(tmp_path, text))
    assert [j.id for j in w] == [4]
    assert dict(w.dropped) == {"procs <= 0": 1, "negative runtime": 1, "negative submit time": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,submit,duration\n1,0,5\n2,0,abc\n", "t.csv:3: field duration (runtime): 'abc' is"),
        ("id,submit,duration\n1,,5\n", "t.csv:2: field submit (submit): missing value"),
        ("id,submit,duration\n1,0\n", "t.csv:2: expected 3 columns, found 2"),
        ("id,submit,duration\n1,0,inf\n", "t.csv:2: field duration (runtime): 'inf' is not a"),
        ("id,duration\n1,0\n", "t.csv:1: no column for submit; name it in the mapping"),
        ("id,submit\n1,0\n", "t.csv:1: no column for runtime; name it in the mapping"),
        ("id,submit,id\n1,0,1\n", "t.csv:1: duplicate column names: id"),
        ("", "t.csv:1: no header line naming the columns"),
    ],
)
def test_malformed_input_names_file_line_and_column(tmp_path, text, message):
    with pytest.raises(WorkloadError) as info:
        read(write(tmp_path, text))
    assert str(info.value).removeprefix(f"{tmp_path}/").startswith(message)


def test_bad_mappings_are_reported(tmp_path):
    path = write(tmp_path, PERLMUTTER_HEAD)
    with pytest.raises(WorkloadError, match=r"t.csv:1: field runtime: column 'len' not found"):
        read(path, {"runtime": "len"})
    with pytest.raises(WorkloadError, match="unknown job field 'cpus' in the mapping"):
        read(path, {"cpus": "nnodes"})
    with pytest.raises(WorkloadError, match="map either 'runtime' or 'start' and 'end'"):
        read(path, {"start": "start", "end": "end"})
    assert read(path, {"runtime": None, "start": "start", "end": "end"})[0].runtime == 4328


def test_lenient_mode_skips_bad_records(tmp_path):
    text = "id,submit,runtime\n1,0,5\n2,x,5\n3,0\n4,0,5\n"
    with pytest.warns(WorkloadWarning, match="skipped 2 malformed lines"):
        w = read_csv(write(tmp_path, text), lenient=True)
    assert [j.id for j in w] == [1, 4]
    assert [line for line, _ in w.skipped_lines] == [3, 4]


def test_limit_and_blank_lines_and_gzip(tmp_path):
    text = "id,submit,runtime\n1,0,5\n\n2,1,5\n3,2,5\n"
    assert [j.id for j in read(write(tmp_path, text), limit=2)] == [1, 2]
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    w = read(gz)
    assert (len(w), w.name) == (3, "t")


def test_quoted_multi_line_cells_report_the_right_line(tmp_path):
    text = 'id,submit,runtime,note\n1,0,5,"two\nlines"\n2,0,bad,x\n'
    with pytest.raises(WorkloadError, match=r"t.csv:4: field runtime"):
        read(write(tmp_path, text))


def test_the_perlmutter_trace_reads_out_of_the_box():
    path = trace("perlmutter-fm-jobs.csv")
    start = time.perf_counter()
    w = read(path)
    print(f"perlmutter: {len(w)} jobs in {time.perf_counter() - start:.3f} s")
    assert len(w) == 14110
    assert all(j.nodes >= 1 and j.procs == j.nodes and j.memory >= 0 for j in w)
    assert all(j.walltime == j.runtime >= 1 for j in w)
    # the duration column, not end - start (which is often a second or two longer here)
    assert all(0 <= j.extra["end"] - j.extra["start"] - j.runtime <= 20 for j in w)
    first = next(j for j in w if j.id == 2373390)
    assert (first.submit, first.runtime, first.nodes, first.memory) == (165955826, 4328, 128, 96)
    keys = [(j.submit, j.id) for j in w]
    assert keys == sorted(keys)
