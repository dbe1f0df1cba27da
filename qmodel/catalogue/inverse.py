"""Inverse solves: the value of one input at which an output reaches a target.

Works for any catalogue entry whose output is declared ``increasing`` or
``decreasing`` in that input (the catalogue's properties give the direction),
so the answer is unique: bisection on the input's domain, vectorized over rows.
A point where the model refuses the inputs (past a stability limit) counts as
beyond the target, so "the largest I/O rate that keeps utilization at 50%"
never lands on an unstable rate.

For a whole-number input (drives, servers) the answer is the whole number on
the acceptable side of the target, taking output <= target as acceptable: the
fewest drives that keep utilization at or below it, or the most I/Os.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, get_formula
from qmodel.errors import InputError

_STEPS = 200
_WIDEST = 1e15  # how far an unbounded domain is searched


class Solution(NamedTuple):
    """The input value found, and every output of the forward model evaluated there."""

    unknown: str
    value: np.ndarray
    outputs: dict[str, np.ndarray]


def _direction(formula: Formula, output: str, unknown: str) -> int:
    for prop in formula.properties:
        if prop.output == output and prop.symbol == unknown:
            return 1 if prop.kind == "increasing" else -1
    declared = sorted({p.symbol for p in formula.properties
                       if p.output == output and p.kind in ("increasing", "decreasing")})
    raise InputError("--for", unknown, f"an input {output} is declared monotone in: "
                     + (", ".join(declared) or "none for this output"),
                     reason=f"{formula.id}.{output} is not declared monotone in it")


def _excess(formula: Formula, output: str, target, unknown: str, values, inputs, direction):
    """(output − target) × direction at each value; +inf where the model refuses the inputs."""
    evaluation = evaluate(formula, {**inputs, unknown: values})
    excess = np.array((evaluation.outputs[output] - target) * direction, dtype=float)
    for row in evaluation.errors:
        excess.flat[row] = np.inf
    return excess


def solve(formula: Formula | str, output: str, target: ArrayLike, unknown: str,
          inputs: Mapping[str, ArrayLike]) -> Solution:
    """The value of ``unknown`` at which ``output`` equals ``target`` (display units)."""
    formula = get_formula(formula) if isinstance(formula, str) else formula
    if unknown not in formula.symbols:
        raise InputError("--for", unknown, "one of the inputs " + ", ".join(formula.symbols))
    try:
        formula.output(output)
    except KeyError:
        raise InputError("target", output, "one of the outputs "
                         + ", ".join(o.name for o in formula.outputs)) from None
    if unknown in inputs:
        raise InputError(unknown, inputs[unknown], "left out: it is the input being solved for")
    direction = _direction(formula, output, unknown)
    domain = formula.symbols[unknown].domain
    target = np.asarray(target, float)
    shape = np.broadcast_shapes(target.shape, *(np.shape(v) for v in inputs.values()))
    low = np.full(shape, max(domain.lower, -_WIDEST))
    high = np.full(shape, min(domain.upper, _WIDEST))
    if domain.integer:
        low, high = np.ceil(low), np.floor(high)
    # the excess rises with the unknown: find where it crosses zero
    for _ in range(_STEPS):
        if domain.integer:
            if (high - low <= 1).all():
                break
            middle = np.floor((low + high) / 2)
        else:
            middle = np.where((high - low) > 1e3 * np.maximum(1.0, np.abs(low)),
                              low + np.sqrt(np.maximum(high - low, 0.0)), (low + high) / 2)
        above = _excess(formula, output, target, unknown, middle, inputs, direction) > 0
        high = np.where(above, middle, high)
        low = np.where(above, low, middle)
    if domain.integer:  # the whole number on the side where output <= target
        low_ok = _excess(formula, output, target, unknown, low, inputs, direction) * direction <= 0
        value = np.where(direction > 0, low, np.where(low_ok, low, high))
    else:
        value = (low + high) / 2
    evaluation = evaluate(formula, {**inputs, unknown: value})
    reached = evaluation.outputs[output]
    if evaluation.errors or (not domain.integer and not np.allclose(
            reached, target, rtol=1e-6, atol=1e-9 * max(1.0, float(np.max(np.abs(target)))))):
        raise InputError(f"{output} target", target, f"a value {output} reaches for some "
                         f"{unknown} in {domain.describe(unknown)}", reason="not reachable")
    return Solution(unknown, value, evaluation.outputs)
