"""The GTH elimination: the stationary distribution of a DTMC or CTMC, against 50-digit arithmetic."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.algorithms.stationary import stationary
from qmodel.errors import InputError


def _fifty_digits(matrix: np.ndarray) -> np.ndarray:
    """π Q = 0, Σ π = 1 with Q = A − diag(A 1) (A's diagonal ignored), solved with 50 significant digits."""
    mpmath.mp.dps = 50
    size = matrix.shape[0]
    rates = mpmath.matrix(
        [[mpmath.mpf(float(matrix[i, j])) if i != j else 0 for j in range(size)] for i in range(size)]
    )
    system = mpmath.matrix(size, size)
    for i in range(size):
        out = mpmath.fsum(rates[i, j] for j in range(size))
        for j in range(size):
            system[j, i] = rates[i, j] - (out if i == j else 0)  # transpose of Q
    for j in range(size):
        system[size - 1, j] = 1  # Σ π = 1 replaces one equation
    right = mpmath.matrix([0] * (size - 1) + [1])
    return np.array([float(x) for x in mpmath.lu_solve(system, right)])


@st.composite
def chains(draw):
    """Irreducible chains of 2–8 states: a cycle through every state plus random transitions, rates
    spanning eight decades."""
    size = draw(st.integers(2, 8))
    rates = st.floats(1e-4, 1e4)
    matrix = np.zeros((size, size))
    for i in range(size):
        matrix[i, (i + 1) % size] = draw(rates)
        for j in draw(st.lists(st.integers(0, size - 1), max_size=size)):
            matrix[i, j] += draw(rates)
    return matrix


@given(chains())
@settings(max_examples=60, deadline=None)
def test_stationary_distribution_to_fifty_digit_arithmetic(matrix) -> None:
    assert stationary(matrix) == pytest.approx(_fifty_digits(matrix), rel=1e-12, abs=1e-300)


def test_a_two_state_chain() -> None:
    # rates 0 → 1 at a, 1 → 0 at b: π = (b, a) / (a + b)
    assert stationary(np.array([[0.0, 3.0], [1.0, 0.0]])) == pytest.approx([0.25, 0.75], rel=1e-15)


def test_a_nearly_decomposable_chain_keeps_its_small_probabilities() -> None:
    # two pairs joined by transitions of 1e-12: Gaussian elimination on I − P loses them, GTH does not
    eps = 1e-12
    matrix = np.array([[0, 1, eps, 0], [1, 0, 0, 0], [0, 0, 0, 1], [eps, 0, 1, 0]], dtype=float)
    assert stationary(matrix) == pytest.approx(_fifty_digits(matrix), rel=1e-12)


def test_a_chain_too_large_is_refused_with_its_estimate() -> None:
    with pytest.raises(InputError, match="too large to compute"):
        stationary(np.broadcast_to(0.0, (40_000, 40_000)))
