"""Open and mixed product-form networks with every station type (Jackson / BCMP, Poisson arrivals).

Open classes load station k with ρ_k = Σ_c λ_c D_ck (work per second, in
units of one job's service rate). With the rate table α(1..L), α(L) holding,
the station is stable while r_k = ρ_k / α_k(L) < 1, and the open jobs M at
it, given j closed jobs there, weigh (BCMP; Lazowska et al., QSP §7.4.3 for
the single-server case)

    t_j(m) = C(j + m, m) ρ^m / Π_{i ≤ j+m} α(i)

**Open networks.** Per class R_ck = D_ck · E[M | 0] / ρ_k. At a queue and a
multi-server station E[M | 0] / ρ = 1 + W/S with W the M/M/c wait of the
catalogue's MMCWait entry (one home: qmodel.catalogue); at an ld station the
sum above (its tail past L is a negative binomial series, summed in closed
form with the regularized incomplete beta function); R_ck = D_ck at a delay.

**Mixed networks.** The closed classes see station k as a load-dependent
station with factor F'(j) = Σ_m t_j(m), i.e. rates α'(j) = F'(j − 1) / F'(j):
α'(j) = α(L)(1 − r) for j > L, so α' is a rate table of L + 1 entries (for a
queue α' = 1 − ρ: the familiar D / (1 − U)). They are solved by the closed
solver asked for; the open classes then see the closed jobs through
E[M] = Σ_j p(j) E[M | j], and E[M | j] = (j + 1) r / (1 − r) for j ≥ L, so
p(0..L−1) and the mean closed queue Q suffice:

    E[M] = (Q + 1) r/(1 − r) + Σ_{j<L} p(j) (E[M | j] − (j + 1) r/(1 − r))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.catalogue.evaluate import compute_si
from qmodel.errors import InputError
from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network
from qmodel.networks.stations import Station


@dataclass(frozen=True)
class OpenStation:
    """One station under its open load: the closed classes' rate table, E[M | j] and P(M = 0 | j)."""

    rates: tuple[float, ...]  # α'(1..L+1): what the closed classes see
    open_jobs: np.ndarray  # (L + 1,) E[M | j] for j = 0..L
    no_open_job: float  # P(M = 0 | j = 0)
    ratio: float  # r = ρ / α(L)


CELL_BYTES = 45  # bytes per cell of the open-load arrays (39 measured at 6,000 servers: 1.56 GB)
CELL_RATE = 9e6  # cells per second (CPU: 8.8e6 to 9.5e6 measured, 3,000 to 8,000 servers)


def open_load(net: Network) -> np.ndarray:
    """ρ_k = Σ over open classes of λ_c D_ck, refusing any finite station the open classes saturate."""
    load = (net.arrival_rates[:, None] * net.demands)[net.open_classes].sum(axis=0)
    for k, station in enumerate(net.stations):
        if not station.infinite and load[k] >= station.last_rate:
            raise InputError(
                f"utilization of station {station.name!r}",
                f"{load[k] / station.last_rate:.4g}",
                "below 1",
                reason="the open classes alone saturate it: arrivals exceed what it serves",
            )
    return load


def open_stretch(station: Station, load: float) -> tuple[float, float]:
    """(E[M | 0] / ρ, P(station empty)) for a station alone under open load ρ > 0.

    Where the rate table is min(j, c) (a queue, c servers) the stretch is
    1 + W/S with W from the catalogue's MMCWait (and P(empty) is not needed:
    utilization is per server); any other table takes the general sum.
    """
    if station.infinite:
        return 1.0, float(np.exp(-load))
    _refuse_long_table(station, station.table_length)
    table = station.rate_table
    if table == tuple(float(j) for j in range(1, len(table) + 1)):
        servers = np.float64(len(table))
        waiting = compute_si(
            "mmc_waiting_time", servers=servers, offered_load=np.float64(load), service_time=np.float64(1.0)
        )["waiting_time"]
        return 1.0 + float(waiting), 0.0
    view = open_station(station, load)
    return float(view.open_jobs[0] / load), view.no_open_job


