"""Allowed domains of catalogue symbols, in interval or set notation.

``"[0, 1]"``, ``"(0, inf)"``, ``"[1, inf) integer"``, or a set of allowed
values such as ``"{5, 6, 10}"`` (RAID levels). Bounds are in the symbol's
display unit.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

_SET = re.compile(r"^\s*\{\s*([^{}]+?)\s*\}\s*$")
_INTERVAL = re.compile(r"^\s*([\[(])\s*([^,\s]+)\s*,\s*([^\]\)\s]+)\s*([\])])\s*(integer)?\s*$")


class Domain(NamedTuple):
    """An interval of allowed values, optionally restricted to whole numbers."""

    lower: float
    upper: float
    lower_closed: bool
    upper_closed: bool
    integer: bool = False
    values: tuple[float, ...] = ()  # a finite set of allowed values, when given as {a, b, c}

    @classmethod
    def parse(cls, text: str) -> Domain:
        """Parse interval or set notation; ValueError with the reason if it does not parse."""
        listed = _SET.match(text)
        if listed is not None:
            try:
                values = tuple(sorted(float(v) for v in listed.group(1).split(",")))
            except ValueError:
                raise ValueError(f"domain {text!r} is not a set of numbers like '{{5, 6, 10}}'") from None
            integer = all(v.is_integer() for v in values)
            return cls(values[0], values[-1], True, True, integer, values)
        match = _INTERVAL.match(text)
        if match is None:
            raise ValueError(f"domain {text!r} is not interval notation like '[0, 1]' or '(0, inf)'")
        opening, low, high, closing, whole = match.groups()
        lower, upper = float(low), float(high)
        if not lower < upper:
            raise ValueError(f"domain {text!r} is empty: lower bound is not below upper bound")
        if (opening == "[" and math.isinf(lower)) or (closing == "]" and math.isinf(upper)):
            raise ValueError(f"domain {text!r} closes an infinite end; use ( or )")
        return cls(lower, upper, opening == "[", closing == "]", whole is not None)

    def contains(self, values: ArrayLike) -> np.ndarray:
        """Element-wise: True where the value is finite and inside the domain."""
        array = np.asarray(values, dtype=float)
        if self.values:
            return np.isin(array, self.values)
        inside = np.isfinite(array)
        inside &= array >= self.lower if self.lower_closed else array > self.lower
        inside &= array <= self.upper if self.upper_closed else array < self.upper
        if self.integer:
            inside &= np.floor(array) == array
        return inside

    def describe(self, name: str = "x") -> str:
        """The domain as an inequality, e.g. ``0 <= read_hit_ratio <= 1``, or a set."""
        if self.values:
            return f"{name} one of {', '.join(_number(v) for v in self.values)}"
        parts = []
        if not math.isinf(self.lower):
            parts.append(f"{_number(self.lower)} {'<=' if self.lower_closed else '<'} ")
        parts.append(name)
        if not math.isinf(self.upper):
            parts.append(f" {'<=' if self.upper_closed else '<'} {_number(self.upper)}")
        text = "".join(parts)
        return f"{text}, a whole number" if self.integer else text


def _number(value: float) -> str:
    return f"{value:g}"
