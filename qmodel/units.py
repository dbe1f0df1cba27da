"""Units and the parsing of typed-in values ("95%", "35K", "70km", "0.4ms").

Every catalogue symbol declares a display unit. Values are entered and shown in
that unit; the formulas are evaluated in SI base units (s, 1/s, m), so a
formula reads as in the textbook (U = X S) whatever unit the planner types.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
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
    Unit("1/ms", "rate", 1e3),
    Unit("1/us", "rate", 1e6),
    Unit("1/min", "rate", 1 / 60),
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
    Unit("MiB", "data size", 1024.0**2),
    Unit("GiB", "data size", 1024.0**3),
    Unit("TiB", "data size", 1024.0**4),
    Unit("KB/s", "data rate", 1e3),
    Unit("MB/s", "data rate", 1e6),
    Unit("GB/s", "data rate", 1e9),
    Unit("KiB/s", "data rate", 1024.0),
    Unit("MiB/s", "data rate", 1024.0**2),
    Unit("GiB/s", "data rate", 1024.0**3),
    # Link speeds are quoted in bits per second (8 bits a byte; no line-coding overhead assumed).
    Unit("Kb/s", "data rate", 1e3 / 8),
    Unit("Mb/s", "data rate", 1e6 / 8),
    Unit("Gb/s", "data rate", 1e9 / 8),
]
UNITS: dict[str, Unit] = {unit.name: unit for unit in _UNIT_TABLE}
UNITS["µs"] = UNITS["us"]
UNITS["µs/km"] = UNITS["us/km"]
# Spellings people type for the same units; each resolves to exactly one entry above.
_ALIASES = {
    "sec": "s",
    "msec": "ms",
    "usec": "us",
    "µsec": "us",
    "mins": "min",
    # rates as RMF and the studies print them: 800/s, 0.8/ms (the 1 of 1/s left out)
    "/s": "1/s",
    "/sec": "1/s",
    "/ms": "1/ms",
    "/us": "1/us",
    "/µs": "1/us",
    "/μs": "1/us",
    "/min": "1/min",
    # the Greek mu (U+03BC) is what keyboards type for the micro sign (U+00B5)
    "μs": "us",
    "μsec": "us",
    "μs/km": "us/km",
    "MBps": "MB/s",
    "GBps": "GB/s",
    "KBps": "KB/s",
    "MB/sec": "MB/s",
    "GB/sec": "GB/s",
    "Mbps": "Mb/s",
    "Gbps": "Gb/s",
    "Kbps": "Kb/s",
    "Mbit/s": "Mb/s",
    "Gbit/s": "Gb/s",
    "Kbit/s": "Kb/s",
}
# Units whose value is worth echoing back in the unit it was read in (bits, binary prefixes).
_WORTH_SAYING = {"Kb/s", "Mb/s", "Gb/s", "KiB", "MiB", "GiB", "TiB", "KiB/s", "MiB/s", "GiB/s"}

# Multipliers for counts and rates. A lower-case "m" is refused: it reads as
# both milli and mega, so it is ambiguous.
_MULTIPLIERS = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9}
_COUNTING_DIMENSIONS = ("count", "rate")
# Each part can match a given character in one way only, so a failed match is linear in the
# text's length (no backtracking over long digit strings); the unit is what follows the number.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def with_unit(value: str, unit_name: str) -> str:
    """``value`` followed by its unit, or alone for plain numbers (unit "1")."""
    return value if unit_name == "1" else f"{value} {unit_name}"


def in_unit(value: float, unit_name: str) -> tuple[float, str]:
    """A value (SI) as a number in ``unit_name`` and that unit's name, a share (``ratio``) in %: the one
    conversion of a value for showing it (a table's cell, a message, a CSV column whose unit is named
    beside it). A unit qmodel does not know leaves the value as it is."""
    shown = "%" if unit_name == "ratio" else unit_name
    return (value / UNITS[shown].to_si, shown) if shown in UNITS else (value, unit_name)


def sized(value: float, unit_name: str) -> tuple[float, str]:
    """:func:`in_unit` in the unit of the value's size where its dimension has several: a time in s, ms
    or us (0 in ms); any other value in ``unit_name`` (a share in %)."""
    if unit_name in UNITS and UNITS[unit_name].dimension == "time":
        size = abs(value)
        unit_name = "s" if size >= 1 else "ms" if size >= 1e-3 or size == 0 else "us"
    return in_unit(value, unit_name)


def significant(value: float, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, written out in positional notation as a planner reads
    it, never in e-notation (14890, not 1.489e+04; 0.00012, not 0.00012 as 1.2e-04); inf and nan as
    Python writes them."""
    if not math.isfinite(value):
        return f"{value}"
    return format(Decimal(f"{value:.{digits}g}"), "f")


