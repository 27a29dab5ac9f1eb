"""Bounds on what fluxgraph reads, so that no input can exhaust memory or time.

Every file fluxgraph reads (graphs, jobspecs, R documents, ``cat``) goes through
:func:`read_bytes`, which stops after a fixed number of bytes: an endless file (``/dev/zero``, a
pipe that never closes its write end) or a huge one is refused with ``EFBIG`` instead of being
read until memory runs out. Integer literals in input text are converted with
:func:`parse_digits`, which looks at the number of digits before converting, so a literal of
millions of digits costs nothing (Python refuses to convert more than 4300 digits anyway).

The limits are far above anything the reference's own inputs use (its largest graph file is
2 MiB, its largest jobspec 2 KiB).
"""

from __future__ import annotations

import errno
import os

__all__ = [
    "MAX_GENERATED_JOBS",
    "MAX_GENERATED_VERTICES",
    "MAX_INPUT_BYTES",
    "MAX_JOBSPEC_BYTES",
    "parse_digits",
    "read_bytes",
    "read_text",
]

#: Largest graph, R or other input file read (128 MiB).
MAX_INPUT_BYTES = 128 * 1024 * 1024
#: Largest jobspec file read (1 MiB); a jobspec is also bounded in nodes, see
#: :data:`fluxgraph.jobspec._source.MAX_NODES`.
MAX_JOBSPEC_BYTES = 1024 * 1024
#: Most vertices a reader may create from one document that *describes* vertices compactly
#: (a GRUG recipe, an R document's id sets): a few lines can ask for 10^12. The largest machine
#: the reference's tests generate has 355,197.
MAX_GENERATED_VERTICES = 2_000_000
#: Most jobs a trace generator (``lublin:N``, ``poisson:N``) is asked for from the command line:
#: a million jobs take about 10 s to generate and a few GiB to simulate.
MAX_GENERATED_JOBS = 1_000_000


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> bytes:
    """The content of the file ``path``, read in one bounded pass.

    Raises
    ------
    OSError
        As ``open`` and ``read`` do; ``EFBIG`` ("File too large") when the file holds more than
        ``limit`` bytes (``strerror`` then names the limit).

    Examples
    --------
    >>> try:
    ...     read_bytes("/dev/zero", limit=1000)
    ... except OSError as err:
    ...     print(err.errno == errno.EFBIG, err.strerror)
    True File too large (more than 1000 bytes)
    """
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(
            errno.EFBIG, f"{os.strerror(errno.EFBIG)} (more than {limit} bytes)", os.fspath(path)
        )
    return data


def read_text(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8; bytes that are not UTF-8 become lone surrogates
    (``surrogateescape``), so they survive a round trip to a stream using the same handler."""
    return read_bytes(path, limit).decode("utf-8", errors="surrogateescape")


def parse_digits(digits: str, max_value: int) -> int | None:
    """The value of the ASCII digit string ``digits``, or ``None`` when it exceeds ``max_value``.

    The length is checked first, so the cost does not depend on how long ``digits`` is.

    Examples
    --------
    >>> parse_digits("000042", 2**63 - 1), parse_digits("9" * 100_000, 2**63 - 1)
    (42, None)
    """
    significant = digits.lstrip("0")
    if len(significant) > len(str(max_value)):
        return None
    value = int(significant or "0")
    return None if value > max_value else value
