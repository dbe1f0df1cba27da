"""How a spreadsheet wrote its CSV: separator, decimal mark, line ends, byte-order mark; numbers in the
locale's marks read with a decimal point; a cell quoted as CSV needs.

Spreadsheets of every locale: the file's dialect is read from the file and the output is written in
it (see :class:`Dialect`): separator ``,`` ``;`` or TAB, decimal point or comma (``0,4`` in a ``;``
export), thousands separators where they cannot be mistaken (``1.234,5``; ``35,000`` in a ``,``
file), a UTF-8 or UTF-16 byte-order mark, and CRLF, LF or Mac CR-only line ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qmodel.errors import InputError
from qmodel.safetext import inert_cell

_DELIMITERS = (",", ";", "\t")


@dataclass(frozen=True)
class Dialect:
    """How a spreadsheet wrote its CSV, so the output is written the same way.

    ``decimal`` is the decimal mark of its numbers ("," in a German or French
    export); ``known`` says whether the file shows it (a cell such as 0,4 or
    0.4, or a "," separator) rather than qmodel assuming it from the separator.
    """

    delimiter: str = ","
    decimal: str = "."
    known: bool = True
    line_end: str = "\n"
    bom: bool = False


# evidence of a decimal mark: the mark between digits with other than 3 digits after it (0,4; 12.75)
_DECIMAL_EVIDENCE = {mark: re.compile(rf"\d{re.escape(mark)}(?:\d{{1,2}}|\d{{4,}})(?!\d)") for mark in ",."}


def sniff_decimal(delimiter: str, cells: list[str]) -> tuple[str, bool]:
    """(decimal mark, shown by the file) from the cells of the input columns
    (:func:`decide_decimal` of their :func:`decimal_evidence`)."""
    return decide_decimal(delimiter, *decimal_evidence(cells))


def decimal_evidence(cells: list[str]) -> tuple[int, int]:
    """(cells showing a decimal comma, cells showing a decimal point): 0,4 or 12,75 against 0.4 or 12.75
    (a mark with other than three digits after it); summed over the chunks of a long file."""
    joined = "\n".join(cells)
    return len(_DECIMAL_EVIDENCE[","].findall(joined)), len(_DECIMAL_EVIDENCE["."].findall(joined))


def decide_decimal(delimiter: str, comma: int, point: int) -> tuple[str, bool]:
    """(decimal mark, shown by the file) of a file with ``delimiter`` whose input cells show ``comma``
    decimal commas and ``point`` decimal points (:func:`decimal_evidence`).

    A "," separator means a decimal point. Otherwise the mark the cells show
    decides (the more common where both appear, and then the other is an error in its cells). Where
    they show none (whole numbers only) a ";" file is written with a decimal comma (";" is what Excel
    exports where the comma is the decimal mark: German, French, Dutch...) and a
    TAB file with a point; a cell that would read differently under the two marks
    (1,234 or 1.234) is refused as ambiguous.
    """
    if delimiter == ",":
        return ".", True
    if comma == point == 0:
        return ("," if delimiter == ";" else "."), False
    if comma == point:  # as many of each: a ";" export is a decimal-comma locale's
        return ("," if delimiter == ";" else "."), True
    return ("," if comma > point else "."), True


def sniff_delimiter(header_line: str) -> str:
    """The delimiter of a CSV file from its header: whichever of , ; TAB occurs most."""
    counts = {d: header_line.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


_GROUP_SPACE = re.compile(r"(?<=\d)[ \u00a0\u202f'](?=\d{3}(?!\d))")  # 1 234,5 and 1'234.5


_NUMERIC_PART = re.compile(r"[+-]?[\d.,]+")


def locale_number(name: str, cell: str, dialect: Dialect) -> str:
    """A cell's text with its number written with a decimal point and no thousands separators.

    In a decimal-comma file 1.234,5 is 1234.5 and 0,4 is 0.4; in a decimal-point
    file 1,234.5 is 1234.5. A thousands separator is accepted only between
    groups of three digits, the first not 0 (0.500 is never five hundred); 1,234
    where the file does not show its decimal mark is refused as ambiguous, as is
    a decimal mark the file does not use.
    """
    text = _GROUP_SPACE.sub("", cell.strip())
    match = _NUMERIC_PART.match(text)
    if match is None or ("," not in match.group() and "." not in match.group()):
        return text
    number, rest = match.group(), text[match.end() :]
    if not dialect.known and re.fullmatch(r"[+-]?[1-9]\d{0,2}[.,]\d{3}", number):
        return _ambiguous(name, cell, number)
    decimal = dialect.decimal
    thousands = "." if decimal == "," else ","
    whole, mark, fraction = number.partition(decimal)
    if decimal in fraction or thousands in fraction:
        raise InputError(
            name,
            cell,
            f"a number with {decimal!r} as decimal mark, as the file uses",
            reason="more than one decimal mark, or a separator after it",
        )
    if thousands in whole:
        grouped = re.fullmatch(rf"[+-]?[1-9]\d{{0,2}}(?:{re.escape(thousands)}\d{{3}})+", whole)
        if grouped is None:
            other = "comma" if thousands == "," else "point"
            raise InputError(
                name,
                cell,
                f"a number with {decimal!r} as decimal mark, as the file uses",
                reason=f"a decimal {other}, but the file's decimal mark is {decimal!r}",
            )
        whole = whole.replace(thousands, "")
    return f"{whole}.{fraction}{rest}" if mark else f"{whole}{rest}"


def _ambiguous(name: str, cell: str, number: str) -> str:
    digits = re.sub(r"[.,]", "", number)
    raise InputError(
        name,
        cell,
        f"a number the file makes clear, e.g. {digits} or {number.replace(',', '.')}",
        reason=f"ambiguous: the {number[-4]!r} could be a "
        "thousands separator or a decimal mark, and no other cell shows which",
    )


def quote_cell(cell: str, delimiter: str) -> str:
    """One CSV cell qmodel writes (an error message, a workbook's text, a rewritten row's cell): text a
    spreadsheet will not evaluate (:func:`qmodel.safetext.inert_cell`), quoted only where it must be."""
    cell = inert_cell(cell)
    if delimiter in cell or '"' in cell or "\n" in cell or "\r" in cell:
        return '"' + cell.replace('"', '""') + '"'
    return cell
