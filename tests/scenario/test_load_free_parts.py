"""The load-free parts a scenario's solve starts from (qmodel.scenario.compose.fixed_parts) do not read
the lock parameters, a member's other or think time: scenarios that differ only in those (a band's
points, a fit's trials) share them, computed once, and get the answers they would get alone."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.scenario import load_scenario
from qmodel.scenario.band import _seek_solves, load_free_parts
from qmodel.scenario.compose import fixed_parts, same_load_free
from qmodel.scenario.fit import load_only

ENV2 = load_scenario("gdps-env2")
DISTANCES = np.array([0.0, 1.0, 40e3, 100e3])


def _varied(items: float, span: float, trips: float, other: float, think: float):
    members = tuple(replace(m, other=other, think_time=think) for m in ENV2.members)
    return replace(ENV2, lockable_items=items, lock_span=span, resolution_round_trips=trips, members=members)


@given(
    items=st.floats(1.0, 1e9),
    span=st.floats(0.0, 1.0),
    trips=st.floats(0.0, 10.0),
    other=st.floats(0.0, 1.0),
    think=st.floats(1e-3, 100.0),
)
@settings(max_examples=10, deadline=None)
def test_the_load_free_parts_do_not_read_the_lock_parameters_or_the_workload(
    items, span, trips, other, think
):
    varied = _varied(items, span, trips, other, think)
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
        ("distribution.shape", False),
    ],
)
def test_a_fit_computes_the_load_free_parts_once_only_for_keys_they_do_not_read(key, shared) -> None:
    assert load_only(key) is shared


def test_band_points_that_differ_only_in_load_only_keys_share_one_computation_and_answer_as_alone() -> None:
    points = (ENV2, _varied(2000.0, 0.5, 1.0, 0.01, 2.0), replace(ENV2, crossing_latency=1e-4))
    parts = load_free_parts(points, DISTANCES)
    assert parts[1] is parts[0] and parts[2] is not parts[0]
    response, _, _ = _seek_solves(points, DISTANCES, np.array([]))
    for point, shared in zip(points, response, strict=True):
        from_own, _, _ = _seek_solves((point,), DISTANCES, np.array([]))
        np.testing.assert_array_equal(shared, from_own[0])
