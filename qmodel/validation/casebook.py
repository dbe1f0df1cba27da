"""Casebooks: the studies' printed numbers as validation cases, read from ``casebooks/<study>.toml``.

A casebook names its study and holds cases, written one by one or as a printed
table with rules over its rows. Its first line may say its format, ``format_version = 1``
(:func:`qmodel.tomlread.format_checked`: the shipped casebooks do; a file without it is read as 1,
one of another version is refused).

One case::

    [[case]]
    id = "env1-tpno-rate"
    quantity = "throughput_law.throughput"     # catalogue entry.output, or registry function.output
    citation = "Environment 1 Results, TPNO table, row Number, column non-pprc"
    inputs = { completions = 6882, observation_time = "300s" }
    paper = 22.94                              # as printed; [low, high] for a printed range
    unit = "1/s"                               # unit of the printed value (default: the output's)
    tolerance = { relative = 0.001 }           # or { absolute = 0.05 } in the case's unit
    note = "..."                               # what a reader should know; explains a miss
    slip = "..."; recomputed = 90.56           # the study's arithmetic is wrong: the corrected value
    inconsistent = "..."                       # printed values that disagree with each other, with:
    disagree = [{ value = "218,000", citation = "..." }, { value = "216k", citation = "..." }]
    arithmetic = "..."                         # why they cannot all hold, whatever the model
    calibrated = "..."                         # the row fits a parameter: not a prediction
    step = "..."                               # the model step tested, where a printed number
                                               # supports more than one case (one each)

A case may instead give the value of one input at which an output reaches a
printed target, solved by the inverse solver (:mod:`qmodel.catalogue.inverse`;
``qmodel solve ENTRY OUTPUT=TARGET --for INPUT``): its quantity names the
entry and the input, its ``target`` the output and the value::

    quantity = "cgft.bandwidth"                 # the input solved for
    target = { cgft = "6s" }                    # the output and the value it reaches
    inputs = { cycle_cost = "4s", write_rate = "250MB/s" }

An input (or a target) may take another case's model value: ``read_fraction = { case =
"reads-per-write" }``. A case that uses a calibrated case's value is one of the
rows that calibration predicts; the report lists them (or says the calibration
is untested when there are none).

One printed table, written once, with rules that expand into a case per column::

    [[table]]
    id = "env1-mstr"                          # case ids: <table>-<rule>-<key>
    citation = "Environment 1 Results, 'I/O for DBxMSTR address spaces' table"
    columns = ["non-pprc", "pprc 0 km", "20 km"]    # as printed
    keys = ["non-pprc", "0km", "20km"]              # short names for the case ids
    unit = "ms"                                     # unit of the rows' bare numbers
    units = { SSCH = "1/s" }                        # rows in another unit
    rows.distance = ["0km", "0km", "20km"]          # column facts the study states in its text
    rows.RESP = [0.4, 0.7, 1]
    rows.DISC = [0, 0.3, 0.6]

    [[table.rule]]
    id = "disc"
    quantity = "distance_growth.time_at_distance"
    inputs = { time_at_zero = { row = "DISC", column = "0km" }, distance = { row = "distance" } }
    paper = { row = "DISC" }
    tolerance = { absolute = 0.15 }
    columns = ["0km", "20km"]                       # optional: the keys the rule covers
    calibrated = { "0km" = "the 0 km value is the base of the series" }
    slip = { "20km" = "..." }; recomputed = { "20km" = 0.5 }   # per key, like note and inconsistent

A ``{ row = R }`` input is the value of row R in the case's column, ``{ row =
R, column = K }`` the value in column K; blank cells ("") leave the column
out of the rule. A rule calibrated at a column makes its other cases depend on
that column's case.

Where a fitted value reaches the other cases outside their inputs (a scenario
file holds it, fitted on a calibrated row), the dependency is declared: ``uses =
["e2e-env3-g1p1-response-70km", ...]`` on a case, a rule or a whole table (for
all its rules) names the calibrated cases whose fits its cases rest on.

One printed number, one case: two cases judged against the same printed cell of a
table (two rules with the same ``paper`` row), or two cases with the same quantity
and the same printed value, are refused unless each names the model ``step`` it
tests, and the steps differ. (A value of 0 or 1 in a unitless quantity, and a
range, state a claim, not a printed number, and are not compared.)

The casebook is data a user can write: a paper value, range end, tolerance or
recomputed value that is NaN, a reversed range, a negative or infinite tolerance
are refused with a one-line message (exit 2). A calibration that fits a
parameter has no paper value (``Case.paper`` is None), never a NaN.

Quantities name a catalogue entry or a function of :mod:`qmodel.catalogue.registry`;
nothing else is imported or run: a case naming anything else is refused when
the casebook loads. Inputs are written in qmodel's unit dialect (``"70km"``,
``"4ms"``, ``"95%"``, or bare numbers in the input's unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from qmodel.catalogue.loader import get_formula, load_catalogue
from qmodel.errors import CatalogueError
from qmodel.tomlread import format_checked, read_toml
from qmodel.units import UNITS
from qmodel.validation.quantities import REGISTRY  # the registry with the study functions registered

# the keys every judged case and every table rule may carry: its verdict's words and its model step
_JUDGED_KEYS = {
    "note",
    "slip",
    "recomputed",
    "inconsistent",
    "disagree",
    "arithmetic",
    "calibrated",
    "uses",
    "step",
}
_CASE_KEYS = {"id", "quantity", "citation", "inputs", "target", "paper", "unit", "tolerance"} | _JUDGED_KEYS
_TABLE_KEYS = {"id", "citation", "columns", "keys", "unit", "units", "rows", "rule", "note", "uses"}
_RULE_KEYS = {
    "id",
    "quantity",
    "citation",
    "inputs",
    "paper",
    "unit",
    "tolerance",
    "columns",
    "once",
} | _JUDGED_KEYS
_PER_KEY = ("note", "slip", "recomputed", "inconsistent", "disagree", "arithmetic", "calibrated", "step")


@dataclass(frozen=True)
class Case:
    """One printed number of a study and how to compute it."""

    casebook: str
    study: str
    id: str
    quantity: str
    citation: str
    inputs: dict[str, Any]
    paper: tuple[float, float] | None  # (low, high), equal for one printed value; None: a fitted parameter
    unit: str
    tolerance: float
    relative: bool
    slip: str = ""
    recomputed: float | None = None
    calibrated: str = ""
    inconsistent: str = ""
    note: str = ""
    target: dict[str, Any] = field(default_factory=dict)  # {output: value}: the quantity is an input solved
    uses_values: tuple[str, ...] = field(default=())  # cases whose model values are inputs of this one
    uses_rows: tuple[str, ...] = field(default=())  # calibrated cases whose printed values are inputs
    disagree: tuple[tuple[str, str], ...] = ()  # an inconsistent case: (printed value, citation), two or more
    arithmetic: str = ""  # an inconsistent case: why the printed values cannot all hold
    step: str = ""  # the model step tested, where a printed number supports more than one case
    printed: tuple[Any, ...] = ()  # what identifies the printed number judged: a table cell or a value
    coverage: tuple[int, int] | None = None  # the casebook's (statements encoded, model statements)

    @property
    def fitted(self) -> bool:
        """A calibration that fits a parameter: nothing printed to compare with."""
        return self.paper is None

    @property
    def printed_range(self) -> tuple[float, float]:
        """(low, high) as printed, of a case that is not :attr:`fitted` (a fitted one prints none)."""
        if self.paper is None:
            raise ValueError(f"{self.casebook}: case {self.id!r} fits a parameter: nothing is printed")
        return self.paper

    @property
    def depends_on(self) -> tuple[str, ...]:
        """The cases this one depends on: their model values or their calibrated printed values."""
        return tuple(dict.fromkeys(self.uses_values + self.uses_rows))

    @property
    def label(self) -> str:
        """The quantity as a reader names it: entry, output, and what the output means."""
        return quantity_label(self.quantity)


def quantity_label(quantity: str) -> str:
    """``entry.output: meaning`` for a catalogue output (``entry.input: meaning`` for an input solved for),
    ``entry.output: title`` for a model function."""
    entry, _, output = quantity.partition(".")
    if entry in load_catalogue():
        formula = get_formula(entry)
        if output in formula.symbols:
            return f"{quantity}: {formula.symbols[output].meaning}"
        return f"{quantity}: {formula.output(output).meaning}"
    function = REGISTRY[entry]
    return f"{quantity}: {dict(function.meanings).get(output, function.title)}"


def _output_units(entry: str, where: str) -> dict[str, str]:
    """The outputs of a quantity's entry (catalogue first, then registry) with their units."""
    if entry in load_catalogue():
        return {output.name: output.unit for output in get_formula(entry).outputs}
    if entry in REGISTRY:
        return REGISTRY[entry].outputs
    raise CatalogueError(
        f"{where}: unknown formula {entry!r}: neither a catalogue entry nor a registered "
        "model function (qmodel formula list; qmodel.catalogue.registry)"
    )


