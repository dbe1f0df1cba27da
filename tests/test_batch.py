"""CSV batch: spreadsheet quirks, pass-through columns, per-row errors, exit statuses."""

import csv
import io

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from qmodel.batch import _Progress, run_batch
from qmodel.cli import cli
from qmodel.errors import InputError


def batch(formula_id: str, text: str):
    out, err = io.StringIO(), io.StringIO()
    summary = run_batch(formula_id, text, out, err)
    delimiter = ";" if ";" in out.getvalue().splitlines()[0] else ","
    rows = list(csv.DictReader(io.StringIO(out.getvalue()), delimiter=delimiter))
    return summary, rows, err.getvalue()


def test_rows_come_back_in_order_with_results_appended() -> None:
    summary, rows, _ = batch("mm1", "arrival_rate,service_time\n800,1\n100,1\n500,1\n")
    assert summary.status == 0
    assert [row["arrival_rate"] for row in rows] == ["800", "100", "500"]
    assert float(rows[0]["response_time[ms]"]) == pytest.approx(5.0)
    assert rows[0]["error"] == ""


def test_unknown_columns_pass_through_unchanged() -> None:
    _, rows, _ = batch("mm1", 'volume,arrival_rate,service_time,note\nDBX232, 800 ,1,"a, b"\n')
    assert rows[0]["volume"] == "DBX232"
    assert rows[0]["note"] == "a, b"
    assert rows[0]["arrival_rate"] == " 800 "


def test_utf8_bom_crlf_semicolons_and_trailing_blank_lines_are_handled() -> None:
    text = "\ufeffarrival_rate;service_time\r\n800;1\r\n400;2\r\n\r\n\r\n"
    summary, rows, _ = batch("mm1", text)
    assert summary.rows == 2 and summary.status == 0
    assert rows[1]["utilization[ratio]"] == "0,8"  # a ";" file with whole numbers: a decimal comma


def test_quoted_fields_with_delimiters_inside() -> None:
    _, rows, _ = batch("mm1", 'name;arrival_rate;service_time\n"A;B";800;1\n')
    assert rows[0]["name"] == "A;B"


def test_header_unit_converts_the_column() -> None:
    _, rows, _ = batch("mm1", "arrival_rate,service_time[us]\n800,1000\n")
    assert float(rows[0]["response_time[ms]"]) == pytest.approx(5.0)


def test_cells_may_use_the_cli_value_forms() -> None:
    _, rows, _ = batch(
        "capacity_at_utilization", "throughput,utilization,target_utilization\n163K,73%,0.85\n"
    )
    assert float(rows[0]["projected_throughput[1/s]"]) == pytest.approx(163_000 * 0.85 / 0.73)


def test_defaults_apply_when_a_column_is_absent() -> None:
    _, rows, _ = batch("transaction_elongation", "cf_requests,sync_writes,distance\n12,4,70\n")
    assert float(rows[0]["elongation[ms]"]) == pytest.approx(14.0)


def test_bad_rows_are_reported_and_good_rows_still_computed() -> None:
    text = "arrival_rate,service_time\n800,1\nabc,1\n-5,1\n1200,1\n,1\n100,1\n"
    summary, rows, err = batch("mm1", text)
    assert summary.status == 1
    assert sorted(summary.errors) == [1, 2, 3, 4]
    assert rows[0]["error"] == "" and rows[5]["error"] == ""
    assert float(rows[5]["response_time[ms]"]) == pytest.approx(1 / 0.9)
    assert "not a number" in rows[1]["error"]
    assert "arrival_rate = -5" in rows[2]["error"]
    assert "unstable" in rows[3]["error"]
    assert "missing cell" in rows[4]["error"]
    assert rows[3]["response_time[ms]"] == ""
    for row_number in (3, 4, 5, 6):  # as a spreadsheet numbers them: the header is row 1
        assert f"row {row_number}:" in err


