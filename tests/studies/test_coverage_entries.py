"""Catalogue entries added to cover the studies' statements: FlashCopy response (z/TPF 2008)."""

import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError

FLASHCOPY = dict(base_response=2.0, read_miss_fraction=0.026525, ops_per_drive=102.57, drives_per_rank=8,
                 drive_service=4.1667)


def test_flashcopy_with_no_added_load_leaves_the_response_as_it_was() -> None:
    result = calc("flashcopy_response", **FLASHCOPY, added_ops_per_drive=0)
    assert float(result.response_during) == pytest.approx(2.0)
    assert float(result.response_ratio) == pytest.approx(1.0)


def test_flashcopy_response_adds_the_read_misses_extra_wait_at_the_rank() -> None:
    # z/TPF 2008, Performance with FlashCopy: every destage a CST adds 16,300 × 3 / 360 = 135.83 ops/s
    # per drive; the rank of 8 drives goes to 99.3% busy and a read miss to about 80.7 ms
    # (Erlang C over 8 servers).
    result = calc("flashcopy_response", **FLASHCOPY, added_ops_per_drive=135.83)
    assert float(result.utilization_during) == pytest.approx(0.99334, abs=1e-4)
    assert float(result.read_miss_time_during) == pytest.approx(80.70, abs=0.05)
    assert float(result.response_during) == pytest.approx(2 + 0.026525 * (80.70 - 4.1907), abs=0.01)


def test_flashcopy_that_saturates_the_drives_is_refused() -> None:
    with pytest.raises(InputError, match="utilization"):
        calc("flashcopy_response", **FLASHCOPY, added_ops_per_drive=140)
