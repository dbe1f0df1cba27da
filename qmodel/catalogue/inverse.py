"""Inverse solves: the value of one input at which an output reaches a target.

Works for any catalogue entry whose output is monotone in that input: declared
``increasing`` or ``decreasing`` in the catalogue's properties, or, for a
closed-form output, proven so by the sign of its derivative (sympy, on the
symbols' domains). The answer is then unique.

The search knows where the model refuses an input (past a stability limit:
too few servers, too little bandwidth, too high a rate). The refused values
form one end of the input's range, so a refused point lies on the side of the
target that end is on: below every accepted value it is "short of the
target", above them "past it". The search

1. finds an accepted value, starting from the low end of the domain for a
   whole number (servers, drives, links: the cost of Erlang C grows with the
   server count, so it never starts at 10^15) and from 1 otherwise, stepping
   outwards (whole numbers by doubling steps, others by factors of ten);
2. gallops from there towards the target until it is passed, which brackets
   the answer between the stability bound (or the domain's end) and the
   first point past the target;
3. bisects the bracket.

For a whole-number input (drives, servers) the answer is the whole number on
the acceptable side of the target, taking output <= target as acceptable: the
fewest drives that keep utilization at or below it, or the most I/Os. Where
no value reaches the target, the error says how near the output comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, get_formula
from qmodel.errors import InputError

_LARGEST_WHOLE = 2.0**52  # whole numbers above this are not exact in a double
_LARGEST = 1e300  # how far an unbounded continuous domain is searched
_GALLOP_STEPS = 2000  # continuous: factors of ten to 1e300 and back to a bound's ulp
_BISECTIONS = 2200  # enough to reach a double's resolution from 1e300 by geometric halving


class Solution(NamedTuple):
    """The input value found, and every output of the forward model evaluated there."""

    unknown: str
    value: np.ndarray
    outputs: dict[str, np.ndarray]


def _direction(formula: Formula, output: str, unknown: str) -> int:
    """+1 if ``output`` increases with ``unknown``, −1 if it decreases: declared, else proven."""
    for prop in formula.properties:
        if prop.output == output and prop.symbol == unknown and prop.kind in ("increasing", "decreasing"):
            return 1 if prop.kind == "increasing" else -1
    proven = proven_direction(formula.id, output, unknown)
    if proven:
        return proven
    declared = sorted(
        {
            p.symbol
            for p in formula.properties
            if p.output == output and p.kind in ("increasing", "decreasing")
        }
    )
    raise InputError(
        "--for",
        unknown,
        f"an input {output} is declared monotone in: " + (", ".join(declared) or "none for this output"),
        reason=f"{formula.id}.{output} is neither declared nor provably monotone in it",
    )


@cache
def proven_direction(formula_id: str, output: str, unknown: str) -> int:
    """+1 or −1 where sympy proves the sign of d(output)/d(unknown) on the domains, else 0.

    Only continuous closed forms qualify (no Piecewise, ceiling or call to an
    algorithm entry, whose jumps or unknown shape a derivative does not see);
    calls to closed-form function entries (LinksBandwidth) are expanded first.
    Symbols are taken positive or non-negative as their domains say.
    """
    import sympy

    from qmodel.catalogue.symbolic import parsed

    formula = get_formula(formula_id)
    if formula.model:
        return 0
    entry = parsed(formula_id)
    expr = entry.definition(output, expand_functions="closed")
    opaque = (sympy.Piecewise, sympy.ceiling, sympy.floor, sympy.core.function.AppliedUndef)
    if any(expr.atoms(kind) for kind in opaque) or entry.symbols[unknown] not in expr.free_symbols:
        return 0
    assumed = {}
    for name, symbol in formula.symbols.items():
        domain = symbol.domain
        if domain.lower > 0 or (domain.lower == 0 and not domain.lower_closed):
            assumed[entry.symbols[name]] = sympy.Symbol(name, positive=True)
        elif domain.lower == 0:
            assumed[entry.symbols[name]] = sympy.Symbol(name, nonnegative=True)
    expr = expr.xreplace(assumed)
    derivative = sympy.factor(sympy.diff(expr, assumed.get(entry.symbols[unknown], entry.symbols[unknown])))
    if derivative == 0:
        return 0
    if derivative.is_nonnegative:
        return 1
    if derivative.is_nonpositive:
        return -1
    return 0


class _Search:
    """The rows of one solve, flattened, and the test "past the target?" at any value of the unknown.

    ``past(x)`` rises with x: for an increasing output it is output > target,
    for a decreasing one output <= target. A value the model refuses counts as
    past when it lies above the row's accepted reference value, short of the
    target when below it.
    """

    def __init__(
        self,
        formula: Formula,
        output: str,
        target: np.ndarray,
        unknown: str,
        inputs: dict[str, np.ndarray],
        direction: int,
    ):
        self.formula, self.output, self.target = formula, output, target
        self.unknown, self.inputs, self.direction = unknown, inputs, direction
        self.reference = np.full(target.shape, np.nan)  # an accepted value per row

    def evaluate(self, rows: np.ndarray, values: np.ndarray):
        """(output, refused) of the given rows at the given values of the unknown."""
        inputs = {name: value[rows] for name, value in self.inputs.items()}
        with np.errstate(all="ignore"):  # values near 1e300 overflow in SI: refused as not finite
            evaluation = evaluate(self.formula, {**inputs, self.unknown: values})
        refused = np.zeros(rows.size, dtype=bool)
        refused[list(evaluation.errors)] = True
        return evaluation.outputs[self.output], refused

    def past(self, rows: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(past, refused, output) of the given rows at the given values."""
        output, refused = self.evaluate(rows, values)
        target = self.target[rows]
        with np.errstate(invalid="ignore"):
            past = output > target if self.direction > 0 else output <= target
        return np.where(refused, values > self.reference[rows], past), refused, output


