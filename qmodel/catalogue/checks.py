"""Trying to break catalogue entries: declared properties, the 50-digit cross-check, the constraints.

``qmodel check`` and the test suite run the same checks. Each check draws
inputs with hypothesis from the symbols' declared domains
(:mod:`qmodel.catalogue.strategies`), discards draws that break a constraint,
and raises :class:`PropertyFailedError` with the inputs in their units when the
entry misbehaves; hypothesis shrinks a failure to its smallest counterexample.

- ``increasing`` / ``decreasing``: the output at two values of the symbol, the
  other inputs fixed, moves the declared way (within 1e-12 of its size);
- ``bounded``: the output stays within its bounds;
- ``equals``: the output equals another entry's with inputs substituted;
- ``identity``: the output equals its identity expression (evaluated at 50 digits);
- cross-check: every output of a closed-form entry agrees to 1e-9 with its
  sympy expression (function calls expanded to their definitions) evaluated
  by mpmath at 50 digits, away from the ill-conditioned edge of a constraint
  (see :func:`check_crosscheck`);
- constraints: wherever the domains and constraints allow, every output is
  finite (a missing constraint shows as a division by zero or an overflow).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import mpmath
import numpy as np
import sympy
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from qmodel.catalogue.evaluate import DIVERGES, evaluate
from qmodel.catalogue.loader import Formula, Property
from qmodel.catalogue.registry import model_function
from qmodel.catalogue.strategies import close, evaluate_valid, formula_inputs, symbol_values, to_si
from qmodel.catalogue.symbolic import SymbolicCatalogue
from qmodel.catalogue.user import compiled_module
from qmodel.units import UNITS, with_unit

RELATIVE = 1e-9  # the cross-check's tolerance
MARGIN = 1e-6  # how far (relative) the cross-check keeps from a constraint's bound
# CPU of a run (check_seconds), measured by bench/check_cost.py (issue 33, 2-core machine at a load average
# of 7.5; bench/figures/check_cost.json): every 10th shipped entry and ranks.toml's, 48 checks, 5.4 s at 10
# examples and 25.4 s at 50: 10.4 ms an example, 8 ms to start a check; ranks.toml's entry about 7.4 ms an
# example. An entry's setup (parsed, lambdified, its checks' strategies built) 276 ms for the shipped
# sample (Sums and function definitions expanded), 60 ms for ranks.toml's, 133 KB kept. ranks.toml's
# entry at 100 examples: estimated 6.21 s, measured 5.38 s
SECONDS_PER_EXAMPLE = 0.01
SECONDS_PER_CHECK = 0.01
SECONDS_PER_ENTRY = 0.15
BYTES_PER_ENTRY = 150e3


class PropertyFailedError(AssertionError):
    """An entry broke a check: what went wrong, and the inputs (display units) that show it."""

    def __init__(
        self, message: str, formula: Formula, inputs: dict[str, float], label: str = "inputs"
    ) -> None:
        shown = ", ".join(
            f"{name} = {_fmt(inputs[name], symbol.unit)}"
            for name, symbol in formula.symbols.items()
            if name in inputs
        )
        super().__init__(f"{message}; {label}: {shown}" if shown else message)
        self.inputs = inputs


def _units(formula: Formula) -> dict[str, str]:
    return {**{n: s.unit for n, s in formula.symbols.items()}, **{o.name: o.unit for o in formula.outputs}}


def _fmt(value: float, unit: str) -> str:
    return with_unit(f"{float(value):.6g}", unit)


def check_monotone(formula: Formula, prop: Property, data: st.DataObject, context: SymbolicCatalogue) -> None:
    base = data.draw(formula_inputs(formula))
    other = data.draw(symbol_values(formula.symbols[prop.symbol]))
    low, high = sorted([base[prop.symbol], other])
    assume(low < high)
    values = evaluate_valid(formula, [{**base, prop.symbol: low}, {**base, prop.symbol: high}])
    at_low, at_high = values[prop.output]
    slack = 1e-12 * max(abs(at_low), abs(at_high))
    held = at_high >= at_low - slack if prop.kind == "increasing" else at_high <= at_low + slack
    if not held:
        unit, symbol_unit = formula.output(prop.output).unit, formula.symbols[prop.symbol].unit
        raise PropertyFailedError(
            f"{prop.output} = {_fmt(at_low, unit)} at {prop.symbol} = {_fmt(low, symbol_unit)} but "
            f"{_fmt(at_high, unit)} at {prop.symbol} = {_fmt(high, symbol_unit)}",
            formula,
            {name: value for name, value in base.items() if name != prop.symbol},
            "other inputs",
        )


def check_bounded(formula: Formula, prop: Property, data: st.DataObject, context: SymbolicCatalogue) -> None:
    inputs = data.draw(formula_inputs(formula))
    value = evaluate_valid(formula, [inputs])[prop.output][0]
    below = prop.lower is not None and value < prop.lower - 1e-12 * max(1.0, abs(prop.lower))
    above = prop.upper is not None and value > prop.upper + 1e-12 * max(1.0, abs(prop.upper))
    if below or above:
        raise PropertyFailedError(
            f"{prop.output} = {_fmt(value, formula.output(prop.output).unit)}, "
            f"{'below' if below else 'above'} {prop.lower if below else prop.upper:g}",
            formula,
            inputs,
        )


def check_equals(formula: Formula, prop: Property, data: st.DataObject, context: SymbolicCatalogue) -> None:
    inputs = data.draw(formula_inputs(formula))
    for name, value in prop.substitute.items():
        inputs[name] = inputs[value] if isinstance(value, str) else float(value)
    outputs = evaluate_valid(formula, [inputs])
    other_id, other_output = prop.other.split(".")
    other = context.catalogue[other_id]
    known = {**inputs, **{name: values[0] for name, values in outputs.items()}}
    evaluation = evaluate(other, {name: known[name] for name in other.symbols})
    if evaluation.errors:
        refusal = next(iter(evaluation.errors.values()))
        raise PropertyFailedError(f"{prop.other} refuses the inputs: {refusal}", formula, inputs)
    mine = to_si({prop.output: outputs[prop.output]}, _units(formula))[prop.output]
    theirs = to_si({other_output: evaluation.outputs[other_output]}, _units(other))[other_output]
    if not close(mine, theirs):
        raise PropertyFailedError(
            f"{prop.output} = {float(mine[0]):.10g} but {prop.other} = {float(theirs[0]):.10g} (SI units)",
            formula,
            inputs,
        )


def numeric_functions(context: SymbolicCatalogue) -> dict[str, Callable[..., Any]]:
    """Each function entry's numeric code by its function name: the registered recursion or the
    generated value function."""
    return {
        name: model_function(f.algorithm).function
        if f.algorithm
        else getattr(compiled_module(f), f"_{f.id}_value")
        for name, f in context.by_function.items()
    }


def check_identity(formula: Formula, prop: Property, data: st.DataObject, context: SymbolicCatalogue) -> None:
    inputs = data.draw(formula_inputs(formula))
    outputs = evaluate_valid(formula, [inputs])
    values = to_si({**inputs, **{n: v[0] for n, v in outputs.items()}}, _units(formula))
    identities = [p for p in formula.properties if p.kind == "identity"]
    expr = context.parsed(formula.id).identities[identities.index(prop)]
    names = sorted(values)
    if expr.atoms(sympy.core.function.AppliedUndef):
        function = _lambdify([sympy.Symbol(n) for n in names], expr, [numeric_functions(context), "numpy"])
        expected = function(*(values[n] for n in names))
    else:
        # the identity's own form may be ill-conditioned (log of p near 1):
        # evaluate it exactly, so that only the entry's rounding is measured
        function = _lambdify([sympy.Symbol(n) for n in names], expr, "mpmath")
        with mpmath.workdps(50):
            expected = float(function(*(mpmath.mpf(float(values[n])) for n in names)))
    if not close(values[prop.output], expected):
        raise PropertyFailedError(
            f"{prop.output} = {float(values[prop.output]):.10g} but {prop.expr} = "
            f"{float(expected):.10g} (SI units)",
            formula,
            inputs,
        )


PROPERTY_CHECKS = {
    "increasing": check_monotone,
    "decreasing": check_monotone,
    "bounded": check_bounded,
    "equals": check_equals,
    "identity": check_identity,
}


def check_property(formula: Formula, prop: Property, data: st.DataObject, context: SymbolicCatalogue) -> None:
    """One draw of the property's check; PropertyFailedError when the entry breaks it."""
    PROPERTY_CHECKS[prop.kind](formula, prop, data, context)