def _refuse_long_table(station: Station, cells: int) -> None:
    """Refuse, before building it, a rate table whose open-load arrays would take gigabytes or minutes."""
    refuse_too_large(
        CELL_BYTES * cells,
        cells / CELL_RATE,
        f"station {station.name!r} with a rate table of {station.table_length:,} under open load",
        "servers = delay (a station with more servers than jobs ever present is a delay), or fewer servers",
    )


def open_station(station: Station, load: float) -> OpenStation:
    """The closed classes' rate table α' and E[M | j] at a finite station under open load ρ (docstring)."""
    from scipy.special import betainc, gammaln

    _refuse_long_table(station, station.table_length**2)
    table = np.asarray(station.rate_table, float)
    size = table.size
    last = table[-1]
    ratio = load / last
    if load == 0:
        return OpenStation(tuple(table), np.zeros(size + 1), 1.0, 0.0)
    if size == 1:  # a constant rate: α' = α(1 − r), E[M | j] = (j + 1) r / (1 − r)
        jobs = np.arange(1, 3) * ratio / (1 - ratio)
        return OpenStation((float(last * (1 - ratio)),), jobs, 1 - ratio, ratio)
    log_rates = np.concatenate([[0.0], np.cumsum(np.log(table))])  # log Π α(1..i), i = 0..L
    j = np.arange(size + 1)[:, None]  # rows: closed jobs j = 0..L
    m = np.arange(size)[None, :]  # columns: open jobs m < L − j
    start = size - j[:, 0]  # m ≥ start: past the table
    inside = m < start[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        finite = (
            gammaln(j + m + 1)
            - gammaln(m + 1)
            - gammaln(j + 1)
            + m * np.log(load)
            - log_rates[np.minimum(j + m, size)]
        )
        finite = np.where(inside, finite, -np.inf)
        shift = (size - j[:, 0]) * np.log(last) - log_rates[size]
        whole = -(j[:, 0] + 1) * np.log1p(-ratio)
        tail = np.where(start > 0, np.log(betainc(np.maximum(start, 1), j[:, 0] + 1, ratio)) + whole, whole)
        whole_mean = -(j[:, 0] + 2) * np.log1p(-ratio)
        tail_mean = np.where(
            start - 1 > 0,
            np.log(betainc(np.maximum(start - 1, 1), j[:, 0] + 2, ratio)) + whole_mean,
            whole_mean,
        )
        weights = np.concatenate([finite, (shift + tail)[:, None]], axis=1)
        means = np.concatenate(
            [
                np.where(m > 0, finite + np.log(m), -np.inf),
                (shift + np.log((j[:, 0] + 1) * ratio) + tail_mean)[:, None],
            ],
            axis=1,
        )
    log_weight, log_mean = _log_sum(weights), _log_sum(means)
    rates = np.exp(log_weight[:-1] - log_weight[1:])
    rates = np.concatenate([rates, [last * (1 - ratio)]])
    if np.abs(rates - rates[0]).max() <= 1e-12 * rates[0]:
        rates = rates[:1]
    return OpenStation(
        tuple(float(r) for r in rates),
        np.exp(log_mean - log_weight),
        float(np.exp(-log_weight[0])),
        float(ratio),
    )


def open_jobs(view: OpenStation, queue: float, empty: np.ndarray) -> float:
    """E[M] given the closed jobs' mean Q and marginals p(0..L−1) at the station (module docstring)."""
    linear = view.ratio / (1 - view.ratio)
    j = np.arange(empty.size)
    return float((queue + 1) * linear + np.dot(empty, view.open_jobs[: empty.size] - (j + 1) * linear))


def _log_sum(logs: np.ndarray) -> np.ndarray:
    """log Σ exp(x) along the last axis, scaled by the largest term so that nothing overflows."""
    top = logs.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    return (top + np.log(np.exp(logs - top).sum(axis=-1, keepdims=True)))[..., 0]