def readable(value: float, unit_name: str, *, written: bool = False) -> str:
    """A value (SI) to four significant digits in the unit of its size (:func:`sized`), as a table shows
    it (``30.56 ms``, ``456.3 us``, ``61.09%``, ``62.5 1/s``, ``2000``, ``14890 1/s``, never e-notation:
    :func:`significant`); ``written``: as a file's cell
    writes it, a time's unit joined to it and a count or a rate bare (``30.56ms``, ``61.09%``, ``62.5``)."""
    number, unit = sized(value, unit_name)
    text = significant(number)
    if unit == "%":
        return text + unit
    if written:
        return text + unit if unit in UNITS and UNITS[unit].dimension == "time" else text
    return with_unit(text, unit)


def goal_time(seconds: float) -> tuple[float, str]:
    """A WLM goal time in the unit it is read in: ms as RMF prints response times (125 ms), s from
    10 s up (a goal typed as "10s" or "3600s" is not echoed as 10000 or 3.6e+06 ms)."""
    return (seconds, "s") if seconds >= 10 else (seconds * 1e3, "ms")


def _example(target: Unit) -> str:
    examples = {
        "ratio": "0.95 or 95%",
        "count": "35000, 35K or 1.4M",
        "rate": "35000, 35K or 1.4M (per second), 800/s or 0.8/ms",
        "time": f"0.4 (in {target.name}), 0.4ms or 400us",
        "length": f"70 (in {target.name}) or 70km",
        "time per length": f"10 (in {target.name}) or 10us/km",
        "speed": f"200000 (in {target.name}) or 200000km/s",
        "data size": f"60 (in {target.name}), 60GB, 8KiB or 1GiB",
        "data rate": f"250 (in {target.name}), 250MB/s, 1GB/s or 2Gb/s (bits)",
    }
    return examples[target.dimension]


def _lookup(parameter: str, text: str, suffix: str, target: Unit) -> Unit:
    """The unit a suffix names; a suffix known only in another case (mb/s: MB/s or Mb/s?) is refused."""
    given = UNITS.get(_ALIASES.get(suffix, suffix))
    if given is not None:
        return given
    if suffix.startswith(","):
        raise InputError(
            parameter,
            text,
            _example(target),
            reason="a decimal comma: write a point (1.5); a comma separates list items",
        )
    dashed = re.fullmatch(r"([^\W\d_]*%?)\s*[-\u2013]\s*(\.?\d\S*)", suffix)
    if dashed:  # 100-900, 10K-50K: a range typed as people write one
        start, stop = text.strip()[: -len(suffix)] + dashed[1], dashed[2]
        as_list, unit = f"{start},{stop}", _TYPED_UNIT.get(target.name, target.name)
        if decimal_comma(as_list):  # 100,900 would be ambiguous itself: the form that is a list as typed
            as_list = f"{start}{unit},{stop}{unit}" if unit else f'"{start}, {stop}"'
        raise InputError(
            parameter,
            text,
            f"{start}..{stop} for a range (qmodel sweep), {as_list} for a list",
            reason="a range is written with two dots",
        )
    near = sorted({name for name in [*UNITS, *_ALIASES] if name.lower() == suffix.lower()})
    if near:
        meant = " or ".join(f"{name} ({_kind(_ALIASES.get(name, name))})" for name in near)
        why = "is ambiguous in its case" if len(near) > 1 else "is read in its exact case"
        raise InputError(parameter, text, _example(target), reason=f"unit {suffix!r} {why}: write {meant}")
    raise InputError(parameter, text, _example(target), reason=f"unknown unit {suffix!r}")


def unit_named(text: str) -> Unit | None:
    """The unit a header or option names (``ms``, ``MB/sec``, ``%``), or None if there is none such."""
    return UNITS.get(_ALIASES.get(text.strip(), text.strip()))


def _kind(unit_name: str) -> str:
    unit = UNITS[unit_name]
    if unit.dimension in ("data size", "data rate"):
        return "bits" if "b" in unit_name else "bytes"
    return unit.dimension


def split_number(text: str) -> tuple[str, str] | None:
    """``"0.4ms"`` as ``("0.4", "ms")``; None when the text does not start with a number.

    Linear in the text's length, however long a digit string it holds.
    """
    stripped = text.strip()
    match = _NUMBER.match(stripped)
    if match is None:
        return None
    suffix = stripped[match.end() :].strip()
    if any(mark.isspace() for mark in suffix):
        return None
    return match.group(), suffix


def bare_number(text: str) -> str | None:
    """The number of a text that is a number alone (``"8.8"``, ``" 70 "``, ``"-3"``, ``"1e3"``); None
    where a unit or anything else follows it, or no number begins it (qmodel's one number pattern)."""
    parts = split_number(text)
    return parts[0] if parts is not None and not parts[1] else None


