"""Estimate before you allocate: the limits every large request is held to, and the refusal.

A request whose estimated memory or time passes the limits (2 GB, 10 s of CPU) is
refused before any work starts, with the estimate and a way out (an MVA sweep
or lattice, a scenario with a huge terminal population, ...). A file is read
with a bound on its length (:func:`read_bounded`, and :func:`read_bounded_text` for UTF-8
text), never by its reported size, which is 0 for a device or a pipe that never ends
(``/dev/zero``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from qmodel.errors import InputError

MEMORY_LIMIT = 2e9  # bytes: a request needing more is refused before it starts
TIME_LIMIT = 10.0  # seconds of CPU (estimated): likewise


def refuse_too_large(memory: float, seconds: float, what: str, way_out: str) -> None:
    """An InputError with the estimate, before any work, where memory or time exceed the limits."""
    if memory > MEMORY_LIMIT or seconds > TIME_LIMIT:
        raise InputError(
            what,
            f"about {size_text(memory)} and {duration(seconds)}" if memory else f"about {duration(seconds)}",
            f"at most {size_text(MEMORY_LIMIT)} and {duration(TIME_LIMIT)}: {way_out}",
            reason="too large to compute",
        )


# CPU of one vectorized step of a loop (a recursion, a Sum's term): numpy's overhead (measured 1.15e-5
# for the M/M/c/K chain, 1.4e-5 for a Sum of a**k/k!), and per element it works on (2.3e-8 to 6.6e-8)
SECONDS_PER_STEP = 1.5e-5
SECONDS_PER_ELEMENT_STEP = 6e-8


def loop_seconds(steps: Any, elements: int) -> Any:
    """Estimated CPU seconds of a loop of ``steps`` vectorized steps over ``elements`` elements (an array
    of estimates for an array of steps)."""
    return steps * (SECONDS_PER_STEP + elements * SECONDS_PER_ELEMENT_STEP)


def refuse_long_loop(steps: float, elements: int, what: str, way_out: str) -> None:
    """Refuse (:func:`refuse_too_large`) a loop of ``steps`` vectorized steps over ``elements``
    elements whose estimated time passes the limit, before its first step."""
    refuse_too_large(8.0 * 8 * elements, loop_seconds(steps, elements), what, way_out)


# A scenario's work beyond its queues' states (which qmodel.scenario.compose estimates per distance): each
# member's steps in a solve (its requests, paths and breakdown, evaluation by evaluation, whatever the
# distances, which go in arrays), and each --variants row or [band] point read and checked as a scenario
# of its own. Measured (issue 33, CPU): 160 members solved at 1 distance in 2.3 s, 640 in 11.3 s, 160 at
# 40 distances in 2.3 s (14 to 18 ms a member); 3,000 variant rows in 6.4 s and 20,000 in 44 s (2.1 to
# 2.2 ms a row), 378 MB for the 20,000.
SECONDS_PER_MEMBER_SOLVE = 0.018
SECONDS_PER_SCENARIO_READ = 2.2e-3
BYTES_PER_SCENARIO_READ = 20e3


def refuse_scenario_work(members: int, solves: int, reads: int, what: str, way_out: str) -> None:
    """Refuse (:func:`refuse_too_large`), before the first, ``solves`` solves of a scenario of ``members``
    members and ``reads`` scenarios read and checked (variant rows, band points) whose estimated time
    or memory passes the limits (:data:`SECONDS_PER_MEMBER_SOLVE`, :data:`SECONDS_PER_SCENARIO_READ`)."""
    refuse_too_large(
        reads * BYTES_PER_SCENARIO_READ,
        members * solves * SECONDS_PER_MEMBER_SOLVE + reads * SECONDS_PER_SCENARIO_READ,
        what,
        way_out,
    )


def read_bounded(path: str | os.PathLike, limit: int, parameter: str, allowed: str) -> bytes:
    """The bytes of the file at ``path`` (``-``: standard input), read until its end or one byte
    past ``limit``.

    More than ``limit`` bytes, or a file that cannot be read, is an InputError
    naming ``parameter`` and the path (``allowed`` says what may be given);
    nothing past limit + 1 bytes is read, so an endless device is refused at once.
    """
    if os.fspath(path) == "-":  # standard input, as batch and --variants take it
        stream = sys.stdin.buffer if sys.stdin is not None else None
        if stream is None or stream.closed:
            raise InputError(
                parameter, "-", "a file, or data piped to standard input", reason="standard input is closed"
            )
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise InputError(
                parameter,
                "standard input",
                f"{allowed} up to {size_text(limit)}",
                reason=f"longer than {size_text(limit)}",
            )
        return data
    chunks, total = [], 0
    try:
        # opened without waiting (a FIFO no one writes to would block the open forever), then read
        # as usual: a FIFO with no writer reads as empty, one with a writer as far as the bound
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        os.set_blocking(descriptor, True)
        with open(descriptor, "rb") as handle:
            while total <= limit:
                chunk = handle.read(limit + 1 - total)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
    except FileNotFoundError:
        raise InputError(parameter, os.fspath(path), "an existing file", reason="no such file") from None
    except IsADirectoryError:
        raise InputError(parameter, os.fspath(path), "a file", reason="a directory") from None
    except OSError as error:
        reason = error.strerror or "cannot read"
        raise InputError(parameter, os.fspath(path), allowed, reason=reason) from None
    if total > limit:
        raise InputError(
            parameter,
            os.fspath(path),
            f"{allowed} up to {size_text(limit)}",
            reason=f"longer than {size_text(limit)}",
        )
    return b"".join(chunks)


def read_bounded_text(path: str | os.PathLike, what: str, limit_bytes: int) -> str:
    """The UTF-8 text of a file (a byte-order mark dropped), read by :func:`read_bounded`.

    InputError naming ``what`` and the path, in one line: no such file, a directory, unreadable, larger
    than the limit (also a device that never ends), or not UTF-8.
    """
    raw = read_bounded(path, limit_bytes, what, "a readable file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            what,
            os.fspath(path),
            "a UTF-8 text file",
            reason=f"not UTF-8 text ({error.reason} at byte {error.start})",
        ) from None


def size_text(memory: float) -> str:
    """Bytes in words for a refusal: 3.2 GB, 200 MB, 880 bytes."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if memory >= scale:
            return f"{memory / scale:.3g} {unit}"
    return f"{memory:.0f} bytes"


def duration(seconds: float) -> str:
    """Seconds in words for a refusal: 15.1 s, 25.1 min, 4.2 hours, 174 days, 3.1 years."""
    if seconds >= 3600 * 24 * 365:
        return f"{seconds / (3600 * 24 * 365):.3g} years"
    if seconds >= 3600 * 48:
        return f"{seconds / (3600 * 24):.3g} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} hours"
    return f"{seconds / 60:.3g} min" if seconds >= 60 else f"{seconds:.3g} s"
