"""volume_layout and duplex_layout: a sampled DS8000 layout and its prime/duplicate placement (z/TPF 2008)."""

import pytest

import qmodel.validation.quantities  # noqa: F401  (registers the study functions these tests call)
from qmodel.catalogue.registry import call
from qmodel.errors import InputError

# Two ranks of one LSS column each: a 3+3 rank of 48 volumes and a 4+4 rank of 64.
TWO_RANKS = dict(
    rank=[0, 1],
    lss=[0, 1],
    test=[16, 21],
    perf=[16, 22],
    perf_primes=[8, 11],
    fc_targets=[0, 0],
    pprc_secondaries=[16, 21],
    spares=[0, 0],
    column_total=[48, 64],
    rank_capacity=[48, 64],
    repeats=3,
)


def test_totals_are_the_sample_scaled_by_the_repeats() -> None:
    outputs = call("volume_layout", TWO_RANKS)
    assert outputs["volumes"] == 3 * (48 + 64)
    assert outputs["test_volumes"] == 3 * 37
    assert outputs["lss"] == 6


def test_a_full_layout_leaves_nothing_unallocated_and_matches_its_totals() -> None:
    outputs = call("volume_layout", TWO_RANKS)
    assert outputs["unallocated"] == 0
    assert outputs["total_mismatch"] == 0


def test_a_rank_holding_more_than_its_capacity_shows_a_negative_remainder() -> None:
    overfull = {**TWO_RANKS, "spares": [0, 2], "column_total": [48, 66]}
    outputs = call("volume_layout", overfull)
    assert outputs["unallocated"] == -2
    assert outputs["total_mismatch"] == 0


def test_a_column_that_does_not_add_up_to_its_printed_total_is_reported() -> None:
    outputs = call("volume_layout", {**TWO_RANKS, "column_total": [47, 64]})
    assert outputs["total_mismatch"] == 1


def test_perf_and_primes_are_counted_per_lss() -> None:
    outputs = call("volume_layout", {**TWO_RANKS, "lss": [0, 0]})
    assert outputs["perf_per_lss_min"] == outputs["perf_per_lss_max"] == 38
    assert outputs["primes_per_lss_min"] == 19


def test_lists_of_different_lengths_are_refused_by_name() -> None:
    with pytest.raises(InputError, match="spares"):
        call("volume_layout", {**TWO_RANKS, "spares": [0]})


def test_more_primes_than_perf_volumes_is_refused() -> None:
    with pytest.raises(InputError, match="perf_primes"):
        call("volume_layout", {**TWO_RANKS, "perf_primes": [17, 11]})


# Four clusters (SFI × 2 + server); modules 1 and 2 placed by the z/TPF rule: duplicate on the opposite
# server of the other SFI (cluster 3 − c).
RULE = dict(cluster=[0, 3, 1, 2], prime=[1, 0, 1, 0], module=[1, 1, 2, 2])


def test_duplex_by_the_rule_survives_the_loss_of_one_sfi() -> None:
    outputs = call("duplex_layout", RULE)
    assert outputs["lost_same_sfi"] == 0
    assert outputs["sfi0_share"] == 0.5


def test_duplex_by_the_rule_loses_a_module_when_its_diagonal_pair_fails() -> None:
    assert call("duplex_layout", RULE)["lost_any_pair"] == 1


def test_prime_and_duplicate_on_one_cluster_are_counted() -> None:
    outputs = call("duplex_layout", {**RULE, "cluster": [0, 0, 1, 2]})
    assert outputs["both_copies_one_cluster"] == 1
    assert outputs["lost_any_pair"] == 1


def test_a_cluster_outside_the_four_is_refused() -> None:
    with pytest.raises(InputError, match="cluster"):
        call("duplex_layout", {**RULE, "cluster": [0, 3, 1, 4]})
