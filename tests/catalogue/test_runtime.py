"""The element-wise helpers the generated code calls for factorial and Sum."""

import math

import numpy as np
import pytest

from qmodel.catalogue.runtime import factorial, sum_terms
from qmodel.errors import InputError


def test_factorial_is_exact_for_whole_numbers_and_gamma_between_them() -> None:
    n = np.array([0, 1, 5, 20, 170, 2.5, 171, -1])
    expected = [1, 1, 120, math.factorial(20), float(math.factorial(170)), math.gamma(3.5), math.inf]
    assert np.array_equal(factorial(n)[:7], np.array(expected, dtype=float))
    assert np.isnan(factorial(n)[7])


def test_sum_runs_each_element_over_its_own_limits() -> None:
    last = np.array([-1.0, 0.0, 3.0, 10.0])
    total = sum_terms(lambda k: k**2, 0.0, last, "k")
    assert total.tolist() == [0.0, 0.0, 14.0, 385.0]  # an empty Sum is 0


def test_a_sum_too_long_to_run_is_refused_before_it_starts() -> None:
    with pytest.raises(InputError, match=r"Sum over k = 1e\+12 terms .*too large to compute"):
        sum_terms(lambda k: k, 0.0, 1e12, "k")
