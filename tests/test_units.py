"""Typed-in values: ratios, counts with suffixes, units; ambiguity is an error."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.errors import InputError
from qmodel.units import UNITS, in_unit, parse_value, readable, reading_note, significant, sized


def test_ratio_accepts_a_fraction() -> None:
    assert parse_value("read_hit_ratio", "0.95", "ratio") == 0.95


def test_ratio_accepts_a_percentage() -> None:
    assert parse_value("read_hit_ratio", "95%", "ratio") == pytest.approx(0.95)


def test_counts_accept_k_m_g_suffixes() -> None:
    assert parse_value("completions", "35K", "1") == 35_000
    assert parse_value("completions", "1.4M", "1") == pytest.approx(1_400_000)
    assert parse_value("arrival_rate", "2G", "1/s") == 2e9


def test_lower_case_m_is_ambiguous_for_counts() -> None:
    with pytest.raises(InputError, match="ambiguous"):
        parse_value("arrival_rate", "1.4m", "1/s")


def test_time_accepts_its_own_and_other_time_units() -> None:
    assert parse_value("service_time", "0.4", "ms") == 0.4
    assert parse_value("service_time", "400us", "ms") == pytest.approx(0.4)
    assert parse_value("service_time", "400µs", "ms") == pytest.approx(0.4)
    assert parse_value("service_time", "0.0004s", "ms") == pytest.approx(0.4)


def test_distance_accepts_km_and_m() -> None:
    assert parse_value("distance", "70km", "km") == 70
    assert parse_value("distance", "70000m", "km") == pytest.approx(70)


def test_unit_of_the_wrong_dimension_is_refused() -> None:
    with pytest.raises(InputError, match="time unit, but distance is a length") as error:
        parse_value("distance", "70ms", "km")
    assert error.value.parameter == "distance"


def test_percentage_is_refused_for_a_non_ratio() -> None:
    with pytest.raises(InputError, match="percentage"):
        parse_value("arrival_rate", "95%", "1/s")


def test_multiplier_is_refused_for_a_time() -> None:
    with pytest.raises(InputError, match="multiplies counts and rates only"):
        parse_value("service_time", "3K", "ms")


@pytest.mark.parametrize("text", ["", "abc", "1,5", "nan", "inf", "1.2.3", "--1"])
def test_text_that_is_not_a_number_is_refused(text: str) -> None:
    with pytest.raises(InputError) as error:
        parse_value("service_time", text, "ms")
    assert error.value.parameter == "service_time"


def test_unknown_unit_is_named() -> None:
    with pytest.raises(InputError, match="unknown unit 'furlong'"):
        parse_value("distance", "3furlong", "km")


def test_error_message_names_parameter_value_and_what_is_allowed() -> None:
    with pytest.raises(InputError) as error:
        parse_value("read_hit_ratio", "95 percent", "ratio")
    message = str(error.value)
    assert message.startswith("read_hit_ratio = ")
    assert "allowed: 0.95 or 95%" in message


@pytest.mark.parametrize("digits", [1000, 2000, 3000])
def test_a_long_digit_string_is_read_as_the_number_it_is(digits: int) -> None:
    assert parse_value("arrival_rate", "1" * digits + "e-2990", "1/s") == float("1" * digits + "e-2990")


@pytest.mark.parametrize("tail", ["x", " 5", ".5.5", "e", "e+"])
def test_a_long_digit_string_with_a_bad_tail_is_refused_with_a_short_message(tail: str) -> None:
    with pytest.raises(InputError) as error:
        parse_value("arrival_rate", "9" * 3000 + tail, "1/s")
    assert len(str(error.value)) < 300


def test_a_number_beyond_the_largest_double_is_refused() -> None:
    with pytest.raises(InputError, match="too large"):
        parse_value("arrival_rate", "1e309", "1/s")


def test_minus_zero_is_read_as_zero() -> None:
    assert str(parse_value("distance", "-0.0", "km")) == "0.0"


def test_link_speeds_in_bits_are_divided_by_eight() -> None:
    assert parse_value("link_bandwidth", "800Mb/s", "MB/s") == pytest.approx(100)
    assert parse_value("link_bandwidth", "16Gb/s", "MB/s") == pytest.approx(2000)
    assert parse_value("link_bandwidth", "10Gbps", "MB/s") == pytest.approx(1250)


def test_binary_prefixes_beside_decimal_ones() -> None:
    assert parse_value("burst_size", "1GiB", "GB") == pytest.approx(1.073741824)
    assert parse_value("blocksize", "1MiB", "KiB") == pytest.approx(1024)


@pytest.mark.parametrize("text", ["100mb/s", "2gbps", "1MB/S"])
def test_a_data_unit_in_the_wrong_case_is_refused_not_guessed(text: str) -> None:
    with pytest.raises(InputError, match="case"):
        parse_value("link_bandwidth", text, "MB/s")


def test_a_decimal_comma_in_an_argument_says_to_write_a_point() -> None:
    with pytest.raises(InputError, match="decimal comma"):
        parse_value("service_time", "1,5", "ms")


def test_a_value_in_bits_is_echoed_in_the_unit_it_was_read_in() -> None:
    assert reading_note("link_bandwidth", "800Mb/s", "MB/s") == "link_bandwidth = 800Mb/s read as 100 MB/s"


def test_a_bare_number_for_a_data_rate_says_which_unit_it_was_taken_in() -> None:
    assert "taken in MB/s" in reading_note("link_bandwidth", "100", "MB/s")


def test_a_value_in_the_symbols_own_unit_needs_no_note() -> None:
    assert reading_note("link_bandwidth", "100MB/s", "MB/s") == ""
    assert reading_note("service_time", "1", "ms") == ""


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("8.8", "8.8"),
        (" 70 ", "70"),
        ("-3", "-3"),
        ("1e3", "1e3"),
        (".5", ".5"),
        ("8.8s", None),
        ("70 km", None),
        ("x", None),
        ("", None),
        ("1e", None),
    ],
)
def test_a_bare_number_is_a_number_with_nothing_after_it(text: str, number: str | None) -> None:
    from qmodel.units import bare_number

    assert bare_number(text) == number


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("0,5km", ("0.5", "km")),
        ("20,5km", ("20.5", "km")),
        ("0,95", ("0.95", "")),
        ("1,5 ms", ("1.5", "ms")),
        ("1,500", ("1.500", "")),
        ("0, 5km", None),
        ("0km,5km", None),
        ("20,40,70km", None),
        ("0.5km", None),
        ("70km", None),
        ("800,1200", None),
        ("0,2500km", None),
    ],
)
def test_two_whole_numbers_and_a_comma_may_be_one_number_with_a_decimal_comma(text, reading) -> None:
    """Unless nothing else can be meant: a unit on the first item, a space, three items, or a second
    number of four digits or more (no decimal part is written so; a thousands separator groups by three)."""
    from qmodel.units import decimal_comma

    assert decimal_comma(text) == reading


def test_an_ambiguous_list_of_two_is_refused_saying_how_to_write_either_meaning() -> None:
    from qmodel.units import refuse_decimal_comma

    with pytest.raises(InputError) as error:
        refuse_decimal_comma("distance", "0,5km")
    assert "ambiguous: 0.5 km with a decimal comma" in str(error.value)
    assert error.value.allowed == "0.5km for one value, or 0km,5km for two"


def test_the_advice_for_a_list_of_counts_is_quoted_so_that_it_works_as_typed() -> None:
    # "0, 95" unquoted is two words to a shell: the advice quotes it (a planner's trial, issue 34)
    from qmodel.units import refuse_decimal_comma

    with pytest.raises(InputError) as error:
        refuse_decimal_comma("cf_requests", "12,4", "1")
    assert error.value.allowed == '12.4 for one value, or "12, 4" for two'


def test_the_advice_for_an_ambiguous_list_writes_the_unit_it_is_given_where_the_text_has_none() -> None:
    from qmodel.units import refuse_decimal_comma

    with pytest.raises(InputError) as error:
        refuse_decimal_comma("distance", "0,95", "km")
    assert error.value.allowed == "0.95km for one value, or 0km,95km for two"
    with pytest.raises(InputError) as error:
        refuse_decimal_comma("arrival_rate", "800,12", "1/s")
    assert error.value.allowed == "800.12/s for one value, or 800/s,12/s for two"


def test_three_digits_after_the_comma_may_also_be_a_thousands_separator() -> None:
    from qmodel.units import refuse_decimal_comma

    with pytest.raises(InputError) as error:
        refuse_decimal_comma("service_time", "1,500", "us")
    said = "1.500 with a decimal comma, 1500 with a thousands separator, or a list of two?"
    assert said in str(error.value)
    assert error.value.allowed == "1.500us or 1500us for one value, or 1us,500us for two"


@pytest.mark.parametrize("unit", ["ms", "us", "km", "1/s", "ratio", "1"])
@given(first=st.integers(0, 10_000), second=st.integers(1, 999))
def test_every_advice_reads_back_as_the_values_it_names(unit: str, first: int, second: int) -> None:
    """The advice works as typed: its form for two values, read by the one list parser (the quotes as a
    shell strips them), gives the two numbers, and its form for one value gives the decimal."""
    from qmodel.units import parse_list, parse_value, refuse_decimal_comma

    text = f"{first},{second}"
    with pytest.raises(InputError) as error:
        refuse_decimal_comma("x", text, unit)
    one, two = error.value.allowed.removesuffix(" for two").split(" for one value, or ")
    scale = 100 if unit == "ratio" else 1  # a ratio's advice is in %
    assert parse_list("x", two.strip('"'), unit) == pytest.approx([first / scale, second / scale])
    assert parse_value("x", one.split(" or ")[0], unit) == pytest.approx(float(f"{first}.{second}") / scale)


def test_the_advice_for_an_ambiguous_list_keeps_an_exponent_on_the_number_it_belongs_to() -> None:
    # 10,1e3 is 10.1e3, or 10 and 1e3: never 10e3 (ten thousand) and 1e3 (a planner's trial, 2026-11-26)
    from qmodel.units import refuse_decimal_comma

    with pytest.raises(InputError) as error:
        refuse_decimal_comma("arrival_rate", "10,1e3")
    assert "ambiguous: 10.1e3 with a decimal comma" in str(error.value)
    assert error.value.allowed == '10.1e3 for one value, or "10, 1e3" for two'


@pytest.mark.parametrize(("typed", "advice"), [("100-900", "100..900"), ("10K-50K", "10K..50K")])
def test_a_range_typed_with_a_dash_is_advised_as_two_dots(typed: str, advice: str) -> None:
    with pytest.raises(InputError) as error:
        parse_value("arrival_rate", typed, "1/s")
    assert error.value.allowed.startswith(f"{advice} for a range")


# Issue 23: one parser for values with units. Every route a planner types a value into reads the same
# spelling as the same value: the command line (calc, solve, sweep, mva flags), a batch cell and header,
# a model file, a scenario file and a casebook's inputs.

RATE_SPELLINGS = ["800", "800/s", "800 /s", "0.8/ms", "48000/min", "800/sec", "0.8K/s"]


@pytest.mark.parametrize("text", RATE_SPELLINGS)
def test_a_rate_reads_the_same_in_the_parser(text) -> None:
    assert parse_value("arrival_rate", text, "1/s") == pytest.approx(800)


@pytest.mark.parametrize("text", RATE_SPELLINGS)
def test_a_rate_reads_the_same_in_calc_solve_and_sweep(text) -> None:
    import json

    from click.testing import CliRunner

    from qmodel.cli import cli

    def run(*args):
        result = CliRunner().invoke(cli, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    calc = json.loads(run("calc", "mm1", f"arrival_rate={text}", "service_time=1ms", "--format", "json"))
    assert json.dumps(calc).count("0.8") >= 1
    reference = run("calc", "mm1", "arrival_rate=800", "service_time=1ms", "--format", "csv")
    assert run("calc", "mm1", f"arrival_rate={text}", "service_time=1ms", "--format", "csv") == reference
    solved = run(
        "solve",
        "mm1",
        "response_time=5ms",
        "--for",
        "service_time",
        f"arrival_rate={text}",
        "--format",
        "csv",
    )
    assert solved == run(
        "solve", "mm1", "response_time=5ms", "--for", "service_time", "arrival_rate=800", "--format", "csv"
    )
    swept = run(
        "sweep", "mm1", "service_time=0.2ms..1ms", "--steps", "3", f"arrival_rate={text}", "--format", "csv"
    )
    assert swept == run(
        "sweep", "mm1", "service_time=0.2ms..1ms", "--steps", "3", "arrival_rate=800", "--format", "csv"
    )


@pytest.mark.parametrize("text", RATE_SPELLINGS)
def test_a_rate_reads_the_same_in_a_batch_cell_and_header(text) -> None:
    import io

    from qmodel.batch import run_batch

    def utilization(csv_text: str) -> str:
        out = io.StringIO()
        run_batch("mm1", csv_text, out, io.StringIO())
        return out.getvalue().splitlines()[1].split(",")[-1]

    assert utilization(f"arrival_rate,service_time\n{text},1ms\n") == utilization(
        "arrival_rate,service_time\n800,1\n"
    )
    assert utilization("arrival_rate [/ms],service_time\n0.8,1\n") == utilization(
        "arrival_rate,service_time\n800,1\n"
    )


@pytest.mark.parametrize("text", [t for t in RATE_SPELLINGS if t != "800"])  # bare: per --time-unit
def test_a_rate_reads_the_same_in_mva_flags_and_model_files(text, tmp_path) -> None:
    from click.testing import CliRunner

    from qmodel.cli import cli
    from qmodel.networks import load_network, network

    flags = CliRunner().invoke(cli, ["mva", "--demand", "1ms", "--arrival-rate", text, "--format", "csv"])
    assert flags.exit_code == 0, flags.output
    assert (
        flags.output
        == CliRunner()
        .invoke(cli, ["mva", "--demand", "1ms", "--arrival-rate", "800/s", "--format", "csv"])
        .output
    )
    assert network([0.001], arrival_rate=[text]).arrival_rates[0] == pytest.approx(800)
    model = tmp_path / "open.toml"
    model.write_text(
        f'[[class]]\nname = "io"\narrival_rate = "{text}"\n\n[[station]]\nname = "disk"\ndemand = "1ms"\n',
        encoding="utf-8",
    )
    assert load_network(model).arrival_rates[0] == pytest.approx(800)


@pytest.mark.parametrize("text", RATE_SPELLINGS)
def test_a_rate_reads_the_same_in_casebook_inputs(text) -> None:
    from qmodel.catalogue.registry import call

    result = call(
        "erlang_c_subchannels_from_rate",
        {"request_rate": text, "service_time": "1ms", "target_delayed": "10%"},
    )
    assert float(result["offered_load"]) == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("95%", "target_delayed", 0.95),
        ("0.95", "target_delayed", 0.95),
        ("1ms", "service_time", 1.0),
        ("1000us", "service_time", 1.0),
        ("0.001s", "service_time", 1.0),
        ("1", "service_time", 1.0),
    ],
)
def test_ratios_and_times_read_the_same_in_calc_batch_and_casebook_inputs(text, name, value) -> None:
    import io

    from qmodel.batch import run_batch
    from qmodel.catalogue.evaluate import calc
    from qmodel.catalogue.registry import call

    given = {"request_rate": "800", "service_time": "1", "target_delayed": "0.95", name: text}
    reference = {**given, name: str(value)}
    entry = "erlang_c_subchannels_from_rate"
    assert calc(entry, **given).outputs == calc(entry, **reference).outputs
    assert call(entry, given) == call(entry, reference)

    def rows(values: dict) -> str:
        out = io.StringIO()
        run_batch(entry, ",".join(values) + "\n" + ",".join(values.values()) + "\n", out, io.StringIO())
        return out.getvalue().splitlines()[1].split(",", 3)[-1]

    assert rows(given) == rows(reference)


@pytest.mark.parametrize("text", ["70km", "70000m", "70", "70 km"])
def test_a_distance_reads_the_same_in_calc_and_a_scenario_file(text) -> None:
    from qmodel.catalogue.evaluate import calc
    from qmodel.scenario.files import shipped_scenarios
    from qmodel.scenario.spec import read_scenario_toml, scenario_from_dict

    assert float(calc("round_trip_time", distance=text).round_trip_time) == pytest.approx(700)
    data = read_scenario_toml(shipped_scenarios()["gdps-env1"])
    if not text[-1].isalpha():
        return  # a scenario file wants the unit on a length (a bare number there is refused as ambiguous)
    data["distance"] = [text]
    assert scenario_from_dict(data).distances[0] == pytest.approx(70e3)


@pytest.mark.parametrize("text", [t for t in RATE_SPELLINGS if t != "800"])
def test_a_rate_reads_the_same_as_a_default_in_a_catalogue_file(text) -> None:
    from qmodel.catalogue.loader import load_files

    entry = (
        '[[formula]]\nid = "x"\ntitle = "t"\nsource = "s"\n'
        '[formula.symbols.arrival_rate]\nmeaning = "m"\nunit = "1/s"\ndomain = "[0, inf)"\n'
        f'default = "{text}"\n'
        '[[formula.outputs]]\nname = "y"\nexpr = "arrival_rate"\nunit = "1/s"\nmeaning = "m"\n'
    )
    assert load_files([("mine.toml", entry)])["x"].symbols["arrival_rate"].default == pytest.approx(800)


@settings(max_examples=300, deadline=None)
@given(
    unit=st.sampled_from(["ms", "s", "us", "ratio", "1", "1/s"]),
    value=st.floats(1e-7, 1e4, allow_nan=False),
)
def test_a_value_shown_as_a_file_writes_it_reads_back_to_its_four_digits(unit, value) -> None:
    """readable(written=True) is the cell a measurements file would hold (a slip-of-unit message's advice):
    parse_value reads it back to the value it shows, in the unit of its size."""
    if unit == "ratio":
        value = min(value, 1.0)
    written = readable(value, unit, written=True)
    assert parse_value("value", written, unit) * UNITS[unit].to_si == pytest.approx(value, rel=5e-4)
    number, shown = sized(value, unit)
    assert readable(value, unit).replace(" ", "") in (written, f"{significant(number)}{shown}")


def test_a_time_is_shown_in_the_unit_of_its_size_and_a_share_in_percent() -> None:
    assert sized(0.04326, "ms") == pytest.approx((43.26, "ms")) and sized(0.04326, "s")[1] == "ms"
    assert readable(4.563e-4, "ms") == "456.3 us" and readable(2.5, "ms") == "2.5 s"
    assert readable(0.0, "us") == "0 ms" and readable(0.6109, "ratio") == "61.09%"
    assert readable(62.5, "1/s") == "62.5 1/s" and readable(62.5, "1/s", written=True) == "62.5"
    assert in_unit(0.5, "ratio") == (50.0, "%") and in_unit(0.0432, "ms") == pytest.approx((43.2, "ms"))


@settings(max_examples=300, deadline=None)
@given(value=st.floats(-1e12, 1e12, allow_nan=False), digits=st.integers(1, 6))
def test_a_number_in_a_message_is_written_out_never_in_e_notation(value: float, digits: int) -> None:
    """Trial 7, N10: 1.489e+04 1/s, "S is 2.7e+02 times", χ²/ν 5.03e+03 in messages and tables. The
    number keeps its significant digits and reads back to them."""
    text = significant(value, digits)
    assert "e" not in text.lower()
    assert float(text) == float(f"{value:.{digits}g}")


def test_a_large_rate_in_a_table_is_written_out() -> None:
    assert readable(14890.0, "1/s") == "14890 1/s" and significant(270.3, 2) == "270"
    assert significant(5031.0, 3) == "5030" and significant(60080e-6 * 1e6) == "60080"