def _lambdify(arguments: list[sympy.Symbol], expr: sympy.Expr, modules: Any) -> Callable[..., Any]:
    """sympy.lambdify with every symbol (arguments and Sum indices) renamed ``_qm_s0``, ``_qm_s1``...
    first: a user's symbol named abs, range or sqrt would otherwise shadow the function of that
    name in the code lambdify writes."""
    symbols = sorted({*arguments, *expr.atoms(sympy.Symbol)}, key=str)
    renamed = {symbol: sympy.Symbol(f"_qm_s{n}", **symbol.assumptions0) for n, symbol in enumerate(symbols)}
    return sympy.lambdify([renamed[a] for a in arguments], expr.xreplace(renamed), modules=modules)


def _magnitude(expr: sympy.Expr) -> sympy.Expr:
    """The expression with every sum replaced by the sum of its terms' absolute values.

    Float evaluation errs by about machine epsilon times the size of the terms
    it adds, not of their result: b − c near zero is exact to ε·(|b| + |c|).
    """
    return expr.replace(
        lambda node: isinstance(node, sympy.Add),
        lambda node: sympy.Add(*(sympy.Abs(term) for term in node.args)),
    )


class FiftyDigits:
    """Reference values of a catalogue's outputs at 50 significant digits (mpmath), lambdified once."""

    def __init__(self, context: SymbolicCatalogue) -> None:
        self.context = context
        self._functions: dict[tuple[str, str, bool], Callable[..., Any]] = {}

    def __call__(
        self, formula_id: str, output: str, si_inputs: dict[str, float], magnitude: bool = False
    ) -> mpmath.mpf:
        """The output at the inputs (SI), or with ``magnitude`` the size of the terms it is made of."""
        key = (formula_id, output, magnitude)
        if key not in self._functions:
            entry = self.context.parsed(formula_id)
            definition = entry.definition(output)
            self._functions[key] = _lambdify(
                list(entry.symbols.values()), _magnitude(definition) if magnitude else definition, "mpmath"
            )
        formula = self.context.catalogue[formula_id]
        arguments = [
            int(si_inputs[name]) if s.domain.integer else mpmath.mpf(si_inputs[name])
            for name, s in formula.symbols.items()
        ]
        with mpmath.workdps(50):
            return self._functions[key](*arguments)


