"""Typed-in values: ratios, counts with suffixes, units; ambiguity is an error."""

import pytest

from qmodel.errors import InputError
from qmodel.units import parse_value


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
