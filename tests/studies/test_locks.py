"""Lock contention (qmodel.studies.locks): Tay's mean-value model with locks held through the commit,
taken over the last share (the lock span) of the execution."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from qmodel.studies.locks import lock_wait

NO_DISTANCE = np.zeros((2, 2, 1))


def wait(response: float, commit: float, lockable: float = 1000.0, span: float = 1.0) -> np.ndarray:
    return lock_wait(
        np.array([50.0, 50.0]),
        np.array([[10.0], [10.0]]),
        np.full((2, 1), response),
        np.full((2, 1), commit),
        lockable,
        2,
        NO_DISTANCE,
        span,
    )


def test_without_a_commit_phase_it_is_tays_model() -> None:
    # Tay, Goodman and Suri 1985: k · Σ_j (X_j k R / 2) / L · R / 3 for locks taken uniformly over R
    response = 0.040
    expected = 50 * 2 * (10 * 50 * response / 2) / 1000 * response / 3
    assert np.allclose(wait(response, 0.0), expected)


def test_a_transaction_that_is_all_commit_holds_every_lock_for_its_whole_response() -> None:
    # all k locks held for R: X k R held, residual R / 2 of a fixed holding time
    response = 0.040
    expected = 50 * 2 * (10 * 50 * response) / 1000 * response / 2
    assert np.allclose(wait(response, response), expected)


@given(st.floats(0.005, 0.5), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_longer_commit_at_the_same_response_time_means_longer_waits(response, share, more) -> None:
    # the study, Environment 2: "the longer the update takes, the longer the locks will be kept"
    shorter, longer = sorted((share, min(1.0, share + more)))
    assert (wait(response, longer * response) >= wait(response, shorter * response) * (1 - 1e-12)).all()


def test_no_lockable_limit_means_no_contention() -> None:
    assert (wait(0.040, 0.010, np.inf) == 0).all()


def test_locks_taken_over_the_last_share_of_the_execution_are_held_for_that_share_and_the_commit() -> None:
    # h uniform on [C, C + sE]: X k (C + sE/2) held, residual (C² + C·sE + (sE)²/3) / (2 (C + sE/2))
    response, commit, span = 0.040, 0.010, 0.25
    held = commit + span * (response - commit)
    mean = (commit + held) / 2
    second = commit**2 + commit * (held - commit) + (held - commit) ** 2 / 3
    expected = 50 * 2 * (10 * 50 * mean) / 1000 * second / (2 * mean)
    assert np.allclose(wait(response, commit, span=span), expected)


def test_a_span_of_nothing_holds_locks_through_the_commit_alone() -> None:
    response, commit = 0.040, 0.010
    assert np.allclose(wait(response, commit, span=0.0), wait(commit, commit))


@given(st.floats(0.005, 0.5), st.floats(0.0, 0.9), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_longer_lock_span_means_longer_waits(response, commit_share, span, more) -> None:
    shorter, longer = sorted((span, min(1.0, span + more)))
    commit = commit_share * response
    assert (wait(response, commit, span=longer) >= wait(response, commit, span=shorter) * (1 - 1e-12)).all()


@given(st.floats(0.005, 2.0), st.floats(0.0, 0.5), st.floats(0.0, 0.9), st.floats(0.0, 1.0))
def test_no_lock_is_held_over_the_time_queued_for_a_subchannel(response, commit_share, queue_share, span):
    # E = R − C − Q: a response lengthened by a subchannel queue holds its locks as the one without it
    # (the queue at most 90% of R − C: at all of it, R − Q rounds below C and the reference clips C)
    commit = commit_share * response
    queued = queue_share * (response - commit)
    with_queue = lock_wait(
        np.array([50.0, 50.0]),
        np.array([[10.0], [10.0]]),
        np.full((2, 1), response),
        np.full((2, 1), commit),
        1000.0,
        2,
        NO_DISTANCE,
        span,
        queued=np.full((2, 1), queued),
    )
    assert np.allclose(with_queue, wait(response - queued, commit, span=span), rtol=1e-12, atol=0)
