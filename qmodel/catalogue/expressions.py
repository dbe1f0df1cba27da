"""Catalogue expressions read without running them: text to sympy through a whitelist of syntax.

A catalogue file is data, and a user's catalogue file is untrusted. Its
expressions are split into a syntax tree by Python's parser (``ast.parse``
builds the tree and runs nothing), and the tree is walked here: only these
nodes are accepted, each turned into its sympy counterpart by this module
itself:

- numbers (whole or decimal; no strings, no complex numbers),
- names: the entry's symbols, its earlier outputs, the index of a ``Sum``,
  the constant ``pi``,
- ``+ - * / **``, unary minus and plus, comparisons ``< <= > >= == !=``,
- calls, with positional arguments only, of the mathematical functions in
  :data:`MATH_FUNCTIONS` and of the catalogue's function entries (``ErlangC``,
  ``WritePenalty``, ...), each with its number of arguments,
- tuples only as the ``(value, condition)`` pairs of ``Piecewise`` and the
  ``(index, first, last)`` limits of ``Sum``.

Anything else (attribute access, subscripts, lambdas, keyword arguments,
strings, comprehensions, ``__import__``) is refused with a one-line
CatalogueError naming the entry, the expression and the offending part. So are
texts longer than :data:`MAX_LENGTH`, nesting deeper than :data:`MAX_DEPTH`,
and constants too large to compute (a constant exponent beyond
:data:`MAX_EXPONENT`, a constant power beyond 1e300, a factorial of a constant
beyond 170, a sum of constant limits over more than :data:`MAX_TERMS` terms).
No text reaches ``eval``, ``sympify`` or ``parse_expr``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping

import sympy

from qmodel.catalogue.loader import MATH_FUNCTION_ARITIES, MAX_EXPRESSION_LENGTH, is_name
from qmodel.errors import CatalogueError

MAX_LENGTH = MAX_EXPRESSION_LENGTH
MAX_DEPTH = 100
MAX_EXPONENT = 1000
MAX_TERMS = 100_000
_LARGEST_CONSTANT_LOG10 = 300

# name → (sympy callable, fewest arguments, most arguments or None for any number)
MATH_FUNCTIONS: dict[str, tuple[Callable[..., sympy.Basic], int, int | None]] = {
    name: (getattr(sympy, name), fewest, most) for name, (fewest, most) in MATH_FUNCTION_ARITIES.items()
}
CONSTANTS = {"pi": sympy.pi}

_OPERATORS: dict[type, Callable[[sympy.Basic, sympy.Basic], sympy.Basic]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}
_COMPARISONS: dict[type, Callable[[sympy.Basic, sympy.Basic], sympy.Basic]] = {
    ast.Lt: sympy.Lt,
    ast.LtE: sympy.Le,
    ast.Gt: sympy.Gt,
    ast.GtE: sympy.Ge,
    ast.Eq: sympy.Eq,
    ast.NotEq: sympy.Ne,
}
_NODE_NAMES = {
    ast.Attribute: "attribute access",
    ast.Subscript: "a subscript",
    ast.Lambda: "a lambda",
    ast.Starred: "a starred argument",
    ast.ListComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.IfExp: "an if-expression",
    ast.BoolOp: "'and'/'or' (write And(...)/Or(...))",
    ast.List: "a list",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.JoinedStr: "a string",
    ast.NamedExpr: "an assignment",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.Slice: "a slice",
}


class _RefusedError(Exception):
    """An expression part that is not allowed; carries the reason and the node."""

    def __init__(self, reason: str, node: ast.AST | None = None) -> None:
        super().__init__(reason)
        self.node = node


class _Builder:
    """Walks one syntax tree and builds its sympy expression."""

    def __init__(
        self,
        text: str,
        names: Mapping[str, sympy.Basic],
        functions: Mapping[str, tuple[sympy.FunctionClass, int]],
        enclosing: float = 1,
    ) -> None:
        self.text = text
        self.names = dict(names)
        self.functions = functions
        self.undeclared: list[str] = []
        self.enclosing = enclosing  # the terms of the constant-limit Sums this expression is inside

    def build(self, node: ast.AST, depth: int = 0) -> sympy.Basic:
        if depth > MAX_DEPTH:
            raise _RefusedError(f"nesting deeper than {MAX_DEPTH} levels is not allowed", node)
        depth += 1
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            left, right = self.build(node.left, depth), self.build(node.right, depth)
            if isinstance(node.op, ast.Pow):
                return _power(left, right, node)
            if type(node.op) not in _OPERATORS:
                raise _RefusedError("only the operators + - * / ** are allowed", node)
            return _OPERATORS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand, depth)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            raise _RefusedError("only the unary operators - and + are allowed", node)
        if isinstance(node, ast.Compare):
            terms = [self.build(node.left, depth), *(self.build(c, depth) for c in node.comparators)]
            pairs = zip(node.ops, terms[:-1], terms[1:], strict=True)
            tests = [_COMPARISONS[type(op)](a, b) for op, a, b in pairs if type(op) in _COMPARISONS]
            if len(tests) != len(node.ops):
                raise _RefusedError("only the comparisons < <= > >= == != are allowed", node)
            return tests[0] if len(tests) == 1 else sympy.And(*tests)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, ast.Tuple):
            raise _RefusedError("a tuple outside Piecewise and Sum is not allowed", node)
        what = _NODE_NAMES.get(type(node), f"a {type(node).__name__} node")
        raise _RefusedError(f"{what} is not allowed", node)

    def constant(self, node: ast.Constant) -> sympy.Basic:
        value = node.value
        if isinstance(value, bool):
            return sympy.true if value else sympy.false
        if isinstance(value, int):
            if abs(value) > 10**15:
                raise _RefusedError("a whole number beyond 1e15 is not allowed (write it as a decimal)", node)
            return sympy.Integer(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _RefusedError("a number that is not finite is not allowed", node)
            return sympy.Float(repr(value))
        what = "a string" if isinstance(value, (str, bytes)) else f"the constant {value!r}"
        raise _RefusedError(f"{what} is not allowed", node)

    def name(self, node: ast.Name) -> sympy.Basic:
        if node.id in self.names:
            return self.names[node.id]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in MATH_FUNCTIONS or node.id in self.functions:
            raise _RefusedError(f"the function {node.id} is only called, not used as a value", node)
        self.undeclared.append(node.id)
        return sympy.Symbol(node.id)

    def call(self, node: ast.Call, depth: int) -> sympy.Basic:
        if not isinstance(node.func, ast.Name):
            self.build(node.func, depth)  # names what is refused: attribute access, a lambda, ...
            raise _RefusedError("only named functions may be called", node)
        name = node.func.id
        if node.keywords:
            raise _RefusedError(f"keyword arguments (to {name}) are not allowed", node)
        most: int | None
        if name in self.functions:
            function, arity = self.functions[name]
            fewest, most = arity, arity
        elif name in MATH_FUNCTIONS:
            function, fewest, most = MATH_FUNCTIONS[name]
        else:
            raise _RefusedError(
                f"unknown function {name!r} (allowed: {', '.join(MATH_FUNCTIONS)} "
                f"and the catalogue's {', '.join(sorted(self.functions))})",
                node,
            )
        count = len(node.args)
        if count < fewest or (most is not None and count > most):
            wanted = (
                str(fewest)
                if most == fewest
                else f"{fewest} or more"
                if most is None
                else f"{fewest} to {most}"
            )
            raise _RefusedError(f"{name} takes {wanted} argument(s), given {count}", node)
        if name == "Sum":
            return self.sum(node, depth)
        if name == "Piecewise":
            return sympy.Piecewise(*(self.pair(argument, depth) for argument in node.args))
        arguments = [self.build(argument, depth) for argument in node.args]
        if (
            name == "factorial"
            and arguments[0].is_number
            and not (arguments[0].is_integer and 0 <= arguments[0] <= 170)
        ):
            raise _RefusedError("a factorial of a constant must be of a whole number from 0 to 170", node)
        return function(*arguments)

    def pair(self, node: ast.AST, depth: int) -> tuple[sympy.Basic, sympy.Basic]:
        if not (isinstance(node, ast.Tuple) and len(node.elts) == 2):
            raise _RefusedError("a Piecewise argument must be a (value, condition) pair", node)
        return self.build(node.elts[0], depth), self.build(node.elts[1], depth)

    def sum(self, node: ast.Call, depth: int) -> sympy.Basic:
        limits = node.args[1]
        if not (
            isinstance(limits, ast.Tuple) and len(limits.elts) == 3 and isinstance(limits.elts[0], ast.Name)
        ):
            raise _RefusedError("Sum limits must be (index, first, last)", limits)
        index = limits.elts[0].id
        if not is_name(index):
            raise _RefusedError(
                f"the Sum index {index!r} is not a name: lower-case letters and digits, "
                "words joined by single underscores, starting with a letter",
                limits,
            )
        if index in self.names or index in CONSTANTS or index in self.functions or index in MATH_FUNCTIONS:
            raise _RefusedError(f"the Sum index {index!r} is already a name", limits)
        first, last = self.build(limits.elts[1], depth), self.build(limits.elts[2], depth)
        span = float(last - first) if first.is_number and last.is_number else 0.0
        terms = span + 1
        if span > MAX_TERMS:
            raise _RefusedError(f"a Sum of more than {MAX_TERMS} terms is not allowed", limits)
        if self.enclosing > 1 and self.enclosing * terms > MAX_TERMS:  # summed again for each outer term
            raise _RefusedError(
                f"Sums inside Sums of more than {MAX_TERMS} terms together "
                f"({self.enclosing * terms:.3g}) are not allowed",
                limits,
            )
        variable = sympy.Symbol(index, integer=True)
        inner = _Builder(self.text, {**self.names, index: variable}, self.functions, self.enclosing * terms)
        body = inner.build(node.args[0], depth)
        self.undeclared += inner.undeclared
        return sympy.Sum(body, (variable, first, last))


def _power(base: sympy.Basic, exponent: sympy.Basic, node: ast.AST) -> sympy.Basic:
    """base ** exponent, refusing constants too large to compute before sympy computes them."""
    if exponent.is_number:
        size = abs(float(exponent))
        if size > MAX_EXPONENT:
            raise _RefusedError(f"a constant exponent beyond {MAX_EXPONENT} is not allowed", node)
        if base.is_number:
            magnitude = abs(complex(base))
            if magnitude > 0 and size * abs(math.log10(magnitude)) > _LARGEST_CONSTANT_LOG10:
                raise _RefusedError("a constant power beyond 1e300 is not allowed", node)
    return base**exponent


def _segment(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text, node) or type(node).__name__


def parse_expression(
    text: object,
    names: Mapping[str, sympy.Basic],
    functions: Mapping[str, tuple[sympy.FunctionClass, int]],
    where: str,
) -> sympy.Expr:
    """The sympy expression of ``text``; a CatalogueError naming ``where`` and the text otherwise.

    ``names`` are the symbols (and earlier outputs) it may use, ``functions``
    the catalogue's function entries it may call with their numbers of
    arguments. The result must be arithmetic (a sympy Expr), not a comparison.
    """
    if not isinstance(text, str) or not text.strip():
        raise CatalogueError(f"{where}: an expression must be non-empty text, not {text!r}")
    shown = text if len(text) <= 120 else text[:117] + "..."
    if len(text) > MAX_LENGTH:
        raise CatalogueError(f"{where}: cannot parse {shown!r}: longer than {MAX_LENGTH} characters")
    if "\n" in text or "\r" in text:
        raise CatalogueError(f"{where}: cannot parse {shown!r}: an expression is one line")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        reason = getattr(error, "msg", None) or type(error).__name__
        raise CatalogueError(f"{where}: cannot parse {shown!r}: {reason}") from None
    builder = _Builder(text.strip(), names, functions)
    try:
        expr = builder.build(tree.body)
    except _RefusedError as refused:
        part = "" if refused.node is None else f" (at {_segment(text.strip(), refused.node)[:60]!r})"
        raise CatalogueError(f"{where}: cannot parse {shown!r}: {refused}{part}") from None
    except (TypeError, ValueError, ArithmeticError) as error:  # sympy refusing the construct
        raise CatalogueError(f"{where}: cannot parse {shown!r}: {error}") from None
    if builder.undeclared:
        raise CatalogueError(f"{where}: undeclared symbol(s) {', '.join(sorted(set(builder.undeclared)))}")
    if not isinstance(expr, sympy.Expr):
        raise CatalogueError(f"{where}: {text!r} is not an arithmetic expression")
    return expr