def within(actual: float, exact: mpmath.mpf, scale: mpmath.mpf | None = None) -> bool:
    """|actual − exact| within 1e-9 of the result, or of the size of the terms it is made of."""
    error = abs(mpmath.mpf(actual) - exact)
    size = max(abs(exact), abs(scale)) if scale is not None else abs(exact)
    return bool(error <= RELATIVE * size + mpmath.mpf("1e-300"))


def check_crosscheck(formula: Formula, data: st.DataObject, reference: FiftyDigits) -> None:
    """Every output of a closed-form entry against its definition at 50 digits.

    Within a hair of a stability bound the formulas are ill-conditioned: at
    ρ = 1 − 1e-16 the relative condition number of S/(1 − ρ) is about 1e16. So
    draws keep 1e-6 (relative) away from every constraint bound unless the
    constrained quantity is a whole number computed exactly (capacity − servers).
    """
    inputs = data.draw(formula_inputs(formula))
    outputs = evaluate_valid(formula, [inputs])
    si_inputs = {n: v * UNITS[formula.symbols[n].unit].to_si for n, v in inputs.items()}
    quantities = getattr(compiled_module(formula), f"{formula.id}__constraints")(**si_inputs)
    parsed = reference.context.parsed(formula.id)
    for constraint, expr, quantity in zip(formula.constraints, parsed.constraints, quantities, strict=True):
        if not all(formula.symbols[s.name].domain.integer for s in expr.free_symbols):
            value = float(quantity) / UNITS[constraint.unit].to_si
            assume(abs(value - constraint.bound) > MARGIN * max(1.0, abs(constraint.bound)))
    for output in formula.outputs:
        computed = float(outputs[output.name][0]) * UNITS[output.unit].to_si
        exact = reference(formula.id, output.name, si_inputs)
        if not within(computed, exact, reference(formula.id, output.name, si_inputs, magnitude=True)):
            raise PropertyFailedError(
                f"{output.name} = {computed:.15g} but the 50-digit evaluation gives "
                f"{mpmath.nstr(exact, 15)} (SI units)",
                formula,
                inputs,
            )


