"""Evaluate catalogue entries on numpy arrays, with domain and stability checks.

This is the quick path: it uses the generated numpy code in
:mod:`qmodel.catalogue._compiled` and never imports sympy or scipy.

Inputs and outputs are in each symbol's display unit (ms, 1/s, km, ratio)
unless SI units are asked for (``calc(..., units="si")``, ``result.si()``);
the generated code works in SI units, and the conversion happens here only.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qmodel import frames
from qmodel.catalogue import _compiled
from qmodel.catalogue.dimensions import si_unit
from qmodel.catalogue.loader import Constraint, Formula, Symbol, get_formula
from qmodel.catalogue.runtime import SumTooLongError
from qmodel.errors import InputError
from qmodel.limits import duration, loop_seconds
from qmodel.units import UNITS, parse_value, with_unit

_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
# A strict bound is a stability limit: a value within this (relative) of it is
# taken as at the limit, so float rounding (ρ = 0.9999999999999999 for an
# exact 1) cannot turn an unstable queue into an enormous number.
_AT_LIMIT = 1e-12
DIVERGES = "the inputs make this output diverge"  # the reason given for an output that is not finite


UNIT_SYSTEMS = ("display", "si")


class FormulaResult:
    """The outputs of one entry, by name (``result.response_time``), in the units ``units`` names.

    Those are the display units (ms, 1/s, km, ratio), or SI units (s, 1/s, m, B)
    when ``calc(..., units="si")`` asked for them. ``inputs`` holds every input as
    used, defaults included, in the same unit system. ``si()`` gives the outputs
    in SI whichever system they are held in, so that a caller chaining formulas
    need not look units up. ``warnings`` lists the ``warn`` constraints the
    inputs break (each once), in words: the answer stands, the state it describes does not last.
    """

    def __init__(
        self,
        formula_id: str,
        outputs: dict[str, np.ndarray],
        units: dict[str, str],
        inputs: dict[str, np.ndarray] | None = None,
        to_si: dict[str, float] | None = None,
        warnings: list[str] | None = None,
    ):
        self.formula_id = formula_id
        self.warnings = warnings or []
        self.outputs = outputs
        self.units = units
        self.inputs = inputs or {}
        self.to_si = to_si if to_si is not None else {name: UNITS[unit].to_si for name, unit in units.items()}

    def si(self, name: str | None = None) -> np.ndarray | dict[str, np.ndarray]:
        """Output ``name`` in its SI unit (s, 1/s, m, B, B/s; ratios and counts as they are),
        or every output by name when no name is given."""
        if name is None:
            return {output: values * self.to_si[output] for output, values in self.outputs.items()}
        if name not in self.outputs:
            raise InputError(
                "output", name, ", ".join(self.outputs), reason=f"not an output of {self.formula_id}"
            )
        return self.outputs[name] * self.to_si[name]

    def __repr__(self) -> str:
        return f"FormulaResult({self.formula_id!r}, {self.outputs!r})"

    def records(self) -> list[dict[str, object]]:
        """One record per element of the broadcast inputs and outputs, keys naming their units
        (:func:`qmodel.frames.key`: ``response_time[ms]``, a count bare)."""
        formula = get_formula(self.formula_id)
        si = self.units != {o.name: o.unit for o in formula.outputs}
        units = {name: si_unit(s.unit) if si else s.unit for name, s in formula.symbols.items()}
        columns = {frames.key(name, units[name]): value for name, value in self.inputs.items()}
        columns.update({frames.key(name, self.units[name]): value for name, value in self.outputs.items()})
        return frames.broadcast_records(columns)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict: the entry, its :meth:`records` (inputs as used and outputs, one per element)
        and the warnings."""
        return {"formula": self.formula_id, "records": self.records(), "warnings": list(self.warnings)}

    def to_frame(self):
        """The inputs and outputs as a pandas DataFrame, one row per element, units in the column names."""
        return frames.to_frame(self.records())

    def _repr_html_(self) -> str:
        return frames.html(self.formula_id, self.records(), warnings=self.warnings)

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["outputs"][name]
        except KeyError:
            raise AttributeError(name) from None


