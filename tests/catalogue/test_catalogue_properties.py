"""Every property declared in formulas/*.toml, checked on hypothesis-drawn inputs.

The tests are generated from the catalogue: adding a property to an entry adds
a test here. The checks are those of ``qmodel check`` (qmodel.catalogue.checks);
comparisons of different quantities are made in SI units.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qmodel.catalogue.checks import check_finite, check_property
from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import load_catalogue
from qmodel.catalogue.symbolic import parsed, shipped

CATALOGUE = load_catalogue()
PROPERTIES = [(f.id, index) for f in CATALOGUE.values() for index in range(len(f.properties))]


@pytest.mark.parametrize(
    ("formula_id", "index"),
    PROPERTIES,
    ids=[
        f"{fid}-{CATALOGUE[fid].properties[i].kind}-{CATALOGUE[fid].properties[i].output}-{i}"
        for fid, i in PROPERTIES
    ],
)
@given(data=st.data())
def test_declared_property_holds(formula_id: str, index: int, data) -> None:
    formula = CATALOGUE[formula_id]
    check_property(formula, formula.properties[index], data, shipped())


@pytest.mark.parametrize("formula_id", list(CATALOGUE))
@given(data=st.data())
def test_outputs_are_finite_wherever_domains_and_constraints_allow(formula_id: str, data) -> None:
    check_finite(CATALOGUE[formula_id], data)


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
    outputs = evaluate(
        CATALOGUE["mm1"], {"arrival_rate": np.array([500.0, 2000.0]), "service_time": np.array([1.0, 1.0])}
    )
    assert set(outputs.errors) == {1}
    assert np.isfinite(outputs.outputs["response_time"][0])
