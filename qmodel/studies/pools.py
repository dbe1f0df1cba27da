"""A storage pool striped over more drives: closed-population throughput by exact MVA.

esg-ds8000-validation-2008.txt (Storage Pool Striping) compared an eight-drive
pool with a 16-drive pool under a random 4 KB workload driven by 128 threads:
"performance nearly doubled". With a fixed number of threads and no think time
the gain of doubling the drives is below 100%: the threads spread over twice
the drives queue less at each, so they also wait less, and only an unlimited
population would double the throughput. :func:`closed_pool_scaling` solves the
closed network for both pools with qmodel's exact MVA.
"""

from __future__ import annotations

from qmodel.errors import InputError
from qmodel.networks.model import network
from qmodel.networks.solver import solve


def _pool_throughput(
    population: int, drives: int, backend_ops_per_io: float, drive_service: float, front_end_time: float
) -> float:
    """I/Os per second of ``population`` threads over a front end (delay) and ``drives`` equal drives (s).

    The quick path never imports this module (only the validation layer does, through
    :mod:`qmodel.validation.quantities`), so the network engine (numba) loads only for a case that asks."""
    per_drive = backend_ops_per_io * drive_service / drives
    pool = network(
        [front_end_time] + [per_drive] * drives, servers=["delay"] + [1] * drives, population=population
    )
    return float(solve(pool, "exact").throughput[0])


def closed_pool_scaling(
    population: float,
    drives_before: float,
    drives_after: float,
    backend_ops_per_io: float,
    drive_service: float,
    front_end_time: float,
) -> dict[str, float]:
    """Throughput of a closed population on a pool of drives before and after the pool grows, and the gain.

    Each of ``population`` threads issues one I/O at a time with no think time:
    ``front_end_time`` (s) at the adapters and cache (a delay station), then
    ``backend_ops_per_io`` drive operations of ``drive_service`` (s) spread evenly
    over the pool's drives (striping), each drive a single-server queue. Exact
    MVA (Reiser and Lavenberg 1980) for both pools; gain = X_after / X_before − 1.
    Outputs in 1/s and as a ratio. Source: module docstring.
    """
    for name, value in (
        ("population", population),
        ("drives_before", drives_before),
        ("drives_after", drives_after),
    ):
        if value < 1 or value != int(value):
            raise InputError(name, value, "a whole number >= 1")
    if backend_ops_per_io <= 0 or drive_service <= 0 or front_end_time < 0:
        raise InputError(
            "backend_ops_per_io, drive_service, front_end_time",
            f"{backend_ops_per_io}, {drive_service}, {front_end_time}",
            "operations and drive service > 0, front-end time >= 0",
        )
    before = _pool_throughput(
        int(population), int(drives_before), backend_ops_per_io, drive_service, front_end_time
    )
    after = _pool_throughput(
        int(population), int(drives_after), backend_ops_per_io, drive_service, front_end_time
    )
    return {"throughput_before": before, "throughput_after": after, "gain": after / before - 1}
