"""The element-wise helpers the generated code calls for factorial and Sum."""

import math

import numpy as np
import pytest

from qmodel.catalogue.runtime import factorial, lowergamma, sum_terms
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


def test_lowergamma_is_the_regularised_gamma_times_the_gamma_function() -> None:
    # γ(3/2, x) = √π/2 · erf(√x) − √x e⁻ˣ (A&S 6.5.22); γ(1, x) = 1 − e⁻ˣ; past Γ's overflow γ stays finite
    x = np.array([0.0, 0.5, 2.0, 9.0])
    expected = [math.sqrt(math.pi) / 2 * math.erf(math.sqrt(v)) - math.sqrt(v) * math.exp(-v) for v in x]
    assert lowergamma(1.5, x) == pytest.approx(expected, rel=1e-13)
    assert lowergamma(1.0, x) == pytest.approx(1 - np.exp(-x), rel=1e-13)
    assert math.isfinite(float(lowergamma(200.5, 10.0)))
    assert np.isnan(lowergamma(np.array([-1.0, 1.0]), np.array([1.0, -1.0]))).all()