def shortened(text: str) -> str:
    """A value as an error shows it: whole up to 40 characters, else its start, its end and its length."""
    return text if len(text) <= 40 else f"{text[:16]}...{text[-8:]} ({len(text)} characters)"


def parse_value(parameter: str, text: str | float | int, unit_name: str) -> float:
    """Parse one typed-in value for a symbol whose display unit is ``unit_name``.

    Returns the value in the display unit. Accepted forms: a plain number (taken
    in the display unit); ``95%`` for ratios; ``35K``, ``1.4M``, ``2G`` for counts
    and rates; a unit of the same dimension (``400us`` for a symbol in ms,
    ``800Mb/s`` in bits for one in MB/s, ``800/s``, ``0.8/ms`` or ``35K/s`` for a rate).
    The one parser of qmodel: calc, solve, sweep, batch cells, mva flags, model,
    scenario, casebook and catalogue files all read values here. Anything else, including the ambiguous
    ``1.4m`` for a count, ``mb/s`` for a data rate, or a number too large for a
    double (``1e309``), is an InputError.

    :param parameter: the name the error gives for the value (``service_time``, ``--up-to``).
    :param text: what was typed: ``"0.4ms"``, ``"95%"``, ``"35K"``, or a number already in ``unit_name``.
    :param unit_name: the display unit the value is wanted in (a name of :data:`UNITS`).
    :returns: the value in ``unit_name``.
    :raises InputError: naming ``parameter``, the text and what is allowed.
    """
    if isinstance(text, bool):
        raise InputError(parameter, text, _example(UNITS[unit_name]), reason="not a number")
    if isinstance(text, (int, float)):
        return float(text)
    target = UNITS[unit_name]
    shown = shortened(text)
    parts = split_number(text)
    if parts is None:
        raise InputError(
            parameter, repr(shown), _example(target), reason="not a number in a form qmodel reads"
        )
    number, suffix = float(parts[0]), parts[1]
    value = _in_display_unit(parameter, shown, number, suffix, target)
    if not math.isfinite(value):
        raise InputError(
            parameter, shown, _example(target), reason="too large for a floating-point number (above 1.8e308)"
        )
    return value + 0.0  # -0.0 is read as 0


def _in_display_unit(parameter: str, text: str, number: float, suffix: str, target: Unit) -> float:
    if suffix == "":
        return number
    if suffix == "%":
        if target.dimension != "ratio":
            raise InputError(
                parameter, text, _example(target), reason=f"a percentage, but it is in {target.name}"
            )
        return number / 100.0
    if suffix[:1] in _MULTIPLIERS and suffix[1:2] == "/" and target.dimension == "rate":  # 35K/s
        return _MULTIPLIERS[suffix[0]] * _in_display_unit(parameter, text, number, suffix[1:], target)
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
    given = _lookup(parameter, text, suffix, target)
    if given.dimension != target.dimension:
        raise InputError(
            parameter,
            text,
            _example(target),
            reason=f"{suffix} is a {given.dimension} unit, but {parameter} is a {target.dimension}",
        )
    return number * given.to_si / target.to_si


def reading_note(parameter: str, text: str | float | int, unit_name: str) -> str:
    """How a value was read, where the unit could be mistaken; "" where it is plain.

    A data size or rate typed as a bare number is taken in the symbol's unit
    (``link_bandwidth=100`` is 100 MB/s, not 100 Mb/s); a value in bits or with a
    binary prefix is converted. Either way the note says so:
    ``link_bandwidth = 800Mb/s read as 100 MB/s``.
    """
    target = UNITS[unit_name]
    if isinstance(text, (int, float)) or target.dimension not in ("data size", "data rate"):
        return ""
    parts = split_number(text)
    if parts is None:
        return ""
    suffix = _ALIASES.get(parts[1], parts[1])
    if suffix and suffix not in _WORTH_SAYING:
        return ""
    value = parse_value(parameter, text, unit_name)
    how = "a bare number, taken in" if not suffix else "read as"
    return (
        f"{parameter} = {text.strip()} {how} {value:.6g} {unit_name}"
        if suffix
        else f"{parameter} = {text.strip()}: {how} {unit_name}"
    )


def split_range(option: str, text: str) -> tuple[str, str] | None:
    """``START..STOP`` as its two texts, or None when ``text`` is a single value.

    Refused: half a range (``..100``), more dots than two (``0...100km``: read as 0 to .100 km, it
    would end at 0.1 km), two ranges (``0..50..100``) and a range mixed with a list (``0..100km,200km``).
    """
    start, dots, stop = text.partition("..")
    if not dots:
        return None
    reason, allowed = "", "START..STOP, e.g. 1..100 or 20km..100km"
    if "..." in text:
        reason = "three dots: a range is START..STOP, with two"
    elif ".." in stop:
        reason = "two ranges"
    elif "," in text:
        reason, allowed = "a range and a list cannot be mixed", "a range START..STOP or a list A,B,C"
    elif not start.strip() or not stop.strip():
        reason = "half a range"
    if reason:
        raise InputError(option, text, allowed, reason=reason)
    return start, stop


