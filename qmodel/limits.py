"""Estimate before you allocate: the limits every large request is held to, and the refusal.

A request whose estimated memory or time passes the limits (2 GB, 60 s) is
refused before any work starts, with the estimate and a way out (an MVA sweep
or lattice, a scenario with a huge terminal population, ...).
"""

from __future__ import annotations

import sys

from qmodel.errors import InputError

MEMORY_LIMIT = 2e9  # bytes: a request needing more is refused before it starts
TIME_LIMIT = 60.0  # seconds (estimated): likewise


def refuse_too_large(memory: float, seconds: float, what: str, way_out: str) -> None:
    """An InputError with the estimate, before any work, where memory or time exceed the limits."""
    if memory > MEMORY_LIMIT or seconds > TIME_LIMIT:
        raise InputError(what, f"about {_size(memory)} and {_duration(seconds)}",
                         f"at most {_size(MEMORY_LIMIT)} and {_duration(TIME_LIMIT)}: {way_out}",
                         reason="too large to compute")


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


def read_bounded_bytes(path: str, what: str, limit_bytes: int) -> bytes:
    """The bytes of the file at ``path`` (``-``: standard input), read with a bound: a device such as
    /dev/zero (size 0 to ``stat``) or a file over ``limit_bytes`` is refused when the bound is passed,
    never read to the end. InputError names ``what`` (the option or role of the file)."""
    if path == "-":
        stream = sys.stdin.buffer if sys.stdin is not None else None
        if stream is None or stream.closed:
            raise InputError(what, "-", "a file, or data piped to standard input",
                             reason="standard input is closed")
        return _read_at_most(stream, what, "standard input", limit_bytes)
    try:
        with open(path, "rb") as handle:
            return _read_at_most(handle, what, path, limit_bytes)
    except OSError as error:
        raise InputError(what, path, "a readable file", reason=error.strerror or "cannot read") from None


def read_bounded_text(path: str, what: str, limit_bytes: int) -> str:
    """The UTF-8 text of the file at ``path``, read with :func:`read_bounded_bytes`'s bound."""
    raw = read_bounded_bytes(path, what, limit_bytes)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(what, path, "UTF-8 text",
                         reason=f"not UTF-8 ({error.reason} at byte {error.start})") from None


def _read_at_most(stream, what: str, name: str, limit_bytes: int) -> bytes:
    try:
        data = stream.read(limit_bytes + 1)
    except OSError as error:
        raise InputError(what, name, "a readable file", reason=error.strerror or "cannot read") from None
    if len(data) > limit_bytes:
        raise InputError(what, name, f"at most {_size(limit_bytes)} (split it into smaller files)",
                         reason="too large to read")
    return data
