"""Fixed points x = F(x), element-wise over arrays, that know when there is none.

Used where a quantity appears on both sides of its own equation: lock
contention (a transaction's response time sets how long it holds its locks,
which sets how long others wait, which sets their response time).

Plain iteration from below, x_{t+1} = F(x_t), climbs monotonically to the least
fixed point when F is increasing and one exists; near the load at which the
fixed point disappears it slows down (F'(x*) → 1), so every third step tries
Aitken's Δ² extrapolation x − (F(x) − x)² / (F(F(x)) − 2F(x) + x) and keeps it
only if it stays above the plain step and below the ceiling (it can never jump
past a fixed point the plain iteration would reach). An element that passes the
ceiling, or is not finite, has no fixed point below it: it is reported, never
given a number.

The elements of one problem are coupled (each member's response time sets the
others' lock waits), so a problem settles only when every one of its elements
has: an element frozen while its partners still move would hold the partners
off their own fixed point by its last step. With ``independent_columns`` each
column is one problem; otherwise the whole array is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from qmodel.errors import ConvergenceError

# relative: converged where every element steps less than this share of its value (iterate's default)
TOLERANCE = 1e-9


class FixedPoint(NamedTuple):
    """The fixed point where it exists: ``converged`` marks where it was reached, ``diverged`` where
    there is none below the ceiling; elements in neither were still moving after the last iteration
    (only possible within a hair of the load at which the fixed point disappears)."""

    value: np.ndarray
    converged: np.ndarray
    diverged: np.ndarray
    iterations: int

    def settled(self) -> FixedPoint:
        """The same, raising ConvergenceError if any element is still moving."""
        moving = ~(self.converged | self.diverged)
        if moving.any():
            raise ConvergenceError(
                f"fixed point not reached in {self.iterations} iterations for "
                f"{int(moving.sum())} element(s), within a hair of the load at which it "
                "stops existing; try a slightly different load or distance"
            )
        return self


def iterate(
    update: Callable[..., np.ndarray],
    start: np.ndarray,
    *,
    ceiling: float | np.ndarray,
    tolerance: float = TOLERANCE,
    max_iterations: int = 2000,
    independent_columns: bool = False,
) -> FixedPoint:
    """Solve x = update(x) element-wise from ``start`` (below the fixed point), in ``update``'s units.

    Converged where every element of the problem steps less than ``tolerance`` relative to its value;
    diverged where one passes ``ceiling`` (a number, or one per column); a problem that does neither
    within ``max_iterations`` is in neither mask (see :meth:`FixedPoint.settled`). With
    ``independent_columns`` the problems along the last axis do not interact: ``update(values,
    columns)`` is called with only the columns still moving.
    """
    current = np.array(start, float)
    settled = np.zeros(current.shape, dtype=bool)
    diverged = np.zeros(current.shape, dtype=bool)

    def together(flags: np.ndarray, combine: Callable[..., np.ndarray]) -> np.ndarray:
        """``flags`` combined over each problem (a column, or the whole array), spread to its elements."""
        if not independent_columns:
            return np.full(flags.shape, bool(combine(flags)))
        columns = flags.reshape(-1, flags.shape[-1])
        return np.broadcast_to(combine(columns, axis=0), columns.shape).reshape(flags.shape)

    def advance(values: np.ndarray) -> np.ndarray:
        if not independent_columns:
            return update(values)
        moving = ~(settled | diverged).reshape(-1, values.shape[-1]).all(axis=0)
        result = values.copy()
        result[..., moving] = update(values[..., moving], np.flatnonzero(moving))
        return result

    for iteration in range(1, max_iterations + 1):
        stepped = advance(current)
        proposal = stepped
        if iteration % 3 == 0:
            twice = advance(stepped)
            with np.errstate(all="ignore"):
                curvature = twice - 2 * stepped + current
                extrapolated = current - (stepped - current) ** 2 / curvature
            useful = np.isfinite(extrapolated) & (extrapolated >= twice) & (extrapolated < ceiling)
            proposal = np.where(useful, extrapolated, twice)
        frozen = settled | diverged
        proposal = np.where(frozen, current, proposal)
        newly_diverged = ~frozen & together(~np.isfinite(proposal) | (proposal > ceiling), np.any)
        step = np.abs(proposal - current)
        small = step <= tolerance * np.maximum(np.abs(proposal), 1e-300)
        newly_settled = ~frozen & ~newly_diverged & together(small, np.all)
        diverged |= newly_diverged
        settled |= newly_settled
        current = np.where(newly_diverged, current, proposal)
        if (settled | diverged).all():
            break
    return FixedPoint(current, settled, diverged, iteration)
