"""The generated numpy code (and the stable recursions) against a 50-digit mpmath evaluation.

The reference is the catalogue's own sympy expression with every earlier
output and every algorithm call (ErlangC, ...) replaced by its textbook
definition, evaluated by mpmath at 50 significant digits. Model entries
(inverse solves, searches) have no closed form to compare with; their modules
are tested on their own (tests/test_subchannels.py).

Within a hair of a stability bound the formulas are ill-conditioned: at
ρ = 1 − 1e-16 the relative condition number of S/(1 − ρ) is about 1e16, so the
rounding of ρ alone moves the exact answer by tens of percent. The cross-check
therefore draws inputs at least 1e-6 (relative) away from every constraint
bound (stability limits, R = N/X − Z near 0) unless the constrained quantity
is a whole number computed exactly (capacity − servers); the strategies keep
the same margin from open ends of domains. With a condition number ≤ 1e6,
1e-9 is within reach of float code. A difference of nearly equal terms
(headroom = capability − load near zero) is held to 1e-9 of the size of its
terms, the running error bound of float arithmetic, not of its tiny result.
"""

from __future__ import annotations

from functools import cache

import mpmath
import pytest
import sympy
from catalogue_strategies import evaluate_valid, formula_inputs
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from qmodel.algorithms import queueing
from qmodel.catalogue import _compiled
from qmodel.catalogue.loader import load_catalogue
from qmodel.catalogue.symbolic import parsed
from qmodel.units import UNITS

CATALOGUE = load_catalogue()
RELATIVE = 1e-9
MARGIN = 1e-6


def _magnitude(expr: sympy.Expr) -> sympy.Expr:
    """The expression with every sum replaced by the sum of its terms' absolute values.

    Float evaluation errs by about machine epsilon times the size of the terms
    it adds, not of their result: b − c near zero is exact to ε·(|b| + |c|).
    """
    return expr.replace(lambda node: isinstance(node, sympy.Add),
                        lambda node: sympy.Add(*(sympy.Abs(term) for term in node.args)))


@cache
def reference(formula_id: str, output: str, magnitude: bool = False):
    entry = parsed(formula_id)
    definition = entry.definition(output)
    return sympy.lambdify(list(entry.symbols.values()),
                          _magnitude(definition) if magnitude else definition, modules="mpmath")


def fifty_digit(formula_id: str, output: str, si_inputs: dict[str, float],
                magnitude: bool = False) -> mpmath.mpf:
    formula = CATALOGUE[formula_id]
    arguments = [int(si_inputs[name]) if s.domain.integer else mpmath.mpf(si_inputs[name])
                 for name, s in formula.symbols.items()]
    with mpmath.workdps(50):
        return reference(formula_id, output, magnitude)(*arguments)


def assert_relative(actual: float, exact: mpmath.mpf, scale: mpmath.mpf | None = None) -> None:
    """|actual − exact| within 1e-9 of the result, or of the size of the terms it is made of."""
    error = abs(mpmath.mpf(actual) - exact)
    size = max(abs(exact), abs(scale)) if scale is not None else abs(exact)
    assert error <= RELATIVE * size + mpmath.mpf("1e-300"), (actual, exact)


@pytest.mark.parametrize("formula_id", [f.id for f in CATALOGUE.values() if not f.model])
@given(data=st.data())
def test_compiled_code_agrees_with_50_digit_evaluation(formula_id: str, data) -> None:
    formula = CATALOGUE[formula_id]
    inputs = data.draw(formula_inputs(formula))
    outputs = evaluate_valid(formula, [inputs])
    si_inputs = {n: v * UNITS[formula.symbols[n].unit].to_si for n, v in inputs.items()}
    quantities = getattr(_compiled, f"{formula_id}__constraints")(**si_inputs)
    for constraint, expr, quantity in zip(formula.constraints, parsed(formula_id).constraints,
                                          quantities, strict=True):
        if not all(formula.symbols[s.name].domain.integer for s in expr.free_symbols):
            value = float(quantity) / UNITS[constraint.unit].to_si
            assume(abs(value - constraint.bound) > MARGIN * max(1.0, abs(constraint.bound)))
    for output in formula.outputs:
        computed = float(outputs[output.name][0]) * UNITS[output.unit].to_si
        assert_relative(computed, fifty_digit(formula_id, output.name, si_inputs),
                        fifty_digit(formula_id, output.name, si_inputs, magnitude=True))


@settings(max_examples=25)
@given(servers=st.integers(1, 10_000), gap=st.floats(1e-6, 1e-3))
@example(servers=10_000, gap=1e-3)
@example(servers=10_000, gap=1e-6)
@example(servers=1, gap=1e-6)
def test_erlang_c_recursion_is_accurate_up_to_10000_servers_near_saturation(servers, gap) -> None:
    load = servers * (1.0 - gap)  # within 0.1% of the number of servers
    computed = float(queueing.erlang_c(servers, load))
    exact = fifty_digit("erlang_c", "wait_probability",
                        {"servers": servers, "offered_load": load})
    assert_relative(computed, exact)


@settings(max_examples=25)
@given(servers=st.integers(1, 10_000), load_fraction=st.floats(0.0, 2.0))
@example(servers=10_000, load_fraction=0.999)
@example(servers=10_000, load_fraction=0.0)
def test_erlang_b_recursion_is_accurate_up_to_10000_servers(servers, load_fraction) -> None:
    load = servers * load_fraction
    computed = float(queueing.erlang_b(servers, load))
    exact = fifty_digit("erlang_b", "blocking_probability",
                        {"servers": servers, "offered_load": load})
    assert_relative(computed, exact)
