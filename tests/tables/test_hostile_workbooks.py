"""Workbooks that would take more than the limits to read, and .xlsx the format cannot hold (issue 33): each
refused in one line, with the estimate and a way out, before any reader allocates it
(qmodel/tables/sheetsize.py, qmodel/tables/workbook.py)."""

import io
import os
import struct
import zipfile

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.tables import sheetsize
from qmodel.tables.sheetsize import SheetSize, sheet_size
from qmodel.tables.workbook import MAX_CELL_TEXT, MAX_ROWS, SheetWriter, write_workbook

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
HEADER_ROW = (
    '<row r="1"><c r="A1" t="inlineStr"><is><t>arrival_rate</t></is></c>'
    '<c r="B1" t="inlineStr"><is><t>service_time</t></is></c></row>'
    '<row r="2"><c r="A2"><v>800</v></c><c r="B2"><v>1</v></c></row>'
)


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def one_line(result, status: int = 2) -> str:
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1, result.output
    return result.output


def xlsx(path, rows_xml: str) -> str:
    """A workbook whose one sheet holds ``rows_xml`` (its <sheetData>), the rest as qmodel writes it."""
    written = io.BytesIO()
    write_workbook(written, [("Sheet", [["x"]])])
    source = zipfile.ZipFile(io.BytesIO(written.getvalue()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = (
                    f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{MAIN}"><sheetData>'
                    f"{rows_xml}</sheetData></worksheet>"
                ).encode()
            out.writestr(item, data)
    return str(path)


def ods(path, rows_xml: str) -> str:
    """An OpenDocument spreadsheet whose one table holds ``rows_xml``."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f'<office:body><office:spreadsheet><table:table table:name="S">{rows_xml}</table:table>'
        "</office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
        '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type='
        '"application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path='
        '"content.xml" manifest:media-type="text/xml"/></manifest:manifest>'
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        out.writestr("content.xml", content)
        out.writestr("META-INF/manifest.xml", manifest)
    return str(path)


ODS_HEADER = (
    '<table:table-row><table:table-cell office:value-type="string"><text:p>arrival_rate</text:p>'
    '</table:table-cell><table:table-cell office:value-type="string"><text:p>service_time</text:p>'
    "</table:table-cell></table:table-row>"
)


# ----- the rectangle a reader holds -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("far", "rows", "columns"),
    [
        ("XFD1048576", 1_048_576, 16_384),  # the last cell of a sheet
        ("A1048576", 1_048_576, 2),  # far down only
        ("XFD3", 3, 16_384),  # far right only
    ],
)
def test_two_cells_far_apart_are_read_as_the_rectangle_between_them(tmp_path, far, rows, columns):
    path = xlsx(
        tmp_path / "far.xlsx",
        HEADER_ROW + f'<row r="{far.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}"><c r="{far}"><v>1</v></c></row>',
    )
    assert sheet_size(path, None, os.path.getsize(path))[:2] == (rows, columns)


@pytest.mark.parametrize("command", [["batch", "mm1"], ["scenario", "gdps-env2", "--variants"]])
def test_a1_and_xfd1048576_are_refused_with_the_estimate_before_the_reader_runs(tmp_path, command):
    path = xlsx(tmp_path / "far.xlsx", HEADER_ROW + '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>')
    message = one_line(run(*command, path))
    assert "1,048,576 rows × 16,384 columns" in message and "GB" in message and "save the sheet" in message


def test_cells_without_references_count_in_their_row(tmp_path):
    """A cell may omit its reference (placed after the one before): 20,000 of them in row 200,000 are
    20,000 columns, found by the count, not by a reference."""
    path = xlsx(
        tmp_path / "implied.xlsx", HEADER_ROW + '<row r="200000">' + "<c><v>1</v></c>" * 20_000 + "</row>"
    )
    size = sheet_size(path, None, os.path.getsize(path))
    assert size.rows == 200_000 and size.columns >= 20_000
    assert "rows ×" in one_line(run("batch", "mm1", path))


def test_a_dense_sheet_is_read_and_its_size_is_its_cells(tmp_path):
    path = xlsx(
        tmp_path / "dense.xlsx",
        HEADER_ROW
        + "".join(
            f'<row r="{row}"><c r="A{row}"><v>{row}</v></c><c r="B{row}"><v>1</v></c></row>'
            for row in range(3, 503)
        ),
    )
    assert sheet_size(path, None, os.path.getsize(path)) == SheetSize(502, 2, 1004)
    result = run("batch", "mm1", path)
    assert result.exit_code == 0 and "501 rows computed" in result.output


def test_an_ods_cell_repeated_past_the_limits_is_refused_and_empty_repeats_are_not_counted(tmp_path):
    bomb = ods(
        tmp_path / "bomb.ods",
        ODS_HEADER + '<table:table-row table:number-rows-repeated="500000">'
        '<table:table-cell table:number-columns-repeated="100" office:value-type="float" '
        'office:value="1"/></table:table-row>',
    )
    assert "500,001 rows × 100 columns" in one_line(run("batch", "mm1", bomb))  # 50e6 cells
    trailing = ods(
        tmp_path / "trailing.ods",
        ODS_HEADER + "<table:table-row><table:table-cell "
        'office:value-type="float" office:value="800"/><table:table-cell '
        'office:value-type="float" office:value="1"/></table:table-row><table:table-row '
        'table:number-rows-repeated="1048570"><table:table-cell '
        'table:number-columns-repeated="1024"/></table:table-row>',
    )
    assert sheet_size(trailing, None, 0) == SheetSize(2, 2, 4)  # a spreadsheet's own padding: no cells
    assert run("batch", "mm1", trailing).exit_code == 0


# ----- bytes: zip bombs, files that are not files -----------------------------------------------------


def test_a_workbook_declaring_parts_past_the_unpacked_limit_is_refused_unread(tmp_path):
    path = xlsx(tmp_path / "declared.xlsx", HEADER_ROW)
    data = bytearray(open(path, "rb").read())
    at = data.find(b"PK\x01\x02")  # the central directory: each entry's unpacked size at offset 24
    while at >= 0:
        struct.pack_into("<I", data, at + 24, 3_000_000_000 // 4)
        at = data.find(b"PK\x01\x02", at + 4)
    open(path, "wb").write(bytes(data))
    message = one_line(run("batch", "mm1", path))
    assert "unpacks to" in message and "zip bomb" in message


def test_a_part_that_unpacks_past_the_limit_as_it_is_read_is_refused(tmp_path, monkeypatch):
    """Declared sizes can lie: the bytes are counted as they unpack."""
    path = xlsx(tmp_path / "long.xlsx", HEADER_ROW + "<row r='3'></row>" * 100_000)
    monkeypatch.setattr(sheetsize, "UNPACKED_LIMIT", 1_000_000)
    with pytest.raises(InputError, match=r"unpacks to more than .* MB .* at most 1 MB"):
        sheetsize.refuse_large_workbook(path, None)


@pytest.mark.parametrize("name", ["input.xlsx", "input.ods"])
def test_a_fifo_named_as_a_workbook_is_refused_at_once(tmp_path, name):
    path = tmp_path / name
    os.mkfifo(path)
    assert "a FIFO" in one_line(run("batch", "mm1", path))


def test_a_workbook_file_past_its_size_limit_is_refused(tmp_path, monkeypatch):
    path = xlsx(tmp_path / "big.xlsx", HEADER_ROW)
    monkeypatch.setattr(sheetsize, "WORKBOOK_LIMIT", 100)
    with pytest.raises(InputError, match="a workbook up to 100 bytes"):
        sheetsize.refuse_large_workbook(path, None)


# ----- what an .xlsx can hold ----------------------------------------------------------------------------


def test_more_rows_than_a_sheet_holds_are_refused_naming_the_limit_and_csv():
    sheet = SheetWriter(io.BytesIO(), "results")
    sheet.count = MAX_ROWS - 1
    sheet.rows([[1.0]])
    with pytest.raises(InputError, match=r"at most 1,048,576 rows in an \.xlsx sheet.*-o OUT\.csv"):
        sheet.rows([[1.0]])


def test_text_longer_than_a_cell_holds_is_refused_naming_the_cell(tmp_path):
    source = tmp_path / "long.csv"
    source.write_text(
        "label,arrival_rate,service_time\nshort,800,1\n" + "x" * (MAX_CELL_TEXT + 1) + ",800,1\n",
        encoding="utf-8",
    )
    message = one_line(run("batch", "mm1", source, "-o", tmp_path / "out.xlsx"))
    assert "cell A3" in message and "32,767 characters" in message and "-o OUT.csv" in message
    assert not (tmp_path / "out.xlsx").exists()


def test_a_hidden_first_sheet_is_read_with_a_note(tmp_path):
    path = tmp_path / "hidden.xlsx"
    write_workbook(
        str(path),
        [
            ("Secret", [["arrival_rate", 800.0], ["service_time", 1.0]]),
            ("Shown", [["arrival_rate", 100.0], ["service_time", 1.0]]),
        ],
    )
    data = zipfile.ZipFile(path)
    parts = {name: data.read(name) for name in data.namelist()}
    parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace(
        b'name="Secret"', b'name="Secret" state="hidden"'
    )
    with zipfile.ZipFile(path, "w") as out:
        for name, content in parts.items():
            out.writestr(name, content)
    result = run("batch", "mm1", path)
    assert result.exit_code == 0 and "the first sheet, 'Secret', is hidden" in result.output
    assert "800,1,0.8," in result.output
