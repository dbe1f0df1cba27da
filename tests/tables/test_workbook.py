"""Workbooks in and out: `batch` and `scenario --variants` read .xlsx (numbers as numbers, rows as the
spreadsheet numbers them) and write -o OUT.xlsx; a workbook that cannot be used is one line, exit 2."""

import csv
import datetime
import gc
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import openpyxl
import pytest
import python_calamine
from click.testing import CliRunner

from qmodel import __version__
from qmodel.catalogue.evaluate import calc
from qmodel.cli import cli
from qmodel.scenario.files import resolve_scenario
from qmodel.tables.workbook import XlsxWriter, cell_text, columns_of, write_workbook


def book(path, rows, title="Disks", before=()):
    """An .xlsx whose first sheet ``title`` holds ``rows`` (None: an empty cell); ``before``: sheets
    (chart sheets) placed ahead of it."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = title
    for row in rows:
        sheet.append(list(row))
    for index, name in enumerate(before):
        workbook.create_chartsheet(name, index)
    workbook.save(path)
    return path


def write_rows(path, named_rows):
    """An .xlsx written by qmodel's writer from (sheet name, rows)."""
    write_workbook(str(path), [(name, columns_of(rows)) for name, rows in named_rows])


def sheets(path) -> dict[str, list[list]]:
    """Every sheet of a workbook as calamine reads it back."""
    reader = python_calamine.CalamineWorkbook.from_path(str(path))
    return {name: reader.get_sheet_by_name(name).to_python() for name in reader.sheet_names}


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


ROWS = [
    (),  # row 1 empty: the header is in row 2
    ("Arrival Rate (1/s)", "service_time [us]", "label"),
    (800, 1000, "disk A"),  # row 3
    (700, "1ms", "disk B"),  # row 4: text with its own unit
    (),  # row 5: a blank row, kept
    (600, datetime.datetime(2024, 1, 2), "disk C"),  # row 6: a date where a number belongs
    ("n/a", 1000, "disk D"),  # row 7: text in a number column
    (2000, 1000, "disk E"),  # row 8: unstable
]


def test_a_workbook_row_gives_what_the_same_row_gives_alone_and_bad_rows_are_named_by_sheet_row(tmp_path):
    result = run("batch", "mm1", book(tmp_path / "in.xlsx", ROWS))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == (
        "Arrival Rate (1/s),service_time [us],label,utilization[ratio],waiting_time[ms],"
        "response_time[ms],number_in_queue,number_in_system,error"
    )
    alone = calc("mm1", arrival_rate=800, service_time=1.0)
    assert lines[1].split(",")[5] == f"{float(alone.response_time):.12g}"
    other = calc("mm1", arrival_rate=700, service_time=1.0)
    assert lines[2].split(",")[5] == f"{float(other.response_time):.12g}"
    assert lines[3] == ",," + "," * 6  # the blank row, as wide as the others
    assert "mm1: row 6: service_time = 2024-01-02 (a date or time where a number belongs)" in result.output
    assert "mm1: row 7: arrival_rate = 'n/a'" in result.output
    assert "mm1: row 8: utilization = 2 (the queue is unstable" in result.output
    assert "mm1: 2 rows computed, 3 failed, 1 blank line(s) kept as they were" in result.output


