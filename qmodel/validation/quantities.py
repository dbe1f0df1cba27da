"""The functions casebooks name as quantities beyond the catalogue, registered with the catalogue's registry.

The registry is the catalogue's and knows only what catalogue entries name; the study functions (a
distance slope, a Global Mirror time-line, a volume layout, a closed pool) and the scenario solver sit
above it, so they register here, from the validation layer above them (importing this module registers
them; the casebooks do, through :data:`REGISTRY`). Each declares its inputs and outputs with their display
units.
"""

from __future__ import annotations

from qmodel.catalogue.registry import REGISTRY, ModelFunction, register
from qmodel.scenario.cases import scenario_quantity
from qmodel.studies import distance, layout, pools, replication

__all__ = ["REGISTRY"]

# The scenario function's outputs: display unit, and what each means after "the scenario's ".
_SCENARIO_OUTPUTS = {
    "response_time": ("ms", "mean transaction response time"),
    "share_within_goal": ("ratio", "share of transactions within the WLM goal time"),
    "throughput": ("1/s", "transactions per second"),
    "transactions": ("1", "transactions completed in the interval"),
    "cpu_of_one_cp": ("ratio", "CPU busy in CPs (RMF APPL%: % of one CP)"),
    "cpu_busy": ("ratio", "CPU busy as a share of the member's logical CPs"),
    "delayed_fraction": ("ratio", "share of CF requests delayed for a subchannel"),
    "path_rate": ("1/s", "CF requests per second on the path (RMF AVG/SEC)"),
    "converted": ("1", "CF requests converted to async in the interval"),
    "propagation": ("ms", "propagation every transaction pays"),
}

register(
    ModelFunction(
        "distance_slope",
        "model",
        distance.distance_slope,
        {"distance": "km", "values": "ms", "round_trips": "1"},
        {"slope": "us/km", "slope_per_round_trip": "us/km", "intercept": "ms"},
        "Least-squares slope of a measured table against distance",
    ),
    ModelFunction(
        "scenario",
        "model",
        scenario_quantity,
        {
            "scenario": "text",
            "member": "text",
            "distance": "km",
            "interval": "s",
            "cf": "text",
            "subchannels": "1",
            "metro_mirror": "text",
            "castout_owner": "text",
        },
        {output: unit for output, (unit, _) in _SCENARIO_OUTPUTS.items()},
        "A shipped scenario solved at one distance: one member's (or all members') results",
        defaults=(
            ("interval", "300s"),
            ("cf", ""),
            ("subchannels", 0),
            ("metro_mirror", ""),
            ("castout_owner", ""),
        ),
        meanings=tuple(
            (output, f"the scenario's {meaning}") for output, (_, meaning) in _SCENARIO_OUTPUTS.items()
        ),
    ),
    ModelFunction(
        "burst_suspension",
        "model",
        replication.burst_suspension,
        {
            "write_rate": "MB/s",
            "bandwidth": "MB/s",
            "burst_size": "MB",
            "burst_rate": "MB/s",
            "burst_start": "min",
            "until": "min",
            "write_reduction": "1",
            "burst_reduction": "1",
        },
        {"first_stop": "min", "first_resume": "min"},
        "Global Mirror fluid time-line with one write burst: when consistency groups stop and form again",
        defaults=(("write_reduction", 1), ("burst_reduction", 1)),
    ),
    ModelFunction(
        "outage_suspension",
        "model",
        replication.outage_suspension,
        {
            "write_rate": "MB/s",
            "bandwidth": "MB/s",
            "outage_start": "min",
            "outage_end": "min",
            "available_fraction": "ratio",
            "until": "min",
        },
        {"first_stop": "min", "first_resume": "min"},
        "Global Mirror fluid time-line with a link outage: when consistency groups stop and form again",
    ),
    ModelFunction(
        "volume_layout",
        "model",
        layout.volume_layout,
        {
            "rank": "1",
            "lss": "1",
            "test": "1",
            "perf": "1",
            "perf_primes": "1",
            "fc_targets": "1",
            "pprc_secondaries": "1",
            "spares": "1",
            "column_total": "1",
            "rank_capacity": "1",
            "repeats": "1",
        },
        {
            "test_volumes": "1",
            "perf_volumes": "1",
            "fc_target_volumes": "1",
            "pprc_secondary_volumes": "1",
            "spare_volumes": "1",
            "volumes": "1",
            "lss": "1",
            "perf_per_lss_min": "1",
            "perf_per_lss_max": "1",
            "primes_per_lss_min": "1",
            "primes_per_lss_max": "1",
            "total_mismatch": "1",
            "unallocated": "1",
        },
        "Totals of a sampled DS8000 volume layout (cells per rank and LSS) repeated over the box",
    ),
    ModelFunction(
        "duplex_layout",
        "model",
        layout.duplex_layout,
        {"cluster": "1", "prime": "1", "module": "1"},
        {"sfi0_share": "ratio", "both_copies_one_cluster": "1", "lost_same_sfi": "1", "lost_any_pair": "1"},
        "Prime and duplicate volumes over the server clusters: modules lost when clusters fail",
    ),
    ModelFunction(
        "closed_pool_scaling",
        "model",
        pools.closed_pool_scaling,
        {
            "population": "1",
            "drives_before": "1",
            "drives_after": "1",
            "backend_ops_per_io": "1",
            "drive_service": "ms",
            "front_end_time": "ms",
        },
        {"throughput_before": "1/s", "throughput_after": "1/s", "gain": "ratio"},
        "Closed population of threads on a striped pool before and after it grows: exact MVA",
    ),
)
