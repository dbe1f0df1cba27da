"""Open product-form networks, single and multi-class (Jackson / BCMP with Poisson arrivals).

Per station k, with arrival rate λ_c and demand D_ck of class c:

    U_k    = Σ_c λ_c D_ck / c_k                                   utilization per server
    R_ck   = D_ck / (1 − U_k)                                      queueing station
    R_ck   = D_ck (1 + C(c_k, c_k U_k) / (c_k (1 − U_k)))          c_k servers (Erlang C)
    R_ck   = D_ck                                                  delay station
    Q_ck   = λ_c R_ck                                              Little's law

(Lazowska et al., QSP ch. 6.2 and 8.3; Erlang C by the stable recursion in
qmodel.algorithms.queueing.) The multi-server form is exact for one class, and for
several classes when they share one service time per visit.

Mixed networks (open and closed classes, queueing and delay stations; QSP
§7.4.3): the open classes take U_k^open of each station, the closed classes
are solved by exact MVA with demands D_ck / (1 − U_k^open), and an open
class then sees the closed jobs: R_ck = D_ck (1 + Q_k^closed) / (1 − U_k^open).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from qmodel.algorithms.queueing import erlang_c
from qmodel.errors import InputError
from qmodel.networks.exact import ClosedResult, solve_closed
from qmodel.networks.model import Network, capacities, delay_stations, refuse_load_dependent


@dataclass(frozen=True)
class OpenResult:
    """Open-network results; arrays are (classes, stations) unless noted. Times in the model's unit."""

    stations: tuple[str, ...]
    classes: tuple[str, ...]
    throughput: np.ndarray       # (C,) = arrival rates
    response_time: np.ndarray    # (C,) time in the stations per job
    queue_length: np.ndarray     # (C, K)
    residence_time: np.ndarray   # (C, K)
    utilization: np.ndarray      # (C, K) per server
    time_unit: str = "s"


def solve_open(model: Network) -> OpenResult:
    """Mean values of an open network whose classes all have arrival rates (formulas above)."""
    if model.closed_classes.any():
        names = [c for c, closed in zip(model.classes, model.closed_classes, strict=False) if closed]
        raise InputError(f"arrival_rate of class(es) {names}", "missing",
                         "an arrival rate for every class of an open network (closed classes: MVA)")
    for station in model.stations:
        if station.kind == "ld":
            raise InputError(f"station {station.name!r}: type", "ld",
                             "queue, multi or delay in an open model (ld: closed single-class models)")
    rates = model.arrival_rates
    servers = capacities(model.stations)
    delay = delay_stations(model.stations)
    class_utilization = rates[:, None] * model.demands / servers
    utilization = _stable_utilization(model, class_utilization, delay)
    # mean wait in units of the demand: C(c, cU) / (c (1 − U)); U / (1 − U) for one server
    queueing = ~delay
    stretch = np.ones(len(model.stations))
    stretch[queueing] += erlang_c(servers[queueing], servers[queueing] * utilization[queueing]) / (
        servers[queueing] * (1 - utilization[queueing]))
    residence = model.demands * stretch
    return OpenResult(stations=model.station_names, classes=model.classes, throughput=rates.copy(),
                      response_time=residence.sum(axis=1), queue_length=rates[:, None] * residence,
                      residence_time=residence, utilization=class_utilization, time_unit=model.time_unit)


def solve_mixed(model: Network) -> tuple[ClosedResult, OpenResult]:
    """A network with open and closed classes: (closed-class results, open-class results), formulas above."""
    refuse_load_dependent(model.stations, "in a mixed network")
    delay = delay_stations(model.stations)
    is_open = model.open_classes
    if model.populations[~is_open].sum() == 0:
        raise InputError("population of the closed classes", 0, "at least one job in a mixed network "
                         "(with none, give arrival rates only: an open network)")
    open_utilization = model.arrival_rates[is_open, None] * model.demands[is_open]
    utilization = _stable_utilization(model, open_utilization, delay)
    inflation = np.where(delay, 1.0, 1.0 / (1.0 - utilization))
    names = np.array(model.classes, dtype=object)
    closed = ~is_open
    closed_model = replace(model, classes=tuple(names[closed]), demands=model.demands[closed] * inflation,
                           think_times=model.think_times[closed], populations=model.populations[closed],
                           arrival_rates=np.zeros(closed.sum()),
                           visits=None if model.visits is None else model.visits[closed])
    result = solve_closed(closed_model).at(-1)
    result = replace(result, utilization=result.throughput[:, :, None] * model.demands[closed][None])
    closed_queue = result.queue_length[0].sum(axis=0)
    residence = model.demands[is_open] * np.where(delay, 1.0, (1.0 + closed_queue) * inflation)
    rates = model.arrival_rates[is_open]
    opened = OpenResult(stations=model.station_names, classes=tuple(names[is_open]),
                        throughput=rates, response_time=residence.sum(axis=1),
                        queue_length=rates[:, None] * residence, residence_time=residence,
                        utilization=open_utilization, time_unit=model.time_unit)
    return result, opened


def _stable_utilization(model: Network, class_utilization: np.ndarray, delay: np.ndarray) -> np.ndarray:
    """Σ over classes of the open classes' utilization per station, refusing any station at or above 1."""
    utilization = class_utilization.sum(axis=0)
    for k, station in enumerate(model.stations):
        if not delay[k] and utilization[k] >= 1:
            raise InputError(f"utilization of station {station.name!r}", f"{utilization[k]:.4g}", "below 1",
                             reason="the open classes alone saturate it: arrivals exceed what it serves")
    return utilization