def test_the_results_workbook_has_numbers_as_numbers_the_failed_rows_and_the_run(tmp_path):
    target = tmp_path / "out.xlsx"
    result = run("batch", "mm1", book(tmp_path / "in.xlsx", ROWS), "-o", target)
    assert result.exit_code == 1, result.output
    written = sheets(target)
    assert list(written) == ["Disks", "failed rows", "run"]
    rows = written["Disks"]
    assert rows[0][3:] == [
        "utilization[ratio]",
        "waiting_time[ms]",
        "response_time[ms]",
        "number_in_queue",
        "number_in_system",
        "error",
    ]
    assert rows[1][:3] == [800.0, 1000.0, "disk A"] and rows[1][3] == pytest.approx(0.8, rel=1e-15)
    assert rows[1][5] == float(calc("mm1", arrival_rate=800, service_time=1.0).response_time)  # every digit
    assert rows[1][-1] == "" and rows[3] == [""] * 9
    assert rows[4][3:8] == [""] * 5 and "a date or time" in rows[4][-1]
    failed = written["failed rows"]
    assert failed[0] == ["row", "Arrival Rate (1/s)", "service_time [us]", "label", "error"]
    assert [row[0] for row in failed[1:]] == [6.0, 7.0, 8.0]
    run_sheet = dict((row[0], row[1]) for row in written["run"])
    assert run_sheet["qmodel"] == __version__ and run_sheet["formula"] == "mm1"
    assert run_sheet["response_time[ms]"] == "service_time/(1 - utilization)"
    assert run_sheet["rows computed"] == 2.0 and run_sheet["rows failed"] == 3.0
    assert openpyxl.load_workbook(target).sheetnames == ["Disks", "failed rows", "run"]  # a second reader


def test_a_formula_cell_is_read_by_the_value_the_spreadsheet_saved(tmp_path):
    source = tmp_path / "in.xlsx"
    write_rows(source, [("Sheet1", [["arrival_rate", "service_time"], [800, 1]])])
    with zipfile.ZipFile(source) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"].replace(
        b'<c r="A2"><v>800.0</v></c>', b'<c r="A2"><f>400*2</f><v>800</v></c>'
    )
    with zipfile.ZipFile(source, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    result = run("batch", "mm1", source)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1].startswith("800,1,0.8,")


def test_sheet_picks_the_sheet_and_an_unknown_one_is_named(tmp_path):
    source = tmp_path / "in.xlsx"
    write_rows(
        source, [("Notes", [["written by hand"]]), ("Disks", [["arrival_rate", "service_time"], [800, 1]])]
    )
    assert run("batch", "mm1", source, "--sheet", "Disks").exit_code == 0
    result = run("batch", "mm1", source, "--sheet", "Disk")
    assert result.exit_code == 2
    assert result.output == (
        "error: --sheet = Disk (no such sheet); allowed: a sheet of in.xlsx: Notes, Disks\n"
    )


def test_sheet_with_a_csv_file_is_refused(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800,1\n", encoding="utf-8")
    result = run("batch", "mm1", source, "--sheet", "Disks")
    assert result.exit_code == 2 and result.output.startswith("error: --sheet = Disks (")


def test_a_csv_written_to_a_workbook_has_its_plain_numbers_as_numbers(tmp_path):
    source, target = tmp_path / "in.csv", tmp_path / "out.xlsx"
    source.write_text("arrival_rate,service_time,label\n800,1,0012x\n", encoding="utf-8")
    assert run("batch", "mm1", source, "-o", target).exit_code == 0
    assert sheets(target)["in"][1][:4] == [800.0, 1.0, "0012x", 0.8]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([], "sheet 'Disks' is empty"),
        ([(None, None)], "sheet 'Disks' is empty"),
    ],
)
def test_an_empty_workbook_is_one_line(tmp_path, rows, message):
    result = run("batch", "mm1", book(tmp_path / "in.xlsx", rows))
    assert result.exit_code == 2 and result.output.count("\n") == 1 and message in result.output


def test_a_chart_sheet_first_is_one_line_naming_the_worksheets(tmp_path):
    source = book(tmp_path / "in.xlsx", [("arrival_rate", "service_time"), (800, 1)], before=["Chart1"])
    result = run("batch", "mm1", source)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "Chart1 (the first sheet, a chart sheet)" in result.output
    assert "--sheet NAME of a worksheet: Disks" in result.output
    assert run("batch", "mm1", source, "--sheet", "Disks").exit_code == 0


def test_merged_header_cells_are_one_line_naming_them(tmp_path):
    source = tmp_path / "in.xlsx"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["arrival_rate", "service time", None])
    sheet.append([800, 1, 2])
    sheet.merge_cells("B1:C1")
    workbook.save(source)
    result = run("batch", "mm1", source)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "merged cells B1:C1 (merged header cells)" in result.output