def _start(domain) -> float:
    """Where the search for an accepted value begins: the low end for a whole number, else near 1."""
    if domain.integer:
        return float(np.ceil(domain.lower if domain.lower_closed else np.nextafter(domain.lower, np.inf)))
    if domain.contains(1.0):
        return 1.0
    if np.isfinite(domain.lower) and np.isfinite(domain.upper):
        return (domain.lower + domain.upper) / 2
    return domain.lower + 1.0 if np.isfinite(domain.lower) else domain.upper - 1.0


def _step(domain, start: np.ndarray, k: int, upward: bool) -> np.ndarray:
    """The k-th gallop step from ``start`` towards the domain's upper or lower end (k >= 1).

    Whole numbers: start ± (2^k − 1), doubling steps, stopping at the domain's
    end (or 2^52). Others: towards a finite end geometrically (the gap shrinks
    tenfold a step, until it rounds to the end), towards an infinite one by
    factors of ten up to 1e300. Once the end is reached the steps repeat it.
    """
    end = domain.upper if upward else domain.lower
    sign = 1.0 if upward else -1.0
    if domain.integer:
        end = min(end, _LARGEST_WHOLE) if upward else end
        with np.errstate(over="ignore"):
            values = start + sign * (2.0 ** min(k, 1000) - 1.0)
        return np.where(sign * (values - end) > 0, end, values)
    if np.isfinite(end):
        return end - (end - start) * 10.0 ** -min(k, 400)
    magnitude = np.maximum(np.abs(start), 1.0)
    with np.errstate(over="ignore"):
        return np.clip(start + sign * magnitude * (10.0 ** min(k, 300) - 1.0), -_LARGEST, _LARGEST)


