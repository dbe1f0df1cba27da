"""The answer to a scenario: per member and distance, with the units in the field names' docs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# the components of a transaction's response time, in the order they are shown
BREAKDOWN = ("cpu", "cf_sync", "cf_async", "subchannel_wait", "sync_io", "commit", "lock_contention", "other")
BREAKDOWN_MEANING = {
    "cpu": "CPU, with queueing for the member's CPs",
    "cf_sync": "CF requests that stay synchronous",
    "cf_async": "CF requests converted to async, with their redispatch",
    "subchannel_wait": "waiting for a CF subchannel",
    "sync_io": "synchronous reads",
    "commit": "log writes and duplexed group-buffer-pool writes at commit",
    "lock_contention": "lock/latch and global contention",
    "other": "what the model does not explain (fitted at the calibration distance)",
}


@dataclass(frozen=True)
class ScenarioResult:
    """A scenario solved at each distance. Arrays are members × distances unless noted; SI units.

    ``response_time`` (s) is NaN where the lock fixed point does not exist
    (``thrashing`` True, (D,)); ``thrashing_terminals`` (D,) is then the total
    terminal population at which thrashing begins.
    """

    title: str
    members: tuple[str, ...]
    distances: np.ndarray  # (D,) m
    response_time: np.ndarray  # s
    throughput: np.ndarray  # transactions per second
    share_within_goal: np.ndarray  # fraction of transactions within the goal time
    cpu_per_transaction: np.ndarray  # s of CP per transaction
    cpu_busy: np.ndarray  # fraction of the member's logical CPs
    breakdown: dict[str, np.ndarray]  # component → s per transaction
    delayed_fraction: dict[str, np.ndarray]  # "member→CF" → (D,) share of requests delayed for a subchannel
    path_rate: dict[str, np.ndarray]  # "member→CF" → (D,) CF requests per second on the path (all work)
    converted_rate: np.ndarray  # CF requests converted to async, per second
    cpu_saturated: np.ndarray  # bool: the CPs cannot carry the load
    thrashing: np.ndarray  # (D,) bool: no response time exists (lock contention, or saturated volumes)
    thrashing_terminals: np.ndarray  # (D,) terminals at which thrashing begins (NaN: no thrashing)
    goal_time: float  # s
    goal_share: float
    fixed_part: np.ndarray  # s of propagation every transaction pays
    disk_saturated: np.ndarray | None = None  # (D,) bool: the volumes cannot carry the I/O (IOSQ unbounded)

    @property
    def total_throughput(self) -> np.ndarray:
        """(D,) transactions per second over all members."""
        return self.throughput.sum(axis=0)

    @property
    def total_response_time(self) -> np.ndarray:
        """(D,) mean response time over all members' transactions, s (throughput-weighted)."""
        return (self.response_time * self.throughput).sum(axis=0) / self.total_throughput

    @property
    def total_share_within_goal(self) -> np.ndarray:
        """(D,) share of all transactions within the goal (throughput-weighted)."""
        return (self.share_within_goal * self.throughput).sum(axis=0) / self.total_throughput

    @property
    def goal_met(self) -> np.ndarray:
        """(M, D) bool: the member's share within the goal time reaches the goal share."""
        return self.share_within_goal >= self.goal_share

    def records(self) -> list[dict[str, object]]:
        """One record per distance and member (and "all"), values in ms, /s, % as the columns say."""
        records = []
        for d, distance in enumerate(self.distances):
            for m, member in enumerate(self.members):
                records.append(
                    self._record(
                        distance,
                        member,
                        self.response_time[m, d],
                        self.throughput[m, d],
                        self.share_within_goal[m, d],
                        self.cpu_busy[m, d],
                        self.cpu_per_transaction[m, d],
                        self.converted_rate[m, d],
                        {name: value[m, d] for name, value in self.breakdown.items()},
                        self.thrashing[d],
                    )
                )
            if len(self.members) > 1:
                weights = self.throughput[:, d]
                records.append(
                    self._record(
                        distance,
                        "all",
                        self.total_response_time[d],
                        self.total_throughput[d],
                        self.total_share_within_goal[d],
                        np.nan,
                        np.nan,
                        self.converted_rate[:, d].sum(),
                        {
                            name: float(np.dot(value[:, d], weights) / weights.sum())
                            for name, value in self.breakdown.items()
                        },
                        self.thrashing[d],
                    )
                )
        return records

    def _record(
        self, distance, member, response, throughput, share, busy, cpu, converted, parts, thrashing
    ) -> dict:
        record = {
            "distance_km": _number(distance / 1e3),
            "member": member,
            "response_time_ms": _number(response * 1e3),
            "within_goal_pct": _number(share * 100),
            "throughput_per_s": _number(throughput),
            "cpu_busy_pct": _number(busy * 100),
            "cpu_ms_per_transaction": _number(cpu * 1e3),
            "converted_per_s": _number(converted),
        }
        record.update({f"{name}_ms": _number(value * 1e3) for name, value in parts.items()})
        record["thrashing"] = bool(thrashing)
        return record

    def to_json(self) -> dict[str, object]:
        """The records, delayed fractions, path request rates, thrashing loads and goal, as JSON values."""
        return {
            "title": self.title,
            "goal": {"response_time_ms": self.goal_time * 1e3, "share_pct": self.goal_share * 100},
            "results": self.records(),
            "delayed_for_subchannel_pct": {
                path: [_number(v * 100) for v in values] for path, values in self.delayed_fraction.items()
            },
            "path_requests_per_s": {
                path: [_number(v) for v in values] for path, values in self.path_rate.items()
            },
            "thrashing_from_terminals": [_number(v) for v in self.thrashing_terminals],
        }


def _number(value: float) -> float | None:
    """A float for JSON, None for NaN (no number exists there)."""
    value = float(value)
    return None if np.isnan(value) else value
