"""JobspecCache parses each file once and re-parses only changed files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _jobspec_docs import BASE_YAML

from fluxgraph.errors import JobspecError
from fluxgraph.jobspec import JobspecCache, load


def test_cache_returns_same_object_for_unchanged_file(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text(BASE_YAML)
    cache = JobspecCache()
    first = cache.load(f)
    assert cache.load(str(f)) is first
    assert cache.load(tmp_path / "." / "a.yaml") is first
    assert (cache.hits, cache.misses, len(cache)) == (2, 1, 1)
    assert first == load(f)
    assert f in cache


def test_cache_reparses_when_file_changes(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text(BASE_YAML)
    cache = JobspecCache()
    first = cache.load(f)
    f.write_text(BASE_YAML.replace("count: 2", "count: 3"))
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    second = cache.load(f)
    assert second is not first
    assert second.resources[0].with_[0].with_[0].count_min == 3
    assert cache.misses == 2


def test_cache_evicts_least_recently_used(tmp_path: Path) -> None:
    files = []
    for i in range(3):
        f = tmp_path / f"{i}.yaml"
        f.write_text(BASE_YAML)
        files.append(f)
    cache = JobspecCache(maxsize=2)
    cache.load(files[0])
    cache.load(files[1])
    cache.load(files[0])
    cache.load(files[2])
    assert files[0] in cache and files[2] in cache and files[1] not in cache
    cache.clear()
    assert len(cache) == 0


def test_cache_does_not_store_invalid_files(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("version: 1\n")
    cache = JobspecCache()
    for _ in range(2):
        with pytest.raises(JobspecError, match="Missing key"):
            cache.load(f)
    assert len(cache) == 0 and cache.misses == 2


def test_cache_missing_file_raises_cant_open(tmp_path: Path) -> None:
    missing = tmp_path / "none.yaml"
    with pytest.raises(JobspecError) as info:
        JobspecCache().load(missing)
    assert info.value.reason == f"can't open {missing}"
    assert info.value.errno == 2


def test_cache_rejects_bad_maxsize() -> None:
    with pytest.raises(ValueError):
        JobspecCache(maxsize=0)
