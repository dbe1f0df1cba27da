"""Stationary distribution of an irreducible Markov chain by the GTH algorithm (no subtraction).

Grassmann, Taksar & Heyman, "Regenerative analysis and steady state distributions for Markov
chains", Operations Research 33(5), 1985; Stewart, *Introduction to the Numerical Solution of Markov
Chains* (1994), §2.7. States are removed one at a time, last first (stochastic complement):

    s_k = Σ_{j<k} a_kj,     a_ij += a_ik a_kj / s_k       (i, j < k)

then π is built forward, π_0 = 1, π_k = Σ_{i<k} π_i a_ik / s_k, and normalised. Only sums of
positive terms and divisions: no cancellation, whatever the conditioning (a routing matrix with
probabilities near 0 or 1, a CTMC whose rates span many decades), which Gaussian elimination on
I − P cannot promise. The same code serves a DTMC (``a`` the transition probabilities) and a CTMC
(``a`` the rates; the diagonal is ignored). Cost (n³/3 multiply-adds, skipped where a_ik = 0, so a
sparse chain costs less), compiled, single-threaded.
"""

from __future__ import annotations

import numpy as np

from qmodel.kernels import Kernel
from qmodel.limits import refuse_too_large

GTH_RATE = 1e9  # multiply-adds per second of the compiled elimination (dense, this machine)


def estimate_stationary(states: int) -> tuple[float, float]:
    """(bytes, seconds) :func:`stationary` takes on a dense chain of this many states."""
    return 16.0 * states**2, states**3 / 3 / GTH_RATE


def stationary(transitions: np.ndarray, what: str = "a Markov chain") -> np.ndarray:
    """π with π = π P (DTMC) or π Q = 0 (CTMC): ``transitions`` (n, n) nonnegative, off-diagonal
    probabilities or rates of an irreducible chain; returns π (n,), Σ π = 1.

    Refused with its estimate past the limits (``what`` names the chain). A chain that is not
    irreducible gives zero divisors; its π is then not unique and the caller must check first.
    """
    size = transitions.shape[0]
    refuse_too_large(
        *estimate_stationary(size),
        f"{what} of {size:,} states",
        "a smaller model (fewer stations, classes, jobs or capacities)",
    )
    work = np.array(transitions, dtype=float, order="C")
    np.fill_diagonal(work, 0.0)
    out = np.empty(size)
    GTH_KERNEL(size**3 / 3, work, out)  # compiled past a size (qmodel.kernels)
    return out


def _gth(a, out):
    """The elimination and back substitution of the module docstring, in place on ``a``."""
    n = a.shape[0]
    exits = np.zeros(n)
    for k in range(n - 1, 0, -1):
        total = 0.0
        for j in range(k):
            total += a[k, j]
        exits[k] = total
        if total <= 0.0:
            continue
        for i in range(k):
            factor = a[i, k]
            if factor == 0.0:
                continue
            factor /= total
            for j in range(k):
                a[i, j] += factor * a[k, j]
    out[0] = 1.0
    for k in range(1, n):
        value = 0.0
        for i in range(k):
            value += out[i] * a[i, k]
        out[k] = value / exits[k] if exits[k] > 0.0 else 0.0
    total = 0.0
    for k in range(n):
        total += out[k]
    for k in range(n):
        out[k] /= total


GTH_KERNEL = Kernel(_gth)
