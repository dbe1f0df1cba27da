"""Text wrapped at spaces (qmodel.output.wrap_at_spaces): the one rule for headers, notes, lists, comments."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qmodel.output import csv_number, exact_enough, wrap_at_spaces


@pytest.mark.parametrize("width", range(8, 40))
def test_a_number_is_never_on_another_line_than_its_unit(width: int) -> None:
    lines = wrap_at_spaces("the goal holds up to 70.3 km with 7 subchannels (1 of 2)", width)
    assert any("70.3 km" in line for line in lines)
    assert any("7 subchannels" in line for line in lines)


@pytest.mark.parametrize("width", range(10, 60))
def test_a_number_ending_a_clause_stays_with_the_word_before_it(width: int) -> None:
    lines = wrap_at_spaces("GDPS Environment 1: single site, Metro Mirror secondary at site 2", width)
    assert any("Environment 1:" in line for line in lines)
    assert any(line.endswith("site 2") for line in lines)


@pytest.mark.parametrize("width", range(8, 50))
def test_a_folded_tables_part_stays_whole_in_its_title(width: int) -> None:
    # at 50 columns "... subchannel [%] (3 of" ended a line, with "6)" alone under it
    lines = wrap_at_spaces("CF requests delayed for a subchannel [%] (3 of 6)", width)
    assert lines[-1].endswith("(3 of 6)")


def test_a_number_inside_a_name_binds_nothing() -> None:
    assert wrap_at_spaces("G1P2 falls below", 10) == ["G1P2 falls", "below"]
    assert wrap_at_spaces("G1P2 falls below", 5) == ["G1P2", "falls", "below"]


def test_a_comma_after_a_number_ends_it() -> None:
    assert wrap_at_spaces("(G1P1 78, G1P2 78)", 10) == ["(G1P1 78,", "G1P2 78)"]


def test_a_no_break_space_holds_and_is_printed_as_a_space() -> None:
    assert wrap_at_spaces("up to 92\N{NO-BREAK SPACE}in\N{NO-BREAK SPACE}all still", 12) == [
        "up to",
        "92 in all",
        "still",
    ]


def test_a_hyphen_is_no_place_to_break() -> None:
    assert wrap_at_spaces("a multi-site workload", 11) == ["a", "multi-site", "workload"]


def test_a_word_longer_than_the_width_stays_whole_unless_folded() -> None:
    assert wrap_at_spaces("see /a/long/path/name", 8) == ["see", "/a/long/path/name"]
    assert wrap_at_spaces("see /a/long/path/name", 8, fold_long_words=True) == [
        "see /a/l",
        "ong/path",
        "/name",
    ]


def test_the_first_line_and_the_others_take_their_own_indent() -> None:
    assert wrap_at_spaces("one two three", 9, indent="# ", subsequent_indent="# ") == ["# one two", "# three"]


def test_a_count_in_all_gives_the_sum_then_each_part() -> None:
    from qmodel.output import count_in_all

    assert count_in_all(["G1P1", "G1P2"], [46, 46]) == "92 in all (G1P1 46, G1P2 46)"
    assert (
        count_in_all(["G1P1", "G1P2"], [80, 80], "terminals in all")
        == "160 terminals in all (G1P1 80, G1P2 80)"
    )


def test_a_count_in_all_for_wrapped_text_joins_each_number_to_its_words() -> None:
    from qmodel.output import count_in_all

    text = count_in_all(["G1P1", "G1P2"], [98, 98], space="\N{NO-BREAK SPACE}")
    assert text.split(" ") == [
        "196\N{NO-BREAK SPACE}in\N{NO-BREAK SPACE}all",
        "(G1P1\N{NO-BREAK SPACE}98,",
        "G1P2\N{NO-BREAK SPACE}98)",
    ]


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_csv_float_is_written_as_repr_writes_the_float_rounded_to_significant_digits(value) -> None:
    # csv_number writes the common case without parsing the rounded float back: the text must be the same
    assert csv_number(value) == repr(exact_enough(value))


@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(-(10**12), 10**12).map(float),  # whole numbers: 6.0
            st.integers(-(10**6), 10**6).map(lambda n: n * (1 + 2e-16)),  # next to them
            st.sampled_from([-0.0, 1e-300, 1e11, 99999999999.99998, 2.9999999999999996]),
        )
    )
)
def test_a_float_column_is_written_cell_for_cell_as_csv_number_writes_each(values) -> None:
    import numpy as np

    from qmodel.output import csv_floats

    assert csv_floats(np.array(values, dtype=float)) == [csv_number(value) for value in values]