def _solved_unit(table: dict[str, Any], where: str) -> str:
    """The unit of the input a ``target`` case solves for, after checking the target names one output
    of a catalogue entry and the quantity one of its inputs, not given."""
    entry, _, unknown = table["quantity"].partition(".")
    target = table["target"]
    if entry not in load_catalogue():
        raise CatalogueError(f"{where}: a target needs a catalogue entry to solve, not {entry!r}")
    formula = get_formula(entry)
    outputs = [output.name for output in formula.outputs]
    if not isinstance(target, dict) or len(target) != 1 or next(iter(target)) not in outputs:
        raise CatalogueError(
            f"{where}: target must be {{ OUTPUT = value }} for one output of {entry}: {', '.join(outputs)}"
        )
    if unknown not in formula.symbols or unknown in table.get("inputs", {}):
        raise CatalogueError(
            f"{where}: with a target, the quantity names the input of {entry} solved for, "
            f"left out of the inputs: one of {', '.join(formula.symbols)}"
        )
    return formula.symbols[unknown].unit


def _default_unit(quantity: str, where: str) -> str:
    entry, _, output = quantity.partition(".")
    units = _output_units(entry, where)
    if output not in units:
        raise CatalogueError(f"{where}: {entry!r} has no output {output!r}; outputs: {', '.join(units)}")
    return units[output]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _paper(value: Any, where: str) -> tuple[float, float]:
    """A printed value or range: a finite number, or [low, high] with low <= high (an open end as inf)."""
    if _is_number(value):
        if not math.isfinite(value):
            raise CatalogueError(f"{where}: paper = {value}; allowed: a finite number or [low, high]")
        return float(value), float(value)
    if isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value):
        low, high = float(value[0]), float(value[1])
        if math.isnan(low) or math.isnan(high) or low > high or low == math.inf or high == -math.inf:
            raise CatalogueError(
                f"{where}: paper = [{value[0]}, {value[1]}]; allowed: [low, high] with "
                "low <= high, no NaN (an open end is -inf or inf)"
            )
        return low, high
    raise CatalogueError(f"{where}: paper must be a number or [low, high], not {value!r}")