def test_a_password_protected_workbook_is_one_line(tmp_path):
    # an encrypted .xlsx is an OLE container holding an "EncryptedPackage" stream (MS-OFFCRYPTO 2.3.4.4)
    source = tmp_path / "secret.xlsx"
    stream = "EncryptedPackage".encode("utf-16-le")
    source.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504 + stream + b"\0" * 1024)
    result = run("batch", "mm1", source)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "password-protected" in result.output


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600),
        ("book.ods", b"PK\x03\x04 truncated"),
        ("book.xlsx", b"not a zip at all"),
    ],
)
def test_a_corrupt_workbook_of_each_format_is_one_line(tmp_path, name, content):
    source = tmp_path / name
    source.write_bytes(content)
    result = run("batch", "mm1", source)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "not a workbook qmodel can read" in result.output


def test_variants_from_a_workbook_give_what_the_same_csv_gives(tmp_path):
    source = tmp_path / "what-if.xlsx"
    write_rows(
        source,
        [
            (
                "Variants",
                [
                    [],
                    ["distance [km]", "member.G1P2.terminals", "note"],
                    [20, 30, "base"],
                    [40, 60, "double"],
                    [60, "many", "bad"],
                ],
            )
        ],
    )
    csv = tmp_path / "what-if.csv"
    csv.write_text(
        "distance [km],member.G1P2.terminals,note\n20,30,base\n40,60,double\n60,many,bad\n", encoding="utf-8"
    )
    from_book = run("scenario", "gdps-env2", "--variants", source)
    from_csv = run("scenario", "gdps-env2", "--variants", csv)
    assert from_book.exit_code == from_csv.exit_code == 1
    book_lines, csv_lines = from_book.output.splitlines(), from_csv.output.splitlines()
    assert book_lines[:3] == csv_lines[:3]
    assert "what-if.xlsx: row 5: column member.G1P2.terminals = many" in from_book.output  # the sheet's row
    assert "what-if.csv: row 4: column member.G1P2.terminals = many" in from_csv.output


def test_variants_write_a_workbook_with_numbers_as_numbers(tmp_path):
    source, target = tmp_path / "what-if.csv", tmp_path / "out.xlsx"
    source.write_text("distance,member.G1P2.terminals\n20km,30\n", encoding="utf-8")
    result = run("scenario", "gdps-env2", "--variants", source, "-o", target)
    assert result.exit_code == 0, result.output
    rows = sheets(target)["what-if"]
    assert rows[0][:3] == ["distance", "member.G1P2.terminals", "G1P1_response_time[ms]"]
    assert rows[0][-1] == "error"
    assert isinstance(rows[1][2], float) and rows[1][2] > 0


def test_sheet_without_variants_is_refused(tmp_path):
    result = run("scenario", "gdps-env2", "--sheet", "Variants")
    assert result.exit_code == 2 and "--sheet" in result.output


@pytest.mark.parametrize(
    ("cell", "text"),
    [
        (800.0, "800"),
        (0.1, "0.1"),
        (1e20, "1e+20"),
        (True, "TRUE"),
        (datetime.date(2024, 1, 2), "2024-01-02"),
        ("x", "x"),
    ],
)
def test_a_cell_reads_as_text_as_the_spreadsheet_shows_it(cell, text):
    assert cell_text(cell) == text


