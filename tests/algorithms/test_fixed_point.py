"""Fixed points x = F(x) over arrays (qmodel.algorithms.fixed_point): coupled elements settle together."""

import numpy as np

from qmodel.algorithms.fixed_point import iterate


def slow_pair(values: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
    """x → 0.99 x + 0.1 (fixed point 10, approached slowly); y → 1 + x / 1000 (fixed point 1.01).
    From (0, 1) y's first step is 0: it looks settled while x has barely moved."""
    x = values[0]
    return np.array([0.99 * x + 0.1, 1 + x / 1000])


def test_an_element_whose_step_is_small_keeps_moving_with_the_elements_it_depends_on() -> None:
    result = iterate(
        lambda v: slow_pair(v), np.array([0.0, 1.0]), ceiling=1e6, tolerance=1e-12, max_iterations=10_000
    )
    assert result.converged.all()
    assert np.allclose(result.value, [10.0, 1.01], rtol=1e-9)


def test_each_column_is_one_problem_settling_as_a_whole() -> None:
    start = np.array([[0.0, 10.0], [1.0, 1.01]])  # column 0 far from its fixed point, column 1 at it
    result = iterate(
        slow_pair, start, ceiling=1e6, tolerance=1e-12, max_iterations=10_000, independent_columns=True
    )
    assert result.converged.all()
    assert np.allclose(result.value, [[10.0, 10.0], [1.01, 1.01]], rtol=1e-9)


def test_a_problem_with_one_element_past_the_ceiling_has_no_fixed_point_in_any_element() -> None:
    def runaway(values: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        x = values[0]
        return np.array([2 * x + 1, np.ones_like(x)])  # x has no fixed point above 0; y's is 1

    result = iterate(runaway, np.array([[0.0], [1.0]]), ceiling=1e3, independent_columns=True)
    assert result.diverged.all() and not result.converged.any()
