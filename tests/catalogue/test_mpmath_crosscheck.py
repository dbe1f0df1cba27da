"""The generated numpy code (and the stable recursions) against a 50-digit mpmath evaluation.

The reference is the catalogue's own sympy expression with every earlier
output and every algorithm call (ErlangC, ...) replaced by its textbook
definition, evaluated by mpmath at 50 significant digits. Model entries
(inverse solves, searches) have no closed form to compare with; their modules
are tested on their own (tests/algorithms/test_subchannels.py).

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
The check is the one ``qmodel check`` runs (qmodel.catalogue.checks).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from qmodel.algorithms import queueing
from qmodel.catalogue.checks import FiftyDigits, check_crosscheck, within
from qmodel.catalogue.loader import load_catalogue
from qmodel.catalogue.symbolic import shipped

CATALOGUE = load_catalogue()
fifty_digit = FiftyDigits(shipped())


@pytest.mark.parametrize("formula_id", [f.id for f in CATALOGUE.values() if not f.model])
@given(data=st.data())
def test_compiled_code_agrees_with_50_digit_evaluation(formula_id: str, data) -> None:
    check_crosscheck(CATALOGUE[formula_id], data, fifty_digit)


@settings(max_examples=25)
@given(servers=st.integers(1, 10_000), gap=st.floats(1e-6, 1e-3))
@example(servers=10_000, gap=1e-3)
@example(servers=10_000, gap=1e-6)
@example(servers=1, gap=1e-6)
def test_erlang_c_recursion_is_accurate_up_to_10000_servers_near_saturation(servers, gap) -> None:
    load = servers * (1.0 - gap)  # within 0.1% of the number of servers
    computed = float(queueing.erlang_c(servers, load))
    exact = fifty_digit("erlang_c", "wait_probability", {"servers": servers, "offered_load": load})
    assert within(computed, exact), (computed, exact)


@settings(max_examples=25)
@given(servers=st.integers(1, 10_000), load_fraction=st.floats(0.0, 2.0))
@example(servers=10_000, load_fraction=0.999)
@example(servers=10_000, load_fraction=0.0)
def test_erlang_b_recursion_is_accurate_up_to_10000_servers(servers, load_fraction) -> None:
    load = servers * load_fraction
    computed = float(queueing.erlang_b(servers, load))
    exact = fifty_digit("erlang_b", "blocking_probability", {"servers": servers, "offered_load": load})
    assert within(computed, exact), (computed, exact)