def test_row_of_the_wrong_width_is_an_error_row() -> None:
    summary, rows, _ = batch("mm1", "arrival_rate,service_time\n800,1,9\n100,1\n")
    assert list(summary.errors) == [0]
    assert "wrong width" in rows[0]["error"]
    assert rows[1]["error"] == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no header"),
        ("\ufeff\r\n\r\n", "no header"),
        ("volume,arrival_rate\nA,800\n", "missing required column"),
        ("arrival_rate,service_time[km]\n800,1\n", "unit does not fit"),
        ("arrival_rate,service_time,service_time\n800,1,1\n", "input given twice"),
    ],
)
def test_unusable_file_is_a_file_level_error(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        batch("mm1", text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("arrival_rate,service_time\n", "a header only"),
        ("arrival_rate,service_time\n\n,\n", "blank rows only"),
    ],
)
def test_a_file_without_rows_is_refused_as_scenario_variants_refuses_it(text: str, value: str) -> None:
    with pytest.raises(InputError, match=rf"^file = {value} \(no rows\)"):
        batch("mm1", text)


def test_a_header_naming_no_input_is_reported_before_the_missing_rows() -> None:
    with pytest.raises(InputError, match="missing required column"):
        batch("mm1", "arrival_rate\n")


def test_cli_batch_exit_status_is_1_when_a_row_failed(tmp_path) -> None:
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800,1\n2000,1\n", encoding="utf-8")
    target = tmp_path / "out.csv"
    result = CliRunner().invoke(cli, ["batch", "mm1", str(source), "-o", str(target)])
    assert result.exit_code == 1
    assert "row 3:" in result.output
    assert len(target.read_text(encoding="utf-8").splitlines()) == 3


def test_cli_batch_reads_stdin_and_writes_stdout() -> None:
    result = CliRunner().invoke(cli, ["batch", "mm1", "-"], input="arrival_rate,service_time\n800,1\n")
    assert result.exit_code == 0
    assert result.output.splitlines()[0].endswith("number_in_system,error")


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["batch", "mm9", "-"], "a\n1\n"),
        (["batch", "mm1", "-"], ""),
        (["batch", "mm1", "-"], "volume\nA\n"),
        (["batch", "mm1", "/no/such/file.csv"], ""),
    ],
)
def test_cli_batch_exit_status_is_2_for_an_unusable_file(args, stdin) -> None:
    result = CliRunner().invoke(cli, args, input=stdin)
    assert result.exit_code == 2
    assert result.output.startswith("error: ")


def test_a_file_neither_utf8_nor_windows_1252_is_refused_with_how_to_save_it_as_utf8() -> None:
    result = CliRunner().invoke(cli, ["batch", "mm1", "-"], input=b"arrival_rate\x81\n")
    assert result.exit_code == 2
    assert "UTF-8" in result.output and "Save As" in result.output


def test_a_windows_1252_export_is_read_with_a_note_and_written_back_in_it(tmp_path) -> None:
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    source.write_bytes("Gerät;arrival_rate;service_time\r\nPlatte ü;800;1\r\n".encode("cp1252"))
    result = CliRunner().invoke(cli, ["batch", "mm1", str(source), "-o", str(target)])
    assert result.exit_code == 0 and "read as Windows-1252" in result.output
    assert target.read_bytes().split(b"\r\n")[1].startswith("Platte ü;800;1;0,8;".encode("cp1252"))


def test_a_tab_file_of_whole_numbers_keeps_decimal_points() -> None:
    written, _, _ = run_text("mm1", "arrival_rate\tservice_time\n800\t1\n")
    assert written.splitlines()[1].split("\t")[2] == "0.8"


def test_extra_cells_of_a_wide_row_are_named_in_its_error() -> None:
    _, rows, _ = batch("mm1", "arrival_rate,service_time\n800,1,9\n")
    assert "extra cells: 9" in rows[0]["error"]


