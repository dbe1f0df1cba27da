"""Storage back-end entries: RAID write penalty, staging size and FlashCopy load."""

import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError

BASELINE = dict(io_rate=163_000, read_fraction=0.565, read_hit_ratio=0.95, destage_rate=0.10, drives=360)


@pytest.mark.parametrize(("raid_level", "penalty"), [(10, 2), (5, 4), (6, 6)])
def test_write_penalty_by_raid_level(raid_level: int, penalty: int) -> None:
    assert float(calc("raid_write_penalty", raid_level=raid_level).write_penalty) == penalty


def test_backend_load_uses_the_raid_write_penalty() -> None:
    result = calc("backend_load", **BASELINE, raid_level=5)
    assert float(result.destage_ops) == pytest.approx(16_300 * 4)


def test_unknown_raid_level_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="raid_level"):
        calc("raid_write_penalty", raid_level=4)


def test_staging_the_same_size_changes_nothing() -> None:
    result = calc(
        "staging_size",
        read_misses=12.79,
        other_ops=90.56,
        staged_before=21,
        staged_after=21,
        positioning_time=4.1667,
        media_rate=100,
    )
    assert float(result.response_reduction) == 0.0


def test_staging_read_response_is_pollaczek_khinchine_over_two_exponential_op_types() -> None:
    # 10 reads/s of 5 ms and 100 other ops/s of 4 ms: rho = 0.45,
    # W = (10 × 0.005² + 100 × 0.004²) / 0.55 s = 3.3636 ms, R = 8.3636 ms
    result = calc(
        "staging_size",
        read_misses=10,
        other_ops=100,
        staged_before=100,
        staged_after=0,
        positioning_time=4.0,
        media_rate=100,
    )
    assert float(result.utilization_before) == pytest.approx(0.45)
    assert float(result.read_response_before) == pytest.approx(5.0 + 1.85 / 0.55)


def test_staging_refuses_a_saturated_drive() -> None:
    with pytest.raises(InputError, match="saturated"):
        calc(
            "staging_size",
            read_misses=100,
            other_ops=200,
            staged_before=57,
            staged_after=21,
            positioning_time=4.1667,
            media_rate=100,
        )


def test_flashcopy_worst_case_cst_load_at_the_baseline() -> None:
    # every destage copies its track first: 1 read + 2 RAID-10 writes per destage
    result = calc(
        "flashcopy_load",
        volumes=720,
        host_copies=2,
        volume_capacity=8.514,
        copy_rate=100,
        destages=16_300,
        cst_fraction=1.0,
        drives=360,
        ops_per_drive=103.35,
    )
    assert float(result.cst_ops) == pytest.approx(48_900)
    assert float(result.drive_utilization) == pytest.approx((103.35 + 48_900 / 360) / 240)


def test_flashcopy_copy_time_is_data_over_rate() -> None:
    # 360 volumes × 8.514 GB at 100 MB/s = 30,650 s = 510.8 min
    result = calc(
        "flashcopy_load",
        volumes=720,
        host_copies=2,
        volume_capacity=8.514,
        copy_rate=100,
        destages=0,
        cst_fraction=0,
        drives=360,
        ops_per_drive=0,
    )
    assert float(result.copy_time) == pytest.approx(360 * 8.514e9 / 100e6 / 60)
