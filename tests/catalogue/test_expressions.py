"""The expression parser reads arithmetic and refuses everything else, before anything runs."""

import pytest
import sympy

from qmodel.catalogue.expressions import parse_expression
from qmodel.catalogue.symbolic import shipped
from qmodel.errors import CatalogueError

NAMES = {name: sympy.Symbol(name) for name in ("arrival_rate", "service_time", "servers")}
WHERE = "user.toml: formula 'demo', output 'x'"


def parse(text: str) -> sympy.Expr:
    return parse_expression(text, NAMES, shipped().functions, WHERE)


def test_arithmetic_builds_the_sympy_expression() -> None:
    arrival_rate, service_time = NAMES["arrival_rate"], NAMES["service_time"]
    assert parse("service_time/(1 - arrival_rate*service_time)") == service_time / (
        1 - arrival_rate * service_time
    )


def test_whole_numbers_divide_exactly() -> None:
    assert parse("1/10**9") == sympy.Rational(1, 10**9)


def test_piecewise_conditions_and_comparisons_are_read() -> None:
    expr = parse("Piecewise((1, arrival_rate > 2), (0, True))")
    assert expr.subs(NAMES["arrival_rate"], 3) == 1
    assert expr.subs(NAMES["arrival_rate"], 1) == 0


def test_a_sum_binds_its_index() -> None:
    expr = parse("Sum(arrival_rate**k/factorial(k), (k, 0, servers))")
    assert expr.subs({NAMES["servers"]: 2, NAMES["arrival_rate"]: 2}).doit() == 5


def test_a_catalogue_function_is_called_with_its_arguments() -> None:
    expr = parse("ErlangC(servers, arrival_rate*service_time)")
    assert type(expr).__name__ == "ErlangC"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("__import__('os').system('touch hacked')", "attribute access is not allowed"),
        ("__import__('os')", "unknown function '__import__'"),
        ("eval('1')", "unknown function 'eval'"),
        ("arrival_rate.real", "attribute access is not allowed"),
        ("().__class__.__bases__[0]", "a subscript is not allowed"),
        ("(lambda: 1)()", "a lambda is not allowed"),
        ("sqrt(2)(3)", "only named functions may be called"),
        ("lambda: 1", "a lambda is not allowed"),
        ("servers[0]", "a subscript is not allowed"),
        ("'text'", "a string is not allowed"),
        ("2**10**9", "a constant exponent beyond 1000"),
        ("(10**300)**10", "a constant power beyond 1e300"),
        ("arrival_rate**5000", "a constant exponent beyond 1000"),
        ("factorial(10**6)", "a factorial of a constant"),
        ("Sum(k, (k, 0, 10**9))", "a Sum of more than 100000 terms"),
        ("[x for x in ()]", "a comprehension is not allowed"),
        ("Max(servers, key=abs)", "keyword arguments"),
        ("arrival_rate and servers", "'and'/'or'"),
        ("ErlangC(servers)", "ErlangC takes 2 argument(s), given 1"),
        ("servers // 2", "only the operators"),
        ("1" + "+1" * 400, "nesting deeper than"),
        ("(" * 300 + "1" + ")" * 300, "cannot parse"),
        ("x" * 3000, "longer than 2000 characters"),
    ],
)
def test_a_hostile_or_unsupported_expression_is_refused_in_one_line(text: str, reason: str) -> None:
    with pytest.raises(CatalogueError) as error:
        parse(text)
    message = str(error.value)
    assert message.startswith(f"{WHERE}: cannot parse ")
    assert reason in message
    assert "\n" not in message


def test_an_undeclared_name_is_named() -> None:
    with pytest.raises(CatalogueError, match=r"undeclared symbol\(s\) os, system"):
        parse("os + system")


def test_a_comparison_is_not_an_output() -> None:
    with pytest.raises(CatalogueError, match="is not an arithmetic expression"):
        parse("arrival_rate > 1")


def test_a_hostile_user_file_is_refused_without_effect(tmp_path, monkeypatch) -> None:
    from qmodel.catalogue.loader import load_files
    from qmodel.catalogue.symbolic import parse_formula

    monkeypatch.chdir(tmp_path)
    text = """
[[formula]]
id = "hostile"
title = "t"
source = "s"

[formula.symbols.servers]
shared = "servers"

[[formula.outputs]]
name = "x"
expr = "__import__('os').system('touch hacked') + servers"
unit = "1"
meaning = "m"

[[formula.properties]]
kind = "bounded"
output = "x"
lower = 0
"""
    from qmodel.catalogue.loader import catalogue_files

    catalogue = load_files([*catalogue_files(), ("hostile.toml", text)])
    with pytest.raises(CatalogueError, match=r"hostile.toml: formula 'hostile', output 'x': cannot parse"):
        parse_formula(catalogue["hostile"], catalogue)
    assert not (tmp_path / "hacked").exists()
