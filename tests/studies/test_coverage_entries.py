"""Catalogue entries added to cover the studies' statements.

FlashCopy response and space, DB2 accounting, elapsed scaling, striped sequential rate, CGFT bandwidth,
IP links.
"""

import math

import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError

FLASHCOPY = dict(
    base_response=2.0,
    read_miss_fraction=0.026525,
    ops_per_drive=102.57,
    drives_per_rank=8,
    drive_service=4.1667,
)


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


SCREEN = dict(
    elapsed=399.0,
    class2_cpu_time=36.7,
    io_wait=359.3,
    other_waits=0.2,
    getpages=1_702_970,
    read_ios=169_896,
    prefetch_requests=51_552,
)


def test_db2_accounting_leaves_what_cpu_and_waits_do_not_cover_unaccounted() -> None:
    # ssd-rmf-tools-2012, CA-Insight screen: 399.0 s in DB2, 36.7 s CPU, 359.3 s I/O wait, 0.2 s services.
    result = calc("db2_thread_accounting", **SCREEN)
    assert float(result.accounted_time) == pytest.approx(396.2)
    assert float(result.not_accounted) == pytest.approx(2.8)


def test_db2_average_io_wait_counts_prefetch_requests_with_synchronous_reads() -> None:
    result = calc("db2_thread_accounting", **SCREEN)
    assert float(result.average_io_wait) == pytest.approx(359.3 / (169_896 + 51_552))
    without_prefetch = calc("db2_thread_accounting", **{**SCREEN, "prefetch_requests": 0})
    assert float(without_prefetch.average_io_wait) > float(result.average_io_wait)


def test_elapsed_scaling_with_the_same_response_changes_nothing() -> None:
    result = calc("elapsed_scaling", elapsed=900, io_wait=800, response_before=6, response_after=6)
    assert float(result.elapsed_after) == pytest.approx(900)


def test_elapsed_scaling_keeps_the_time_that_is_not_io() -> None:
    # Amdahl: 100 s of CPU stay, 800 s of I/O wait shrink by 6 ms -> 2 ms to 266.7 s.
    result = calc("elapsed_scaling", elapsed=900, io_wait=800, response_before=6, response_after=2)
    assert float(result.elapsed_after) == pytest.approx(100 + 800 / 3)
    assert float(result.speedup) < 3


def test_elapsed_scaling_refuses_an_io_wait_longer_than_the_elapsed_time() -> None:
    with pytest.raises(InputError, match="io_wait"):
        calc("elapsed_scaling", elapsed=100, io_wait=120, response_before=6, response_after=2)


def test_striped_drives_match_a_faster_device_at_the_ratio_of_their_rates() -> None:
    # ssd-rmf-tools-2012: 100 MB/s spinning disks against a 250 MB/s SSD.
    result = calc("striped_sequential_rate", drives=3, drive_rate=100, device_rate=250)
    assert float(result.break_even_drives) == pytest.approx(2.5)
    assert float(result.advantage) == pytest.approx(1.2)


def test_two_gigabit_lines_carry_237_mb_s_of_tcp_payload() -> None:
    # 2 × 125 MB/s on the wire × 1,460 / 1,538 bytes of payload per frame.
    result = calc("ip_link", lines=2, line_rate=125, write_rate=250)
    assert float(result.bandwidth) == pytest.approx(250 * 1460 / 1538, rel=1e-3)
    assert float(result.required_compression) == pytest.approx(float(result.utilization))


def test_compression_lowers_the_utilization_of_the_lines() -> None:
    plain = calc("ip_link", lines=2, line_rate=125, write_rate=250)
    compressed = calc("ip_link", lines=2, line_rate=125, write_rate=250, compression=2)
    assert float(compressed.utilization) == pytest.approx(float(plain.utilization) / 2)


def test_space_efficient_copy_of_a_file_copy_is_the_tracks_written() -> None:
    # esg-ds8000-validation-2008, FlashCopy SE lab test: a 132 MB file copied to a 10 GB volume.
    result = calc("flashcopy_space", volume_size=10, data_written=0.132, write_size=256)
    assert float(result.units_written) == 2015  # ceiling(132e6 / 65,536)
    assert float(result.se_space) == pytest.approx(2015 * 65536 / 1e9)


def test_small_scattered_writes_cost_a_track_each_up_to_the_volume() -> None:
    scattered = calc("flashcopy_space", volume_size=200, data_written=1, write_size=4)
    assert float(scattered.se_space) == pytest.approx(math.ceil(1e9 / 4096) * 65536 / 1e9)  # 16 GB for 1 GB
    whole = calc("flashcopy_space", volume_size=200, data_written=20, write_size=4)
    assert float(whole.se_space) == 200
    assert float(whole.space_saving) == 0