def check_finite(formula: Formula, data: st.DataObject) -> None:
    """Wherever the domains and constraints allow, every output is a finite number."""
    inputs = data.draw(formula_inputs(formula))
    evaluation = evaluate(formula, {name: np.array([value]) for name, value in inputs.items()})
    error = evaluation.errors.get(0)
    assume(error is None or error.reason == DIVERGES)
    if error is not None:
        raise PropertyFailedError(
            f"{error.parameter} = {error.value} is not finite, yet every domain and "
            "constraint holds (a constraint is missing)",
            formula,
            inputs,
        )


class CheckResult(NamedTuple):
    """The outcome of one check of one entry."""

    formula_id: str
    check: str  # what was checked, in words
    passed: bool
    message: str  # the counterexample, or why the check could not run
    examples: int


def run_check(
    formula: Formula, check: str, body: Callable[[st.DataObject], None], examples: int, random_seed: int
) -> CheckResult:
    """Run ``body`` on ``examples`` hypothesis draws with a fixed seed; the smallest counterexample
    if it fails."""

    @seed(random_seed)
    # no explain phase: the counterexample is reported here, and explaining it took 32 of a failed
    # check's 37 s (one entry, 20 examples)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
    )
    @given(data=st.data())
    def attempt(data: st.DataObject) -> None:
        body(data)

    try:
        attempt()
    except PropertyFailedError as failure:
        return CheckResult(formula.id, check, False, str(failure), examples)
    except Unsatisfiable:
        return CheckResult(
            formula.id,
            check,
            False,
            "no draw from the domains satisfied the constraints: narrow the domains",
            examples,
        )
    except Exception as error:  # the entry's code itself broke (a user's file): a failed check, not a crash
        message = str(error).splitlines()[0] if str(error) else ""
        return CheckResult(
            formula.id, check, False, f"the check could not run: {type(error).__name__}: {message}", examples
        )
    return CheckResult(formula.id, check, True, "", examples)


def _property_check(
    formula: Formula, prop: Property, context: SymbolicCatalogue
) -> Callable[[st.DataObject], None]:
    """The check of one property of an entry, on the inputs a Hypothesis draw gives it."""
    return lambda data: check_property(formula, prop, data, context)


def entry_checks(
    formula: Formula, context: SymbolicCatalogue, reference: FiftyDigits
) -> list[tuple[str, Callable[[st.DataObject], None]]]:
    """Every check of an entry, named: its properties, the cross-check (closed forms), the constraints."""
    checks = [(prop.text(), _property_check(formula, prop, context)) for prop in formula.properties]
    if not formula.model:
        checks.append(
            (
                "outputs agree with a 50-digit evaluation",
                lambda data: check_crosscheck(formula, data, reference),
            )
        )
    checks.append(
        (
            "outputs finite wherever the domains and constraints allow",
            lambda data: check_finite(formula, data),
        )
    )
    return checks


def check_counts(formulas: list[Formula], context: SymbolicCatalogue) -> list[int]:
    """How many checks each entry has (:func:`entry_checks`)."""
    reference = FiftyDigits(context)
    return [len(entry_checks(formula, context, reference)) for formula in formulas]


def check_seconds(checks: int, examples: int) -> float:
    """Estimated CPU seconds of checking an entry of ``checks`` checks at ``examples`` draws each: its
    expressions parsed (:data:`SECONDS_PER_ENTRY`), then each check started (:data:`SECONDS_PER_CHECK`)
    and run on its draws (:data:`SECONDS_PER_EXAMPLE` each, the draws an ``assume`` discards and a
    failure's shrinking included on average)."""
    return SECONDS_PER_ENTRY + checks * (SECONDS_PER_CHECK + examples * SECONDS_PER_EXAMPLE)


def check_entries(
    formulas: list[Formula],
    context: SymbolicCatalogue,
    examples: int,
    random_seed: int,
    report: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Run every check of each entry; ``report`` hears of each result as it comes."""
    reference = FiftyDigits(context)
    results = []
    for formula in formulas:
        for name, body in entry_checks(formula, context, reference):
            result = run_check(formula, name, body, examples, random_seed)
            results.append(result)
            if report is not None:
                report(result)
    return results
