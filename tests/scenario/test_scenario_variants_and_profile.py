"""What-if variants from a CSV, and per-transaction profiles from RMF counts."""

import io
import re

import pytest

from qmodel.errors import InputError
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.profile import profile
from qmodel.scenario.variants import run_variants
from qmodel.tomlread import read_toml

RAW = read_toml(resolve_scenario("gdps-env2"))


def variants(text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_variants(RAW, text, out, err, "gdps-env2.toml")
    return status, out.getvalue(), err.getvalue()


def test_every_good_row_is_computed_and_each_bad_row_named_with_its_row_number() -> None:
    status, out, err = variants("label,distance,path.*.subchannels\na,20km,7\nb,40km,zero\nc,70km,2\n")
    lines = out.strip().split("\n")
    assert status == 1
    assert len(lines) == 4 and lines[1].startswith("a,20km,7,") and lines[3].startswith("c,70km,2,")
    assert "row 3:" in err and "subchannels" in err and "row 2:" not in err and "row 4:" not in err


def test_a_row_too_large_to_compute_fails_alone_and_the_other_rows_are_written() -> None:
    status, out, err = variants("distance,member.G1P2.terminals\n20km,100\n20km,1000000000\n40km,100\n")
    lines = out.strip().split("\n")
    assert status == 1 and len(lines) == 4
    assert lines[1].startswith("20km,100,") and lines[3].startswith("40km,100,")
    assert "row 3:" in err and "too large to compute" in err and "row 2:" not in err and "row 4:" not in err


def test_a_european_export_comes_back_in_its_own_dialect() -> None:
    status, out, _ = variants("\ufeffdistance;member.*.think_time[s]\r\n40km;8,5\r\n")
    assert status == 0
    assert out.startswith("\ufeff") and out.endswith("\r\n")
    first = out.split("\r\n")[1].split(";")
    assert first[:2] == ["40km", "8,5"] and "," in first[2] and "." not in first[2]


def test_rows_that_differ_only_in_distance_give_what_the_scenario_gives() -> None:
    from qmodel.scenario import load_scenario, solve_scenario

    _, out, _ = variants("distance\n20km\n70km\n")
    g1p1_ms = [float(line.split(",")[1]) for line in out.strip().split("\n")[1:]]
    direct = solve_scenario(load_scenario(resolve_scenario("gdps-env2")), [20e3, 70e3])
    assert g1p1_ms == pytest.approx(direct.response_time[0] * 1e3, rel=1e-5)


def test_an_override_of_something_the_scenario_lacks_is_refused() -> None:
    with pytest.raises(InputError, match="G1P9"):  # a header naming no member: one error for the file
        variants("member.G1P9.terminals\n50\n")


def test_a_file_with_no_override_column_is_refused_as_a_whole() -> None:
    with pytest.raises(InputError, match="override column"):
        variants("label\nx\n")


def test_a_profile_divides_counts_by_the_transactions_of_the_same_interval() -> None:
    # Environment 3, G1P2 at 0 km: LOCK1 190k sync, GBP8 prim 21k sync + 199k async, 3394 transactions
    result = profile({"LOCK1.sync": 190e3, "GBP8P.sync": 21e3, "GBP8P.async": 199e3}, 3394)
    assert result.per_transaction["LOCK1"] == pytest.approx(55.98, abs=0.005)
    assert result.per_transaction["GBP8P"] == pytest.approx(64.82, abs=0.005)
    assert result.async_share["GBP8P"] == pytest.approx(199 / 220)


def test_a_profile_whose_parts_do_not_add_up_to_its_total_is_refused() -> None:
    with pytest.raises(InputError, match="does not add up"):
        profile({"LOCK1.sync": 190e3, "LOCK1.async": 10e3, "LOCK1.total": 150e3}, 3394)


def test_a_semicolon_file_of_whole_numbers_gets_decimal_commas() -> None:
    # a planner's trial (their file v13): German Excel, whole numbers only; 90.709 would read as 90709 there
    status, out, _ = variants("\ufeffdistance;path.*.subchannels\r\n20km;7\r\n")
    results = out.split("\r\n")[1].split(";")[2:-1]
    assert status == 0
    assert all("." not in cell for cell in results) and any("," in cell for cell in results)


def test_a_comma_separated_file_keeps_decimal_points() -> None:
    _, out, _ = variants("distance,path.*.subchannels\n20km,7\n")
    assert "." in out.split("\n")[1].split(",")[2]


@pytest.mark.parametrize("header", ["Distance (km)", "distance [km]", "DISTANCE[km]"])
def test_a_distance_header_with_its_unit_makes_bare_numbers_that_unit(header: str) -> None:
    status, out, _ = variants(f"{header},path.*.subchannels\n20,7\n")
    _, reference, _ = variants("distance,path.*.subchannels\n20km,7\n")
    assert status == 0
    assert out.split("\n")[1].split(",")[2:] == reference.split("\n")[1].split(",")[2:]


def test_variant_keys_are_matched_ignoring_case() -> None:
    status, out, _ = variants("distance,Member.G1P2.Terminals,PATH.*.SUBCHANNELS\n20km,100,7\n")
    _, reference, _ = variants("distance,member.G1P2.terminals,path.*.subchannels\n20km,100,7\n")
    assert status == 0 and out.split("\n")[1] == reference.split("\n")[1]


def test_a_header_naming_no_key_is_one_error_for_the_file_naming_the_column_and_the_keys() -> None:
    with pytest.raises(InputError) as caught:
        variants("distance,member.G1P2.termnals\n20km,100\n30km,100\n")
    message = str(caught.value)
    assert "member.G1P2.termnals" in message and "did you mean terminals" in message
    assert "think_time" in message and "row" not in message and "[" not in message


def test_a_bare_distance_without_a_unit_in_the_header_says_exactly_what_to_write() -> None:
    _, _, err = variants("distance\n40\n")
    assert "row 2: column distance = 40" in err and "allowed: 40km, or the unit in the header" in err


def test_a_distance_that_is_not_one_never_suggests_a_bare_number() -> None:
    _, _, err = variants("distance\nx\n")
    assert "(in km)" not in err and "70km" in err


def test_advice_for_a_bare_number_is_written_in_the_files_decimal_mark() -> None:
    # a planner's trial (file v3): 8,8 refused, then the advised form must not be refused in the same file
    _, _, err = variants("distance;member.*.think_time\n20km;8,8\n20km;8,8s\n")
    assert "allowed: 8,8s" in err and "row 3" not in err


def test_share_advice_is_written_in_the_files_decimal_mark() -> None:
    # a decimal-comma file's 1,3 was advised as "1.3% or 0.013", in points the file does not use
    _, _, err = variants("distance;goal.share\n20km;1,3\n20km;1,3%\n20km;0,013\n")
    assert "row 2:" in err and "allowed: a share up to 100%: 1,3% or 0,013" in err
    assert "row 3" not in err and "row 4" not in err


def test_share_advice_keeps_decimal_points_in_a_decimal_point_file() -> None:
    _, _, err = variants("distance,goal.share\n20km,1.3\n")
    assert "allowed: a share up to 100%: 1.3% or 0.013" in err


def test_a_bare_distance_with_the_files_decimal_comma_is_advised_its_unit_not_called_ambiguous() -> None:
    # in a decimal-comma file 0,5 is 0.5 beyond doubt; it was refused as a possible list of two
    _, _, err = variants("distance;member.*.think_time[s]\n0,5;8\n0,5km;8\n")
    assert "row 2: column distance = 0,5" in err and "allowed: 0,5km" in err
    assert "ambiguous: a decimal comma" not in err and "row 3" not in err


def test_an_error_in_a_cell_names_the_csv_file_row_column_and_path_as_member_to_cf() -> None:
    out, err = io.StringIO(), io.StringIO()
    run_variants(RAW, "distance,path.*.subchannels\n20km,0\n", out, err, "gdps-env2.toml", "what-if.csv")
    line = err.getvalue()
    assert line.startswith("what-if.csv: row 2: column path.*.subchannels")
    assert "→" in line and "path[" not in line and "gdps-env2.toml" not in line


def test_a_scenario_range_without_a_distance_column_is_one_error_for_the_file() -> None:
    raw = {**RAW, "distance": "0km..100km"}
    with pytest.raises(InputError, match="a distance column"):
        run_variants(raw, "path.*.subchannels\n7\n", io.StringIO(), io.StringIO(), "s.toml")


def test_a_windows_1252_variants_file_is_read_and_written_back_in_it(tmp_path) -> None:
    from click.testing import CliRunner

    from qmodel.cli import cli

    source, target = tmp_path / "v9.csv", tmp_path / "out.csv"
    source.write_bytes("Variante;distance;Bemerkung\r\nBasis;20km;Größe ok\r\n".encode("cp1252"))
    result = CliRunner().invoke(cli, ["scenario", "gdps-env2", "--variants", str(source), "-o", str(target)])
    assert result.exit_code == 0
    assert target.read_bytes().split(b"\r\n")[1].startswith("Basis;20km;Größe ok;".encode("cp1252"))


def test_the_profile_snippet_is_valid_toml_with_the_members_lines() -> None:
    import tomllib

    counts = {"LOCK1.sync": 190e3, "GBP8P.sync": 21e3, "GBP8P.async": 199e3, "sync_reads": 92.3e3}
    result = profile(counts, 3394)
    member = tomllib.loads(result.toml("G1P2"))["member"][0]
    assert member["name"] == "G1P2" and member["sync_reads"] == pytest.approx(27.2, abs=0.05)
    assert member["requests"] == {"LOCK1": pytest.approx(55.98), "GBP8P": pytest.approx(64.82)}


def test_the_profile_snippet_says_where_the_async_share_goes_as_a_percentage() -> None:
    snippet = profile({"GBP8P.sync": 21e3, "GBP8P.async": 199e3}, 3394).toml("G1P2")
    assert "[link.NAME]" in snippet and 'converted = { cache = "90.5%" }' in snippet


def test_a_misspelt_count_name_is_refused_with_the_name_it_is_close_to() -> None:
    with pytest.raises(InputError, match="did you mean sync_reads"):
        profile({"syncreads": 5}, 3394)


def test_the_profile_command_prints_the_snippet_unwrapped_when_piped_at_any_width() -> None:
    import tomllib
    from click.testing import CliRunner

    from qmodel.cli import cli

    args = [
        "scenario-profile",
        "--transactions",
        "3394",
        "LOCK1.sync=190K",
        "GBP8P.sync=21K",
        "GBP8P.async=199K",
        "GBP8S.async=83K",
        "sync_reads=92.3K",
        "log_writes=13.23K",
    ]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "40"})
    snippet = result.output[result.output.index("[[member]]") :]
    assert tomllib.loads(snippet)["member"][0]["requests"]["GBP8S"] == pytest.approx(24.45)


