"""Queueing networks (layer 2): one ``solve`` for closed, open and mixed networks, one or many classes.

Build a network, solve it, read one result::

    from qmodel.networks import network, solve
    net = network([["2ms", "4ms", 0], ["1ms", "3ms", "2ms"]],      # classes × stations; numbers in time_unit
                  servers=[8, 1, "delay"], rates=None,              # c servers or "delay"; rates: ld
                  population=[20, 0], arrival_rate=[0, "150/s"],     # a closed and an open class
                  think_time=["1s", 0], names=["cpu", "disk", "link"], classes=["cics", "batch"],
                  time_unit="ms")
    result = solve(net, method="exact")       # or schweitzer, linearizer, seidmann, ctmc, convolution
    result.throughput                         # (C,) jobs per second

``network(demands, *, servers, rates, think_time, population, arrival_rate,
visits, names, classes, time_unit, routing, reference, scheduling, buffer,
priority, speeds)``: see qmodel.networks.model (a routing matrix with class
switching: routing.py and chains.py); a TOML model file: ``load_network(path)``.

``solve(network, method="exact", population=None, progress=None, at=())``
returns a :class:`NetworkResult`, in SI units (seconds, jobs per second).
``population=N`` is the network at N jobs; ``range(1, N + 1)`` a sweep (the
same result, its ``curve`` read as the answer), as ``qmodel mva --population
N`` and ``1..N``:

| field                 | shape  | meaning                                                        |
| --------------------- | ------ | -------------------------------------------------------------- |
| ``network``           |        | the Network solved (stations, classes, demands, time_unit)     |
| ``method``            |        | exact, schweitzer, linearizer or seidmann                      |
| ``populations``       | (C,)   | jobs of each closed class (0 for an open class)                |
| ``throughput``        | (C,)   | jobs per second (an open class: its arrival rate)              |
| ``response_time``     | (C,)   | seconds in the stations per job, think time excluded           |
| ``utilization``       | (C, K) | per server; jobs in service at a delay; P(busy) share at an ld |
| ``queue_length``      | (C, K) | mean jobs                                                      |
| ``residence_time``    | (C, K) | seconds per job, all visits                                    |
| ``per_visit_time``    | (C, K) | seconds per visit (one visit where no visits were given)       |
| ``station_throughput``| (C, K) | visits per second                                              |
| ``curve``             |        | single-class exact sweep: population, throughput, response_time |
|                       |        | at every N = 1..population (None otherwise)                    |
| ``points``            |        | NetworkResults at the ``at`` populations of a sweep            |
| ``log_normalizing_constant`` |  | method convolution: log G(N) (states.py)                       |
| ``marginals``         | (K, J) | methods convolution and ctmc: probability of j jobs at a station |
| ``lost``              | (C, K) | open classes at full buffers: arrivals lost per second         |

``records()`` and ``class_records()`` give rows with units in their keys
(times in the network's time_unit, throughput per second); ``to_json()`` a
JSON-ready dict. ``approximation_error(result)`` compares an approximate
result with exact MVA. Methods, station types and what solves what:
qmodel.networks.solver and qmodel.networks.stations; what is not product form
(priorities, FCFS with service times by class: priority.py; buffers that
fill: finite.py) is approximated and its result's ``method`` says how, and
method ctmc (markov.py) solves it exactly where small. Errors: InputError for a
bad network or a request too large to compute (with the estimate),
ConvergenceError when an approximation does not converge.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "network": "qmodel.networks.model",
    "load_network": "qmodel.networks.model",
    "Network": "qmodel.networks.model",
    "Station": "qmodel.networks.stations",
    "solve": "qmodel.networks.solver",
    "approximation_error": "qmodel.networks.solver",
    "METHODS": "qmodel.networks.solver",
    "NetworkResult": "qmodel.networks.results",
}


def __getattr__(name: str) -> Any:
    """Lazy re-exports: importing qmodel.networks loads nothing until a name is used."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'qmodel.networks' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
