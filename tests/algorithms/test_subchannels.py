"""CF subchannel sizing: the study's rule against Erlang C, and the distance fit."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qmodel.algorithms.queueing import erlang_c
from qmodel.algorithms.subchannels import erlang_c_subchannels, load_for_delayed_fraction
from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError
from qmodel.studies.distance import fit_distance_table

fractions = st.floats(1e-4, 1 - 1e-4)


@given(st.integers(1, 64), fractions)
def test_inferred_load_reproduces_the_measured_delayed_fraction(subchannels, delayed) -> None:
    load = load_for_delayed_fraction(subchannels, delayed)
    assert 0 < load < subchannels
    assert float(erlang_c(subchannels, load)) == pytest.approx(delayed, rel=1e-9)


@given(st.integers(1, 40), fractions)
def test_rule_and_erlang_c_agree_that_the_target_measured_on_k_needs_k(subchannels, target) -> None:
    rule = calc(
        "subchannel_rule", delayed_fraction=target, measured_subchannels=subchannels, target_delayed=target
    )
    queue = erlang_c_subchannels(subchannels, target, target)
    assert float(rule.subchannels) == pytest.approx(subchannels)
    assert float(rule.subchannels_needed) == subchannels
    assert float(queue["subchannels"]) == subchannels


@given(st.integers(1, 20), fractions, fractions)
def test_erlang_c_answer_meets_the_target_with_the_fewest_subchannels(k, delayed, target) -> None:
    result = erlang_c_subchannels(k, delayed, target)
    servers, load = float(result["subchannels"]), float(result["offered_load"])
    assert float(erlang_c(servers, load)) <= target * (1 + 1e-9)
    if servers - 1 > load:
        assert float(erlang_c(servers - 1, load)) > target


def test_study_example_rule_gives_3_94_not_the_printed_4_3() -> None:
    # Appendix B: 31.1% delayed on 2 subchannels; sqrt(.311) = .558, log10(.558) = -0.253
    rule = calc("subchannel_rule", delayed_fraction=0.311)
    assert float(rule.subchannel_busy) == pytest.approx(0.558, abs=5e-4)
    assert float(rule.subchannels) == pytest.approx(-1 / np.log10(np.sqrt(0.311)))
    assert float(rule.subchannels) == pytest.approx(3.943, abs=1e-3)
    assert float(rule.links) == pytest.approx(0.563, abs=1e-3)


def test_study_example_erlang_c_asks_for_3_subchannels() -> None:
    result = calc("erlang_c_subchannels", delayed_fraction=0.311)
    assert float(result.subchannels) == 3
    assert float(result.wait_probability) < 0.1


@pytest.mark.parametrize("entry", ["subchannel_rule", "erlang_c_subchannels"])
def test_target_above_the_measured_fraction_needs_no_more_and_is_no_error(entry) -> None:
    result = calc(entry, delayed_fraction=0.05, target_delayed=0.1)
    assert float(result.more_needed) == 0


@given(st.floats(0.0, 1000.0), st.floats(0.0, 100.0), st.floats(0.0, 50.0))
def test_elongation_is_linear_in_distance(distance, cf_requests, sync_writes) -> None:
    once = calc("transaction_elongation", cf_requests=cf_requests, sync_writes=sync_writes, distance=distance)
    twice = calc(
        "transaction_elongation", cf_requests=cf_requests, sync_writes=sync_writes, distance=2 * distance
    )
    assert float(twice.elongation) == pytest.approx(2 * float(once.elongation), rel=1e-12, abs=1e-15)


def test_fit_recovers_the_slope_of_an_exact_line() -> None:
    fit = fit_distance_table([0, 20, 40, 70, 100], [0.3 + 0.01 * d for d in (0, 20, 40, 70, 100)])
    assert fit.slope_us_per_km == pytest.approx(10.0)
    assert fit.intercept == pytest.approx(0.3)
    assert np.allclose(fit.residuals, 0, atol=1e-12)


def test_fit_of_a_microsecond_table_divides_by_round_trips() -> None:
    fit = fit_distance_table([0, 100], [100, 2100], value_unit="us", round_trips=2)
    assert fit.slope_us_per_km == pytest.approx(20.0)
    assert fit.us_per_km_per_round_trip == pytest.approx(10.0)


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"distance_km": [0, 20], "values": [1.0]}, "values"),
        ({"distance_km": [0, 20], "values": [1.0, 2.0], "value_unit": "s"}, "value_unit"),
        ({"distance_km": [0, 20], "values": [1.0, 2.0], "round_trips": 0}, "round_trips"),
    ],
)
def test_fit_refuses_bad_tables(kwargs, parameter) -> None:
    with pytest.raises(InputError) as error:
        fit_distance_table(**kwargs)
    assert error.value.parameter == parameter


def test_paired_links_round_up_to_an_even_count() -> None:
    from qmodel.algorithms.subchannels import paired_links

    assert [paired_links(n) for n in (1, 2, 3, 4)] == [2, 2, 4, 4]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_subchannels_output_states_the_inputs_it_assumed(fmt: str) -> None:
    from click.testing import CliRunner

    from qmodel.cli import cli

    result = CliRunner().invoke(cli, ["subchannels", "--delayed", "31.1%", "--format", fmt])
    for column in (
        "delayed_measured[ratio]",
        "measured_subchannels",
        "target_delayed[ratio]",
        "links_in_pairs",
    ):
        assert column in result.output


def test_subchannels_table_says_the_assumed_target_and_pairs() -> None:
    from click.testing import CliRunner

    from qmodel.cli import cli

    result = CliRunner().invoke(cli, ["subchannels", "--delayed", "31.1%"], env={"COLUMNS": "80"})
    assert "target 0.1 delayed" in result.output and "measured on 2 subchannels" in result.output
    assert "pairs" in result.output


@given(st.floats(0, 5000), st.floats(1e-4, 0.99))
def test_the_subchannels_found_are_the_fewest_that_meet_the_target(load, target) -> None:
    from qmodel.algorithms.subchannels import smallest_subchannels

    servers = float(smallest_subchannels(load, target))
    assert servers > load
    assert float(erlang_c(servers, load)) <= target * (1 + 1e-9)
    if servers - 1 > load:  # one fewer is stable, and misses the target
        assert float(erlang_c(servers - 1, load)) > target * (1 + 1e-9)
