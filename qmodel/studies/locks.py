"""Lock contention across the members of a data-sharing group (Tay's mean-value model, extended).

A transaction of member m requests k_m locks during its life and holds each
until commit. By Little's law the locks held by member j's transactions are
X_j · k_j · R_j / 2 on average (locks taken uniformly through a response time
R_j, all released at its end). Out of L lockable items (the effective hot
set), a request conflicts with probability (locks held) / L; the requester then
waits for the holder's remaining time, R_j / 3 on average for uniform
acquisition, plus the messages that resolve a global contention between the
two members' lock managers, a round trips × the round-trip time between their
sites:

    W_m = k_m · Σ_j (X_j k_j R_j / 2) / L · (R_j / 3 + a · rtt_jm)        (s per transaction)

(Tay, Goodman and Suri, "Locking performance in centralized databases", ACM
TODS 10(4), 1985: conflict probability and the R/3 residual; thrashing where
k² N / L passes a constant.) W depends on R, which contains W: the scenario
solver solves the fixed point (qmodel.algorithms.fixed_point). The remote
member's longer holding time delays the local member: the study's explanation
of Environment 3 (gdps-pprc-100km-2006.txt, 'Adjusted Response times for
TPNO', Lock/Latch and global contention).
"""

from __future__ import annotations

import numpy as np


def lock_wait(
    lock_requests: np.ndarray,
    throughput: np.ndarray,
    response_time: np.ndarray,
    lockable_items: float,
    resolution_round_trips: float,
    round_trip: np.ndarray,
) -> np.ndarray:
    """Mean lock wait per transaction W_m (s), members × distances (formula in the module docstring).

    ``lock_requests`` (M,) per transaction; ``throughput`` (M, D) 1/s;
    ``response_time`` (M, D) s; ``round_trip`` (M, M, D) s between members' sites.
    An infinite ``lockable_items`` means no contention.
    """
    if not np.isfinite(lockable_items):
        return np.zeros_like(response_time)
    held = throughput * lock_requests[:, None] * response_time / 2  # (M, D) locks held
    residual = (
        response_time[:, None, :] / 3 + resolution_round_trips * round_trip
    )  # (holder j, requester m, D)
    per_request = np.einsum("jd,jmd->md", held, residual) / lockable_items
    return lock_requests[:, None] * per_request
