"""Hypothesis strategies for catalogue inputs, drawn from each symbol's declared domain.

The domain says what is allowed; the ranges below say which part of it a
planner's numbers live in, per unit, so that random draws exercise realistic
magnitudes (log-uniform), the domain's own edges (its closed ends) and round
values (powers of ten), towards which a failure shrinks.
Used by ``qmodel check`` and the test suite alike (:mod:`qmodel.catalogue.checks`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, Symbol
from qmodel.units import UNITS

# Where realistic values of each unit lie (display units).
REALISTIC = {
    "ms": (1e-3, 1e3),
    "us": (1e-1, 1e6),
    "s": (1e-3, 1e3),
    "min": (1e-2, 1e2),
    "1/s": (1e-2, 1e5),
    "km": (1e-1, 1e3),
    "m": (1.0, 1e6),
    "us/km": (1.0, 20.0),
    "ms/km": (1e-3, 2e-2),
    "s/m": (1e-9, 2e-8),
    "km/s": (1e5, 3e5),
    "m/s": (1e8, 3e8),
    "B": (512.0, 1e6),
    "KB": (0.5, 1e3),
    "KiB": (0.5, 1e3),
    "MB": (1e-2, 1e6),
    "GB": (1e-3, 1e3),
    "TB": (1e-3, 1e3),
    "MB/s": (1.0, 1e5),
    "GB/s": (1e-3, 1e2),
    "ratio": (1e-4, 1.0),
    "%": (1e-2, 100.0),
    "1": (1e-3, 100.0),
}
# a unit not listed takes the range of its dimension's reference unit, converted (Gb/s from MB/s)
REFERENCE = {
    "time": "ms",
    "rate": "1/s",
    "length": "km",
    "data size": "MB",
    "data rate": "MB/s",
    "ratio": "ratio",
    "count": "1",
    "time per length": "us/km",
    "speed": "km/s",
}
INTEGER_RANGE = (1, 40)
# Draws stay this far (relative) from an open end of a domain: approaching it
# is ill-conditioned territory (a delayed fraction of 1 − 1e-15 asks for 1e16
# subchannels), where no float code keeps 1e-9.
OPEN_END_MARGIN = 1e-6


def realistic_range(unit: str) -> tuple[float, float]:
    """Where realistic values of ``unit`` lie, in that unit (listed, or from its dimension's reference)."""
    if unit in REALISTIC:
        return REALISTIC[unit]
    reference = REFERENCE[UNITS[unit].dimension]
    scale = UNITS[reference].to_si / UNITS[unit].to_si
    low, high = REALISTIC[reference]
    return low * scale, high * scale


@functools.cache
def symbol_values(symbol: Symbol) -> st.SearchStrategy[float]:
    """Values inside the symbol's domain, log-uniform over its realistic range, plus its edges and the
    powers of ten in that range (built once per symbol: a strategy validates itself on its first draw,
    which cost more than the draw)."""
    domain = symbol.domain
    if domain.values:
        return st.sampled_from(domain.values)
    if domain.integer:
        least = max(INTEGER_RANGE[0], math.ceil(domain.lower))
        return st.integers(least, max(least, INTEGER_RANGE[1])).map(float)
    low, high = realistic_range(symbol.unit)
    if not domain.lower_closed and math.isfinite(domain.lower):
        low = max(low, domain.lower + OPEN_END_MARGIN * max(1.0, abs(domain.lower)))
    if not domain.upper_closed and math.isfinite(domain.upper):
        high = min(high, domain.upper - OPEN_END_MARGIN * max(1.0, abs(domain.upper)))
    low, high = max(low, domain.lower), min(high, domain.upper)
    inner = st.floats(math.log10(low), math.log10(high)).map(lambda e: 10.0**e)
    inner = inner.filter(lambda v: bool(domain.contains(v)))
    edges = [v for v in (domain.lower, domain.upper) if math.isfinite(v) and domain.contains(v)]
    # round values (powers of ten) beside the edges: a failure shrinks to inputs a planner reads at a glance
    round_values = [10.0**k for k in range(math.ceil(math.log10(low)), math.floor(math.log10(high)) + 1)]
    simple = list(dict.fromkeys(edges + [v for v in round_values if domain.contains(v)]))
    return st.one_of(st.sampled_from(simple), inner) if simple else inner


def formula_inputs(formula: Formula) -> st.SearchStrategy[dict[str, float]]:
    """One draw of every input of an entry (domains only; constraints are checked later)."""
    return _inputs(tuple(formula.symbols.items()))


@functools.cache
def _inputs(symbols: tuple[tuple[str, Symbol], ...]) -> st.SearchStrategy[dict[str, float]]:
    return st.fixed_dictionaries({name: symbol_values(s) for name, s in symbols})


def evaluate_valid(formula: Formula, rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """Evaluate rows of inputs; a draw that breaks a constraint (or makes an output diverge) is
    discarded (assume). A ``warn`` constraint counts too: properties are declared for the region
    where the model's state lasts (a link utilization above 1 is computed, not bounded)."""
    columns = {name: np.array([row[name] for row in rows]) for name in formula.symbols}
    evaluation = evaluate(formula, columns)
    assume(not evaluation.errors and not evaluation.warnings)
    return evaluation.outputs


def to_si(values: dict[str, float | np.ndarray], units: dict[str, str]) -> dict[str, np.ndarray]:
    """Convert display-unit values to SI by each name's unit."""
    return {name: np.asarray(value) * UNITS[units[name]].to_si for name, value in values.items()}


def close(actual, expected, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    return bool(np.all(np.abs(actual - expected) <= rel * np.abs(expected) + abs_))
