"""Inverse solves: the forward model at the solved input returns the target."""

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.inverse import solve
from qmodel.cli import cli
from qmodel.errors import InputError

ZTPF = {"read_fraction": 0.565, "read_hit_ratio": 0.95, "destage_rate": 0.10}


@given(st.floats(0.01, 0.99), st.floats(0, 1), st.floats(0.5, 1), st.integers(1, 2000))
def test_io_rate_for_a_target_utilization_returns_the_target(target, reads, hits, drives) -> None:
    inputs = {"read_fraction": reads, "read_hit_ratio": hits, "destage_rate": 0.1, "drives": drives}
    solution = solve("backend_load", "drive_utilization", target, "io_rate", inputs)
    forward = calc("backend_load", io_rate=solution.value, **inputs)
    assert float(forward.drive_utilization) == pytest.approx(target, rel=1e-9)


@given(st.floats(0.05, 0.9), st.floats(50_000, 200_000))
def test_hit_ratio_for_a_target_utilization_returns_the_target(target, io_rate) -> None:
    inputs = {"io_rate": io_rate, "read_fraction": 0.565, "destage_rate": 0.02, "drives": 360}
    low = float(calc("backend_load", read_hit_ratio=1.0, **inputs).drive_utilization)
    high = float(calc("backend_load", read_hit_ratio=0.0, **inputs).drive_utilization)
    if not low < target < high:
        with pytest.raises(InputError, match="not reachable"):
            solve("backend_load", "drive_utilization", target, "read_hit_ratio", inputs)
        return
    solution = solve("backend_load", "drive_utilization", target, "read_hit_ratio", inputs)
    forward = calc("backend_load", read_hit_ratio=solution.value, **inputs)
    assert float(forward.drive_utilization) == pytest.approx(target, rel=1e-9)


@given(st.floats(0.05, 0.95), st.floats(10_000, 400_000))
def test_whole_drives_are_the_fewest_that_keep_utilization_at_or_below_target(target, io_rate) -> None:
    inputs = {"io_rate": io_rate, **ZTPF}
    drives = float(solve("backend_load", "drive_utilization", target, "drives", inputs).value)
    assert float(calc("backend_load", drives=drives, **inputs).drive_utilization) <= target
    if drives > 1:
        assert float(calc("backend_load", drives=drives - 1, **inputs).drive_utilization) > target


def test_solve_is_vectorized_over_targets() -> None:
    solution = solve(
        "backend_load", "drive_utilization", np.array([0.3, 0.5, 0.7]), "io_rate", {**ZTPF, "drives": 360}
    )
    assert np.allclose(solution.outputs["drive_utilization"], [0.3, 0.5, 0.7])


def test_solve_never_lands_past_a_stability_limit() -> None:
    solution = solve("mm1", "response_time", 5.0, "arrival_rate", {"service_time": 1.0})
    assert float(solution.value) == pytest.approx(800.0)


def test_input_not_declared_monotone_is_refused_with_the_ones_that_are() -> None:
    with pytest.raises(InputError, match="declared monotone in: destage_rate"):
        solve("backend_load", "drive_utilization", 0.5, "raid_level", {"io_rate": 1000, **ZTPF, "drives": 8})


def test_cli_solve_prints_the_solved_input_and_the_forward_outputs() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "solve",
            "backend_load",
            "drive_utilization=50%",
            "--for",
            "io_rate",
            "read_fraction=56.5%",
            "read_hit_ratio=95%",
            "destage_rate=10%",
            "drives=360",
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0
    lines = result.output.splitlines()
    solved = float(next(line for line in lines if line.startswith("solved,io_rate")).split(",")[2])
    assert solved == pytest.approx(0.5 * 240 * 360 / (0.565 * 0.05 + 0.1 * 2))
    assert "output,drive_utilization,0.5" in result.output


# Issue 12: the search starts from the stability bound and knows on which side of the target a
# refused (unstable) point lies. Each answer below is checked against the forward model.


def test_erlang_c_servers_for_a_delayed_fraction_is_the_fewest_that_meet_it() -> None:
    servers = int(solve("erlang_c", "wait_probability", 0.10, "servers", {"offered_load": 3}).value)
    assert servers == 6
    assert float(calc("erlang_c", servers=6, offered_load=3).wait_probability) <= 0.10
    assert float(calc("erlang_c", servers=5, offered_load=3).wait_probability) > 0.10


