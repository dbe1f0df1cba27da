"""Every property declared in formulas/*.toml, checked on hypothesis-drawn inputs.

The tests are generated from the catalogue: adding a property to an entry adds
a test here. Comparisons of different quantities are made in SI units.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
from catalogue_strategies import close, evaluate_valid, formula_inputs, symbol_values, to_si
from hypothesis import assume, given
from hypothesis import strategies as st

from qmodel.algorithms import queueing
from qmodel.catalogue import _compiled
from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import load_catalogue
from qmodel.catalogue.symbolic import parsed

CATALOGUE = load_catalogue()
PROPERTIES = [(f.id, index) for f in CATALOGUE.values() for index in range(len(f.properties))]
NUMERIC_FUNCTIONS = {
    f.function: getattr(queueing, f.algorithm) if f.algorithm else getattr(_compiled, f"_{f.id}_value")
    for f in CATALOGUE.values() if f.function
}


def _units(formula) -> dict[str, str]:
    return {**{n: s.unit for n, s in formula.symbols.items()},
            **{o.name: o.unit for o in formula.outputs}}


def check_monotone(formula, prop, data) -> None:
    base = data.draw(formula_inputs(formula))
    other = data.draw(symbol_values(formula.symbols[prop.symbol]))
    low, high = sorted([base[prop.symbol], other])
    assume(low < high)
    values = evaluate_valid(formula, [{**base, prop.symbol: low}, {**base, prop.symbol: high}])
    at_low, at_high = values[prop.output]
    slack = 1e-12 * max(abs(at_low), abs(at_high))
    if prop.kind == "increasing":
        assert at_high >= at_low - slack, (prop.symbol, low, high, at_low, at_high)
    else:
        assert at_high <= at_low + slack, (prop.symbol, low, high, at_low, at_high)


def check_bounded(formula, prop, data) -> None:
    inputs = data.draw(formula_inputs(formula))
    value = evaluate_valid(formula, [inputs])[prop.output][0]
    if prop.lower is not None:
        assert value >= prop.lower - 1e-12 * max(1.0, abs(prop.lower)), (inputs, value)
    if prop.upper is not None:
        assert value <= prop.upper + 1e-12 * max(1.0, abs(prop.upper)), (inputs, value)


def check_equals(formula, prop, data) -> None:
    inputs = data.draw(formula_inputs(formula))
    for name, value in prop.substitute.items():
        inputs[name] = inputs[value] if isinstance(value, str) else float(value)
    outputs = evaluate_valid(formula, [inputs])
    other_id, other_output = prop.other.split(".")
    other = CATALOGUE[other_id]
    known = {**inputs, **{name: values[0] for name, values in outputs.items()}}
    evaluation = evaluate(other, {name: known[name] for name in other.symbols})
    assert not evaluation.errors, evaluation.errors
    mine = to_si({prop.output: outputs[prop.output]}, _units(formula))[prop.output]
    theirs = to_si({other_output: evaluation.outputs[other_output]}, _units(other))[other_output]
    assert close(mine, theirs), (inputs, mine, theirs)


def check_identity(formula, prop, data) -> None:
    inputs = data.draw(formula_inputs(formula))
    outputs = evaluate_valid(formula, [inputs])
    values = to_si({**inputs, **{n: v[0] for n, v in outputs.items()}}, _units(formula))
    identities = [p for p in formula.properties if p.kind == "identity"]
    expr = parsed(formula.id).identities[identities.index(prop)]
    names = sorted(values)
    if expr.atoms(sympy.core.function.AppliedUndef):
        function = sympy.lambdify([sympy.Symbol(n) for n in names], expr,
                                  modules=[NUMERIC_FUNCTIONS, "numpy"])
        expected = function(*(values[n] for n in names))
    else:
        # the identity's own form may be ill-conditioned (log of p near 1):
        # evaluate it exactly, so that only the entry's rounding is measured
        function = sympy.lambdify([sympy.Symbol(n) for n in names], expr, modules="mpmath")
        with mpmath.workdps(50):
            expected = float(function(*(mpmath.mpf(float(values[n])) for n in names)))
    assert close(values[prop.output], expected), (inputs, values[prop.output], expected)


CHECKS = {"increasing": check_monotone, "decreasing": check_monotone, "bounded": check_bounded,
          "equals": check_equals, "identity": check_identity}


@pytest.mark.parametrize(
    ("formula_id", "index"), PROPERTIES,
    ids=[f"{fid}-{CATALOGUE[fid].properties[i].kind}-{CATALOGUE[fid].properties[i].output}"
         f"-{i}" for fid, i in PROPERTIES],
)
@given(data=st.data())
def test_declared_property_holds(formula_id: str, index: int, data) -> None:
    formula = CATALOGUE[formula_id]
    prop = formula.properties[index]
    CHECKS[prop.kind](formula, prop, data)


@pytest.mark.parametrize("formula_id", list(CATALOGUE))
def test_every_entry_declares_at_least_one_property(formula_id: str) -> None:
    assert CATALOGUE[formula_id].properties


@pytest.mark.parametrize("formula_id", list(CATALOGUE))
def test_every_expression_parses_with_declared_symbols_only(formula_id: str) -> None:
    entry = parsed(formula_id)
    for output in entry.outputs:
        free = {s.name for s in entry.definition(output, expand_functions=False).free_symbols}
        assert free <= set(entry.symbols)


def test_results_are_never_silently_nan() -> None:
    outputs = evaluate(CATALOGUE["mm1"], {"arrival_rate": np.array([500.0, 2000.0]),
                                          "service_time": np.array([1.0, 1.0])})
    assert set(outputs.errors) == {1}
    assert np.isfinite(outputs.outputs["response_time"][0])
