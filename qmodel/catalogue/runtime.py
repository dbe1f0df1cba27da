"""The helpers the generated catalogue modules call where numpy has no element-wise counterpart.

The code generator (:mod:`qmodel.catalogue.codegen`) prints ``Sum(...)``,
``factorial(...)`` and ``lowergamma(...)`` of a catalogue expression as calls to these functions, under
the generated module's ``_qm_runtime`` alias (a name no catalogue entry can
take). Both work element-wise on numpy arrays (a scalar is a 0-d array), as
every generated function must, and import neither sympy nor scipy.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from qmodel import limits
from qmodel.algorithms.queueing import gamma_cdf
from qmodel.errors import InputError

# n! for n = 0..170 (171! is past the largest double)
_FACTORIALS = np.array([float(math.factorial(n)) for n in range(171)])


def factorial(n: ArrayLike) -> np.ndarray:
    """n! element-wise: exact (as a double) for whole n from 0 to 170, Γ(n + 1) for other n ≥ 0,
    inf past 170, nan for negative n (where sympy's factorial has no finite value)."""
    n = np.asarray(n, dtype=float)
    result = np.full(n.shape, np.nan)
    whole = (n >= 0) & (n <= 170) & (n == np.floor(n))
    result[whole] = _FACTORIALS[n[whole].astype(int)]
    fractional = (n >= 0) & (n < 170) & ~whole
    result[fractional] = [math.gamma(value + 1) for value in n[fractional]]
    result[n > 170] = np.inf
    return result


def lowergamma(shape: ArrayLike, x: ArrayLike) -> np.ndarray:
    """The lower incomplete gamma γ(a, x) = ∫₀ˣ tᵃ⁻¹ e⁻ᵗ dt element-wise, as P(a, x) · Γ(a) taken in logs
    (:func:`qmodel.algorithms.queueing.gamma_cdf`, math.lgamma): inf only where γ itself is past the
    largest double; nan where a ≤ 0 or x < 0 (where sympy's lowergamma has no finite value here)."""
    shape, x = np.broadcast_arrays(np.asarray(shape, dtype=float), np.asarray(x, dtype=float))
    valid = (shape > 0) & (x >= 0) & np.isfinite(shape)
    result = np.full(shape.shape, np.nan)
    log_gamma = np.array([math.lgamma(a) for a in shape[valid]])
    with np.errstate(divide="ignore", over="ignore"):
        result[valid] = np.exp(np.log(gamma_cdf(shape[valid], x[valid])) + log_gamma)
    return result


class SumTooLongError(InputError):
    """Elements of a Sum each too long to sum alone (their own terms pass the time limit), raised
    before any term is summed: ``refused`` marks them and ``terms`` counts each one's terms (both in
    the shape of the Sum's limits); ``inputs`` names the inputs its limits depend on. A caller with
    rows (:func:`qmodel.catalogue.evaluate.evaluate`) refuses those rows and computes the others."""

    def __init__(self, index: str, refused: np.ndarray, terms: np.ndarray, inputs: tuple[str, ...]) -> None:
        self.index, self.refused, self.terms, self.inputs = index, refused, terms, inputs
        most = float(terms.max(initial=0))
        seconds = limits.loop_seconds(most, 1)
        super().__init__(
            f"Sum over {index}",
            f"{most:.3g} terms",
            f"{self.allowed_terms()}: smaller limits",
            reason=f"about {limits.duration(seconds)}: too large to compute",
        )

    @staticmethod
    def allowed_terms() -> str:
        """What a Sum may have: the terms one element sums within the time limit."""
        most = int(limits.TIME_LIMIT / limits.loop_seconds(1, 1))
        return f"at most {most:,} terms (about {limits.duration(limits.TIME_LIMIT)})"


# the terms of the Sums being summed around the one now called (1 outside any): a Sum in a Sum's term runs
# once for each of them, so its time is estimated as that many times its own
_ENCLOSING: contextvars.ContextVar[float] = contextvars.ContextVar("enclosing_terms", default=1.0)


def sum_terms(
    term: Callable[[np.ndarray], ArrayLike],
    first: ArrayLike,
    last: ArrayLike,
    index: str,
    inputs: tuple[str, ...] = (),
) -> np.ndarray:
    """Σ term(k) for k = first, first + 1, ... up to last, element-wise (0 where last < first).

    The number of terms is that of the element with the most; its estimated time and memory are
    checked first, so a limit of 1e9 is refused, not looped over: the elements too long alone as
    :class:`SumTooLongError` (naming ``inputs``, the inputs the limits depend on), all of them together
    (a batch too large as a whole) by :func:`qmodel.limits.refuse_long_loop`.
    """
    first, last = np.broadcast_arrays(np.asarray(first, dtype=float), np.asarray(last, dtype=float))
    if first.size == 0:
        return np.zeros(first.shape)
    spans = last - first
    if not np.isfinite(spans).all():
        raise InputError(f"Sum over {index}", "a limit that is not finite", "finite limits")
    each = np.maximum(np.floor(spans) + 1, 0.0)
    alone = limits.loop_seconds(each, 1) > limits.TIME_LIMIT
    if alone.any():
        raise SumTooLongError(index, alone, each, inputs)
    terms, outer = float(each.max()), _ENCLOSING.get()
    limits.refuse_long_loop(
        terms,
        first.size,
        f"Sum over {index}",
        f"{terms:.3g} terms at each of {first.size:,} elements: fewer rows at once",
    )
    if outer > 1:
        limits.refuse_long_loop(
            outer * terms,
            first.size,
            f"Sum over {index} inside Sums of {outer:.3g} terms",
            f"{outer * terms:.3g} terms together: smaller limits",
        )
    total = np.zeros(first.shape)
    inside = _ENCLOSING.set(outer * terms)  # a Sum in a term is summed once for each of these terms
    try:
        for offset in range(int(terms)):
            active = offset <= spans
            total = total + np.where(active, term(first + offset), 0.0)
    finally:
        _ENCLOSING.reset(inside)
    return total
