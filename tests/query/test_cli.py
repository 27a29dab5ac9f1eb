"""Command-line parsing of the resource-query front end (io-and-cli-semantics.md §7.1)."""

from __future__ import annotations

import pytest

from fluxgraph.query.cli import DEFAULT_PRUNE_FILTERS, USAGE, Options, UsageError, parse_args


def _error(args, prog="rq"):
    with pytest.raises(UsageError) as info:
        parse_args(args, prog)
    return str(info.value)


def test_parse_args_defaults_match_the_reference():
    opts = parse_args([])
    assert opts == Options()
    assert (opts.load_file, opts.load_format, opts.match_subsystems) == (
        "conf/default",
        "grug",
        "CA",
    )
    assert (opts.match_policy, opts.traverser, opts.match_format) == ("first", "simple", "simple")
    assert opts.prune_spec == DEFAULT_PRUNE_FILTERS == "ALL:core,ALL:node"
    assert opts.test_output is None and not opts.elapse_time and not opts.disable_prompt


def test_parse_args_accepts_long_forms_prefixes_and_clusters(tmp_path):
    graph = tmp_path / "g.graphml"
    graph.write_text("")
    opts = parse_args(
        [f"--load-file={graph}", "--match-pol", "high", "-edFjgf", "--test-o", "out", "-Tflexible"]
    )
    assert opts.load_file == str(graph)
    assert opts.match_policy == "high"
    assert opts.elapse_time and opts.disable_prompt
    assert opts.match_format == "jgf"
    assert opts.test_output == "out"
    assert opts.traverser == "flexible"


def test_parse_args_option_argument_may_start_with_dash():
    assert parse_args(["-P", "-e"]).match_policy == "-e"
    assert parse_args(["--match-policy", "--help"]).match_policy == "--help"


def test_parse_args_permutes_options_after_operands_then_rejects_operands():
    assert _error(["extra", "-Z"]) == "rq: invalid option -- 'Z'\n"
    assert _error(["-e", "extra"]) == ""
    assert _error(["--", "-e"]) == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-Z"], "rq: invalid option -- 'Z'\n"),
        (["-eZ"], "rq: invalid option -- 'Z'\n"),
        (["--bogus"], "rq: unrecognized option '--bogus'\n"),
        (["--bogus=1"], "rq: unrecognized option '--bogus=1'\n"),
        (["-L"], "rq: option requires an argument -- 'L'\n"),
        (["--match-policy"], "rq: option '--match-policy' requires an argument\n"),
        (["--match-p"], "rq: option '--match-policy' requires an argument\n"),
        (["--help=yes"], "rq: option '--help' doesn't allow an argument\n"),
        (
            ["--load"],
            "rq: option '--load' is ambiguous; possibilities: '--load-file' '--load-format' "
            "'--load-allowlist'\n",
        ),
        (
            ["--match=x"],
            "rq: option '--match=x' is ambiguous; possibilities: '--match-subsystems' "
            "'--match-policy' '--match-format'\n",
        ),
    ],
)
def test_parse_args_getopt_messages(args, message):
    assert _error(args) == message


def test_parse_args_first_invalid_option_wins():
    assert _error(["-f", "xml", "-Z"]) == "[ERROR] unknown format for --load-format: xml\n"
    assert _error(["-Z", "-f", "xml"]) == "rq: invalid option -- 'Z'\n"


def test_parse_args_help_stops_parsing():
    assert parse_args(["-h", "-Z"]).help
    assert parse_args(["-eh", "--bogus"]).help
    assert parse_args(["--he"]).help


def test_parse_args_checks_load_file(tmp_path):
    missing = tmp_path / "nope"
    assert _error(["-L", str(missing)]) == (
        f"[ERROR] file does not exist for --load-file: {missing}\n"
    )
    assert _error(["-L", str(tmp_path)]) == (
        f"[ERROR] path passed to --load-file is a directory: {tmp_path}\n"
    )


def test_parse_args_checks_formats():
    assert _error(["-f", "GRUG"]) == "[ERROR] unknown format for --load-format: GRUG\n"
    assert _error(["-F", "json"]) == "[ERROR] unknown format for --match-format: json\n"
    assert _error(["-g", "png"]) == "[ERROR] unknown format for --graph-format: png\n"
    assert parse_args(["-g", "GraphML"]).graph_format == "graphml"
    assert parse_args(["-f", "rv1exec_force", "-F", "rv1_shorthand"]).match_format == (
        "rv1_shorthand"
    )


def test_parse_args_allowlist_concatenates_without_separator():
    opts = parse_args(["-W", "socket", "-W", "  ", "-W", "core"])
    assert opts.load_allowlist == "cluster,socketcluster,core"


def test_parse_args_prune_filters_join_and_ignore_blank():
    assert parse_args(["-p", "rack:node", "-p", " ", "-p", "node:core"]).prune_spec == (
        "rack:node,node:core"
    )
    assert parse_args(["-p", ""]).prune_spec == DEFAULT_PRUNE_FILTERS


def test_parse_args_reserve_vtx_vec_warns_out_of_range():
    warnings: list[str] = []
    opts = parse_args(["-r", "2000001", "-r", "12abc"], warn=warnings.append)
    assert warnings == ["WARN: out of range specified for --reserve-vtx-vec: 2000001\n"]
    assert opts.reserve_vtx_vec == 12
    assert parse_args(["-r", "-1"], warn=warnings.append).reserve_vtx_vec == 0


def test_usage_text_frame():
    assert USAGE.startswith("\nusage: resource-query [OPTIONS...]\n\n")
    assert USAGE.endswith("information is stored into.\n\n")
    assert '    -S, --match-subsystems="\n         "<CA|IBA|' in USAGE