class Evaluation(NamedTuple):
    """Outputs for every row plus the rows that failed, with their errors, and the rows warned about.

    A failed row's outputs are NaN in ``outputs``; its InputError is in
    ``errors`` under its 0-based index, so nothing fails silently. ``inputs``
    are the inputs as used (defaults filled in, broadcast), in display units.
    ``warnings`` holds, under a computed row's index, the ``warn`` constraints
    it breaks, in words (an undersized link configuration: the backlog grows).
    """

    formula: Formula
    outputs: dict[str, np.ndarray]
    errors: dict[int, InputError]
    inputs: dict[str, np.ndarray]
    warnings: dict[int, list[str]]


def _user_module(formula: Formula):
    from qmodel.catalogue.user import compiled_module

    return compiled_module(formula)


def _fmt(value: float) -> str:
    return f"{value:.6g}"


def _complete_inputs(formula: Formula, inputs: Mapping[str, ArrayLike]) -> dict[str, np.ndarray]:
    unknown = sorted(set(inputs) - set(formula.symbols))
    if unknown:
        raise InputError(
            unknown[0],
            inputs[unknown[0]],
            "the symbols " + ", ".join(formula.symbols),
            reason=f"not an input of {formula.id}",
        )
    values = {}
    for name, symbol in formula.symbols.items():
        if name in inputs:
            values[name] = np.asarray(inputs[name], dtype=float)
        elif symbol.default is not None:
            values[name] = np.asarray(symbol.default, dtype=float)
        else:
            raise InputError(name, "missing", _allowed(name, symbol), reason=symbol.meaning)
    shapes = {value.shape for value in values.values()}
    if len(shapes) <= 1:  # already alike (the usual case): broadcast_arrays costs more than the entry
        return values
    shape = np.broadcast_shapes(*shapes)  # each to it as broadcast_arrays would, for less overhead
    return {
        name: value if value.shape == shape else np.broadcast_to(value, shape)
        for name, value in values.items()
    }


def _allowed(name: str, symbol: Symbol) -> str:
    """The symbol's domain as an inequality, with its unit: ``0 < service_time (ms)``."""
    domain = symbol.domain.describe(name)
    return domain if symbol.unit == "1" else f"{domain} ({symbol.unit})"


def _domain_error(formula: Formula, name: str, value: float) -> InputError:
    symbol = formula.symbols[name]
    reason = "outside its domain"
    if symbol.unit == "ratio" and value > 1:
        reason = "a ratio is a fraction: write 95% or 0.95"
    elif not np.isfinite(value):
        reason = "not a finite number"
    elif symbol.domain.integer and value != np.floor(value):
        reason = "must be a whole number"
    return InputError(name, with_unit(_fmt(value), symbol.unit), _allowed(name, symbol), reason=reason)


