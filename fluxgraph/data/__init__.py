"""Files shipped with the package: sample traces, example machines and example jobspecs.

Every example in the README and the docs names its inputs by these bundled names, so it runs
from any directory once the package is installed.

``traces``
    ``kth-sample.swf`` (the first 500 jobs of the KTH SP2 log, Parallel Workloads Archive,
    cleaned version, with its header) and ``sample-batsim.json`` (a 20-job Batsim workload).
``machines``
    GRUG recipes: ``kth-sp2`` (the 100-node KTH SP2), ``tiny``, ``small``, ``medium``,
    ``multi-subsystem``, ``quartz-2418``, ``elcap-tiny`` and the four LOD machines.
``jobspecs``
    Example jobspecs (``slot-core-memory-gpu.yaml``, ...) and ``demo.in``, a
    ``fluxgraph-query`` command script.

>>> bundled("machines", "medium").name
'medium.graphml'
>>> "kth-sp2" in names("machines")
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fluxgraph.errors import FluxgraphError

__all__ = ["KINDS", "bundled", "local_or_bundled", "names"]

#: Folder and default extension of each kind of bundled file (traces sit at the top).
KINDS = {
    "traces": ("", ""),
    "machines": ("machines", ".graphml"),
    "jobspecs": ("jobspecs", ".yaml"),
}


def _folder(kind: str) -> Path:
    if kind not in KINDS:
        raise FluxgraphError(f"no bundled kind {kind!r}; kinds: {', '.join(KINDS)}")
    return Path(str(resources.files(__name__))) / KINDS[kind][0]


def names(kind: str) -> list[str]:
    """The bundled files of ``kind`` (machines and jobspecs without their default extension).

    >>> names("traces")
    ['kth-sample.swf', 'sample-batsim.json']
    """
    folder, ext = _folder(kind), KINDS[kind][1]
    if not folder.is_dir():
        return []
    found = (p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("__"))
    return sorted(name.removesuffix(ext) if ext else name for name in found)


def bundled(kind: str, name: str) -> Path:
    """The path of the bundled file ``name`` of ``kind`` (the default extension may be left
    out: ``"medium"`` is ``machines/medium.graphml``).

    Raises
    ------
    FluxgraphError
        If there is no such file; the message lists the bundled names of ``kind``.
    """
    folder, ext = _folder(kind), KINDS[kind][1]
    if Path(name).name == name and name and not name.startswith("__"):
        for candidate in (folder / name, folder / f"{name}{ext}"):
            if candidate.is_file():
                return candidate
    listed = ", ".join(names(kind)) or "none"
    raise FluxgraphError(f"no bundled {kind[:-1]} {name!r}; bundled {kind}: {listed}")


def local_or_bundled(kind: str, name: str) -> Path:
    """``name`` as a path, or, for a bare name (no directory part) that is no file here, the
    bundled file of that name: a file in the working directory always comes first.

    >>> local_or_bundled("machines", "tiny").name
    'tiny.graphml'

    Raises
    ------
    FluxgraphError
        For a bare name that is neither a file here nor bundled (listing the bundled names).
    """
    path = Path(name)
    if path.exists() or path.name != name:
        return path
    return bundled(kind, name)