def test_mmc_servers_for_a_response_time_start_from_the_stability_bound() -> None:
    inputs = {"arrival_rate": 35_000, "service_time": 0.15}
    servers = int(solve("mmc", "response_time", 0.16, "servers", inputs).value)
    assert float(calc("mmc", servers=servers, **inputs).response_time) <= 0.16
    assert float(calc("mmc", servers=servers - 1, **inputs).response_time) > 0.16


def test_pav_aliases_for_an_iosq_target_are_the_fewest_that_meet_it() -> None:
    inputs = {"ssch_rate": 5000, "service_time": 1.0}
    aliases = int(solve("pav_iosq", "iosq", 0.1, "aliases", inputs).value)
    assert float(calc("pav_iosq", aliases=aliases, **inputs).iosq) <= 0.1
    assert float(calc("pav_iosq", aliases=aliases - 1, **inputs).iosq) > 0.1


def test_links_for_a_target_utilization_from_an_undersized_start() -> None:
    solution = solve("link_sizing", "utilization", 0.70, "links", {"write_rate": 120, "link_bandwidth": 100})
    assert int(solution.value) == 2


def test_burst_drain_bandwidth_agrees_with_bandwidth_for_burst() -> None:
    inputs = {"base_write_rate": 120, "burst_size": 60, "burst_rate": 1}
    solution = solve("burst_drain", "time_to_empty", 10, "bandwidth", inputs)
    direct = calc("bandwidth_for_burst", drain_within=10, **inputs).bandwidth
    assert float(solution.value) == pytest.approx(220) == pytest.approx(float(direct))


def test_an_output_proven_monotone_by_its_derivative_is_accepted() -> None:
    # mmc.utilization = λS/c declares no property in servers; d/dc = −λS/c² <= 0 is proven
    solution = solve("mmc", "utilization", 0.70, "servers", {"arrival_rate": 35_000, "service_time": 0.15})
    assert int(solution.value) == 8  # 5.25 erlangs: 7 servers run at 75%, 8 at 65.6%


def test_a_proof_is_not_attempted_through_a_piecewise_output() -> None:
    with pytest.raises(InputError, match="neither declared nor provably monotone"):
        solve(
            "cf_sync_async_conversion",
            "converted",
            0.5,
            "threshold",
            {"sync_service_at_zero": 20, "distance": 50},
        )


def test_a_decreasing_output_already_met_at_the_lowest_value_answers_that_value() -> None:
    assert int(solve("erlang_c", "wait_probability", 0.5, "servers", {"offered_load": 0.1}).value) == 1


def test_a_target_below_the_asymptote_is_not_reachable_and_says_how_near_it_comes() -> None:
    # response time never falls below the service time, however many servers
    with pytest.raises(InputError, match=r"not reachable; the nearest it comes is 0\.15 ms"):
        solve("mmc", "response_time", 0.1, "servers", {"arrival_rate": 35_000, "service_time": 0.15})


def test_a_target_past_the_stability_limit_is_not_reachable() -> None:
    with pytest.raises(InputError, match="not reachable"):
        solve("mmc", "utilization", 1.0, "arrival_rate", {"service_time": 1.0, "servers": 2})


def test_a_model_that_refuses_every_value_says_so() -> None:
    # the base write rate alone exceeds the link: no burst size helps
    with pytest.raises(InputError, match="refuses every value"):
        solve(
            "burst_drain",
            "peak_backlog",
            10,
            "burst_size",
            {"base_write_rate": 500, "burst_rate": 1, "bandwidth": 100},
        )


@given(st.floats(0.001, 0.9), st.floats(0.01, 400))
def test_servers_for_a_delayed_fraction_are_the_fewest_whole_number_that_meets_it(target, load) -> None:
    servers = float(solve("erlang_c", "wait_probability", target, "servers", {"offered_load": load}).value)
    assert float(calc("erlang_c", servers=servers, offered_load=load).wait_probability) <= target
    if servers - 1 > load:
        assert float(calc("erlang_c", servers=servers - 1, offered_load=load).wait_probability) > target


@given(st.floats(0.5, 50), st.floats(0.01, 0.99))
def test_arrival_rate_for_a_response_time_lands_on_the_stable_side(multiple, service_ms) -> None:
    target = service_ms * (1 + multiple)
    rate = float(solve("mm1", "response_time", target, "arrival_rate", {"service_time": service_ms}).value)
    forward = calc("mm1", arrival_rate=rate, service_time=service_ms)
    assert float(forward.response_time) == pytest.approx(target)
