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
def test_whole_drives_are_the_fewest_that_keep_utilization_at_or_below_target(target,
                                                                             io_rate) -> None:
    inputs = {"io_rate": io_rate, **ZTPF}
    drives = float(solve("backend_load", "drive_utilization", target, "drives", inputs).value)
    assert float(calc("backend_load", drives=drives, **inputs).drive_utilization) <= target
    if drives > 1:
        assert float(calc("backend_load", drives=drives - 1, **inputs).drive_utilization) > target


def test_solve_is_vectorized_over_targets() -> None:
    solution = solve("backend_load", "drive_utilization", np.array([0.3, 0.5, 0.7]), "io_rate",
                     {**ZTPF, "drives": 360})
    assert np.allclose(solution.outputs["drive_utilization"], [0.3, 0.5, 0.7])


def test_solve_never_lands_past_a_stability_limit() -> None:
    solution = solve("mm1", "response_time", 5.0, "arrival_rate", {"service_time": 1.0})
    assert float(solution.value) == pytest.approx(800.0)


def test_input_not_declared_monotone_is_refused_with_the_ones_that_are() -> None:
    with pytest.raises(InputError, match="declared monotone in: destage_rate"):
        solve("backend_load", "drive_utilization", 0.5, "raid_level",
              {"io_rate": 1000, **ZTPF, "drives": 8})


def test_cli_solve_prints_the_solved_input_and_the_forward_outputs() -> None:
    result = CliRunner().invoke(cli, ["solve", "backend_load", "drive_utilization=50%",
                                      "--for", "io_rate", "read_fraction=56.5%",
                                      "read_hit_ratio=95%", "destage_rate=10%", "drives=360",
                                      "--format", "csv"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    solved = float(next(line for line in lines if line.startswith("solved,io_rate")).split(",")[2])
    assert solved == pytest.approx(0.5 * 240 * 360 / (0.565 * 0.05 + 0.1 * 2))
    assert "output,drive_utilization,0.5" in result.output
