"""Volume layout of a DS8000 as a study prints it: a sample of ranks, repeated over the whole box.

ztpf-io-performance-2008.txt, Configuration (Volume Layout, Figure 1) prints the
volumes of 8 of the 48 RAID-10 ranks, cell by cell: for each rank and each LSS
column, the volumes of each set (TEST, PERF, FlashCopy targets, PPRC
secondaries, spares), the column's TOTAL and the rank's capacity in 3390-9
volumes; the text says the sample "was repeated for the 40 other arrays and 30
other LSS". :func:`volume_layout` adds the cells up and scales them by the
repeat factor, so the figure can be checked against the totals the text states
(2880 volumes, 720 TEST, 720 PERF, 36 LSS of 20 volumes with 10 primes) and
against its own TOTAL row and rank capacities.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qmodel.errors import InputError

# input (a set of the figure) → output prefix
_SETS = {
    "test": "test",
    "perf": "perf",
    "fc_targets": "fc_target",
    "pprc_secondaries": "pprc_secondary",
    "spares": "spare",
}


def _cells(name: str, values: ArrayLike, count: int) -> np.ndarray:
    """One figure column as an array of ``count`` non-negative cells; InputError otherwise."""
    cells = np.atleast_1d(np.asarray(values, dtype=float))
    if cells.size != count:
        raise InputError(
            name,
            f"{cells.size} cells",
            f"one cell per rank and LSS column ({count})",
            reason="every list of the figure must have the same length",
        )
    if np.any(cells < 0):
        raise InputError(name, float(cells.min()), "counts of volumes >= 0")
    return cells


def volume_layout(
    rank: ArrayLike,
    lss: ArrayLike,
    test: ArrayLike,
    perf: ArrayLike,
    perf_primes: ArrayLike,
    fc_targets: ArrayLike,
    pprc_secondaries: ArrayLike,
    spares: ArrayLike,
    column_total: ArrayLike,
    rank_capacity: ArrayLike,
    repeats: float,
) -> dict[str, float]:
    """Totals of a sampled volume layout (Figure 1 cells, one per rank and LSS column), counts of volumes.

    Each list holds one value per cell, in the figure's order; ``rank_capacity``
    is the capacity of the cell's rank (repeated over its columns). Outputs:
    the configured totals, repeats × Σ cells, per set and in all; the LSS, repeats
    × distinct LSS; PERF volumes and PERF primes per LSS (smallest and largest);
    the largest difference between a column's cells and its printed TOTAL; the
    rank capacity left unallocated farthest from zero (negative: a rank holds
    more volumes than its capacity). Source: ztpf-io-performance-2008.txt, Volume Layout and Figure 1.
    """
    ranks = np.atleast_1d(np.asarray(rank, dtype=float))
    count = ranks.size
    columns = {
        name: _cells(name, values, count)
        for name, values in zip(_SETS, (test, perf, fc_targets, pprc_secondaries, spares), strict=True)
    }
    lss_ids = _cells("lss", lss, count)
    primes = _cells("perf_primes", perf_primes, count)
    totals = _cells("column_total", column_total, count)
    capacity = _cells("rank_capacity", rank_capacity, count)
    if np.any(primes > columns["perf"]):
        raise InputError(
            "perf_primes",
            float(np.max(primes - columns["perf"])),
            "at most the cell's PERF volumes",
            reason="a cell cannot hold more primes than PERF volumes",
        )
    if not repeats >= 1:
        raise InputError("repeats", repeats, ">= 1", reason="the sample is repeated over the whole box")
    allocated = np.sum(list(columns.values()), axis=0)
    left = [capacity[ranks == r].max() - allocated[ranks == r].sum() for r in np.unique(ranks)]
    perf_per_lss = [columns["perf"][lss_ids == s].sum() for s in np.unique(lss_ids)]
    primes_per_lss = [primes[lss_ids == s].sum() for s in np.unique(lss_ids)]
    return {
        **{f"{_SETS[name]}_volumes": float(repeats * cells.sum()) for name, cells in columns.items()},
        "volumes": float(repeats * allocated.sum()),
        "lss": float(repeats * np.unique(lss_ids).size),
        "perf_per_lss_min": float(min(perf_per_lss)),
        "perf_per_lss_max": float(max(perf_per_lss)),
        "primes_per_lss_min": float(min(primes_per_lss)),
        "primes_per_lss_max": float(max(primes_per_lss)),
        "total_mismatch": float(np.max(np.abs(allocated - totals))),
        "unallocated": float(max(left, key=abs)),
    }


def duplex_layout(cluster: ArrayLike, prime: ArrayLike, module: ArrayLike) -> dict[str, float]:
    """Where the two copies of software-duplexed modules sit: what a loss of server clusters takes with it.

    One entry per volume printed: its ``cluster`` (SFI × 2 + server: 0 to 3),
    whether it is the module's ``prime`` (1) or duplicate (0), and the
    ``module`` number. A module is lost when every printed copy of it sits on
    failed clusters. Outputs: SFI 0's share of the volumes; modules whose prime
    and duplicate share a cluster; the most modules lost when both clusters of
    one SFI fail, and when any two clusters fail. Source:
    ztpf-io-performance-2008.txt, Figure 2 and the paragraph before it.
    """
    clusters = np.atleast_1d(np.asarray(cluster, dtype=float))
    count = clusters.size
    primes = _cells("prime", prime, count)
    modules = _cells("module", module, count)
    for name, values, allowed, meaning in (
        ("cluster", clusters, (0, 1, 2, 3), "0 to 3 (SFI × 2 + server)"),
        ("prime", primes, (0, 1), "1 (prime) or 0 (duplicate)"),
    ):
        wrong = values[~np.isin(values, allowed)]
        if wrong.size:
            raise InputError(name, float(wrong[0]), meaning)
    homes = {m: set(clusters[modules == m].astype(int)) for m in np.unique(modules)}
    shared = sum(
        1
        for m in homes
        if set(clusters[(modules == m) & (primes == 1)].astype(int))
        & set(clusters[(modules == m) & (primes == 0)].astype(int))
    )

    def lost(failed: set[int]) -> int:
        return sum(1 for where in homes.values() if where <= failed)

    pairs = [{a, b} for a in range(4) for b in range(a + 1, 4)]
    return {
        "sfi0_share": float(np.mean(clusters < 2)),
        "both_copies_one_cluster": float(shared),
        "lost_same_sfi": float(max(lost({0, 1}), lost({2, 3}))),
        "lost_any_pair": float(max(lost(pair) for pair in pairs)),
    }