def test_profile_help_fits_80_columns() -> None:
    from click.testing import CliRunner

    from qmodel.cli import cli

    result = CliRunner().invoke(cli, ["scenario-profile", "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0 and max(len(line) for line in result.output.splitlines()) <= 80


def test_a_bare_number_cell_is_advised_with_the_unit_in_the_cell_or_the_header() -> None:
    _, _, err = variants("distance,member.G1P2.think_time\n20km,8.8\n")
    assert "row 2: column member.G1P2.think_time = 8.8" in err
    assert "allowed: 8.8s, or the unit in the header: member.G1P2.think_time [s]" in err


@pytest.mark.parametrize("typed", ["70KM", "0...100km", "-5km", "70 parsecs", "40"])
def test_a_distance_cell_is_refused_for_what_the_file_refuses_it_for(typed: str) -> None:
    from qmodel.scenario.spec import scenario_from_dict

    with pytest.raises(InputError) as in_file:
        scenario_from_dict({**RAW, "distance": typed}, "gdps-env2.toml")
    _, _, err = variants(f"distance\n{typed}\n")
    why = f" ({in_file.value.reason})" if in_file.value.reason else ";"
    assert f"row 2: column distance = {typed}{why}" in err


def test_a_list_in_a_distance_cell_is_refused_naming_the_cell() -> None:
    _, _, err = variants('distance\n"20km,40km"\n')
    assert "row 2: column distance = 20km,40km (2 distances); allowed: one distance per row" in err


def test_a_share_cell_written_as_a_bare_percentage_is_advised_as_95_percent_or_0_95() -> None:
    _, _, err = variants("distance,goal.share\n20km,95\n")
    assert "row 2: column goal.share = 95 " in err and err.rstrip().endswith("95% or 0.95")


@pytest.mark.parametrize(
    ("header", "cell", "advice"),
    [
        ("distance", "0,5km", "0.5km"),
        ("distance", "20,5km", "20.5km"),
        ("distance [km]", "0,5", "0.5"),
    ],
)
def test_a_distance_cell_a_decimal_comma_may_make_one_is_refused_advising_one(header, cell, advice) -> None:
    _, _, err = variants(f'{header}\n"{cell}"\n')
    assert f"row 2: column {header} = {cell} (ambiguous: a decimal comma" in err
    assert f"allowed: {advice} (a decimal point; one distance per row)" in err


def test_a_decimal_comma_file_reads_a_distance_cell_with_its_decimal_comma() -> None:
    status, out, _ = variants("distance;path.*.subchannels\n0,5km;7\n")
    _, reference, _ = variants("distance,path.*.subchannels\n0.5km,7\n")
    assert status == 0
    results = reference.split("\n")[1].split(",")[2:-1]
    assert out.split("\n")[1].split(";")[2:-1] == [cell.replace(".", ",") for cell in results]


def test_a_blank_line_comes_back_as_wide_as_every_other_row() -> None:
    import csv

    status, out, _ = variants("label,distance\na,20km\n\nb,40km\n")
    widths = [len(fields) for fields in csv.reader(io.StringIO(out))]
    assert status == 0 and len(widths) == 4 and len(set(widths)) == 1 and out.split("\n")[2].strip(",") == ""


@pytest.mark.parametrize("text", ["distance\n", "distance\n,\n"])
def test_a_variants_file_without_rows_is_refused_naming_the_file(text: str) -> None:
    with pytest.raises(InputError, match=r"^what-if\.csv = .*\(no rows\)"):
        run_variants(RAW, text, io.StringIO(), io.StringIO(), "gdps-env2.toml", "what-if.csv")


def test_an_empty_variants_file_is_refused_naming_the_file() -> None:
    with pytest.raises(InputError, match=r"^what-if\.csv: file = empty"):
        run_variants(RAW, "", io.StringIO(), io.StringIO(), "gdps-env2.toml", "what-if.csv")


def test_result_headers_are_the_scenario_records_keys_after_the_member() -> None:
    from qmodel.cli.scenario import SUMMARY

    header = variants("distance\n20km\n")[1].split("\n")[0].split(",")
    for key in ("response_time[ms]", "share_within_goal[%]", "throughput[1/s]", "cpu_busy_of_lpar[%]"):
        assert key in SUMMARY and f"G1P1_{key}" in header


def test_a_cell_error_names_the_path_once_where_the_column_names_it() -> None:
    _, _, err = variants("distance,path.G1P2.CF1.subchannels\n20km,0\n")
    assert "row 2: column path.G1P2.CF1.subchannels = 0;" in err


def test_a_thrashing_row_names_only_the_remedies_that_apply_there() -> None:
    # a fifth of the fitted lockable items thrashes Environment 2 at 70 km, where its subchannels wait
    # for nothing: fewer terminals or a shorter distance, not more subchannels
    status, _, err = variants("locks.lockable_items,distance\n800,70km\n")
    assert status == 1 and "row 2:" in err
    assert err.strip().endswith("at this distance, or a shorter distance")


def test_a_row_whose_volumes_cannot_carry_their_other_work_is_named_as_such() -> None:
    import copy

    raw = copy.deepcopy(RAW)
    raw["disk"].update(volumes=2, aliases=0, background_rate=1000)
    raw["disk"]["read"]["iosq"] = "0ms"  # computed from the load
    out, err = io.StringIO(), io.StringIO()
    status = run_variants(raw, "disk.background_rate,distance\n1000,40km\n3100,40km\n", out, err, "disk.toml")
    lines = out.getvalue().strip().split("\n")
    assert status == 1 and len(lines) == 3 and lines[1].startswith("1000,40km,")
    assert "row 3:" in err.getvalue() and "disk.background_rate = 3100 SSCH/s" in err.getvalue()
    assert "lock contention" not in err.getvalue() and "row 2:" not in err.getvalue()


def test_a_thrashing_row_names_the_terminals_with_an_answer_in_all_and_per_member_in_plain_spaces() -> None:
    status, out, err = variants("distance,member.*.terminals\n300km,2000\n")
    assert status == 1
    assert "thrashing with 4000 terminals in all" in err
    assert re.search(r"at most \d+ terminals in all \(G1P1 \d+, G1P2 \d+\) at this distance", err)
    assert "\N{NO-BREAK SPACE}" not in out + err


def test_a_total_and_its_sync_part_give_the_async_part_as_the_rest() -> None:
    # RMF's CF activity report prints total and sync: 220K - 21K = 199K async
    given = profile({"GBP8P.sync": 21_000, "GBP8P.total": 220_000}, 3394)
    assert given.per_transaction["GBP8P"] == pytest.approx(220_000 / 3394)
    assert given.async_share["GBP8P"] == pytest.approx(199_000 / 220_000)


def test_counts_too_large_to_add_are_refused_not_written_as_inf() -> None:
    with pytest.raises(InputError, match="LOCK1 = inf over 1 transactions"):
        profile({"LOCK1.sync": 1e308, "LOCK1.async": 1e308}, 1)