def test_the_writer_keeps_every_digit_and_leaves_nan_empty(tmp_path):
    target = tmp_path / "out.xlsx"
    values = [0.1 + 0.2, 1 / 3, 1e-300, -0.0, 12345678901234567.0]
    write_rows(target, [("S", [[*values, np.nan, None, "a<&>b", "  padded "]])])
    row = sheets(target)["S"][0]
    assert row[:5] == values and row[5:7] == ["", ""] and row[7:] == ["a<&>b", "  padded "]


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_the_results_workbook_opens_in_libreoffice_with_every_number_a_number(tmp_path):
    target = tmp_path / "out.xlsx"
    run("batch", "mm1", book(tmp_path / "in.xlsx", ROWS), "-o", target)
    every_sheet = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1"
    for conversion in (every_sheet, "ods"):
        subprocess.run(
            ["soffice", "--headless", "--convert-to", conversion, "--outdir", str(tmp_path), str(target)],
            check=True,
            capture_output=True,
            timeout=300,
            env={**os.environ, "HOME": str(tmp_path)},
        )
    ours, resaved = sheets(target), sheets(tmp_path / "out.ods")
    assert list(resaved) == list(ours)
    for name, rows in ours.items():
        shown = list(csv.reader((tmp_path / f"out-{name}.csv").open(encoding="utf-8")))
        assert len(shown) == len(rows) == len(resaved[name])
        for row, as_csv, as_ods in zip(rows, shown, resaved[name], strict=True):
            for cell, text, again in zip(row, as_csv, as_ods, strict=False):
                if isinstance(cell, float):  # LibreOffice keeps 15 significant digits
                    assert isinstance(again, float) and again == pytest.approx(cell, rel=1e-14)
                    assert float(text) == pytest.approx(cell, rel=1e-14)
                elif isinstance(cell, bool):  # a boolean is a number formatted TRUE/FALSE there
                    assert again == float(cell) and text == str(cell).upper()
                else:
                    assert again == cell and text == cell


def notes_first(path, rows, title="Week 14"):
    """An .xlsx opening on a sheet of notes, ``rows`` on the sheet ``title`` after it."""
    workbook = openpyxl.Workbook()
    workbook.active.title = "Notes"
    workbook.active.append(["Taken from RMF, peak hour"])
    sheet = workbook.create_sheet(title)
    for row in rows:
        sheet.append(list(row))
    workbook.save(path)
    return path


@pytest.mark.parametrize(
    "command, rows",
    [
        (["batch", "mm1", "IN", "-o", "OUT.csv"], [("arrival_rate", "service_time [ms]"), (100, 1)]),
        (["scenario", "gdps-env2", "--variants", "IN", "-o", "OUT.csv"], [("distance",), ("20km",)]),
        (
            ["scenario", "calibrate", "SCENARIO", "IN", "--free", "member.G1P1.other"],
            [("distance", "member", "quantity", "value"), ("0km", "G1P1", "response_time", "10ms")],
        ),
    ],
    ids=["batch", "variants", "calibrate"],
)
def test_a_workbook_opening_on_notes_is_refused_offering_its_other_sheets_by_name(tmp_path, command, rows):
    shutil.copy(resolve_scenario("gdps-env2"), tmp_path / "env2.toml")
    given = notes_first(tmp_path / "in.xlsx", rows)
    names = {"IN": given, "OUT.csv": tmp_path / "out.csv", "SCENARIO": tmp_path / "env2.toml"}
    refused = run(*[names.get(arg, arg) for arg in command])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    assert "--sheet 'Week 14' (the first sheet, Notes, was read" in refused.output
    assert not (tmp_path / "out.csv").exists()
    read = run(*[names.get(arg, arg) for arg in command], "--sheet", "Week 14")
    assert "the first sheet, Notes" not in read.output and "columns =" not in read.output


def test_a_one_sheet_workbook_with_a_bad_header_offers_no_other_sheet(tmp_path):
    refused = run("batch", "mm1", book(tmp_path / "in.xlsx", [("Taken from RMF",)]), "-o", tmp_path / "o.csv")
    assert refused.exit_code == 2 and "columns =" in refused.output and "--sheet" not in refused.output


def test_a_workbook_abandoned_mid_run_writes_nothing_when_collected(tmp_path, monkeypatch):
    # an interrupted batch drops its writer after the temporary file is closed: collecting it must not
    # write the zip's directory to that closed file (zipfile's __del__ printed a traceback after the line)
    ignored = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    handle = open(tmp_path / "partial.xlsx", "wb")  # closed under the writer, as an interrupted run does
    writer = XlsxWriter(handle, ["results", "failed rows", "run"])
    handle.close()
    del writer
    gc.collect()
    assert ignored == []
