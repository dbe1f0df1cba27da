"""The answer to a scenario: per member and distance, with the units in the field names' docs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel import frames
from qmodel.algorithms.fixed_point import TOLERANCE

# the components of a transaction's response time, in the order they are shown
BREAKDOWN = ("cpu", "cf_sync", "cf_async", "subchannel_wait", "sync_io", "commit", "lock_contention", "other")
BREAKDOWN_MEANING = {
    "cpu": "CPU, with queueing for the member's CPs (a sync CF request's spin is in cf_sync)",
    "cf_sync": "CF requests that stay synchronous",
    "cf_async": "CF requests converted to async, with their redispatch",
    "subchannel_wait": "waiting for a CF subchannel",
    "sync_io": "synchronous reads, with their IOSQ",
    "commit": "log writes with their IOSQ, and duplexed group-buffer-pool writes at commit",
    "lock_contention": "lock/latch and global contention",
    "other": "what the model does not explain (fitted at the calibration distance)",
}


@dataclass(frozen=True)
class Band:
    """The band on a solve's values at ``level`` (:mod:`qmodel.scenario.band`): ``ends`` the (low, high)
    of each of :meth:`ScenarioResult.record_values` that has one, (R, D) each (NaN: open, toward a sample
    with no answer); ``goal_probability`` (D,) the share of the predictive distribution in which every
    member meets the goal; ``points_without_answer`` (D,) the parameter points with no response time
    there, ``without_answer`` the same counts by why (each key of :data:`WITHOUT_ANSWER`); ``method``
    what the band is made of, in words; ``narrow`` the measurement that would narrow it most ("" where
    none is named); ``misfit`` the line naming the calibration rows the band carries the miss of (""
    where none)."""

    level: float
    method: str
    points: int
    ends: dict[str, tuple[np.ndarray, np.ndarray]]
    goal_probability: np.ndarray
    points_without_answer: np.ndarray
    without_answer: dict[str, np.ndarray]
    narrow: str = ""
    misfit: str = ""


@dataclass(frozen=True)
class ScenarioResult:
    """A scenario solved at each distance. Arrays are members × distances unless noted; SI units.

    ``response_time`` (s) is NaN where no response time exists (``thrashing`` True, (D,)): the lock
    fixed point does not exist (:attr:`lock_thrashing`), or the volumes cannot carry their other work
    (``disk_saturated``). Where lock contention thrashes, ``thrashing_load`` (D,) is the share of every
    member's ``terminals`` at which thrashing begins (see :meth:`terminals_with_answer`), and
    ``subchannel_share_at_edge`` each member's share of its response time spent waiting for a
    subchannel just below that load (what :meth:`remedies` reads).
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
    disk_saturated: np.ndarray  # (D,) bool, within thrashing: the volumes' other work alone saturates them
    thrashing_load: np.ndarray  # (D,) share of the terminals at which thrashing begins (NaN: no thrashing)
    # subchannel wait / response time at the largest load searched below thrashing_load that has an answer
    # (NaN: no thrashing, or no load searched has an answer)
    subchannel_share_at_edge: np.ndarray
    io_queue_share_at_edge: np.ndarray  # the same for the time in IOSQ (0: IOSQ given, not computed)
    io_queue: np.ndarray | None  # (D,) s of IOSQ per SSCH where computed from the load (volumes), else None
    volume_busy: np.ndarray | None  # (D,) share of each volume's exposures (1 + aliases) busy, or None
    terminals: tuple[int, ...]  # (M,) each member's terminal population
    goal_time: float  # s
    goal_share: float
    fixed_part: np.ndarray  # s of propagation every transaction pays
    band: Band | None = None  # the band at its level on every value (None: none, NO_BAND says why)
    # (D,) bool, within thrashing: a member's load is more than its CPs or subchannels carry (OPEN_SATURATED)
    open_saturated: np.ndarray | None = None

    @property
    def lock_thrashing(self) -> np.ndarray:
        """(D,) bool: no response time because lock contention thrashes (not the volumes, nor an open
        member's arrivals beyond what its CPs or subchannels carry)."""
        saturated = self.disk_saturated
        if self.open_saturated is not None:
            saturated = saturated | self.open_saturated
        return self.thrashing & ~saturated

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
        """One record per distance and member (and "all", every member's transactions together), values
        in ms, 1/s, % as the keys say (:func:`qmodel.frames.key`; None where no number exists; CSV and
        JSON round them, qmodel.output).

        ``cpu_busy_of_lpar[%]`` is the share of the member's logical CPs busy with the workload;
        ``cpu_of_one_cp[%]`` the same in CPs' worth (RMF's APPL%: 100 is one CP busy), which "all" sums
        while the LPAR share, of different LPARs, is left empty there. ``cpu[ms]`` is the CPU part of the
        response time (with queueing for the CPs; the CPU a transaction needs is one-CP % / 100 / X).
        Each member's paths give ``CF_delayed[%]`` (CF requests delayed for a subchannel) and
        ``CF_requests[1/s]`` per CF (empty where the member has no path to it; "all" sums the requests
        and weights the delays by them). Where IOSQ is computed from the load, ``iosq[ms]`` (per SSCH)
        and ``volume_busy[%]`` (of each volume's exposures) are the volumes', the same on every row of
        a distance. ``thrashing`` says lock contention leaves no response time,
        ``volumes_saturated`` that the volumes cannot carry their other work. ``terminals_with_answer``,
        at a distance where lock contention thrashes, is the member's largest whole terminal population
        that still has one, every member's terminals scaled alike (:meth:`terminals_with_answer`); "all"
        gives their sum.

        With a band (``band``), each value :meth:`record_values` gives that it bands has ``NAME_low[unit]``
        and ``NAME_high[unit]`` beside it (:meth:`band_values`), ``goal_holds[%]`` is the probability that
        every member meets the goal at the distance, ``level`` is the band's (a share: 0.8 for 80%), and
        ``band_points_without_answer`` counts the band's
        parameter points with no response time there."""
        cfs = sorted({path.split("→")[1] for path in self.delayed_fraction})
        raw = self.record_values()
        response = raw["response_time[ms]"]  # the scale of each part of it (resolved)
        parts = {f"{name}[ms]" for name in self.breakdown}
        values = {name: numbers(resolved(v, response) if name in parts else v) for name, v in raw.items()}
        bands = {
            name: (numbers(low), numbers(high))
            if name not in parts
            else (numbers(resolved(low, response)), numbers(resolved(high, response)))
            for name, (low, high) in self.band_values().items()
        }
        names = [*self.members, "all"][: len(values["response_time[ms]"])]
        per_path = self._per_path(names, cfs)
        requests = [
            sum((rate for _, rate in per_path[member].values()), np.zeros(self.distances.shape))
            for member in names
        ]
        converted_rates = self._rows(self.converted_rate, self.converted_rate.sum(axis=0))
        converted_shown = numbers(resolved(converted_rates, np.array(requests)))  # a part of the CF requests
        shown_paths = {
            member: {
                cf: (numbers(resolved(delayed, 1.0) * 100), numbers(rate))  # a share
                for cf, (delayed, rate) in paths.items()
            }
            for member, paths in per_path.items()
        }
        records = []
        for d in range(self.distances.size):
            fits = self.terminals_with_answer(d)
            for row, member in enumerate(names):
                paths = {cf: (delayed[d], rate[d]) for cf, (delayed, rate) in shown_paths[member].items()}
                if member == "all":
                    answer = None if fits is None else sum(fits)
                else:
                    answer = None if fits is None else fits[row]
                converted = converted_shown[row][d]
                record: dict[str, object] = {
                    "distance[km]": number(self.distances[d] / 1e3),
                    "member": member,
                }
                for name, value in values.items():
                    record[name] = value[row][d]
                    if name in bands:
                        record[frames.end_key(name, "low")] = bands[name][0][row][d]
                        record[frames.end_key(name, "high")] = bands[name][1][row][d]
                    if name == "cpu_of_one_cp[%]":
                        record["converted_cf_requests[1/s]"] = converted
                for cf in cfs:
                    delayed, rate = paths.get(cf, (None, None))
                    record[f"{cf}_delayed[%]"] = delayed
                    record[f"{cf}_requests[1/s]"] = rate
                if self.io_queue is not None and self.volume_busy is not None:
                    record["iosq[ms]"] = number(self.io_queue[d] * 1e3)
                    record["volume_busy[%]"] = number(self.volume_busy[d] * 100)
                record["thrashing"] = bool(self.lock_thrashing[d])
                record["volumes_saturated"] = bool(self.disk_saturated[d])
                record["terminals_with_answer"] = answer
                if self.band is not None:
                    record["level"] = self.band.level  # of every _low, _high on the row, a share
                    record[frames.key("goal_holds", "%")] = number(self.band.goal_probability[d] * 100)
                    record["band_points_without_answer"] = int(self.band.points_without_answer[d])
                records.append(record)
        return records

    def _per_path(
        self, names: list[str], cfs: list[str]
    ) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]:
        """Per row of :meth:`records` (each member, then "all") and CF it has a path to, each (D,): the
        share of its CF requests delayed for a subchannel, and its CF requests per second; "all" weights
        the delays by the requests (their mean where none is sent) and sums the requests."""
        pooled: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
        for member in names:
            pooled[member] = {}
            for cf in cfs:
                paths = (
                    [p for p in self.delayed_fraction if p.endswith(f"→{cf}")]
                    if member == "all"
                    else [p for p in (f"{member}→{cf}",) if p in self.delayed_fraction]
                )
                if paths:
                    shares = np.array([self.delayed_fraction[p] for p in paths], float)
                    flows = np.array([self.path_rate[p] for p in paths], float)
                    total = flows.sum(axis=0)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        weighted = (shares * flows).sum(axis=0) / total
                    share = (
                        np.where(total > 0, weighted, shares.mean(axis=0)) if len(paths) > 1 else shares[0]
                    )
                    pooled[member][cf] = (share, total)
        return pooled

    def record_values(self) -> dict[str, np.ndarray]:
        """The values of :meth:`records` a band is given for, each (R, D): R the members, then "all"
        where there are several (every member's transactions together: response time, share within the
        goal and breakdown weighted by throughput; throughput and one-CP CPU summed; the LPAR share of
        different LPARs empty, NaN). Units as the keys say: ms, %, 1/s."""
        rows, weighted = self._rows, self._weighted
        one_cp = self.throughput * self.cpu_per_transaction
        values = {
            "response_time[ms]": weighted(self.response_time) * 1e3,
            "share_within_goal[%]": weighted(self.share_within_goal) * 100,
            "throughput[1/s]": rows(self.throughput, self.total_throughput),
            "cpu_busy_of_lpar[%]": rows(self.cpu_busy, np.full(self.distances.shape, np.nan)) * 100,
            "cpu_of_one_cp[%]": rows(one_cp, one_cp.sum(axis=0)) * 100,
        }
        values.update({f"{name}[ms]": weighted(value) * 1e3 for name, value in self.breakdown.items()})
        return values

    def _rows(self, per_member: np.ndarray, total: np.ndarray) -> np.ndarray:
        """(R, D): the members' rows, then "all" (``total``) where there are several."""
        return np.vstack([per_member, total[None, :]]) if len(self.members) > 1 else per_member

    def _weighted(self, value: np.ndarray) -> np.ndarray:
        """(R, D): each member's ``value``, then "all" weighted by throughput (:meth:`_rows`)."""
        weights = self.throughput
        return self._rows(value, (value * weights).sum(axis=0) / weights.sum(axis=0))

    def band_values(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each banded value of :meth:`record_values` as (low, high), (R, D): the band at its level
        (empty without a band)."""
        return {} if self.band is None else self.band.ends

    def terminals_with_answer(self, d: int) -> tuple[int, ...] | None:
        """Per member, at distance index ``d`` where lock contention thrashes, the largest whole terminal
        population that still has an answer, every member's terminals scaled alike (None where none
        thrashes): ceil(load × terminals) − 1. The load is searched to 1/1,024, so this is the largest
        with an answer to within that; the population in all is their sum."""
        load = self.thrashing_load[d]
        if np.isnan(load):
            return None
        return tuple(max(int(np.ceil(load * terminals)) - 1, 0) for terminals in self.terminals)

    def remedies(self, d: int) -> tuple[str, ...]:
        """What gives distance index ``d``, where lock contention thrashes, a response time back
        (:func:`remedies`, from ``subchannel_share_at_edge`` and ``io_queue_share_at_edge``)."""
        return remedies(
            float(self.distances[d]), self.subchannel_share_at_edge[:, d], self.io_queue_share_at_edge[:, d]
        )

    def to_frame(self):
        """:meth:`records` as a pandas DataFrame: one row per distance and member, units in the names."""
        return frames.to_frame(self.records())

    def _repr_html_(self) -> str:
        return frames.scenario_html(self.title, self.records(), self.goal_time, self.goal_share)

    def to_json(self) -> dict[str, object]:
        """The goal, the band (how its points were chosen and how many, or why there is none) and the
        records (one per distance and member, each with its paths' values)."""
        band = band_json(self.band)
        return {
            "title": self.title,
            "goal": {"response_time[ms]": self.goal_time * 1e3, "share[%]": self.goal_share * 100},
            "band": band,
            "results": self.records(),
        }


# why an answer carries no band
NO_BAND = "the model's own error has not been sized (qmodel scenario cross-validate --write sizes it)"
# the records' values that carry no band where the rest have one (their keys as
# ScenarioResult.records writes them, CF standing for each CF's name), and why
UNBANDED = ("converted_cf_requests[1/s]", "CF_delayed[%]", "CF_requests[1/s]", "iosq[ms]", "volume_busy[%]")
WHY_UNBANDED = (
    "converted CF requests, each path's CF requests and share delayed for a subchannel, and the volumes'"
    " IOSQ and busy (CSV, JSON: converted_cf_requests, per CF its _delayed and _requests, iosq,"
    " volume_busy) carry no band: a band's level rests on the model's error, sized on response times and"
    " transaction counts alone, so none could be stated for these"
)


def band_json(band: Band | None) -> dict[str, object]:
    """The JSON's ``band``: its level, what it is made of, its parameter points, the measurement that
    would narrow it most and the values it does not cover (``unbanded``, CF standing for each CF's name)
    with why; or why there is none."""
    if band is None:
        return {"level": None, "method": None, "points": 0, "why_none": NO_BAND}
    return {
        "level": band.level,
        "method": band.method,
        "points": band.points,
        "narrow": band.narrow or None,
        "misfit": band.misfit or None,
        "unbanded": list(UNBANDED),
        "why_unbanded": WHY_UNBANDED,
    }


# why a solve has no response time, by the name a band counts its points under (Band.without_answer)
WITHOUT_ANSWER = {
    "lock": "lock contention thrashes there",
    "volumes": "the volumes cannot carry their other work there",
    "open": "a member's load is more than its CPs or the CF subchannels carry there",  # OPEN_SATURATED
}
THRASHING = "each transaction holds its locks longer than the others can wait"  # why none exists
# where the volumes' other work saturates them by itself
VOLUMES_WAY_OUT = "add volumes or PAV aliases, or move some of that work"
# where a member's load (an open member's arrivals, a closed member's terminals) is more than its CPs, or
# an open member's more than its CF subchannels, carry: no response time exists
OPEN_SATURATED = "a member's load is more than its CPs or the CF subchannels carry"
OPEN_WAY_OUT = (
    "a lower arrival_rate or fewer terminals, more logical CPs or more subchannels "
    "(or a cpu or think_time in its right unit)"
)
# waiting for a subchannel is a material part of a member's response time from this share on
MATERIAL_SHARE = 0.05


def remedies(
    distance: float, subchannel_share: np.ndarray, io_queue_share: np.ndarray | None = None
) -> tuple[str, ...]:
    """What gives a distance (m) where lock contention thrashes a response time back: fewer terminals
    where some load searched has an answer (or at 0 km, where nothing else can); more subchannels where
    some member waits for them at least :data:`MATERIAL_SHARE` of its response time at the edge of
    thrashing (``subchannel_share``, (M,): at the largest load searched that has an answer, about the
    terminals that still have one; NaN, no load has one: not material); more volumes or PAV aliases
    where IOSQ is as material (``io_queue_share``, the same for IOSQ; None: not computed); a shorter
    distance beyond 0 km. The one rule for every place that names remedies (the table's notes, the
    goal seek's answer)."""
    share = np.asarray(subchannel_share)
    found = ["fewer terminals"] if not np.isnan(share).all() or distance <= 0 else []
    if (share >= MATERIAL_SHARE).any():
        found.append("more subchannels")
    if io_queue_share is not None and (np.asarray(io_queue_share) >= MATERIAL_SHARE).any():
        found.append("more volumes (or PAV aliases)")
    if distance > 0:
        found.append("a shorter distance")
    return tuple(found)


# The composed solve's relative precision: its fixed point stops where every response time steps less
# than this relative to its value (qmodel.algorithms.fixed_point.TOLERANCE).
RESOLVED = TOLERANCE


def resolved(values: np.ndarray, scale: np.ndarray | float) -> np.ndarray:
    """``values`` with every one smaller than :data:`RESOLVED` × ``scale`` (the quantity it is a part or a
    share of, broadcast against it) as 0: below the solve's precision, a value says nothing but its
    arithmetic (8.4e-11 ms of cf_async in a 68 ms response time, the tail of the conversion estimate at
    0 km; a 4.7e-95% share of requests delayed for a subchannel). The one rule for every value the
    answer's records print; NaN stays NaN.

    :param values: values, in any unit.
    :param scale: the quantity they are a part or share of, in the same unit (a share: 1).
    :returns: the values, those below the precision 0.
    """
    values = np.asarray(values, float)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(values) < RESOLVED * np.abs(scale), 0.0, values)


def numbers(values: np.ndarray) -> list:
    """:func:`number` over an array, as nested lists (quicker than one call per element)."""
    shown = (np.asarray(values, float) + 0.0).astype(object)
    shown[np.isnan(values)] = None
    return shown.tolist()


def number(value: float) -> float | None:
    """A float as it is, None for NaN (no number exists there)."""
    value = float(value)
    return None if np.isnan(value) else value + 0.0
