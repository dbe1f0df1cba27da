"""Lock contention across the members of a data-sharing group (Tay's mean-value model, extended).

A transaction of member m requests k_m locks while it executes, at a uniform
point of the last share s of its execution time E (the lock span: s = 1, over
the whole execution, is Tay's assumption; s < 1, locks taken late, as updates
come after the reads that find their rows), and holds every one of them until
its commit has finished: the commit phase C (log writes, the duplexed
group-buffer-pool writes) is spent holding all k_m locks. The study says as
much of Environment 2: "the longer the update takes, the longer the locks will
be kept". With S = s·E, a lock is held h = (S − u) + C, h uniform on [C, C + S]:

    E[h] = C + S/2,    E[h²] = ((C + S)³ − C³) / (3S) = C² + C·S + S²/3

By Little's law member j's transactions hold X_j · k_j · E[h_j] locks. Out
of L lockable items (the effective hot set), a request conflicts with
probability (locks held) / L; the requester then waits for the holder's
remaining time, the residual of a length-biased holding time,
E[h²] / (2 E[h]), plus the messages that resolve a global contention between
the two members' lock managers, a round trips × the round-trip time between
their sites:

    W_m = k_m · Σ_j (X_j k_j E[h_j]) / L · (E[h_j²] / (2 E[h_j]) + a · rtt_jm)     (s per transaction)

The execution E the span is taken of is the response time less the commit phase and less the
time queued for a CF subchannel Q: E = R − C − Q. Environment 3's runs with 2 subchannels show
why: with no lock contention at all the solver's subchannel queue alone gives G1P2's transactions
within 1% of the printed counts (3373, 3351, 3274, 3077 against 3361, 3322, 3241, 3079 at 20 to
100 km, where G1P2's response reached about 950 ms), so the contention did not grow with the
subchannel queue; held through it, Tay's quadratic cascade has no fixed point from 70 km on
(docs/background/calibration.md).

With no commit phase (C = 0), no queue (Q = 0) and s = 1 this is Tay's model: R/2 held, R/3 residual
(Tay, Goodman and Suri, "Locking performance in centralized databases", ACM
TODS 10(4), 1985: conflict probability and the R/3 residual; thrashing where
k² N / L passes a constant). W depends on R, which contains W: the scenario
solver solves the fixed point (qmodel.algorithms.fixed_point). The remote
member's longer holding time delays the local member: the study's explanation
of Environment 3 (gdps-pprc-100km-2006.txt, 'Adjusted Response times for
TPNO', Lock/Latch and global contention).
"""

from __future__ import annotations

import numpy as np


def holding(
    response_time: np.ndarray,
    commit_time: np.ndarray,
    lock_span: float | np.ndarray = 1.0,
    queued: np.ndarray | float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """(E[h], E[h²] / (2 E[h])) per member and distance, s: a lock's mean holding time and the mean
    residual holding time a requester that finds it held waits for (module docstring), with
    h uniform on [C, C + S], S = s · max(R − C − Q, 0), C = min(commit_time, R)."""
    commit = np.minimum(commit_time, response_time)
    execution = lock_span * np.maximum(response_time - commit - queued, 0.0)  # S: the part held over
    mean_hold = commit + execution / 2
    second_moment = commit**2 + commit * execution + execution**2 / 3  # ((C + S)³ − C³) / 3S, expanded
    residual_hold = np.divide(second_moment, 2 * mean_hold, out=np.zeros_like(mean_hold), where=mean_hold > 0)
    return mean_hold, residual_hold


def lock_wait(
    lock_requests: np.ndarray,
    throughput: np.ndarray,
    response_time: np.ndarray,
    commit_time: np.ndarray,
    lockable_items: float | np.ndarray,
    resolution_round_trips: float | np.ndarray,
    round_trip: np.ndarray,
    lock_span: float | np.ndarray = 1.0,
    queued: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Mean lock wait per transaction W_m (s), members × distances (formula in the module docstring).

    ``lock_requests`` (M,) per transaction; ``throughput`` (M, D) 1/s;
    ``response_time`` R and ``commit_time`` C (M, D) s; ``round_trip`` (M, M, D) s between members'
    sites; ``lock_span`` s, the last share of the execution over which locks are taken (0 to 1; 1:
    Tay's uniform); ``queued`` Q (M, D) s, the part of R spent queueing for a CF subchannel, which
    no lock is counted as held over (the execution is E = R − C − Q: :func:`holding`).
    An infinite ``lockable_items`` means no contention. ``lockable_items``, ``resolution_round_trips``
    and ``lock_span`` are numbers, or one per distance (D,).
    """
    contended = np.isfinite(lockable_items)
    if not contended.any():
        return np.zeros_like(response_time)
    mean_hold, residual_hold = holding(response_time, commit_time, lock_span, queued)
    held = throughput * lock_requests[:, None] * mean_hold  # (M, D) locks held
    residual = residual_hold[:, None, :] + resolution_round_trips * round_trip  # (holder j, requester m, D)
    per_request = np.einsum("jd,jmd->md", held, residual) / lockable_items
    return np.where(contended, lock_requests[:, None] * per_request, 0.0)