def evaluate(formula: Formula | str, inputs: Mapping[str, ArrayLike]) -> Evaluation:
    """Evaluate an entry element-wise over broadcast input arrays.

    Each element is checked against its symbol's domain and the entry's
    constraints (e.g. utilization < 1), then computed by the generated code;
    an output that is not finite is an error too. Errors are per element.
    A missing input without a default, or an unknown input name, raises.

    :param formula: the entry, or its id.
    :param inputs: each input by name, numbers or arrays in the symbol's display unit (broadcast together).
    :returns: every output (display units, NaN where a row failed), each failed row's InputError by its
        0-based index, the inputs as used and each warned row's warnings (:class:`Evaluation`).
    """
    formula = get_formula(formula) if isinstance(formula, str) else formula
    module = _compiled if formula.builtin else _user_module(formula)
    compute = getattr(module, formula.id)
    constrained = getattr(module, f"{formula.id}__constraints")
    values = _complete_inputs(formula, inputs)
    shape = next(iter(values.values())).shape if values else ()
    bad = np.zeros(shape, dtype=bool)
    errors: dict[int, InputError] = {}

    def reject(newly_bad: np.ndarray, make_error) -> None:
        if not newly_bad.any():  # the usual case, at the cost of one pass
            return
        newly_bad = newly_bad & ~bad
        for index in np.flatnonzero(newly_bad):
            errors[int(index)] = make_error(int(index))
        bad[...] |= newly_bad

    for name, value in values.items():
        flat = value.reshape(-1)
        reject(
            ~formula.symbols[name].domain.contains(value),
            lambda i, name=name, flat=flat: _domain_error(formula, name, flat[i]),
        )
    si = {name: value * UNITS[formula.symbols[name].unit].to_si for name, value in values.items()}
    warned: list[tuple[Constraint, np.ndarray, np.ndarray]] = []
    with np.errstate(all="ignore"):
        for constraint, quantity in zip(formula.constraints, constrained(**si), strict=True):
            quantity = _to_shape(quantity, shape) / UNITS[constraint.unit].to_si
            flat = quantity.reshape(-1)
            bound = constraint.bound
            if constraint.relation in ("<", ">"):
                slack = _AT_LIMIT * max(1.0, abs(bound))
                bound = bound - slack if constraint.relation == "<" else bound + slack
            broken = ~_COMPARE[constraint.relation](quantity, bound)
            if constraint.kind == "warn":
                warned.append((constraint, broken, flat))
                continue
            reject(
                broken,
                lambda i, c=constraint, flat=flat: InputError(
                    c.name,
                    with_unit(_fmt(flat[i]), c.unit),
                    with_unit(f"{c.relation} {c.bound:g}", c.unit),
                    reason=c.reason,
                ),
            )
        computed = _compute_refusing_long_sums(formula, compute, si, values, bad, reject)
        good = ~bad
    outputs = {}
    for output in formula.outputs:
        full = np.full(shape, np.nan)
        if good.all():  # the whole (possibly many-dimensional) array was computed
            full[...] = computed[output.name]  # broadcast to the inputs' shape
        else:
            full[good] = np.broadcast_to(computed[output.name], full[good].shape)
        full /= UNITS[output.unit].to_si
        outputs[output.name] = full
    for output in formula.outputs:
        flat = outputs[output.name].reshape(-1)
        reject(
            ~np.isfinite(outputs[output.name]) & good,
            lambda i, o=output, flat=flat: InputError(
                o.name, _fmt(flat[i]), "a finite number", reason=DIVERGES
            ),
        )
    for computed_output in outputs.values():
        computed_output[bad] = np.nan
    warnings: dict[int, list[str]] = {}
    for constraint, broken, flat in warned:
        for index in np.flatnonzero(broken & ~bad):
            warnings.setdefault(int(index), []).append(_warning(constraint, flat[index]))
    return Evaluation(formula, outputs, errors, values, warnings)