def solve(
    formula: Formula | str, output: str, target: ArrayLike, unknown: str, inputs: Mapping[str, ArrayLike]
) -> Solution:
    """The value of ``unknown`` at which ``output`` equals ``target`` (display units).

    Vectorized: ``target`` and ``inputs`` broadcast, one answer per element.
    Raises InputError when the output is not monotone in the unknown, when the
    model accepts no value of it for the other inputs, or when no value
    reaches the target (the message says how near the output comes).
    """
    formula = get_formula(formula) if isinstance(formula, str) else formula
    if unknown not in formula.symbols:
        raise InputError("--for", unknown, "one of the inputs " + ", ".join(formula.symbols))
    try:
        formula.output(output)
    except KeyError:
        raise InputError(
            "target", output, "one of the outputs " + ", ".join(o.name for o in formula.outputs)
        ) from None
    if unknown in inputs:
        raise InputError(unknown, inputs[unknown], "left out: it is the input being solved for")
    direction = _direction(formula, output, unknown)
    domain = formula.symbols[unknown].domain
    target = np.asarray(target, float)
    shape = np.broadcast_shapes(target.shape, *(np.shape(v) for v in inputs.values()))
    flat = {name: np.broadcast_to(np.asarray(value, float), shape).ravel() for name, value in inputs.items()}
    search = _Search(formula, output, np.broadcast_to(target, shape).ravel(), unknown, flat, direction)
    _find_accepted(search, domain)
    low, high, unbounded = _bracket(search, domain)
    value, low, high = _bisect(search, domain, low, high, unbounded)
    reached, refused = search.evaluate(np.arange(value.size), value)
    failed = refused | ~np.isfinite(value)
    if not domain.integer:
        tolerance = 1e-9 * max(1.0, float(np.max(np.abs(search.target))))
        failed |= ~np.isclose(reached, search.target, rtol=1e-6, atol=tolerance)
    if failed.any():
        raise _unreachable(search, domain, int(np.flatnonzero(failed)[0]), low, high)
    evaluation = evaluate(formula, {**inputs, unknown: value.reshape(shape)})
    return Solution(unknown, value.reshape(shape), evaluation.outputs)


def _find_accepted(search: _Search, domain) -> None:
    """An accepted value of the unknown for every row (``search.reference``), searched outwards.

    From the start (the domain's low end for a whole number, else near 1) up
    and down by gallop steps; whole numbers only upwards. Raises InputError
    for a row the model refuses at every value tried.
    """
    everything = np.arange(search.target.size)
    start = np.full(search.target.size, _start(domain))
    candidates = [start]
    directions = (True,) if domain.integer else (True, False)
    for k in range(1, _GALLOP_STEPS):
        rows = everything[np.isnan(search.reference)]
        if rows.size == 0:
            return
        for values in candidates:
            values = values[rows]
            inside = domain.contains(values)
            if inside.any():
                _, refused = search.evaluate(rows[inside], values[inside])
                accepted = rows[inside][~refused]
                search.reference[accepted] = values[inside][~refused]
                rows = everything[np.isnan(search.reference)]
                if rows.size == 0:
                    return
        following = [_step(domain, start, k, up) for up in directions]
        if all(np.array_equal(a, b) for a, b in zip(following, candidates[-len(directions) :], strict=True)):
            break
        candidates = following
    row = int(np.flatnonzero(np.isnan(search.reference))[0])
    _, refused = search.evaluate(np.array([row]), start[row : row + 1])
    evaluation = evaluate(
        search.formula,
        {**{n: v[row : row + 1] for n, v in search.inputs.items()}, search.unknown: start[row : row + 1]},
    )
    why = next(iter(evaluation.errors.values()), None)
    raise InputError(
        search.unknown,
        "any value",
        f"a value {search.formula.id} accepts with the other inputs given",
        reason="the model refuses every value tried" + (f"; at {start[row]:g}: {why}" if why else ""),
    )