def _tolerance(table: dict[str, Any], where: str) -> tuple[float, bool]:
    """The tolerance as (value, relative): one finite number >= 0, relative or absolute."""
    tolerance = table["tolerance"]
    if (
        not isinstance(tolerance, dict)
        or len(tolerance) != 1
        or not (set(tolerance) <= {"relative", "absolute"})
    ):
        raise CatalogueError(f"{where}: tolerance must be {{ relative = x }} or {{ absolute = x }}")
    ((kind, value),) = tolerance.items()
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise CatalogueError(f"{where}: tolerance {kind} = {value}; allowed: a finite number >= 0")
    return float(value), kind == "relative"


def _disagree(table: dict[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    """An inconsistent case's evidence: two or more printed values with their citations, and the
    arithmetic that shows they cannot all hold; nothing of it on a case that is not inconsistent."""
    if not table.get("inconsistent"):
        if "disagree" in table or "arithmetic" in table:
            raise CatalogueError(f"{where}: 'disagree' and 'arithmetic' belong to an inconsistent case")
        return ()
    values = table.get("disagree")
    if (
        not isinstance(values, list)
        or len(values) < 2
        or not all(
            isinstance(item, dict)
            and set(item) == {"value", "citation"}
            and str(item["value"]).strip()
            and str(item["citation"]).strip()
            for item in values
        )
    ):
        raise CatalogueError(
            f"{where}: an inconsistent case needs disagree = [{{ value = ..., citation = "
            "... }, ...]: the two or more printed values that disagree, each with its "
            "citation"
        )
    if not str(table.get("arithmetic", "")).strip():
        raise CatalogueError(
            f'{where}: an inconsistent case needs arithmetic = "...": why the printed '
            "values cannot all hold, whatever the model"
        )
    return tuple((str(item["value"]), str(item["citation"])) for item in values)


def _references(*values: dict[str, Any]) -> tuple[str, ...]:
    return tuple(
        value["case"]
        for given in values
        for value in given.values()
        if isinstance(value, dict) and "case" in value
    )


def _case(
    table: dict[str, Any],
    casebook: str,
    study: str,
    uses_rows: tuple[str, ...] = (),
    cell: tuple[str, ...] = (),
) -> Case:
    """One case from its table of keys; ``cell`` names the printed table cell it is judged against."""
    case_id = table.get("id", "?")
    where = f"{casebook}: case {case_id!r}"
    for key in ("id", "quantity", "citation", "tolerance"):
        if key not in table:
            raise CatalogueError(f"{where}: missing {key!r}")
    if "paper" not in table and not table.get("calibrated"):
        raise CatalogueError(f"{where}: missing 'paper' (only a calibration, a fitted parameter, has none)")
    unknown = sorted(set(table) - _CASE_KEYS)
    if unknown:
        raise CatalogueError(f"{where}: unknown key(s) {unknown}; a case has {', '.join(sorted(_CASE_KEYS))}")
    tolerance, relative = _tolerance(table, where)
    if ("slip" in table) != ("recomputed" in table):
        raise CatalogueError(f"{where}: 'slip' and 'recomputed' go together")
    if "recomputed" in table and not (_is_number(table["recomputed"]) and math.isfinite(table["recomputed"])):
        raise CatalogueError(f"{where}: recomputed = {table['recomputed']}; allowed: a finite number")
    disagree = _disagree(table, where)
    default_unit = (
        _solved_unit(table, where) if "target" in table else _default_unit(table["quantity"], where)
    )
    unit = table.get("unit") or default_unit
    if unit not in UNITS:
        raise CatalogueError(f"{where}: unknown unit {unit!r}")
    if UNITS[unit].dimension != UNITS[default_unit].dimension:
        raise CatalogueError(
            f"{where}: unit {unit!r} is not a {UNITS[default_unit].dimension} unit "
            f"like the output's {default_unit!r}"
        )
    paper = _paper(table["paper"], where) if "paper" in table else None
    inputs = dict(table.get("inputs", {}))
    declared = _uses(table, where)
    uses_rows = tuple(dict.fromkeys(other for other in (*uses_rows, *declared) if other != case_id))
    return Case(
        casebook=casebook,
        study=study,
        id=case_id,
        quantity=table["quantity"],
        citation=table["citation"],
        inputs=inputs,
        paper=paper,
        unit=unit,
        tolerance=tolerance,
        relative=relative,
        slip=table.get("slip", ""),
        recomputed=table.get("recomputed"),
        calibrated=table.get("calibrated", ""),
        inconsistent=table.get("inconsistent", ""),
        note=table.get("note", ""),
        target=dict(table.get("target", {})),
        uses_values=_references(inputs, table.get("target", {})),
        uses_rows=uses_rows,
        disagree=disagree,
        arithmetic=table.get("arithmetic", ""),
        step=table.get("step", ""),
        printed=cell or _printed_value(table["quantity"], paper, unit),
    )


def _printed_value(quantity: str, paper: tuple[float, float] | None, unit: str) -> tuple[Any, ...]:
    """A standalone case's printed number: its quantity, value and unit; none for a fitted parameter,
    a range, or a unitless 0 or 1 (a claim, "they match", "it is a candidate", not a printed number)."""
    if paper is None or paper[0] != paper[1] or (unit == "1" and paper[0] in (0, 1)):
        return ()
    return ("value", quantity, paper[0], unit)


def _raw(table: dict[str, Any], row: str, key: str, where: str) -> Any:
    """The printed value of ``row`` in column ``key``, as written in the casebook."""
    rows = table.get("rows", {})
    if row not in rows:
        raise CatalogueError(f"{where}: no row {row!r}; rows: {', '.join(rows)}")
    return rows[row][table["keys"].index(key)]


def _row_unit(table: dict[str, Any], row: str) -> str:
    return table.get("units", {}).get(row, table.get("unit", "1"))


def _cell(table: dict[str, Any], row: str, key: str, where: str) -> Any:
    """The printed value of ``row`` in column ``key`` as typed text with its row's unit ("151us")."""
    value = _raw(table, row, key, where)
    unit = _row_unit(table, row)
    if isinstance(value, (int, float)) and unit != "1":
        return f"{value!r} {unit}"
    return value


def _column_of(table: dict[str, Any], reference: dict[str, Any], key: str | None, where: str) -> str:
    column = reference.get("column", key)
    if column is None:
        raise CatalogueError(f"{where}: a rule with once = true names the column of every row it uses")
    if column not in table["keys"]:
        raise CatalogueError(f"{where}: no column {column!r}; columns: {', '.join(table['keys'])}")
    return column


def _resolve(table: dict[str, Any], value: Any, key: str | None, where: str) -> Any:
    """A rule's input or paper for column ``key``: row references replaced by the printed cells."""
    if isinstance(value, dict) and "row" in value:
        if set(value) - {"row", "column"} and set(value) != {"row", "columns"}:
            raise CatalogueError(
                f"{where}: a row reference is {{ row = R }}, {{ row = R, column = K }} "
                "or {{ row = R, columns = [K, ...] }}"
            )
        if "columns" in value:
            return [
                _cell(table, value["row"], _column_of(table, {"column": k}, key, where), where)
                for k in value["columns"]
            ]
        return _cell(table, value["row"], _column_of(table, value, key, where), where)
    return value


def _per_key(rule: dict[str, Any], name: str, key: str | None, keys: list[str | None], where: str) -> Any:
    """A rule's note, slip, recomputed, inconsistent or calibrated for column ``key``.

    Written once for every case of the rule, or as ``{ key = value }`` for some columns.
    """
    value = rule.get(name)
    if not isinstance(value, dict):
        return value
    if set(value) - set(keys):
        raise CatalogueError(
            f"{where}: {name} names columns {sorted(set(value) - set(keys))} the rule does not cover ({keys})"
        )
    return value.get(key)


def _uses(section: dict, where: str) -> list[str]:
    """The case ids a case, rule or table declares it ``uses`` (a list of strings, checked)."""
    declared = section.get("uses", [])
    if not isinstance(declared, list) or not all(isinstance(other, str) for other in declared):
        raise CatalogueError(f"{where}: uses must be a list of case ids")
    return declared


def _rule_cases(table: dict[str, Any], rule: dict[str, Any], casebook: str) -> list[dict[str, Any]]:
    """The case tables one rule of a printed table expands into, with their dependencies.

    A rule with ``once = true`` is one case over the columns its references name (a
    least-squares slope over a row, a fit between two columns); its id is <table>-<rule>.
    """
    where = f"{casebook}: table {table.get('id', '?')!r}, rule {rule.get('id', '?')!r}"
    unknown = sorted(set(rule) - _RULE_KEYS)
    if unknown:
        raise CatalogueError(f"{where}: unknown key(s) {unknown}; a rule has {', '.join(sorted(_RULE_KEYS))}")
    for required in ("id", "quantity", "tolerance"):
        if required not in rule:
            raise CatalogueError(f"{where}: missing {required!r}")
    keys: list[str | None] = [None] if rule.get("once") else list(rule.get("columns", table["keys"]))
    for key in keys:
        if key is not None and key not in table["keys"]:
            raise CatalogueError(f"{where}: no column {key!r}; columns: {', '.join(table['keys'])}")
    paper_ref: Any = rule.get("paper")  # a table {row, column(s)}, a constant, or none
    paper_row = paper_ref["row"] if isinstance(paper_ref, dict) else ""
    expanded = []
    for key in keys:
        inputs = {name: _resolve(table, value, key, where) for name, value in rule.get("inputs", {}).items()}
        case_id = f"{table['id']}-{rule['id']}" + (f"-{key}" if key else "")
        case: dict[str, Any] = {
            "id": case_id,
            "quantity": rule["quantity"],
            "inputs": inputs,
            "tolerance": rule["tolerance"],
            "uses": [*_uses(table, where), *_uses(rule, where)],
        }
        if paper_row:
            case["paper"] = _raw(table, paper_row, _column_of(table, paper_ref, key, where), where)
        elif paper_ref is not None:
            case["paper"] = paper_ref
        if (
            "" in inputs.values()
            or case.get("paper") == ""
            or any("" in value for value in inputs.values() if isinstance(value, list))
        ):
            continue
        if key is None:
            case["citation"] = table["citation"]
        else:
            label = table["columns"][table["keys"].index(key)]
            case["citation"] = (
                f"{table['citation']}, " + (f"row {paper_row}, " if paper_row else "") + f"column {label}"
            )
        if "citation" in rule:
            case["citation"] += f"; {rule['citation']}"
        if "unit" in rule:
            case["unit"] = rule["unit"]
        elif paper_row:
            case["unit"] = _row_unit(table, paper_row)
        for name in _PER_KEY:
            value = _per_key(rule, name, key, keys, where)
            if value is not None:
                case[name] = value
        # cells of other columns (a base row, the rows a parameter is fitted on): a calibrated
        # case's printed value used this way makes this case one of its predictions
        cells = [
            (value["row"], column)
            for value in rule.get("inputs", {}).values()
            if isinstance(value, dict) and "row" in value
            for column in value.get("columns", [value.get("column")])
            if column is not None
        ]
        paper_cell = (paper_row, key) if paper_row and not isinstance(paper_ref.get("column"), str) else None
        # the printed number: a cell of the table; a rule's constant paper is a claim each column's data is
        # set against (the study's 10 µs/km against each table's slope), one per case
        printed = (
            ("cell", table["id"], paper_row, _column_of(table, paper_ref, key, where))
            if paper_row
            else ("claim", case_id)
        )
        expanded.append({"table": case, "cells": cells, "paper_cell": paper_cell, "printed": printed})
    return expanded


def _table_cases(table: dict[str, Any], casebook: str) -> list[dict[str, Any]]:
    where = f"{casebook}: table {table.get('id', '?')!r}"
    unknown = sorted(set(table) - _TABLE_KEYS)
    if unknown:
        raise CatalogueError(
            f"{where}: unknown key(s) {unknown}; a table has {', '.join(sorted(_TABLE_KEYS))}"
        )
    for key in ("id", "citation", "columns", "rule"):
        if key not in table:
            raise CatalogueError(f"{where}: missing {key!r}")
    table = {**table, "keys": table.get("keys", table["columns"])}
    if len(table["keys"]) != len(table["columns"]):
        raise CatalogueError(f"{where}: {len(table['keys'])} keys for {len(table['columns'])} columns")
    for name, values in table.get("rows", {}).items():
        if not isinstance(values, list) or len(values) != len(table["columns"]):
            raise CatalogueError(
                f"{where}: row {name!r} needs one value per column ({len(table['columns'])})"
            )
    expanded = [case for rule in table["rule"] for case in _rule_cases(table, rule, casebook)]
    # A calibrated case's printed cell, used as an input of another case, makes that case depend on it.
    calibrated = {
        item["paper_cell"]: item["table"]["id"]
        for item in expanded
        if item["table"].get("calibrated") and item["paper_cell"]
    }
    for item in expanded:
        own = item["table"]["id"]
        item["uses_rows"] = tuple(
            dict.fromkeys(
                calibrated[cell] for cell in item["cells"] if cell in calibrated and calibrated[cell] != own
            )
        )
    return expanded


def load_casebook(path: Path, text: str | None = None) -> list[Case]:
    """The cases of one casebook file, tables expanded; CatalogueError names the file and case."""
    data = format_checked(read_toml(path, text), path.name)
    for key in ("study", "title"):
        if key not in data:
            raise CatalogueError(f"{path.name}: missing {key!r}")
    study = f"{data['title']} ({data['study']})"
    coverage = _coverage(data.get("coverage"), path.name)
    cases = [_case(table, path.stem, study) for table in data.get("case", [])]
    for table in data.get("table", []):
        cases += [
            _case(item["table"], path.stem, study, item["uses_rows"], item["printed"])
            for item in _table_cases(table, path.stem)
        ]
    ids = [case.id for case in cases]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise CatalogueError(f"{path.name}: duplicate case id(s) {repeated}")
    if not cases:
        raise CatalogueError(f"{path.name}: no [[case]] entries")
    _check_one_number_one_case(cases, path.name)
    cases = [replace(case, coverage=coverage) for case in cases]
    known = set(ids)
    for case in cases:
        missing = [i for i in case.depends_on if i not in known]
        if missing:
            raise CatalogueError(
                f"{path.name}: case {case.id!r} uses case {missing[0]!r}, which is not in this casebook"
            )
    return cases


def _coverage(value: Any, name: str) -> tuple[int, int] | None:
    """``coverage = { statements = N, not_encoded = [n, ...] }``: the study's model statements (the
    numbered E, I and N lines of the casebook's header) and the numbers of those not encoded, as
    (encoded, statements); None where the casebook states none."""
    if value is None:
        return None
    allowed = (
        "coverage = { statements = N, not_encoded = [n, ...] } (N > 0 statements; n the numbers of "
        "those not encoded, each once)"
    )
    if not isinstance(value, dict) or set(value) != {"statements", "not_encoded"}:
        raise CatalogueError(f"{name}: coverage = {value!r}; allowed: {allowed}")
    statements, not_encoded = value["statements"], value["not_encoded"]
    if (
        not isinstance(statements, int)
        or isinstance(statements, bool)
        or statements <= 0
        or not isinstance(not_encoded, list)
        or len(set(map(str, not_encoded))) != len(not_encoded)
        or len(not_encoded) > statements
    ):
        raise CatalogueError(f"{name}: coverage = {value!r}; allowed: {allowed}")
    return statements - len(not_encoded), statements


def _check_one_number_one_case(cases: list[Case], name: str) -> None:
    """Refuse a printed number judged by more than one case unless each names a different model step."""
    by_number: dict[tuple[Any, ...], list[Case]] = {}
    for case in cases:
        if case.printed:
            by_number.setdefault(case.printed, []).append(case)
    for printed, sharing in by_number.items():
        steps = [case.step for case in sharing]
        if len(sharing) > 1 and (not all(steps) or len(set(steps)) < len(steps)):
            number = (
                f"cell {printed[2]!r}, column {printed[3]!r} of table {printed[1]!r}"
                if printed[0] == "cell"
                else f"the printed value {printed[2]:g} {printed[3]}"
            )
            raise CatalogueError(
                f"{name}: cases {', '.join(case.id for case in sharing)} are all judged against {number}: "
                "one printed number, one case, unless each case names the model step it tests (step = "
                '"...", a different one each)'
            )


def shipped_casebooks() -> dict[str, Path]:
    """The shipped casebooks by name (file stem)."""
    folder = resources.files("qmodel.casebooks")
    return {Path(p.name).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(".toml")}