def _to_shape(value: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as an array of ``shape``: itself where it has it, else broadcast (read-only)."""
    value = np.asarray(value)
    return value if value.shape == shape else np.broadcast_to(value, shape)


def _compute_refusing_long_sums(
    formula: Formula,
    compute,
    si: dict[str, np.ndarray],
    values: dict[str, np.ndarray],
    bad: np.ndarray,
    reject,
) -> dict:
    """The entry computed at the rows not ``bad``; a row whose Sum is too long to sum alone
    (:class:`~qmodel.catalogue.runtime.SumTooLongError`) is refused, naming the inputs its limits depend on,
    and the others computed again without it, each exactly as alone."""
    while True:
        good = ~bad
        subset = si if good.all() else {name: value[good] for name, value in si.items()}
        try:
            return compute(**subset)
        except SumTooLongError as error:
            rows = np.flatnonzero(good.reshape(-1))  # the subset's elements, by row
            sub_shape = next(iter(subset.values())).shape if subset else ()
            refused = np.broadcast_to(error.refused, sub_shape).reshape(-1)
            terms = np.broadcast_to(error.terms, sub_shape).reshape(-1)
            newly = np.zeros(bad.size, dtype=bool)
            newly[rows[refused]] = True
            where = dict(zip(rows[refused].tolist(), terms[refused].tolist(), strict=True))
            reject(
                newly.reshape(bad.shape),
                lambda i, error=error, where=where: _long_sum_error(formula, error, values, i, where[i]),
            )


def _long_sum_error(
    formula: Formula, long: SumTooLongError, values: dict[str, np.ndarray], row: int, terms: float
) -> InputError:
    """A row refused for a Sum too long alone: the inputs its limits depend on, their values, what
    is allowed, and the Sum's terms and time."""
    named = [name for name in long.inputs if name in values]
    reason = (
        f"Sum over {long.index} of {terms:.3g} terms, about "
        f"{duration(loop_seconds(terms, 1))}: too large to compute"
    )
    if not named:
        return InputError(long.parameter, long.value, long.allowed, reason=reason)
    shown = ", ".join(
        with_unit(_fmt(values[name].reshape(-1)[row]), formula.symbols[name].unit) for name in named
    )
    allowed = f"values giving the Sum over {long.index} {long.allowed_terms()}"
    return InputError(", ".join(named), shown, allowed, reason=reason)


def _warning(constraint: Constraint, value: float) -> str:
    """A broken ``warn`` constraint in words: its quantity, the bound it broke and why that matters."""
    if constraint.unit == "ratio":  # a utilization reads as a percentage
        shown, bound = f"{_fmt(value * 100)}%", f"{constraint.relation} {constraint.bound * 100:g}%"
    else:
        shown = with_unit(_fmt(value), constraint.unit)
        bound = with_unit(f"{constraint.relation} {constraint.bound:g}", constraint.unit)
    return f"{constraint.name} = {shown}, not {bound}: {constraint.reason}"


def calc(formula_id: str, units: str = "display", **inputs: ArrayLike) -> FormulaResult:
    """Evaluate an entry and return its outputs by name; raises the first InputError.

    Values are numbers or arrays in each symbol's display unit, e.g.
    ``calc("mm1", arrival_rate=800, service_time=1.0).response_time`` (ms); with
    ``units="si"`` inputs and outputs are in SI units (s, 1/s, m, B, B/s):
    ``calc("mm1", units="si", arrival_rate=800, service_time=0.001).response_time``
    (0.005 s), so one entry's output can be passed on to another as it is.

    :param formula_id: the catalogue entry's id (``qmodel formula list``), e.g. ``"mm1"``.
    :param units: ``"display"``: inputs and outputs in each symbol's display unit (ms, 1/s, km, ratio);
        ``"si"``: in SI units (s, 1/s, m, B, B/s).
    :param inputs: each input by its symbol's name: a number or array in that unit, or a text with its own
        unit (``"400us"``, ``"95%"``: :func:`qmodel.units.parse_value`); a missing input takes its default.
    :returns: the outputs by name (``result.response_time``), in the unit system asked for, with the inputs
        as used and the warnings (:class:`FormulaResult`).
    :raises InputError: the first element outside its domain or constraints, an unknown or missing input.
    """
    if units not in UNIT_SYSTEMS:
        raise InputError("units", units, " or ".join(UNIT_SYSTEMS))
    formula = get_formula(formula_id)
    typed = {
        name: parse_value(name, value, formula.symbols[name].unit)  # "800/s", "1ms": the one parser
        for name, value in inputs.items()
        if isinstance(value, str) and name in formula.symbols
    }
    if units == "si":
        inputs = {
            name: value
            if name in typed or name not in formula.symbols
            else np.asarray(value, dtype=float) / UNITS[formula.symbols[name].unit].to_si
            for name, value in inputs.items()
        }
    inputs = {**inputs, **typed}
    evaluation = evaluate(formula, inputs)
    if evaluation.errors:
        raise evaluation.errors[min(evaluation.errors)]
    display = {o.name: o.unit for o in formula.outputs}
    warnings = list(dict.fromkeys(w for row in sorted(evaluation.warnings) for w in evaluation.warnings[row]))
    if units == "display":
        return FormulaResult(formula.id, evaluation.outputs, display, evaluation.inputs, warnings=warnings)
    factors = {name: UNITS[unit].to_si for name, unit in display.items()}
    return FormulaResult(
        formula.id,
        {name: value * factors[name] for name, value in evaluation.outputs.items()},
        {name: si_unit(unit) for name, unit in display.items()},
        {name: value * UNITS[formula.symbols[name].unit].to_si for name, value in evaluation.inputs.items()},
        dict.fromkeys(display, 1.0),
        warnings,
    )


def compute_si(formula_id: str, **inputs: ArrayLike) -> dict[str, np.ndarray]:
    """The generated code of a built-in entry on SI inputs, outputs in SI, with no domain or
    constraint checks: for a caller inside an iteration that has checked its inputs itself (the
    scenario solver's fixed point). Anything a person typed goes through :func:`evaluate`."""
    return getattr(_compiled, formula_id)(**inputs)