# Two whole numbers and a comma read as one number with a decimal comma as well as a list: 0,25km is 0.25 km
# in German notation, or 0 km and 25 km. It is a list where nothing else can be meant: three items or more,
# a unit on the first item (0km,25km), a space after the comma (0, 25km), or a second number of four digits
# or more (800,1200: no one writes a decimal part so, and a thousands separator groups by three).
_DECIMAL_COMMA = re.compile(r"\s*([+-]?\d+),(\d{1,3})(?:\s*([^\d\s,.][^,]*?))?\s*")


def decimal_comma(text: str) -> tuple[str, str] | None:
    """(number, unit) that ``text`` is with its comma read as a decimal mark, where it may be meant so:
    ``20,5km`` is ("20.5", "km"), ``0,95`` ("0.95", ""); None where it is a list beyond doubt
    (``0, 5km``, ``0km,5km``, ``20,40,70km``, ``800,1200``) or no list."""
    match = _DECIMAL_COMMA.fullmatch(text)
    return None if match is None else (f"{match[1]}.{match[2]}", match[3] or "")


_EXPONENT = re.compile(r"[eE][+-]?\d")
# the unit to write on each item of a list of two where the text has none: the display unit as typed
_TYPED_UNIT = {"1/s": "/s", "1/ms": "/ms", "1/us": "/us", "1/min": "/min", "ratio": "%", "1": ""}


def refuse_decimal_comma(name: str, text: str, unit: str = "", *, ascending: bool = False) -> None:
    """Refuse a list of two that a decimal comma would make one number (:func:`decimal_comma`), saying
    how to write each in a form that works as typed, on a command line too (no space to quote):
    ``0,25km`` is written 0.25km for one value, 0km,25km for two; a number of three digits after the
    comma may be a thousands separator too (``1,500``: 1500). ``unit``: the unit of the value (its
    display unit, or the unit a file needs), written on each item where the text has none; a unit
    that cannot be written (a count) leaves the quoted form, ``"12, 4"``. ``ascending``: a list that
    must go up (distances): the two are written in ascending order (``12,5km``: 5km,12km for two).

    For lists as a person types them (``distance=0,5km``), not for a range's two ends joined
    (``0..5km``, whose ends are clear)."""
    reading = decimal_comma(text)
    if reading is None:
        return
    number, typed = reading
    first, second = number.split(".")
    low, high = sorted((first, second), key=float) if ascending else (first, second)
    written = typed or _TYPED_UNIT.get(unit, unit)
    if _EXPONENT.match(typed):  # ``10,1e3``: the exponent is the second number's alone
        one, as_list = f"{number}{typed}", f'"{first}, {second}{typed}"'
    elif written:
        one, as_list = f"{number}{written}", f"{low}{written},{high}{written}"
    else:
        one, as_list = number, f'"{low}, {high}"'
    said_one = with_unit(number, typed or "1") if not _EXPONENT.match(typed) else one
    thousands = f"{first}{second}{written}" if len(second) == 3 and not _EXPONENT.match(typed) else ""
    readings = f"{said_one} with a decimal comma" + (
        f", {with_unit(first + second, typed or '1')} with a thousands separator" if thousands else ""
    )
    ones = f"{one} or {thousands}" if thousands else one
    raise InputError(
        name,
        text.strip(),
        f"{ones} for one value, or {as_list} for two",
        reason=f"ambiguous: {readings}, or a list of two?",
    )


def parse_list(name: str, text: str, unit: str) -> list[float]:
    """``20,40,70km`` as three values: a unit written on the last item applies to the bare ones.

    Each item is read by :func:`qmodel.units.parse_value` (``1ms,400us``, ``80%,0.9``).
    An item like ``000`` (from ``35,000``) is refused: a thousands separator is
    not a list, and a decimal comma is not either (write 35000 or 1.5).
    """
    items = [item.strip() for item in text.split(",")]
    if len(items) == 1:
        return [parse_value(name, text, unit)]
    for item in items[1:]:
        if re.fullmatch(r"0\d+", item) or not item:
            raise InputError(
                name,
                text,
                "a list such as 20,40,70km, or one number such as 35000",
                reason="a comma inside a number: write 35000 (or 35K) and 1.5, not 35,000 or 1,5"
                if item
                else "an empty list item",
            )
    last = split_number(items[-1])
    suffix = last[1] if last else ""
    return [
        parse_value(
            name, item + suffix if suffix and (parts := split_number(item)) and not parts[1] else item, unit
        )
        for item in items
    ]
