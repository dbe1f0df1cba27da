"""The catalogue loader names the file and the entry on every kind of error."""

import pytest

from qmodel.catalogue.loader import get_formula, load_catalogue, load_files
from qmodel.catalogue.symbolic import parse_formula
from qmodel.errors import CatalogueError, InputError

GOOD = """
[[formula]]
id = "demo"
title = "Demo"
source = "test"

[formula.symbols.arrival_rate]
meaning = "arrivals"
unit = "1/s"
domain = "[0, inf)"

[[formula.outputs]]
name = "doubled"
expr = "2*arrival_rate"
unit = "1/s"
meaning = "twice"

[[formula.properties]]
kind = "increasing"
output = "doubled"
symbol = "arrival_rate"
"""


def load_and_parse(text: str, file: str = "demo.toml"):
    catalogue = load_files([(file, text)])
    return {fid: parse_formula(formula, catalogue) for fid, formula in catalogue.items()}


def test_a_good_entry_loads() -> None:
    assert set(load_and_parse(GOOD)) == {"demo"}


def test_a_constraint_may_name_an_output_and_is_checked_on_the_inputs() -> None:
    constraint = (
        'constraints = [{ name = "d", expr = "doubled", below = 10, unit = "1/s", reason = "too many" }]\n'
    )
    text = GOOD.replace('source = "test"\n', 'source = "test"\n' + constraint)
    parsed = load_and_parse(text)["demo"]
    assert str(parsed.constraints[0]) == "2*arrival_rate"


def test_undeclared_symbol_is_named_with_file_and_entry() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"demo.toml: formula 'demo', output 'doubled'.*"
        r"undeclared symbol\(s\) service_time",
    ):
        load_and_parse(GOOD.replace('"2*arrival_rate"', '"arrival_rate*service_time"'))


def test_missing_unit_is_named_with_file_entry_and_symbol() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"demo.toml: formula 'demo', symbol 'arrival_rate'"
        r": missing 'unit'",
    ):
        load_and_parse(GOOD.replace('unit = "1/s"\ndomain', "domain", 1))


def test_unknown_unit_is_refused() -> None:
    with pytest.raises(CatalogueError, match="unknown unit 'furlongs'"):
        load_and_parse(GOOD.replace('unit = "1/s"', 'unit = "furlongs"', 1))


def test_expression_parse_error_is_named() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"demo.toml: formula 'demo', output 'doubled': "
        r"cannot parse '2\*\(arrival_rate'",
    ):
        load_and_parse(GOOD.replace('"2*arrival_rate"', '"2*(arrival_rate"'))


def test_toml_syntax_error_names_the_file() -> None:
    with pytest.raises(CatalogueError, match=r"demo\.toml: TOML syntax error"):
        load_and_parse(GOOD + "\nthis is not toml")


def test_duplicate_id_names_both_files() -> None:
    with pytest.raises(CatalogueError, match=r"b.toml: formula 'demo': duplicate id \(also in a.toml\)"):
        load_files([("a.toml", GOOD), ("b.toml", GOOD)])


def test_malformed_domain_is_named() -> None:
    with pytest.raises(CatalogueError, match="symbol 'arrival_rate': domain"):
        load_and_parse(GOOD.replace('domain = "[0, inf)"', 'domain = "0 <= x"'))


def test_property_on_an_undeclared_symbol_is_refused() -> None:
    with pytest.raises(CatalogueError, match="symbol 'distance' is not declared"):
        load_and_parse(GOOD.replace('symbol = "arrival_rate"', 'symbol = "distance"'))


def test_unknown_function_call_is_a_parse_error() -> None:
    with pytest.raises(CatalogueError, match="cannot parse"):
        load_and_parse(GOOD.replace('"2*arrival_rate"', '"ErlangZ(arrival_rate)"'))


def test_shipped_catalogue_loads_and_matches_its_generated_copy() -> None:
    assert "mm1" in load_catalogue()


