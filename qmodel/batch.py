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
from typing import NamedTuple, TextIO

import numpy as np

from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, get_formula
from qmodel.errors import InputError
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


def _input_columns(formula: Formula, header: list[str],
                   given: set[str] = frozenset()) -> dict[str, tuple[int, float]]:
    """Map each symbol to (column index, factor from the column's unit to the symbol's unit).

    Header names match symbols without regard to case (DISC is disc); ``given``
    are inputs supplied otherwise, which need no column.
    """
    columns: dict[str, tuple[int, float]] = {}
    for index, title in enumerate(header):
        match = _HEADER.match(title)
        if match is None or match.group(1).lower() not in formula.symbols:
            continue  # not an input: passes through unchanged
        name, unit_name = match.group(1).lower(), match.group(2)
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
    missing = [n for n, s in formula.symbols.items()
               if n not in columns and n not in given and s.default is None]
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


class _Table(NamedTuple):
    """A parsed CSV: header cells, each data row's text to write back, cells by column."""

    header: list[str]
    header_text: str
    row_texts: list[str]
    columns: list[list[str]]
    errors: dict[int, InputError]


def _quote(cell: str, delimiter: str) -> str:
    """One CSV cell (an error message), quoted only where it must be."""
    if any(mark in cell for mark in (delimiter, '"', "\n", "\r")):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _split_plain(lines: list[str], delimiter: str) -> _Table | None:
    """The fast path: no quoting and every row as wide as the header.

    Returns None when the file needs the full CSV parser.
    """
    if any('"' in line for line in lines):
        return None
    header_text, rows = lines[0], lines[1:]
    separators = header_text.count(delimiter)
    if any(row.count(delimiter) != separators for row in rows):
        return None
    cells = delimiter.join(rows).split(delimiter) if rows else []
    width = separators + 1
    columns = [cells[index::width] for index in range(width)]
    return _Table(header_text.split(delimiter), header_text, rows, columns, {})


def _split_csv(lines: list[str], delimiter: str) -> _Table:
    """The general path: quoted fields (delimiters or line ends inside), rows of any width.

    Each record keeps the text of the line(s) it was read from, so that it is
    written back as it came.
    """
    records = list(csv.reader(lines, delimiter=delimiter))
    texts = lines
    if len(records) != len(lines):  # some quoted field spans lines: find each record's lines
        reader = csv.reader(lines, delimiter=delimiter)
        texts, consumed = [], 0
        for _ in reader:
            texts.append("\n".join(lines[consumed:reader.line_num]))
            consumed = reader.line_num
    header, rows = records[0], records[1:]
    header_text, texts = texts[0], texts[1:]
    width = len(header)
    errors = {}
    for row, fields in enumerate(rows):
        if len(fields) != width:
            extra = f"; extra cells: {delimiter.join(fields[width:])}" if len(fields) > width else ""
            errors[row] = InputError("row", f"{len(fields)} fields",
                                     f"{width} fields, as in the header",
                                     reason=f"wrong width{extra}")
            # written back at the header's width so that the result columns line up
            rows[row] = (fields + [""] * width)[:width]
            texts[row] = delimiter.join(_quote(cell, delimiter) for cell in rows[row])
    columns = [[fields[index] for fields in rows] for index in range(width)]
    return _Table(header, header_text, texts, columns, errors)


def run_batch(formula_id: str, text: str, out: TextIO, err: TextIO, *,
              settings: dict[str, float] | None = None, select=None) -> BatchSummary:
    """Evaluate ``formula_id`` for every data row of CSV ``text``; write the rows to ``out``.

    ``settings`` give inputs that no column gives (a command's options);
    ``select(outputs, errors)`` returns the rows to write, in order (default:
    all rows as they came). Raises InputError when the file as a whole cannot
    be used (status 2).
    """
    formula = get_formula(formula_id)
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise _file_error("empty", "a CSV file with a header row", "no header")
    lines = text.replace("\r\n", "\n").lstrip("\n").split("\n")
    while not lines[-1].strip():
        lines.pop()  # blank trailing lines
    delimiter = sniff_delimiter(lines[0])
    table = _split_plain(lines, delimiter) or _split_csv(lines, delimiter)
    header = [title.strip() for title in table.header]
    errors = table.errors
    inputs = dict(settings or {})
    for name, (index, factor) in _input_columns(formula, header, set(inputs)).items():
        unit = formula.symbols[name].unit
        inputs[name] = _parse_column(name, unit, table.columns[index], factor, errors)
    outputs: dict[str, np.ndarray] = {}
    warned: dict[int, list[str]] = {}
    if table.row_texts:
        evaluation = evaluate(formula, inputs)
        warned = evaluation.warnings
        for row, error in evaluation.errors.items():
            errors.setdefault(row, error)
        outputs = evaluation.outputs
    rows = range(len(table.row_texts)) if select is None else select(outputs, errors)
    _write(formula, table, outputs, errors, delimiter, out, list(rows))
    for row in sorted(errors):
        err.write(f"{formula.id}: {errors[row].at_row(row + 1)}\n")
    for row, warnings in sorted(warned.items()):
        err.writelines(f"{formula.id}: row {row + 1}: warning: {warning}\n" for warning in warnings)
    return BatchSummary(len(table.row_texts), errors)


def _write(formula: Formula, table: _Table, outputs: dict[str, np.ndarray],
           errors: dict[int, InputError], delimiter: str, out: TextIO, rows: list[int]) -> None:
    """Each selected row's text, then its results (12 significant digits) and its error, if any."""
    titles = [f"{o.name}[{o.unit}]" for o in formula.outputs] + ["error"]
    out.write(delimiter.join([table.header_text, *titles]) + "\n")
    if not rows:
        return
    row_format = "%s" + f"{delimiter}%.12g" * len(formula.outputs) + delimiter
    every_row = len(rows) == len(table.row_texts)
    texts = table.row_texts if every_row else [table.row_texts[row] for row in rows]
    values = [outputs[o.name].tolist() if every_row else outputs[o.name][rows].tolist()
              for o in formula.outputs]
    lines = [row_format % row for row in zip(texts, *values, strict=True)]
    blanks = delimiter * len(formula.outputs)
    position = {row: place for place, row in enumerate(rows)} if not every_row else None
    for row, error in errors.items():
        place = row if position is None else position.get(row)
        if place is not None:
            lines[place] = f"{table.row_texts[row]}{blanks}{delimiter}{_quote(error.message(), delimiter)}"
    out.write("\n".join(lines) + "\n")


def run_batch_files(formula_id: str, input_path: str, output_path: str, *,
                    settings: dict[str, float] | None = None, select=None) -> int:
    """The ``qmodel batch`` command: paths (``-`` for stdin/stdout) in, exit status out."""
    raw = sys.stdin.buffer.read() if input_path == "-" else _read_bytes(input_path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _file_error(input_path, "UTF-8 text", f"not UTF-8 ({error.reason})") from None
    if output_path == "-":
        summary = run_batch(formula_id, text, sys.stdout, sys.stderr, settings=settings,
                            select=select)
    else:
        buffer = io.StringIO()
        summary = run_batch(formula_id, text, buffer, sys.stderr, settings=settings, select=select)
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

