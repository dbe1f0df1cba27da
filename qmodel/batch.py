"""CSV batch: every row of a spreadsheet export in, the same rows out with results appended.

Headers are symbol names, optionally with a unit (``service_time[us]``);
other columns pass through unchanged. Evaluation is vectorized over all rows.
A bad row keeps its place, gets its message in the ``error`` column and on
stderr with its row number (row 1 is the first row after the header), and
every good row is still computed. Exit status: 0 all rows computed, 1 some rows
failed, 2 the file cannot be used (no header, unknown formula, missing column).
"""

from __future__ import annotations

import csv
import io
import re
import sys
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from qmodel.catalogue import Formula, get_formula
from qmodel.errors import InputError
from qmodel.evaluate import evaluate
from qmodel.units import UNITS, parse_value

_HEADER = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[\s*([^\]]+?)\s*\])?\s*$")
_DELIMITERS = (",", ";", "\t")


@dataclass
class BatchSummary:
    """What a batch run did: rows computed and the errors of the rows that failed."""

    rows: int
    errors: dict[int, InputError]

    @property
    def status(self) -> int:
        return 1 if self.errors else 0


def _file_error(value: object, allowed: str, reason: str) -> InputError:
    return InputError("file", value, allowed, reason=reason)


def sniff_delimiter(header_line: str) -> str:
    """The delimiter of a CSV file from its header: whichever of , ; TAB occurs most."""
    counts = {d: header_line.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _input_columns(formula: Formula, header: list[str]) -> dict[str, tuple[int, float]]:
    """Map each symbol to (column index, factor from the column's unit to the symbol's unit)."""
    columns: dict[str, tuple[int, float]] = {}
    for index, title in enumerate(header):
        match = _HEADER.match(title)
        if match is None or match.group(1) not in formula.symbols:
            continue  # not an input: passes through unchanged
        name, unit_name = match.groups()
        symbol_unit = UNITS[formula.symbols[name].unit]
        factor = 1.0
        if unit_name is not None:
            given = UNITS.get(unit_name)
            if given is None or given.dimension != symbol_unit.dimension:
                raise InputError(f"column {title!r}", unit_name,
                                 f"a {symbol_unit.dimension} unit such as {symbol_unit.name}",
                                 reason="unit does not fit the symbol")
            factor = given.to_si / symbol_unit.to_si
        if name in columns:
            raise InputError(f"column {title!r}", name, "each input in one column",
                             reason="input given twice")
        columns[name] = (index, factor)
    missing = [n for n, s in formula.symbols.items() if n not in columns and s.default is None]
    if missing:
        raise InputError("columns", ", ".join(header), "a header naming " +
                         ", ".join(missing), reason=f"missing required column(s) for {formula.id}")
    return columns


def _parse_column(name: str, unit: str, cells: list[str], factor: float,
                  errors: dict[int, InputError]) -> np.ndarray:
    """Numbers of one input column; cells that do not parse become errors of their rows."""
    try:
        values = np.array(cells, dtype=float)
    except ValueError:
        values = np.empty(len(cells))
        for row, cell in enumerate(cells):
            try:
                values[row] = float(cell)
            except ValueError:
                try:
                    if not cell.strip():
                        raise InputError(name, "empty", "a number", reason="missing cell") from None
                    values[row] = parse_value(name, cell, unit)
                except InputError as error:
                    errors.setdefault(row, error)
                    values[row] = np.nan
    return values * factor if factor != 1.0 else values


def run_batch(formula_id: str, text: str, out: TextIO, err: TextIO) -> BatchSummary:
    """Evaluate ``formula_id`` for every data row of CSV ``text``; write the rows to ``out``.

    Raises InputError when the file as a whole cannot be used (status 2).
    """
    formula = get_formula(formula_id)
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise _file_error("empty", "a CSV file with a header row", "no header")
    first_line = text.lstrip("\r\n").split("\n", 1)[0]
    delimiter = sniff_delimiter(first_line)
    records = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    while records and not any(cell.strip() for cell in records[-1]):
        records.pop()  # blank trailing lines
    header = [title.strip() for title in records[0]]
    rows = records[1:]
    columns = _input_columns(formula, header)
    errors: dict[int, InputError] = {}
    width = len(header)
    for row, fields in enumerate(rows):
        if len(fields) != width:
            errors[row] = InputError("row", f"{len(fields)} fields",
                                     f"{width} fields, as in the header", reason="wrong width")
            rows[row] = (fields + [""] * width)[:width]
    inputs = {}
    for name, (index, factor) in columns.items():
        cells = [fields[index] for fields in rows]
        inputs[name] = _parse_column(name, formula.symbols[name].unit, cells, factor, errors)
    evaluation = evaluate(formula, inputs) if rows else None
    if evaluation is not None:
        for row, error in evaluation.errors.items():
            errors.setdefault(row, error)
    _write(formula, header, rows, records, evaluation, errors, delimiter, out)
    for row in sorted(errors):
        err.write(f"{formula.id}: {errors[row].at_row(row + 1)}\n")
    return BatchSummary(len(rows), errors)


def _write(formula, header, rows, records, evaluation, errors, delimiter, out) -> None:
    result_titles = [f"{o.name}[{o.unit}]" for o in formula.outputs]
    failed = np.zeros(len(rows), dtype=bool)
    failed[list(errors)] = True
    result_columns = []
    for output in formula.outputs:
        cells = [f"{v:.12g}" for v in evaluation.outputs[output.name].tolist()] if rows else []
        for row in np.flatnonzero(failed):
            cells[row] = ""
        result_columns.append(cells)
    error_cells = [""] * len(rows)
    for row, error in errors.items():
        error_cells[row] = error.message()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow([*records[0], *result_titles, "error"])
    writer.writerows(
        [*fields, *results, error]
        for fields, *results, error in zip(rows, *result_columns, error_cells, strict=True)
    )


def run_batch_files(formula_id: str, input_path: str, output_path: str) -> int:
    """The ``qmodel batch`` command: paths (``-`` for stdin/stdout) in, exit status out."""
    raw = sys.stdin.buffer.read() if input_path == "-" else _read_bytes(input_path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _file_error(input_path, "UTF-8 text", f"not UTF-8 ({error.reason})") from None
    if output_path == "-":
        summary = run_batch(formula_id, text, sys.stdout, sys.stderr)
    else:
        buffer = io.StringIO()
        summary = run_batch(formula_id, text, buffer, sys.stderr)
        with open(output_path, "w", encoding="utf-8", newline="") as handle:
            handle.write(buffer.getvalue())
    failed = len(summary.errors)
    sys.stderr.write(f"{formula_id}: {summary.rows - failed} rows computed, {failed} failed\n")
    return summary.status


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise _file_error(path, "a readable file", error.strerror or "cannot read") from None
