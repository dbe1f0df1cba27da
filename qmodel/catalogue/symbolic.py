"""The catalogue's expressions as sympy objects: parsing, checking, full definitions.

Expressions are read by the safe parser of :mod:`qmodel.catalogue.expressions`
(never ``sympify`` or ``parse_expr``) and their units checked by
:mod:`qmodel.catalogue.dimensions`. This module imports sympy and is used by
the code generator, ``qmodel formula show``, ``qmodel check`` and the tests;
never by the quick numeric path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import sympy

from qmodel.catalogue.dimensions import check_units
from qmodel.catalogue.expressions import parse_expression
from qmodel.catalogue.loader import Formula, load_catalogue


@dataclass(frozen=True)
class ParsedFormula:
    """A formula's expressions: each output in terms of inputs and earlier outputs."""

    formula: Formula
    symbols: dict[str, sympy.Symbol]
    outputs: dict[str, sympy.Expr]
    constraints: tuple[sympy.Expr, ...]
    identities: tuple[sympy.Expr, ...] = ()  # the ``identity`` properties' expressions, in order
    context: SymbolicCatalogue | None = field(default=None, compare=False, repr=False)

    def definition(self, output: str, expand_functions: bool | str = True) -> sympy.Expr:
        """The output as an expression of the inputs only.

        Earlier outputs are substituted in; with ``expand_functions`` the calls
        to function entries (ErlangC, WritePenalty, ...) are replaced by their
        textbook definitions, which is what the 50-digit cross-check evaluates;
        with ``expand_functions="closed"`` only the calls to closed-form entries
        (LinksBandwidth), not those to algorithm entries.
        """
        return self.expand(self.outputs[output], expand_functions)

    def expand(self, expr: sympy.Expr, expand_functions: bool | str) -> sympy.Expr:
        """``expr`` with earlier outputs substituted in (and function calls expanded, if asked: all, or
        with ``"closed"`` those to entries that are not algorithms)."""
        earlier = {sympy.Symbol(name): value for name, value in self.outputs.items()}
        for _ in range(len(earlier)):
            expanded = expr.xreplace(earlier)
            if expanded == expr:
                break
            expr = expanded
        context = self.context or shipped()

        def expandable(node: sympy.Basic) -> bool:
            return isinstance(node, sympy.core.function.AppliedUndef) and (
                expand_functions is True or not context.by_function[type(node).__name__].algorithm
            )

        calls = sympy.core.function.AppliedUndef
        while expand_functions and any(expandable(call) for call in expr.atoms(calls)):
            # a function's definition may call another (MMCWait calls ErlangC)
            expr = expr.replace(
                expandable, lambda node: context.function_definition(type(node).__name__)(*node.args)
            )
        return expr


class SymbolicCatalogue:
    """A catalogue (the shipped one, or it with a user's entries) whose entries are parsed on demand."""

    def __init__(self, catalogue: dict[str, Formula]) -> None:
        self.catalogue = catalogue
        self.by_function = {f.function: f for f in catalogue.values() if f.function}
        self.functions = {
            name: (sympy.Function(name), len(f.symbols)) for name, f in self.by_function.items()
        }
        self._parsed: dict[str, ParsedFormula] = {}

    def parsed(self, formula_id: str) -> ParsedFormula:
        """The entry's expressions, parsed and unit-checked once."""
        if formula_id not in self._parsed:
            self._parsed[formula_id] = parse_formula(self.catalogue[formula_id], self)
        return self._parsed[formula_id]

    def function_definition(self, function_name: str) -> sympy.Lambda:
        """A function entry's definition as a Lambda over its symbols, in declared order."""
        formula = self.by_function[function_name]
        entry = self.parsed(formula.id)
        return sympy.Lambda(tuple(entry.symbols.values()), entry.outputs[formula.outputs[0].name])


def parse_formula(
    formula: Formula, catalogue: dict[str, Formula] | SymbolicCatalogue | None = None
) -> ParsedFormula:
    """Parse and check every expression of an entry; CatalogueError names file, entry, part.

    ``catalogue`` (default: the shipped one) supplies the functions (ErlangC, ...)
    that expressions may call. Besides the syntax, the units are checked: each
    output's expression must have the dimension of its declared unit.
    """
    if catalogue is None:
        context = shipped()
    elif isinstance(catalogue, SymbolicCatalogue):
        context = catalogue
    else:
        context = SymbolicCatalogue(catalogue)
    where = f"{formula.file}: formula {formula.id!r}"
    symbols = {name: sympy.Symbol(name) for name in formula.symbols}
    names: dict[str, sympy.Basic] = dict(symbols)
    outputs: dict[str, sympy.Expr] = {}
    for output in formula.outputs:
        if not formula.model:  # a model entry's outputs have no expression
            outputs[output.name] = parse_expression(
                output.expr, names, context.functions, f"{where}, output {output.name!r}"
            )
        names[output.name] = sympy.Symbol(output.name)
    identities = tuple(
        parse_expression(prop.expr, names, context.functions, f"{where}, property 'identity'")
        for prop in formula.properties
        if prop.kind == "identity"
    )
    entry = ParsedFormula(formula, symbols, outputs, (), identities, context)
    # a constraint may name an output: it is checked on the inputs, so outputs are substituted in
    raw_constraints = tuple(
        parse_expression(c.expr, names, context.functions, f"{where}, constraint {c.name!r}")
        for c in formula.constraints
    )
    check_units(formula, outputs, raw_constraints, identities, context.by_function)
    constraints = tuple(entry.expand(c, expand_functions=False) for c in raw_constraints)
    return ParsedFormula(formula, symbols, outputs, constraints, identities, context)


@cache
def shipped() -> SymbolicCatalogue:
    """The shipped catalogue, parsed on demand."""
    return SymbolicCatalogue(load_catalogue())


def parsed(formula_id: str) -> ParsedFormula:
    """The parsed entry of the shipped catalogue."""
    return shipped().parsed(formula_id)