def test_quoted_field_spanning_lines_passes_through_verbatim() -> None:
    out, err = io.StringIO(), io.StringIO()
    run_batch("mm1", 'note,arrival_rate,service_time\n"two\nlines",800,1\n', out, err)
    assert out.getvalue().splitlines()[1:3] == ['"two', 'lines",800,1,0.8,4,5,3.2,4,']


def test_blank_line_inside_the_data_is_kept_in_place_and_not_a_failed_row() -> None:
    # issue 12: a blank line is not a failed row; it is written back where it was
    out, err = io.StringIO(), io.StringIO()
    summary = run_batch("mm1", "arrival_rate,service_time\n800,1\n\n100,1\n", out, err)
    assert summary.errors == {} and summary.status == 0
    assert summary.rows == 2 and summary.blank_lines == 1
    assert out.getvalue().splitlines()[2] == ""
    assert out.getvalue().splitlines()[3].startswith("100,1,0.1,")


def test_a_spreadsheets_empty_row_of_separators_is_blank_not_a_failed_row() -> None:
    # ';;' as wide as the header (the plain fast path) as well as narrower (the full CSV reader)
    for empty_row in ("\t;", ";"):
        out, err = io.StringIO(), io.StringIO()
        summary = run_batch("mm1", f"arrival_rate;service_time\n800;1\n{empty_row}\n100;1\n", out, err)
        assert summary.errors == {} and summary.rows == 2 and summary.blank_lines == 1


@given(st.lists(st.tuples(st.floats(0, 900), st.floats(0.01, 1.0)), min_size=1, max_size=30))
def test_plain_and_quoted_files_give_the_same_results(cells) -> None:
    body = "".join(f"{rate!r},{service!r}\n" for rate, service in cells)
    _, plain, _ = batch("mm1", "arrival_rate,service_time\n" + body)
    quoted_body = "".join(f'"x, {i}",{line}\n' for i, line in enumerate(body.splitlines()))
    _, quoted, _ = batch("mm1", "label,arrival_rate,service_time\n" + quoted_body)
    assert len(plain) == len(quoted) == len(cells)
    for mine, theirs in zip(plain, quoted, strict=True):
        assert mine == {k: v for k, v in theirs.items() if k != "label"}


def _candidate_names(output: str) -> list[str]:
    lines = [line for line in output.splitlines()[1:] if line and not line.startswith("ssd_candidate:")]
    return [line.split(",")[0] for line in lines]


STUDY_ROWS = "dsn,DISC,IORT,RH[%],RP[%],RR[%]\nA,5.10,35,26,96,77\nB,5.42,25,19,98,90\nC,5.75,12,13,98,95\n"


def test_ssd_candidates_keeps_the_studys_rows_ranked_by_read_disconnect_time() -> None:
    text = STUDY_ROWS + "D,3,50,10,99,99\nE,9,500,10,99,99\n"
    result = CliRunner().invoke(cli, ["ssd-candidates", "-"], input=text)
    assert result.exit_code == 0
    assert _candidate_names(result.output) == ["E", "A", "B", "C"]  # D fails DISC > 4


def test_ssd_candidates_thresholds_are_adjustable() -> None:
    result = CliRunner().invoke(cli, ["ssd-candidates", "-", "--disc", "5.5ms"], input=STUDY_ROWS)
    assert _candidate_names(result.output) == ["C"]


def test_ssd_candidates_handles_thousands_of_rows() -> None:
    rng = np.random.default_rng(7)
    rows = [
        f"DS{i},{rng.uniform(0, 10):.2f},{rng.uniform(0, 50):.1f},{rng.uniform(0, 100):.0f},"
        f"{rng.uniform(0, 100):.0f},{rng.uniform(0, 100):.0f}"
        for i in range(5000)
    ]
    text = "dsn,disc,iort,rh[%],rp[%],rr[%]\n" + "\n".join(rows) + "\n"
    result = CliRunner().invoke(cli, ["ssd-candidates", "-"], input=text)
    assert result.exit_code == 0
    kept = list(csv.DictReader(io.StringIO(result.output.split("ssd_candidate:")[0])))
    rates = [float(row["read_disc_rate"]) for row in kept]
    assert rates == sorted(rates, reverse=True)
    assert all(float(row["disc"]) > 4 and float(row["rh[%]"]) < 50 for row in kept)


