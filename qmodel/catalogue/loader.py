"""The formula catalogue: loading and checking ``formulas/*.toml`` without sympy.

Each file holds ``[[formula]]`` entries. An entry has an id, a title, a source,
declared input symbols (meaning, unit, domain, optional default), one or more
outputs (a sympy expression each; an output may use earlier outputs), optional
stability constraints and the properties the formula must satisfy.

An entry with a ``function`` name and one output can be called by other
entries' expressions (``RoundTripTime(distance, fibre_speed)``, arguments in
the order its symbols are declared). With ``algorithm = "name"`` as well, it is
computed by that algorithm of :mod:`qmodel.catalogue.registry` (a stable recursion), and
its expression is the textbook definition against which the algorithm is
cross-checked at 50 digits.

An entry with ``model = "name"`` is computed by that model function of
:mod:`qmodel.catalogue.registry`, for what has no closed form (an inverse solve, a
search). Its outputs carry no expression; it gets property tests but no
50-digit cross-check, so its module has tests of its own. Names outside the
registry are refused: a catalogue file names no other code.

Facts several entries share have one home: a top-level ``[symbols.NAME]``
table (meaning, unit, domain, default) or ``[constraints.NAME]`` table (a
constraint) in any catalogue file, the shipped ones in ``formulas/symbols.toml``.
An entry references one with ``shared = "NAME"`` in place of the symbol's keys
(``[formula.symbols.servers]`` / ``shared = "servers"``), and may override its
meaning, domain or default there; a constraint is referenced as
``{ shared = "NAME" }`` in the entry's ``constraints`` list. The loader resolves
every reference before anything else reads the entry, so the generated code
and the quick path see each entry whole.

This module checks structure (keys, units, domains, duplicate ids, references).
The expressions themselves are parsed and checked by :mod:`qmodel.catalogue.symbolic`,
which needs sympy and so is kept off the quick path.
"""

from __future__ import annotations

import ast
import keyword
import re
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from qmodel.domains import Domain
from qmodel.errors import CatalogueError, InputError
from qmodel.units import UNITS, parse_value

MAX_EXPRESSION_LENGTH = 2000  # characters of one expression; a longer one is refused unread
PROPERTY_KINDS = ("increasing", "decreasing", "bounded", "equals", "identity")
# Ids, symbol and output names become Python names in the generated code: lower-case words joined by
# single underscores; function names are CamelCase. The generated module's own names start with an
# underscore (codegen.PREFIX), which these cannot. Reserved: the constant pi and the keyword
# arguments of calc().
_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*\Z")
_FUNCTION_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")
RESERVED_NAMES = frozenset({"pi", "units", "formula_id"})
# The mathematical functions an expression may call (the sympy functions of these names), with their
# fewest and most arguments (None: any number); a catalogue function entry may not take one's name.
MATH_FUNCTION_ARITIES: dict[str, tuple[int, int | None]] = {
    "sqrt": (1, 1),
    "exp": (1, 1),
    "log": (1, 2),
    "Abs": (1, 1),
    "ceiling": (1, 1),
    "floor": (1, 1),
    "factorial": (1, 1),
    "Min": (2, None),
    "Max": (2, None),
    "Eq": (2, 2),
    "Ne": (2, 2),
    "And": (2, None),
    "Or": (2, None),
    "Piecewise": (1, None),
    "Sum": (2, 2),
    "lowergamma": (2, 2),
}
BOUND_KINDS = {"below": "<", "at_most": "<=", "above": ">", "at_least": ">="}
CONSTRAINT_KINDS = ("refuse", "warn")


class Symbol(NamedTuple):
    """An input of a formula: meaning, display unit, allowed domain, optional default."""

    name: str
    meaning: str
    unit: str
    domain: Domain
    default: float | None = None

    def declared_default(self) -> float:
        """The default, in the display unit, for a caller that rests on one (the catalogue is the home of
        such a fact: cf_round_trips, fibre_speed); a CatalogueError where the symbol declares none."""
        if self.default is None:
            raise CatalogueError(f"symbol {self.name!r} declares no default, and one is relied on")
        return self.default


