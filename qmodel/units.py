"""Units and the parsing of typed-in values ("95%", "35K", "70km", "0.4ms").

Every catalogue symbol declares a display unit. Values are entered and shown in
that unit; the formulas are evaluated in SI base units (s, 1/s, m), so a
formula reads as in the textbook (U = X S) whatever unit the planner types.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from qmodel.errors import InputError


class Unit(NamedTuple):
    """A unit: its dimension and the factor that takes a value in it to SI."""

    name: str
    dimension: str
    to_si: float


_UNIT_TABLE = [
    Unit("1", "count", 1.0),
    Unit("ratio", "ratio", 1.0),
    Unit("%", "ratio", 0.01),
    Unit("s", "time", 1.0),
    Unit("ms", "time", 1e-3),
    Unit("us", "time", 1e-6),
    Unit("min", "time", 60.0),
    Unit("1/s", "rate", 1.0),
    Unit("m", "length", 1.0),
    Unit("km", "length", 1e3),
    Unit("us/km", "time per length", 1e-9),
    Unit("ms/km", "time per length", 1e-6),
    Unit("s/m", "time per length", 1.0),
    Unit("km/s", "speed", 1e3),
    Unit("m/s", "speed", 1.0),
    # Data: decimal prefixes for sizes and rates as the studies print them
    # (60 GB at 1 GB/sec, 250 MB/sec); KiB for z/OS block sizes (8K = 8192 bytes).
    Unit("B", "data size", 1.0),
    Unit("KB", "data size", 1e3),
    Unit("KiB", "data size", 1024.0),
    Unit("MB", "data size", 1e6),
    Unit("GB", "data size", 1e9),
    Unit("TB", "data size", 1e12),
    Unit("MB/s", "data rate", 1e6),
    Unit("GB/s", "data rate", 1e9),
]
UNITS: dict[str, Unit] = {unit.name: unit for unit in _UNIT_TABLE}
UNITS["µs"] = UNITS["us"]
UNITS["µs/km"] = UNITS["us/km"]

# Multipliers for counts and rates. A lower-case "m" is refused: it reads as
# both milli and mega, so it is ambiguous.
_MULTIPLIERS = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9}
_COUNTING_DIMENSIONS = ("count", "rate")
_NUMBER = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(\S*)\s*$")


def with_unit(value: str, unit_name: str) -> str:
    """``value`` followed by its unit, or alone for plain numbers (unit "1")."""
    return value if unit_name == "1" else f"{value} {unit_name}"


def _example(target: Unit) -> str:
    examples = {
        "ratio": "0.95 or 95%",
        "count": "35000, 35K or 1.4M",
        "rate": "35000, 35K or 1.4M (per second)",
        "time": f"0.4 (in {target.name}), 0.4ms or 400us",
        "length": f"70 (in {target.name}) or 70km",
        "time per length": f"10 (in {target.name}) or 10us/km",
        "speed": f"200000 (in {target.name}) or 200000km/s",
        "data size": f"60 (in {target.name}), 60GB, 8KiB or 35KB",
        "data rate": f"250 (in {target.name}), 250MB/s or 1GB/s",
    }
    return examples[target.dimension]


def parse_value(parameter: str, text: str | float | int, unit_name: str) -> float:
    """Parse one typed-in value for a symbol whose display unit is ``unit_name``.

    Returns the value in the display unit. Accepted forms: a plain number (taken
    in the display unit); ``95%`` for ratios; ``35K``, ``1.4M``, ``2G`` for counts
    and rates; a unit of the same dimension (``400us`` for a symbol in ms).
    Anything else, including the ambiguous ``1.4m`` for a count, is an InputError.
    """
    if isinstance(text, bool):
        raise InputError(parameter, text, _example(UNITS[unit_name]), reason="not a number")
    if isinstance(text, (int, float)):
        return float(text)
    target = UNITS[unit_name]
    match = _NUMBER.match(text)
    if match is None:
        raise InputError(
            parameter, repr(text), _example(target), reason="not a number in a form qmodel reads"
        )
    number, suffix = float(match.group(1)), match.group(2)
    if suffix == "":
        return number
    if suffix == "%":
        if target.dimension != "ratio":
            raise InputError(
                parameter, text, _example(target), reason=f"a percentage, but it is in {unit_name}"
            )
        return number / 100.0
    if suffix in _MULTIPLIERS:
        if target.dimension not in _COUNTING_DIMENSIONS:
            raise InputError(
                parameter, text, _example(target), reason=f"{suffix} multiplies counts and rates only"
            )
        return number * _MULTIPLIERS[suffix]
    if suffix == "m" and target.dimension in _COUNTING_DIMENSIONS:
        raise InputError(
            parameter, text, _example(target), reason="'m' is ambiguous: write K, M (million) or G"
        )
    given = UNITS.get(suffix)
    if given is None:
        raise InputError(parameter, text, _example(target), reason=f"unknown unit {suffix!r}")
    if given.dimension != target.dimension:
        raise InputError(
            parameter,
            text,
            _example(target),
            reason=f"{suffix} is a {given.dimension} unit, but {parameter} is a {target.dimension}",
        )
    return number * given.to_si / target.to_si
