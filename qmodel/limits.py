"""Estimate before you allocate: the limits every large request is held to, and the refusal.

A request whose estimated memory or time passes the limits (2 GB, 60 s) is
refused before any work starts, with the estimate and a way out (an MVA sweep
or lattice, a scenario with a huge terminal population, ...). A file is read
with a bound (:func:`read_bounded_text`): a device such as /dev/zero has no
size to check beforehand.
"""

from __future__ import annotations

from pathlib import Path

from qmodel.errors import InputError

MEMORY_LIMIT = 2e9  # bytes: a request needing more is refused before it starts
TIME_LIMIT = 60.0  # seconds (estimated): likewise


def refuse_too_large(memory: float, seconds: float, what: str, way_out: str) -> None:
    """An InputError with the estimate, before any work, where memory or time exceed the limits."""
    if memory > MEMORY_LIMIT or seconds > TIME_LIMIT:
        raise InputError(what, f"about {_size(memory)} and {_duration(seconds)}",
                         f"at most {_size(MEMORY_LIMIT)} and {_duration(TIME_LIMIT)}: {way_out}",
                         reason="too large to compute")


def read_bounded_text(path: str | Path, what: str, limit_bytes: int) -> str:
    """The UTF-8 text of a file (a byte-order mark dropped), reading at most ``limit_bytes`` + 1 bytes.

    InputError naming ``what`` and the path, in one line: no such file, a directory, unreadable, larger
    than the limit (also a device that never ends), or not UTF-8.
    """
    name = str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit_bytes + 1)
    except FileNotFoundError:
        raise InputError(what, name, "an existing file", reason="no such file") from None
    except IsADirectoryError:
        raise InputError(what, name, "a file", reason="a directory") from None
    except OSError as error:
        raise InputError(what, name, "a readable file", reason=error.strerror or "cannot read") from None
    if len(raw) > limit_bytes:
        raise InputError(what, name, f"a file of at most {_size(limit_bytes)}",
                         reason=f"more than {_size(limit_bytes)}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(what, name, "a UTF-8 text file",
                         reason=f"not UTF-8 text ({error.reason} at byte {error.start})") from None


def _size(memory: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if memory >= scale:
            return f"{memory / scale:.3g} {unit}"
    return f"{memory / 1e3:.3g} KB"


def _duration(seconds: float) -> str:
    if seconds >= 3600 * 24 * 365:
        return f"{seconds / (3600 * 24 * 365):.3g} years"
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} hours"
    return f"{seconds / 60:.3g} min" if seconds >= 60 else f"{seconds:.3g} s"
