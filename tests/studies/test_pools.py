"""closed_pool_scaling: a closed population on a striped pool of drives, by exact MVA (ESG 2008 striping)."""

import pytest

import qmodel.validation.quantities  # noqa: F401  (registers the study functions these tests call)
from qmodel.catalogue.registry import call
from qmodel.errors import InputError

POOL = dict(
    population=128,
    drives_before=8,
    drives_after=16,
    backend_ops_per_io=1,
    drive_service="4ms",
    front_end_time="0ms",
)


def test_balanced_pool_throughput_is_the_closed_form_of_exact_mva() -> None:
    # K equal queues with demand D each and no think time: X(N) = N / (D (N + K - 1)).
    outputs = call("closed_pool_scaling", POOL)
    assert outputs["throughput_before"] == pytest.approx(128 / (0.004 / 8 * (128 + 7)), rel=1e-9)
    assert outputs["throughput_after"] == pytest.approx(128 / (0.004 / 16 * (128 + 15)), rel=1e-9)


def test_doubling_the_drives_falls_short_of_doubling_a_finite_population() -> None:
    # esg-ds8000-validation-2008, Storage Pool Striping: 128 threads, 8 against 16 drives, "nearly doubled".
    gain = call("closed_pool_scaling", POOL)["gain"]
    assert gain == pytest.approx(2 * 135 / 143 - 1, rel=1e-9)
    assert 0.8 < gain < 1


def test_more_threads_bring_the_gain_closer_to_doubling() -> None:
    few = call("closed_pool_scaling", {**POOL, "population": 32})["gain"]
    many = call("closed_pool_scaling", {**POOL, "population": 512})["gain"]
    assert few < many < 1


def test_a_fractional_population_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="population"):
        call("closed_pool_scaling", {**POOL, "population": 12.5})