# Spreadsheets of every locale (issue 12): read the file's dialect, write the output in it.

GERMAN_EXPORT = "\ufeffVolume;Arrival Rate;Service Time (ms)\r\nA;800;0,4\r\nB;1.200,5;0,5\r\nC;100;1\r\n"


def run_text(formula_id: str, text: str, **options) -> tuple[str, str, object]:
    out, err = io.StringIO(), io.StringIO()
    summary = run_batch(formula_id, text, out, err, **options)
    return out.getvalue(), err.getvalue(), summary


def test_a_german_export_computes_every_row() -> None:
    written, _, summary = run_text("mm1", GERMAN_EXPORT)
    assert summary.rows == 3 and not summary.errors
    assert written.split("\r\n")[2].startswith("B;1.200,5;0,5;0,60025;")  # 1200.5/s × 0.5 ms


def test_a_german_export_is_written_back_in_its_own_dialect() -> None:
    written, _, _ = run_text("mm1", GERMAN_EXPORT)
    assert written.startswith("\ufeffVolume;Arrival Rate;Service Time (ms);utilization[ratio];")
    lines = written.removeprefix("\ufeff").split("\r\n")
    assert lines[1].startswith("A;800;0,4;0,32;")  # utilization 800/s × 0.4 ms = 0,32
    assert lines[-1] == ""  # CRLF after the last row too
    assert "\n" not in written.replace("\r\n", "")


def test_thousands_separators_are_read_where_they_cannot_be_mistaken() -> None:
    written, _, _ = run_text("mm1", "arrival_rate;service_time\n1.234,5;0,1\n")
    assert float(written.splitlines()[1].split(";")[2].replace(",", ".")) == pytest.approx(0.12345)
    written, _, _ = run_text("mm1", 'arrival_rate,service_time\n"1,234.5",0.1\n')
    assert written.splitlines()[1].split(",")[3] == "0.12345"


def test_a_cell_that_reads_two_ways_is_an_error_where_the_file_shows_no_decimal_mark() -> None:
    _, _, summary = run_text("mm1", "arrival_rate;service_time\n1,234;1\n100;1\n")
    assert list(summary.errors) == [0]
    assert "ambiguous" in str(summary.errors[0])


def test_a_decimal_point_in_a_decimal_comma_file_is_an_error_row() -> None:
    _, _, summary = run_text("mm1", "arrival_rate;service_time\n100;0,4\n100;0.5\n100;0,25\n")
    assert list(summary.errors) == [1]
    assert "decimal point" in str(summary.errors[1])


def test_a_leading_zero_is_never_a_group_of_thousands() -> None:
    # 0.500 in a ';' export (decimal commas) is a decimal point the file does not use, not five hundred
    for text in ("arrival_rate;service_time\n100;0,4\n100;0.500\n", "arrival_rate;service_time\n100;0.500\n"):
        _, _, summary = run_text("mm1", text)
        assert len(summary.errors) == 1 and "decimal point" in str(next(iter(summary.errors.values())))


def test_mac_cr_only_line_ends_are_read_and_written() -> None:
    written, _, summary = run_text("mm1", "arrival_rate,service_time\r800,1\r100,1\r")
    assert summary.rows == 2 and not summary.errors
    assert written.count("\r") == 3 and "\n" not in written


@pytest.mark.parametrize(
    "header",
    [
        "Arrival Rate,Service Time",
        "arrival rate,service time (ms)",
        "ARRIVAL_RATE,service time [ms]",
        "Arrival-Rate,Service.Time(ms)",
    ],
)
def test_headers_as_people_write_them_name_the_symbols(header: str) -> None:
    _, _, summary = run_text("mm1", f"{header}\n800,1\n")
    assert summary.rows == 1 and not summary.errors


