"""The load-free parts a scenario's solve starts from (qmodel.scenario.compose.fixed_parts) do not read
the lock parameters, a member's other or think time: scenarios that differ only in those (a band's
points, a fit's trials) share them, computed once, and get the answers they would get alone."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.scenario import band as band_module
from qmodel.scenario import compose, load_scenario
from qmodel.scenario.band import _seek_solves
from qmodel.scenario.compose import fixed_parts, load_free_groups, same_load_free, solve_at
from qmodel.scenario.fit import load_only

ENV2 = load_scenario("gdps-env2")
DISTANCES = np.array([0.0, 1.0, 40e3, 100e3])


def _varied(items: float, span: float, trips: float, other: float, think: float, shape: float = 1.0):
    members = tuple(replace(m, other=other, think_time=think, shape=shape) for m in ENV2.members)
    return replace(
        ENV2, lockable_items=items, lock_span=span, resolution_round_trips=trips, members=members, shape=shape
    )


@given(
    items=st.floats(1.0, 1e9),
    span=st.floats(0.0, 1.0),
    trips=st.floats(0.0, 10.0),
    other=st.floats(0.0, 1.0),
    think=st.floats(1e-3, 100.0),
    shape=st.floats(0.1, 10.0),
)
@settings(max_examples=10, deadline=None)
def test_the_load_free_parts_do_not_read_the_lock_parameters_the_workload_or_the_shapes(
    items, span, trips, other, think, shape
):
    varied = _varied(items, span, trips, other, think, shape)
    assert same_load_free(ENV2, varied)
    alone, shared = asdict(fixed_parts(varied, DISTANCES)), asdict(fixed_parts(ENV2, DISTANCES))
    for name, value in alone.items():
        np.testing.assert_array_equal(np.asarray(shared[name]), np.asarray(value), err_msg=name)


@pytest.mark.parametrize(
    "change",
    [
        {"crossing_latency": 1e-4},
        {"fibre_speed": 1.5e8},
        {"redispatch": 1e-4},
        {"castout_owner": "G1P2"},
        {"members": tuple(replace(m, cpu=m.cpu * 2) for m in ENV2.members)},
    ],
    ids=["crossing_latency", "fibre_speed", "redispatch", "castout_owner", "cpu"],
)
def test_a_change_the_load_free_parts_read_is_not_shared(change) -> None:
    assert not same_load_free(ENV2, replace(ENV2, **change))


@pytest.mark.parametrize(
    ("key", "shared"),
    [
        ("locks.lockable_items", True),
        ("locks.lock_span", True),
        ("locks.resolution_round_trips", True),
        ("member.G1P1.other", True),
        ("member.*.think_time", True),
        ("member.G1P1.cpu", False),
        ("crossing_latency", False),
        ("conversion.redispatch", False),
        ("distribution.shape", True),
        ("member.G1P1.shape", True),
    ],
)
def test_a_fit_computes_the_load_free_parts_once_only_for_keys_they_do_not_read(key, shared) -> None:
    assert load_only(key) is shared


def test_band_points_that_differ_only_in_load_only_keys_are_solved_together_as_each_alone() -> None:
    """The goal seek's band solves the points that share their load-free parts in one fixed point, each
    point's distances side by side: every point's response times are those of its own solve (a column's
    iteration reads no other column), thrashing (NaN) included."""
    near_edge = _varied(900.0, 1.0, 2.0, 0.02, 1.0)  # thrashes within the distances
    points = (ENV2, _varied(2000.0, 0.5, 1.0, 0.01, 2.0), near_edge, replace(ENV2, crossing_latency=1e-4))
    groups = load_free_groups(points, DISTANCES)
    assert [group for group, _ in groups] == [[0, 1, 2], [3]]
    response, _, fixed = _seek_solves(points, DISTANCES, np.array([]))
    assert np.isnan(response[2]).any() and not np.isnan(response[0]).any()
    for point, together, part in zip(points, response, fixed, strict=True):
        alone = solve_at(point, DISTANCES)
        np.testing.assert_allclose(together, alone.response_time, rtol=1e-12)
        np.testing.assert_array_equal(np.isnan(together), np.isnan(alone.response_time))
        np.testing.assert_array_equal(part, alone.fixed_part)


def test_points_that_differ_only_in_their_shapes_are_solved_once_with_the_same_response_times(
    monkeypatch,
) -> None:
    """The gamma shape is read only by the share within the goal: a band's points at the nodes of a
    default shape have the same response times, and the goal seek's band solves each distinct point
    once."""
    points = (ENV2, _varied(2000.0, 0.5, 1.0, 0.01, 2.0, 0.62), _varied(2000.0, 0.5, 1.0, 0.01, 2.0, 1.38))
    columns = []
    solve = compose.solved_together
    monkeypatch.setattr(
        compose, "solved_together", lambda p, *a, **k: columns.append(len(p)) or solve(p, *a, **k)
    )
    (group,) = load_free_groups(points, DISTANCES)
    response = compose.response_times_together(points, DISTANCES, group[1])
    assert columns == [2]
    np.testing.assert_array_equal(response[1], response[2])
    for point, together in zip(points, response, strict=True):
        np.testing.assert_allclose(together, solve_at(point, DISTANCES).response_time, rtol=1e-12)


def test_solved_alike_maps_a_point_to_the_first_that_differs_from_it_only_in_its_shapes() -> None:
    """A point solved alike: the same load-free parts and the same values the lock fixed point reads; a
    different crossing latency (load-free parts) or a different other (the fixed point) is its own solve."""
    shaped = _varied(2000.0, 0.5, 1.0, 0.01, 2.0, 0.62)
    points = (
        ENV2,
        shaped,
        replace(shaped, shape=1.38, members=tuple(replace(m, shape=1.38) for m in shaped.members)),
        replace(shaped, crossing_latency=1e-4),
        _varied(2000.0, 0.5, 1.0, 0.02, 2.0, 0.62),
    )
    assert compose.solved_alike(points) == [0, 1, 1, 3, 4]


def test_a_bands_points_that_differ_only_in_their_shapes_are_solved_once_with_their_own_values(
    monkeypatch,
) -> None:
    """The answer's band (band.solve_banded) reads no share of a point: points at the nodes of a default
    shape are solved once, and the band is what solving each gives."""
    low, high = (_varied(2000.0, 0.5, 1.0, 0.01, 2.0, shape) for shape in (0.62, 1.38))
    banded = band_module.Banded(ENV2, (low, high, replace(low, lock_span=0.9)), (0.25, 0.25, 0.25), None)
    solved = []
    solve = band_module.solve_scenarios_together
    monkeypatch.setattr(
        band_module,
        "solve_scenarios_together",
        lambda points, *a, **k: solved.extend(points) or solve(points, *a, **k),
    )
    result = band_module.solve_banded(banded, DISTANCES)
    assert [each.lock_span for each in solved] == [0.5, 0.9]
    monkeypatch.setattr(band_module, "solved_alike", lambda points: list(range(len(points))))
    every = band_module.solve_banded(banded, DISTANCES)
    assert len(solved) == 2 + 3
    assert result.band.ends.keys() == every.band.ends.keys()
    for name, (low_end, high_end) in result.band.ends.items():
        np.testing.assert_array_equal(low_end, every.band.ends[name][0], err_msg=name)
        np.testing.assert_array_equal(high_end, every.band.ends[name][1], err_msg=name)


def test_points_solved_together_get_the_answers_each_gets_alone() -> None:
    """compose.solve_scenarios_together: a band's points that share their load-free parts, in one fixed
    point side by side, each answer (response times, breakdown, throughput, shares, the load where lock
    contention begins where it thrashes) the one solve_scenario gives it alone, bit for bit."""
    far = np.array([0.0, 40e3, 150e3, 300e3])
    points = [
        _varied(2000.0, 0.5, 1.0, 0.01, 2.0),
        _varied(300.0, 1.0, 2.0, 0.02, 1.0),  # few lockable items: it thrashes far out
        _varied(1e6, 0.2, 1.0, 0.0, 5.0, 2.0),
    ]
    (group,) = load_free_groups(points, far)
    together = compose.solve_scenarios_together(points, far, group[1])
    assert np.isnan(together[1].response_time).any() and np.isfinite(together[1].thrashing_load).any()
    for point, answer in zip(points, together, strict=True):
        alone = compose.solve_scenario(point, far)
        for name, value in asdict(alone).items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(np.asarray(getattr(answer, name)), value, err_msg=name)
        assert answer.breakdown.keys() == alone.breakdown.keys()
        for name, value in alone.breakdown.items():
            np.testing.assert_array_equal(answer.breakdown[name], value, err_msg=name)


def test_points_solved_without_the_search_give_the_band_what_they_give_with_it() -> None:
    """A band's points are solved without the search for the load where lock contention begins (the band
    reads neither it nor the waits' shares at its edge): every value the band reads is the one the search
    gives, the thrashing point's too; only the load and the shares at the edge are left unsearched."""
    far = np.array([0.0, 40e3, 150e3, 300e3])
    points = [_varied(2000.0, 0.5, 1.0, 0.01, 2.0), _varied(300.0, 1.0, 2.0, 0.02, 1.0)]
    (group,) = load_free_groups(points, far)
    searched = compose.solve_scenarios_together(points, far, group[1])
    bare = compose.solve_scenarios_together(points, far, group[1], search=False)
    assert np.isfinite(searched[1].thrashing_load).any() and np.isnan(bare[1].thrashing_load).all()
    for one, other in zip(searched, bare, strict=True):
        for name in ("response_time", "throughput", "cpu_busy", "thrashing", "lock_thrashing", "fixed_part"):
            np.testing.assert_array_equal(getattr(one, name), getattr(other, name), err_msg=name)
        for name, value in one.breakdown.items():
            np.testing.assert_array_equal(other.breakdown[name], value, err_msg=name)
