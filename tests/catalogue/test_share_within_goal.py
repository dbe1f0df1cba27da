"""share_within_goal: a fixed part plus a gamma variable part; a whole shape is the old Erlang-k answer.

Source: gdps-pprc-100km-2006.txt, the WLM goal (90% of TPNO within 125 ms) and Environment 2's 0 km
percentile (96.6% within 125 ms at a 34 ms mean: a tail heavier than the exponential's, gamma shape
below 1).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import gamma

from qmodel.algorithms.queueing import erlang_cdf
from qmodel.catalogue import _compiled
from qmodel.catalogue.evaluate import calc


@given(st.integers(1, 40), st.floats(1e-3, 0.5), st.floats(1e-3, 0.5), st.floats(0, 0.99))
def test_a_whole_shape_gives_exactly_the_erlang_k_answer(shape, goal, mean, fixed_fraction) -> None:
    # seconds, as the generated code takes them; the entry as it was: ErlangCDF(k, max(0, k(g − f)/(m − f)))
    fixed = fixed_fraction * mean
    share = _compiled.share_within_goal(goal, mean, fixed, shape)["share"]
    erlang = erlang_cdf(shape, max(0, shape * (-fixed + goal) / (-fixed + mean)))
    assert np.array_equal(share, erlang)


def test_shape_one_with_no_fixed_part_is_the_exponential() -> None:
    share = calc("share_within_goal", goal=125, mean_response=34, fixed_part=0, shape=1).share
    assert float(share) == pytest.approx(1 - math.exp(-125 / 34), rel=1e-14)


def test_a_shape_below_one_puts_more_of_the_transactions_past_the_goal() -> None:
    # the same mean: a heavier tail (shape 0.8) leaves more beyond 125 ms than the exponential
    shares = [
        float(calc("share_within_goal", goal=125, mean_response=34, shape=k).share) for k in (0.8, 1, 1.2)
    ]
    assert shares[0] < shares[1] < shares[2]
    assert shares[0] == pytest.approx(gamma.cdf(125, 0.8, scale=34 / 0.8), rel=1e-12)  # scipy's own
    assert shares[0] == pytest.approx(0.966, abs=1e-3)  # near Environment 2's printed 96.6% at 0 km


def test_the_fixed_part_shifts_the_distribution_and_keeps_the_shape() -> None:
    # 22 ms paid by every transaction over a 30 ms variable part: the share of 125 ms is the share of 103
    shifted = calc("share_within_goal", goal=125, mean_response=52, fixed_part=22, shape=0.8).share
    alone = calc("share_within_goal", goal=103, mean_response=30, fixed_part=0, shape=0.8).share
    assert float(shifted) == pytest.approx(float(alone), rel=1e-14)