class Output(NamedTuple):
    """A result of a formula: its expression (sympy syntax), unit and meaning."""

    name: str
    expr: str
    unit: str
    meaning: str


class Constraint(NamedTuple):
    """A condition on the inputs, e.g. utilization = λ·S below 1 (stability).

    A ``refuse`` constraint (the default) turns inputs that break it away: the
    formula means nothing there (an unstable queue). A ``warn`` constraint
    lets them through with a warning: the answer still helps (the links an
    undersized configuration needs) but the state it describes does not last
    (the backlog grows).
    """

    name: str
    expr: str
    relation: str  # one of "<", "<=", ">", ">="
    bound: float  # in the constraint's unit
    reason: str
    unit: str = "1"  # the unit the quantity is shown and bounded in
    kind: str = "refuse"  # or "warn"


class Property(NamedTuple):
    """A property the formula must satisfy, checked by the generated property tests."""

    kind: str
    output: str
    symbol: str
    lower: float | None
    upper: float | None
    other: str
    substitute: dict[str, float | str]
    expr: str

    def text(self) -> str:
        """The property in words: ``response_time is increasing in arrival_rate``, ``0 <= utilization``."""
        if self.kind in ("increasing", "decreasing"):
            return f"{self.output} is {self.kind} in {self.symbol}"
        if self.kind == "bounded":
            low = "" if self.lower is None else f"{self.lower:g} <= "
            high = "" if self.upper is None else f" <= {self.upper:g}"
            return f"{low}{self.output}{high}"
        if self.kind == "equals":
            where = ", ".join(f"{k} = {v}" for k, v in self.substitute.items())
            return f"{self.output} equals {self.other} when {where}"
        return f"{self.output} = {self.expr}"


class Formula(NamedTuple):
    """One catalogue entry."""

    id: str
    title: str
    source: str
    file: str
    symbols: dict[str, Symbol]
    outputs: tuple[Output, ...]
    constraints: tuple[Constraint, ...]
    properties: tuple[Property, ...]
    function: str = ""
    algorithm: str = ""
    model: str = ""
    notes: str = ""
    builtin: bool = True  # False for an entry of a user's catalogue file

    def output(self, name: str) -> Output:
        for candidate in self.outputs:
            if candidate.name == name:
                return candidate
        raise KeyError(name)


def _where(file: str, entry: str) -> str:
    return f"{file}: formula {entry!r}" if entry else file


def _require(table: dict[str, Any], key: str, where: str, kind: type = str) -> Any:
    if key not in table:
        raise CatalogueError(f"{where}: missing {key!r}")
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        raise CatalogueError(f"{where}: {key!r} must be a non-empty {kind.__name__}")
    return value


def _unit(table: dict[str, Any], where: str) -> str:
    name = _require(table, "unit", where)
    if name not in UNITS:
        raise CatalogueError(f"{where}: unknown unit {name!r}; known: {', '.join(sorted(UNITS))}")
    return name


def is_name(value: object) -> TypeGuard[str]:
    """Whether ``value`` may name an entry, symbol, output or Sum index: lower-case words joined by
    single underscores, not a Python keyword (reserved names aside)."""
    return isinstance(value, str) and bool(_NAME.match(value)) and not keyword.iskeyword(value)


def _name(value: object, kind: str, where: str) -> str:
    """``value`` if it may name an entry, symbol or output; a CatalogueError saying why not otherwise."""
    if not is_name(value):
        raise CatalogueError(
            f"{where}: {kind} {value!r} is not a name: lower-case letters and digits, "
            "words joined by single underscores, starting with a letter"
        )
    if value in RESERVED_NAMES:
        raise CatalogueError(
            f"{where}: {kind} {value!r} is reserved ({', '.join(sorted(RESERVED_NAMES))} are)"
        )
    return value