def test_a_unit_in_parentheses_converts_the_column() -> None:
    written, _, _ = run_text("mm1", "arrival_rate,Service Time (us)\n800,1000\n")
    assert written.splitlines()[1].split(",")[2] == "0.8"


def test_map_names_the_symbol_of_any_column() -> None:
    written, _, summary = run_text(
        "mm1", "SSCH/s,Resp\n800,1000\n", mapping={"SSCH/s": "arrival_rate", "Resp": "service_time[us]"}
    )
    assert not summary.errors and written.splitlines()[1].split(",")[2] == "0.8"


def test_map_of_a_column_the_file_lacks_is_a_file_level_error() -> None:
    with pytest.raises(InputError, match="no such column"):
        run_text("mm1", "a,b\n1,2\n", mapping={"c": "arrival_rate"})


def test_cli_map_option() -> None:
    result = CliRunner().invoke(
        cli,
        ["batch", "mm1", "-", "--map", "IO rate=arrival_rate", "--map", "S=service_time"],
        input="IO rate,S\n800,1\n",
    )
    assert result.exit_code == 0, result.output
    assert "IO rate,S,utilization[ratio]" in result.output


def test_a_pass_through_column_named_error_is_not_duplicated() -> None:
    written, _, _ = run_text("mm1", "error,arrival_rate,service_time\nold note,800,1\n")
    header = written.splitlines()[0].split(",")
    assert header.count("error") == 1 and header[-1] == "qmodel_error"