def _bracket(search: _Search, domain) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, unbounded) per row: low short of the target, high past it.

    Gallops from the accepted value towards the target. A NaN low means even
    the domain's lowest value is past the target, a NaN high that no value up
    to the domain's end is. ``unbounded`` marks rows whose search stopped
    without reaching an end: a whole-number output that stops moving over a
    doubling, or the 2^52 cap.
    """
    size = search.target.size
    everything = np.arange(size)
    reference = search.reference
    is_past, _, output = search.past(everything, reference)
    low = np.where(is_past, np.nan, reference)
    high = np.where(is_past, reference, np.nan)
    upward = ~is_past
    going = np.ones(size, dtype=bool)
    unbounded = np.zeros(size, dtype=bool)
    previous = reference.copy()
    last_output = np.where(np.isfinite(output), output, np.nan)
    for k in range(1, _GALLOP_STEPS):
        rows = everything[going & np.where(upward, np.isnan(high), np.isnan(low))]
        if rows.size == 0:
            break
        up = upward[rows]
        values = np.where(
            up, _step(domain, reference[rows], k, True), _step(domain, reference[rows], k, False)
        )
        stuck = values == previous[rows]  # the domain's end (or the cap) was reached on the previous step
        going[rows[stuck]] = False
        unbounded[rows[stuck & up & (values >= _LARGEST_WHOLE)]] = domain.integer
        rows, values, up = rows[~stuck], values[~stuck], up[~stuck]
        if rows.size == 0:
            continue
        now_past, refused, output = search.past(rows, values)
        crossed = now_past == up
        high[rows[now_past]] = values[now_past]
        low[rows[~now_past]] = values[~now_past]
        if domain.integer:  # an output that stops moving over a doubling will not reach the target
            flat = up & ~crossed & ~refused & (output == last_output[rows])
            going[rows[flat]] = False
            unbounded[rows[flat]] = True
            last_output[rows] = np.where(refused, np.nan, output)
        previous[rows] = values
    return low, high, unbounded


def _bisect(
    search: _Search, domain, low: np.ndarray, high: np.ndarray, unbounded: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high): the boundary between short of and past the target, per row (NaN where
    there is none), and the bracket as narrowed.

    Whole numbers: the acceptable side's whole number (low for an increasing
    output, high for a decreasing one; the domain's lowest value where even it
    is past the target of a decreasing output). Others: the crossing.
    """
    low, high = low.copy(), high.copy()
    everything = np.arange(low.size)
    for _ in range(_BISECTIONS):
        closed = ~(np.isnan(low) | np.isnan(high))
        if domain.integer:
            middle = np.floor((low + high) / 2)
            active = closed & (high - low > 1)
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                geometric = (low > 0) & (high > 1e3 * low)
                middle = np.where(geometric, np.sqrt(low) * np.sqrt(high), low + (high - low) / 2)
                active = closed & (middle > low) & (middle < high)
        rows = everything[active]
        if rows.size == 0:
            break
        is_past, _, _ = search.past(rows, middle[rows])
        high[rows[is_past]] = middle[rows][is_past]
        low[rows[~is_past]] = middle[rows][~is_past]
    if not domain.integer:
        value = np.where(np.isnan(low) | np.isnan(high), np.nan, low + (high - low) / 2)
    elif search.direction > 0:
        value = np.where(unbounded, np.nan, low)
    else:
        value = np.where(np.isnan(low) & ~np.isnan(high), _start(domain), high)
    return value, low, high


def _unreachable(search: _Search, domain, row: int, low: np.ndarray, high: np.ndarray) -> InputError:
    """The error for a target no value reaches: how near the output comes, where, and why not nearer."""
    best, refusal = None, ""
    for x in (low[row], high[row]):
        if not np.isfinite(x):
            continue
        inputs = {name: value[row : row + 1] for name, value in search.inputs.items()}
        with np.errstate(all="ignore"):
            evaluation = evaluate(search.formula, {**inputs, search.unknown: np.array([x])})
        if evaluation.errors:
            refusal = f"; at {search.unknown} = {x:.6g} the model refuses it: {evaluation.errors[0]}"
            continue
        output = float(evaluation.outputs[search.output][0])
        if best is None or abs(output - search.target[row]) < abs(best[1] - search.target[row]):
            best = (x, output)
    unit = search.formula.output(search.output).unit
    nearest = (
        f"; the nearest it comes is {best[1]:.15g} {unit} at {search.unknown} = {best[0]:.15g}"
        if best
        else ""
    )
    return InputError(
        f"{search.output} target",
        f"{search.target[row]:g} {unit}",
        f"a value {search.output} reaches for some {search.unknown} in "
        f"{domain.describe(search.unknown)} that the model accepts",
        reason="not reachable" + nearest + refusal,
    )
