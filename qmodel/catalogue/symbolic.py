"""The catalogue's expressions as sympy objects: parsing, checking, full definitions.

This module imports sympy and is used by the code generator, ``qmodel formula
show``, the catalogue check and the tests; never by the quick numeric path.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy
from sympy.parsing.sympy_parser import parse_expr, standard_transformations

from qmodel.catalogue.loader import Formula, load_catalogue
from qmodel.errors import CatalogueError

# The names an expression may use besides its own symbols, outputs and the
# catalogue's functions (ErlangC, ...).
_ALLOWED = {
    "Sum": sympy.Sum,
    "factorial": sympy.factorial,
    "sqrt": sympy.sqrt,
    "exp": sympy.exp,
    "log": sympy.log,
    "Min": sympy.Min,
    "Max": sympy.Max,
    "ceiling": sympy.ceiling,
    "Piecewise": sympy.Piecewise,
    "Abs": sympy.Abs,
    "Eq": sympy.Eq,
    "And": sympy.And,
    "pi": sympy.pi,
    "Integer": sympy.Integer,
    "Float": sympy.Float,
    "Rational": sympy.Rational,
    "Symbol": sympy.Symbol,
}


@dataclass(frozen=True)
class ParsedFormula:
    """A formula's expressions: each output in terms of inputs and earlier outputs."""

    formula: Formula
    symbols: dict[str, sympy.Symbol]
    outputs: dict[str, sympy.Expr]
    constraints: tuple[sympy.Expr, ...]

    def definition(self, output: str, expand_functions: bool = True) -> sympy.Expr:
        """The output as an expression of the inputs only.

        Earlier outputs are substituted in; with ``expand_functions`` the calls
        to algorithm entries (ErlangC, ...) are replaced by their textbook
        definitions, which is what the 50-digit cross-check evaluates.
        """
        return _expand(self, self.outputs[output], expand_functions)


def _expand(parsed: ParsedFormula, expr: sympy.Expr, expand_functions: bool) -> sympy.Expr:
    earlier = {sympy.Symbol(name): value for name, value in parsed.outputs.items()}
    for _ in range(len(earlier)):
        expanded = expr.xreplace(earlier)
        if expanded == expr:
            break
        expr = expanded
    while expand_functions and expr.atoms(sympy.core.function.AppliedUndef):
        # a function's definition may call another (MMCWait calls ErlangC)
        expr = expr.replace(
            lambda node: isinstance(node, sympy.core.function.AppliedUndef),
            lambda node: function_definition(type(node).__name__)(*node.args),
        )
    return expr


def _parse(text: str, names: dict[str, object], where: str) -> sympy.Expr:
    try:
        expr = parse_expr(
            text, local_dict=dict(names), global_dict=dict(_ALLOWED),
            transformations=standard_transformations, evaluate=True,
        )
    except Exception as error:  # sympy raises SyntaxError, TokenError, TypeError, ...
        raise CatalogueError(f"{where}: cannot parse {text!r}: {error}") from None
    if not isinstance(expr, sympy.Expr):
        raise CatalogueError(f"{where}: {text!r} is not an arithmetic expression")
    bound = {s for sums in expr.atoms(sympy.Sum) for s in sums.variables}
    unknown = {s.name for s in expr.free_symbols - bound} - set(names)
    if unknown:
        raise CatalogueError(f"{where}: undeclared symbol(s) {', '.join(sorted(unknown))}")
    return expr


def parse_formula(formula: Formula, catalogue: dict[str, Formula] | None = None) -> ParsedFormula:
    """Parse and check every expression of an entry; CatalogueError names file, entry, part.

    ``catalogue`` (default: the shipped one) supplies the functions (ErlangC, ...)
    that expressions may call.
    """
    catalogue = load_catalogue() if catalogue is None else catalogue
    functions = {f.function: sympy.Function(f.function) for f in catalogue.values() if f.function}
    where = f"{formula.file}: formula {formula.id!r}"
    symbols = {name: sympy.Symbol(name) for name in formula.symbols}
    names: dict[str, object] = {**functions, **symbols}
    outputs: dict[str, sympy.Expr] = {}
    for output in formula.outputs:
        if not formula.model:  # a model entry's outputs have no expression
            outputs[output.name] = _parse(output.expr, names, f"{where}, output {output.name!r}")
        names[output.name] = sympy.Symbol(output.name)
    for prop in formula.properties:
        if prop.kind == "identity":
            _parse(prop.expr, names, f"{where}, property 'identity'")
    entry = ParsedFormula(formula, symbols, outputs, ())
    # a constraint may name an output: it is checked on the inputs, so outputs are substituted in
    constraints = tuple(
        _expand(entry, _parse(c.expr, names, f"{where}, constraint {c.name!r}"), expand_functions=False)
        for c in formula.constraints
    )
    return ParsedFormula(formula, symbols, outputs, constraints)


@cache
def parsed(formula_id: str) -> ParsedFormula:
    """The parsed entry of the shipped catalogue."""
    return parse_formula(load_catalogue()[formula_id])


@cache
def function_definition(function_name: str) -> sympy.Lambda:
    """An algorithm entry's definition as a Lambda over its symbols, in declared order."""
    for formula in load_catalogue().values():
        if formula.function == function_name:
            entry = parsed(formula.id)
            return sympy.Lambda(tuple(entry.symbols.values()), entry.outputs[formula.outputs[0].name])
    raise KeyError(function_name)
