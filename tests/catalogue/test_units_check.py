"""The dimension of every expression follows from its inputs' units, and must be the one declared."""

import pytest

from qmodel.catalogue.loader import catalogue_files, load_files
from qmodel.catalogue.symbolic import parse_formula, shipped
from qmodel.errors import CatalogueError

ENTRY = """
[[formula]]
id = "demo"
title = "t"
source = "s"

[formula.symbols.arrival_rate]
shared = "arrival_rate"

[formula.symbols.service_time]
shared = "service_time"

[[formula.outputs]]
name = "result"
expr = "{expr}"
unit = "{unit}"
meaning = "m"

[[formula.properties]]
kind = "bounded"
output = "result"
lower = 0
"""


def check(expr: str, unit: str, extra: str = "") -> None:
    catalogue = load_files([*catalogue_files(), ("user.toml", ENTRY.format(expr=expr, unit=unit) + extra)])
    parse_formula(catalogue["demo"], catalogue)


def test_an_output_in_ms_whose_expression_gives_a_rate_is_named() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"user.toml: formula 'demo', output 'result': declared in ms "
        r"\(a time \(s\)\) but its expression gives a rate \(1/s\)",
    ):
        check("1/service_time", "ms")


def test_an_output_whose_units_match_is_accepted() -> None:
    check("service_time/(1 - arrival_rate*service_time)", "us")


def test_adding_a_time_to_a_rate_is_refused() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"output 'result': units do not fit: adds a rate \(1/s\) and "
        r"a time \(s\)",
    ):
        check("service_time + arrival_rate", "ms")


def test_a_function_argument_in_the_wrong_unit_is_refused() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"RoundTripTime takes distance as a length \(m\), "
        r"given a time \(s\)",
    ):
        check("RoundTripTime(service_time, 200000)", "ms")


def test_a_power_of_a_quantity_with_units_needs_a_constant_exponent() -> None:
    with pytest.raises(CatalogueError, match="needs a constant exponent"):
        check("service_time**(arrival_rate*service_time)", "ms")


def test_exp_takes_a_plain_number() -> None:
    with pytest.raises(CatalogueError, match=r"exp takes a plain number, not a time \(s\)"):
        check("exp(service_time)", "1")


def test_a_constraint_in_the_wrong_unit_is_named() -> None:
    constraint = 'constraints = [{ name = "busy", expr = "arrival_rate", below = 1, reason = "r" }]\n'
    text = ENTRY.format(expr="service_time", unit="ms")
    text = text.replace('source = "s"\n', 'source = "s"\n' + constraint)
    catalogue = load_files([*catalogue_files(), ("user.toml", text)])
    with pytest.raises(
        CatalogueError,
        match=r"constraint 'busy': declared in 1 \(a plain number\) but its "
        r"expression gives a rate",
    ):
        parse_formula(catalogue["demo"], catalogue)


@pytest.mark.parametrize("formula_id", list(shipped().catalogue))
def test_every_shipped_entry_has_consistent_units(formula_id: str) -> None:
    shipped().parsed(formula_id)
