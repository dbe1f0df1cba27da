"""The composed solver: a scenario at each distance → response time and breakdown, goal share, X, CPU.

The pipeline, each step an array operation over the distances that calls the
home of its formula:

1. distance → propagation per request at each member (catalogue
   ``cf_request_at_distance``: round trips × RoundTripTime), the same for I/O
   (``distance_growth``: a read from the other site pays one round trip in
   PEND; ``pprc_write_cost``: a Metro Mirror write pays the base overhead and
   one round trip to the secondary);
2. CF sync → async conversion as a fraction of requests with its redispatch
   wait and CPU (``cf_request_at_distance``); a duplexed secondary write costs
   only what it adds to its overlapped primary write (``gbp_duplexed_write``);
3. CF subchannel queueing per member and CF as a finite-source M/M/c//K queue
   (:func:`qmodel.algorithms.queueing.finite_source_queue`), the K requesters
   being the member's terminals: the delay stays finite where Erlang C goes
   unstable;
4. disk: RMF components (``rmf_response_time``), remote PEND, Metro Mirror; on the castout
   owner's reads, an IOSQ proportional to its castout write's response (``castout_iosq``); with
   ``volumes``, IOSQ (``pav_iosq``) in balance with the throughput it leaves
   (:func:`disk_queue`): the fixed point below runs on the response time
   without IOSQ, which keeps it increasing where IOSQ alone would fall as R grows;
5. the closed network of terminals: each member's transactions are a class of
   ``terminals`` users with a think time, X = N / (Z + R) (the response-time
   law), the member's CPs an M/M/c station (``mmc_waiting_time``);
6. lock contention (:func:`qmodel.studies.locks.lock_wait`), every lock held
   through the commit phase (log writes, duplexed writes), none over the
   time queued for a CF subchannel: R appears on
   both sides; the fixed point is solved by :func:`qmodel.algorithms.fixed_point.iterate`,
   and where none exists the distance is flagged as thrashing, with the
   terminal load at which it begins, never given a number;
7. the share within the WLM goal (``share_within_goal``: the propagation a
   transaction always pays, plus a gamma variable part of the member's shape), CPU busy per
   member including the spin of synchronous CF requests and async CPU.

Units: SI inside (s, m, 1/s); the result says its units.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

import numpy as np

from qmodel.algorithms.fixed_point import FixedPoint, iterate
from qmodel.algorithms.queueing import STATES_PER_BLOCK, erlang_c, finite_source_queue
from qmodel.catalogue.evaluate import compute_si
from qmodel.errors import InputError
from qmodel.limits import TIME_LIMIT, refuse_scenario_work, refuse_too_large
from qmodel.scenario import protocols as today
from qmodel.scenario.propagation import (
    at_zero_km,
    cf_request,
    evaluate_si,
    io_time,
    mirror_cost,
    round_trips,
    separation,
)
from qmodel.scenario.result import BREAKDOWN, ScenarioResult
from qmodel.scenario.spec import Scenario, ScenarioError, check_path_capacity
from qmodel.studies.locks import lock_wait
from qmodel.units import significant


@dataclass(frozen=True)
class FixedParts:
    """What does not depend on the load: per member (M, D) arrays, SI units."""

    cf_sync: np.ndarray  # time in CF requests that stay synchronous, per transaction
    cf_async: np.ndarray  # time in converted requests (async service + redispatch)
    commit: np.ndarray  # log writes and what duplexed secondary writes add
    sync_io: np.ndarray  # synchronous reads
    cpu: np.ndarray  # CPU demand per transaction (own CPU, sync CF spin, async CPU)
    spin: np.ndarray  # of it, the spin of sync CF requests: elapsed time already in cf_sync and commit
    fixed_part: np.ndarray  # propagation every transaction pays
    lock_requests: np.ndarray  # (M,) lock-structure requests per transaction
    converted_rate: np.ndarray  # converted requests per transaction (all work)
    path_requests: list[np.ndarray]  # per path: requests per transaction (all work), (1,) or (D,)
    path_holding: list[np.ndarray]  # per path: mean subchannel holding time per request, (D,)
    round_trip: np.ndarray  # (M, M, D) round-trip time between members' sites, s
    reads: np.ndarray  # (M,) synchronous reads per transaction
    writes: np.ndarray  # (M,) log writes per transaction
    device_busy: np.ndarray  # (M, D) s of device service per transaction (reads and writes, no IOSQ)
    write_service: np.ndarray  # (D,) s of device service of a write (no IOSQ)

    @property
    def ssch(self) -> np.ndarray:
        """(M, 1) SSCHs per transaction (synchronous reads and log writes): what IOSQ is paid on."""
        return (self.reads + self.writes)[:, None]

    def at(self, columns: np.ndarray | slice) -> FixedParts:
        """The same parts at some distances only (the last axis of every per-distance array)."""

        picked: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            if name in _PER_MEMBER:  # (M,): the same at every distance
                picked[name] = value
            elif isinstance(value, list):
                picked[name] = [v[..., columns] if np.ndim(v) else v for v in value]
            else:
                picked[name] = value[..., columns]
        return FixedParts(**picked)


_PER_MEMBER = ("lock_requests", "reads", "writes")  # (M,) arrays: the same at every distance


def fixed_parts(scenario: Scenario, distances: np.ndarray) -> FixedParts:
    """Steps 1, 2 and 4 of the module docstring without the load: each member's CF requests at the
    distance (propagation, conversion to async, duplexed writes at commit), its synchronous reads and
    log writes (remote PEND, Metro Mirror, the castout owner's IOSQ), and what each path's requests
    hold a subchannel for.

    :param scenario: the scenario.
    :param distances: (D,) m between the sites.
    :returns: :class:`FixedParts`, per member and distance, SI units.
    """
    today.check_reach(scenario, distances)  # a typed link or zHyperLink past its reach: refused
    scenario = at_zero_km(scenario)  # the file's RMF times as at 0 km, where it read them at a distance
    members = scenario.members
    shape = (len(members), distances.size)
    round_trip = round_trips(scenario, distances)

    parts = {
        name: np.zeros(shape)
        for name in (
            "cf_sync",
            "cf_async",
            "commit",
            "sync_io",
            "cpu",
            "spin",
            "fixed_part",
            "converted_rate",
            "device_busy",
        )
    }
    lock_requests = np.zeros(len(members))
    holding: dict[tuple[str, str], np.ndarray] = {}
    counts: dict[tuple[str, str], float] = {}
    for m, member in enumerate(members):
        requests = {}
        for name in member.requests:
            structure = scenario.structures[name]
            path = scenario.path(member.name, structure.cf)
            link = scenario.links[path.link]
            distance = separation(scenario, distances, member.site, scenario.cf_sites[structure.cf])
            secondary = today.duplexed_secondary(scenario, name)
            if secondary is not None and scenario.protocols.duplexing[secondary.name] == "sync":
                distance = today.duplexed_distance(
                    scenario, member, structure, secondary, link["sync"][structure.kind], round_trip
                )
            requests[name] = cf_request(scenario, path.link, structure.kind, distance)
        # of a primary's requests, the page writes its secondary duplexes are made at commit, with it
        duplexed = {
            scenario.structures[name].primary: count
            for name, count in member.requests.items()
            if scenario.structures[name].primary
        }
        for name, count in member.requests.items():
            structure = scenario.structures[name]
            request = requests[name]
            waited = count * member.tpno_share
            key = (member.name, structure.cf)
            busy = (1 - request["converted_fraction"]) * request["sync_service"] + request[
                "converted_fraction"
            ] * request["async_service"]
            holding[key] = holding.get(key, 0.0) + count * busy
            counts[key] = counts.get(key, 0.0) + count
            parts["fixed_part"][m] += waited * request["propagation"]
            secondary = today.duplexed_secondary(scenario, name)
            if secondary is not None and scenario.protocols.duplexing[secondary.name] == "sync":
                mirrored = (member.name, secondary.cf)  # z/OS holds a subchannel to each CF
                holding[mirrored] = holding.get(mirrored, 0.0) + count * busy
                counts[mirrored] = counts.get(mirrored, 0.0) + count
            elif secondary is not None:  # asynchronous: the commit waits, at most, for the last update
                wait = today.async_duplex_wait(scenario, structure, secondary, round_trip)
                parts["commit"][m] += wait
                parts["fixed_part"][m] += wait
            if structure.kind == "cache" and not structure.primary:  # page writes cross-invalidating
                invalidation = today.cross_invalidation(
                    scenario, member, structure, request["sync_service"], round_trip
                )
                parts["commit"][m] += invalidation
                parts["fixed_part"][m] += invalidation
            if structure.kind == "lock":
                lock_requests[m] += waited
            if structure.primary:  # an async write overlapped with its primary's: what it adds counts
                parts["cpu"][m] += waited * scenario.async_cpu
                primary = requests.get(structure.primary)
                primary_write = primary["request_time"] if primary is not None else 0.0
                overlapped = evaluate_si(
                    "gbp_duplexed_write",
                    primary_write=primary_write,
                    secondary_write=request["async_service"],
                )
                parts["commit"][m] += waited * overlapped["duplexed_write"]
                continue
            parts["cpu"][m] += waited * request["cpu_time"]
            parts["spin"][m] += waited * (1 - request["converted_fraction"]) * request["sync_service"]
            parts["converted_rate"][m] += count * request["converted_fraction"]
            fraction = request["converted_fraction"]
            executing = (count - duplexed.get(name, 0.0)) * member.tpno_share
            parts["cf_sync"][m] += executing * (1 - fraction) * request["sync_service"]
            parts["cf_async"][m] += executing * fraction * (request["async_service"] + scenario.redispatch)
        parts["cpu"][m] += member.cpu
        remote = separation(scenario, distances, member.site, scenario.primary_site)
        mirror = np.zeros_like(distances)
        mirror_propagation = np.zeros_like(distances)
        if scenario.metro_mirror:
            mirror = mirror_cost(scenario, distances)
            mirror_propagation = mirror - scenario.pprc_overhead
        read, write = scenario.read, scenario.write
        if scenario.volumes is not None:  # IOSQ is computed from the load, in the fixed point
            read, write = replace(read, iosq=0.0), replace(write, iosq=0.0)
        read_time, read_propagation = io_time(scenario, read, remote)
        write_time, write_propagation = io_time(scenario, write, remote, mirror)
        log_mirror = mirror_propagation
        if scenario.protocols.zhyperwrite:  # to primary and secondary at once: no mirror leg after
            local = io_time(scenario, write, np.zeros_like(distances))[0]
            write_time, write_propagation = today.log_write(scenario, local, round_trip, member.site)
            log_mirror = np.zeros_like(distances)
        read_busy, write_busy = read_time - read_propagation, write_time - write_propagation
        fast_read = today.zhyperlink(scenario, member, True, read_time)
        if fast_read is not None:  # synchronous on a cache hit, the CP spinning; zHPF otherwise
            read_time, spin = fast_read
            parts["cpu"][m] += member.sync_reads * spin
            parts["spin"][m] += member.sync_reads * spin
            read_busy = read_busy * (1 - (scenario.protocols.read_hit or 0.0))
        fast_write = today.zhyperlink(scenario, member, False, write_time)
        if fast_write is not None:
            write_time, spin = fast_write
            write_propagation, log_mirror, write_busy = 0 * distances, 0 * distances, 0 * distances
            parts["cpu"][m] += member.log_writes * spin
            parts["spin"][m] += member.log_writes * spin
        parts["device_busy"][m] += member.sync_reads * read_busy + member.log_writes * write_busy
        parts["sync_io"][m] += member.sync_reads * read_time
        castout = scenario.castout_write if member.name == scenario.castout_owner else None
        if castout is not None:  # its reads queue behind its castout writes
            castout_write = io_time(scenario, castout, remote, mirror)[0]
            parts["sync_io"][m] += member.sync_reads * scenario.castout_iosq * castout_write
        parts["commit"][m] += member.log_writes * write_time
        parts["fixed_part"][m] += member.sync_reads * read_propagation + member.log_writes * (
            write_propagation + log_mirror
        )
    path_requests = [np.asarray(counts.get((p.member, p.cf), 0.0)) for p in scenario.paths]
    path_holding = [
        np.where(
            counts.get((p.member, p.cf), 0.0) > 0,
            holding.get((p.member, p.cf), 0.0) / max(counts.get((p.member, p.cf), 0.0), 1e-300),
            0.0,
        )
        * np.ones_like(distances)
        for p in scenario.paths
    ]
    between_members = np.array([[round_trip(a.site, b.site) for b in members] for a in members])
    local_write = replace(scenario.write, iosq=0.0) if scenario.volumes is not None else scenario.write
    write_service = io_time(scenario, local_write, np.zeros_like(distances), mirror)[0]
    return FixedParts(
        **parts,
        lock_requests=lock_requests,
        path_requests=path_requests,
        path_holding=path_holding,
        round_trip=between_members,
        reads=np.array([m.sync_reads for m in members]),
        writes=np.array([m.log_writes for m in members]),
        write_service=write_service,
    )


def _aliases(count: int) -> str:
    """A count of PAV aliases in words: "1 alias", "0 aliases"."""
    return f"{count} {'alias' if count == 1 else 'aliases'}"


def volume_load(
    scenario: Scenario, part: FixedParts, throughput: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(SSCH rate per volume (D,) 1/s, device service time per SSCH (D,) s) at throughput X (M, D): the
    members' synchronous reads and log writes and the other work on the same volumes
    (``background_rate``, served like a write) spread over ``volumes``."""
    ssch = (throughput * part.ssch).sum(axis=0) + scenario.disk_background
    busy = (throughput * part.device_busy).sum(axis=0) + scenario.disk_background * part.write_service
    service = np.divide(busy, ssch, out=np.zeros_like(busy), where=ssch > 0)
    return ssch / scenario.volumes, service


def volume_iosq(scenario: Scenario, part: FixedParts, throughput: np.ndarray) -> np.ndarray:
    """IOSQ per SSCH (D,) s at throughput X (M, D) transactions/s; inf where the volumes cannot carry
    the load: each volume an M/M/c with 1 + aliases exposures (``pav_iosq``) at its
    :func:`volume_load`. Zero where the scenario gives IOSQ itself.
    """
    if scenario.volumes is None:
        return np.zeros(throughput.shape[1:])
    rate, service = volume_load(scenario, part, throughput)
    saturated = rate * service >= 1 + scenario.aliases
    wait = compute_si(
        "pav_iosq",
        ssch_rate=np.where(saturated, 0.0, rate),
        service_time=np.where(service > 0, service, 1.0),
        aliases=scenario.aliases,
    )
    return np.where(saturated, np.inf, wait["iosq"])


_BALANCE_STEPS = 64  # at most: the regula falsi below ends in about 10 (bench/scenario_speed.py)
_BALANCE_TOLERANCE = 1e-13  # relative, on IOSQ: far below the fixed point's 1e-9 on the response time


def disk_queue(
    scenario: Scenario, part: FixedParts, work: Workload, rest: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """IOSQ per SSCH w (D,) s in balance with the throughput it leaves, and where the volumes are
    saturated by their other work alone (D,: no w exists; 0 is given there, for the caller to flag),
    given each member's response time without IOSQ ``rest``.

    The terminals' throughput falls as the queue grows, X = N / (Z + rest + n w) with n the member's
    SSCHs per transaction, so g(w) = w − IOSQ(X(w)) (:func:`volume_iosq`) has one root: w grows, IOSQ(X(w))
    falls towards the IOSQ of the other work alone. The bracket [0, high] is doubled until g(high) > 0,
    then narrowed by regula falsi with the Illinois step (halving the weight of an end kept twice),
    bisecting where g is still −inf (the volumes saturated at that w). So a load the volumes could not
    carry at the response time ``rest`` slows the transactions down to what they can carry instead of
    having no answer.
    """
    columns = rest.shape[-1]
    if scenario.volumes is None:  # IOSQ as the scenario gives it
        return np.zeros(columns), np.zeros(columns, dtype=bool)

    def excess(wait: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return wait - volume_iosq(scenario, part, work.throughput(rest + part.ssch * wait))

    alone = volume_iosq(scenario, part, np.where(work.open, work.rate, 0.0))  # the work that does not slow
    saturated = ~np.isfinite(alone)
    low, high = np.zeros(columns), np.where(saturated, 1.0, np.maximum(2 * alone, 1e-6))
    low_excess, high_excess = excess(low), excess(high)
    for _ in range(_BALANCE_STEPS):  # widen until the root lies in [low, high]
        short = ~saturated & (high_excess <= 0)
        if not short.any():
            break
        low, low_excess = np.where(short, high, low), np.where(short, high_excess, low_excess)
        high = np.where(short, 2 * high, high)
        high_excess = np.where(short, excess(high), high_excess)
    kept = np.zeros(columns)  # +1: the low end was kept last, −1: the high end
    for _ in range(_BALANCE_STEPS):
        finite = np.isfinite(low_excess)
        with np.errstate(invalid="ignore", divide="ignore"):
            falsi = (low * high_excess - high * low_excess) / (high_excess - low_excess)
        inside = finite & (falsi > low) & (falsi < high)
        middle = np.where(inside, falsi, (low + high) / 2)
        middle_excess = excess(middle)
        below = middle_excess <= 0
        high_excess = np.where(below & (kept < 0), high_excess / 2, high_excess)  # Illinois
        low_excess = np.where(~below & (kept > 0), low_excess / 2, low_excess)
        low, low_excess = np.where(below, middle, low), np.where(below, middle_excess, low_excess)
        high, high_excess = np.where(below, high, middle), np.where(below, high_excess, middle_excess)
        kept = np.where(below, -1.0, 1.0)
        done = (
            saturated
            | (high - low <= _BALANCE_TOLERANCE * high)
            | (np.abs(middle_excess) <= _BALANCE_TOLERANCE * middle)
        )
        if done.all():
            break
    return np.where(saturated, 0.0, middle), saturated


def subchannel_queue(
    scenario: Scenario, fixed: FixedParts, throughput: np.ndarray
) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Subchannel wait per transaction (M, D), and per path the delayed fraction and the requests per
    second carried (RMF SUBCHANNEL ACTIVITY, AVG/SEC), at throughput X (M, D).

    Every path of a closed member is one finite-source pool (its member's terminals as the sources);
    all such paths are solved in one call, a row each. A path of an open member is an M/M/c queue
    (``erlang_c``): P(wait) = C(c, a), mean number waiting C(c, a) · a / (c − a), a the erlangs
    offered; where a ≥ c no queue length exists, and the last array returned (paths, D) says so.
    """
    index = {m.name: i for i, m in enumerate(scenario.members)}
    rows = [index[path.member] for path in scenario.paths]
    holding = np.array(fixed.path_holding)  # (paths, D) s per request
    requests = np.array([np.broadcast_to(r, holding.shape[1:]) for r in fixed.path_requests])
    background = np.array([path.background_rate for path in scenario.paths])[:, None]
    subchannels = np.array([path.subchannels for path in scenario.paths], float)[:, None]
    sources = np.array([scenario.members[m].terminals for m in rows], float)[:, None]
    opened = np.array([scenario.members[m].open for m in rows])[:, None]
    offered = (throughput[rows] * requests + background) * holding  # erlangs offered
    saturated = opened & (offered >= subchannels)
    probability, waiting, utilization = (np.zeros_like(offered) for _ in range(3))
    closed = ~opened[:, 0]
    if closed.any():  # a closed member's paths: its terminals the sources
        pools = sources[closed]
        probability[closed], waiting[closed], utilization[closed] = finite_source_queue(
            subchannels[closed], pools, offered[closed] / pools
        )
    if opened.any():  # an open member's paths: M/M/c, at the load it offers (none where saturated)
        servers, load = subchannels[~closed], np.where(saturated[~closed], 0.0, offered[~closed])
        probability[~closed] = erlang_c(servers, load)
        waiting[~closed] = probability[~closed] * load / (servers - load)
        utilization[~closed] = load / servers
    carried = utilization * subchannels / np.where(holding > 0, holding, 1.0)  # requests per second
    per_request = np.divide(waiting, carried, out=np.zeros_like(waiting), where=carried > 0)
    share = np.array([scenario.members[m].tpno_share for m in rows])[:, None]
    wait = np.zeros_like(throughput)
    np.add.at(wait, rows, requests * share * per_request)
    return wait, list(np.where(holding > 0, probability, 0.0)), list(carried), saturated


def cpu_residence(
    scenario: Scenario, demand: np.ndarray, spin: np.ndarray, throughput: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The CPU part of the response time per transaction (M, D), and where the CPs are saturated.

    The member's CPs are an M/M/c station (``mmc_waiting_time``, called on inputs checked here: a
    saturated member is flagged and computed at no load) whose service is the whole CPU ``demand``,
    the ``spin`` of synchronous CF requests included (it holds the CP); the transaction's time at
    the CPU is that demand and its wait, less the spin, which its CF requests' time already counts
    (``cf_sync``, ``commit``): a synchronous request is waited for once."""
    cps = np.array([m.logical_cps for m in scenario.members], float)[:, None]
    load = throughput * demand
    saturated = load >= cps
    wait = compute_si(
        "mmc_waiting_time", servers=cps, offered_load=np.where(saturated, 0.0, load), service_time=demand
    )
    return demand - spin + next(iter(wait.values())), saturated


def solve_scenario(
    scenario: Scenario,
    distances: np.ndarray | None = None,
    fixed: FixedParts | None = None,
    *,
    search: bool = True,
) -> ScenarioResult:
    """Every member's response time, breakdown, goal share, throughput and CPU at each distance (m).

    ``distances`` default to the scenario's own. See the module docstring for the steps.

    :param scenario: the scenario (:func:`load_scenario`).
    :param distances: the distances between the sites, m; None: the file's own.
    :param fixed: the load-free parts at ``distances`` where the caller has them (a band's points that
        share them: :func:`load_free_groups`), their paths already held to carrying their other work
        (:func:`refuse_uncarried_background`); None: computed and checked here.
    :param search: search the load where lock contention begins at the distances that thrash (and its
        waits' shares there: the remedies); without it, for a caller that reads neither (a picture, a
        band's points), a distance still moving after the fixed point's iterations counts as thrashing.
    :returns: the answer per member and distance, SI units (:class:`ScenarioResult`; its records in ms,
        1/s and %, keys naming them).
    :raises InputError: a solve too large to compute (with its estimate), or volumes that cannot carry
        their other work.
    """
    distances = np.atleast_1d(np.asarray(scenario.distances if distances is None else distances, float))
    _refuse_unsolvable(scenario, distances, search)
    if fixed is None:
        refuse_uncarried_background(scenario)
    return solve_at(scenario, distances, 1.0, with_thrashing_load=search, checked=True, fixed=fixed)


def _refuse_unsolvable(scenario: Scenario, distances: np.ndarray, search: bool = True) -> None:
    """:func:`solve_scenario`'s checks before any work: the distances, the solve's size and, with
    ``search``, the search of the load where lock contention begins at the distances that thrash,
    estimated."""
    if distances.size == 0 or distances.ndim != 1 or not (np.isfinite(distances) & (distances >= 0)).all():
        raise InputError("distances", distances.tolist(), "one or more finite distances >= 0, in m")
    refuse_huge(scenario, distances.size)  # this solve's one size check, before any work
    refuse_scenario_work(
        len(scenario.members),
        1,
        0,
        f"{len(scenario.members):,} members",
        "fewer members: members that run alike as one, with their terminals together",
    )
    if not search:
        return
    search_evaluations = LOAD_STEPS * LOAD_EVALUATIONS
    if distances.size > 1 and solve_cost(scenario, distances.size, search_evaluations)[1] > TIME_LIMIT:
        count, onset = thrashing_onset(scenario, distances)  # before the work: the search would be long
        if count:
            refuse_huge(  # the search at the thrashing distances and the solve at every one, together
                scenario,
                count,
                search_evaluations + EVALUATIONS * distances.size / count,
                f"the load at which lock contention begins, searched at {count:,} thrashing distance(s)",
                f"fewer terminals per member, or fewer distances from {onset / 1e3:.1f} km on (they thrash)",
            )


def refuse_uncarried_background(scenario: Scenario, at_zero: FixedParts | None = None) -> None:
    """Refuse a path whose background_rate alone is more than its subchannels carry at 0 km
    (:func:`qmodel.scenario.spec.check_path_capacity` with this scenario's holding times): every solve
    of a scenario, the answer's and each band point's, is held to it. ``at_zero``: the scenario's
    load-free parts at 0 km where the caller has them (``fixed_parts(...).at(...)``), not computed again."""
    check_path_capacity(
        scenario, (fixed_parts(scenario, np.zeros(1)) if at_zero is None else at_zero).path_holding
    )


# A measured lock wait no hot set gives: at least this many times the members' response time without lock
# contention where it was measured. The lock model's wait grows with the time locks are held, and so does
# the chance of a conflict: R = R0 + b·R², whose fixed point exists only while b·R² <= R0 (at its edge the
# wait is R0, and past it the model thrashes). 3 leaves room for the model's other terms: on three planners'
# files (trial 4) the largest wait reached before thrashing was 0.3 to 1.2 times R0.
LOCK_WAIT_BOUND = 3.0


def refuse_overloaded_today(scenario: Scenario) -> None:
    """Refuse, before lockable_items is inferred from ``[locks] measured_wait`` (each with the file's name,
    the member or key, the value and what is allowed), what no hot set can give, at the distance the wait
    was measured at, so that the refusal names its cause and not the lock wait:

    - an open member whose arrivals alone saturate its CPs: arrival_rate × CPU demand per transaction
      (cpu, with the CP spin of its synchronous CF requests and I/O) at least logical_cps;
    - a path of an open member whose requests alone saturate its subchannels: (arrival_rate × requests
      + background_rate) × holding time at least subchannels;
    - volumes (``[disk] volumes``) the open members' I/O and the other work alone saturate (M/M/c with
      1 + aliases exposures);
    - a closed member whose CPs its terminals saturate without lock contention (the throughput they give
      at the response time without it, times the CPU demand, at least logical_cps: trial 7, N1, a cpu of
      9 s typed for 9 ms);
    - a measured wait at least :data:`LOCK_WAIT_BOUND` times the members' response time without lock
      contention (one solve): more than the lock model reaches before it thrashes.

    Scenarios without a measured wait are not checked here."""
    measured = scenario.lock_measurement
    if measured is None:
        return
    distance = np.array([measured.distance])
    fixed = fixed_parts(scenario, distance)
    rates = np.array([m.arrival_rate if m.open else 0.0 for m in scenario.members])[:, None]
    for m, member in enumerate(scenario.members):
        needed = rates[m, 0] * float(fixed.cpu[m, 0])
        if needed >= member.logical_cps:
            raise ScenarioError(
                scenario.where,
                f"member {member.name}.cpu",
                f"{significant(member.cpu * 1e3)} ms",
                "cpu × arrival_rate below logical_cps: below "
                f"{significant(member.logical_cps / rates[m, 0] * 1e3)} "
                f"ms a transaction at {rates[m, 0]:g}/s on {member.logical_cps} CPs (with its CF and I/O "
                f"spin, {significant((float(fixed.cpu[m, 0]) - member.cpu) * 1e3, 3)} ms)",
                reason=f"{rates[m, 0]:g}/s × {significant(float(fixed.cpu[m, 0]) * 1e3)} ms needs "
                f"{significant(needed)} CPs of "
                f"its {member.logical_cps}: the load alone saturates them, before any lock contention",
            )
    index = {m.name: i for i, m in enumerate(scenario.members)}
    for path, requests, holding in zip(scenario.paths, fixed.path_requests, fixed.path_holding, strict=True):
        rate = rates[index[path.member], 0]
        offered = (rate * float(np.ravel(requests)[0]) + path.background_rate) * float(np.ravel(holding)[0])
        if rate > 0 and offered >= path.subchannels:
            raise ScenarioError(
                scenario.where,
                f"path {path.member}→{path.cf}.subchannels",
                path.subchannels,
                f"more than {significant(offered)} subchannels, or fewer requests",
                reason=f"its requests at arrival_rate {rate:g}/s hold {significant(offered)} subchannels "
                "busy: the load alone saturates them, before any lock contention",
            )
    if scenario.volumes is not None:
        per_volume, service = volume_load(scenario, fixed, rates * np.ones_like(distance))
        busy = float(per_volume[0] * service[0])
        exposures = 1 + scenario.aliases
        if busy >= exposures:
            # the least whole counts that carry it (trial 9, Q11): volumes V with busy·V₀/V below 1 + aliases,
            # or aliases A with busy below 1 + A at the file's volumes
            devices = busy * scenario.volumes
            volumes, aliases = math.floor(devices / exposures) + 1, math.floor(busy)
            raise ScenarioError(
                scenario.where,
                "disk.volumes",
                scenario.volumes,
                f"at least {volumes} volumes at its {_aliases(scenario.aliases)}, or at least "
                f"{_aliases(aliases)} at its {scenario.volumes} volume{'' if scenario.volumes == 1 else 's'}",
                reason=f"the open members' I/O and the other work keep {significant(devices)} devices busy, "
                f"{significant(busy)} on each volume's {exposures} "
                f"{'exposure' if exposures == 1 else 'exposures'}: the load alone saturates them, before any "
                "lock contention",
            )
    unlocked = replace(scenario, lockable_items=np.inf)
    _, _, solved = _solved(unlocked, distance, 1.0, 2000, None, fixed, False, settle=False)
    for k in np.flatnonzero(solved.loaded.cpu_saturated[:, 0]):  # a closed member's terminals (N1)
        member, cpu = scenario.members[k], float(fixed.cpu[k, 0])
        rate = float(solved.loaded.throughput[k, 0])
        raise ScenarioError(
            scenario.where,
            f"member {member.name}.cpu",
            f"{significant(member.cpu * 1e3)} ms",
            f"a CPU demand its CPs carry at the throughput its terminals give: at most "
            f"{significant(member.logical_cps / cpu)}/s on {member.logical_cps} CPs at "
            f"{significant(cpu * 1e3)} ms a transaction (with its CF and I/O spin), against "
            f"{significant(member.terminals)} terminals at think_time {significant(member.think_time)} s",
            reason=f"{significant(rate)}/s × {significant(cpu * 1e3)} ms needs "
            f"{significant(rate * cpu)} CPs of its {member.logical_cps}: the load alone saturates them, "
            "before any lock contention (a cpu or think_time in the wrong unit?)",
        )
    free = solve_at(unlocked, distance, fixed=fixed)
    lock_free = float(free.total_response_time[0])
    if np.isfinite(lock_free) and measured.wait >= LOCK_WAIT_BOUND * lock_free:
        raise ScenarioError(
            scenario.where,
            "locks.measured_wait",
            f"{significant(measured.wait * 1e3)} ms",
            f"below {significant(LOCK_WAIT_BOUND * lock_free * 1e3)} ms, {LOCK_WAIT_BOUND:g} × the members' "
            f"response time without lock contention at {measured.distance / 1e3:g} km "
            f"({significant(lock_free * 1e3)} ms): a DB2 class 3 lock/latch and global contention "
            "suspension per transaction, in its unit",
            reason="more than the lock model reaches before it thrashes, about that response time",
        )


@dataclass(frozen=True)
class Workload:
    """The members' transactions at one load, per member (rows) and distance (columns): a closed member
    a population of ``terminals`` with a think time, whose throughput the response-time law gives; an
    open one (``open``) a transaction rate, whatever its response time.

    ``terminals`` (M, D) the population (the file's terminals times the load searched; 0 for an open
    member), ``think`` (M, D) s, ``other`` (M, D) s of response time no step explains, ``rate`` (M, D)
    1/s an open member's arrivals times the load (0 for a closed one), ``open`` (M, 1) bool. A column
    may be another scenario's than its neighbour's (:func:`response_times_together`: points of a band
    side by side), so each column carries its own think times and others."""

    terminals: np.ndarray
    think: np.ndarray
    other: np.ndarray
    rate: np.ndarray
    open: np.ndarray

    def at(self, columns: np.ndarray | slice) -> Workload:
        """The same at some distances only."""
        return Workload(
            self.terminals[:, columns],
            self.think[:, columns],
            self.other[:, columns],
            self.rate[:, columns],
            self.open,
        )

    def throughput(self, response_time: np.ndarray) -> np.ndarray:
        """Transactions per second (M, D) at ``response_time`` (M, D) s: X = N / (Z + R) for a closed
        member, its rate for an open one."""
        return np.where(self.open, self.rate, self.terminals / (self.think + response_time))

    @property
    def ceiling(self) -> np.ndarray:
        """(D,) s: a response time no fixed point of this workload lies above at each distance: 1,000 of
        its longest think time (1,000 s where no member has one)."""
        return 1e3 * np.maximum(self.think.max(axis=0, initial=0.0), 1.0)


def workload(scenario: Scenario, distances: np.ndarray, load: np.ndarray | float = 1.0) -> Workload:
    """The members' :class:`Workload` at ``distances`` (m) with every terminal population scaled by
    ``load`` (a number, or one per distance)."""
    members = scenario.members
    scaled = np.broadcast_to(load, distances.shape)
    terminals = np.array([m.terminals for m in members], float)[:, None]
    terminals = terminals * scaled
    think = np.array([m.think_time for m in members])[:, None] * np.ones_like(distances)
    other = np.array([m.other for m in members])[:, None] * np.ones_like(distances)
    rate = np.array([m.arrival_rate or 0.0 for m in members])[:, None] * scaled
    return Workload(terminals, think, other, rate, np.array([m.open for m in members])[:, None])


class Locks(NamedTuple):
    """The lock model's parameters (:func:`qmodel.studies.locks.lock_wait`), each a number or one per
    distance (D,): the hot set (inf: no lock contention), the round trips of a contention's resolution
    and the share of the execution locks are held over."""

    lockable_items: float | np.ndarray
    resolution_round_trips: float | np.ndarray
    lock_span: float | np.ndarray

    def at(self, columns: np.ndarray | slice) -> Locks:
        """The same at some distances only."""
        return Locks(*(value[columns] if isinstance(value, np.ndarray) else value for value in self))

    def without_contention(self) -> Locks:
        """The same with no lock contention (an infinite hot set)."""
        return self._replace(lockable_items=np.inf)


def locks_of(scenario: Scenario) -> Locks:
    """The scenario's :class:`Locks`, the same at every distance."""
    return Locks(scenario.lockable_items, scenario.resolution_round_trips, scenario.lock_span)


# What the load-free parts (fixed_parts) do not read: the lock parameters (the lock wait reads them, in
# the fixed point), a member's workload and unexplained time (the workload reads them) and what a file
# says about itself. Two scenarios differing in these alone have the same load-free parts (a test holds
# them unread), so a band's points or a fit's trials that vary only these compute them once.
LOAD_ONLY_FIELDS = frozenset(Locks._fields) | {"band", "calibration", "free", "defaults", "shape"}
SOLVED_MEMBER_FIELDS = ("other", "think_time")  # a member's load-only values the lock fixed point reads
LOAD_ONLY_MEMBER_FIELDS = (*SOLVED_MEMBER_FIELDS, "shape")  # the shape: read by the share within the goal


def load_only_values(scenario: Scenario) -> tuple[object, ...]:
    """What of :data:`LOAD_ONLY_FIELDS` and each member's :data:`LOAD_ONLY_MEMBER_FIELDS` a solve reads:
    the lock parameters, the gamma shapes, and each member's other and think time. Two scenarios that
    share their load-free parts (:func:`same_load_free`) and these values are solved alike."""
    members = (getattr(m, name) for m in scenario.members for name in LOAD_ONLY_MEMBER_FIELDS)
    return (*locks_of(scenario), scenario.shape, *members)


def solved_values(scenario: Scenario) -> tuple[float, ...]:
    """What of :func:`load_only_values` the lock fixed point reads (not the shapes, which only the share
    within the goal reads): two scenarios that share their load-free parts and these values have the same
    response times (:func:`response_times_together` solves them once)."""
    members = (getattr(m, name) for m in scenario.members for name in SOLVED_MEMBER_FIELDS)
    return (*locks_of(scenario), *members)


def same_load_free(one: Scenario, other: Scenario) -> bool:
    """True where ``one`` and ``other`` differ at most in :data:`LOAD_ONLY_FIELDS` and each member's
    :data:`LOAD_ONLY_MEMBER_FIELDS`, so :func:`fixed_parts` gives both the same parts at any distances."""
    if one is other:
        return True
    if len(one.members) != len(other.members):
        return False
    for field in fields(one):
        if field.name in LOAD_ONLY_FIELDS or field.name == "members":
            continue
        mine, theirs = getattr(one, field.name), getattr(other, field.name)
        if isinstance(mine, np.ndarray) or isinstance(theirs, np.ndarray):
            if not np.array_equal(mine, theirs):
                return False
        elif mine != theirs:
            return False
    return all(
        replace(mine, **{name: getattr(theirs, name) for name in LOAD_ONLY_MEMBER_FIELDS}) == theirs
        for mine, theirs in zip(one.members, other.members, strict=True)
    )


@dataclass(frozen=True)
class Loaded:
    """The parts of the response time that depend on the load, at a trial response time R' (M, D) s
    without IOSQ: the step the lock fixed point iterates (:func:`loaded_parts`). SI units, (M, D)
    unless noted.

    ``response`` is F(R'): every part and the lock wait, without IOSQ (the fixed point's next trial)."""

    throughput: np.ndarray  # 1/s, at R' with its IOSQ
    cpu: np.ndarray  # s: CPU demand less the spin, and its wait for the CPs
    cpu_saturated: np.ndarray  # bool: the CPs cannot carry the load
    subchannel_wait: np.ndarray  # s per transaction
    delayed: list[np.ndarray]  # per path (D,): share of its requests delayed for a subchannel
    path_rate: list[np.ndarray]  # per path (D,): CF requests per second carried
    lock_wait: np.ndarray  # s per transaction
    read_queue: np.ndarray  # s per transaction of IOSQ on synchronous reads
    write_queue: np.ndarray  # s per transaction of IOSQ on log writes
    iosq: np.ndarray  # (D,) s of IOSQ per SSCH
    volumes_saturated: np.ndarray  # (D,) bool: the volumes' other work alone saturates them
    response: np.ndarray  # s: F(R')
    # (D,) bool: a member's load is more than its CPs carry (an open member's arrivals, or a closed
    # member's terminals at the throughput the solve reaches) or an open member's more than a path's
    # subchannels (the other work on a path counted) at the distance: no response time exists there
    open_saturated: np.ndarray

    def at(self, columns: slice) -> Loaded:
        """The same at some distances only (the last axis of every array; each path's)."""
        picked: dict[str, Any] = {
            field.name: [path[..., columns] for path in value]
            if isinstance(value, list)
            else value[..., columns]
            for field, value in ((field, getattr(self, field.name)) for field in fields(self))
        }
        return Loaded(**picked)


def loaded_parts(
    scenario: Scenario,
    fixed: FixedParts,
    work: Workload,
    current: np.ndarray,
    locks: Locks | None = None,
) -> Loaded:
    """Every load-dependent part at the trial response time ``current`` (M, D) s without IOSQ, at the
    distances of ``fixed`` and ``work`` (the same columns): the disk queue in balance with the
    throughput it leaves (:func:`disk_queue`), the CPU's M/M/c wait (:func:`cpu_residence`), the
    subchannels' finite-source queue (:func:`subchannel_queue`) and the lock wait
    (:func:`qmodel.studies.locks.lock_wait`, with ``locks``, the scenario's by default).

    :param scenario: the scenario.
    :param fixed: its load-free parts at these distances (:func:`fixed_parts`).
    :param work: its workload at these distances (:func:`workload`).
    :param current: R', the response time without IOSQ, s (M, D).
    :param locks: the lock model's parameters at these distances (:class:`Locks`); None: the scenario's.
    :returns: :class:`Loaded`, ``response`` the fixed point's next trial F(R').
    """
    locks = locks_of(scenario) if locks is None else locks
    iosq, volumes_saturated = disk_queue(scenario, fixed, work, current)
    read_queue = fixed.reads[:, None] * iosq
    write_queue = fixed.writes[:, None] * iosq
    throughput = work.throughput(current + read_queue + write_queue)
    cpu, saturated = cpu_residence(scenario, fixed.cpu, fixed.spin, throughput)
    subchannel_wait, delayed, path_rate, paths_saturated = subchannel_queue(scenario, fixed, throughput)
    # a closed member's CPs saturated too: its CPU queue (M/M/c at the throughput its terminals give) has
    # no wait there, and a wait of 0 made a bogus fixed point (trial 7, N1: cpu 9s, CPU busy 8,981%)
    open_saturated = np.asarray(saturated.any(axis=0) | paths_saturated.any(axis=0))
    waited = lock_wait(
        fixed.lock_requests,
        throughput,
        current + read_queue + write_queue,
        fixed.commit + write_queue,
        locks.lockable_items,
        locks.resolution_round_trips,
        fixed.round_trip,
        locks.lock_span,
        queued=subchannel_wait,
    )
    response = (
        cpu
        + fixed.cf_sync
        + fixed.cf_async
        + subchannel_wait
        + fixed.sync_io
        + fixed.commit
        + work.other
        + waited
    )
    return Loaded(
        throughput,
        cpu,
        saturated,
        subchannel_wait,
        delayed,
        path_rate,
        waited,
        read_queue,
        write_queue,
        iosq,
        volumes_saturated,
        response,
        open_saturated,
    )


@dataclass(frozen=True)
class Equilibrium:
    """The lock fixed point R' = F(R') at each distance (:func:`equilibrium`).

    ``thrashing`` (D,): no response time exists there (no fixed point, or the volumes saturated by their
    other work alone); ``rest`` (M, D) s the fixed point without IOSQ (the start where thrashing);
    ``loaded`` the load-dependent parts there."""

    rest: np.ndarray
    thrashing: np.ndarray
    loaded: Loaded

    def at(self, columns: slice) -> Equilibrium:
        """The same at some distances only."""
        return Equilibrium(self.rest[:, columns], self.thrashing[columns], self.loaded.at(columns))

    @property
    def response_time(self) -> np.ndarray:
        """(M, D) s: each member's response time, IOSQ included; NaN where thrashing."""
        loaded = self.loaded
        return np.where(self.thrashing[None, :], np.nan, self.rest + loaded.read_queue + loaded.write_queue)


def equilibrium(
    scenario: Scenario,
    fixed: FixedParts,
    work: Workload,
    *,
    max_iterations: int = 2000,
    below: np.ndarray | None = None,
    settle: bool = False,
    locks: Locks | None = None,
    ceiling: np.ndarray | None = None,
) -> Equilibrium:
    """Solve R' = F(R') (:func:`loaded_parts`) at every distance of ``fixed`` and ``work``, each distance
    on its own (:func:`qmodel.algorithms.fixed_point.iterate`), from the response time without any
    queue or lock wait (below the fixed point).

    :param below: response times (M, 1) s known to lie below the answer (at a shorter distance): the
        start is raised to them, less their IOSQ here.
    :param settle: every distance must be decided (ConvergenceError otherwise); without it a distance
        still moving after ``max_iterations`` counts as thrashing.
    :param ceiling: (M, D) s, response times past which a distance's iteration stops and counts as having
        no fixed point (as past the workload's own ceiling), for a caller that needs to know only whether
        the answer passes them (the iteration climbs from below: a value past them, the answer is too).
    :returns: :class:`Equilibrium`.
    """

    locks = locks_of(scenario) if locks is None else locks

    def step(
        current: np.ndarray, columns: np.ndarray | slice = slice(None), contention: bool = True
    ) -> np.ndarray:
        at = locks.at(columns)
        at = at if contention else at.without_contention()
        return loaded_parts(scenario, fixed.at(columns), work.at(columns), current, at).response

    start = (
        fixed.cpu - fixed.spin + fixed.cf_sync + fixed.cf_async + fixed.sync_io + fixed.commit + work.other
    )
    if below is not None:  # less the IOSQ at its throughput here (no less than at the shorter distance)
        queued = fixed.ssch * volume_iosq(scenario, fixed, work.throughput(below))
        start = np.maximum(start, below - queued)
    bound = work.ceiling if ceiling is None else np.minimum(work.ceiling, ceiling)
    solution = iterate(step, start, ceiling=bound, max_iterations=max_iterations, independent_columns=True)
    if np.isfinite(locks.lockable_items).any():
        solution = _again_from_without_locks(step, solution, start, bound, max_iterations)
    if settle:
        solution = solution.settled()
    thrashing = np.asarray(~solution.converged.all(axis=0))  # while bisecting the load, undecided: none
    rest = np.where(thrashing[None, :], start, solution.value)
    loaded = loaded_parts(scenario, fixed, work, rest, locks)
    # saturated volumes, or a member's load beyond its CPs or subchannels: no steady state
    return Equilibrium(rest, thrashing | loaded.volumes_saturated | loaded.open_saturated, loaded)


def _again_from_without_locks(
    step: Callable[..., np.ndarray],
    solution: FixedPoint,
    start: np.ndarray,
    ceiling: np.ndarray,
    max_iterations: int,
) -> FixedPoint:
    """``solution`` with its distances that found no fixed point solved again, from the fixed point
    without lock contention (``step`` with no lock contention), which lies below the one with it.

    From the bare ``start`` a member whose subchannels are near saturation gets, at its first step,
    the subchannel queue of a throughput it cannot reach, and locks counted as held over the
    execution that queue leaves (the lock wait takes the execution net of the queue:
    :func:`qmodel.studies.locks.holding`) can run away from a fixed point that exists. Only those
    distances pay for the second solve."""
    failed = np.flatnonzero(~solution.converged.all(axis=0))
    if failed.size == 0:
        return solution

    def on_failed(current: np.ndarray, columns: np.ndarray | slice = slice(None)) -> np.ndarray:
        return step(current, failed[columns])

    def without_locks(current: np.ndarray, columns: np.ndarray | slice = slice(None)) -> np.ndarray:
        return step(current, failed[columns], False)

    bare = iterate(
        without_locks,
        start[:, failed],
        ceiling=ceiling[..., failed],
        max_iterations=max_iterations,
        independent_columns=True,
    )
    below = start[:, failed]
    again = iterate(
        on_failed,
        np.where(bare.converged, np.maximum(bare.value, below), below),
        ceiling=ceiling[..., failed],
        max_iterations=max_iterations,
        independent_columns=True,
    )
    value, converged, diverged = solution.value.copy(), solution.converged.copy(), solution.diverged.copy()
    value[:, failed], converged[:, failed], diverged[:, failed] = again.value, again.converged, again.diverged
    return FixedPoint(value, converged, diverged, solution.iterations + again.iterations)


def shares_within_goal(scenario: Scenario, fixed: FixedParts, response_time: np.ndarray) -> np.ndarray:
    """(M, D) each member's share of transactions within the goal time, NaN where ``response_time``
    (M, D) s is: the propagation every transaction pays as a deterministic shift, the rest (queues too)
    a gamma variable of the member's shape (catalogue ``share_within_goal``)."""
    share = np.full(response_time.shape, np.nan)
    stable = ~np.isnan(response_time).any(axis=0)
    if stable.any():
        fixed_part = np.minimum(fixed.fixed_part, response_time * (1 - 1e-9))
        shapes = scenario.member_shapes[:, None]
        share[:, stable] = evaluate_si(
            "share_within_goal",
            goal=scenario.goal_time,
            mean_response=response_time[:, stable],
            fixed_part=fixed_part[:, stable],
            shape=np.broadcast_to(shapes, response_time.shape)[:, stable],
        )["share"]
    return share


def solve_at(
    scenario: Scenario,
    distances: np.ndarray,
    load: np.ndarray | float = 1.0,
    *,
    with_thrashing_load: bool = False,
    max_iterations: int = 2000,
    below: np.ndarray | None = None,
    fixed: FixedParts | None = None,
    checked: bool = False,
    ceiling: np.ndarray | None = None,
) -> ScenarioResult:
    """The scenario at ``distances`` (m) with every member's terminal population scaled by ``load`` (a
    number, or one per distance): the steps :func:`fixed_parts` → :func:`workload` →
    :func:`equilibrium` → :func:`shares_within_goal`, gathered into a :class:`ScenarioResult`.

    :param with_thrashing_load: where lock contention thrashes, search the load at which it begins
        (:func:`thrashing_load`), and require every distance decided; without it, a distance still
        moving after ``max_iterations`` counts as thrashing.
    :param max_iterations: of the fixed point.
    :param below: response times (M, 1) s known to lie below the answer (those at a shorter distance):
        the fixed point starts nearer its end.
    :param fixed: the load-free parts at ``distances`` where the caller has them
        (``fixed_parts(...).at(columns)``), not computed again.
    :param checked: the caller has run :func:`refuse_huge` for these distances or a set holding them
        (:func:`solve_scenario` and the thrashing searches it starts); otherwise it is run here.
    :param ceiling: (M, D) s, response times past which a distance counts as thrashing, unsolved
        (:func:`equilibrium`): for a caller that needs only whether the answer passes them.
    :returns: the :class:`ScenarioResult` (SI units).
    """
    fixed, work, solved = _solved(
        scenario,
        distances,
        load,
        max_iterations,
        below,
        fixed,
        checked,
        settle=with_thrashing_load,
        ceiling=ceiling,
    )
    return _gathered(scenario, distances, fixed, work, solved, with_thrashing_load)


def _gathered(
    scenario: Scenario,
    distances: np.ndarray,
    fixed: FixedParts,
    work: Workload,
    solved: Equilibrium,
    with_thrashing_load: bool,
) -> ScenarioResult:
    """:func:`solve_at`'s answer from its parts at ``distances``: the load-free parts, the workload and
    the lock fixed point; the load where lock contention begins searched at the distances that thrash
    where ``with_thrashing_load``."""
    thrashing, loaded = solved.thrashing, solved.loaded
    blank = thrashing[None, :]
    breakdown = {
        "cpu": loaded.cpu,
        "cf_sync": fixed.cf_sync,
        "cf_async": fixed.cf_async,
        "subchannel_wait": loaded.subchannel_wait,
        "sync_io": fixed.sync_io + loaded.read_queue,
        "commit": fixed.commit + loaded.write_queue,
        "lock_contention": loaded.lock_wait,
        "other": work.other,
    }
    assert tuple(breakdown) == BREAKDOWN
    breakdown = {name: np.where(blank, np.nan, value) for name, value in breakdown.items()}
    response_time = solved.response_time
    throughput = np.where(blank, np.nan, loaded.throughput)
    thrashing_at = np.full(distances.shape, np.nan)
    edge_share = {name: np.full(response_time.shape, np.nan) for name in EDGE_WAITS}
    # no load searched helps saturated volumes; an open member's saturation is its own (not searched)
    locked = thrashing & ~loaded.volumes_saturated & ~loaded.open_saturated
    if with_thrashing_load and locked.any():
        thrashing_at[locked], at_edge = thrashing_load(scenario, distances[locked])
        for name, value in at_edge.items():
            edge_share[name][:, locked] = value
    io_queue = volume_busy = None
    if scenario.volumes is not None:
        io_queue = np.where(thrashing, np.nan, loaded.iosq)
        rate, service = volume_load(scenario, fixed, throughput)
        volume_busy = np.where(thrashing, np.nan, rate * service / (1 + scenario.aliases))
    cps = np.array([m.logical_cps for m in scenario.members], float)[:, None]
    cpu_busy = compute_si("utilization_law", throughput=throughput, service_time=fixed.cpu, servers=cps)
    return ScenarioResult(
        title=scenario.title,
        members=tuple(m.name for m in scenario.members),
        distances=distances,
        response_time=response_time,
        throughput=throughput,
        share_within_goal=shares_within_goal(scenario, fixed, response_time),
        cpu_per_transaction=np.where(blank, np.nan, fixed.cpu),
        cpu_busy=cpu_busy["utilization"],
        breakdown=breakdown,
        delayed_fraction={
            f"{p.member}→{p.cf}": np.where(thrashing, np.nan, d)
            for p, d in zip(scenario.paths, loaded.delayed, strict=True)
        },
        path_rate={
            f"{p.member}→{p.cf}": np.where(thrashing, np.nan, rate)
            for p, rate in zip(scenario.paths, loaded.path_rate, strict=True)
        },
        converted_rate=throughput * fixed.converted_rate,
        cpu_saturated=loaded.cpu_saturated & ~blank,
        thrashing=thrashing,
        thrashing_load=thrashing_at,
        subchannel_share_at_edge=edge_share["subchannel_wait"],
        io_queue_share_at_edge=edge_share["io_queue"],
        io_queue=io_queue,
        volume_busy=volume_busy,
        terminals=tuple(m.terminals for m in scenario.members),
        goal_time=scenario.goal_time,
        goal_share=scenario.goal_share,
        fixed_part=fixed.fixed_part,
        disk_saturated=loaded.volumes_saturated & thrashing,
        open_saturated=loaded.open_saturated & ~loaded.volumes_saturated & thrashing,
    )


def response_times_together(
    points: Sequence[Scenario], distances: np.ndarray, fixed: FixedParts, *, checked: bool = False
) -> np.ndarray:
    """Each point's response time (S, M, D) s at ``distances`` (m), NaN where none exists (:func:`solve_at`'s
    ``response_time`` at the file's load, no search for the load where lock contention begins), for
    a caller that reads nothing else of it (the goal seek's band): :func:`solved_together`, each distinct
    solve once (points that differ only in their gamma shapes have the same response times:
    :func:`solved_values`)."""
    first = solved_alike(points)
    unique = sorted(set(first))
    solved = solved_together([points[i] for i in unique], distances, fixed, checked=checked)
    response = solved.response_time.reshape(len(points[0].members), len(unique), distances.size)
    place = {i: k for k, i in enumerate(unique)}
    return response.transpose(1, 0, 2)[[place[i] for i in first]]


def solved_together(
    points: Sequence[Scenario],
    distances: np.ndarray,
    fixed: FixedParts,
    *,
    checked: bool = False,
    settle: bool = False,
) -> Equilibrium:
    """The lock fixed point (:func:`equilibrium`) of each of ``points`` at ``distances`` (m), as
    :func:`solve_at` solves it at the file's load, for points that share their load-free parts ``fixed``
    (:func:`same_load_free`: a band's points that differ in the lock parameters, a member's other or think
    time; the trials of an inference of lockable_items), solved in one fixed point with every point's
    distances side by side (column p·D + d: point p at distance d): each column carries its point's
    workload and lock parameters, and a column's iteration does not read another's, so each point gets
    what it gets alone (a test), for one solve's overhead, not S."""
    for each in points:
        _solved_checks(each, distances.size * len(points), checked)
    count = distances.size
    columns = np.tile(np.arange(count), len(points))
    works = [workload(each, distances) for each in points]
    work = Workload(
        np.concatenate([w.terminals for w in works], axis=1),
        np.concatenate([w.think for w in works], axis=1),
        np.concatenate([w.other for w in works], axis=1),
        np.concatenate([w.rate for w in works], axis=1),
        works[0].open,
    )
    per_point = zip(*(locks_of(each) for each in points), strict=True)  # each parameter, a value per point
    locks = Locks(*(np.repeat(np.asarray(values, float), count) for values in per_point))
    return equilibrium(points[0], fixed.at(columns), work, locks=locks, settle=settle)


def solve_scenarios_together(
    points: Sequence[Scenario], distances: np.ndarray, fixed: FixedParts, *, search: bool = True
) -> list[ScenarioResult]:
    """:func:`solve_scenario` of each of ``points`` at ``distances`` (m), for points that share their
    load-free parts ``fixed`` at those distances (:func:`load_free_groups`, their paths held to carrying
    their other work): each checked as it checks it, their fixed points solved side by side
    (:func:`solved_together`, every distance decided), then each one's answer gathered as
    :func:`solve_at` gathers it (the load where lock contention begins searched where it thrashes): the
    same answers, for one solve's overhead. Without ``search``, for a caller that reads neither the load
    where lock contention begins nor the waits' shares at its edge (a band's points): no search, and a
    distance still moving after the fixed point's iterations counts as thrashing, as :func:`solve_at`
    without ``with_thrashing_load``."""
    for each in points:
        _refuse_unsolvable(each, distances, search)
    solved = solved_together(points, distances, fixed, checked=True, settle=search)
    count = distances.size
    return [
        _gathered(
            each,
            distances,
            fixed,
            workload(each, distances),
            solved.at(slice(p * count, (p + 1) * count)),
            with_thrashing_load=search,
        )
        for p, each in enumerate(points)
    ]


def load_free_groups(points: Sequence[Scenario], distances: np.ndarray) -> list[tuple[list[int], FixedParts]]:
    """The points in groups that share their load-free parts (:func:`load_free_indices`), each group's
    indices into ``points`` and its parts at ``distances`` (m), computed once."""
    return [(group, fixed_parts(points[group[0]], distances)) for group in load_free_indices(points)]


def load_free_indices(points: Sequence[Scenario]) -> list[list[int]]:
    """The indices of ``points`` in groups that share their load-free parts (:func:`same_load_free`: they
    differ only in what :func:`fixed_parts` does not read, a fit's hot set, span, others, think times or
    gamma shapes), in the order each group's first point comes."""
    groups: list[list[int]] = []
    for index, each in enumerate(points):
        known = next((group for group in groups if same_load_free(points[group[0]], each)), None)
        if known is None:
            groups.append([index])
        else:
            known.append(index)
    return groups


def solved_alike(points: Sequence[Scenario]) -> list[int]:
    """For each of ``points``, the first of them solved alike: the same load-free parts
    (:func:`load_free_indices`) and the same :func:`solved_values`, so the same response times, breakdown,
    throughput and CPU at every distance (they differ at most in their gamma shapes, which only the share
    within the goal reads): a caller that reads nothing else solves each distinct one once."""
    first = list(range(len(points)))
    for group in load_free_indices(points):
        seen: dict[tuple[float, ...], int] = {}
        for index in group:
            first[index] = seen.setdefault(solved_values(points[index]), index)
    return first


def _solved_checks(scenario: Scenario, distances: int, checked: bool) -> None:
    """Before a solve: the lock parameters given, and the size where not ``checked``."""
    if np.isnan(scenario.lockable_items):
        raise InputError(
            "locks.lockable_items",
            "left out",
            "given, or inferred from measured_wait: "
            "read the file with qmodel.scenario.load_scenario (it infers it)",
        )
    if not checked:
        refuse_huge(scenario, distances)


def _solved(
    scenario: Scenario,
    distances: np.ndarray,
    load: np.ndarray | float,
    max_iterations: int,
    below: np.ndarray | None,
    fixed: FixedParts | None,
    checked: bool,
    *,
    settle: bool,
    ceiling: np.ndarray | None = None,
) -> tuple[FixedParts, Workload, Equilibrium]:
    """What :func:`solve_at` gathers its answer from: the load-free parts, the workload and the lock fixed
    point at ``distances``, after its checks (:func:`_solved_checks`)."""
    _solved_checks(scenario, distances.size, checked)
    fixed = fixed_parts(scenario, distances) if fixed is None else fixed
    work = workload(scenario, distances, load)
    solved = equilibrium(
        scenario, fixed, work, max_iterations=max_iterations, below=below, settle=settle, ceiling=ceiling
    )
    return fixed, work, solved


EDGE_WAITS = ("subchannel_wait", "io_queue")  # the waits whose share at the edge of thrashing names remedies
LOAD_STEPS = 10  # the load to 1/1,024 of the terminals: under one terminal of 200
LOAD_ITERATIONS = 150  # while bisecting the load, undecided after this counts as no fixed point
# The cost estimate of a solve (bench/scenario_speed.py measures the real one): evaluations of F(R) per
# distance until the fixed point settles (8.8 to 10.7 on the shipped scenarios, 0..300 km), per distance
# and load step of the thrashing-load search (about 32), and the time of one evaluation per state of a
# path's finite-source queue, everything else at that distance included (69 to 75 ns from 100 to 10,000
# terminals per member). Memory: the result's arrays per distance (about 1.1 KB measured), and the
# finite-source queue's block of states (about eight float arrays over them, whatever the distances).
# With volumes, each evaluation also balances the disk queue: 11 to 12 us per distance (1,000 to 10,000).
# Besides its states, each path costs about 1 us an evaluation and distance (0.91 to 1.04 on three planners'
# files of open members only, 4 to 12 paths, 5,000 distances, at a load of 5 on 2 cores: their one state a
# path counted nothing else, and trial 8's six-member file ran 100,000 distances for minutes unrefused).
EVALUATIONS = 12
LOAD_EVALUATIONS = 32
_SECONDS_PER_STATE = 7e-8
_SECONDS_PER_PATH = 1e-6
_SECONDS_PER_BALANCE = 1.2e-5
_BYTES_PER_DISTANCE = 2e3
_BYTES_PER_STATE = 64


def solve_cost(scenario: Scenario, distances: int, evaluations: float) -> tuple[float, float]:
    """Estimated memory (bytes) and time (s) of ``evaluations`` evaluations of F(R) at ``distances``
    distances: each path's finite-source queue has one state per terminal of its member (K + 1), each path
    its own work besides, and with volumes the disk queue is balanced in each."""
    terminals = {m.name: m.terminals for m in scenario.members}
    states = sum(terminals[path.member] + 1 for path in scenario.paths)
    block = max(STATES_PER_BLOCK, max(terminals.values()) + 1)
    balance = _SECONDS_PER_BALANCE if scenario.volumes is not None else 0.0
    return (
        distances * _BYTES_PER_DISTANCE + block * _BYTES_PER_STATE,
        distances
        * evaluations
        * (states * _SECONDS_PER_STATE + len(scenario.paths) * _SECONDS_PER_PATH + balance),
    )


def refuse_huge(
    scenario: Scenario,
    distances: int,
    evaluations: float = EVALUATIONS,
    what: str = "",
    way_out: str = "",
) -> None:
    """Refuse, before the work, a solve whose :func:`solve_cost` passes the limits (an estimate: the fixed
    point's own ``max_iterations`` is the bound that ends it, not its expected cost). The words name the
    terminals where a member is closed (the subchannel queue keeps a state per terminal); ``way_out``
    by default fewer terminals (where a member is closed) or fewer distances."""
    largest = max(m.terminals for m in scenario.members)
    memory, seconds = solve_cost(scenario, distances, evaluations)
    what = what or f"{distances:,} distance(s)"
    fewer = (
        "fewer terminals per member (the subchannel queue keeps one state per terminal) or fewer distances"
    )
    refuse_too_large(
        memory,
        seconds,
        f"{largest:,} terminals per member, {what}" if largest else what,
        way_out or (fewer if largest else "fewer distances"),
    )


def thrashing_onset(scenario: Scenario, distances: np.ndarray) -> tuple[int, float]:
    """How many of ``distances`` lock contention thrashes at (the load search runs there) and the
    shortest of them (NaN if none), by bisection on the sorted distances, one distance per solve: a
    longer distance only lengthens service times, so no answer, once begun, persists; of the distances
    with none, those where the volumes' other work saturates them come last (it only grows)."""
    ordered = np.sort(distances)
    solved: dict[int, ScenarioResult] = {}

    def at(index: int) -> ScenarioResult:
        if index not in solved:
            one = ordered[index : index + 1]
            solved[index] = solve_at(scenario, one, 1.0, with_thrashing_load=False, checked=True)
        return solved[index]

    def first(flag: Callable[[ScenarioResult], bool]) -> int:
        """The first index where ``flag`` holds (it holds from there on), ordered.size if none."""
        if not flag(at(ordered.size - 1)):
            return ordered.size
        low, high = -1, ordered.size - 1  # flag at high; not at low (-1: before the first)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (low, middle) if flag(at(middle)) else (middle, high)
        return high

    no_answer = first(lambda result: bool(result.thrashing[0]))
    saturated = first(lambda result: bool(result.disk_saturated[0]))
    return saturated - no_answer, float(ordered[no_answer]) if saturated > no_answer else float("nan")


def thrashing_load(scenario: Scenario, distances: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per distance, the fraction of the terminals at which the lock fixed point stops existing, and per
    member and distance the shares of the response time spent waiting for a subchannel
    (``subchannel_wait``) and in IOSQ (``io_queue``) at the largest load searched that still has an
    answer (within 1/1,024 of the terminals below it; NaN where no load searched has one). Part of a
    solve whose size is checked (at most these distances, each at no more than its terminals)."""
    low, high = np.zeros(distances.shape), np.ones(distances.shape)
    edge_share = {name: np.full((len(scenario.members), distances.size), np.nan) for name in EDGE_WAITS}
    ssch = np.array([m.sync_reads + m.log_writes for m in scenario.members])[:, None]
    for _ in range(LOAD_STEPS):
        middle = (low + high) / 2
        solved = solve_at(scenario, distances, middle, max_iterations=LOAD_ITERATIONS, checked=True)
        exists = ~solved.thrashing
        waits = {
            "subchannel_wait": solved.breakdown["subchannel_wait"],
            "io_queue": ssch * (0.0 if solved.io_queue is None else solved.io_queue),
        }
        for name, wait in waits.items():
            edge_share[name][:, exists] = (wait / solved.response_time)[:, exists]
        low = np.where(exists, middle, low)
        high = np.where(exists, high, middle)
    return high, edge_share
