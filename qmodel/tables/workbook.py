"""Spreadsheet workbooks in and out: a sheet read as rows of cells, results written as an .xlsx.

Reading: .xlsx, .xlsm, .xlsb, .ods and the Excel 97-2003 .xls (BIFF8) with python-calamine, which
reads all of them quickly from one compiled reader and returns each cell as a number, text, a
boolean or a date: no locale guessing, a formula cell by the value the spreadsheet last computed
and saved. The header is the sheet's first non-empty row; rows are numbered as the spreadsheet
shows them. A workbook that cannot be read (encrypted, corrupt, a chart sheet, empty) is one
:class:`~qmodel.errors.InputError`.

Writing: a minimal Office Open XML workbook written here with zipfile (one inline-string or number
cell per value, no styles), which any spreadsheet opens; for 100,000 rows it is several times
faster than a general library and needs none.

python-calamine is imported only when a workbook is read, so the quick path never loads it.
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import math
import os
import stat
import zipfile
from collections.abc import Iterator, Sequence
from html import escape  # XML's entities; xml.sax.saxutils would load urllib (90 ms)
from pathlib import Path
from typing import IO, Any, BinaryIO, NamedTuple

import numpy as np

from qmodel.errors import InputError
from qmodel.tables.sheetsize import refuse_large_workbook

SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".ods", ".xls")
_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")  # zip (.xlsx, .xlsm, .xlsb, .ods), OLE (.xls, encrypted .xlsx)
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")  # the OLE stream of a password-protected .xlsx


class Sheet(NamedTuple):
    """One sheet as a table: its name, header cells (text), data rows and the spreadsheet's row
    number of the first data row (the header's plus one); whether it is a hidden first sheet, read by
    default (a note says so)."""

    name: str
    header: list[str]
    rows: list[list[Any]]
    first_row: int
    hidden: bool = False  # the first sheet, read by default, is hidden in the workbook


def is_workbook(path: str) -> bool:
    """Whether the file at ``path`` is a spreadsheet workbook rather than text: by its name, or by its
    first bytes (a zip or an OLE container) where it can be read (``-``, standard input, is text)."""
    if Path(path).suffix.lower() in SUFFIXES:
        return True
    if path == "-":
        return False
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO is never opened here: read as CSV, bounded
            return False
        with open(path, "rb") as handle:
            return looks_like_workbook(handle.read(8))
    except OSError:  # the reader gives the error
        return False


def looks_like_workbook(head: bytes) -> bool:
    """Whether bytes start as a workbook does: a zip (.xlsx, .ods) or an OLE container (.xls)."""
    return head.startswith(_MAGIC)


def _refuse(
    path: str, reason: str, allowed: str = "an .xlsx, .xlsm, .ods or .xls workbook, or CSV"
) -> InputError:
    return InputError("file", path, allowed, reason=reason)


def worksheet_names(path: str) -> list[str]:
    """The names of the worksheets (sheets of rows, not charts) of the readable workbook at ``path``, in
    the workbook's order; none where it cannot be read."""
    import python_calamine as calamine

    try:
        sheets = calamine.CalamineWorkbook.from_path(path).sheets_metadata
    except (calamine.CalamineError, calamine.ZipError, calamine.XmlError, OSError, ValueError):
        return []
    return [meta.name for meta in sheets if meta.typ == calamine.SheetTypeEnum.WorkSheet]


def read_sheet(path: str, sheet: str | None = None) -> Sheet:
    """The sheet ``sheet`` (default: the first) of the workbook at ``path`` as a :class:`Sheet`.

    Raises InputError, one line each, for a file that cannot be read, a password-protected
    workbook, an unknown sheet name, a chart sheet, an empty sheet and merged header cells.
    """
    import python_calamine as calamine  # a compiled reader: loaded only for a workbook

    refuse_large_workbook(path, sheet)  # before the reader allocates the sheet
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError as error:
        raise _refuse(path, error.strerror or "cannot read", "a readable file") from None
    if head.startswith(_MAGIC[1]) and _ENCRYPTED in head:
        raise _refuse(
            path,
            "password-protected (encrypted) workbook",
            "a workbook saved without a password (File > Save As, no password), or CSV",
        )
    try:
        book = calamine.CalamineWorkbook.from_path(path)
    except calamine.PasswordError:
        raise _refuse(
            path,
            "password-protected workbook",
            "a workbook saved without a password (File > Save As, no password), or CSV",
        ) from None
    except (calamine.CalamineError, calamine.ZipError, calamine.XmlError, OSError, ValueError) as error:
        reason = " ".join(str(error).split())[:120] or type(error).__name__
        raise _refuse(path, f"not a workbook qmodel can read ({reason})") from None
    sheets = book.sheets_metadata
    names = [meta.name for meta in sheets]
    worksheets = [meta.name for meta in sheets if meta.typ == calamine.SheetTypeEnum.WorkSheet]
    if not worksheets:
        raise _refuse(path, "no worksheet (charts or macros only)", "a workbook with a sheet of rows")
    default = sheet is None
    if sheet is None:
        first = sheets[0]
        if first.typ != calamine.SheetTypeEnum.WorkSheet:
            kind = str(first.typ).rsplit(".", 1)[-1].replace("Sheet", " sheet").strip().lower()  # chart sheet
            raise InputError(
                "--sheet",
                f"{first.name} (the first sheet, a {kind})",
                "--sheet NAME of a worksheet: " + ", ".join(worksheets),
                reason="not a sheet of rows",
            )
        sheet = first.name
    elif sheet not in names:
        raise InputError(
            "--sheet",
            sheet,
            "a sheet of " + Path(path).name + ": " + ", ".join(worksheets),
            reason="no such sheet",
        )
    elif sheet not in worksheets:
        raise InputError(
            "--sheet", sheet, "a worksheet: " + ", ".join(worksheets), reason="not a sheet of rows"
        )
    try:
        found = book.get_sheet_by_name(sheet)
        cells = found.to_python(skip_empty_area=True)
    except (calamine.CalamineError, calamine.ZipError, calamine.XmlError, ValueError) as error:
        reason = " ".join(str(error).split())[:120]
        raise _refuse(path, f"sheet {sheet!r} cannot be read ({reason})") from None
    if not cells or not any(cell != "" for cell in cells[0]):
        raise _refuse(path, f"sheet {sheet!r} is empty", "a sheet with a header row")
    header_row = (found.start or (0, 0))[0] + 1  # 1-based, as the spreadsheet shows it
    _refuse_merged_header(path, sheet, found.merged_cell_ranges or [], header_row - 1)
    header = [cell_text(cell) for cell in cells[0]]
    hidden = default and sheets[0].visible != calamine.SheetVisibleEnum.Visible
    return Sheet(sheet, header, cells[1:], header_row + 1, hidden)


def _refuse_merged_header(path: str, sheet: str, merged: list, header_index: int) -> None:
    """Merged header cells name one column for several: refused, naming the cells."""
    for (top, left), (bottom, right) in merged:
        if top <= header_index <= bottom and right > left:
            span = f"{_column_letter(left)}{top + 1}:{_column_letter(right)}{bottom + 1}"
            raise InputError(
                f"{path}: sheet {sheet!r}: header",
                f"merged cells {span}",
                "one header cell per column (unmerge the cells and name each column)",
                reason="merged header cells",
            )


def _column_letter(index: int) -> str:
    """The spreadsheet's letters for a 0-based column: 0 is A, 26 is AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def cell_text(cell: object) -> str:
    """A cell as text: a whole number without ``.0``, any other number in full (its shortest round trip),
    a date in ISO form, a boolean as the spreadsheet shows it."""
    if isinstance(cell, bool):
        return "TRUE" if cell else "FALSE"
    if isinstance(cell, float):
        return number_text(cell)
    if isinstance(cell, datetime.date | datetime.time):
        return cell.isoformat()
    return str(cell)


def number_text(cell: float) -> str:
    """A number cell as text: a whole number without ``.0``, any other in full (its shortest round trip)."""
    return str(int(cell)) if cell.is_integer() and abs(cell) < 1e16 else repr(cell)


def is_number(cell: object) -> bool:
    """Whether a cell holds a number (a boolean or a date does not)."""
    return isinstance(cell, float | int) and not isinstance(cell, bool)


# ----- writing ---------------------------------------------------------------------------------

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    "{sheets}</Types>"
)
_SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


MAX_ROWS, MAX_COLUMNS, MAX_CELL_TEXT = 1_048_576, 16_384, 32_767  # an .xlsx sheet's limits (Excel's)


def write_workbook(file: str | BinaryIO, sheets: Sequence[tuple[str, Sequence[Sequence[object]]]]) -> None:
    """Write ``sheets`` (name, columns of cells, each column's first cell in row 1) as an .xlsx to
    ``file`` (a path, or a binary file: a command's output, :mod:`qmodel.outfile`); :func:`columns_of`
    turns rows into columns.

    A float or int is a number cell (NaN or an infinity, which a spreadsheet cannot hold, and None
    or "" are an empty cell); a boolean a boolean; anything else its text (a date in ISO form).
    """
    with XlsxWriter(file, [name for name, _ in sheets]) as book:
        for _, columns in sheets:
            with book.sheet() as sheet:
                sheet.rows(columns)


class _Archive(zipfile.ZipFile):
    """A zip archive written only when told to close: one abandoned (its run interrupted or failed) is
    thrown away with its temporary file (:mod:`qmodel.outfile`), so collecting it writes nothing, where
    zipfile's own ``__del__`` would write its directory to a file already closed and print a traceback
    after the run's one line."""

    def __del__(self) -> None:
        return None


class XlsxWriter:
    """An .xlsx written as it comes: the sheets named first, then each sheet's rows a block at a time,
    one sheet after the other (a sheet's rows never all in memory). Minimal Office Open XML (one
    inline-string or number cell per value, no styles), which any spreadsheet opens."""

    def __init__(self, file: str | BinaryIO, names: Sequence[str]) -> None:
        taken: list[str] = []
        for index, name in enumerate(names):
            taken.append(_sheet_name(name, index, taken))
        self.names = taken
        self.archive = _Archive(file, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
        count = range(1, len(taken) + 1)
        self.archive.writestr(
            "[Content_Types].xml",
            _CONTENT_TYPES.format(
                sheets="".join(
                    f'<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="{_SHEET_TYPE}"/>'
                    for n in count
                )
            ),
        )
        self.archive.writestr("_rels/.rels", _ROOT_RELS)
        self.archive.writestr(
            "xl/workbook.xml",
            (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="{_MAIN}" '
                f'xmlns:r="{_RELS}"><sheets>'
                + "".join(
                    f'<sheet name="{escape(name)}" sheetId="{n}" r:id="rId{n}"/>'
                    for n, name in enumerate(taken, 1)
                )
                + "</sheets></workbook>"
            ),
        )
        self.archive.writestr(
            "xl/_rels/workbook.xml.rels",
            (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                + "".join(
                    f'<Relationship Id="rId{n}" Type="{_RELS}/worksheet" Target="worksheets/sheet{n}.xml"/>'
                    for n in count
                )
                + "</Relationships>"
            ),
        )
        self.written = 0

    def __enter__(self) -> XlsxWriter:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        """The archive finished, or on an error or an interrupt abandoned: the caller drops the temporary
        file whole, and a half-closed archive must not try to finish itself on a closed file later (its
        ``__del__`` printed "seek of closed file" after a Ctrl-C)."""
        try:
            if kind is None:
                self.archive.close()
        finally:
            self.archive.fp = None  # closed or abandoned: nothing left for ZipFile.__del__ to write

    @contextlib.contextmanager
    def sheet(self) -> Iterator[SheetWriter]:
        """The next sheet, written as its rows are given (:meth:`SheetWriter.rows`)."""
        self.written += 1
        with self.archive.open(f"xl/worksheets/sheet{self.written}.xml", "w") as part:
            part.write(
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                f'<worksheet xmlns="{_MAIN}"><sheetData>'.encode()
            )
            yield SheetWriter(part, self.names[self.written - 1])
            part.write(b"</sheetData></worksheet>")

    def copy_sheet(self, rows_xml: BinaryIO) -> None:
        """The next sheet, its rows' XML (:meth:`SheetWriter.xml`) copied from a file."""
        with self.sheet() as sheet:
            rows_xml.seek(0)
            while piece := rows_xml.read(1 << 20):
                sheet.part.write(piece)


class SheetWriter:
    """Rows appended to one sheet of an :class:`XlsxWriter`, numbered from 1."""

    def __init__(self, part: IO[bytes], name: str) -> None:
        self.part, self.name, self.count = part, name, 0

    def rows(self, columns: Sequence[Sequence[object]]) -> None:
        """Append rows given as columns of cells (each column as long)."""
        self.part.write(self.xml(columns))

    def xml(self, columns: Sequence[Sequence[object] | np.ndarray]) -> bytes:
        """The XML of the rows of ``columns`` as the next rows of this sheet (counted as written). A column
        is a float array (NaN: an empty cell) or a sequence of cells (:func:`_cell`).

        Rows whose every cell is a finite number or non-empty text that needs no escaping, the common
        case, are written :data:`_BLOCK` at a time by one ``%`` format of a row template (C's loop, not
        Python's); any other row cell by cell."""
        height = len(columns[0]) if len(columns) else 0
        first = self.count + 1
        if self.count + height > MAX_ROWS:
            raise InputError(
                "-o",
                f"{self.count + height:,} rows in sheet {self.name!r}",
                f"at most {MAX_ROWS:,} rows in an .xlsx sheet (the format's limit): "
                "-o OUT.csv, or fewer rows in the input",
                reason="more rows than a sheet holds",
            )
        if len(columns) > MAX_COLUMNS:
            raise InputError(
                "-o",
                f"{len(columns):,} columns in sheet {self.name!r}",
                f"at most {MAX_COLUMNS:,} columns in an .xlsx sheet: -o OUT.csv",
                reason="more columns than a sheet holds",
            )
        self.count += height
        letters = [_column_letter(index) for index in range(len(columns))]
        for index, column in enumerate(columns):
            if not isinstance(column, np.ndarray):
                _refuse_long_text(letters[index], column, first, self.name)
        pieces: list[str] = []
        for start in range(0, height, _BLOCK):
            stop = min(start + _BLOCK, height)
            pieces.append(_rows_xml([column[start:stop] for column in columns], letters, first + start))
        return "".join(pieces).encode()


_BLOCK = 1 << 14  # rows formatted at a time


def _rows_xml(columns: Sequence[Sequence[object] | np.ndarray], letters: list[str], first: int) -> str:
    """The XML of the rows of ``columns`` (first row number ``first``): the plain rows by a template,
    the others cell by cell (see :meth:`SheetWriter.xml`). A column mostly empty (an error column) is
    left out of the template, and its rows with a cell are the ones written cell by cell."""
    height = len(columns[0]) if len(columns) else 0
    plain = np.ones(height, dtype=bool)
    template, fields = [], []
    numbers = list(range(first, first + height))
    for letter, column in zip(letters, columns, strict=True):
        if isinstance(column, np.ndarray) and column.dtype.kind == "f":
            plain &= np.isfinite(column)
            template.append(f'<c r="{letter}%d"><v>%r</v></c>')
            fields += [numbers, column.tolist()]
            continue
        cells = list(column)
        present = np.fromiter((cell is not None and cell != "" for cell in cells), dtype=bool, count=height)
        filled = [cells[row] for row in np.flatnonzero(present).tolist()]
        kinds = {type(cell) for cell in filled}
        if 2 * len(filled) < height:  # mostly empty: out of the template
            plain &= ~present
        elif kinds <= {str} and _plain_texts(filled):
            plain &= present
            template.append(f'<c r="{letter}%d" t="inlineStr"><is><t>%s</t></is></c>')
            fields += [numbers, cells]
        elif kinds <= {float, int} and all(map(math.isfinite, filled)):
            plain &= present
            template.append(f'<c r="{letter}%d"><v>%r</v></c>')
            fields += [numbers, [float(cell) if cell is not None and cell != "" else 0.0 for cell in cells]]
        else:
            plain[:] = False
    if plain.all():
        row = '<row r="%d">' + "".join(template) + "</row>"
        return (row * height) % tuple(itertools.chain.from_iterable(zip(numbers, *fields, strict=True)))
    out, done = [], 0
    for number in np.flatnonzero(~plain).tolist():  # the plain rows between, a run at a time
        if number > done:
            out.append(_rows_xml([column[done:number] for column in columns], letters, first + done))
        cells = [
            _cell(f"{letter}{first + number}", _at(column, number))
            for letter, column in zip(letters, columns, strict=True)
        ]
        out.append(f'<row r="{first + number}">{"".join(cells)}</row>')
        done = number + 1
    if done < height:
        out.append(_rows_xml([column[done:] for column in columns], letters, first + done))
    return "".join(out)


def _at(column: Sequence[object] | np.ndarray, row: int) -> object:
    value = column[row]
    return value.item() if isinstance(value, np.generic) else value


def _plain_texts(cells: list[str]) -> bool:
    """Whether text cells need no escaping in XML: no & < >, no control character, no space at an end
    (which XML would drop)."""
    joined = "\x00".join(cells)
    markup = "&" in joined or "<" in joined or ">" in joined
    return (
        not markup
        and joined.replace("\x00", "").isprintable()
        and all(cell == cell.strip() for cell in cells if cell[:1].isspace() or cell[-1:].isspace())
    )


def _refuse_long_text(letter: str, column: Sequence[object], first: int, sheet: str) -> None:
    """Text longer than an .xlsx cell holds, refused naming the cell."""
    longest = max((len(value) for value in column if isinstance(value, str)), default=0)
    if longest > MAX_CELL_TEXT:
        number = first + next(
            place for place, value in enumerate(column) if isinstance(value, str) and len(value) == longest
        )
        raise InputError(
            "-o",
            f"cell {letter}{number} of sheet {sheet!r} ({longest:,} characters)",
            f"at most {MAX_CELL_TEXT:,} characters in an .xlsx cell (the format's limit): "
            "-o OUT.csv, or a shorter cell in the input",
            reason="more text than a cell holds",
        )


def columns_of(rows: Sequence[Sequence[object]]) -> list[list[object]]:
    """Rows of cells as columns, a short row padded with empty cells."""
    width = max((len(row) for row in rows), default=0)
    return [[row[index] if index < len(row) else None for row in rows] for index in range(width)]


def _cell(reference: str, value: object) -> str:
    """One cell's XML at ``reference`` (B7): a number, a boolean, or inline text."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return f'<c r="{reference}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, float | int):
        return f'<c r="{reference}"><v>{float(value)!r}</v></c>' if math.isfinite(value) else ""
    text = cell_text(value)
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c r="{reference}" t="inlineStr"><is><t{space}>{_text(_xml_text(text))}</t></is></c>'


def _text(text: str) -> str:
    """Text escaped for an XML element (& < >)."""
    return escape(text, quote=False)


def _xml_text(text: str) -> str:
    """Text without the control characters XML 1.0 cannot hold (a tab and line ends stay)."""
    if text.isprintable():
        return text
    return "".join(c for c in text if c in "\t\n\r" or (c >= " " and c not in "\ufffe\uffff"))


def _sheet_name(name: str, index: int, taken: list[str]) -> str:
    """A sheet name a spreadsheet takes: at most 31 characters, none of []:*?/\\, not one already
    ``taken`` (ignoring case)."""
    cleaned = "".join("_" if c in "[]:*?/\\" else c for c in name).strip("'")[:31] or f"Sheet{index + 1}"
    while cleaned.lower() in {other.lower() for other in taken}:
        cleaned = f"{cleaned[:28]} {index + 1}"
        index += 1
    return cleaned
