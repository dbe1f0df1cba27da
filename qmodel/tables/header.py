"""A column header's name and unit: what a scenario's override columns, a measurements table and the
formula-row batch all read their headers with (its own module: reading a header needs none of the
table readers)."""

from __future__ import annotations

import re

# a header: a name of words (letters, digits, _ - . * and spaces), then optionally a unit in [] or ()
_HEADER = re.compile(r"^\s*([A-Za-z_*][\w .*\-]*?)\s*(?:[\[(]\s*([^\])]+?)\s*[\])])?\s*$")


def split_header(title: str) -> tuple[str, str | None] | None:
    """A column header as (name, unit text or None): ``Service Time (ms)`` is ("Service Time", "ms"),
    ``member.*.think_time[s]`` ("member.*.think_time", "s"), ``distance`` ("distance", None); None for
    a header that is no name (``2024``, ``R/ms``). The unit is not checked here."""
    match = _HEADER.match(title)
    return None if match is None else (match.group(1).strip(), match.group(2))