def test_utf16_export_is_read_and_written_in_utf16(tmp_path) -> None:
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    source.write_bytes("arrival_rate\tservice_time\r\n800\t1\r\n".encode("utf-16"))
    result = CliRunner().invoke(cli, ["batch", "mm1", str(source), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_bytes().startswith(b"\xff\xfe")
    assert target.read_text(encoding="utf-16").splitlines()[1].startswith("800\t1\t0.8\t")


@pytest.mark.parametrize(
    ("name", "content"),
    [("book.xlsx", b"PK\x03\x04rest"), ("book.csv", b"PK\x03\x04"), ("old.xls", b"\xd0\xcf\x11\xe0rest")],
)
def test_a_corrupt_workbook_is_one_line_naming_the_file(tmp_path, name: str, content: bytes) -> None:
    source = tmp_path / name
    source.write_bytes(content)
    result = CliRunner().invoke(cli, ["batch", "mm1", str(source)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "not a workbook qmodel can read" in result.output and name in result.output


@pytest.mark.parametrize("where", ["missing/out.csv", "."])
def test_an_output_file_that_cannot_be_written_is_refused_before_any_work(tmp_path, where: str) -> None:
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800,1\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["batch", "mm1", str(source), "-o", str(tmp_path / where)])
    assert result.exit_code == 2
    assert result.output.startswith("error: -o = ") and len(result.output.splitlines()) == 1


def test_ssd_candidates_threshold_outside_its_domain_is_one_usage_error() -> None:
    result = CliRunner().invoke(cli, ["ssd-candidates", "-", "--rh", "150%"], input=STUDY_ROWS)
    assert result.exit_code == 2
    assert result.output.startswith("error: rh_below = ") and len(result.output.splitlines()) == 1


def test_summary_line_counts_blank_lines_apart_from_failed_rows() -> None:
    result = CliRunner().invoke(cli, ["batch", "mm1", "-"], input="arrival_rate,service_time\n800,1\n\n;\n")
    assert "mm1: 1 row computed, 1 failed, 1 blank line(s) kept as they were" in result.output


def test_the_summary_counts_in_the_plural_from_two_rows() -> None:
    result = CliRunner().invoke(cli, ["batch", "mm1", "-"], input="arrival_rate,service_time\n800,1\n700,1\n")
    assert "mm1: 2 rows computed, 0 failed" in result.output


@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("Service Time (ms)", ("Service Time", "ms")),
        (" service-time [us] ", ("service-time", "us")),
        ("member.*.think_time[s]", ("member.*.think_time", "s")),
        ("distance", ("distance", None)),
        ("2024", None),
    ],
)
def test_a_header_is_read_as_a_name_and_the_unit_in_its_brackets(title: str, named) -> None:
    from qmodel.tables.header import split_header

    assert split_header(title) == named


# The bulk reader (rows as bytes, plain decimals in one pass) and the per-cell reader give one answer.

RATE_CELLS = [
    "800",
    "0.5",
    " 800 ",
    "8e2",
    "1,5",
    "1.200,5",
    "35K",
    "95%",
    "",
    "abc",
    "-5",
    "1_000",
    '"900"',
    '"1,5"',
    "1e400",
    "+.5",
    "-0",
    "000123.4500",
    "123456789012345678",
]
TIME_CELLS = ["1", "0.4ms", "400us", "0,4", "1.", "", "0", "x", "2.5", '"1"']
LABELS = ["a", '"b,c"', '""', '"x""y"', "", " ", "é", '"two;parts"']


@given(
    st.lists(
        st.one_of(
            st.tuples(st.sampled_from(LABELS), st.sampled_from(RATE_CELLS), st.sampled_from(TIME_CELLS)),
            st.just(None),
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([",", ";", "\t"]),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)
def test_the_bulk_reader_writes_what_the_per_cell_reader_writes(
    rows, delimiter: str, line_end: str, bom: bool
) -> None:
    """Any cells, blank rows, quoted labels, dialect: the same output and the same errors both ways."""
    from qmodel import batch
    from qmodel.catalogue.loader import get_formula
    from qmodel.tables.csvsource import split_text

    lines = [delimiter.join(["label", "arrival_rate", "service_time"])]
    lines += ["" if row is None else delimiter.join(row) for row in rows]
    text = ("\ufeff" if bom else "") + line_end.join(lines) + line_end
    written = []
    for rows_as_bytes in (False, True):
        try:
            table = split_text(text, rows_as_bytes=rows_as_bytes)
            plan = batch._plan(
                get_formula("mm1"), table.header, {}, None, table.dialect, lambda table=table: [table]
            )
            done = batch._compute(plan, table)
        except InputError as error:
            written.append(error.message())
            continue
        messages = {row: error.message() for row, error in done.errors.items()}
        written.append(
            (
                batch.csv_output(done, list(range(table.size))),
                messages,
                batch.csv_output(done, list(range(table.size))[::-1]),
            )
        )
    assert written[0] == written[1]


def test_a_plain_file_is_read_as_bytes_and_a_multi_line_cell_by_the_csv_module() -> None:
    from qmodel.tables.csvsource import split_text

    assert split_text("a,b\n1,2\n", rows_as_bytes=True).text is not None
    assert split_text('a,b\n"1\n2",3\n', rows_as_bytes=True).text is None


class _Terminal(io.StringIO):
    """Standard error as a terminal has it."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_hears_how_far_a_long_batch_has_got_and_nothing_else_does(monkeypatch) -> None:
    text = "arrival_rate,service_time\n" + "800,1\n" * 1000
    quick = _Terminal()
    run_batch("mm1", text, io.StringIO(), quick)
    assert "rows so far" not in quick.getvalue()  # at most a line a second: a quick batch says nothing
    monkeypatch.setattr(_Progress, "INTERVAL", 0.0)  # every chunk is now a second after the last
    terminal, pipe, out = _Terminal(), io.StringIO(), io.StringIO()
    run_batch("mm1", text, out, terminal)
    assert terminal.getvalue().startswith("batch: 1,000 rows so far (")
    run_batch("mm1", text, io.StringIO(), pipe)
    assert "rows so far" not in pipe.getvalue() and "rows so far" not in out.getvalue()
