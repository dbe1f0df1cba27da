"""Dimensions of the catalogue's units: time, length and data as exponents, and each unit's SI name.

Every unit of :mod:`qmodel.units` has a named dimension ("time", "data
rate", ...); here each named dimension is a product of base dimensions
(``data rate`` = data · time⁻¹), so that the dimension of an expression can be
computed from its inputs' units (:func:`check_units`: an output declared in
ms whose expression gives a rate is an error) and a result can be given in SI
units. Counts and ratios are dimensionless.

sympy is imported only by the unit check; the quick path uses :func:`si_unit`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from qmodel.errors import CatalogueError
from qmodel.units import UNITS

if TYPE_CHECKING:
    import sympy

    from qmodel.catalogue.loader import Formula

# A dimension: base name → exponent, zero exponents left out; {} is dimensionless.
Dimension = dict[str, Fraction]

BASES = ("time", "length", "data")
_NAMED: dict[str, dict[str, int]] = {
    "count": {},
    "ratio": {},
    "time": {"time": 1},
    "rate": {"time": -1},
    "length": {"length": 1},
    "time per length": {"time": 1, "length": -1},
    "speed": {"length": 1, "time": -1},
    "data size": {"data": 1},
    "data rate": {"data": 1, "time": -1},
}
# the SI unit of each named dimension, as results in SI are labelled
SI_UNITS = {
    "count": "1",
    "ratio": "ratio",
    "time": "s",
    "rate": "1/s",
    "length": "m",
    "time per length": "s/m",
    "speed": "m/s",
    "data size": "B",
    "data rate": "B/s",
}
_BASE_SYMBOLS = {"time": "s", "length": "m", "data": "B"}


def unit_dimension(unit_name: str) -> Dimension:
    """The dimension of a unit of :mod:`qmodel.units` (``"MB/s"`` → data · time⁻¹)."""
    return {base: Fraction(power) for base, power in _NAMED[UNITS[unit_name].dimension].items()}


def si_unit(unit_name: str) -> str:
    """The SI unit of the same dimension as ``unit_name`` (``"ms"`` → ``"s"``, ``"MB/s"`` → ``"B/s"``)."""
    return SI_UNITS[UNITS[unit_name].dimension]


def multiply(first: Dimension, second: Dimension, power: Fraction = Fraction(1)) -> Dimension:
    """first · second^power, dropping bases whose exponent becomes zero."""
    product = dict(first)
    for base, exponent in second.items():
        product[base] = product.get(base, Fraction(0)) + exponent * power
    return {base: exponent for base, exponent in product.items() if exponent != 0}


def describe(dimension: Dimension) -> str:
    """A dimension in words a planner reads: ``"a time (s)"``, ``"a rate (1/s)"``, ``"a plain number"``,
    or the product of base units where it has no name (``"s^2·m^-1"``)."""
    for name, powers in _NAMED.items():
        if name != "ratio" and {b: Fraction(p) for b, p in powers.items()} == dimension:
            return f"a {name} ({SI_UNITS[name]})" if name != "count" else "a plain number"
    parts = [
        _BASE_SYMBOLS[base] + ("" if dimension[base] == 1 else f"^{dimension[base]}")
        for base in BASES
        if dimension.get(base)
    ]
    return "units of " + "·".join(parts)


class _UnitMismatchError(Exception):
    """Units that do not fit together inside an expression."""


# A constant zero fits any dimension (Max(0, write_rate − bandwidth)); None stands for it.
_ANY = None


def _same(dimensions: list[Dimension | None], what: str, expr: sympy.Basic) -> Dimension | None:
    known = [d for d in dimensions if d is not _ANY]
    for other in known[1:]:
        if other != known[0]:
            raise _UnitMismatchError(f"{what} {describe(known[0])} and {describe(other)} in {expr}")
    return known[0] if known else _ANY


def _plain(dimension: Dimension | None, what: str, expr: sympy.Basic) -> None:
    if dimension:
        raise _UnitMismatchError(f"{what} takes a plain number, not {describe(dimension)}, in {expr}")


def expression_dimension(
    expr: sympy.Basic, dimensions: dict[str, Dimension], functions: dict[str, Formula]
) -> Dimension | None:
    """The dimension of ``expr`` from those of its symbols (``dimensions``, by name).

    Sums, Min, Max and the branches of a Piecewise must agree; powers of a
    quantity with units need a constant exponent; exp, log, factorial and lowergamma take
    plain numbers; a call of a function entry must pass each argument in the
    dimension of the symbol it fills and has the dimension of the entry's
    output. Returns None for a constant zero, which fits any dimension.
    Raises _UnitMismatchError with the offending part.
    """
    import sympy

    def walk(node: sympy.Basic) -> Dimension | None:
        if isinstance(node, sympy.Symbol):
            return dimensions.get(node.name, {})  # a Sum's index is a plain number
        if node.is_number:
            return _ANY if node.is_zero else {}
        if isinstance(node, (sympy.logic.boolalg.BooleanAtom)):
            return {}
        if isinstance(node, sympy.Add):
            return _same([walk(term) for term in node.args], "adds", node)
        if isinstance(node, sympy.Mul):
            product: Dimension = {}
            for factor in node.args:
                dimension = walk(factor)
                if dimension is _ANY:
                    return _ANY
                product = multiply(product, dimension)
            return product
        if isinstance(node, sympy.Pow):
            base, exponent = walk(node.base), walk(node.exp)
            _plain(exponent, "an exponent", node)
            if not base:
                return base
            if not node.exp.is_Rational:
                raise _UnitMismatchError(f"a power of {describe(base)} needs a constant exponent, in {node}")
            return multiply({}, base, Fraction(int(node.exp.p), int(node.exp.q)))
        if isinstance(node, sympy.core.function.AppliedUndef):
            callee = functions[type(node).__name__]
            for argument, symbol in zip(node.args, callee.symbols.values(), strict=True):
                given, wanted = walk(argument), unit_dimension(symbol.unit)
                if given is not _ANY and given != wanted:
                    raise _UnitMismatchError(
                        f"{type(node).__name__} takes {symbol.name} as "
                        f"{describe(wanted)}, given {describe(given)} ({argument})"
                    )
            return unit_dimension(callee.outputs[0].unit)
        if isinstance(node, (sympy.exp, sympy.log, sympy.factorial, sympy.lowergamma)):
            for argument in node.args:
                _plain(walk(argument), type(node).__name__, node)
            return {}
        if isinstance(node, (sympy.Abs, sympy.ceiling, sympy.floor)):
            return walk(node.args[0])
        if isinstance(node, (sympy.Min, sympy.Max)):
            return _same([walk(argument) for argument in node.args], f"{type(node).__name__} compares", node)
        if isinstance(node, sympy.Piecewise):
            for _, condition in node.args:
                walk(condition)
            return _same([walk(value) for value, _ in node.args], "Piecewise chooses between", node)
        if isinstance(node, sympy.Sum):
            for limits in node.limits:
                for limit in limits[1:]:
                    _plain(walk(limit), "a Sum limit", node)
            return walk(node.function)
        if isinstance(node, sympy.core.relational.Relational):
            _same([walk(node.lhs), walk(node.rhs)], "compares", node)
            return {}
        if isinstance(node, (sympy.And, sympy.Or, sympy.Not)):
            for argument in node.args:
                walk(argument)
            return {}
        raise _UnitMismatchError(f"no unit rule for {type(node).__name__} in {node}")

    return walk(expr)


def check_units(
    formula: Formula,
    outputs: dict[str, sympy.Expr],
    constraints: tuple[sympy.Expr, ...],
    identities: tuple[sympy.Expr, ...],
    functions: dict[str, Formula],
) -> None:
    """Each output's expression has the dimension of its declared unit; so has each constraint's
    quantity and each identity property's expression (that of its output).

    A CatalogueError names the file, the entry and the output: "output
    'response_time': declared in ms (a time (s)) but its expression gives a rate (1/s)".
    """
    where = f"{formula.file}: formula {formula.id!r}"
    dimensions = {name: unit_dimension(s.unit) for name, s in formula.symbols.items()}
    dimensions |= {o.name: unit_dimension(o.unit) for o in formula.outputs}
    checks = [(f"output {o.name!r}", outputs[o.name], o.unit) for o in formula.outputs if o.name in outputs]
    checks += [
        (f"constraint {c.name!r}", expr, c.unit)
        for c, expr in zip(formula.constraints, constraints, strict=True)
    ]
    identity_outputs = [p.output for p in formula.properties if p.kind == "identity"]
    checks += [
        (f"property 'identity' of {output!r}", expr, formula.output(output).unit)
        for output, expr in zip(identity_outputs, identities, strict=True)
    ]
    for part, expr, unit in checks:
        try:
            given = expression_dimension(expr, dimensions, functions)
        except _UnitMismatchError as mismatch:
            raise CatalogueError(f"{where}, {part}: units do not fit: {mismatch}") from None
        declared = unit_dimension(unit)
        if given is not _ANY and given != declared:
            raise CatalogueError(
                f"{where}, {part}: declared in {unit} ({describe(declared)}) "
                f"but its expression gives {describe(given)}"
            )