def test_unknown_formula_id_names_the_nearest_ids_and_where_to_find_them_all() -> None:
    nearest = r"allowed: an id such as mmc, mm1 \(\d+ in all: qmodel formula list\)"
    with pytest.raises(InputError, match=nearest):
        get_formula("mm9")
    with pytest.raises(InputError, match=r"allowed: an id of the catalogue \(\d+ in all"):
        get_formula("xyz")


SHARED = """
[symbols.arrival_rate]
meaning = "arrivals"
unit = "1/s"
domain = "[0, inf)"
default = 5

[constraints.busy]
name = "doubled"
expr = "doubled"
below = 100
unit = "1/s"
reason = "too busy"
"""


def _with_reference(reference: str) -> str:
    return GOOD.replace('meaning = "arrivals"\nunit = "1/s"\ndomain = "[0, inf)"', reference)


def test_an_entry_takes_a_shared_symbol_whole() -> None:
    text = _with_reference('shared = "arrival_rate"')
    symbol = load_files([("shared.toml", SHARED), ("demo.toml", text)])["demo"].symbols["arrival_rate"]
    assert (symbol.meaning, symbol.unit, symbol.default) == ("arrivals", "1/s", 5)


def test_an_entry_may_override_a_shared_symbols_meaning_domain_and_default() -> None:
    reference = 'shared = "arrival_rate"\nmeaning = "SSCH rate"\ndomain = "(0, inf)"\ndefault = 7'
    symbol = load_files([("shared.toml", SHARED), ("demo.toml", _with_reference(reference))])["demo"].symbols[
        "arrival_rate"
    ]
    assert (symbol.meaning, symbol.domain.lower_closed, symbol.default) == ("SSCH rate", False, 7)


def test_a_shared_symbols_unit_is_not_overridden() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"demo.toml: formula 'demo', symbol 'arrival_rate': "
        r"a shared symbol may override only .*not unit",
    ):
        load_files(
            [("shared.toml", SHARED), ("demo.toml", _with_reference('shared = "arrival_rate"\nunit = "1"'))]
        )


def test_an_unknown_shared_symbol_is_named_with_file_entry_and_symbol() -> None:
    with pytest.raises(
        CatalogueError,
        match=r"demo.toml: formula 'demo', symbol 'arrival_rate': unknown "
        r"shared symbol 'arival_rate'; shared symbols: arrival_rate",
    ):
        load_files([("shared.toml", SHARED), ("demo.toml", _with_reference('shared = "arival_rate"'))])


def test_a_shared_constraint_is_used_as_written_in_its_home() -> None:
    text = GOOD.replace('source = "test"\n', 'source = "test"\nconstraints = [{ shared = "busy" }]\n')
    constraint = load_files([("shared.toml", SHARED), ("demo.toml", text)])["demo"].constraints[0]
    assert constraint[:4] == ("doubled", "doubled", "<", 100)
    assert constraint.unit == "1/s"


def test_a_shared_name_defined_twice_names_both_files() -> None:
    with pytest.raises(
        CatalogueError, match=r"b.toml: shared symbol 'arrival_rate' defined twice \(also in a.toml\)"
    ):
        load_files([("a.toml", SHARED), ("b.toml", SHARED)])


def test_the_shipped_catalogue_has_one_home_for_the_fibre_speed() -> None:
    from qmodel.catalogue.loader import catalogue_files

    texts = dict(catalogue_files())
    assert sum(text.count("default = 200000") for text in texts.values()) == 1
    speeds = {
        f.symbols["fibre_speed"].default for f in load_catalogue().values() if "fibre_speed" in f.symbols
    }
    assert speeds == {200000}


def test_an_unknown_constraint_kind_is_refused() -> None:
    constraint = (
        'constraints = [{ name = "c", expr = "doubled", below = 1, unit = "1/s", kind = "ignore", '
        'reason = "r" }]\n'
    )
    with pytest.raises(CatalogueError, match=r"demo.toml: formula 'demo', constraint 'c': kind 'ignore'"):
        load_and_parse(GOOD.replace('source = "test"\n', 'source = "test"\n' + constraint))