def _symbol(name: str, table: dict[str, Any], where: str) -> Symbol:
    _name(name, "symbol", where)
    where = f"{where}, symbol {name!r}"
    if not isinstance(table, dict):
        raise CatalogueError(f'{where}: must be a table (meaning, unit, domain) or shared = "NAME"')
    try:
        domain = Domain.parse(_require(table, "domain", where))
    except ValueError as error:
        raise CatalogueError(f"{where}: {error}") from None
    unit, default = _unit(table, where), table.get("default")
    if isinstance(default, str):  # "0.4ms", "95%": the one parser of values with units
        try:
            default = parse_value(name, default, unit)
        except InputError as error:
            raise CatalogueError(f"{where}: default {error}") from None
    if default is not None and not (isinstance(default, (int, float)) and domain.contains(default)):
        raise CatalogueError(f"{where}: default {default!r} is outside its domain")
    return Symbol(name, _require(table, "meaning", where), unit, domain, default)


def _output(table: dict[str, Any], where: str, computed_by_model: bool) -> Output:
    if not isinstance(table, dict):
        raise CatalogueError(f"{where}: each [[formula.outputs]] must be a table")
    name = _name(_require(table, "name", where), "output", where)
    where = f"{where}, output {name!r}"
    if computed_by_model:
        if "expr" in table:
            raise CatalogueError(f"{where}: a model entry's outputs have no 'expr'")
        expr = ""
    else:
        expr = _require(table, "expr", where)
    return Output(name, expr, _unit(table, where), _require(table, "meaning", where))


def _constraint(table: dict[str, Any], where: str) -> Constraint:
    name = _require(table, "name", where)
    where = f"{where}, constraint {name!r}"
    bounds = [key for key in BOUND_KINDS if key in table]
    if len(bounds) != 1:
        raise CatalogueError(f"{where}: give exactly one of {', '.join(BOUND_KINDS)}")
    unit = _unit(table, where) if "unit" in table else "1"
    kind = table.get("kind", "refuse")
    if kind not in CONSTRAINT_KINDS:
        raise CatalogueError(f"{where}: kind {kind!r} is not one of {', '.join(CONSTRAINT_KINDS)}")
    return Constraint(
        name,
        _require(table, "expr", where),
        BOUND_KINDS[bounds[0]],
        _number(table[bounds[0]], bounds[0], where),
        _require(table, "reason", where),
        unit,
        kind,
    )


