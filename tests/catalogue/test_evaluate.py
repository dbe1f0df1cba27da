"""Evaluating catalogue entries: named results, vectorization, and clear errors."""

import numpy as np
import pytest

from qmodel.catalogue.evaluate import calc, evaluate
from qmodel.errors import InputError


def test_mm1_textbook_example() -> None:
    # λ = 800/s, S = 1 ms: ρ = 0.8, R = S/(1 − ρ) = 5 ms, N = 4
    result = calc("mm1", arrival_rate=800, service_time=1.0)
    assert float(result.utilization) == pytest.approx(0.8)
    assert float(result.response_time) == pytest.approx(5.0)
    assert float(result.number_in_system) == pytest.approx(4.0)


def test_result_fields_carry_their_units() -> None:
    result = calc("mm1", arrival_rate=800, service_time=1.0)
    assert result.units["response_time"] == "ms"
    assert result.units["utilization"] == "ratio"


def test_unknown_result_field_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        calc("mm1", arrival_rate=800, service_time=1.0).disc_ms  # noqa: B018


def test_inputs_broadcast_for_a_sweep() -> None:
    rates = np.linspace(100, 900, 9)
    result = calc("mm1", arrival_rate=rates, service_time=1.0)
    assert result.response_time.shape == (9,)
    assert np.all(np.diff(result.response_time) > 0)


def test_defaults_fill_missing_inputs() -> None:
    # 10 µs/km and 1 / 2 round trips are the study's defaults
    result = calc("transaction_elongation", cf_requests=12, sync_writes=4, distance=70)
    assert float(result.elongation) == pytest.approx(14.0)


def test_utilization_at_one_is_an_instability_error() -> None:
    with pytest.raises(InputError, match="unstable") as error:
        calc("mm1", arrival_rate=1000, service_time=1.0)
    assert error.value.parameter == "utilization"
    assert error.value.allowed == "< 1"


def test_negative_rate_names_the_parameter_and_domain() -> None:
    with pytest.raises(InputError) as error:
        calc("mm1", arrival_rate=-5, service_time=1.0)
    assert error.value.parameter == "arrival_rate"
    assert "0 <= arrival_rate" in error.value.allowed


def test_ratio_above_one_suggests_a_percentage() -> None:
    with pytest.raises(InputError, match=r"write 95% or 0\.95"):
        calc("capacity_at_utilization", throughput=1000, utilization=1.3, target_utilization=0.85)


def test_fractional_server_count_is_refused() -> None:
    with pytest.raises(InputError, match="whole number"):
        calc("mmc", arrival_rate=10, service_time=1.0, servers=2.5)


def test_missing_input_without_default_is_named() -> None:
    with pytest.raises(InputError, match="service_time = missing"):
        calc("mm1", arrival_rate=10)


def test_unknown_input_is_refused() -> None:
    with pytest.raises(InputError, match="not an input of mm1"):
        calc("mm1", arrival_rate=10, service_time=1.0, servers=3)


def test_response_time_law_refuses_impossible_throughput() -> None:
    # 10 users thinking 10 s cannot make more than 1 transaction per second
    with pytest.raises(InputError, match="cannot generate"):
        calc("response_time_law", population=10, throughput=2, think_time=10)


def test_evaluate_reports_each_bad_row_and_computes_the_good_ones() -> None:
    evaluation = evaluate(
        "mm1", {"arrival_rate": np.array([800.0, -1.0, 1200.0, 100.0]), "service_time": np.array(1.0)}
    )
    assert sorted(evaluation.errors) == [1, 2]
    assert evaluation.errors[1].parameter == "arrival_rate"
    assert evaluation.errors[2].parameter == "utilization"
    assert evaluation.outputs["response_time"][[0, 3]] == pytest.approx([5.0, 1 / 0.9])


def test_utilization_one_reached_through_rounding_is_still_unstable() -> None:
    # 200,000/s × 80 µs / 16 threads is exactly 1, computed as 0.9999999999999999
    with pytest.raises(InputError, match="saturated"):
        calc(
            "storage_knee",
            io_rate=200_000,
            cpu_threads=16,
            cpu_service=80,
            adapters=16,
            adapter_service=60,
            cache_hit_time=0.5,
            read_miss_fraction=0.03,
            backend_ops_per_io=0.23,
            ranks=48,
            drives_per_rank=8,
            drive_service=4.2,
        )


def test_results_can_be_had_in_si_units() -> None:
    result = calc("mm1", arrival_rate=800, service_time=1.0)
    assert float(result.si("response_time")) == pytest.approx(0.005)  # 5 ms
    assert float(result.si()["utilization"]) == pytest.approx(0.8)


def test_a_call_in_si_units_takes_and_gives_si() -> None:
    result = calc("mm1", units="si", arrival_rate=800, service_time=0.001)
    assert float(result.response_time) == pytest.approx(0.005)
    assert result.units["response_time"] == "s"
    assert float(result.si("response_time")) == pytest.approx(0.005)


def test_an_si_output_chains_into_the_next_entry_without_unit_lookups() -> None:
    # the round-trip time over 100 km (1 ms) as the service time of an M/M/1 queue
    trip = calc("round_trip_time", units="si", distance=100e3).round_trip_time
    queue = calc("mm1", units="si", arrival_rate=500, service_time=trip)
    assert float(queue.response_time) == pytest.approx(0.002)


def test_data_rates_in_si_are_bytes_per_second() -> None:
    result = calc("link_sizing", units="si", write_rate=120e6, link_bandwidth=100e6, links=2)
    assert result.units["headroom"] == "B/s"
    assert float(result.headroom) == pytest.approx(80e6)


def test_an_unknown_unit_system_is_refused() -> None:
    with pytest.raises(InputError, match="units = imperial"):
        calc("mm1", units="imperial", arrival_rate=800, service_time=1.0)


def test_a_value_typed_with_its_unit_is_read_once_in_si_mode_too() -> None:
    typed = calc("mm1", units="si", arrival_rate="800/s", service_time="1ms").response_time
    assert typed == calc("mm1", units="si", arrival_rate=800, service_time=0.001).response_time
