"""Interval-notation domains of catalogue symbols."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qmodel.domains import Domain


def test_closed_interval_contains_its_ends() -> None:
    domain = Domain.parse("[0, 1]")
    assert domain.contains(np.array([0.0, 0.5, 1.0])).all()
    assert not domain.contains(np.array([-1e-9, 1.0 + 1e-9])).any()


def test_open_end_excludes_it() -> None:
    domain = Domain.parse("(0, inf)")
    assert not domain.contains(0.0)
    assert domain.contains(1e300)


def test_integer_domain_refuses_fractions() -> None:
    domain = Domain.parse("[1, inf) integer")
    assert domain.contains(8.0)
    assert not domain.contains(8.5)


def test_nan_and_infinity_are_never_inside() -> None:
    domain = Domain.parse("(-inf, inf)")
    assert not domain.contains(np.array([math.nan, math.inf, -math.inf])).any()


@pytest.mark.parametrize("text", ["0 <= x <= 1", "[1, 0]", "[0, inf]", "(0 1)", "[a, 1]"])
def test_malformed_domain_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Domain.parse(text)


def test_describe_reads_as_an_inequality() -> None:
    assert Domain.parse("[0, 1]").describe("read_hit_ratio") == "0 <= read_hit_ratio <= 1"
    assert Domain.parse("(0, inf)").describe("service_time") == "0 < service_time"


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False))
def test_membership_agrees_with_the_inequality(value: float, other: float) -> None:
    low, high = sorted([value, other])
    if low == high:
        return
    domain = Domain.parse(f"[{low!r}, {high!r})")
    for probe in (low, high, (low + high) / 2):
        assert bool(domain.contains(probe)) == (low <= probe < high)


def test_set_domain_allows_only_its_values() -> None:
    domain = Domain.parse("{5, 6, 10}")
    assert domain.contains(np.array([5.0, 6.0, 10.0])).all()
    assert not domain.contains(np.array([3.0, 5.5, 7.0, np.nan])).any()
    assert domain.describe("raid_level") == "raid_level one of 5, 6, 10"