def _number(value: object, key: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CatalogueError(f"{where}: {key!r} must be a number, not {value!r}")
    return float(value)


def _property(table: dict[str, Any], where: str, formula: dict[str, Any]) -> Property:
    kind = _require(table, "kind", where)
    if kind not in PROPERTY_KINDS:
        raise CatalogueError(f"{where}: property kind {kind!r} is not one of {PROPERTY_KINDS}")
    where = f"{where}, property {kind!r}"
    prop = Property(
        kind=kind,
        output=_require(table, "output", where),
        symbol=table.get("symbol", ""),
        lower=None if table.get("lower") is None else _number(table["lower"], "lower", where),
        upper=None if table.get("upper") is None else _number(table["upper"], "upper", where),
        other=table.get("other", ""),
        substitute=dict(table.get("substitute", {})),
        expr=table.get("expr", ""),
    )
    needs = {"increasing": "symbol", "decreasing": "symbol", "equals": "other", "identity": "expr"}
    if kind in needs and not getattr(prop, needs[kind]):
        raise CatalogueError(f"{where}: needs {needs[kind]!r}")
    if kind == "bounded" and prop.lower is None and prop.upper is None:
        raise CatalogueError(f"{where}: needs 'lower' or 'upper'")
    if prop.symbol and prop.symbol not in formula.get("symbols", {}):
        raise CatalogueError(f"{where}: symbol {prop.symbol!r} is not declared")
    return prop


def _registered(name: object, kind: str, where: str) -> None:
    from qmodel.catalogue.registry import model_function

    try:
        model_function(str(name), kind)
    except InputError as error:
        raise CatalogueError(f"{where}: {error}") from None


def parse_entry(entry: dict[str, Any], file: str, builtin: bool = True) -> Formula:
    """Check one ``[[formula]]`` table and build its Formula (``builtin``: from formulas/, not a user's)."""
    if not isinstance(entry, dict):
        raise CatalogueError(f"{file}: each [[formula]] must be a table")
    entry_id = _name(_require(entry, "id", _where(file, "")), "id", _where(file, ""))
    where = _where(file, entry_id)
    symbols_table = _require(entry, "symbols", where, dict)
    symbols = {name: _symbol(name, table, where) for name, table in symbols_table.items()}
    model = entry.get("model", "")
    algorithm = entry.get("algorithm", "")
    for kind, name in (("model", model), ("algorithm", algorithm)):
        if name:
            _registered(name, kind, where)
    outputs = tuple(_output(table, where, bool(model)) for table in _require(entry, "outputs", where, list))
    names = [output.name for output in outputs]
    clashes = set(names) & set(symbols) | {n for n in names if names.count(n) > 1}
    if clashes:
        raise CatalogueError(f"{where}: output names repeated or also symbols: {sorted(clashes)}")
    properties = tuple(_property(table, where, entry) for table in entry.get("properties", []))
    for prop in properties:
        if prop.output not in names:
            raise CatalogueError(f"{where}: property refers to unknown output {prop.output!r}")
    function = entry.get("function", "")
    if function and not (isinstance(function, str) and _FUNCTION_NAME.match(function)):
        raise CatalogueError(f"{where}: function {function!r} is not a name: CamelCase letters and digits")
    if function in MATH_FUNCTION_ARITIES:
        raise CatalogueError(
            f"{where}: function {function!r} is a built-in mathematical function's name; choose another"
        )
    if algorithm and not function:
        raise CatalogueError(f"{where}: an 'algorithm' entry needs the 'function' name it is called by")
    if function and len(outputs) != 1:
        raise CatalogueError(f"{where}: a 'function' entry has exactly one output")
    if algorithm and model:
        raise CatalogueError(f"{where}: an entry has an 'algorithm' or a 'model', not both")
    return Formula(
        id=entry_id,
        title=_require(entry, "title", where),
        source=_require(entry, "source", where),
        file=file,
        symbols=symbols,
        outputs=outputs,
        constraints=tuple(_constraint(t, where) for t in entry.get("constraints", [])),
        properties=properties,
        function=function,
        algorithm=algorithm,
        model=model,
        notes=entry.get("notes", ""),
        builtin=builtin,
    )


def _called_functions(formula: Formula) -> set[str]:
    """The names of the functions the entry's outputs call (read by Python's parser, which runs
    nothing; an expression it cannot read is left to the safe parser to refuse)."""
    called = set()
    for output in formula.outputs:
        if not output.expr or len(output.expr) > MAX_EXPRESSION_LENGTH:
            continue
        try:
            tree = ast.parse(output.expr.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        called |= {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
    return called


def refuse_call_cycles(formulas: dict[str, Formula]) -> None:
    """A CatalogueError naming the first cycle of function entries calling each other (or one calling
    itself), which no evaluation could finish: ``formula 'a' calls 'b' calls 'a'``."""
    by_function = {f.function: f for f in formulas.values() if f.function}
    calls = {
        f.id: [by_function[name].id for name in sorted(_called_functions(f)) if name in by_function]
        for f in by_function.values()
    }
    finished: set[str] = set()
    for start in calls:
        if start in finished:
            continue
        on_path, pending = [start], [iter(calls[start])]  # depth first, without recursion
        while pending:
            node = next(pending[-1], None)
            if node is None:
                finished.add(on_path.pop())
                pending.pop()
            elif node in on_path:
                cycle = [*on_path[on_path.index(node) :], node]
                raise CatalogueError(
                    f"{_where(formulas[node].file, node)}: calls itself: "
                    f"{' calls '.join(repr(i) for i in cycle)} "
                    "(an entry may not call itself, directly or through others)"
                )
            elif node not in finished:
                on_path.append(node)
                pending.append(iter(calls[node]))


# the keys of a shared symbol an entry may override; its unit is the fact it shares
_OVERRIDABLE = ("meaning", "domain", "default")
_SHARED_KINDS = ("symbols", "constraints")


class SharedTables(NamedTuple):
    """The shared symbol and constraint tables, by name, with the file each comes from."""

    symbols: dict[str, tuple[str, dict[str, Any]]]
    constraints: dict[str, tuple[str, dict[str, Any]]]


def shared_tables(
    documents: list[tuple[str, dict[str, Any]]], known: SharedTables | None = None
) -> SharedTables:
    """The top-level ``[symbols]`` and ``[constraints]`` tables of parsed files; a name defined twice
    (in these files or in ``known``) is a CatalogueError naming both files."""
    shared = (
        SharedTables({}, {}) if known is None else SharedTables(dict(known.symbols), dict(known.constraints))
    )
    for file, document in documents:
        for kind in _SHARED_KINDS:
            tables = document.get(kind, {})
            if not isinstance(tables, dict):
                raise CatalogueError(f"{file}: [{kind}] must be a table of named tables")
            home = getattr(shared, kind)
            for name, table in tables.items():
                if not isinstance(table, dict):
                    raise CatalogueError(f"{file}: {kind}.{name} must be a table")
                if name in home:
                    raise CatalogueError(
                        f"{file}: shared {kind[:-1]} {name!r} defined twice (also in {home[name][0]})"
                    )
                home[name] = (file, table)
    return shared


def _shared(
    home: dict[str, tuple[str, dict[str, Any]]], name: object, what: str, where: str
) -> dict[str, Any]:
    if not isinstance(name, str) or name not in home:
        known = ", ".join(sorted(home)) or "none"
        raise CatalogueError(f"{where}: unknown shared {what} {name!r}; shared {what}s: {known}")
    return home[name][1]


def resolve_entry(entry: dict[str, Any], file: str, shared: SharedTables) -> dict[str, Any]:
    """The entry with every ``shared = "NAME"`` reference replaced by the shared table, overrides applied.

    Errors name the file, the entry and the symbol or constraint.
    """
    where = _where(file, str(entry.get("id", "")))
    resolved = dict(entry)
    symbols = entry.get("symbols")
    if isinstance(symbols, dict):
        resolved["symbols"] = {}
        for name, table in symbols.items():
            if isinstance(table, dict) and "shared" in table:
                at = f"{where}, symbol {name!r}"
                extra = sorted(set(table) - {"shared", *_OVERRIDABLE})
                if extra:
                    raise CatalogueError(
                        f"{at}: a shared symbol may override only "
                        f"{', '.join(_OVERRIDABLE)}, not {', '.join(extra)}"
                    )
                table = {
                    **_shared(shared.symbols, table["shared"], "symbol", at),
                    **{key: value for key, value in table.items() if key != "shared"},
                }
            resolved["symbols"][name] = table
    constraints = entry.get("constraints")
    if isinstance(constraints, list):
        resolved["constraints"] = [
            {
                **_shared(
                    shared.constraints, table["shared"], "constraint", f"{where}, constraint {index + 1}"
                ),
                **{key: value for key, value in table.items() if key != "shared"},
            }
            if isinstance(table, dict) and "shared" in table
            else table
            for index, table in enumerate(constraints)
        ]
    return resolved


def read_documents(files: list[tuple[str, str]]) -> list[tuple[str, dict[str, Any]]]:
    """Each (file name, TOML text) parsed; a TOML syntax error names the file."""
    from qmodel.tomlread import format_checked, read_toml

    return [(file, format_checked(read_toml(Path(file), text), Path(file).name)) for file, text in files]


def raw_entries(
    files: list[tuple[str, str]], known: SharedTables | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The ``[[formula]]`` tables of (file name, TOML text) pairs, shared references resolved.

    A file may hold entries, shared tables or both; ``known`` are shared tables
    defined elsewhere (the shipped ones, for a user's file).
    """
    documents = read_documents(files)
    shared = shared_tables(documents, known)
    entries = []
    for file, document in documents:
        tables = document.get("formula")
        if tables is None and any(kind in document for kind in _SHARED_KINDS):
            continue  # a file of shared tables only
        if not isinstance(tables, list) or not tables:
            raise CatalogueError(f"{file}: no [[formula]] entries")
        entries += [
            (file, resolve_entry(table, file, shared) if isinstance(table, dict) else table)
            for table in tables
        ]
    return entries


def load_files(files: list[tuple[str, str]]) -> dict[str, Formula]:
    """Build the catalogue from (file name, TOML text) pairs, checking ids are unique."""
    catalogue: dict[str, Formula] = {}
    for file, entry in raw_entries(files):
        formula = parse_entry(entry, file)
        if formula.id in catalogue:
            first = catalogue[formula.id].file
            raise CatalogueError(f"{file}: formula {formula.id!r}: duplicate id (also in {first})")
        catalogue[formula.id] = formula
    refuse_call_cycles(catalogue)
    for formula in catalogue.values():
        for prop in formula.properties:
            other = prop.other.split(".")[0]
            if prop.kind == "equals" and other not in catalogue:
                raise CatalogueError(
                    f"{_where(formula.file, formula.id)}: property refers to unknown entry {other!r}"
                )
    return catalogue


def catalogue_files() -> list[tuple[str, str]]:
    """The shipped ``formulas/*.toml`` files as (name, text), in name order."""
    from importlib import resources

    folder = resources.files("qmodel.formulas")
    paths = sorted((p for p in folder.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)
    return [(path.name, path.read_text(encoding="utf-8")) for path in paths]


@cache
def load_catalogue() -> dict[str, Formula]:
    """The shipped catalogue, loaded from ``formulas/*.toml`` and checked, once per process.

    Also checks that the generated module was made from these files, so a
    catalogue edited without ``python -m qmodel.catalogue.codegen`` is reported, not used.
    """
    from qmodel.catalogue import _compiled

    files = catalogue_files()
    catalogue = load_files(files)
    if {e["id"]: (f, e) for f, e in raw_entries(files)} != _compiled.ENTRIES:
        raise CatalogueError(
            "formulas/*.toml changed since qmodel/catalogue/_compiled.py was generated; "
            "run `python -m qmodel.catalogue.codegen`"
        )
    return catalogue


# The entries of the user catalogue files in use (qmodel.catalogue.user), by id; they override
# shipped entries of the same id that they declare to override.
_USER_ENTRIES: dict[str, Formula] = {}


def use_user_entries(formulas: dict[str, Formula]) -> None:
    """Make user entries (already checked by qmodel.catalogue.user) answer to their ids."""
    _USER_ENTRIES.update(formulas)


def forget_user_entries() -> None:
    """Stop using every user entry: ids answer with the shipped entries again."""
    _USER_ENTRIES.clear()


def user_entries() -> dict[str, Formula]:
    """The user entries in use, by id."""
    return dict(_USER_ENTRIES)


def get_formula(formula_id: str) -> Formula:
    """One catalogue entry by id: a user entry in use, else the shipped entry from the generated copy
    of the catalogue (no TOML parsing).

    An unknown id is an InputError listing the known ids.
    """
    if formula_id in _USER_ENTRIES:
        return _USER_ENTRIES[formula_id]
    return _shipped_formula(formula_id)


@cache
def _shipped_formula(formula_id: str) -> Formula:
    from qmodel.catalogue._compiled import ENTRIES

    if formula_id not in ENTRIES:
        import difflib  # here, not at the top: only an unknown id needs it, the quick path never

        known = sorted({*ENTRIES, *_USER_ENTRIES})
        near = difflib.get_close_matches(formula_id, known, n=3, cutoff=0.6)
        allowed = (
            f"an id such as {', '.join(near)}" if near else "an id of the catalogue"
        ) + f" ({len(known)} in all: qmodel formula list)"
        raise InputError("formula", formula_id, allowed, reason="unknown formula id")
    file, entry = ENTRIES[formula_id]
    return parse_entry(entry, file)
