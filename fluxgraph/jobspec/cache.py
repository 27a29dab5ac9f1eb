"""A per-session cache of parsed jobspec files, keyed by path and modification stamp."""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path

from fluxgraph.jobspec.loader import load, read_text
from fluxgraph.jobspec.model import Jobspec

__all__ = ["JobspecCache"]


class JobspecCache:
    """Parse each distinct jobspec file once.

    A file is re-parsed only when its modification time (ns), size or inode changes, so a REPL or
    simulator that submits the same jobspec thousands of times pays one ``os.stat`` per call.
    Models are immutable, so one object is safely shared by every caller. Invalid files are not
    cached: each call raises again. Least recently used entries beyond ``maxsize`` are dropped.

    Parameters
    ----------
    maxsize : most files kept (default 1024).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> f = d / "job.yaml"
    >>> _ = f.write_text('{"version": 1, "resources": [{"type": "core", "count": 1}], '
    ...                  '"tasks": [], "attributes": {}}')
    >>> cache = JobspecCache()
    >>> cache.load(f) is cache.load(str(f)), cache.hits, cache.misses
    (True, 1, 1)
    """

    def __init__(self, maxsize: int = 1024) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[str, tuple[tuple[int, int, int], Jobspec]] = OrderedDict()

    def load(self, path: str | os.PathLike[str]) -> Jobspec:
        """The parsed jobspec in ``path`` (from the cache when the file is unchanged).

        Raises
        ------
        JobspecError
            As :func:`fluxgraph.jobspec.load`; an unreadable file gives ``reason``
            ``can't open <path>`` and the OS errno.
        """
        name = os.fspath(path)
        try:
            st = os.stat(name)
        except OSError:
            read_text(name)  # raises the JobspecError for an unreadable file
            raise
        key = os.path.abspath(name)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        entries = self._entries
        entry = entries.get(key)
        if entry is not None and entry[0] == stamp:
            entries.move_to_end(key)
            self.hits += 1
            return entry[1]
        self.misses += 1
        jobspec = load(Path(name))
        entries[key] = (stamp, jobspec)
        entries.move_to_end(key)
        if len(entries) > self.maxsize:
            entries.popitem(last=False)
        return jobspec

    def clear(self) -> None:
        """Forget every cached jobspec (the hit/miss counters are kept)."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str | os.PathLike) and os.path.abspath(path) in self._entries
